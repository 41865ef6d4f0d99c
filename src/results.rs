//! A survey's results: the crate's estimators applied to the stored report counts, one code
//! path for every type (each target is the mean of a bounded per-record value).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use randomized_response::{
    Bound, Bounds, Confidence, Design, PerRecordEstimator, Side, CONSISTENCY_ALPHA,
};
use serde::{Deserialize, Serialize};

use crate::db::counts::QuestionCounts;
use crate::db::released::Released;
use crate::domain::{DesignName, Question, QuestionDesign, QuestionType, Survey};
pub use crate::domain::{ReleaseReason, ReleaseSummary};
use crate::error::AppError;

/// The half-width the planner reports respondents for: ±5 percentage points of a share, or
/// ±5 % of a number's range.
pub const PLANNING_HALF_WIDTH: f64 = 0.05;

/// Which interval a target's results lead with (docs/design.md, "Which interval is
/// primary").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Primary {
    /// Valid at every n at once: a survey watched live (open and after closing), and one
    /// unblinded early.
    Anytime,
    /// Clopper–Pearson: a survey fixed in advance, once closed by its rule or by hand while
    /// still blinded.
    Exact,
    /// Hoeffding: as exact, for a target without an exact interval (an ordinal mean).
    Chernoff,
}

/// How a survey is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// No stopping rule: results may be looked at any time.
    WatchedLive,
    /// A target number of responses and/or a closing time, set before opening.
    FixedInAdvance,
}

impl Plan {
    pub fn of(survey: &Survey) -> Self {
        if survey.stopping_rule.is_fixed() {
            Self::FixedInAdvance
        } else {
            Self::WatchedLive
        }
    }
}

/// The interval a survey's targets lead with, `None` while it is blinded or its results
/// wait for its close; a target without an exact interval falls back from exact to
/// Chernoff ([`primary_for`]).
pub fn survey_primary(survey: &Survey) -> Option<Primary> {
    if survey.is_blinded() || survey.results_withheld_until_close() {
        None
    } else {
        Some(planning_interval(survey))
    }
}

/// The interval a survey's way of running leads with once its results show, and so the one
/// its planner sizes: anytime when watched live (or unblinded early), exact when fixed in
/// advance (docs/design.md, "Which interval is primary").
pub fn planning_interval(survey: &Survey) -> Primary {
    plan_interval(Plan::of(survey), survey.unblinded_at.is_some())
}

/// [`planning_interval`] from the way of running and whether the survey was unblinded early.
pub fn plan_interval(plan: Plan, unblinded: bool) -> Primary {
    if plan == Plan::WatchedLive || unblinded {
        Primary::Anytime
    } else {
        Primary::Exact
    }
}

/// The primary interval of one target: the survey's, with exact replaced by Chernoff where
/// the estimator has no exact interval.
pub fn primary_for(survey: Option<Primary>, estimator: &PerRecordEstimator) -> Option<Primary> {
    match survey {
        Some(Primary::Exact) if !estimator.is_two_valued() => Some(Primary::Chernoff),
        other => other,
    }
}

