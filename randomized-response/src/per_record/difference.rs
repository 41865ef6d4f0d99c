//! The difference of one target between two independent groups: intervals and tests
//! (documented on [`DifferenceSummary`]).

use super::{Bounds, Counted, PerRecordEstimator};
use crate::binomial::fisher_exact_test;
use crate::{anytime_mixture_scale, Confidence, DesignError};

/// One group's reports: the counts per report and the planned number of respondents in the
/// group, which tunes its anytime interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Group<'a> {
    /// The group's report counts, one per report of the estimator.
    pub counts: &'a [u64],
    /// The number of respondents the group is expected to reach (for ρ).
    pub planned_respondents: u64,
}

/// The difference `Δ = θ_a − θ_b` of one target between two independent groups of
/// respondents (group a against group b, or against the rest of the survey), with the same
/// per-record value w in both.
///
/// * **Chernoff** (Hoeffding 1963 on the two-sample sum): `Δ̂ = θ̂_a − θ̂_b` is a sum of
///   `n_a + n_b` independent terms, `w/n_a` in a range of width `W/n_a` and `−w/n_b` in one
///   of width `W/n_b`, so `P(|Δ̂ − Δ| ≥ h) ≤ 2 exp(−2h² / (W²(1/n_a + 1/n_b)))`:
///   `h = W sqrt( ln(2/β)/2 · (1/n_a + 1/n_b) )`.
/// * **Exact**, when w is two-valued: each group's Clopper–Pearson interval at confidence
///   `1 − β/2`, combined as `[L_a − U_b, U_a − L_b]`; both hold with probability at least
///   `1 − β` (Bonferroni), and then so does the difference.
/// * **Anytime-valid**: the same combination of each group's anytime interval at `1 − β/2`
///   (each a confidence sequence in its own group's count). With probability `1 − β` both
///   hold at every pair of counts at once, so the difference interval holds at every moment
///   of the survey, however the two groups' responses interleave and whenever it stops.
///
/// Each is empty when a group's own interval is (see [`crate::Interval`]).
///
/// Tests of `H0: θ_a = θ_b`:
///
/// * **anytime-valid p-value**: the smallest β' at which the anytime difference interval
///   (each group's ρ held at its tuning for the survey's confidence) excludes 0. Under H0,
///   `p ≤ α` at some moment means that the interval at α missed `Δ = 0`, so
///   `P(∃ moment: p ≤ α) ≤ α`: valid when watched live.
/// * **exact p-value** (two-valued w): Fisher's exact test on the 2×2 table of higher- and
///   lower-valued reports by group, two-sided as R's `fisher.test`. Under H0 both groups'
///   reports have the same rate (the same design maps the same θ to the same rate), so the
///   test is exact at fixed group sizes (conditionally on the margins, hence also
///   unconditionally).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DifferenceSummary {
    /// Reports in group a.
    pub n_a: u64,
    /// Reports in group b.
    pub n_b: u64,
    /// `θ̂_a − θ̂_b` (each unclipped).
    pub estimate: f64,
    /// The two-sample Hoeffding interval.
    pub chernoff: Bounds,
    /// The combined Clopper–Pearson intervals at `β/2` each, when w is two-valued.
    pub exact: Option<Bounds>,
    /// The combined anytime intervals at `β/2` each.
    pub anytime: Bounds,
    /// The anytime-valid p-value of `θ_a = θ_b`.
    pub anytime_p_value: f64,
    /// Fisher's exact test of `θ_a = θ_b`, when w is two-valued.
    pub exact_p_value: Option<f64>,
}

/// `Confidence` 1 − β/2 for the two groups of a difference at 1 − β.
fn halved(confidence: Confidence) -> Confidence {
    Confidence::new(1.0 - confidence.beta() / 2.0)
        .unwrap_or_else(|_| unreachable!("β/2 lies in (0, 1/2) when β lies in (0, 1)"))
}

impl PerRecordEstimator {
    /// The range a difference of two targets lies in.
    fn difference_range(&self) -> (f64, f64) {
        let width = self.target_high - self.target_low;
        (-width, width)
    }

