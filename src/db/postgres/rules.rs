//! PostgreSQL's [`EngineRules`]: several nodes write, so start-up work and targets take
//! locks, every response goes straight to `stored_responses`, and release steps live in
//! tables every node reads.

use std::time::Duration;

use crate::db::sql::{Conn, EngineRules};
use crate::domain::SurveyId;
use crate::error::AppError;

pub struct Postgres;

/// A connection to the PostgreSQL URL that follows PostgreSQL's rules.
pub fn connection(url: &str) -> Result<Conn, crate::db::sql::Error> {
    Conn::postgres(url, &Postgres)
}

/// The advisory lock key of start-up work ("deniable" in ASCII, in 64 bits).
const STARTUP_LOCK: i64 = 0x6465_6e69_6162_6c65;

impl EngineRules for Postgres {
    fn begin_migration(&self) -> &'static str {
        "BEGIN"
    }

    fn schema_version(&self, connection: &Conn) -> Result<u32, AppError> {
        // Held until COMMIT: other nodes starting now wait here, then find the steps done.
        self.startup_lock(connection)?;
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)",
        )?;
        Ok(connection.query_row(
            "SELECT coalesce(max(version), 0) FROM schema_version",
            (),
            |row| row.get::<_, u32>(0),
        )?)
    }

    fn set_schema_version(&self, connection: &Conn, version: u32) -> Result<(), AppError> {
        connection.execute("DELETE FROM schema_version", ())?;
        connection.execute(
            "INSERT INTO schema_version (version) VALUES (?1)",
            [version],
        )?;
        Ok(())
    }

    fn migration_sql(&self, _: &'static str, postgres: &'static str) -> &'static str {
        postgres
    }

    fn may_hold_first_release(&self) -> bool {
        false
    }

    fn startup_lock(&self, connection: &Conn) -> Result<(), AppError> {
        connection.query_row("SELECT pg_advisory_xact_lock(?1)", [STARTUP_LOCK], |_| {
            Ok(())
        })?;
        Ok(())
    }

    fn status_for_target(
        &self,
        connection: &Conn,
        survey_id: SurveyId,
        _: String,
    ) -> Result<String, AppError> {
        // The survey row stays locked until this transaction commits, and its status is
        // read again after the wait (another node may have closed it meanwhile).
        Ok(connection.query_row(
            "SELECT status FROM surveys WHERE id = ?1 FOR UPDATE",
            [survey_id.get()],
            |row| row.get::<_, String>(0),
        )?)
    }

    fn insert_response(&self) -> &'static str {
        "INSERT INTO stored_responses (survey_id, record_id, reports) VALUES (?1, ?2, ?3)"
    }

    fn response_tables(&self) -> &'static [&'static str] {
        &["stored_responses"]
    }

    fn share_consideration(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
        // Every node shows this consideration's figures while the survey is open (the
        // snapshot SQLite keeps in the server's memory: `db::sqlite::live_state`).
        connection.execute(
            "DELETE FROM considered_cells WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
        connection.execute(
            "INSERT INTO considered_cells (survey_id, cell, n, counts)
             SELECT survey_id, cell, n, counts FROM released_cells WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
        connection.execute(
            "DELETE FROM considered_pairs WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
        connection.execute(
            "INSERT INTO considered_pairs (survey_id, pairs)
             SELECT survey_id, pairs FROM released_pairs WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
        Ok(())
    }

    fn begin_snapshot(&self) -> &'static str {
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    }

    fn after_close(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
        super::rewrite::rewrite_survey_rows(connection, survey_id)
    }

    fn stopped_message(&self, _: u64, _: Duration, _: bool) -> String {
        "Deniable stopped; every acknowledged response is committed to PostgreSQL.".to_owned()
    }
}
