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
//! WAL to zero bytes, so no earlier layout survives in a journal. Last, the WAL's index
//! goes ([`remove_wal`]): the `-shm` file, whose hash tables list the page number of every
//! frame written since the WAL last started again, in order, and which the checkpoint does
//! not clear.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::super::readers::ReadPool;
use super::super::sql::Conn;
use super::super::writer::EpochReport;

use crate::error::AppError;

/// How often a checkpoint is retried when a reader still uses the WAL (each attempt also
/// waits up to the connection's busy timeout).
const TRUNCATE_ATTEMPTS: u32 = 20;
const TRUNCATE_PAUSE: Duration = Duration::from_millis(25);

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

/// One epoch on the write connection, logged; no transaction may be open. The read
/// connections are closed for the moment SQLite needs the file to itself.
pub(super) fn run_epoch(connection: &Conn, readers: &ReadPool) -> Result<EpochReport, AppError> {
    let started = Instant::now();
    merge_arriving(connection)?;
    connection.execute_batch("VACUUM")?;
    let wal_kept = !clear_wal(connection, readers)?;
    let page_count: i64 = connection.query_row("PRAGMA page_count", (), |row| row.get(0))?;
    let page_size: i64 = connection.query_row("PRAGMA page_size", (), |row| row.get(0))?;
    let report = EpochReport {
        duration: started.elapsed(),
        database_bytes: u64::try_from(page_count * page_size).unwrap_or(0),
        wal_kept,
    };
    // Benchmarks and the attacker's test read this line to know when an epoch ended.
    tracing::info!(
        duration_ms = report.duration.as_secs_f64() * 1e3,
        database_bytes = report.database_bytes,
        wal_kept,
        "compaction epoch"
    );
    Ok(report)
}

/// Copies every committed page into the database file, then deletes the WAL and its
/// index ([`truncate_wal`], then [`remove_wal`] with the read connections closed).
/// Returns whether they are gone: not while another process has the database open.
pub(super) fn clear_wal(connection: &Conn, readers: &ReadPool) -> Result<bool, AppError> {
    truncate_wal(connection)?;
    readers.closed_while(|| remove_wal(connection))
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

/// Leaves WAL mode and enters it again, so that SQLite itself deletes the WAL and its
/// index: the `-shm` file, which nothing else clears, and which after a checkpoint still
/// lists the page number of every frame written since the WAL last started again — a
/// journal of which pages each commit wrote, in commit order. The next transaction starts
/// both afresh. The application never writes or closes `-shm` itself: SQLite's locks live
/// on its descriptors.
///
/// SQLite leaves WAL mode only when no other connection has the file open: the caller
/// closes its own read connections around this ([`ReadPool::closed_while`]). Returns
/// whether the files are gone; `Ok(false)` when another process has the database open
/// (SQLite refuses at once and nothing changes: the caller tries again later).
///
/// In between, the database is in rollback-journal mode for two header writes, each
/// through a `-journal` file that holds the old page 1 (the schema's root, no response)
/// and is deleted at its commit; `synchronous = FULL` holds in both modes.
pub(super) fn remove_wal(connection: &Conn) -> Result<bool, AppError> {
    match set_journal_mode(connection, "DELETE") {
        Err(error) if error.is_busy() => return Ok(false),
        Err(error) => return Err(error.into()),
        Ok(mode) if mode != "delete" => {
            return Err(AppError::internal(format!(
                "the database did not leave WAL mode (got {mode})"
            )))
        }
        Ok(_) => {}
    }
    // Back to WAL, so that readers run beside the writer again. Another process that
    // opened the file in the meantime may hold a lock for a moment: wait for it, as long as
    // a checkpoint would.
    let mut attempts = 0;
    loop {
        attempts += 1;
        match set_journal_mode(connection, "WAL") {
            Ok(mode) if mode == "wal" => break,
            Err(error) if !error.is_busy() => return Err(error.into()),
            _ if attempts < TRUNCATE_ATTEMPTS => std::thread::sleep(TRUNCATE_PAUSE),
            Ok(mode) => {
                return Err(AppError::internal(format!(
                    "the database refused to enter WAL mode again (got {mode})"
                )))
            }
            Err(error) => return Err(error.into()),
        }
    }
    Ok(!database_path(connection).is_some_and(|path| wal_files_exist(&path)))
}

fn set_journal_mode(connection: &Conn, mode: &str) -> Result<String, super::super::sql::Error> {
    let mode: String =
        connection.query_row(&format!("PRAGMA journal_mode = {mode}"), (), |row| {
            row.get(0)
        })?;
    Ok(mode.to_ascii_lowercase())
}

/// The file of a SQLite connection to a database on disk.
pub(super) fn database_path(connection: &Conn) -> Option<PathBuf> {
    connection
        .as_sqlite()
        .and_then(|sqlite| sqlite.path())
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
}

/// Whether the WAL or its index (`-wal`, `-shm`) is beside the database file at `path`.
pub(super) fn wal_files_exist(path: &Path) -> bool {
    ["-wal", "-shm"].iter().any(|suffix| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        Path::new(&name).exists()
    })
}

/// Moves whenever another connection (another process) commits.
pub fn data_version(connection: &Conn) -> Result<i64, AppError> {
    Ok(connection.query_row("PRAGMA data_version", (), |row| row.get(0))?)
}