/// One sentence on why the primary interval is the one it is, for the researcher.
pub fn primary_reason(survey: &Survey) -> &'static str {
    if survey.results_withheld_until_close() && !survey.is_blinded() {
        return "Results after close: no figure is computed from the reports until the \
                survey closes, so that nobody can tell from them who has answered; until \
                then only the counts are shown.";
    }
    match (Plan::of(survey), survey_primary(survey)) {
        (Plan::WatchedLive, _) => {
            "Watched live: the anytime interval is primary, because it stays valid however \
             often you look and whenever you close the survey."
        }
        (Plan::FixedInAdvance, None) => {
            "Fixed in advance: estimates stay blinded until the stopping rule closes the \
             survey, so that the sample size is not chosen by looking; then the exact \
             interval is primary."
        }
        (Plan::FixedInAdvance, Some(Primary::Anytime)) => {
            "Unblinded early: the anytime interval is primary for good, because an interval \
             for a fixed sample size is not valid once the results have been looked at."
        }
        (Plan::FixedInAdvance, Some(_)) => {
            "Fixed in advance and closed: the sample size was not chosen by looking, so the \
             exact interval (Chernoff where there is none) is primary."
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SurveyResults {
    pub slug: String,
    pub title: String,
    /// `draft`, `open` or `closed`.
    pub status: String,
    /// The intervals' confidence level (with `simultaneous`, for all targets at once).
    pub confidence: f64,
    /// Bonferroni across every target of the survey (`?simultaneous=true`): all intervals
    /// and bounds hold together with probability ≥ `confidence`.
    pub simultaneous: bool,
    /// The level each target's intervals are computed at: `confidence`, or `1 − β/T` with T
    /// the survey's targets when simultaneous.
    pub per_target_confidence: f64,
    /// The share every share is tested against (`?null=`); null without a test.
    pub null: Option<f64>,
    pub planned_respondents: u64,
    /// `watched_live` (no stopping rule) or `fixed_in_advance`.
    pub plan: Plan,
    /// Fixed in advance: the survey closes once it holds this many responses.
    pub target_responses: Option<u64>,
    /// Fixed in advance: the survey closes at this UTC instant (RFC 3339).
    #[schema(format = DateTime)]
    pub closes_at: Option<String>,
    /// While a survey fixed in advance is open and not unblinded: every figure computed
    /// from the reports is null (n and progress only).
    pub blinded: bool,
    /// When the owner unblinded the survey early: the responses it had then (recorded for
    /// good; the anytime interval is then primary for good). Null otherwise.
    pub unblinded_at_responses: Option<u64>,
    /// Responses received (every response answers every question).
    pub responses: u64,
    /// Fixed by a target: `responses / target_responses` (at most 1); null otherwise.
    pub progress: Option<f64>,
    /// The interval every target leads with (`anytime`, `exact`, `chernoff`; a target
    /// without an exact interval says `chernoff` where this says `exact`); null while
    /// blinded.
    pub primary: Option<Primary>,
    /// Why that interval is primary, in one sentence.
    pub primary_reason: String,
    /// The grouping questions (not randomized): the ids `?by=` takes.
    pub groupings: Vec<GroupingSummary>,
    /// Every figure computed from the reports comes from released responses only
    /// (docs/design.md, invariant 11): where the survey's releases stand.
    pub release: ReleaseSummary,
    /// Respondents needed so that every question's Chernoff half-width is at most 5 %.
    pub respondents_needed_for_5_percent: u64,
    pub questions: Vec<QuestionResults>,
}

/// A grouping question, as the results name it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GroupingSummary {
    pub id: i64,
    pub position: u32,
    pub text: String,
    pub options: Vec<String>,
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
    /// Yes/no: which of `intervals` to lead with (null while blinded and for other types,
    /// whose options and mean say it each).
    pub primary: Option<Primary>,
    /// Yes/no: one-sided bounds on the "yes" share ("at most", "at least").
    pub bounds: Option<OneSidedBounds>,
    /// Yes/no, with `?null=`: the test of "the yes share is null".
    pub test: Option<NullTest>,
    /// Whether the reports can have come from the design at all: an anytime-valid e-value,
    /// flagged past 1 000 (null while blinded).
    pub consistency: Option<ConsistencyCheck>,
    /// Choice and ordinal: each option's reports and estimated true share. Each option's
    /// intervals hold for that option at the chosen confidence, not for all options at once
    /// (for k options at once, ask for confidence 1 − β/k: Bonferroni).
    pub options: Option<Vec<OptionResults>>,
    /// Ordinal: the mean level (1 = the first option … k = the last); number: the mean.
    pub mean: Option<MeanResults>,
    /// Respondents for a Chernoff half-width of 5 percentage points (yes/no; for choice
    /// and ordinal, on every option's share) or 5 % of the range (a number's mean).
    pub respondents_needed_for_5_percent: u64,
    /// Respondents for the primary interval of the survey's way of running, with
    /// Chernoff's guarantee beside it.
    pub planning: Planning,
}

/// The planner of one question (docs/design.md, "Planner"): respondents for a half-width of
/// 5 and of 10 percentage points of every share (5 % and 10 % of a number's range) by the
/// interval the survey's way of running leads with, and by Chernoff's bound. The exact count
/// sizes the interval at its widest (a report rate of ½); the anytime count is the smallest
/// N whose interval, tuned for N planned respondents, is that narrow at N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Planning {
    /// `anytime` (watched live, or unblinded early) or `exact` (fixed in advance): the
    /// interval the two counts below are for.
    pub interval: Primary,
    pub for_5_points: u64,
    pub for_10_points: u64,
    /// Hoeffding's guarantee, `N ≥ ln(2/β) W² / (2 α²)`: valid whatever the truth.
    pub chernoff_for_5_points: u64,
    pub chernoff_for_10_points: u64,
}

