//! A survey's results: the crate's estimators applied to the stored tallies.

use randomized_response::{summarize, Confidence, Interval, PrivacyLevel, Tally};
use serde::{Deserialize, Serialize};

use crate::db::queries::QuestionTally;
use crate::domain::Survey;
use crate::error::AppError;

/// The half-width the planner reports respondents for: ±5 percentage points.
pub const PLANNING_HALF_WIDTH: f64 = 0.05;

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SurveyResults {
    pub slug: String,
    pub title: String,
    /// `draft`, `open` or `closed`.
    pub status: String,
    /// The intervals' confidence level.
    pub confidence: f64,
    pub planned_respondents: u64,
    /// Respondents needed so that every question's Chernoff half-width is at most 5 %.
    pub respondents_needed_for_5_percent: u64,
    pub questions: Vec<QuestionResults>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct QuestionResults {
    pub id: i64,
    pub position: u32,
    pub text: String,
    pub epsilon: f64,
    pub truth_probability: f64,
    /// Reports received.
    pub n: u64,
    /// Reports of yes among them.
    pub reported_yes: u64,
    /// Unbiased estimate of the true "yes" proportion (may fall outside [0, 1]); `None`
    /// without data.
    pub estimate: Option<f64>,
    /// The estimate clipped to [0, 1].
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
    pub respondents_needed_for_5_percent: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
/// Confidence intervals for the true "yes" proportion; `None` without data (`exact` also
/// when answers came at several ε).
pub struct Intervals {
    /// Hoeffding/Chernoff: valid at any n.
    pub chernoff: Option<IntervalBounds>,
    /// Clopper–Pearson on the reports, mapped through the mechanism.
    pub exact: Option<IntervalBounds>,
    /// Valid at every n at once (looking at results as they come in).
    pub anytime: Option<IntervalBounds>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IntervalBounds {
    pub low: f64,
    pub high: f64,
    pub half_width: f64,
}

impl From<Interval> for IntervalBounds {
    fn from(interval: Interval) -> Self {
        Self {
            low: interval.low(),
            high: interval.high(),
            half_width: interval.half_width(),
        }
    }
}

impl IntervalBounds {
    pub fn contains(&self, value: f64) -> bool {
        (self.low..=self.high).contains(&value)
    }
}

/// An interval's bounds, or none at all: never an object of nulls (a non-finite bound
/// would serialize as null).
fn finite(interval: Interval) -> Option<IntervalBounds> {
    let bounds = IntervalBounds::from(interval);
    [bounds.low, bounds.high, bounds.half_width]
        .iter()
        .all(|value| value.is_finite())
        .then_some(bounds)
}

/// Parses the `confidence` query parameter (default 0.95).
pub fn parse_confidence(level: Option<f64>) -> Result<Confidence, AppError> {
    Confidence::new(level.unwrap_or(0.95)).map_err(|error| {
        AppError::invalid(
            "invalid_confidence",
            format!("confidence must be strictly between 0 and 1, e.g. 0.95: {error}"),
        )
    })
}

pub fn compute(
    survey: &Survey,
    tallies: &[QuestionTally],
    confidence: Confidence,
) -> Result<SurveyResults, AppError> {
    let questions = survey
        .questions
        .iter()
        .map(|question| {
            let groups: Vec<(PrivacyLevel, Tally)> = tallies
                .iter()
                .filter(|t| t.question_id == question.id)
                .map(|t| (t.level, t.tally))
                .collect();
            let summary = summarize(&groups, confidence, survey.planned_respondents);
            let needed = randomized_response::respondents_needed(
                PLANNING_HALF_WIDTH,
                question.level,
                confidence,
            )
            .map_err(AppError::internal)?;
            Ok(QuestionResults {
                id: question.id.get(),
                position: question.position,
                text: question.text.clone(),
                epsilon: question.level.epsilon(),
                truth_probability: question.level.truth_probability(),
                n: groups.iter().map(|(_, t)| t.n()).sum(),
                reported_yes: groups.iter().map(|(_, t)| t.reported_yes()).sum(),
                estimate: summary.map(|s| s.estimate),
                estimate_clipped: summary.map(|s| s.estimate_clipped),
                intervals: Intervals {
                    chernoff: summary.and_then(|s| finite(s.chernoff)),
                    exact: summary.and_then(|s| s.exact).and_then(finite),
                    anytime: summary.and_then(|s| finite(s.anytime)),
                },
                respondents_needed_for_5_percent: needed,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    Ok(SurveyResults {
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        status: survey.status.as_str().to_owned(),
        confidence: confidence.level(),
        planned_respondents: survey.planned_respondents,
        respondents_needed_for_5_percent: questions
            .iter()
            .map(|q| q.respondents_needed_for_5_percent)
            .max()
            .unwrap_or(0),
        questions,
    })
}
