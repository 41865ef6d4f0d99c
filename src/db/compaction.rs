//! A compaction epoch (docs/design.md, invariant 8): afterwards no file orders what is
//! stored by arrival.
//!
//! First the responses stored since the last epoch move from `arriving_responses` into
//! `stored_responses` in key order ([`merge_arriving`]). Then `VACUUM` rebuilds every
//! table and index from scratch in key order. The responses are a WITHOUT ROWID table
//! keyed by a random record id, so both the order of pages and the
//! order of cells inside each page then follow that random key, not arrival; nothing is
//! left in free pages. It runs in place under the write lock: another process writing at
//! the same moment (the CLI) waits for it and loses nothing. Then
//! `wal_checkpoint(TRUNCATE)` copies the rebuilt pages into the database file and cuts the
//! WAL to zero bytes, so no earlier layout survives in a journal.

use std::time::{Duration, Instant};

use super::sql::Conn;

use crate::error::AppError;

/// How often a checkpoint is retried when a reader still uses the WAL (each attempt also
/// waits up to the connection's busy timeout).
const TRUNCATE_ATTEMPTS: u32 = 20;
const TRUNCATE_PAUSE: Duration = Duration::from_millis(25);

#[derive(Debug, Clone, Copy)]
pub struct EpochReport {
    pub duration: Duration,
    /// The database file's size afterwards.
    pub database_bytes: u64,
}

/// Moves the responses stored since the last epoch into `stored_responses`, in key order
/// (one pass over its leaves, each touched once however many responses land in it), and
/// deletes them from `arriving_responses` (migrations/sqlite/0008_arriving_responses.sql),
/// in one transaction; no transaction may be open. The `VACUUM` after it rebuilds both
/// tables. An epoch runs it on the live file, a backup on its copy.
pub fn merge_arriving(connection: &Conn) -> Result<(), AppError> {
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let merged = connection.execute_batch(
        "INSERT INTO stored_responses (survey_id, record_id, reports)
             SELECT survey_id, record_id, reports FROM arriving_responses
             ORDER BY survey_id, record_id;
         DELETE FROM arriving_responses;",
    );
    if let Err(error) = merged {
        let _ = connection.execute_batch("ROLLBACK");
        return Err(error.into());
    }
    Ok(connection.execute_batch("COMMIT")?)
}

/// One epoch on the write connection, logged; no transaction may be open.
pub fn run_epoch(connection: &Conn) -> Result<EpochReport, AppError> {
    let started = Instant::now();
    merge_arriving(connection)?;
    connection.execute_batch("VACUUM")?;
    truncate_wal(connection)?;
    let page_count: i64 = connection.query_row("PRAGMA page_count", (), |row| row.get(0))?;
    let page_size: i64 = connection.query_row("PRAGMA page_size", (), |row| row.get(0))?;
    let report = EpochReport {
        duration: started.elapsed(),
        database_bytes: u64::try_from(page_count * page_size).unwrap_or(0),
    };
    // Benchmarks and the attacker's test read this line to know when an epoch ended.
    tracing::info!(
        duration_ms = report.duration.as_secs_f64() * 1e3,
        database_bytes = report.database_bytes,
        "compaction epoch"
    );
    Ok(report)
}

/// Copies every committed page into the database file and cuts the WAL to zero bytes, so
/// that deleted content (a withdrawal; with `secure_delete` the page itself is zeroed where
/// it was) survives in no earlier page image.
pub fn truncate_wal(connection: &Conn) -> Result<(), AppError> {
    for _ in 0..TRUNCATE_ATTEMPTS {
        let busy: i64 =
            connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", (), |row| row.get(0))?;
        if busy == 0 {
            return Ok(());
        }
        std::thread::sleep(TRUNCATE_PAUSE);
    }
    Err(AppError::internal(
        "the WAL could not be truncated: another connection kept reading it",
    ))
}

/// Moves whenever another connection (another process) commits.
pub fn data_version(connection: &Conn) -> Result<i64, AppError> {
    Ok(connection.query_row("PRAGMA data_version", (), |row| row.get(0))?)
}
