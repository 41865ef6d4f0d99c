//! What the engines do differently in meaning, not in dialect ([`super::sql`] hides the
//! dialect): each engine folder implements [`EngineRules`] once ([`super::sqlite::Sqlite`],
//! [`super::postgres::Postgres`]), and the shared SQL asks the connection's rules instead of
//! asking which engine it talks to. A new engine is a new implementation, not new branches.

use super::sql::Conn;
use super::sqlite::compaction::EpochReport;
use crate::domain::SurveyId;
use crate::error::AppError;

pub trait EngineRules: Sync {
    /// The statement that opens the migration's transaction.
    fn begin_migration(&self) -> &'static str;
    /// The schema version stored now; on PostgreSQL after taking the start-up lock, so
    /// nodes starting at once apply each step once.
    fn schema_version(&self, connection: &Conn) -> Result<u32, AppError>;
    /// Records that the schema is at `version` (in the migration's transaction).
    fn set_schema_version(&self, connection: &Conn, version: u32) -> Result<(), AppError>;
    /// The SQL of each migration step, in order, from version 1.
    fn migration_steps(&self) -> &'static [&'static str];
    /// Whether a database of this engine can hold the first release's tables (SQLite only:
    /// PostgreSQL starts at schema 2).
    fn may_hold_first_release(&self) -> bool;
    /// Serializes start-up work (migrations, the demo survey, the first sign-up link)
    /// across nodes until the transaction ends; nothing where one writer already does.
    fn startup_lock(&self, connection: &Conn) -> Result<(), AppError>;
    /// The status of a survey with a target, read so that the response that reaches the
    /// target sees every response before it (`status` as read before, where one writer
    /// already guarantees that).
    fn status_for_target(
        &self,
        connection: &Conn,
        survey_id: SurveyId,
        status: String,
    ) -> Result<String, AppError>;
    /// The table a new response is inserted into.
    fn arriving_table(&self) -> &'static str;
    /// Every table a stored response may be in, newest first.
    fn response_tables(&self) -> &'static [&'static str];
    /// After a consideration: what every node must see of it while the survey is open.
    fn share_consideration(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError>;
    /// The statement that opens a consistent read of a survey's release state.
    fn begin_snapshot(&self) -> &'static str;
    /// A closed survey's live-page steps are no longer needed.
    fn forget_steps(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError>;
    /// The end of the close step: the survey's rows in key order where the next epoch
    /// does not rewrite the whole file.
    fn after_close(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError>;
    /// Whether the live pages' steps of surveys that show every response are kept in the
    /// server's memory (one process) rather than in tables (every node).
    fn steps_in_memory(&self) -> bool;
    /// What the server says when it has stopped.
    fn stopped_message(&self, last_epoch: &EpochReport) -> String;
}
