//! Estimators over the tallies of one question, grouped by ε.
//!
//! Group j holds `n_j` reports at level ε_j, of which `y_j` are yes; `N = Σ n_j`.
//! Groups with no reports are ignored, and no reports at all gives `None`: never NaN.

use crate::beta::{inverse_regularized_incomplete_beta, Rounding};
use crate::{Interval, MechanismError, PrivacyLevel, Tally};

/// A confidence level 1 − β, strictly between 0 and 1 (for example 0.95).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Confidence {
    level: f64,
}

impl Confidence {
    /// Validates a confidence level: finite and in the open interval (0, 1), with
    /// β = 1 − level in (0, 1) too once computed in floating point (a level of 5e-324 is
    /// positive, but its β rounds to exactly 1, where the anytime boundary is undefined).
    pub fn new(level: f64) -> Result<Self, MechanismError> {
        let beta = 1.0 - level;
        if level > 0.0 && level < 1.0 && beta > 0.0 && beta < 1.0 {
            Ok(Self { level })
        } else {
            Err(MechanismError::ConfidenceOutOfRange(level))
        }
    }

    /// The confidence level 1 − β.
    pub fn level(self) -> f64 {
        self.level
    }

    /// β = 1 − level, the allowed probability of missing the truth.
    pub fn beta(self) -> f64 {
        1.0 - self.level
    }
}

/// `[low, high] ∩ [0, 1]`, empty when they do not meet (module `interval`).
fn unit_interval(low: f64, high: f64) -> Interval {
    Interval::within(low, high, 0.0, 1.0)
}

fn around(center: f64, half_width: f64) -> Interval {
    unit_interval(center - half_width, center + half_width)
}

fn clip_to_unit(value: f64) -> f64 {
    value.clamp(0.0, 1.0)
}

fn nonempty(groups: &[(PrivacyLevel, Tally)]) -> impl Iterator<Item = (PrivacyLevel, Tally)> + '_ {
    groups.iter().copied().filter(|(_, tally)| tally.n() > 0)
}

fn total_reports(groups: &[(PrivacyLevel, Tally)]) -> u64 {
    nonempty(groups).map(|(_, tally)| tally.n()).sum()
}

/// The unbiased estimate of the true "yes" proportion:
/// `π̂ = (1/N) Σ_j (y_j − n_j q_j) / r_j`, the mean of the per-response values
/// `z = (report − q) / r`. Mixed ε are allowed. `None` when there are no reports.
///
/// Each report is yes with probability `q + r·truth`, so `E[π̂] = π` exactly
/// (Warner 1965). π̂ can fall outside [0, 1]; clip it for display only.
pub fn unbiased_estimate(groups: &[(PrivacyLevel, Tally)]) -> Option<f64> {
    let total = total_reports(groups);
    if total == 0 {
        return None;
    }
    let debiased_yes: f64 = nonempty(groups)
        .map(|(level, tally)| {
            (tally.reported_yes() as f64 - tally.n() as f64 * level.lie_probability())
                / level.signal()
        })
        .sum();
    Some(debiased_yes / total as f64)
}

/// `ln(2/β)/2 · Σ_j n_j / r_j²`: the squared Hoeffding radius of `N·π̂`.
fn hoeffding_variance_term(groups: &[(PrivacyLevel, Tally)]) -> f64 {
    nonempty(groups)
        .map(|(level, tally)| tally.n() as f64 / (level.signal() * level.signal()))
        .sum()
}

/// The Chernoff (Hoeffding) interval: `[π̂ − h, π̂ + h] ∩ [0, 1]` (empty when they do not
/// meet) with
/// `h = sqrt( ln(2/β)/2 · Σ_j n_j / r_j² ) / N`; with one ε, `h = sqrt(ln(2/β) / (2N)) / r`.
///
/// Each z lies in an interval of width `1/r_j`, so Hoeffding's inequality (1963) gives
/// `P[|π̂ − π| ≥ h] ≤ β` for every sample size: coverage at least 1 − β, no asymptotics.
pub fn chernoff_interval(
    groups: &[(PrivacyLevel, Tally)],
    confidence: Confidence,
) -> Option<Interval> {
    let estimate = unbiased_estimate(groups)?;
    let total = total_reports(groups) as f64;
    let radius_squared = libm::log(2.0 / confidence.beta()) / 2.0 * hoeffding_variance_term(groups);
    Some(around(estimate, libm::sqrt(radius_squared) / total))
}

