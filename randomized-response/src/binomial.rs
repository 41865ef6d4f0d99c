//! Binomial probabilities and the two exact tests of R: `binom.test` and `fisher.test`
//! (two-sided), with R's conventions.
//!
//! * The probability mass is Loader's saddle-point form, as R's `dbinom` computes it:
//!   `ln P(X = x) = δ(n) − δ(x) − δ(n − x) − bd0(x, np) − bd0(n − x, nq)
//!   − ½ ln(2π x (1 − x/n))` with δ the error of Stirling's formula and
//!   `bd0(x, m) = x ln(x/m) + m − x` (C. Loader, "Fast and accurate computation of binomial
//!   probabilities", 2000), accurate where the naive `lgamma` form loses digits to
//!   cancellation.
//! * Tails are regularized incomplete beta functions:
//!   `P(X ≤ x) = I_{1−p}(n − x, x + 1)` and `P(X ≥ x) = I_p(x, n − x + 1)`.
//! * Two-sided p-values use R's "minimum likelihood" convention: the probability of every
//!   outcome no more likely than the one observed, with R's relative tolerance `1 + 10⁻⁷`
//!   for ties (R: `binom.test`, `fisher.test`; also SciPy's `binomtest`).

use crate::beta::regularized_incomplete_beta;

/// R's relative tolerance for "no more likely than the observation".
const RELATIVE_TIE: f64 = 1.0 + 1e-7;
/// `ln sqrt(2π)`.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `stirlerr(n) = ln n! − (n + ½) ln n + n − ln sqrt(2π)`, the error of Stirling's formula,
/// for an integer n ≥ 1 (Loader 2000): from `n!` itself up to 15 (exact in f64, so the
/// result is within a few ulps of the logarithm, about 1e-15), else from its series, whose
/// truncation is below 1e-17 there.
fn stirling_error(n: f64) -> f64 {
    if n <= 15.0 {
        let factorial: f64 = (2..=n as u64).map(|k| k as f64).product();
        return libm::log(factorial) - (n + 0.5) * libm::log(n) + n - LN_SQRT_2PI;
    }
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// Loader's deviance term `bd0(x, m) = x ln(x/m) + m − x`, by its series where x is close
/// to m (where the direct form cancels).
fn deviance(x: f64, mean: f64) -> f64 {
    if libm::fabs(x - mean) < 0.1 * (x + mean) {
        let mut v = (x - mean) / (x + mean);
        let mut sum = (x - mean) * v;
        let mut term = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            term *= v;
            let next = sum + term / f64::from(2 * j + 1);
            if next == sum {
                return next;
            }
            sum = next;
        }
        sum
    } else {
        x * libm::log(x / mean) + mean - x
    }
}

/// `ln P(X = x)` for `X ~ Binomial(n, p)`, `0 < p < 1`, integers `0 ≤ x ≤ n` (R's
/// `dbinom_raw`, Loader 2000).
pub(crate) fn ln_binomial_probability(x: u64, n: u64, p: f64) -> f64 {
    let q = 1.0 - p;
    let (x, n) = (x as f64, n as f64);
    if x == 0.0 {
        return if p < 0.1 {
            -deviance(n, n * q) - n * p
        } else {
            n * libm::log(q)
        };
    }
    if x == n {
        return if q < 0.1 {
            -deviance(n, n * p) - n * q
        } else {
            n * libm::log(p)
        };
    }
    let lc = stirling_error(n)
        - stirling_error(x)
        - stirling_error(n - x)
        - deviance(x, n * p)
        - deviance(n - x, n * q);
    let lf = 2.0 * LN_SQRT_2PI + libm::log(x) + libm::log1p(-x / n);
    lc - 0.5 * lf
}

/// `P(X ≤ x)` for `X ~ Binomial(n, p)`.
pub(crate) fn binomial_lower_tail(x: u64, n: u64, p: f64) -> f64 {
    if x >= n {
        1.0
    } else {
        regularized_incomplete_beta((n - x) as f64, x as f64 + 1.0, 1.0 - p)
    }
}

