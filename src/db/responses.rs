//! Stored responses: one row per response, keyed by its record id, and the tags that
//! withdrawals leave (migrations/sqlite/0002_privacy_at_rest.sql).

use super::sql::{params, Conn, OptionalExtension, ToValue};
use randomized_response::PrivacyLevel;

pub use super::counts::responses_counted;
use super::redemptions;
pub use super::stored_format::{decode_reports, decode_response, encode_reports, encode_response};
use crate::domain::{
    ClosingTime, QuestionId, RecordId, Refusal, ResearcherId, Slug, SpentToken, StoppingRule,
    StoredGrouping, StoredReport, Submission, SurveyId, SurveyStatus, WithdrawalTag,
};
use crate::error::AppError;

/// What storing a submission did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// A new response.
    Created,
    /// The same reports under the same id were stored before: a retry, nothing changed.
    AlreadyStored,
}

/// What the submission path found out about a response's token before the write.
#[derive(Debug, Clone, Copy)]
pub enum TokenCheck {
    /// The survey does not require invitations.
    NotRequired,
    /// The survey's key issued the token: it is spent with the response.
    Issued(SpentToken),
    /// The survey requires invitations but has no private key (it has closed): only a
    /// retry of a stored response can succeed.
    NoKey,
}

/// Stores a response and counts its reports, looking its id up first: the same
/// reports again are a retry (even once the survey has closed), other reports under the
/// same id a conflict, and a withdrawn id stays withdrawn. Only a new response needs the
/// survey to be open, and, when it requires invitations, a token never spent before (the
/// token's hash goes into `spent_tokens` in this transaction, the response into
/// `stored_responses`: no row names the other).
///
/// The new response starts unreleased and may bring a consideration of releases
/// ([`super::releases::record_arrival`]).
pub fn store_response(
    connection: &Conn,
    survey_id: SurveyId,
    record_id: &RecordId,
    withdrawal_tag: &WithdrawalTag,
    submission: &Submission,
    token: TokenCheck,
) -> Result<Stored, AppError> {
    // One statement reads all the writer must know first (the stored reports under this
    // id, whether it was withdrawn, the survey's state): on PostgreSQL each statement is a
    // round trip, and the writer's group waits on every one. From the statement cache.
    type Lookup = (Option<Vec<u8>>, i64, String, Option<i64>, Option<i64>);
    let (stored, withdrawn, status, target, closes_at): Lookup = connection
        .prepare_cached(
            "SELECT (SELECT reports FROM all_responses
                     WHERE survey_id = ?1 AND record_id = ?2),
                    CASE WHEN EXISTS (SELECT 1 FROM withdrawn_responses
                                      WHERE survey_id = ?1 AND tag = ?3)
                         THEN 1 ELSE 0 END,
                    status, target_responses, closes_at
             FROM surveys WHERE id = ?1",
        )?
        .query_row(
            params![
                survey_id.get(),
                record_id.as_bytes(),
                withdrawal_tag.as_bytes()
            ],
            |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                ))
            },
        )
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    if let Some(stored) = stored {
        let (reports, groupings) = decode_response(&stored)?;
        return if reports == submission.reports() && groupings == submission.groupings() {
            Ok(Stored::AlreadyStored)
        } else {
            Err(Refusal::ResponseIdConflict.into())
        };
    }
    if withdrawn != 0 {
        return Err(Refusal::ResponseWithdrawn.into());
    }
    // Checked inside the write transaction, so a concurrent close is respected.
    let rule = StoppingRule::from_stored(target.and_then(|t| u64::try_from(t).ok()), closes_at);
    // Across PostgreSQL nodes, the response that reaches a target must see every response
    // before it: the survey row is locked until this transaction commits, and its status
    // read again after the wait (another node may have closed it meanwhile).
    let status = if rule.target_responses().is_some() {
        connection
            .rules()
            .status_for_target(connection, survey_id, status)?
    } else {
        status
    };
    let mut status = SurveyStatus::from_stored(&status)?;
    // A closing time that has come closes the survey even before the writer's timer does.
    if rule
        .closes_at()
        .is_some_and(|at| at.has_passed(ClosingTime::now()))
    {
        status = SurveyStatus::Closed;
    }
    if status != SurveyStatus::Open {
        return Err(Refusal::SurveyNotOpen { status }.into());
    }
    match token {
        TokenCheck::NotRequired => {}
        // Spent in the same transaction as the response: of concurrent submissions with
        // one token, the single writer lets exactly one insert it.
        TokenCheck::Issued(spent) => redemptions::spend(connection, survey_id, &spent)?,
        TokenCheck::NoKey => {
            return Err(AppError::internal(
                "an open survey that requires invitations has no private key",
            ))
        }
    }
    // On SQLite a new response waits in `arriving_responses` until the next epoch.
    connection
        .prepare_cached(connection.rules().insert_response())?
        .execute(params![
            survey_id.get(),
            record_id.as_bytes(),
            encode_response(submission.reports(), submission.groupings())
        ])?;
    let reports: Vec<(i64, i64)> = submission
        .reports()
        .iter()
        .map(|report| (report.question_id.get(), i64::from(report.report)))
        .collect();
    count_reports(connection, &reports, 1)?;
    super::releases::record_arrival(connection, survey_id, record_id)?;
    if let Some(target) = rule.target_responses() {
        close_at_target(connection, survey_id, target)?;
    }
    Ok(Stored::Created)
}

