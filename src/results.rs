//! A survey's results: the crate's estimators applied to the stored report counts, one code
//! path for every type (each target is the mean of a bounded per-record value).

use randomized_response::{Bounds, Confidence, Design, PerRecordEstimator};
use serde::{Deserialize, Serialize};

use crate::db::queries::QuestionCounts;
use crate::domain::{DesignName, Question, QuestionDesign, QuestionType, Survey};
use crate::error::AppError;

/// The half-width the planner reports respondents for: ±5 percentage points of a share, or
/// ±5 % of a number's range.
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

/// One question's results. Every response answers every question, so each estimate covers
/// everyone who responded (`n`); surveys of the first release could leave a question out,
/// and there `n` counts those who answered it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct QuestionResults {
    pub id: i64,
    pub position: u32,
    pub text: String,
    #[serde(rename = "type")]
    pub question_type: QuestionType,
    pub design: DesignName,
    pub epsilon: f64,
    /// The largest probability that a report equals the truth.
    pub truth_probability: f64,
    /// Reports received.
    pub n: u64,
    /// Yes/no: the reports of yes among them (null for other types).
    pub reported_yes: Option<u64>,
    /// Yes/no: the unbiased estimate of the true "yes" proportion (may fall outside
    /// [0, 1]); null without data and for other types.
    pub estimate: Option<f64>,
    /// The estimate clipped to [0, 1].
    pub estimate_clipped: Option<f64>,
    /// Yes/no: intervals for the true "yes" proportion (all null for other types).
    pub intervals: Intervals,
    /// Choice and ordinal: each option's reports and estimated true share. Each option's
    /// intervals hold for that option at the chosen confidence, not for all options at once
    /// (for k options at once, ask for confidence 1 − β/k: Bonferroni).
    pub options: Option<Vec<OptionResults>>,
    /// Ordinal: the mean level (1 = the first option … k = the last); number: the mean.
    pub mean: Option<MeanResults>,
    /// Respondents for a Chernoff half-width of 5 percentage points (yes/no; for choice
    /// and ordinal, on every option's share) or 5 % of the range (a number's mean).
    pub respondents_needed_for_5_percent: u64,
}

/// One option of a choice or ordinal question.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OptionResults {
    pub label: String,
    /// Reports of this option.
    pub reported: u64,
    /// The unbiased estimate of the true share choosing it (may fall outside [0, 1]).
    pub estimate: Option<f64>,
    /// The estimate clipped to [0, 1].
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
}

/// A mean: an ordinal question's mean level or a number's mean.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MeanResults {
    /// The scale's lower end (1 for an ordinal question's first level; a number's min).
    pub min: f64,
    /// The scale's upper end (k for the last level; a number's max).
    pub max: f64,
    /// The unbiased estimate (may fall outside [min, max]); null without data.
    pub estimate: Option<f64>,
    /// The estimate clipped to [min, max].
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
}