/// The half-widths the planner sizes for: ±5 and ±10 percentage points (or % of a range).
pub const PLANNED_FRACTIONS: [f64; 2] = [0.05, 0.10];

/// [`Planning`] for a design, sized for `interval`'s way of running at `confidence`.
pub fn planning(
    design: &QuestionDesign,
    interval: Primary,
    confidence: Confidence,
) -> Result<Planning, AppError> {
    let [five, ten] = PLANNED_FRACTIONS.map(|fraction| planned_sizes(design, fraction, confidence));
    let (five, ten) = (five?, ten?);
    let primary = |sizes: PlannedSizes| match interval {
        Primary::Anytime => sizes.watched_live,
        Primary::Exact | Primary::Chernoff => sizes.fixed_in_advance,
    };
    Ok(Planning {
        interval,
        for_5_points: primary(five),
        for_10_points: primary(ten),
        chernoff_for_5_points: five.chernoff,
        chernoff_for_10_points: ten.chernoff,
    })
}

/// One option of a choice or ordinal question.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OptionResults {
    pub label: String,
    /// Reports of this option (null while blinded).
    pub reported: Option<u64>,
    /// The unbiased estimate of the true share choosing it (may fall outside [0, 1]).
    pub estimate: Option<f64>,
    /// The estimate clipped to [0, 1].
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
    /// Which of `intervals` to lead with (null while blinded).
    pub primary: Option<Primary>,
    /// One-sided bounds on the option's share.
    pub bounds: Option<OneSidedBounds>,
    /// With `?null=`: the test of "the option's share is null".
    pub test: Option<NullTest>,
}

/// The consistency of a question's reports with its design (docs/design.md, "Data that
/// contradict the design"): whatever the true answers, each report has a least possible
/// rate; reports far below it are fake or come from a faulty client.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ConsistencyCheck {
    /// `ln E`: the e-value (a uniform mixture of likelihood ratios against each report's
    /// least possible rate) in logarithms; 0 before any report.
    pub ln_e_value: f64,
    /// The anytime-valid p-value `min(1, 1/E)`: valid however often it is checked.
    pub p_value: f64,
    /// E has reached `threshold`: the reports contradict the design, and no estimate of
    /// this question should be read as a finding.
    pub flagged: bool,
    /// 1 000 (`1/α` with α = 0.001): honest reports reach it, ever, in at most one survey
    /// in a thousand.
    pub threshold: f64,
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
    /// Which of `intervals` to lead with (null while blinded).
    pub primary: Option<Primary>,
    /// One-sided bounds on the mean.
    pub bounds: Option<OneSidedBounds>,
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

/// One interval, within the target's range. When the interval as computed lies entirely
/// outside that range it is empty: no value of the target is consistent with the reports at
/// this confidence (fake responses or a faulty client are the usual causes), and `low` and
/// `high` are null.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IntervalBounds {
    /// The lower end; null when `empty`.
    pub low: Option<f64>,
    /// The upper end; null when `empty`.
    pub high: Option<f64>,
    /// Half the width as computed, before intersecting with the target's range.
    pub half_width: f64,
    /// The interval lies entirely outside the target's range.
    pub empty: bool,
}

impl IntervalBounds {
    /// Whether `value` lies in the interval (never when empty).
    pub fn contains(&self, value: f64) -> bool {
        self.range()
            .is_some_and(|(low, high)| (low..=high).contains(&value))
    }

    /// `(low, high)`; `None` when empty.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.low.zip(self.high)
    }
}

impl Intervals {
    /// The interval `primary` names.
    pub fn get(&self, primary: Primary) -> Option<IntervalBounds> {
        match primary {
            Primary::Anytime => self.anytime,
            Primary::Exact => self.exact,
            Primary::Chernoff => self.chernoff,
        }
    }
}