/// Adds `change` (1 or −1) to the count of every (question, report) of one response, in
/// one statement (each question appears once in a response, so no row is hit twice).
fn count_reports(connection: &Conn, reports: &[(i64, i64)], change: i64) -> Result<(), AppError> {
    let keys: Vec<[i64; 2]> = reports
        .iter()
        .map(|&(question, report)| [question, report])
        .collect();
    add_to_counts(
        connection,
        "report_counts",
        "question_id, report",
        &keys,
        change,
    )
}

/// Adds `change` to the `n` of the rows of `table` with these `keys` (the values of its
/// `key_columns`, W per row) in one multi-row upsert — on PostgreSQL every statement is a
/// round trip of the writer's group; a row not there yet starts at `max(change, 0)`.
/// `table` and `key_columns` are this module's constants, never input.
fn add_to_counts<const W: usize>(
    connection: &Conn,
    table: &str,
    key_columns: &str,
    keys: &[[i64; W]],
    change: i64,
) -> Result<(), AppError> {
    if keys.is_empty() {
        return Ok(());
    }
    // ?1 is the change; each row's keys follow: (?2, ?3, …), (?2+W, …), ….
    let rows: Vec<String> = (0..keys.len())
        .map(|row| {
            let placeholders: Vec<String> = (0..W)
                .map(|column| format!("?{}", 2 + W * row + column))
                .collect();
            format!(
                "({}, CASE WHEN ?1 > 0 THEN ?1 ELSE 0 END)",
                placeholders.join(", ")
            )
        })
        .collect();
    let sql = format!(
        "INSERT INTO {table} ({key_columns}, n) VALUES {}
         ON CONFLICT ({key_columns}) DO UPDATE SET n = {table}.n + ?1",
        rows.join(", ")
    );
    let values: Vec<i64> = std::iter::once(change)
        .chain(keys.iter().flatten().copied())
        .collect();
    let values: Vec<&dyn ToValue> = values.iter().map(|v| v as &dyn ToValue).collect();
    connection
        .prepare_cached(&sql)?
        .execute(values.as_slice())?;
    Ok(())
}

/// In the transaction of the response just stored: the survey closes once it holds its
/// target, so that response is the last one accepted.
fn close_at_target(connection: &Conn, survey_id: SurveyId, target: u64) -> Result<(), AppError> {
    if responses_counted(connection, survey_id)? >= target
        && super::closing::close_survey(connection, survey_id)?
    {
        tracing::info!(
            survey = survey_id.get(),
            target,
            "a survey reached its target and closed"
        );
    }
    Ok(())
}

/// Everything stored of one response: its reports in question order, and its grouping
/// answers.
pub type StoredAnswers = (Vec<StoredReport>, Vec<StoredGrouping>);

/// The reports of one response of a survey, in question order, and its grouping answers:
/// everything stored of it.
pub fn find_response(
    connection: &Conn,
    slug: &Slug,
    record_id: &RecordId,
) -> Result<Option<StoredAnswers>, AppError> {
    let stored: Option<Vec<u8>> = connection
        .prepare_cached(
            "SELECT all_responses.reports
             FROM all_responses JOIN surveys ON surveys.id = all_responses.survey_id
             WHERE surveys.slug = ?1 AND all_responses.record_id = ?2",
        )?
        .query_row(params![slug.as_str(), record_id.as_bytes()], |row| {
            row.get(0)
        })
        .optional()?;
    stored.as_deref().map(decode_response).transpose()
}

