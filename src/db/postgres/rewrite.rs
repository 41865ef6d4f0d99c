//! A survey's rows rewritten in key order when it closes (PostgreSQL only).
//!
//! A PostgreSQL heap keeps rows where they were inserted (`ctid`, in order of arrival) and
//! each row carries the id of the transaction that wrote it (`xmin`), so the tables order a
//! survey's responses, spent tokens and redemptions by arrival, and group them by commit —
//! what SQLite's compaction epochs undo (docs/design.md, invariant 8). When a survey closes,
//! its rows of every such table are deleted and inserted again in key order in one
//! statement each, inside the writer's group transaction: that transaction holds the lock
//! every node's writes take ([`super::writer`]), so other nodes' writes wait for it and
//! none is dropped. Afterwards the survey's rows share one `xmin` (the rewrite's) and their
//! `ctid`s follow the key, as new rows appended at the end of the heap; a later VACUUM
//! may let other rows reuse the space freed. Dead row versions stay in the heap until
//! VACUUM, and the WAL, its archives and replicas keep the earlier order: this narrows
//! what the live tables show, it does not give PostgreSQL SQLite's guarantee.

use super::super::sql::Conn;
use crate::domain::SurveyId;
use crate::error::AppError;

/// Per-survey tables whose rows each concern one respondent, with their key column: the
/// one list a new respondent table joins (the rewrite at close, the VACUUM after a deletion).
pub(super) const RESPONDENT_TABLES: [(&str, &str); 5] = [
    ("stored_responses", "record_id"),
    ("release_members", "record_id"),
    ("spent_tokens", "input_hash"),
    ("redemptions", "code_hash"),
    ("withdrawn_responses", "tag"),
];

/// Rewrites the survey's rows of every respondent table in key order, at close (SQLite
/// needs no such step: its next epoch rewrites the whole file in key order).
pub fn rewrite_survey_rows(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    for (table, key) in RESPONDENT_TABLES {
        connection.execute(
            &format!(
                "WITH moved AS (DELETE FROM {table} WHERE survey_id = ?1 RETURNING *)
                 INSERT INTO {table} SELECT * FROM moved ORDER BY {key}"
            ),
            [survey_id.get()],
        )?;
    }
    Ok(())
}