/// An interval's bounds (or its emptiness), or none at all: never an object of nulls that
/// hides a non-finite bound.
pub(crate) fn finite(bounds: Bounds) -> Option<IntervalBounds> {
    let range = bounds.range();
    let bounds = IntervalBounds {
        low: range.map(|(low, _)| low),
        high: range.map(|(_, high)| high),
        half_width: bounds.half_width(),
        empty: range.is_none(),
    };
    [bounds.low, bounds.high, Some(bounds.half_width)]
        .iter()
        .flatten()
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

/// A target's estimate, intervals, one-sided bounds, test and primary interval.
pub struct Target {
    pub estimate: Option<f64>,
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
    pub bounds: Option<OneSidedBounds>,
    pub test: Option<NullTest>,
    pub primary: Option<Primary>,
}

/// One-sided bounds at the chosen confidence: "the target is at most `upper`" and "at
/// least `lower`", each holding on its own with probability ≥ the confidence (led by the
/// same method as the intervals: `primary`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OneSidedBounds {
    pub lower: OneSided,
    pub upper: OneSided,
}

/// One side's bound by each method (null without data; `exact` where there is none; null
/// too where the bound is empty, listed in `empty`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OneSided {
    pub chernoff: Option<f64>,
    pub exact: Option<f64>,
    pub anytime: Option<f64>,
    /// The methods whose bound is empty: an upper bound below the target's range (a lower
    /// one above it), so that no value of the target is consistent with the reports at
    /// this confidence. Usually none.
    pub empty: Vec<Primary>,
}

/// The test of `H0: the share is null` (the `null` query parameter; shares only).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NullTest {
    /// The hypothesised share θ0.
    pub null: f64,
    /// The primary test's p-value: anytime-valid while the anytime interval leads (valid
    /// however often it is looked at), the exact binomial test on the reports once a survey
    /// fixed in advance has closed.
    pub p_value: Option<f64>,
    /// `anytime` or `exact`: which test `p_value` is.
    pub test: Option<Primary>,
    /// Always reported: the anytime-valid p-value (`min(1, 1/E)`, normal mixture e-value).
    pub anytime_p_value: Option<f64>,
    /// R's `binom.test` on the reports (valid at a sample size fixed in advance).
    pub exact_p_value: Option<f64>,
}

/// How a survey's targets are summarized: at which confidence, tuned for which size, led
/// by which interval (`None`: blinded), tested against which share.
#[derive(Debug, Clone, Copy)]
pub struct Summarizing {
    pub confidence: Confidence,
    pub planned_respondents: u64,
    pub primary: Option<Primary>,
    /// The hypothesised share θ0 of `?null=`, tested for every share.
    pub null: Option<f64>,
    /// The interval the planner sizes ([`planning_interval`]).
    pub planning: Primary,
}

impl Summarizing {
    pub fn of(survey: &Survey, confidence: Confidence) -> Self {
        Self {
            confidence,
            planned_respondents: survey.planned_size(),
            primary: survey_primary(survey),
            null: None,
            planning: planning_interval(survey),
        }
    }
}