/// Withdraws a response: it goes, its reports are uncounted, and only its tag stays, so that a
/// replayed submission of it is refused. (The caller, [`super::Database::withdraw_response`],
/// truncates the WAL before answering.) The tables a withdrawal touches are respondent
/// tables: on PostgreSQL a close rewrites them in key order and a deletion vacuums them,
/// both from the one list `postgres::rewrite::RESPONDENT_TABLES`.
pub fn withdraw_response(
    connection: &Conn,
    slug: &Slug,
    record_id: &RecordId,
    tag: &WithdrawalTag,
) -> Result<(), AppError> {
    // On SQLite a response stored since the last epoch is still in `arriving_responses`.
    let mut deleted = None;
    for table in connection.rules().response_tables() {
        deleted = connection
            .query_row(
                &format!(
                    "DELETE FROM {table}
                     WHERE survey_id = (SELECT id FROM surveys WHERE slug = ?1) AND record_id = ?2
                     RETURNING survey_id, reports"
                ),
                params![slug.as_str(), record_id.as_bytes()],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if deleted.is_some() {
            break;
        }
    }
    let (survey_id, reports): (i64, Vec<u8>) = deleted.ok_or(AppError::NotFound("response"))?;
    let (reports, _) = decode_response(&reports)?;
    let counted: Vec<(i64, i64)> = reports
        .iter()
        .map(|report| (report.question_id.get(), i64::from(report.report)))
        .collect();
    count_reports(connection, &counted, -1)?;
    super::releases::record_withdrawal(
        connection,
        SurveyId::from_stored(survey_id),
        record_id,
        &reports,
    )?;
    connection.execute(
        "INSERT INTO withdrawn_responses (survey_id, tag) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        params![survey_id, tag.as_bytes()],
    )?;
    Ok(())
}

/// Deletes an owned survey (any status) with everything of it: questions, responses,
/// report counts, invitations, its key pair, redemptions, spent tokens, withdrawal tags (by
/// cascade); returns its id. 404 when not owned.
/// (The caller compacts the database before answering.)
pub fn delete_survey(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
) -> Result<SurveyId, AppError> {
    let survey_id = connection
        .query_row(
            "SELECT id FROM surveys WHERE slug = ?1 AND owner_id = ?2",
            params![slug.as_str(), owner.get()],
            |row| row.get(0),
        )
        .optional()?
        .map(SurveyId::from_stored)
        .ok_or(AppError::NotFound("survey"))?;
    // An open survey stops collecting through the one close step first (its key erased),
    // as every way of stopping does; then everything of it goes.
    super::closing::close_survey(connection, survey_id)?;
    connection.execute("DELETE FROM surveys WHERE id = ?1", [survey_id.get()])?;
    Ok(survey_id)
}

/// Deletes every survey whose retention date has passed (an open one through the close
/// step first); returns their slugs.
pub fn delete_expired_surveys(connection: &Conn, today: &str) -> Result<Vec<String>, AppError> {
    let expired = connection
        .prepare(
            "SELECT id, slug FROM surveys WHERE delete_after IS NOT NULL AND delete_after < ?1",
        )?
        .query_map([today], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, _) in &expired {
        super::closing::atomically(connection, || {
            super::closing::close_survey(connection, SurveyId::from_stored(*id))?;
            connection.execute("DELETE FROM surveys WHERE id = ?1", [id])?;
            Ok(())
        })?;
    }
    Ok(expired.into_iter().map(|(_, slug)| slug).collect())
}

/// One exported row: one report of one response, with the response's grouping answers.
pub struct ExportRow {
    pub record_id: RecordId,
    pub question_id: QuestionId,
    pub level: PrivacyLevel,
    pub report: u8,
    pub groupings: std::sync::Arc<[StoredGrouping]>,
}

/// The reports of the next `max_responses` responses in the figures (released, in a
/// release not withheld) after `after`, by record id (keyset pagination: each page is one
/// short read, whatever the table size).
pub(super) fn export_page(
    connection: &Conn,
    survey_id: SurveyId,
    after: Option<&RecordId>,
    max_responses: u32,
) -> Result<Vec<ExportRow>, AppError> {
    let statement = connection.prepare_cached(
        "SELECT r.record_id, r.reports FROM all_responses r
         JOIN release_members m ON m.survey_id = r.survey_id AND m.record_id = r.record_id
         JOIN cell_releases c ON c.survey_id = m.survey_id AND c.release_id = m.release_id
         WHERE r.survey_id = ?1 AND r.record_id > ?2 AND c.withheld = 0
         ORDER BY r.record_id LIMIT ?3",
    )?;
    let after: &[u8] = after.map_or(&[], |record_id| record_id.as_bytes());
    let mut page = Vec::new();
    statement.for_each_row(params![survey_id.get(), after, max_responses], |row| {
        let record_id = RecordId::from_stored(&row.get::<_, Vec<u8>>(0)?)?;
        let (reports, groupings) = decode_response(&row.get::<_, Vec<u8>>(1)?)?;
        let groupings: std::sync::Arc<[StoredGrouping]> = groupings.into();
        for report in reports {
            page.push(ExportRow {
                record_id,
                question_id: report.question_id,
                level: report.level,
                report: report.report,
                groupings: std::sync::Arc::clone(&groupings),
            });
        }
        Ok::<_, AppError>(())
    })?;
    Ok(page)
}
