//! Stored responses: one row per response, keyed by its record id, and the tags that
//! withdrawals leave (migrations/sqlite/0002_privacy_at_rest.sql).

use randomized_response::PrivacyLevel;
use rusqlite::{params, Connection, OptionalExtension};

use super::queries::stored_level;
use super::redemptions;
use crate::domain::{
    QuestionId, RecordId, ResearcherId, Slug, SpentToken, StoredReport, Submission, SurveyId,
    SurveyStatus, WithdrawalTag,
};
use crate::error::AppError;

/// The first byte of a stored `reports` value: the layout below.
const REPORTS_FORMAT: u8 = 1;
/// Question id (i64), ε (f64), report (u8).
const REPORT_BYTES: usize = 8 + 8 + 1;

/// The reports of one response in question order, as one value: one B-tree entry per
/// response instead of one per report.
pub fn encode_reports(reports: &[StoredReport]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1 + REPORT_BYTES * reports.len());
    bytes.push(REPORTS_FORMAT);
    for report in reports {
        bytes.extend_from_slice(&report.question_id.get().to_le_bytes());
        bytes.extend_from_slice(&report.level.epsilon().to_le_bytes());
        bytes.push(report.report);
    }
    bytes
}

pub fn decode_reports(bytes: &[u8]) -> Result<Vec<StoredReport>, AppError> {
    let corrupt = || AppError::internal("a stored response's reports are malformed");
    let (&format, body) = bytes.split_first().ok_or_else(corrupt)?;
    if format != REPORTS_FORMAT || body.len() % REPORT_BYTES != 0 {
        return Err(corrupt());
    }
    body.chunks_exact(REPORT_BYTES)
        .map(|chunk| {
            let (id, rest) = chunk.split_at(8);
            let (epsilon, report) = rest.split_at(8);
            let id = i64::from_le_bytes(id.try_into().map_err(|_| corrupt())?);
            let epsilon = f64::from_le_bytes(epsilon.try_into().map_err(|_| corrupt())?);
            let report = report[0];
            if usize::from(report) >= randomized_response::MAX_OPTIONS {
                return Err(corrupt());
            }
            Ok(StoredReport {
                question_id: QuestionId::from_stored(id),
                level: stored_level(epsilon)?,
                report,
            })
        })
        .collect()
}

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
pub fn store_response(
    connection: &Connection,
    survey_id: SurveyId,
    record_id: &RecordId,
    withdrawal_tag: &WithdrawalTag,
    submission: &Submission,
    token: TokenCheck,
) -> Result<Stored, AppError> {
    // Statements the writer runs for every submission come from the statement cache.
    let stored: Option<Vec<u8>> = connection
        .prepare_cached(
            "SELECT reports FROM stored_responses WHERE survey_id = ?1 AND record_id = ?2",
        )?
        .query_row(params![survey_id.get(), record_id.as_bytes()], |row| {
            row.get(0)
        })
        .optional()?;
    if let Some(stored) = stored {
        return if decode_reports(&stored)? == submission.reports() {
            Ok(Stored::AlreadyStored)
        } else {
            Err(AppError::conflict(
                "response_id_conflict",
                "a different response is stored under this response_id; a device sends one \
                 response per receipt and re-sends exactly that one",
            ))
        };
    }
    let withdrawn = connection
        .prepare_cached("SELECT 1 FROM withdrawn_responses WHERE survey_id = ?1 AND tag = ?2")?
        .exists(params![survey_id.get(), withdrawal_tag.as_bytes()])?;
    if withdrawn {
        return Err(AppError::gone(
            "response_withdrawn",
            "this response was withdrawn and cannot be sent again",
        ));
    }
    // Checked inside the write transaction, so a concurrent close is respected.
    let status: String = connection
        .prepare_cached("SELECT status FROM surveys WHERE id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    let status = SurveyStatus::from_stored(&status)?;
    if status != SurveyStatus::Open {
        return Err(AppError::conflict(
            "survey_not_open",
            format!(
                "this survey is {} and does not accept responses",
                status.as_str()
            ),
        ));
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
    connection
        .prepare_cached(
            "INSERT INTO stored_responses (survey_id, record_id, reports) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![
            survey_id.get(),
            record_id.as_bytes(),
            encode_reports(submission.reports())
        ])?;
    let mut count_report = connection.prepare_cached(
        "INSERT INTO report_counts (question_id, report, n) VALUES (?1, ?2, 1)
         ON CONFLICT (question_id, report) DO UPDATE SET n = n + 1",
    )?;
    for report in submission.reports() {
        count_report.execute(params![report.question_id.get(), report.report])?;
    }
    Ok(Stored::Created)
}

/// The reports of one response of a survey, in question order.
pub fn find_response(
    connection: &Connection,
    slug: &Slug,
    record_id: &RecordId,
) -> Result<Option<Vec<StoredReport>>, AppError> {
    let stored: Option<Vec<u8>> = connection
        .prepare_cached(
            "SELECT stored_responses.reports
             FROM stored_responses JOIN surveys ON surveys.id = stored_responses.survey_id
             WHERE surveys.slug = ?1 AND stored_responses.record_id = ?2",
        )?
        .query_row(params![slug.as_str(), record_id.as_bytes()], |row| {
            row.get(0)
        })
        .optional()?;
    stored.as_deref().map(decode_reports).transpose()
}

/// Withdraws a response: it goes, its reports are uncounted, and only its tag stays, so that a
/// replayed submission of it is refused. (The caller truncates the WAL before answering.)
pub fn withdraw_response(
    connection: &Connection,
    slug: &Slug,
    record_id: &RecordId,
    tag: &WithdrawalTag,
) -> Result<(), AppError> {
    let (survey_id, reports): (i64, Vec<u8>) = connection
        .query_row(
            "DELETE FROM stored_responses
             WHERE survey_id = (SELECT id FROM surveys WHERE slug = ?1) AND record_id = ?2
             RETURNING survey_id, reports",
            params![slug.as_str(), record_id.as_bytes()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?
        .ok_or(AppError::NotFound("response"))?;
    let reports = decode_reports(&reports)?;
    let mut uncount_report = connection.prepare_cached(
        "UPDATE report_counts SET n = n - 1 WHERE question_id = ?1 AND report = ?2",
    )?;
    for report in &reports {
        uncount_report.execute(params![report.question_id.get(), report.report])?;
    }
    connection.execute(
        "INSERT OR IGNORE INTO withdrawn_responses (survey_id, tag) VALUES (?1, ?2)",
        params![survey_id, tag.as_bytes()],
    )?;
    Ok(())
}

/// Deletes an owned survey (any status) with everything of it: questions, responses,
/// report counts, invitations, its key pair, redemptions, spent tokens, withdrawal tags (by
/// cascade); returns its id. 404 when not owned.
/// (The caller compacts the database before answering.)
pub fn delete_survey(
    connection: &Connection,
    slug: &Slug,
    owner: ResearcherId,
) -> Result<SurveyId, AppError> {
    connection
        .query_row(
            "DELETE FROM surveys WHERE slug = ?1 AND owner_id = ?2 RETURNING id",
            params![slug.as_str(), owner.get()],
            |row| row.get(0),
        )
        .optional()?
        .map(SurveyId::from_stored)
        .ok_or(AppError::NotFound("survey"))
}

/// Deletes every survey whose retention date has passed; returns their slugs.
pub fn delete_expired_surveys(
    connection: &Connection,
    today: &str,
) -> Result<Vec<String>, AppError> {
    let mut statement = connection.prepare(
        "DELETE FROM surveys WHERE delete_after IS NOT NULL AND delete_after < ?1 RETURNING slug",
    )?;
    let slugs = statement
        .query_map([today], |row| row.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(slugs)
}

/// One exported row: one report of one response.
pub struct ExportRow {
    pub record_id: RecordId,
    pub question_id: QuestionId,
    pub level: PrivacyLevel,
    pub report: u8,
}

/// The reports of the next `max_responses` responses after `after`, by record id (keyset
/// pagination: each page is one short read, whatever the table size).
pub fn export_page(
    connection: &Connection,
    survey_id: SurveyId,
    after: Option<&RecordId>,
    max_responses: u32,
) -> Result<Vec<ExportRow>, AppError> {
    let mut statement = connection.prepare_cached(
        "SELECT record_id, reports FROM stored_responses
         WHERE survey_id = ?1 AND record_id > ?2
         ORDER BY record_id LIMIT ?3",
    )?;
    let after: &[u8] = after.map_or(&[], |record_id| record_id.as_bytes());
    let mut rows = statement.query(params![survey_id.get(), after, max_responses])?;
    let mut page = Vec::new();
    while let Some(row) = rows.next()? {
        let record_id = RecordId::from_stored(&row.get::<_, Vec<u8>>(0)?)?;
        for report in decode_reports(&row.get::<_, Vec<u8>>(1)?)? {
            page.push(ExportRow {
                record_id,
                question_id: report.question_id,
                level: report.level,
                report: report.report,
            });
        }
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_round_trip_through_their_stored_form() {
        let reports = vec![
            StoredReport {
                question_id: QuestionId::from_stored(7),
                level: PrivacyLevel::new(1.0986).unwrap(),
                report: 19,
            },
            StoredReport {
                question_id: QuestionId::from_stored(i64::MAX),
                level: PrivacyLevel::new(0.01).unwrap(),
                report: 0,
            },
        ];
        let bytes = encode_reports(&reports);
        assert_eq!(bytes.len(), 1 + 2 * REPORT_BYTES);
        assert_eq!(decode_reports(&bytes).unwrap(), reports);
    }

    #[test]
    fn malformed_stored_reports_are_an_error_not_a_panic() {
        let mut report_twenty = vec![1; 18];
        report_twenty[9..17].copy_from_slice(&1.0_f64.to_le_bytes());
        report_twenty[17] = 20;
        for bad in [&[][..], &[2], &[1, 0, 0], &[1; 18], &report_twenty] {
            assert!(decode_reports(bad).is_err(), "{bad:?}");
        }
    }
}
