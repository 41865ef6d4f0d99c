//! Whether a question's reports can have come from its design: an anytime-valid e-value.
//!
//! Whatever the respondents' true answers, a design's report r is sent with probability
//! `f_r = Σ_t π_t P[t][r]`, a mixture of column r, so at least `b_r = min_t P[t][r]`. For a
//! yes/no design that is `P[no][yes] ≤ f_yes ≤ P[yes][yes]` (the lower bound of "no" is the
//! upper bound of "yes"); for k-ary randomized response, where `f = b + (a − b)π`, the k lower
//! bounds `f_r ≥ b` are exactly the frequencies some distribution of answers produces; for a
//! number, reported through the mirrored design on its ends, `q ≤ f_max ≤ p`. Reports that
//! say "yes" a quarter of the time when the design cannot produce less than 47.5 % (ε = 0.1)
//! are fake or come from a faulty client, and the estimate they give means nothing.
//!
//! **The e-value.** For each report r, the indicator of "report r" is a Bernoulli with a
//! rate (varying from respondent to respondent, even adaptively) at least `b_r` under
//! `H0: every report's rate is at least b_r`. Against the rates ζ below `b_r`, the likelihood
//! ratio of the stream, `Π (ζ/b)^{x}((1 − ζ)/(1 − b))^{1−x}`, has conditional expectation
//! `f ζ/b + (1 − f)(1 − ζ)/(1 − b) ≤ 1` for every `f ≥ b` (it decreases in f and is 1 at
//! `f = b`): a nonnegative supermartingale under H0 with initial value 1. Mixing ζ uniformly
//! over `(0, b)` (Robbins 1970; Lai 1976) gives, after N reports of which `n_r` are r,
//! `E_r = ∫_0^b ζ^{n}(1 − ζ)^{N−n} dζ / (b^{n+1}(1 − b)^{N−n}) = B(n+1, N−n+1) I_b(n+1, N−n+1) / (b^{n+1}(1 − b)^{N−n})`,
//! and the average over reports `E = (1/k) Σ_r E_r` is a supermartingale too. By Ville's
//! inequality `P(∃N: E_N ≥ 1/α) ≤ α` under H0: the check may run after every report
//! (Ramdas, Grünwald, Vovk & Shafer 2023 on e-processes and anytime validity).
//!
//! **The flag.** The reports are flagged as inconsistent with the design when
//! `E ≥ 1/α` with [`CONSISTENCY_ALPHA`] = 0.001: honest reports raise a false flag, ever, in
//! at most one survey in a thousand, however often the results are refreshed.
//!
//! References: H. Robbins, "Statistical methods related to the law of the iterated
//! logarithm", Ann. Math. Statist. 41(5), 1970; T. L. Lai, "On confidence sequences", Ann.
//! Statist. 4(2), 1976; J. Ville, 1939; A. Ramdas, P. Grünwald, V. Vovk, G. Shafer,
//! "Game-theoretic statistics and safe anytime-valid inference", Statistical Science 38(4),
//! 2023.

use crate::beta::{continued_fraction, expansion, ln_front, regularized_incomplete_beta};
use crate::{Design, DesignError, Mechanism, NumberDesign};

/// The level α of the consistency flag: reports are flagged when their e-value reaches
/// `1/α` = 1 000, which honest reports do, ever, with probability at most α (Ville).
pub const CONSISTENCY_ALPHA: f64 = 0.001;

/// The anytime-valid e-value of a question's reports against its design (see the
/// [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Consistency {
    ln_e_value: f64,
}

impl Consistency {
    /// `ln E`: 0 before any report, large when the reports contradict the design.
    pub fn ln_e_value(self) -> f64 {
        self.ln_e_value
    }

    /// E itself (infinite when it exceeds the largest f64).
    pub fn e_value(self) -> f64 {
        libm::exp(self.ln_e_value)
    }

    /// The anytime-valid p-value `min(1, 1/E)`.
    pub fn p_value(self) -> f64 {
        libm::exp(-self.ln_e_value).min(1.0)
    }

    /// Whether E has reached `1/α` for a chosen α in (0, 1).
    pub fn flagged_at(self, alpha: f64) -> bool {
        self.ln_e_value >= libm::log(1.0 / alpha)
    }

