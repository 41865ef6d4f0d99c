//! One code path for every estimate of every design: the mean of a bounded per-record
//! unbiased value.
//!
//! A design's report r is turned into a value `w(r)` whose expectation is the target (the
//! share of an option, the mean level of an ordinal question, the mean of a number), so the
//! target's unbiased estimate is `θ̂ = (1/N) Σ_r n_r w(r)`. Because w lies in
//! `[w_min, w_max]`, a range of width `W`, three intervals follow from the same numbers:
//!
//! * **Chernoff (Hoeffding 1963)**: `θ̂ ± W · sqrt( ln(2/β) / (2N) )`, valid at every N.
//! * **Anytime-valid** (Howard, Ramdas, McAuliffe & Sekhon 2021): w is sub-Gaussian with
//!   variance proxy `W²/4`, so with intrinsic time `V = N W²/4`, with probability 1 − β for
//!   all N at once, `|Σ w − Nθ| ≤ sqrt( (V + ρ)(ln(1 + V/ρ) + 2 ln(1/β)) )`;
//!   ρ from [`crate::anytime_mixture_scale`] for the planned number of respondents.
//! * **Exact (Clopper & Pearson 1934)** when w takes exactly two values: then
//!   `θ̂ = w_min + W · n_A / N` with `n_A` the reports of the higher value, a linear map of
//!   one Bernoulli rate; the Clopper–Pearson bounds of that rate are mapped through it and
//!   rounded outward.
//!
//! Intervals are intersected with the target's own range ([0, 1] for a share, [min, max]
//! for a number's mean), and are empty when they lie entirely outside it (see
//! [`Interval`]); `half_width` is half the width before that.

use crate::beta::{inverse_regularized_incomplete_beta, Rounding};
use crate::estimate::normal_mixture_boundary;
use crate::{anytime_mixture_scale, Confidence, DesignError, Interval, MAX_OPTIONS};

mod difference;
mod hypothesis;
mod one_sided;
mod planning;

pub use difference::{DifferenceSummary, Group};
pub use one_sided::{OneSidedSummary, Side};

/// An estimator: the per-record unbiased value of each report and the target's range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerRecordEstimator {
    values: [f64; MAX_OPTIONS],
    reports: usize,
    lowest: f64,
    highest: f64,
    target_low: f64,
    target_high: f64,
    /// When w takes exactly two values: the reports with the higher one, as a bit set.
    high_reports: Option<u32>,
}

/// A confidence interval for a target, within the target's range or empty (the crate's
/// one [`Interval`]).
pub type Bounds = Interval;

/// Everything a results page shows for one target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetSummary {
    /// Reports received, N.
    pub n: u64,
    /// The unbiased estimate (may lie outside the target's range).
    pub estimate: f64,
    /// The estimate clipped to the target's range.
    pub estimate_clipped: f64,
    /// The Chernoff (Hoeffding) interval.
    pub chernoff: Bounds,
    /// The exact (Clopper–Pearson) interval, when the per-record value is two-valued.
    pub exact: Option<Bounds>,
    /// The anytime-valid interval, tuned for the planned number of respondents.
    pub anytime: Bounds,
}

/// N and, for a two-valued estimator, the number of reports with the higher value.
struct Counted {
    total: u64,
    high: u64,
}

impl PerRecordEstimator {
    /// An estimator with per-record values `values[r]` (one per report, at most
    /// [`MAX_OPTIONS`], finite) for a target in `[target_low, target_high]`.
    pub(crate) fn new(values: &[f64], target_low: f64, target_high: f64) -> Self {
        let reports = values.len().min(MAX_OPTIONS);
        let mut stored = [0.0; MAX_OPTIONS];
        stored[..reports].copy_from_slice(&values[..reports]);
        let lowest = stored[..reports]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let highest = stored[..reports]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let two_valued = stored[..reports]
            .iter()
            .all(|&value| value == lowest || value == highest)
            && lowest < highest;
        let high_reports = two_valued.then(|| {
            (0..reports)
                .filter(|&report| stored[report] == highest)
                .fold(0_u32, |set, report| set | 1 << report)
        });
        Self {
            values: stored,
            reports,
            lowest,
            highest,
            target_low,
            target_high,
            high_reports,
        }
    }

    /// The estimator of `offset + scale · θ` (scale > 0) for a target in
    /// `[target_low, target_high]`: every per-record value mapped the same way.
    pub fn mapped(self, offset: f64, scale: f64, target_low: f64, target_high: f64) -> Self {
        let mut values = self.values;
        for value in &mut values[..self.reports] {
            *value = offset + scale * *value;
        }
        Self::new(&values[..self.reports], target_low, target_high)
    }