/// `P(X ≥ x)` for `X ~ Binomial(n, p)`.
pub(crate) fn binomial_upper_tail(x: u64, n: u64, p: f64) -> f64 {
    if x == 0 {
        1.0
    } else if x > n {
        0.0
    } else {
        regularized_incomplete_beta(x as f64, (n - x + 1) as f64, p)
    }
}

/// The first k in `[from, to]` with `holds(k)` false, for a predicate true up to some point
/// and false after it (`to + 1` if it holds throughout).
fn first_failing(from: u64, to: u64, holds: impl Fn(u64) -> bool) -> u64 {
    let (mut low, mut high) = (from, to + 1);
    while low < high {
        let middle = low + (high - low) / 2;
        if holds(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// The two-sided exact binomial test of `H0: rate = p` after x successes in n trials, with
/// R's `binom.test` convention (minimum likelihood): the probability under H0 of every
/// outcome whose probability is at most `P(X = x)·(1 + 10⁻⁷)`, at most 1.
///
/// As R: 1 when `x = n p` exactly; otherwise with `m = n p` and `d = P(X = x)`, for `x < m`
/// the outcomes above m no more likely than d are the top `y` of `⌈m⌉..=n` (the mass falls
/// from the mode), so `p = P(X ≤ x) + P(X ≥ n − y + 1)`; for `x > m`, the lowest `y` of
/// `0..=⌊m⌋`, `p = P(X ≤ y − 1) + P(X ≥ x)`. `0 < p < 1`; `x ≤ n`.
pub(crate) fn binomial_test(x: u64, n: u64, p: f64) -> f64 {
    let mean = n as f64 * p;
    let observed = x as f64;
    if observed == mean {
        return 1.0;
    }
    let limit = ln_binomial_probability(x, n, p) + libm::log(RELATIVE_TIE);
    let unlikely = |k: u64| ln_binomial_probability(k, n, p) <= limit;
    let value = if observed < mean {
        let from = libm::ceil(mean) as u64;
        // The outcomes from `from` up that are still more likely: a prefix of the range.
        let first_unlikely = first_failing(from, n, |k| !unlikely(k));
        let count = n + 1 - first_unlikely;
        binomial_lower_tail(x, n, p) + binomial_upper_tail(n - count + 1, n, p)
    } else {
        let to = libm::floor(mean) as u64;
        // The outcomes up to `to` that are no more likely: a prefix of the range.
        let count = first_failing(0, to, unlikely);
        let lower = if count == 0 {
            0.0
        } else {
            binomial_lower_tail(count - 1, n, p)
        };
        lower + binomial_upper_tail(x, n, p)
    };
    value.min(1.0)
}

/// Fisher's exact test (two-sided, R's `fisher.test` for a 2×2 table) of equal success
/// rates in two groups: `x_a` successes of `n_a` against `x_b` of `n_b`.
///
/// Given the margins, the successes of group a are hypergeometric; the p-value is the
/// conditional probability of every table no more likely than the observed one (within
/// R's `1 + 10⁻⁷`), normalized over the support as R normalizes `dhyper`. The masses,
/// relative to the mode's, are built outward from the mode by the ratio
/// `P(i + 1)/P(i) = (m − i)(k − i) / ((i + 1)(l − k + i + 1))` (m successes, l failures,
/// k = n_a drawn), which keeps every term at most 1 (no overflow) at a relative error of
/// about an ulp per step. The observed table's mass, and the first mass of a tail that lies
/// beyond where the total has converged, come from Loader's binomial masses as R's `dhyper`
/// computes them (`ln_relative_mass`), so no walk crosses the stretch between the two. Each
/// walk stops where what lies beyond can no longer change its sums (see [`Sums::walk`]):
/// a test costs O(√n) steps at most (about 18 standard deviations when the groups agree)
/// rather than O(n), and a breakdown of 10⁷ responses tests every group against the rest.
/// P-values below about 10⁻³⁰⁰ (masses below the smallest normal `f64`) are reported as 0.
pub(crate) fn fisher_exact_test(x_a: u64, n_a: u64, x_b: u64, n_b: u64) -> f64 {
    let successes = x_a + x_b;
    let failures = (n_a - x_a) + (n_b - x_b);
    let drawn = n_a;
    let low = drawn.saturating_sub(failures);
    let high = drawn.min(successes);
    if low == high {
        return 1.0;
    }
    let (m, l, k) = (successes as f64, failures as f64, drawn as f64);
    // The mode: ⌊(k + 1)(m + 1)/(m + l + 2)⌋, within the support.
    let mode =
        (((drawn + 1) as f64 * (successes + 1) as f64 / (m + l + 2.0)) as u64).clamp(low, high);
    // ln of the mass at i relative to the mode's: dhyper's two binomial masses at
    // p = k/(m + l), whose common denominator cancels in the ratio.
    let share = k / (m + l);
    let ln_mass = |i: u64| {
        ln_binomial_probability(i, successes, share)
            + ln_binomial_probability(drawn - i, failures, share)
    };
    let ln_mode = ln_mass(mode);
    let ln_relative_mass = |i: u64| ln_mass(i) - ln_mode;
    let ln_observed = ln_relative_mass(x_a);
    if ln_observed < libm::log(f64::MIN_POSITIVE) {
        return 0.0;
    }
    let limit = libm::exp(ln_observed) * RELATIVE_TIE;
    let mut sums = Sums {
        total: 1.0,
        tail: if 1.0 <= limit { 1.0 } else { 0.0 },
        limit,
    };
    // Upward: the table at distance d is mode + d, reached by P(i + 1)/P(i) at i = mode + d − 1.
    sums.side(
        high - mode,
        |d| mode + d,
        |d| {
            let i = (mode + d - 1) as f64;
            (m - i) * (k - i) / ((i + 1.0) * (l - k + i + 1.0))
        },
        &ln_relative_mass,
    );
    // Downward: the table at distance d is mode − d, reached by P(i)/P(i + 1) at i = mode − d.
    sums.side(
        mode - low,
        |d| mode - d,
        |d| {
            let i = (mode - d) as f64;
            (i + 1.0) * (l - k + i + 1.0) / ((m - i) * (k - i))
        },
        &ln_relative_mass,
    );
    (sums.tail / sums.total).min(1.0)
}

/// The sums of Fisher's test: every mass (relative to the mode's) and those no more likely
/// than the observed table's (`limit`).
struct Sums {
    total: f64,
    tail: f64,
    limit: f64,
}

/// Where a walk stopped.
enum Walked {
    /// Nothing further out can change the sums.
    Done,
    /// The total has converged at this distance, but the masses there are still above the
    /// limit: the tail on this side lies further out.
    TailFurther(u64),
}

impl Sums {
    /// One side of the mode, out to `farthest` tables away: `table(d)` is the table at
    /// distance d and `factor(d)` the ratio of its mass to the one at d − 1. The masses are
    /// walked from the mode until the total has converged; if the tail starts further out,
    /// its first table is found by bisection on `ln_relative_mass` (the masses fall away
    /// from the mode) and the tail is walked from there.
    fn side(
        &mut self,
        farthest: u64,
        table: impl Fn(u64) -> u64,
        factor: impl Fn(u64) -> f64,
        ln_relative_mass: &impl Fn(u64) -> f64,
    ) {
        let Walked::TailFurther(converged) = self.walk(1, farthest, 1.0, &factor) else {
            return;
        };
        let ln_limit = libm::log(self.limit);
        let in_tail = |d: u64| ln_relative_mass(table(d)) <= ln_limit;
        if converged == farthest || !in_tail(farthest) {
            return;
        }
        // The first distance in the tail: in (outside, inside].
        let (mut outside, mut inside) = (converged, farthest);
        while inside - outside > 1 {
            let middle = outside + (inside - outside) / 2;
            if in_tail(middle) {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        let first = libm::exp(ln_relative_mass(table(inside)));
        if first < f64::MIN_POSITIVE {
            return;
        }
        self.total += first;
        self.tail += first;
        self.walk(inside + 1, farthest, first, &factor);
    }

    /// Adds the masses at distances `from..=farthest`, each the previous (`mass` at
    /// `from − 1`) times its factor. The factors shrink as the walk goes out (the
    /// hypergeometric is log-concave), so beyond a mass m reached by factor f lies at most
    /// `m·f/(1 − f)`. The walk is done once that is below a quarter-ulp of the tail it
    /// joins (the total is larger still), or once the masses leave the normal range of
    /// `f64` (below it a product by a factor near 1 rounds back to itself, and a walk would
    /// run to the support's end). While the masses are still above the limit it stops
    /// where the rest no longer changes the total, and says so.
    fn walk(
        &mut self,
        from: u64,
        farthest: u64,
        mut mass: f64,
        factor: impl Fn(u64) -> f64,
    ) -> Walked {
        for d in from..=farthest {
            let factor = factor(d);
            mass *= factor;
            if mass < f64::MIN_POSITIVE {
                return Walked::Done;
            }
            self.total += mass;
            let rest = if factor < 1.0 {
                mass * factor / (1.0 - factor)
            } else {
                f64::INFINITY
            };
            if mass <= self.limit {
                self.tail += mass;
                if rest <= self.tail * QUARTER_ULP {
                    return Walked::Done;
                }
            } else if rest <= self.total * QUARTER_ULP {
                return Walked::TailFurther(d);
            }
        }
        Walked::Done
    }
}

/// A quarter of the relative spacing of `f64` around 1: a sum does not change when a term
/// this much smaller is added.
const QUARTER_ULP: f64 = f64::EPSILON / 4.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn the_mass_is_the_binomial_formula() {
        for &(n, p) in &[
            (1_u64, 0.3_f64),
            (10, 0.5),
            (20, 0.013),
            (40, 0.97),
            (100, 0.25),
        ] {
            let mut total = 0.0;
            for x in 0..=n {
                let direct = choose(n, x) * p.powi(x as i32) * (1.0 - p).powi((n - x) as i32);
                let loader = libm::exp(ln_binomial_probability(x, n, p));
                assert!(
                    (loader - direct).abs() <= 1e-13 * direct.max(1e-300),
                    "n = {n}, x = {x}: {loader} vs {direct}"
                );
                total += loader;
            }
            assert!((total - 1.0).abs() < 1e-13);
        }
    }

    #[test]
    fn the_tails_add_up() {
        let (n, p) = (30, 0.37);
        for x in 0..=n {
            let below = binomial_lower_tail(x, n, p);
            let above = binomial_upper_tail(x + 1, n, p);
            assert!((below + above - 1.0).abs() < 1e-13);
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // R's 17 printed digits, as printed
    fn the_binomial_test_is_r_binom_test() {
        // R 4: binom.test(x, n, p)$p.value, printed with 17 digits.
        for &(x, n, p, expected) in &[
            (3_u64, 10_u64, 0.5_f64, 0.343_750_000_000_000_11_f64),
            (0, 10, 0.3, 0.038_839_603_299_999_984),
            (10, 10, 0.3, 5.904_899_999_999_991_5e-6),
            (7, 20, 0.475, 0.371_024_712_879_661_54),
            (503, 2000, 0.525, 5.481_619_152_261_782_9e-137),
            (2, 10, 0.2, 1.0),
            (1, 7, 0.13, 1.0),
            (60, 100, 0.5, 0.056_887_933_640_980_867),
            (40, 100, 0.5, 0.056_887_933_640_980_867),
            (
                13,
                1000,
                0.006_692_850_924_284_855_4,
                0.028_768_461_719_155_713,
            ),
            (5000, 10_000, 0.5, 1.0),
            (4890, 10_000, 0.5, 0.028_519_212_088_873_747),
            (0, 1, 0.5, 1.0),
            (1, 3, 0.75, 0.156_25),
        ] {
            let actual = binomial_test(x, n, p);
            // The tails' lgamma prefactor costs a few 1e-12 at N = 10 000.
            assert!(
                (actual - expected).abs() <= 1e-10 * expected,
                "binom.test({x}, {n}, {p}): {actual} vs R {expected}"
            );
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // R's 17 printed digits, as printed
    fn fishers_test_is_r_fisher_test() {
        // R 4: fisher.test(matrix(c(x_a, x_b, n_a - x_a, n_b - x_b), 2))$p.value.
        for &(x_a, n_a, x_b, n_b, expected) in &[
            (3_u64, 10_u64, 7_u64, 10_u64, 0.178_895_407_997_575_5_f64),
            (0, 10, 10, 10, 1.082_508_822_446_902_8e-5),
            (5, 10, 5, 10, 1.0),
            (12, 40, 30, 60, 0.062_934_125_726_319_79),
            (1, 1, 0, 1, 1.0),
            (45, 100, 60, 100, 0.047_165_485_383_019_262),
            (0, 3, 0, 5, 1.0),
            (400, 1000, 430, 1000, 0.188_133_478_262_12),
            (7, 12, 1, 9, 0.066_873_065_015_479_918),
        ] {
            let actual = fisher_exact_test(x_a, n_a, x_b, n_b);
            assert!(
                (actual - expected).abs() <= 1e-12 * expected,
                "fisher.test({x_a}/{n_a} vs {x_b}/{n_b}): {actual} vs R {expected}"
            );
        }
    }

    #[test]
    fn fishers_test_stops_where_the_rest_cannot_change_its_sums_and_sums_what_the_whole_support_sums(
    ) {
        // The walk over the whole support, without stopping, as the test was written first.
        let whole = |x_a: u64, n_a: u64, x_b: u64, n_b: u64| {
            let (m, l, k) = (
                (x_a + x_b) as f64,
                (n_a - x_a + n_b - x_b) as f64,
                n_a as f64,
            );
            let low = n_a.saturating_sub(n_a - x_a + n_b - x_b);
            let high = n_a.min(x_a + x_b);
            let ratio = |i: u64| {
                let i = i as f64;
                (m - i) * (k - i) / ((i + 1.0) * (l - k + i + 1.0))
            };
            let mode = (((n_a + 1) as f64 * (x_a + x_b + 1) as f64 / (m + l + 2.0)) as u64)
                .clamp(low, high);
            let mut masses = vec![(mode, 1.0_f64)];
            let mut mass = 1.0;
            for i in mode..high {
                mass *= ratio(i);
                masses.push((i + 1, mass));
            }
            mass = 1.0;
            for i in (low..mode).rev() {
                mass /= ratio(i);
                masses.push((i, mass));
            }
            let observed = masses.iter().find(|(i, _)| *i == x_a).unwrap().1;
            let total: f64 = masses.iter().map(|(_, m)| m).sum();
            let tail: f64 = masses
                .iter()
                .filter(|(_, m)| *m <= observed * RELATIVE_TIE)
                .map(|(_, m)| m)
                .sum();
            (tail / total).min(1.0)
        };
        // Groups of millions, equal and unequal shares, near and far from the mode: a third
        // of 10⁷ against the rest at equal report shares (p = 1), one point apart (p ≈ 0.003)
        // and ten (p ≈ 10⁻¹⁹⁷, where the masses on the walks pass through the subnormal
        // range, in which a product by a factor near 1 stops shrinking), and tables so far
        // out that the walk to them underflows (p = 0, found without walking).
        for &(x_a, n_a, x_b, n_b) in &[
            (1_500_000_u64, 3_000_000_u64, 1_501_000_u64, 3_000_000_u64),
            (1_000_000, 3_000_000, 1_020_000, 3_000_000),
            (400_000, 2_000_000, 900_000, 4_000_000),
            (30, 1_000_000, 2_000_000, 4_000_000),
            (1_499_999, 3_333_333, 3_000_000, 6_666_667),
            (1_499_999, 3_333_333, 3_006_666, 6_666_667),
            (1_499_999, 3_333_333, 3_066_666, 6_666_667),
            (1_400_000, 3_333_333, 3_066_666, 6_666_667),
        ] {
            let (fast, reference) = (
                fisher_exact_test(x_a, n_a, x_b, n_b),
                whole(x_a, n_a, x_b, n_b),
            );
            assert!(
                (fast - reference).abs() <= 1e-12 * reference.max(f64::MIN_POSITIVE),
                "{x_a}/{n_a} vs {x_b}/{n_b}: {fast} against the whole support's {reference}"
            );
        }
    }
}