    /// Whether E has reached `1/`[`CONSISTENCY_ALPHA`] = 1 000: the reports contradict the
    /// design, and the estimate should not be shown as a finding.
    pub fn flagged(self) -> bool {
        self.flagged_at(CONSISTENCY_ALPHA)
    }
}

/// `ln E_r` for `count` reports of r out of `total`, with lower bound `floor` on its rate:
/// `ln( B(n+1, N−n+1) I_b(n+1, N−n+1) / (b^{n+1} (1 − b)^{N−n}) )`, that is
/// `ln(1 − b) + ln( I_b(a, c) / F )` with `a = n + 1`, `c = N − n + 1` and the prefactor
/// `F = b^a (1 − b)^c / B(a, c)`.
///
/// Near the mean with a and c large, the asymptotic expansion gives `I/F` directly (below
/// the mean, with no exponential at all), in a fixed number of operations. Elsewhere, where
/// `b < (a + 1)/(a + c + 2)`, the continued fraction gives `I/F = cf/a` without any
/// cancellation; above it (reports of r rarer than b: the evidence side) the complement
/// `1 − I_{1−b}(c, a)` is used in logarithms.
fn ln_report_e_value(count: u64, total: u64, floor: f64) -> f64 {
    let a = count as f64 + 1.0;
    let c = (total - count) as f64 + 1.0;
    if let Some(expansion) = expansion(a, c, floor) {
        let ln_ratio = if expansion.swapped {
            libm::log1p(-expansion.tail()) - ln_front(a, c, floor)
        } else {
            libm::log(expansion.scaled) - expansion.ln_root
        };
        return libm::log1p(-floor) + ln_ratio;
    }
    if floor < (a + 1.0) / (a + c + 2.0) {
        libm::log1p(-floor) + libm::log(continued_fraction(a, c, floor) / a)
    } else {
        let below = 1.0 - regularized_incomplete_beta(c, a, 1.0 - floor);
        libm::log1p(-floor) + libm::log(below) - ln_front(a, c, floor)
    }
}

/// `ln((1/k) Σ exp(terms))` without overflow.
fn ln_mean_exp(terms: &[f64]) -> f64 {
    let largest = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if largest.is_infinite() {
        return largest;
    }
    let sum: f64 = terms.iter().map(|&t| libm::exp(t - largest)).sum();
    largest + libm::log(sum / terms.len() as f64)
}

impl Design {
    /// The lowest rate at which report r can be sent, whatever the true answers:
    /// `min_t P[t][r]` (the realized matrix).
    pub fn report_floor(&self, report: usize) -> Result<f64, DesignError> {
        if report >= self.answers() {
            return Err(DesignError::ReportOutOfRange {
                report,
                reports: self.answers(),
            });
        }
        Ok((0..self.answers())
            .map(|truth| self.probability(truth, report))
            .fold(1.0, f64::min))
    }

    /// `ln E_r`, report r's term of [`Self::consistency`] for these counts: the uniform
    /// mixture of likelihood ratios against rates of `report` below its floor, after
    /// `counts[report]` reports of it among all. It falls as that count grows with the total
    /// fixed; E is the mean of the k terms, so it never exceeds the largest.
    pub fn report_ln_e_value(&self, counts: &[u64], report: usize) -> Result<f64, DesignError> {
        let total = self.total_reports(counts)?;
        let floor = self.report_floor(report)?;
        Ok(ln_report_e_value(counts[report], total, floor))
    }

    /// N, after checking that there is one count per report.
    fn total_reports(&self, counts: &[u64]) -> Result<u64, DesignError> {
        if counts.len() != self.answers() {
            return Err(DesignError::CountsLength {
                expected: self.answers(),
                got: counts.len(),
            });
        }
        counts
            .iter()
            .try_fold(0_u64, |sum, &count| sum.checked_add(count))
            .ok_or(DesignError::CountOverflow)
    }

