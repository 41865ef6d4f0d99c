//! The SQLite schema's versions: numbered steps in `migrations/sqlite/`, applied at start-up
//! in one transaction, with the version kept in `PRAGMA user_version`.
//!
//! A database made by the first release (user_version 0, tables already there) goes
//! through 0001 unchanged (every statement there is IF NOT EXISTS) and is converted by 0002.

use rusqlite::{params, Connection};

use super::queries::stored_level;
use super::responses::encode_reports;
use crate::crypto::{random_bytes, sha256};
use crate::domain::{QuestionId, StoredReport, SurveyId, WithdrawalKey};
use crate::error::AppError;

/// Data the SQL alone cannot convert, run right after it in the same transaction.
type DataStep = fn(&Connection) -> Result<(), AppError>;

struct Migration {
    version: u32,
    sql: &'static str,
    then: Option<DataStep>,
}

const MIGRATIONS: [Migration; 6] = [
    Migration {
        version: 1,
        sql: include_str!("../../migrations/sqlite/0001_initial.sql"),
        then: None,
    },
    Migration {
        version: 2,
        sql: include_str!("../../migrations/sqlite/0002_privacy_at_rest.sql"),
        then: Some(convert_to_one_row_per_response),
    },
    Migration {
        version: 3,
        sql: include_str!("../../migrations/sqlite/0003_designs.sql"),
        then: None,
    },
    Migration {
        version: 4,
        sql: include_str!("../../migrations/sqlite/0004_survey_intro.sql"),
        then: None,
    },
    Migration {
        version: 5,
        sql: include_str!("../../migrations/sqlite/0005_blind_tokens.sql"),
        then: Some(draw_invitation_keys),
    },
    Migration {
        version: 6,
        sql: include_str!("../../migrations/sqlite/0006_analyses.sql"),
        then: None,
    },
];

/// The schema version this binary writes.
pub const LATEST_VERSION: u32 = 6;

/// Brings the database to [`LATEST_VERSION`] in one transaction (all steps or none).
pub fn migrate(connection: &Connection) -> Result<(), AppError> {
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let outcome = (|| {
        let version: u32 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version > LATEST_VERSION {
            return Err(AppError::internal(format_args!(
                "the database has schema version {version}, newer than this binary's \
                 {LATEST_VERSION}: run a newer release of deniable"
            )));
        }
        for migration in MIGRATIONS.iter().filter(|m| m.version > version) {
            connection.execute_batch(migration.sql)?;
            if let Some(then) = migration.then {
                then(connection)?;
            }
            connection.pragma_update(None, "user_version", migration.version)?;
            tracing::info!(version = migration.version, "migrated the database schema");
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => {
            connection.execute_batch("COMMIT")?;
            Ok(())
        }
        Err(error) => {
            let _ = connection.execute_batch("ROLLBACK");
            Err(error)
        }
    }
}

/// The per-database withdrawal key (drawn by migration 0002).
pub fn withdrawal_key(connection: &Connection) -> Result<WithdrawalKey, AppError> {
    let bytes: Vec<u8> = connection.query_row(
        "SELECT value FROM secrets WHERE name = 'withdrawal_key'",
        [],
        |row| row.get(0),
    )?;
    WithdrawalKey::from_stored(&bytes)
}

/// 0005: a key pair for every survey that requires invitations and can still collect (a
/// closed one never evaluates anything again). Its unused invitations stay usable, through
/// links that carry the new key's fingerprint: the old links, without one, are refused by
/// the form, so their owner sends new ones.
fn draw_invitation_keys(connection: &Connection) -> Result<(), AppError> {
    let surveys = connection
        .prepare("SELECT id FROM surveys WHERE requires_invitation = 1 AND status <> 'closed'")?
        .query_map([], |row| row.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for survey_id in surveys {
        super::redemptions::ensure_key(connection, SurveyId::from_stored(survey_id))?;
    }
    Ok(())
}

/// 0002: draws the withdrawal key, and moves every response of the first release's
/// `responses`/`reports` tables (keyed by the response id) into `stored_responses` (one row
/// each, keyed by the record id), then drops the old tables.
fn convert_to_one_row_per_response(connection: &Connection) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO secrets (name, value) VALUES ('withdrawal_key', ?1)",
        [random_bytes::<{ WithdrawalKey::BYTES }>()?.to_vec()],
    )?;
    let mut responses = connection.prepare("SELECT survey_id, response_id FROM responses")?;
    let mut reports_of = connection.prepare(
        "SELECT reports.question_id, reports.epsilon, reports.report
         FROM reports JOIN questions ON questions.id = reports.question_id
         WHERE reports.response_id = ?1 ORDER BY questions.position",
    )?;
    let mut insert = connection.prepare(
        "INSERT INTO stored_responses (survey_id, record_id, reports) VALUES (?1, ?2, ?3)",
    )?;
    let old = responses
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (survey_id, response_id) in old {
        let reports = reports_of
            .query_map([&response_id], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, f64>(1)?, row.get(2)?))
            })?
            .map(|row| {
                let (question_id, epsilon, report) = row?;
                Ok(StoredReport {
                    question_id: QuestionId::from_stored(question_id),
                    level: stored_level(epsilon)?,
                    report,
                })
            })
            .collect::<Result<Vec<_>, AppError>>()?;
        // The record id of the first release's response id (its hex text), as for new ones.
        let record_id = sha256(response_id.as_bytes());
        insert.execute(params![survey_id, record_id, encode_reports(&reports)])?;
    }
    connection.execute_batch("DROP TABLE reports; DROP TABLE responses;")?;
    Ok(())
}