/// One target's estimate and intervals from its report counts; all null while blinded.
/// `null`: the share to test (shares only).
pub fn target(
    estimator: &PerRecordEstimator,
    counts: &[u64],
    how: Summarizing,
    null: Option<f64>,
) -> Result<Target, AppError> {
    if how.primary.is_none() {
        return Ok(Target {
            estimate: None,
            estimate_clipped: None,
            intervals: Intervals::default(),
            bounds: None,
            test: None,
            primary: None,
        });
    }
    let internal = AppError::internal;
    let summary = estimator
        .summarize(counts, how.confidence, how.planned_respondents)
        .map_err(internal)?;
    let primary = primary_for(how.primary, estimator);
    let side = |side: Side| -> Result<OneSided, AppError> {
        Ok(estimator
            .one_sided(counts, side, how.confidence, how.planned_respondents)
            .map_err(internal)?
            .map_or_else(OneSided::default, |bound| {
                let methods = [
                    (Primary::Chernoff, Some(bound.chernoff)),
                    (Primary::Exact, bound.exact),
                    (Primary::Anytime, Some(bound.anytime)),
                ];
                OneSided {
                    chernoff: bound.chernoff.value(),
                    exact: bound.exact.and_then(Bound::value),
                    anytime: bound.anytime.value(),
                    empty: methods
                        .into_iter()
                        .filter(|(_, bound)| bound.is_some_and(Bound::is_empty))
                        .map(|(method, _)| method)
                        .collect(),
                }
            }))
    };
    let bounds = summary
        .map(|_| -> Result<OneSidedBounds, AppError> {
            Ok(OneSidedBounds {
                lower: side(Side::Lower)?,
                upper: side(Side::Upper)?,
            })
        })
        .transpose()?;
    let test = null
        .filter(|_| summary.is_some())
        .map(|null| -> Result<NullTest, AppError> {
            let anytime = estimator
                .anytime_p_value(counts, null, how.confidence, how.planned_respondents)
                .map_err(internal)?;
            let exact = estimator.exact_p_value(counts, null).map_err(internal)?;
            let (p_value, test) = match (primary, exact) {
                (Some(Primary::Exact), Some(exact)) => (Some(exact), Some(Primary::Exact)),
                _ => (anytime, Some(Primary::Anytime)),
            };
            Ok(NullTest {
                null,
                p_value,
                test,
                anytime_p_value: anytime,
                exact_p_value: exact,
            })
        })
        .transpose()?;
    Ok(Target {
        estimate: summary.map(|s| s.estimate),
        estimate_clipped: summary.map(|s| s.estimate_clipped),
        intervals: Intervals {
            chernoff: summary.and_then(|s| finite(s.chernoff)),
            exact: summary.and_then(|s| s.exact).and_then(finite),
            anytime: summary.and_then(|s| finite(s.anytime)),
        },
        bounds,
        test,
        primary,
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

/// Respondents needed for a half-width of `fraction` of every target's range, by interval:
/// what each way of running a survey leads with (docs/design.md, "Planner"; the counts are
/// the crate's, module `planning`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlannedSizes {
    /// Hoeffding's guarantee (`N ≥ ln(2/β) W² / (2 α²)`): valid whatever the truth.
    pub chernoff: u64,
    /// Fixed in advance: the exact interval at its widest (a report rate of ½), Chernoff's
    /// for a target without an exact interval (an ordinal mean). The target to set.
    pub fixed_in_advance: u64,
    /// Watched live: the anytime interval (its width depends on n only), tuned for as many
    /// planned respondents as it asks for.
    pub watched_live: u64,
}

impl PlannedSizes {
    /// Each way's larger need of the two: what covers both targets.
    fn most(self, other: Self) -> Self {
        Self {
            chernoff: self.chernoff.max(other.chernoff),
            fixed_in_advance: self.fixed_in_advance.max(other.fixed_in_advance),
            watched_live: self.watched_live.max(other.watched_live),
        }
    }
}

/// [`PlannedSizes`] for a survey: the most any of its questions needs (the builder's and
/// the results page's planner).
pub fn survey_planned_sizes(
    survey: &Survey,
    fraction: f64,
    confidence: Confidence,
) -> Result<PlannedSizes, AppError> {
    survey
        .questions
        .iter()
        .try_fold(PlannedSizes::default(), |sizes, question| {
            Ok(sizes.most(planned_sizes(&question.design, fraction, confidence)?))
        })
}

/// [`PlannedSizes`] for one design: the largest over its targets (the "yes" share, every
/// option's share, a number's mean).
pub fn planned_sizes(
    design: &QuestionDesign,
    fraction: f64,
    confidence: Confidence,
) -> Result<PlannedSizes, AppError> {
    // A pure function of its arguments whose searches cost far more than the rest of a
    // question's results (several hundred interval evaluations): remembered, so that a live
    // page polled every few seconds, the survey-wide planner and a test that reads the
    // results at every count compute it once per design, half-width and confidence.
    type Key = (String, u64, u64);
    static REMEMBERED: OnceLock<Mutex<HashMap<Key, PlannedSizes>>> = OnceLock::new();
    let key = (
        format!("{design:?}"),
        fraction.to_bits(),
        confidence.level().to_bits(),
    );
    let remembered = REMEMBERED.get_or_init(Default::default);
    if let Some(sizes) = remembered
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return Ok(*sizes);
    }
    let sizes = search_planned_sizes(design, fraction, confidence)?;
    let mut remembered = remembered.lock().unwrap_or_else(PoisonError::into_inner);
    if remembered.len() >= 4096 {
        remembered.clear();
    }
    remembered.insert(key, sizes);
    Ok(sizes)
}

fn search_planned_sizes(
    design: &QuestionDesign,
    fraction: f64,
    confidence: Confidence,
) -> Result<PlannedSizes, AppError> {
    let internal = AppError::internal;
    let mut sizes = PlannedSizes::default();
    let mut sized: Vec<(f64, f64)> = Vec::new();
    for (estimator, range) in planning_estimators(design)? {
        // The options of a k-ary design share their range of values, and so their counts.
        if sized.contains(&estimator.value_range()) {
            continue;
        }
        sized.push(estimator.value_range());
        let half_width = fraction * range;
        let chernoff = estimator
            .respondents_needed(half_width, confidence)
            .map_err(internal)?;
        let exact = estimator
            .exact_respondents_needed(half_width, confidence)
            .map_err(internal)?
            .unwrap_or(chernoff);
        let anytime = estimator
            .anytime_respondents_needed(half_width, confidence)
            .map_err(internal)?;
        sizes = sizes.most(PlannedSizes {
            chernoff,
            fixed_in_advance: exact,
            watched_live: anytime,
        });
    }
    Ok(sizes)
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
        // A number returned above, with its mean; an ordinal scale plans for its shares.
        QuestionType::Choice | QuestionType::Ordinal | QuestionType::Number => {
            (0..matrix.answers()).collect()
        }
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

pub(crate) fn question_results(
    question: &Question,
    counts: &[u64],
    how: Summarizing,
) -> Result<QuestionResults, AppError> {
    let design = &question.design;
    let mechanism = design.mechanism();
    let mut counts = counts.to_vec();
    counts.resize(mechanism.reports(), 0);
    let blinded = how.primary.is_none();
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
        primary: None,
        bounds: None,
        test: None,
        consistency: None,
        options: None,
        mean: None,
        respondents_needed_for_5_percent: respondents_needed(question, how.confidence)?,
        planning: planning(design, how.planning, how.confidence)?,
    };
    if !blinded {
        let check = mechanism.consistency(&counts).map_err(AppError::internal)?;
        results.consistency = Some(ConsistencyCheck {
            ln_e_value: check.ln_e_value(),
            p_value: check.p_value(),
            flagged: check.flagged(),
            threshold: 1.0 / CONSISTENCY_ALPHA,
        });
    }
    let matrix = mechanism.matrix();
    match design.question_type() {
        QuestionType::YesNo => {
            let yes = matrix
                .option_estimator(Design::YES)
                .map_err(AppError::internal)?;
            let share = target(&yes, &counts, how, how.null)?;
            results.reported_yes = (!blinded).then_some(counts[Design::YES]);
            results.estimate = share.estimate;
            results.estimate_clipped = share.estimate_clipped;
            results.intervals = share.intervals;
            results.primary = share.primary;
            results.bounds = share.bounds;
            results.test = share.test;
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
                    let share = target(&estimator, &counts, how, how.null)?;
                    Ok(OptionResults {
                        label: label.clone(),
                        reported: (!blinded).then_some(counts[option]),
                        estimate: share.estimate,
                        estimate_clipped: share.estimate_clipped,
                        intervals: share.intervals,
                        primary: share.primary,
                        bounds: share.bounds,
                        test: share.test,
                    })
                })
                .collect::<Result<Vec<_>, AppError>>()?;
            results.options = Some(options);
            if design.question_type() == QuestionType::Ordinal {
                let estimator = mean_level_estimator(matrix);
                results.mean = Some(mean(&estimator, &counts, how)?);
            }
        }
        QuestionType::Number => {
            let estimator = mechanism
                .mean_estimator(false)
                .ok_or_else(|| AppError::internal("a number question without a mean"))?;
            results.mean = Some(mean(&estimator, &counts, how)?);
        }
    }
    Ok(results)
}