    /// The anytime-valid e-value of the report counts (one per report) against "these
    /// reports come from this design, for some true answers": `E = (1/k) Σ_r E_r` with
    /// `E_r` the uniform mixture of likelihood ratios against rates of report r below
    /// `min_t P[t][r]` (see the [module documentation](self)). `E = 1` with no reports.
    pub fn consistency(&self, counts: &[u64]) -> Result<Consistency, DesignError> {
        let size = self.answers();
        let total = self.total_reports(counts)?;
        let mut terms = [0.0; crate::MAX_OPTIONS];
        for (report, term) in terms.iter_mut().take(size).enumerate() {
            *term = ln_report_e_value(counts[report], total, self.report_floor(report)?);
        }
        Ok(Consistency {
            ln_e_value: ln_mean_exp(&terms[..size]),
        })
    }
}

impl NumberDesign {
    /// The consistency e-value of the counts of the two ends (min, max), against the
    /// mirrored design on the ends: each end's rate lies in `[q, p]`.
    pub fn consistency(&self, counts: &[u64]) -> Result<Consistency, DesignError> {
        self.ends().consistency(counts)
    }
}

impl Mechanism {
    /// The consistency e-value of the report counts against the mechanism's matrix
    /// ([`Design::consistency`]).
    pub fn consistency(&self, counts: &[u64]) -> Result<Consistency, DesignError> {
        self.matrix().consistency(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ln E_r` by numerical integration of `(ζ/b)^n ((1 − ζ)/(1 − b))^{N−n} / b` over (0, b).
    fn integrated(count: u64, total: u64, floor: f64) -> f64 {
        let steps = 200_000;
        let (n, rest) = (count as f64, (total - count) as f64);
        let mut sum = 0.0;
        for i in 0..steps {
            let zeta = floor * (i as f64 + 0.5) / steps as f64;
            let log = n * libm::log(zeta / floor) + rest * libm::log((1.0 - zeta) / (1.0 - floor));
            sum += libm::exp(log);
        }
        libm::log(sum / steps as f64)
    }

    #[test]
    fn the_report_e_value_by_the_expansion_is_the_continued_fractions() {
        // Counts around the floor's expectation at N = 10⁶, where the expansion serves and
        // the continued fraction is still accurate to about 1e-13 (module beta::large).
        let (total, floor) = (1_000_000_u64, 0.475);
        let expected = floor * total as f64;
        for offset in [-3_000.0, -1_000.0, -300.0, 0.0, 300.0, 1_000.0, 3_000.0] {
            let count = (expected + offset) as u64;
            let (a, c) = (count as f64 + 1.0, (total - count) as f64 + 1.0);
            assert!(expansion(a, c, floor).is_some(), "offset {offset}");
            let reference = if floor < (a + 1.0) / (a + c + 2.0) {
                libm::log1p(-floor) + libm::log(continued_fraction(a, c, floor) / a)
            } else {
                let upper = libm::exp(ln_front(c, a, 1.0 - floor))
                    * continued_fraction(c, a, 1.0 - floor)
                    / c;
                // I_b(a, c) = 1 − I_{1−b}(c, a).
                libm::log1p(-floor) + libm::log1p(-upper) - ln_front(a, c, floor)
            };
            let value = ln_report_e_value(count, total, floor);
            assert!(
                (value - reference).abs() <= 1e-10 * (1.0 + reference.abs()),
                "count = {count}: {value} vs {reference}"
            );
        }
    }

    #[test]
    fn the_report_e_value_is_the_mixture_integral_on_both_branches() {
        for &(count, total, floor) in &[
            (0_u64, 0_u64, 0.3),
            (0, 1, 0.3),
            (1, 1, 0.3),
            (3, 20, 0.475),
            (10, 20, 0.475),
            (19, 20, 0.475),
            (40, 100, 0.05),
            (0, 50, 0.02),
            (503, 2000, 0.475),
        ] {
            let formula = ln_report_e_value(count, total, floor);
            let numeric = integrated(count, total, floor);
            assert!(
                (formula - numeric).abs() < 1e-6 * (1.0 + numeric.abs()),
                "n = {count}, N = {total}, b = {floor}: {formula} vs {numeric}"
            );
        }
        // Nothing observed: E = 1.
        assert!(ln_report_e_value(0, 0, 0.3).abs() < 1e-15);
    }
}
