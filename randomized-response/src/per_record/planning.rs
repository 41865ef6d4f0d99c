//! The planner: how many respondents each interval needs for a given half-width.
//!
//! * **Chernoff** ([`PerRecordEstimator::respondents_needed`]): Hoeffding's bound solved for
//!   N, valid whatever the truth and however the reports fall.
//! * **Exact**: the smallest N whose Clopper–Pearson interval is within the half-width at a
//!   report rate of ½ of the higher value, where it is widest: the count for a survey whose
//!   size is fixed in advance.
//! * **Anytime**: the smallest N whose anytime interval, tuned for N planned respondents, is
//!   within the half-width at N (its width depends on N only): the count for a survey watched
//!   live. At 95 % it is about 1.25 times Chernoff's, the exact one about 0.55 times.
//!
//! Both searches double from Chernoff's count and then bisect, so each returns the N with
//! `half-width(N) ≤ target < half-width(N − 1)` (the half-widths shrink as N grows).

use super::PerRecordEstimator;
use crate::estimate::normal_mixture_boundary;
use crate::{anytime_mixture_scale, Confidence, DesignError};

/// The most respondents a search tries: beyond it, [`u64::MAX`] ("more than any survey").
const SEARCH_CEILING: u64 = 1 << 40;

impl PerRecordEstimator {
    /// The exact interval's half-width at N reports, at its widest: `⌊N/2⌋` reports of the
    /// higher value (a report rate of ½). `Ok(None)` when w takes more than two values (no
    /// exact interval) or N = 0.
    pub fn widest_exact_half_width(
        &self,
        n: u64,
        confidence: Confidence,
    ) -> Result<Option<f64>, DesignError> {
        let Some(high_reports) = self.high_reports else {
            return Ok(None);
        };
        let mut counts = [0_u64; crate::MAX_OPTIONS];
        let high = high_reports.trailing_zeros() as usize;
        let low = (0..self.reports)
            .find(|&report| high_reports >> report & 1 == 0)
            .unwrap_or(high);
        counts[high] += n / 2;
        counts[low] += n - n / 2;
        Ok(self
            .exact_interval(&counts[..self.reports], confidence)?
            .map(|interval| interval.half_width()))
    }

    /// The anytime interval's half-width at N reports when tuned for N planned respondents:
    /// `sqrt( (V + ρ)(ln(1 + V/ρ) + 2 ln(1/β)) ) / N` with `V = N W²/4` and ρ from
    /// [`anytime_mixture_scale`] at V (Howard, Ramdas, McAuliffe & Sekhon 2021). It does not
    /// depend on the counts. `None` when N = 0.
    pub fn tuned_anytime_half_width(&self, n: u64, confidence: Confidence) -> Option<f64> {
        if n == 0 {
            return None;
        }
        let total = n as f64;
        let time = total * self.value_width() * self.value_width() / 4.0;
        let scale = anytime_mixture_scale(time, confidence);
        Some(normal_mixture_boundary(time, scale, confidence) / total)
    }

    /// Respondents for the exact interval: the smallest N whose widest exact half-width
    /// ([`Self::widest_exact_half_width`]) is at most `half_width`; `Ok(None)` when w takes
    /// more than two values; [`u64::MAX`] when even 2^40 is not enough.
    pub fn exact_respondents_needed(
        &self,
        half_width: f64,
        confidence: Confidence,
    ) -> Result<Option<u64>, DesignError> {
        if !self.is_two_valued() {
            return Ok(None);
        }
        let guess = self.respondents_needed(half_width, confidence)?;
        smallest_size(guess, |n| {
            Ok(self
                .widest_exact_half_width(n, confidence)?
                .is_some_and(|width| width <= half_width))
        })
        .map(Some)
    }

    /// Respondents for the anytime interval tuned for them: the smallest N whose
    /// [`Self::tuned_anytime_half_width`] is at most `half_width`; [`u64::MAX`] when even
    /// 2^40 is not enough.
    pub fn anytime_respondents_needed(
        &self,
        half_width: f64,
        confidence: Confidence,
    ) -> Result<u64, DesignError> {
        let guess = self.respondents_needed(half_width, confidence)?;
        smallest_size(guess, |n| {
            Ok(self
                .tuned_anytime_half_width(n, confidence)
                .is_some_and(|width| width <= half_width))
        })
    }
}

/// The smallest n ≥ 1 for which `enough(n)` holds (it holds for every larger n), searched by
/// doubling from `guess` then bisection; [`u64::MAX`] when even [`SEARCH_CEILING`] is not
/// enough.
fn smallest_size(
    guess: u64,
    enough: impl Fn(u64) -> Result<bool, DesignError>,
) -> Result<u64, DesignError> {
    let mut high = guess.clamp(1, SEARCH_CEILING);
    while !enough(high)? {
        if high >= SEARCH_CEILING {
            return Ok(u64::MAX);
        }
        high = (high * 2).min(SEARCH_CEILING);
    }
    let mut low = 0; // not enough (or nothing)
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if enough(middle)? {
            high = middle;
        } else {
            low = middle;
        }
    }
    Ok(high)
}
