//! Estimation from a design's matrix: the inverse in closed form and its estimators.

use super::{Design, Shares, MAX_OPTIONS, ONE};
use crate::per_record::PerRecordEstimator;
use crate::DesignError;

impl Design {
    /// `(P⁻¹)[report][option]`: the per-record unbiased value of option `option` when
    /// `report` is observed, in closed form.
    ///
    /// Report frequencies are `f = Pᵀπ`, so `π = P^{-T} f` and
    /// `π̂_i = Σ_r (P⁻¹)[r][i] · n_r / N`, unbiased because `E[n_r / N] = f_r`.
    /// * 2×2: with cells c (units of 2^-64) and `d = c[1][1] − c[0][1]` (the determinant
    ///   times 2^64, since rows sum to 2^64): `P⁻¹ = [[c11, −c01], [−c10, c00]] / d`. For
    ///   "yes", `(report − P[no][yes]) / (P[yes][yes] − P[no][yes])`: Warner's
    ///   `(ŷ − q)/(2p − 1)`, and `rr`'s `(ŷ − d)/c` for forced response and unrelated question.
    /// * k-ary with diagonal a and off-diagonal b: `P = (a − b)I + bJ` and `a + (k−1)b = 1`,
    ///   so `P⁻¹ = (I − bJ)/(a − b)`: `(1[r = i] − b)/(a − b)`, Wang et al.'s
    ///   `(n_i/N − q)/(p − q)`.
    fn inverse_entry(&self, report: usize, option: usize) -> f64 {
        if self.size == 2 {
            let cell = |truth, report| self.cell(truth, report) as f64;
            let determinant = (self.cell(1, 1) - self.cell(0, 1)) as f64;
            let numerator = match (report, option) {
                (0, 0) => cell(1, 1),
                (0, _) => -cell(0, 1),
                (_, 0) => -cell(1, 0),
                _ => cell(0, 0),
            };
            numerator / determinant
        } else {
            let (same, other) = (self.cell(0, 0), self.cell(0, 1));
            let difference = (same - other) as f64;
            if report == option {
                (ONE - u128::from(other)) as f64 / difference
            } else {
                -(other as f64) / difference
            }
        }
    }

    /// The estimator of the true share of answer `option`: per record
    /// `w(r) = (P⁻¹)[r][option]` (see [`Self::estimate_distribution`]), two-valued, so its
    /// Chernoff, exact (Clopper–Pearson) and anytime intervals all apply.
    ///
    /// Each option's intervals hold for that option at the chosen confidence, not for all
    /// options at once: for simultaneous coverage of k options use confidence `1 − β/k`
    /// (Bonferroni).
    pub fn option_estimator(&self, option: usize) -> Result<PerRecordEstimator, DesignError> {
        self.check_answer(option)?;
        let mut values = [0.0; MAX_OPTIONS];
        for (report, value) in values.iter_mut().take(self.size).enumerate() {
            *value = self.inverse_entry(report, option);
        }
        Ok(PerRecordEstimator::new(&values[..self.size], 0.0, 1.0))
    }

    /// The estimator of the mean level `Σ_i i·π_i` of an ordinal question (levels
    /// `0..k`): per record `w(r) = Σ_i i·(P⁻¹)[r][i]`, for k-ary `(r − b·k(k−1)/2)/(a − b)`,
    /// in a range of width `(k − 1)/(a − b)`. It takes k values, so it has Chernoff and
    /// anytime intervals but no exact one (unless k = 2).
    pub fn mean_level_estimator(&self) -> PerRecordEstimator {
        let mut values = [0.0; MAX_OPTIONS];
        for (report, value) in values.iter_mut().take(self.size).enumerate() {
            *value = (0..self.size)
                .map(|level| level as f64 * self.inverse_entry(report, level))
                .sum();
        }
        PerRecordEstimator::new(&values[..self.size], 0.0, (self.size - 1) as f64)
    }

    /// The unbiased estimate of the distribution of true answers, `P^{-T} f̂` with
    /// `f̂_r = n_r / N` (matrix inversion; Warner 1965 for 2×2, Wang et al. 2017 for k-ary).
    /// Its entries add up to 1 and may fall outside [0, 1]; clip them for display only.
    /// `Ok(None)` when there are no reports.
    pub fn estimate_distribution(&self, counts: &[u64]) -> Result<Option<Shares>, DesignError> {
        let mut values = [0.0; MAX_OPTIONS];
        for (option, value) in values.iter_mut().take(self.size).enumerate() {
            match self.option_estimator(option)?.estimate(counts)? {
                Some(estimate) => *value = estimate,
                None => return Ok(None),
            }
        }
        Ok(Some(Shares {
            values,
            len: self.size,
        }))
    }
}
