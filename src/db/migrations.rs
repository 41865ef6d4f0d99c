//! The schema's versions: numbered steps in `migrations/sqlite/` and, with the same numbers,
//! `migrations/postgres/`, applied at start-up in one transaction. SQLite keeps the version
//! in `PRAGMA user_version`; PostgreSQL in the table `schema_version`, and there the whole
//! migration holds an advisory lock, so nodes starting at once apply each step once.
//!
//! A database made by the first release (user_version 0, tables already there) goes
//! through 0001 unchanged (every statement there is IF NOT EXISTS) and is converted by 0002.

use super::sql::{params, Conn};

use super::responses::encode_reports;
use super::stored_format::{decode_response, stored_level};
use crate::crypto::{random_bytes, sha256};
use crate::domain::{QuestionId, StoredReport, SurveyId, WithdrawalKey};
use crate::error::AppError;

/// Data the SQL alone cannot convert, run right after it in the same transaction.
type DataStep = fn(&Conn) -> Result<(), AppError>;

/// A step of the schema: its SQL for each engine (the engine's rules pick theirs), then
/// what SQL alone cannot convert.
struct Migration {
    version: u32,
    sqlite: &'static str,
    postgres: &'static str,
    then: Option<DataStep>,
}

const MIGRATIONS: [Migration; 12] = [
    Migration {
        version: 1,
        sqlite: include_str!("../../migrations/sqlite/0001_initial.sql"),
        postgres: include_str!("../../migrations/postgres/0001_initial.sql"),
        then: None,
    },
    Migration {
        version: 2,
        sqlite: include_str!("../../migrations/sqlite/0002_privacy_at_rest.sql"),
        postgres: include_str!("../../migrations/postgres/0002_privacy_at_rest.sql"),
        then: Some(convert_to_one_row_per_response),
    },
    Migration {
        version: 3,
        sqlite: include_str!("../../migrations/sqlite/0003_designs.sql"),
        postgres: include_str!("../../migrations/postgres/0003_designs.sql"),
        then: None,
    },
    Migration {
        version: 4,
        sqlite: include_str!("../../migrations/sqlite/0004_survey_intro.sql"),
        postgres: include_str!("../../migrations/postgres/0004_survey_intro.sql"),
        then: None,
    },
    Migration {
        version: 5,
        sqlite: include_str!("../../migrations/sqlite/0005_blind_tokens.sql"),
        postgres: include_str!("../../migrations/postgres/0005_blind_tokens.sql"),
        then: Some(draw_invitation_keys),
    },
    Migration {
        version: 6,
        sqlite: include_str!("../../migrations/sqlite/0006_analyses.sql"),
        postgres: include_str!("../../migrations/postgres/0006_analyses.sql"),
        then: None,
    },
    Migration {
        version: 7,
        sqlite: include_str!("../../migrations/sqlite/0007_releases.sql"),
        postgres: include_str!("../../migrations/postgres/0007_releases.sql"),
        then: None,
    },
    Migration {
        version: 8,
        sqlite: include_str!("../../migrations/sqlite/0008_arriving_responses.sql"),
        postgres: include_str!("../../migrations/postgres/0008_arriving_responses.sql"),
        then: None,
    },
    Migration {
        version: 9,
        sqlite: include_str!("../../migrations/sqlite/0009_disclosure.sql"),
        postgres: include_str!("../../migrations/postgres/0009_disclosure.sql"),
        then: Some(release_existing_responses),
    },
    Migration {
        version: 10,
        sqlite: include_str!("../../migrations/sqlite/0010_signup_link_issuer.sql"),
        postgres: include_str!("../../migrations/postgres/0010_signup_link_issuer.sql"),
        then: None,
    },
    Migration {
        version: 11,
        sqlite: include_str!("../../migrations/sqlite/0011_embedding.sql"),
        postgres: include_str!("../../migrations/postgres/0011_embedding.sql"),
        then: None,
    },
    Migration {
        version: 12,
        sqlite: include_str!("../../migrations/sqlite/0012_releases_by_batch.sql"),
        postgres: include_str!("../../migrations/postgres/0012_releases_by_batch.sql"),
        then: Some(super::releases::release_existing_responses_by_cell),
    },
];

/// The schema version this binary writes.
pub const LATEST_VERSION: u32 = 12;

