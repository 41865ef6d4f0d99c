//! One-sided bounds (documented on [`OneSidedSummary`]).

use super::{clopper_pearson, PerRecordEstimator};
use crate::mixture::{one_sided_boundary, one_sided_mixture_scale};
use crate::{Bound, Confidence, DesignError};

/// Which side a one-sided bound limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A lower bound L: "the target is at least L".
    Lower,
    /// An upper bound U: "the target is at most U".
    Upper,
}

/// One-sided bounds: "the target is at most U" (or "at least L") at confidence 1 − β.
///
/// Each two-sided interval of [`PerRecordEstimator`] spends β on two sides; a one-sided
/// bound spends all of it on one, so it is closer to the estimate than the same side of the
/// interval:
///
/// * **Chernoff** (Hoeffding 1963, one-sided): `P(θ̂ − θ ≥ h) ≤ exp(−2Nh²/W²)`, so
///   `U = θ̂ + W sqrt(ln(1/β)/(2N))` and `L = θ̂ − W sqrt(ln(1/β)/(2N))`.
/// * **Exact** (Clopper & Pearson 1934, one-sided), when w is two-valued: the rate ζ of the
///   higher-valued reports has `ζ_U = B⁻¹(1 − β; n_A + 1, N − n_A)` (1 when n_A = N) and
///   `ζ_L = B⁻¹(β; n_A, N − n_A + 1)` (0 when n_A = 0), mapped through `θ = w_min + W ζ`.
/// * **Anytime-valid** (Howard, Ramdas, McAuliffe & Sekhon 2021, the one-sided normal
///   mixture): `U = θ̂ + u(V)/N` with `V = N W²/4` and `u` the smallest
///   boundary at which the half-normal mixture `2 sqrt(ρ/(V + ρ)) e^{S²/(2(V+ρ))} Φ(S/sqrt(V+ρ))`
///   reaches 1/β; with probability 1 − β it holds at every N at once (Ville). ρ is tuned for
///   the planned N as confseq tunes it (the two-sided choice at 2β). This is not the
///   two-sided boundary at β/2 per side, nor the two-sided one at β: it lies between the
///   two-sided boundaries at 2β and at β, close to the former.
///
/// Bounds lie within the target's range ([0, 1] for a share): one beyond the range on its
/// own side is the range's end; one beyond it on the other side (an upper bound below the
/// range's low end) is [`Bound::Empty`]: no value of the target is consistent with the
/// reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneSidedSummary {
    /// The side the bounds limit.
    pub side: Side,
    /// Hoeffding's, valid at a fixed N.
    pub chernoff: Bound,
    /// Clopper–Pearson's, valid at a fixed N, when the per-record value is two-valued.
    pub exact: Option<Bound>,
    /// The one-sided normal mixture's, valid at every N at once.
    pub anytime: Bound,
}

impl PerRecordEstimator {
    /// `θ̂ ± margin` on `side`, within the target's range (or empty).
    fn beyond(&self, estimate: f64, margin: f64, side: Side) -> Bound {
        let bound = match side {
            Side::Lower => estimate - margin,
            Side::Upper => estimate + margin,
        };
        self.bound_within(bound, side)
    }

    /// A bound on `side` within the target's range: see [`Bound`].
    fn bound_within(&self, bound: f64, side: Side) -> Bound {
        Bound::within(
            bound,
            side == Side::Upper,
            self.target_low,
            self.target_high,
        )
    }

    /// The one-sided Chernoff (Hoeffding) bound at confidence 1 − β:
    /// `θ̂ ± W sqrt(ln(1/β)/(2N))` (+ for [`Side::Upper`]), within the target's range (or empty).
    ///
    /// Hoeffding (1963): `P(θ̂ − θ ≤ −h) ≤ exp(−2Nh²/W²) = β`, so `P(θ > U) ≤ β` at every N.
    /// `Ok(None)` when there are no reports.
    pub fn chernoff_bound(
        &self,
        counts: &[u64],
        side: Side,
        confidence: Confidence,
    ) -> Result<Option<Bound>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let estimate = self.estimate_of(counts, &counted);
        // W sqrt(ln(1/β) / (2N))
        let margin = self.value_width()
            * libm::sqrt(libm::log(1.0 / confidence.beta()) / (2.0 * counted.total as f64));
        Ok(Some(self.beyond(estimate, margin, side)))
    }

    /// The one-sided exact (Clopper–Pearson) bound at confidence 1 − β when w is two-valued:
    /// `w_min + W ζ_U` with `ζ_U = B⁻¹(1 − β; n_A + 1, N − n_A)` (1 when n_A = N) for
    /// [`Side::Upper`], `w_min + W ζ_L` with `ζ_L = B⁻¹(β; n_A, N − n_A + 1)` (0 when n_A = 0)
    /// for [`Side::Lower`] (Clopper & Pearson 1934), rounded outward, within the
    /// target's range (or empty). `Ok(None)` with no reports or a w of more than two values.
    pub fn exact_bound(
        &self,
        counts: &[u64],
        side: Side,
        confidence: Confidence,
    ) -> Result<Option<Bound>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        if self.high_reports.is_none() {
            return Ok(None);
        }
        let rate = clopper_pearson(&counted, side, confidence.beta());
        Ok(Some(
            self.bound_within(self.target_at_rate(rate, side), side),
        ))
    }

    /// The one-sided anytime-valid bound at confidence 1 − β: `θ̂ ± u(V)/N` with
    /// `V = N W²/4` and u the one-sided normal-mixture boundary at β (Howard, Ramdas,
    /// McAuliffe & Sekhon 2021; see [`OneSidedSummary`]), within the target's
    /// range (or empty). With probability at least 1 − β it holds at every N at once, so it may be
    /// watched live. ρ is tuned for `planned_respondents`.
    pub fn anytime_bound(
        &self,
        counts: &[u64],
        side: Side,
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<Bound>, DesignError> {
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let estimate = self.estimate_of(counts, &counted);
        let total = counted.total as f64;
        let proxy = self.value_width() * self.value_width() / 4.0;
        let scale = one_sided_mixture_scale(planned_respondents.max(1) as f64 * proxy, confidence);
        let boundary = one_sided_boundary(total * proxy, scale, confidence);
        Ok(Some(self.beyond(estimate, boundary / total, side)))
    }

    /// The three one-sided bounds on `side`; `Ok(None)` when there are no reports.
    pub fn one_sided(
        &self,
        counts: &[u64],
        side: Side,
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<OneSidedSummary>, DesignError> {
        let (Some(chernoff), Some(anytime)) = (
            self.chernoff_bound(counts, side, confidence)?,
            self.anytime_bound(counts, side, confidence, planned_respondents)?,
        ) else {
            return Ok(None);
        };
        Ok(Some(OneSidedSummary {
            side,
            chernoff,
            exact: self.exact_bound(counts, side, confidence)?,
            anytime,
        }))
    }
}