    /// The number of reports the counts must cover.
    pub fn reports(&self) -> usize {
        self.reports
    }

    /// The per-record unbiased values, `w(r)` for each report r.
    pub fn values(&self) -> &[f64] {
        &self.values[..self.reports]
    }

    /// `(w_min, w_max)`: the range every per-record value lies in.
    pub fn value_range(&self) -> (f64, f64) {
        (self.lowest, self.highest)
    }

    /// `W = w_max − w_min`, the width that sets every interval's half-width.
    pub fn value_width(&self) -> f64 {
        self.highest - self.lowest
    }

    /// The range the target itself lies in (intervals are intersected with it).
    pub fn target_range(&self) -> (f64, f64) {
        (self.target_low, self.target_high)
    }

    /// Whether w takes exactly two values, so that the exact interval exists.
    pub fn is_two_valued(&self) -> bool {
        self.high_reports.is_some()
    }

    fn count(&self, counts: &[u64]) -> Result<Option<Counted>, DesignError> {
        if counts.len() != self.reports {
            return Err(DesignError::CountsLength {
                expected: self.reports,
                got: counts.len(),
            });
        }
        let mut total = 0_u64;
        let mut high = 0_u64;
        for (report, &count) in counts.iter().enumerate() {
            total = total.checked_add(count).ok_or(DesignError::CountOverflow)?;
            if self.high_reports.is_some_and(|set| set >> report & 1 == 1) {
                high += count;
            }
        }
        Ok((total > 0).then_some(Counted { total, high }))
    }

    fn estimate_of(&self, counts: &[u64], counted: &Counted) -> f64 {
        let total = counted.total as f64;
        if self.high_reports.is_some() {
            // The linear map of the one Bernoulli rate, as the exact interval uses it.
            self.lowest + self.value_width() * (counted.high as f64 / total)
        } else {
            let sum: f64 = counts
                .iter()
                .zip(self.values())
                .map(|(&count, &value)| count as f64 * value)
                .sum();
            sum / total
        }
    }

    /// The unbiased estimate `θ̂ = (1/N) Σ_r n_r w(r)` from the report counts (one per
    /// report); `Ok(None)` when there are no reports.
    pub fn estimate(&self, counts: &[u64]) -> Result<Option<f64>, DesignError> {
        Ok(self
            .count(counts)?
            .map(|counted| self.estimate_of(counts, &counted)))
    }

