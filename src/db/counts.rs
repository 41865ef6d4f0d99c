//! Running counts of reports (`report_counts`): what results read instead of the responses.

use super::sql::Conn;
use crate::domain::{QuestionId, SurveyId};
use crate::error::AppError;

/// One question's running count of each report (index = report; missing reports count 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionCounts {
    pub question_id: QuestionId,
    pub counts: Vec<u64>,
}

impl QuestionCounts {
    /// The reports counted: the question's N.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// The responses a survey holds, from its first randomized question's report counts (every
/// response answers every question): O(reports), whatever the number of responses.
pub fn responses_counted(connection: &Conn, survey_id: SurveyId) -> Result<u64, AppError> {
    let counted: i64 = connection
        .prepare_cached(
            "SELECT coalesce(sum(n), 0) FROM report_counts WHERE question_id =
                 (SELECT id FROM questions
                  WHERE survey_id = ?1
                    AND coalesce(design ->> 'type', 'yes_no') <> 'grouping'
                  ORDER BY position LIMIT 1)",
        )?
        .query_row([survey_id.get()], |row| row.get(0))?;
    u64::try_from(counted).map_err(|_| AppError::internal("a negative response count"))
}

/// Every question's report counts (questions without reports are left out).
pub fn survey_report_counts(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<Vec<QuestionCounts>, AppError> {
    let statement = connection.prepare(
        "SELECT report_counts.question_id, report_counts.report, report_counts.n
         FROM report_counts JOIN questions ON questions.id = report_counts.question_id
         WHERE questions.survey_id = ?1 AND report_counts.n > 0
         ORDER BY report_counts.question_id, report_counts.report",
    )?;
    let mut counted: Vec<QuestionCounts> = Vec::new();
    let rows = statement.query_map([survey_id.get()], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, u8>(1)?,
            row.get::<_, i64>(2)?,
        ))
    })?;
    for row in rows {
        let (question_id, report, n) = row?;
        let report = usize::from(report);
        let question_id = QuestionId::from_stored(question_id);
        if counted.last().map(|c| c.question_id) != Some(question_id) {
            counted.push(QuestionCounts {
                question_id,
                counts: Vec::new(),
            });
        }
        let counts = &mut counted.last_mut().unwrap_or_else(|| unreachable!()).counts;
        if counts.len() <= report {
            counts.resize(report + 1, 0);
        }
        counts[report] =
            u64::try_from(n).map_err(|_| AppError::internal(format!("negative count {n}")))?;
    }
    Ok(counted)
}