    /// `[L_a − U_b, U_a − L_b]` within the difference's range; empty when either group's
    /// interval is (no value of that group's target is consistent with its reports, so no
    /// difference is), computed then from the groups' intervals as computed.
    fn combine(&self, a: Bounds, b: Bounds) -> Bounds {
        let (low, high) = self.difference_range();
        match (a.range(), b.range()) {
            (Some((a_low, a_high)), Some((b_low, b_high))) => {
                Bounds::within(a_low - b_high, a_high - b_low, low, high)
            }
            _ => {
                let ((a_low, a_high), (b_low, b_high)) = (a.computed(), b.computed());
                Bounds::empty(a_low - b_high, a_high - b_low)
            }
        }
    }

    /// `θ̂_a − θ̂_b`; `Ok(None)` when either group has no reports.
    pub fn difference_estimate(&self, a: &[u64], b: &[u64]) -> Result<Option<f64>, DesignError> {
        Ok(match (self.estimate(a)?, self.estimate(b)?) {
            (Some(a), Some(b)) => Some(a - b),
            _ => None,
        })
    }

    /// The Chernoff interval of `θ_a − θ_b`:
    /// `Δ̂ ± W sqrt( ln(2/β)/2 · (1/n_a + 1/n_b) )` (Hoeffding 1963 on the two-sample sum;
    /// see [`DifferenceSummary`]), within `[−(max − min), max − min]` of the target's
    /// range. `Ok(None)` when either group has no reports.
    pub fn difference_chernoff_interval(
        &self,
        a: &[u64],
        b: &[u64],
        confidence: Confidence,
    ) -> Result<Option<Bounds>, DesignError> {
        let (Some(a_counted), Some(b_counted)) = (self.count(a)?, self.count(b)?) else {
            return Ok(None);
        };
        let estimate = self.estimate_of(a, &a_counted) - self.estimate_of(b, &b_counted);
        let inverse_sizes = 1.0 / a_counted.total as f64 + 1.0 / b_counted.total as f64;
        // W sqrt( ln(2/β)/2 · (1/n_a + 1/n_b) )
        let half_width = self.value_width()
            * libm::sqrt(libm::log(2.0 / confidence.beta()) / 2.0 * inverse_sizes);
        let (low, high) = self.difference_range();
        Ok(Some(Bounds::within(
            estimate - half_width,
            estimate + half_width,
            low,
            high,
        )))
    }

    /// The exact interval of `θ_a − θ_b` when w is two-valued: `[L_a − U_b, U_a − L_b]`
    /// from each group's Clopper–Pearson interval at confidence `1 − β/2` (Bonferroni).
    /// `Ok(None)` when either group has no reports or w takes more than two values.
    pub fn difference_exact_interval(
        &self,
        a: &[u64],
        b: &[u64],
        confidence: Confidence,
    ) -> Result<Option<Bounds>, DesignError> {
        let each = halved(confidence);
        Ok(
            match (self.exact_interval(a, each)?, self.exact_interval(b, each)?) {
                (Some(a), Some(b)) => Some(self.combine(a, b)),
                _ => None,
            },
        )
    }

    /// The anytime-valid interval of `θ_a − θ_b`: `[L_a − U_b, U_a − L_b]` from each
    /// group's anytime interval at confidence `1 − β/2`, tuned for the group's planned
    /// respondents. Valid at every moment of the survey at once (union bound over the two
    /// groups' confidence sequences). `Ok(None)` when either group has no reports.
    pub fn difference_anytime_interval(
        &self,
        a: Group<'_>,
        b: Group<'_>,
        confidence: Confidence,
    ) -> Result<Option<Bounds>, DesignError> {
        let each = halved(confidence);
        Ok(
            match (
                self.anytime_interval(a.counts, each, a.planned_respondents)?,
                self.anytime_interval(b.counts, each, b.planned_respondents)?,
            ) {
                (Some(a), Some(b)) => Some(self.combine(a, b)),
                _ => None,
            },
        )
    }