/// Confidence intervals for one target; each null without data (`exact` also where the
/// per-record value takes more than two values: an ordinal question's mean).
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Intervals {
    /// Hoeffding/Chernoff: valid at any n fixed in advance.
    pub chernoff: Option<IntervalBounds>,
    /// Clopper–Pearson on the reports, mapped through the design.
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

impl IntervalBounds {
    pub fn contains(&self, value: f64) -> bool {
        (self.low..=self.high).contains(&value)
    }
}

/// An interval's bounds, or none at all: never an object of nulls (a non-finite bound
/// would serialize as null).
fn finite(bounds: Bounds) -> Option<IntervalBounds> {
    let bounds = IntervalBounds {
        low: bounds.low(),
        high: bounds.high(),
        half_width: bounds.half_width(),
    };
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

/// A target's estimate and intervals: `(estimate, clipped, intervals)`.
struct Target {
    estimate: Option<f64>,
    estimate_clipped: Option<f64>,
    intervals: Intervals,
}

fn target(
    estimator: &PerRecordEstimator,
    counts: &[u64],
    confidence: Confidence,
    planned_respondents: u64,
) -> Result<Target, AppError> {
    let summary = estimator
        .summarize(counts, confidence, planned_respondents)
        .map_err(AppError::internal)?;
    Ok(Target {
        estimate: summary.map(|s| s.estimate),
        estimate_clipped: summary.map(|s| s.estimate_clipped),
        intervals: Intervals {
            chernoff: summary.and_then(|s| finite(s.chernoff)),
            exact: summary.and_then(|s| s.exact).and_then(finite),
            anytime: summary.and_then(|s| finite(s.anytime)),
        },
    })
}

/// The estimator of an ordinal question's mean level on the 1…k scale.
pub fn mean_level_estimator(design: &Design) -> PerRecordEstimator {
    let levels = design.answers() as f64;
    design.mean_level_estimator().mapped(1.0, 1.0, 1.0, levels)
}

/// The per-question planner: respondents for a Chernoff half-width of 5 % of the target's
/// range (every option of a choice or ordinal question, the mean of a number).
pub fn respondents_needed(question: &Question, confidence: Confidence) -> Result<u64, AppError> {
    respondents_needed_within(&question.design, PLANNING_HALF_WIDTH, confidence)
}

/// The planner for any design: respondents for a Chernoff half-width of `fraction` of the
/// target's range at `confidence` (0.05 is ±5 percentage points of a share, or ±5 % of a
/// number's range). A yes/no question sizes its "yes" share, a choice or ordinal question
/// every option's share (the largest wins), a number its mean.
pub fn respondents_needed_within(
    design: &QuestionDesign,
    fraction: f64,
    confidence: Confidence,
) -> Result<u64, AppError> {
    let estimators = planning_estimators(design)?;
    estimators
        .iter()
        .map(|(estimator, range)| {
            estimator
                .respondents_needed(fraction * range, confidence)
                .map_err(AppError::internal)
        })
        .try_fold(0, |most, needed| Ok(most.max(needed?)))
}

/// The estimators the planner sizes for, each with its target's range width.
fn planning_estimators(
    design: &QuestionDesign,
) -> Result<Vec<(PerRecordEstimator, f64)>, AppError> {
    let mechanism = design.mechanism();
    if let Some(mean) = mechanism.mean_estimator(false) {
        let (low, high) = mean.target_range();
        return Ok(vec![(mean, high - low)]);
    }
    let matrix = mechanism.matrix();
    let options: Vec<usize> = match design.question_type() {
        QuestionType::YesNo => vec![Design::YES],
        _ => (0..matrix.answers()).collect(),
    };
    options
        .into_iter()
        .map(|option| {
            matrix
                .option_estimator(option)
                .map(|estimator| (estimator, 1.0))
                .map_err(AppError::internal)
        })
        .collect()
}

fn question_results(
    question: &Question,
    counts: &[u64],
    confidence: Confidence,
    planned_respondents: u64,
) -> Result<QuestionResults, AppError> {
    let design = &question.design;
    let mechanism = design.mechanism();
    let mut counts = counts.to_vec();
    counts.resize(mechanism.reports(), 0);
    let mut results = QuestionResults {
        id: question.id.get(),
        position: question.position,
        text: question.text.clone(),
        question_type: design.question_type(),
        design: design.design_name(),
        epsilon: design.epsilon(),
        truth_probability: design.truth_probability(),
        n: counts.iter().sum(),
        reported_yes: None,
        estimate: None,
        estimate_clipped: None,
        intervals: Intervals::default(),
        options: None,
        mean: None,
        respondents_needed_for_5_percent: respondents_needed(question, confidence)?,
    };
    let matrix = mechanism.matrix();
    match design.question_type() {
        QuestionType::YesNo => {
            let yes = matrix
                .option_estimator(Design::YES)
                .map_err(AppError::internal)?;
            let share = target(&yes, &counts, confidence, planned_respondents)?;
            results.reported_yes = Some(counts[Design::YES]);
            results.estimate = share.estimate;
            results.estimate_clipped = share.estimate_clipped;
            results.intervals = share.intervals;
        }
        QuestionType::Choice | QuestionType::Ordinal => {
            let labels = design.options().unwrap_or_default();
            let options = labels
                .iter()
                .enumerate()
                .map(|(option, label)| {
                    let estimator = matrix
                        .option_estimator(option)
                        .map_err(AppError::internal)?;
                    let share = target(&estimator, &counts, confidence, planned_respondents)?;
                    Ok(OptionResults {
                        label: label.clone(),
                        reported: counts[option],
                        estimate: share.estimate,
                        estimate_clipped: share.estimate_clipped,
                        intervals: share.intervals,
                    })
                })
                .collect::<Result<Vec<_>, AppError>>()?;
            results.options = Some(options);
            if design.question_type() == QuestionType::Ordinal {
                let estimator = mean_level_estimator(matrix);
                results.mean = Some(mean(&estimator, &counts, confidence, planned_respondents)?);
            }
        }
        QuestionType::Number => {
            let estimator = mechanism
                .mean_estimator(false)
                .ok_or_else(|| AppError::internal("a number question without a mean"))?;
            results.mean = Some(mean(&estimator, &counts, confidence, planned_respondents)?);
        }
    }
    Ok(results)
}

fn mean(
    estimator: &PerRecordEstimator,
    counts: &[u64],
    confidence: Confidence,
    planned_respondents: u64,
) -> Result<MeanResults, AppError> {
    let (min, max) = estimator.target_range();
    let value = target(estimator, counts, confidence, planned_respondents)?;
    Ok(MeanResults {
        min,
        max,
        estimate: value.estimate,
        estimate_clipped: value.estimate_clipped,
        intervals: value.intervals,
    })
}

pub fn compute(
    survey: &Survey,
    counted: &[QuestionCounts],
    confidence: Confidence,
) -> Result<SurveyResults, AppError> {
    let questions = survey
        .questions
        .iter()
        .map(|question| {
            let counts = counted
                .iter()
                .find(|c| c.question_id == question.id)
                .map_or(&[][..], |c| &c.counts[..]);
            question_results(question, counts, confidence, survey.planned_respondents)
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
