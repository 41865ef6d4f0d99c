//! SQLite's [`EngineRules`]: one writer thread serializes every write, new responses wait
//! in `arriving_responses` until the next epoch, and release steps live in memory.

use std::time::Duration;

use crate::db::sql::{Conn, EngineRules};
use crate::domain::SurveyId;
use crate::error::AppError;

pub struct Sqlite;

/// A SQLite connection that follows SQLite's rules.
pub fn connection(connection: rusqlite::Connection) -> Conn {
    Conn::sqlite(connection, &Sqlite)
}

impl EngineRules for Sqlite {
    fn begin_migration(&self) -> &'static str {
        "BEGIN IMMEDIATE"
    }

    fn schema_version(&self, connection: &Conn) -> Result<u32, AppError> {
        Ok(connection.query_row("PRAGMA user_version", (), |row| row.get::<_, u32>(0))?)
    }

    fn set_schema_version(&self, connection: &Conn, version: u32) -> Result<(), AppError> {
        Ok(connection.execute_batch(&format!("PRAGMA user_version = {version}"))?)
    }

    fn migration_sql(&self, sqlite: &'static str, _: &'static str) -> &'static str {
        sqlite
    }

    fn may_hold_first_release(&self) -> bool {
        true
    }

    fn startup_lock(&self, _: &Conn) -> Result<(), AppError> {
        // The writer's `BEGIN IMMEDIATE` already serializes start-up work.
        Ok(())
    }

    fn status_for_target(&self, _: &Conn, _: SurveyId, status: String) -> Result<String, AppError> {
        Ok(status)
    }

    fn insert_response(&self) -> &'static str {
        // It waits in `arriving_responses` until the next epoch merges it into
        // `stored_responses` (migrations/sqlite/0008_arriving_responses.sql).
        "INSERT INTO arriving_responses (survey_id, record_id, reports) VALUES (?1, ?2, ?3)"
    }

    fn response_tables(&self) -> &'static [&'static str] {
        &["arriving_responses", "stored_responses"]
    }

    fn share_consideration(&self, _: &Conn, _: SurveyId) -> Result<(), AppError> {
        // One process: the snapshot it takes at its first read after a consideration, in its
        // memory, is what every view shows (`super::live_state`).
        Ok(())
    }

    fn begin_snapshot(&self) -> &'static str {
        "BEGIN"
    }

    fn after_close(&self, _: &Conn, _: SurveyId) -> Result<(), AppError> {
        // The next epoch rewrites the whole file in key order.
        Ok(())
    }

    fn stopped_message(&self, database_bytes: u64, took: Duration, wal_kept: bool) -> String {
        if wal_kept {
            format!(
                "Deniable stopped; every acknowledged response is committed ({} bytes, \
                 compacted in {:.0} ms). Another process has the database open, so SQLite \
                 keeps its -wal and -shm files beside it for now: the -shm lists the pages \
                 written before the last epoch until that process closes the database or the \
                 server starts again.",
                database_bytes,
                took.as_secs_f64() * 1e3
            )
        } else {
            format!(
                "Deniable stopped; every acknowledged response is committed, and the database \
                 file alone holds everything ({} bytes, compacted in {:.0} ms).",
                database_bytes,
                took.as_secs_f64() * 1e3
            )
        }
    }
}