fn mean(
    estimator: &PerRecordEstimator,
    counts: &[u64],
    how: Summarizing,
) -> Result<MeanResults, AppError> {
    let (min, max) = estimator.target_range();
    let value = target(estimator, counts, how, None)?;
    Ok(MeanResults {
        min,
        max,
        estimate: value.estimate,
        estimate_clipped: value.estimate_clipped,
        intervals: value.intervals,
        primary: value.primary,
        bounds: value.bounds,
    })
}

/// What the results are asked for beyond the counts: `?confidence=`, `?null=`,
/// `?simultaneous=`.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    pub confidence: Confidence,
    /// The share every share's test is against.
    pub null: Option<f64>,
    /// Bonferroni across every target of the survey: each at `1 − β/T`.
    pub simultaneous: bool,
}

impl Asked {
    pub fn at(confidence: Confidence) -> Self {
        Self {
            confidence,
            null: None,
            simultaneous: false,
        }
    }

    /// Parses `?null=` (a share, from 0 to 1).
    pub fn parse_null(null: Option<f64>) -> Result<Option<f64>, AppError> {
        match null {
            Some(value) if !(0.0..=1.0).contains(&value) => Err(AppError::invalid(
                "invalid_null",
                format!("null is the share to test, from 0 to 1, not {value}"),
            )),
            other => Ok(other),
        }
    }
}

