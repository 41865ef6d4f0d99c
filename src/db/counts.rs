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