/// The exact interval (one ε): the Clopper–Pearson interval `[ζ_L, ζ_U]` for the
/// reported-yes rate ζ = q + rπ, mapped through `π = (ζ − q) / r` and intersected with
/// [0, 1].
///
/// `ζ_L = B⁻¹(β/2; y, N − y + 1)` (0 when y = 0) and `ζ_U = B⁻¹(1 − β/2; y + 1, N − y)`
/// (1 when y = N), with B⁻¹ the beta quantile (Clopper & Pearson 1934). Coverage is at
/// least 1 − β at every N and π; the bounds are computed to 1e-13 and rounded outward.
/// `None` when there are no reports or the reports were made at more than one ε.
pub fn exact_interval(
    groups: &[(PrivacyLevel, Tally)],
    confidence: Confidence,
) -> Option<Interval> {
    let mut groups = nonempty(groups);
    let (level, mut tally) = groups.next()?;
    for (other_level, other_tally) in groups {
        if other_level.epsilon() != level.epsilon() {
            return None;
        }
        tally = tally.checked_add(other_tally)?;
    }
    let (n, yes) = (tally.n() as f64, tally.reported_yes() as f64);
    let tail = confidence.beta() / 2.0;
    let rate_low = if tally.reported_yes() == 0 {
        0.0
    } else {
        inverse_regularized_incomplete_beta(yes, n - yes + 1.0, tail, Rounding::Down)
    };
    let rate_high = if tally.reported_yes() == tally.n() {
        1.0
    } else {
        inverse_regularized_incomplete_beta(yes + 1.0, n - yes, 1.0 - tail, Rounding::Up)
    };
    let to_proportion = |rate: f64| (rate - level.lie_probability()) / level.signal();
    Some(unit_interval(
        to_proportion(rate_low),
        to_proportion(rate_high),
    ))
}

/// The scale ρ of the normal mixture that makes the anytime-valid boundary tightest at
/// intrinsic time `planned_intrinsic_time`, for error probability β.
///
/// The boundary `sqrt((V + ρ)(ln(1 + V/ρ) + c))`, `c = 2 ln(1/β)`, is smallest at a given
/// V when `t = V/ρ` solves `t = c + ln(1 + t)` (set its derivative in ρ to zero); the
/// fixed-point iteration converges because the map's slope `1/(1 + t)` is below 1.
/// Its first step, `ρ = V / (c + ln(1 + c))`, is the approximation of Howard et al.
/// (2021), §3.5.
pub fn anytime_mixture_scale(planned_intrinsic_time: f64, confidence: Confidence) -> f64 {
    mixture_scale(
        planned_intrinsic_time,
        2.0 * libm::log(1.0 / confidence.beta()),
    )
}

/// The ρ that makes `sqrt((V + ρ)(ln(1 + V/ρ) + c))` smallest at `V = planned_intrinsic_time`
/// for a threshold term `c > 0`: `ρ = V/t` with `t = c + ln(1 + t)` (see
/// [`anytime_mixture_scale`], which takes `c = 2 ln(1/β)`).
pub(crate) fn mixture_scale(planned_intrinsic_time: f64, c: f64) -> f64 {
    let mut ratio = c;
    // Each step shrinks the error by 1/(1 + t), under 1/6 for β ≤ 0.1: a dozen steps
    // reach double precision. For unusually low confidence levels convergence is slower,
    // but every ρ > 0 keeps the boundary valid; it only costs a little width.
    for _ in 0..60 {
        let next = c + libm::log1p(ratio);
        if next == ratio {
            break;
        }
        ratio = next;
    }
    planned_intrinsic_time / ratio
}

/// The anytime-valid interval: a two-sided normal-mixture confidence sequence
/// (Howard, Ramdas, McAuliffe, Sekhon 2021), valid simultaneously at every N.
///
/// Each z is bounded in an interval of width `1/r_j`, hence sub-Gaussian with variance
/// proxy `1/(4 r_j²)`; the intrinsic time is `V = Σ_j n_j / (4 r_j²)` and, with
/// probability at least 1 − β, for all N at once,
/// `|Σz − Nπ| ≤ sqrt( (V + ρ) · (ln(1 + V/ρ) + 2 ln(1/β)) )`.
/// Dividing by N gives the half-width around π̂, so a researcher may watch results live
/// and stop whenever they like without losing coverage.
///
/// ρ is tuned by [`anytime_mixture_scale`] to be tightest when `planned_respondents`
/// have answered (the intrinsic time then is `planned_respondents · V / N`); it stays
/// valid, only a little wider, at any other N. At its tuned N and β = 0.05 the interval
/// is about 1.12 times as wide as the fixed-N Chernoff interval: the price of looking as
/// often as one likes.
pub fn anytime_interval(
    groups: &[(PrivacyLevel, Tally)],
    confidence: Confidence,
    planned_respondents: u64,
) -> Option<Interval> {
    let estimate = unbiased_estimate(groups)?;
    let total = total_reports(groups) as f64;
    let intrinsic_time = hoeffding_variance_term(groups) / 4.0;
    let planned_intrinsic_time = planned_respondents.max(1) as f64 * intrinsic_time / total;
    let scale = anytime_mixture_scale(planned_intrinsic_time, confidence);
    let boundary = normal_mixture_boundary(intrinsic_time, scale, confidence);
    Some(around(estimate, boundary / total))
}