/// The targets of a survey's questions: a yes/no share, each option's share (and an
/// ordinal's mean), a number's mean. Bonferroni divides β by their number.
pub fn target_count(survey: &Survey) -> usize {
    survey
        .questions
        .iter()
        .map(|question| match question.design.question_type() {
            QuestionType::YesNo | QuestionType::Number => 1,
            QuestionType::Choice => question.design.reports(),
            QuestionType::Ordinal => question.design.reports() + 1,
        })
        .sum()
}

/// The figures of `counted` as if every response they count were released: the exact
/// computations of `tests/monitoring.rs`, which hold for any set of counts. A view computes
/// from [`Released`] ([`compute_released`]).
pub fn compute(
    survey: &Survey,
    counted: &[QuestionCounts],
    confidence: Confidence,
) -> Result<SurveyResults, AppError> {
    let mut results = compute_counts(survey, counted, Asked::at(confidence))?;
    let n = results.responses;
    results.release = ReleaseSummary {
        considered_at: n,
        released_responses: Some(n),
        withheld_responses: Some(0),
        reason: match survey.status {
            crate::domain::SurveyStatus::Closed => ReleaseReason::Closed,
            _ => ReleaseReason::Waiting,
        },
    };
    Ok(results)
}

/// The results its owner may see of a survey: computed from its released figures, with its
/// count of responses and its release as the owner may see them.
pub fn compute_released(
    survey: &Survey,
    released: &Released,
    asked: Asked,
) -> Result<SurveyResults, AppError> {
    let mut results = compute_counts(survey, &released.counts(), asked)?;
    results.responses = released.responses();
    results.progress = results
        .target_responses
        .map(|target| (released.responses() as f64 / target as f64).min(1.0));
    results.release = released.summary();
    Ok(results)
}