    /// The anytime-valid p-value of `H0: θ_a = θ_b`: the smallest β' at which the anytime
    /// difference interval excludes 0, each group's interval at `1 − β'/2` with its ρ held
    /// at its tuning for `confidence` (so `p < β` exactly when the interval of
    /// [`Self::difference_anytime_interval`] at `confidence` excludes 0, up to the search's
    /// 1e-12 in ln β'; below 10⁻³⁰⁰ it reports 10⁻³⁰⁰). Found by bisection on ln β' and
    /// rounded up. `Ok(None)` when either group has no reports.
    pub fn difference_anytime_p_value(
        &self,
        a: Group<'_>,
        b: Group<'_>,
        confidence: Confidence,
    ) -> Result<Option<f64>, DesignError> {
        let (Some(a_counted), Some(b_counted)) = (self.count(a.counts)?, self.count(b.counts)?)
        else {
            return Ok(None);
        };
        let each = halved(confidence);
        let proxy = self.value_width() * self.value_width() / 4.0;
        // Each group: (estimate, N, V, ρ).
        let group = |group: &Group<'_>, counted: &Counted| {
            let total = counted.total as f64;
            let planned = group.planned_respondents.max(1) as f64 * proxy;
            let scale = anytime_mixture_scale(planned, each);
            let estimate = self.estimate_of(group.counts, counted);
            (estimate, total, total * proxy, scale)
        };
        let (a, b) = (group(&a, &a_counted), group(&b, &b_counted));
        // Each group's interval at 1 − β'/2: `sqrt((V + ρ)(ln(1 + V/ρ) + 2 ln(2/β'))) / N`
        // (the boundary of `normal_mixture_boundary`), from ln β' so that tiny β' stay exact.
        let interval = |(estimate, total, time, scale): (f64, f64, f64, f64), ln_beta: f64| {
            let threshold = 2.0 * (core::f64::consts::LN_2 - ln_beta);
            let half_width =
                libm::sqrt((time + scale) * (libm::log1p(time / scale) + threshold)) / total;
            Bounds::within(
                estimate - half_width,
                estimate + half_width,
                self.target_low,
                self.target_high,
            )
        };
        let excludes_zero = |ln_beta: f64| {
            let difference = self.combine(interval(a, ln_beta), interval(b, ln_beta));
            !difference.contains(0.0)
        };
        // ln β' in [ln 10⁻³⁰⁰, 0]; the β' at which 0 is excluded form an upper range.
        let (mut included, mut excluded) = (-300.0 * core::f64::consts::LN_10, 0.0_f64);
        if !excludes_zero(excluded) {
            return Ok(Some(1.0));
        }
        if excludes_zero(included) {
            return Ok(Some(libm::exp(included)));
        }
        while excluded - included > 1e-12 {
            let middle = 0.5 * (included + excluded);
            if excludes_zero(middle) {
                excluded = middle;
            } else {
                included = middle;
            }
        }
        Ok(Some(libm::exp(excluded).min(1.0)))
    }

    /// Fisher's exact test of `H0: θ_a = θ_b` when w is two-valued (two-sided, R's
    /// `fisher.test` convention; see [`DifferenceSummary`]). Valid at fixed group sizes.
    /// `Ok(None)` when either group has no reports or w takes more than two values.
    pub fn difference_exact_p_value(
        &self,
        a: &[u64],
        b: &[u64],
    ) -> Result<Option<f64>, DesignError> {
        let (Some(a), Some(b)) = (self.count(a)?, self.count(b)?) else {
            return Ok(None);
        };
        if self.high_reports.is_none() {
            return Ok(None);
        }
        Ok(Some(fisher_exact_test(a.high, a.total, b.high, b.total)))
    }

    /// Everything a breakdown shows for the difference between two groups; `Ok(None)` when
    /// either group has no reports.
    pub fn difference(
        &self,
        a: Group<'_>,
        b: Group<'_>,
        confidence: Confidence,
    ) -> Result<Option<DifferenceSummary>, DesignError> {
        let (Some(a_counted), Some(b_counted)) = (self.count(a.counts)?, self.count(b.counts)?)
        else {
            return Ok(None);
        };
        let (Some(chernoff), Some(anytime), Some(anytime_p_value)) = (
            self.difference_chernoff_interval(a.counts, b.counts, confidence)?,
            self.difference_anytime_interval(a, b, confidence)?,
            self.difference_anytime_p_value(a, b, confidence)?,
        ) else {
            return Ok(None);
        };
        Ok(Some(DifferenceSummary {
            n_a: a_counted.total,
            n_b: b_counted.total,
            estimate: self.estimate_of(a.counts, &a_counted)
                - self.estimate_of(b.counts, &b_counted),
            chernoff,
            exact: self.difference_exact_interval(a.counts, b.counts, confidence)?,
            anytime,
            anytime_p_value,
            exact_p_value: self.difference_exact_p_value(a.counts, b.counts)?,
        }))
    }
}