/// The two-sided normal-mixture boundary on |Σz − Nθ| at intrinsic time V with mixture
/// scale ρ: `sqrt( (V + ρ) · (ln(1 + V/ρ) + 2 ln(1/β)) )` (Howard, Ramdas, McAuliffe &
/// Sekhon 2021), the one formula behind every anytime interval of the crate.
pub(crate) fn normal_mixture_boundary(
    intrinsic_time: f64,
    scale: f64,
    confidence: Confidence,
) -> f64 {
    libm::sqrt(
        (intrinsic_time + scale)
            * (libm::log1p(intrinsic_time / scale) + 2.0 * libm::log(1.0 / confidence.beta())),
    )
}

/// The planner: respondents needed for a Chernoff half-width α at confidence 1 − β,
/// `N = ⌈ ln(2/β) / (2 α² r²) ⌉` (Hoeffding 1963, solved for N).
pub fn respondents_needed(
    half_width: f64,
    level: PrivacyLevel,
    confidence: Confidence,
) -> Result<u64, MechanismError> {
    if !(half_width > 0.0 && half_width <= 1.0) {
        return Err(MechanismError::HalfWidthOutOfRange(half_width));
    }
    let signal = level.signal();
    let needed =
        libm::log(2.0 / confidence.beta()) / (2.0 * half_width * half_width * signal * signal);
    Ok(libm::ceil(needed) as u64)
}

fn validate_prior(prior: f64) -> Result<f64, MechanismError> {
    if (0.0..=1.0).contains(&prior) {
        Ok(prior)
    } else {
        Err(MechanismError::PriorOutOfRange(prior))
    }
}

/// What an observer believes after seeing a reported yes, from a prior belief ξ that the
/// truth is yes: `ξp / (ξp + (1 − ξ)q)` (Bayes' rule). The odds move by at most e^ε.
pub fn posterior_after_yes(prior: f64, level: PrivacyLevel) -> Result<f64, MechanismError> {
    let prior = validate_prior(prior)?;
    let (p, q) = (level.truth_probability(), level.lie_probability());
    Ok(prior * p / (prior * p + (1.0 - prior) * q))
}

/// What an observer believes after seeing a reported no, from a prior belief ξ that the
/// truth is yes: `ξq / (ξq + (1 − ξ)p)`. The odds move by at most e^ε.
pub fn posterior_after_no(prior: f64, level: PrivacyLevel) -> Result<f64, MechanismError> {
    let prior = validate_prior(prior)?;
    let (p, q) = (level.truth_probability(), level.lie_probability());
    Ok(prior * q / (prior * q + (1.0 - prior) * p))
}

/// The privacy a respondent spends answering all these questions: `Σ ε_k`
/// (basic sequential composition of local differential privacy).
pub fn total_epsilon(levels: impl IntoIterator<Item = PrivacyLevel>) -> f64 {
    levels.into_iter().map(PrivacyLevel::epsilon).sum()
}

/// Everything a results page shows for one question.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Reports received, N.
    pub n: u64,
    /// Reports that said yes.
    pub reported_yes: u64,
    /// The unbiased estimate π̂ (may lie outside [0, 1]).
    pub estimate: f64,
    /// π̂ clipped to [0, 1].
    pub estimate_clipped: f64,
    /// The Chernoff (Hoeffding) interval.
    pub chernoff: Interval,
    /// The exact (Clopper–Pearson) interval; `None` with mixed ε.
    pub exact: Option<Interval>,
    /// The anytime-valid interval, tuned for the planned number of respondents.
    pub anytime: Interval,
}

/// The estimate and all three intervals of one question; `None` when it has no reports.
pub fn summarize(
    groups: &[(PrivacyLevel, Tally)],
    confidence: Confidence,
    planned_respondents: u64,
) -> Option<Summary> {
    let estimate = unbiased_estimate(groups)?;
    let tally =
        nonempty(groups).try_fold(Tally::default(), |sum, (_, tally)| sum.checked_add(tally))?;
    Some(Summary {
        n: tally.n(),
        reported_yes: tally.reported_yes(),
        estimate,
        estimate_clipped: clip_to_unit(estimate),
        chernoff: chernoff_interval(groups, confidence)?,
        exact: exact_interval(groups, confidence),
        anytime: anytime_interval(groups, confidence, planned_respondents)?,
    })
}