    /// The Chernoff (Hoeffding) interval: `θ̂ ± W · sqrt( ln(2/β) / (2N) )`.
    ///
    /// The per-record values are independent and lie in a range of width W, so Hoeffding's
    /// inequality (1963) gives `P[|θ̂ − θ| ≥ h] ≤ 2 exp(−2Nh²/W²) = β`: coverage at least
    /// 1 − β at every N, no asymptotics.
    pub fn chernoff_interval(
        &self,
        counts: &[u64],
        confidence: Confidence,
    ) -> Result<Option<Bounds>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let estimate = self.estimate_of(counts, &counted);
        let half_width = self.value_width()
            * libm::sqrt(libm::log(2.0 / confidence.beta()) / (2.0 * counted.total as f64));
        Ok(Some(self.around(estimate, half_width)))
    }

    /// The anytime-valid interval (Howard, Ramdas, McAuliffe & Sekhon 2021, normal
    /// mixture): `θ̂ ± sqrt( (V + ρ)(ln(1 + V/ρ) + 2 ln(1/β)) ) / N` with `V = N W²/4`,
    /// valid at every N simultaneously, so results may be watched live. ρ is tuned by
    /// [`anytime_mixture_scale`] to be tightest at `planned_respondents`.
    pub fn anytime_interval(
        &self,
        counts: &[u64],
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<Bounds>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let estimate = self.estimate_of(counts, &counted);
        let total = counted.total as f64;
        let proxy = self.value_width() * self.value_width() / 4.0;
        let intrinsic_time = total * proxy;
        let scale = anytime_mixture_scale(planned_respondents.max(1) as f64 * proxy, confidence);
        let boundary = normal_mixture_boundary(intrinsic_time, scale, confidence);
        Ok(Some(self.around(estimate, boundary / total)))
    }

    /// The exact interval when w is two-valued: the Clopper–Pearson interval
    /// `[ζ_L, ζ_U]` for the rate ζ of the higher-valued reports,
    /// `ζ_L = B⁻¹(β/2; n_A, N − n_A + 1)` (0 when n_A = 0) and
    /// `ζ_U = B⁻¹(1 − β/2; n_A + 1, N − n_A)` (1 when n_A = N) (Clopper & Pearson 1934),
    /// mapped through `θ = w_min + W ζ`. The beta quantiles are within 1e-13 and rounded
    /// outward, and so is the map. `Ok(None)` with no reports or a w of more than two values.
    pub fn exact_interval(
        &self,
        counts: &[u64],
        confidence: Confidence,
    ) -> Result<Option<Bounds>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        if self.high_reports.is_none() {
            return Ok(None);
        }
        let tail = confidence.beta() / 2.0;
        let low = self.target_at_rate(clopper_pearson(&counted, Side::Lower, tail), Side::Lower);
        let high = self.target_at_rate(clopper_pearson(&counted, Side::Upper, tail), Side::Upper);
        Ok(Some(Bounds::within(
            low,
            high,
            self.target_low,
            self.target_high,
        )))
    }

    /// `w_min + W ζ`, moved outward (down for a lower bound, up for an upper one) by the
    /// map's own rounding: at most an ulp of its largest term on each side.
    fn target_at_rate(&self, rate: f64, side: Side) -> f64 {
        let slack = 2.0
            * f64::EPSILON
            * f64::max(
                self.value_width(),
                f64::max(libm::fabs(self.lowest), libm::fabs(self.highest)),
            );
        let value = self.lowest + self.value_width() * rate;
        match side {
            Side::Lower => value - slack,
            Side::Upper => value + slack,
        }
    }

    /// The reports with the higher value, as a bit set, when w is two-valued.
    pub(crate) fn high_report_set(&self) -> Option<u32> {
        self.high_reports
    }

    /// The estimate and all three intervals; `Ok(None)` when there are no reports.
    pub fn summarize(
        &self,
        counts: &[u64],
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<TargetSummary>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let estimate = self.estimate_of(counts, &counted);
        let (Some(chernoff), Some(anytime)) = (
            self.chernoff_interval(counts, confidence)?,
            self.anytime_interval(counts, confidence, planned_respondents)?,
        ) else {
            return Ok(None);
        };
        Ok(Some(TargetSummary {
            n: counted.total,
            estimate,
            estimate_clipped: estimate.clamp(self.target_low, self.target_high),
            chernoff,
            exact: self.exact_interval(counts, confidence)?,
            anytime,
        }))
    }

    /// The planner: respondents needed for a Chernoff half-width `half_width` (in the
    /// target's units), `N = ⌈ ln(2/β) W² / (2 α²) ⌉` (Hoeffding 1963, solved for N). The
    /// exact and anytime intervals' counts are in module `planning`
    /// ([`Self::exact_respondents_needed`], [`Self::anytime_respondents_needed`]).
    pub fn respondents_needed(
        &self,
        half_width: f64,
        confidence: Confidence,
    ) -> Result<u64, DesignError> {
        if !(half_width > 0.0 && half_width.is_finite()) {
            return Err(DesignError::HalfWidth(half_width));
        }
        let width = self.value_width();
        let needed =
            libm::log(2.0 / confidence.beta()) * width * width / (2.0 * half_width * half_width);
        // A float above 2^64 saturates in the cast.
        Ok(libm::ceil(needed) as u64)
    }

    fn around(&self, estimate: f64, half_width: f64) -> Bounds {
        Bounds::within(
            estimate - half_width,
            estimate + half_width,
            self.target_low,
            self.target_high,
        )
    }
}

/// The one-sided Clopper–Pearson bound on the rate of the higher-valued reports with error
/// `tail` (Clopper & Pearson 1934): the lower `B⁻¹(tail; n_A, N − n_A + 1)` (0 when
/// n_A = 0), the upper `B⁻¹(1 − tail; n_A + 1, N − n_A)` (1 when n_A = N); the beta quantiles
/// within 1e-13 and rounded outward.
fn clopper_pearson(counted: &Counted, side: Side, tail: f64) -> f64 {
    let (n, high) = (counted.total as f64, counted.high as f64);
    match side {
        Side::Lower if counted.high == 0 => 0.0,
        Side::Lower => {
            inverse_regularized_incomplete_beta(high, n - high + 1.0, tail, Rounding::Down)
        }
        Side::Upper if counted.high == counted.total => 1.0,
        Side::Upper => {
            inverse_regularized_incomplete_beta(high + 1.0, n - high, 1.0 - tail, Rounding::Up)
        }
    }
}
