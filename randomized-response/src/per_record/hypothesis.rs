//! Tests of `H0: θ = θ0` with p-values: anytime-valid (for a survey watched live) and exact
//! (for a survey whose size was fixed in advance, once closed).

use super::PerRecordEstimator;
use crate::binomial::binomial_test;
use crate::mixture::two_sided_ln_e_value;
use crate::{anytime_mixture_scale, Confidence, DesignError};

impl PerRecordEstimator {
    /// Refuses a hypothesised value outside the target's range (or not a number).
    pub(crate) fn check_null(&self, null: f64) -> Result<(), DesignError> {
        if (self.target_low..=self.target_high).contains(&null) {
            Ok(())
        } else {
            Err(DesignError::NullValue {
                value: null,
                low: self.target_low,
                high: self.target_high,
            })
        }
    }

    /// `ln E`, the logarithm of the anytime-valid e-value against `H0: θ = θ0`: the
    /// two-sided normal mixture of the centred sum `S = Σ (w − θ0) = N(θ̂ − θ0)` at
    /// intrinsic time `V = N W²/4`,
    /// `ln E = ½ ln(ρ/(V + ρ)) + S² / (2(V + ρ))`,
    /// with ρ tuned as [`Self::anytime_interval`] tunes it (for `confidence` and
    /// `planned_respondents`). `Ok(None)` when there are no reports.
    ///
    /// Under H0 each `w − θ0` has mean 0 and a range of width W, so (Hoeffding's lemma) E is
    /// a nonnegative supermartingale with `E_0 = 1` (Robbins 1970; Howard, Ramdas, McAuliffe
    /// & Sekhon 2021): by Ville's inequality `P(∃N: E_N ≥ 1/α) ≤ α` for every α.
    pub fn anytime_ln_e_value(
        &self,
        counts: &[u64],
        null: f64,
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<f64>, DesignError> {
        self.check_null(null)?;
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        let total = counted.total as f64;
        let estimate = self.estimate_of(counts, &counted);
        let proxy = self.value_width() * self.value_width() / 4.0;
        let scale = anytime_mixture_scale(planned_respondents.max(1) as f64 * proxy, confidence);
        let sum = total * (estimate - null);
        Ok(Some(two_sided_ln_e_value(sum, total * proxy, scale)))
    }

    /// The anytime-valid p-value of `H0: θ = θ0`: `p = min(1, 1/E)` with E the e-value of
    /// [`Self::anytime_ln_e_value`] (Ramdas, Grünwald, Vovk & Shafer 2023, "Game-theoretic
    /// statistics and safe anytime-valid inference", Statistical Science 38(4)).
    ///
    /// `P(∃N: p_N ≤ α) ≤ α` under H0 (Ville's inequality), so a researcher may look after
    /// every report and stop as soon as p is small: a true H0 is rejected at level α at most
    /// a fraction α of the time. The running minimum of the p-values seen so far is valid
    /// too. With the same ρ, `p < β` exactly when θ0 lies outside the (unclipped) anytime
    /// interval at confidence 1 − β. `Ok(None)` when there are no reports.
    pub fn anytime_p_value(
        &self,
        counts: &[u64],
        null: f64,
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<f64>, DesignError> {
        Ok(self
            .anytime_ln_e_value(counts, null, confidence, planned_respondents)?
            .map(|ln_e| libm::exp(-ln_e).min(1.0)))
    }

    /// The exact two-sided p-value of `H0: θ = θ0` when w is two-valued: the reports of the
    /// higher value, `n_A` of N, are `Binomial(N, ζ0)` under H0 with
    /// `ζ0 = (θ0 − w_min)/W`, and the p-value is R's `binom.test(n_A, N, ζ0)` (two-sided,
    /// "minimum likelihood": the H0 probability of every count no more likely than `n_A`,
    /// ties within a relative 10⁻⁷; see module `binomial`). Valid at a fixed N only.
    ///
    /// This convention is not the dual of the (central) Clopper–Pearson interval: near the
    /// interval's ends p may fall below β while θ0 is inside it, or the other way round, as
    /// with R's `binom.test`. `Ok(None)` with no reports or a w of more than two values.
    pub fn exact_p_value(&self, counts: &[u64], null: f64) -> Result<Option<f64>, DesignError> {
        self.check_null(null)?;
        let Some(counted) = self.count(counts)? else {
            return Ok(None);
        };
        if self.high_reports.is_none() {
            return Ok(None);
        }
        let rate = ((null - self.lowest) / self.value_width()).clamp(0.0, 1.0);
        // Every design's rate lies strictly inside (0, 1); guard the degenerate ends anyway.
        let p_value = if rate <= 0.0 {
            f64::from(u8::from(counted.high == 0))
        } else if rate >= 1.0 {
            f64::from(u8::from(counted.high == counted.total))
        } else {
            binomial_test(counted.high, counted.total, rate)
        };
        Ok(Some(p_value))
    }
}