/// Brings the database to [`LATEST_VERSION`] in one transaction (all steps or none).
pub fn migrate(connection: &Conn) -> Result<(), AppError> {
    let rules = connection.rules();
    connection.execute_batch(rules.begin_migration())?;
    let outcome = (|| {
        let version = rules.schema_version(connection)?;
        if version > LATEST_VERSION {
            return Err(AppError::internal(format!(
                "the database has schema version {version}, newer than this binary's \
                 {LATEST_VERSION}: run a newer release of deniable"
            )));
        }
        for migration in MIGRATIONS.iter().filter(|m| m.version > version) {
            connection.execute_batch(rules.migration_sql(migration.sqlite, migration.postgres))?;
            if let Some(then) = migration.then {
                then(connection)?;
            }
            rules.set_schema_version(connection, migration.version)?;
            tracing::debug!(version = migration.version, "migrated the database schema");
        }
        // One line at start, not one per step: a newcomer's first run reads as one event.
        if version == 0 {
            tracing::info!(version = LATEST_VERSION, "created the database schema");
        } else if version < LATEST_VERSION {
            tracing::info!(
                from = version,
                to = LATEST_VERSION,
                "migrated the database schema"
            );
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
pub fn withdrawal_key(connection: &Conn) -> Result<WithdrawalKey, AppError> {
    let bytes: Vec<u8> = connection.query_row(
        "SELECT value FROM secrets WHERE name = 'withdrawal_key'",
        (),
        |row| row.get::<_, Vec<u8>>(0),
    )?;
    Ok(WithdrawalKey::from_stored(&bytes)?)
}

/// 0009: the release state of every survey with grouping questions or invitations. What its
/// owner was shown before is not known, so every stored response starts unreleased, its
/// count of responses received is the count stored, and releases are considered at once:
/// cells of at least k are released (a closed survey's others are withheld for good, as
/// they would have been had it closed under this model). Written against 0009's tables
/// alone: 0012's step then makes the releases (and every cell's counts) from what this one
/// released.
fn release_existing_responses(connection: &Conn) -> Result<(), AppError> {
    let surveys = connection
        .prepare(
            "SELECT id, min_cell FROM surveys
             WHERE status <> 'draft'
               AND (requires_invitation = 1
                    OR EXISTS (SELECT 1 FROM questions
                               WHERE questions.survey_id = surveys.id
                                 AND coalesce(design ->> 'type', 'yes_no') = 'grouping'))",
        )?
        .query_map((), |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (survey_id, min_cell) in surveys {
        let k = crate::domain::MinCell::from_stored(u32::try_from(min_cell).unwrap_or(u32::MAX));
        let order: Vec<i64> = connection
            .prepare(
                "SELECT id FROM questions
                 WHERE survey_id = ?1 AND coalesce(design ->> 'type', 'yes_no') = 'grouping'
                 ORDER BY position",
            )?
            .query_map([survey_id], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        let mut cells: std::collections::BTreeMap<Vec<u8>, Vec<Vec<u8>>> = Default::default();
        connection
            .prepare("SELECT record_id, reports FROM all_responses WHERE survey_id = ?1")?
            .for_each_row([survey_id], |row| {
                let (_, groupings) = decode_response(&row.get::<_, Vec<u8>>(1)?)?;
                let cell: Vec<u8> = order
                    .iter()
                    .map(|id| {
                        groupings
                            .iter()
                            .find(|answer| answer.question_id.get() == *id)
                            .map_or(u8::MAX, |answer| answer.answer)
                    })
                    .collect();
                cells.entry(cell).or_default().push(row.get(0)?);
                Ok::<_, AppError>(())
            })?;
        let mark = connection
            .prepare("INSERT INTO unreleased_responses (survey_id, record_id) VALUES (?1, ?2)")?;
        for records in cells.values() {
            if records.len() as u64 >= u64::from(k.get()) {
                continue;
            }
            for record_id in records {
                mark.execute(params![survey_id, record_id.as_slice()])?;
            }
        }
        connection.execute(
            "UPDATE surveys SET
                 received = (SELECT count(*) FROM all_responses WHERE survey_id = ?1),
                 considered_at = (SELECT count(*) FROM all_responses WHERE survey_id = ?1),
                 considered_responses = (SELECT count(*) FROM all_responses WHERE survey_id = ?1),
                 considered_redemptions = (SELECT count(*) FROM redemptions WHERE survey_id = ?1)
             WHERE id = ?1",
            [survey_id],
        )?;
    }
    Ok(())
}

/// 0005: a key pair for every survey that requires invitations and can still collect (a
/// closed one never evaluates anything again). Its unused invitations stay usable, through
/// links that carry the new key's fingerprint: the old links, without one, are refused by
/// the form, so their owner sends new ones.
fn draw_invitation_keys(connection: &Conn) -> Result<(), AppError> {
    let surveys = connection
        .prepare("SELECT id FROM surveys WHERE requires_invitation = 1 AND status <> 'closed'")?
        .query_map((), |row| row.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for survey_id in surveys {
        super::redemptions::ensure_key(connection, SurveyId::from_stored(survey_id))?;
    }
    Ok(())
}

/// 0002: draws the withdrawal key, and moves every response of the first release's
/// `responses`/`reports` tables (keyed by the response id) into `stored_responses` (one row
/// each, keyed by the record id), then drops the old tables.
fn convert_to_one_row_per_response(connection: &Conn) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO secrets (name, value) VALUES ('withdrawal_key', ?1)",
        [random_bytes::<{ WithdrawalKey::BYTES }>()?.to_vec()],
    )?;
    // PostgreSQL starts at this schema: it never held the first release's tables.
    if !connection.rules().may_hold_first_release() {
        return Ok(());
    }
    let responses = connection.prepare("SELECT survey_id, response_id FROM responses")?;
    let reports_of = connection.prepare(
        "SELECT reports.question_id, reports.epsilon, reports.report
         FROM reports JOIN questions ON questions.id = reports.question_id
         WHERE reports.response_id = ?1 ORDER BY questions.position",
    )?;
    let insert = connection.prepare(
        "INSERT INTO stored_responses (survey_id, record_id, reports) VALUES (?1, ?2, ?3)",
    )?;
    let old = responses
        .query_map((), |row| {
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
