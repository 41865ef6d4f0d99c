//! Cross-tabulation of two randomized questions (`GET …/results?joint=q1,q2`): the
//! estimated joint distribution of their true answers (the product design's matrix
//! inverted) and the conditional proportions ("of those whose true answer to the first is
//! i, the share whose answer to the second is j"), with the crate's intervals
//! ([`randomized_response::JointDesign`]; their coverage is proved there).
//!
//! A cell's per-record value takes three or four values, so it has no exact interval: a
//! survey fixed in advance and closed leads with Chernoff. The table of report pairs comes
//! from the released figures (`crate::db::released::Released::pairs`), kept current with
//! every release and withdrawal: like every other view, of released responses only, as of the
//! last consideration while the survey is open.

use randomized_response::{Confidence, JointDesign};
use serde::{Deserialize, Serialize};

use crate::db::released::Released;
use crate::domain::{Question, QuestionType, Survey};
use crate::error::AppError;
use crate::results::{finite, primary_for, survey_primary, Intervals, Primary};

/// `?joint=`: the two question ids.
pub fn parse_pair(text: &str) -> Result<(i64, i64), AppError> {
    let invalid = || {
        AppError::invalid(
            "invalid_joint",
            format!("joint takes two question ids separated by a comma, e.g. 12,13, not {text:?}"),
        )
    };
    let (first, second) = text.split_once(',').ok_or_else(invalid)?;
    let first = first.trim().parse().map_err(|_| invalid())?;
    let second = second.trim().parse().map_err(|_| invalid())?;
    if first == second {
        return Err(AppError::invalid(
            "invalid_joint",
            "joint takes two different questions",
        ));
    }
    Ok((first, second))
}

/// The two questions, each a yes/no, choice or ordinal question of the survey.
pub fn questions(
    survey: &Survey,
    first: i64,
    second: i64,
) -> Result<(Question, Question), AppError> {
    let find = |id: i64| {
        survey
            .questions
            .iter()
            .find(|q| q.id.get() == id)
            .filter(|q| q.design.question_type() != QuestionType::Number)
            .cloned()
            .ok_or_else(|| {
                AppError::invalid(
                    "invalid_joint",
                    format!(
                        "question {id} is not one of this survey's yes/no, choice or ordinal \
                         questions (numbers and grouping questions are not cross-tabulated)"
                    ),
                )
            })
    };
    Ok((find(first)?, find(second)?))
}

/// The cross-tabulation.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct JointResults {
    /// `[q1, q2]`: the rows' question, then the columns'.
    pub questions: [i64; 2],
    pub confidence: f64,
    /// Responses that answered both.
    pub n: u64,
    /// The rows' answers (the first question's), in report order.
    pub rows: Vec<String>,
    /// The columns' answers (the second question's).
    pub columns: Vec<String>,
    /// The interval the cells and conditional proportions lead with (a cell has no exact
    /// interval: Chernoff where a survey fixed in advance would take the exact one).
    pub primary: Option<Primary>,
    /// Each cell's share of the respondents, row-major.
    pub cells: Vec<JointCellResults>,
    /// `π(column j | row i)` for every i, j, then `π(row i | column j)`.
    pub conditionals: Vec<ConditionalResults>,
}

/// One cell: the share whose true answers are (row, column).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct JointCellResults {
    pub row: usize,
    pub column: usize,
    /// Unbiased (may fall outside [0, 1]; the cells add up to 1).
    pub estimate: Option<f64>,
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
}

/// A conditional proportion, e.g. "of those who answered Yes to the first, the share who
/// answered Yes to the second".
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ConditionalResults {
    /// The question conditioned on, and its answer (index).
    pub given_question: i64,
    pub given_answer: usize,
    /// The question whose share is given, and its answer.
    pub question: i64,
    pub answer: usize,
    /// Null when the share answering `given_answer` is estimated at 0 or below.
    pub estimate: Option<f64>,
    pub estimate_clipped: Option<f64>,
    /// Each from the numerator's and denominator's intervals at `1 − β/2` (Bonferroni);
    /// null where the denominator's interval reaches 0 (any value would then be possible).
    pub intervals: Intervals,
}

/// The labels of a categorical question's answers.
fn labels(question: &Question) -> Vec<String> {
    match question.design.question_type() {
        QuestionType::YesNo => vec!["No".to_owned(), "Yes".to_owned()],
        QuestionType::Choice | QuestionType::Ordinal | QuestionType::Number => {
            question.design.options().unwrap_or_default().to_vec()
        }
    }
}

/// The cross-tabulation of `first` and `second` over the released figures.
pub fn compute(
    survey: &Survey,
    first: &Question,
    second: &Question,
    released: &Released,
    confidence: Confidence,
) -> Result<JointResults, AppError> {
    let internal = AppError::internal;
    let (one, two) = (
        first.design.mechanism().matrix(),
        second.design.mechanism().matrix(),
    );
    let design = JointDesign::new(one, two);
    let swapped = JointDesign::new(two, one);
    let (rows, columns) = design.shape();
    let table = released.pairs(first.id, second.id, rows, columns);
    let table = table.as_slice();
    let transposed: Vec<u64> = (0..columns * rows)
        .map(|index| table[(index % rows) * columns + index / rows])
        .collect();
    let planned = survey.planned_size();
    let survey_primary = survey_primary(survey);
    let mut primary = survey_primary;
    let mut cells = Vec::with_capacity(rows * columns);
    for row in 0..rows {
        for column in 0..columns {
            let cell = design.cell(row, column).map_err(internal)?;
            let counts = cell.collapse(table).map_err(internal)?;
            let estimator = cell.estimator();
            primary = primary_for(survey_primary, estimator);
            let summary = estimator
                .summarize(&counts, confidence, planned)
                .map_err(internal)?;
            cells.push(JointCellResults {
                row,
                column,
                estimate: summary.map(|s| s.estimate),
                estimate_clipped: summary.map(|s| s.estimate_clipped),
                intervals: Intervals {
                    chernoff: summary.and_then(|s| finite(s.chernoff)),
                    exact: summary.and_then(|s| s.exact).and_then(finite),
                    anytime: summary.and_then(|s| finite(s.anytime)),
                },
            });
        }
    }
    let mut conditionals = Vec::new();
    for (design, table, given, other) in [
        (&design, table, first, second),
        (&swapped, &transposed[..], second, first),
    ] {
        let (given_answers, answers) = design.shape();
        for given_answer in 0..given_answers {
            for answer in 0..answers {
                let conditional = design.conditional(given_answer, answer).map_err(internal)?;
                let summary = conditional
                    .summarize(table, confidence, planned)
                    .map_err(internal)?;
                conditionals.push(ConditionalResults {
                    given_question: given.id.get(),
                    given_answer,
                    question: other.id.get(),
                    answer,
                    estimate: summary.and_then(|s| s.estimate),
                    estimate_clipped: summary.and_then(|s| s.estimate_clipped),
                    intervals: Intervals {
                        chernoff: summary.and_then(|s| s.chernoff).and_then(finite),
                        exact: summary.and_then(|s| s.exact).and_then(finite),
                        anytime: summary.and_then(|s| s.anytime).and_then(finite),
                    },
                });
            }
        }
    }
    Ok(JointResults {
        questions: [first.id.get(), second.id.get()],
        confidence: confidence.level(),
        n: table.iter().sum(),
        rows: labels(first),
        columns: labels(second),
        primary,
        cells,
        conditionals,
    })
}
