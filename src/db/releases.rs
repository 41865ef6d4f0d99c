//! Release states kept in the database, on PostgreSQL only (migration 0007): every node
//! reads and advances the same release of a survey's live pages and breakdowns
//! ([`crate::live::Releases`]). On SQLite one process serves the file and keeps them in
//! its memory, because a release kept on disk would set the newest responses apart from
//! the rest (invariant 8); PostgreSQL's heap orders rows by arrival anyway
//! (docs/design.md, "PostgreSQL").

use std::collections::HashSet;

use super::queries::QuestionCounts;
use super::sql::{params, Conn, OptionalExtension};
use crate::domain::{QuestionId, RecordId, SurveyId};
use crate::error::AppError;

/// One release as stored: the survey's responses and redemptions when it was made, and
/// the counts it published, per group (`None`: nothing published yet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredRelease {
    pub responses: u64,
    pub redemptions: u64,
    pub counts: Option<Vec<Vec<QuestionCounts>>>,
}

/// The release of `view` (0: the survey's own; otherwise a grouping question's id).
pub fn read(
    connection: &Conn,
    survey_id: SurveyId,
    view: i64,
) -> Result<Option<StoredRelease>, AppError> {
    let row: Option<(i64, i64, Option<String>)> = connection
        .prepare_cached(
            "SELECT responses, redemptions, counts FROM releases
             WHERE survey_id = ?1 AND view = ?2",
        )?
        .query_row(params![survey_id.get(), view], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .optional()?;
    let Some((responses, redemptions, counts)) = row else {
        return Ok(None);
    };
    let count = |n: i64| u64::try_from(n).map_err(|_| AppError::internal("a negative count"));
    Ok(Some(StoredRelease {
        responses: count(responses)?,
        redemptions: count(redemptions)?,
        counts: counts.as_deref().map(decode_counts).transpose()?,
    }))
}

/// Makes `release` the release of `view`.
pub fn write(
    connection: &Conn,
    survey_id: SurveyId,
    view: i64,
    release: &StoredRelease,
) -> Result<(), AppError> {
    let count = |n: u64| i64::try_from(n).map_err(|_| AppError::internal("a count past i64"));
    connection.execute(
        "INSERT INTO releases (survey_id, view, responses, redemptions, counts)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (survey_id, view) DO UPDATE SET responses = excluded.responses,
             redemptions = excluded.redemptions, counts = excluded.counts",
        params![
            survey_id.get(),
            view,
            count(release.responses)?,
            count(release.redemptions)?,
            release.counts.as_ref().map(|counts| encode_counts(counts))
        ],
    )?;
    Ok(())
}

/// Marks every response the survey holds now as released to its owner (a survey that
/// requires invitations exports its released responses only).
pub fn release_stored_responses(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO released_records (survey_id, record_id)
         SELECT survey_id, record_id FROM all_responses WHERE survey_id = ?1
         ON CONFLICT DO NOTHING",
        [survey_id.get()],
    )?;
    Ok(())
}

/// The record ids of the survey's released responses still stored.
pub fn released_records(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<HashSet<RecordId>, AppError> {
    connection
        .prepare_cached("SELECT record_id FROM released_records WHERE survey_id = ?1")?
        .query_map([survey_id.get()], |row| row.get::<_, Vec<u8>>(0))?
        .map(|bytes| RecordId::from_stored(&bytes?))
        .collect()
}

/// A withdrawn response leaves no released mark (only its withdrawal tag stays); nothing
/// on SQLite, which marks none.
pub fn forget_record(
    connection: &Conn,
    survey_id: i64,
    record_id: &RecordId,
) -> Result<(), AppError> {
    if connection.is_postgres() {
        connection.execute(
            "DELETE FROM released_records WHERE survey_id = ?1 AND record_id = ?2",
            params![survey_id, record_id.as_bytes()],
        )?;
    }
    Ok(())
}

/// A closed survey shows everything: its release states are no longer needed (nothing on
/// SQLite, which keeps none).
pub fn forget_survey(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    if connection.is_postgres() {
        connection.execute(
            "DELETE FROM released_records WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
        connection.execute(
            "DELETE FROM releases WHERE survey_id = ?1",
            [survey_id.get()],
        )?;
    }
    Ok(())
}

/// `[[[question id, [count of report 0, …]], …], …]`: one array per group.
fn encode_counts(counts: &[Vec<QuestionCounts>]) -> String {
    let groups: Vec<Vec<(i64, &[u64])>> = counts
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|question| (question.question_id.get(), question.counts.as_slice()))
                .collect()
        })
        .collect();
    serde_json::to_string(&groups).expect("integers always serialize")
}

fn decode_counts(text: &str) -> Result<Vec<Vec<QuestionCounts>>, AppError> {
    let groups: Vec<Vec<(i64, Vec<u64>)>> = serde_json::from_str(text)
        .map_err(|error| AppError::internal(format_args!("a stored release: {error}")))?;
    Ok(groups
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .map(|(id, counts)| QuestionCounts {
                    question_id: QuestionId::from_stored(id),
                    counts,
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_counts_read_back_as_they_were_written() {
        let counts = vec![
            vec![
                QuestionCounts {
                    question_id: QuestionId::from_stored(7),
                    counts: vec![3, 0, 12],
                },
                QuestionCounts {
                    question_id: QuestionId::from_stored(9),
                    counts: vec![1, 1],
                },
            ],
            Vec::new(),
        ];
        assert_eq!(decode_counts(&encode_counts(&counts)).unwrap(), counts);
        assert!(decode_counts("{").is_err());
    }
}