/// The results of some counts with a test and, when asked, Bonferroni-simultaneous
/// intervals (the release summary is the caller's to fill).
fn compute_counts(
    survey: &Survey,
    counted: &[QuestionCounts],
    asked: Asked,
) -> Result<SurveyResults, AppError> {
    let confidence = asked.confidence;
    let targets = target_count(survey).max(1);
    let per_target = if asked.simultaneous {
        Confidence::new(1.0 - confidence.beta() / targets as f64).map_err(AppError::internal)?
    } else {
        confidence
    };
    let how = Summarizing {
        null: asked.null,
        ..Summarizing::of(survey, per_target)
    };
    let questions = survey
        .questions
        .iter()
        .map(|question| {
            let counts = counted
                .iter()
                .find(|c| c.question_id == question.id)
                .map_or(&[][..], |c| &c.counts[..]);
            question_results(question, counts, how)
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    let responses = questions.iter().map(|q| q.n).max().unwrap_or(0);
    let target_responses = survey.stopping_rule.target_responses();
    Ok(SurveyResults {
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        status: survey.status.as_str().to_owned(),
        confidence: confidence.level(),
        simultaneous: asked.simultaneous,
        per_target_confidence: per_target.level(),
        null: asked.null,
        planned_respondents: survey.planned_respondents,
        plan: Plan::of(survey),
        target_responses,
        closes_at: survey.stopping_rule.closes_at().map(|at| at.to_string()),
        blinded: survey.is_blinded(),
        unblinded_at_responses: survey.unblinded_at,
        responses,
        progress: target_responses.map(|target| (responses as f64 / target as f64).min(1.0)),
        primary: how.primary,
        primary_reason: primary_reason(survey).to_owned(),
        groupings: survey
            .groupings
            .iter()
            .map(|grouping| GroupingSummary {
                id: grouping.id.get(),
                position: grouping.position,
                text: grouping.text.clone(),
                options: grouping.options.clone(),
            })
            .collect(),
        release: ReleaseSummary {
            considered_at: 0,
            released_responses: None,
            withheld_responses: None,
            reason: ReleaseReason::Waiting,
        },
        respondents_needed_for_5_percent: questions
            .iter()
            .map(|q| q.respondents_needed_for_5_percent)
            .max()
            .unwrap_or(0),
        questions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use randomized_response::PrivacyLevel;

    fn mirrored(epsilon: f64) -> QuestionDesign {
        QuestionDesign::mirrored(PrivacyLevel::new(epsilon).unwrap())
    }

    #[test]
    fn the_planner_sizes_each_way_by_its_primary_interval_with_chernoffs_count_beside_it() {
        let confidence = Confidence::new(0.95).unwrap();
        // The figure: Chernoff asks for 2 952 at ε = ln 3, ±5 %.
        let sizes = planned_sizes(&mirrored(3f64.ln()), 0.05, confidence).unwrap();
        assert_eq!(sizes.chernoff, 2_952);
        // The exact interval is tighter than Chernoff at any n fixed in advance.
        assert!(sizes.fixed_in_advance < sizes.chernoff, "{sizes:?}");
        // Valid at every n at once costs respondents.
        assert!(sizes.watched_live > sizes.fixed_in_advance, "{sizes:?}");
        // The exact count is the first n whose widest exact interval is within ±5 %.
        let yes = mirrored(3f64.ln())
            .mechanism()
            .matrix()
            .option_estimator(Design::YES)
            .unwrap();
        let width = |n: u64| {
            yes.exact_interval(&[n - n / 2, n / 2], confidence)
                .unwrap()
                .unwrap()
                .half_width()
        };
        assert!(width(sizes.fixed_in_advance) <= 0.05);
        assert!(width(sizes.fixed_in_advance - 1) > 0.05);
        for epsilon in [1.0, 3f64.ln(), 5.0] {
            let sizes = planned_sizes(&mirrored(epsilon), 0.05, confidence).unwrap();
            println!(
                "ε = {epsilon:.3}, ±5 % at 95 %: fixed in advance (exact) {}, watched live \
                 (anytime, tuned for itself) {}, Chernoff {}",
                sizes.fixed_in_advance, sizes.watched_live, sizes.chernoff
            );
        }
    }

    #[test]
    fn at_a_thousand_respondents_the_exact_interval_is_narrower_and_the_anytime_wider_than_chernoff(
    ) {
        // ε = 1, π = 0.3: the expected reported-yes count at N = 1 000.
        let confidence = Confidence::new(0.95).unwrap();
        let design = mirrored(1.0);
        let matrix = design.mechanism().matrix();
        let rate = 0.3 * matrix.probability(1, 1) + 0.7 * matrix.probability(0, 1);
        let yes = (1_000.0 * rate).round() as u64;
        let estimator = matrix.option_estimator(Design::YES).unwrap();
        let summary = estimator
            .summarize(&[1_000 - yes, yes], confidence, 1_000)
            .unwrap()
            .unwrap();
        let chernoff = summary.chernoff.half_width();
        let exact = summary.exact.unwrap().half_width();
        let anytime = summary.anytime.half_width();
        println!(
            "N = 1 000, ε = 1, π = 0.3: half-widths exact {exact:.4} ({:.2}× Chernoff), anytime \
             {anytime:.4} ({:.2}× Chernoff), Chernoff {chernoff:.4}",
            exact / chernoff,
            anytime / chernoff
        );
        assert!(exact < chernoff && chernoff < anytime);
    }
}
