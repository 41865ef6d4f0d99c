//! `I_x(a, b)` for large a and b near the mean, in a number of operations that does not
//! grow with a + b.
//!
//! The continued fraction needs about `sqrt(a b / (a + b))` terms where x is within a few
//! standard deviations of the mean `a / (a + b)`: exactly where a Clopper–Pearson bound or
//! a p-value puts it, so its cost grows as the square root of the responses. There the
//! uniform asymptotic expansion of Temme, in the form of DiDonato & Morris's `BASYM`
//! (ACM TOMS 18(3), 1992, Algorithm 708, §4), converges instead: with
//! `λ = a − (a + b) x ≥ 0` and `f = a φ(−λ/a) + b φ(λ/b)`, `φ(u) = u − ln(1 + u)`,
//!
//! `I_x(a, b) = (2/√π) e^{−f − Δ(a, b)} Σ_n d_n w₀ⁿ J_n(√f)`,
//!
//! where `Δ(a, b)` is the Stirling correction of `ln B(a, b)`, `w₀ = 1/sqrt(min(a, b)(1 + h))`
//! with `h = min/max`, `J_n` the repeated integrals of the scaled complementary error
//! function (by their two-term recurrence) and `d_n` coefficients from the recurrences of
//! the paper. Every term of the series carries another power of `w₀ ≤ 0.1`, so twenty terms
//! reach the rounding of f64 for the region it is used in (`min(a, b) > 100`,
//! `|λ| ≤ 0.03 min(a, b)`, as Algorithm 708 uses it).
//!
//! The same Stirling route gives the prefactor `x^a (1 − x)^b / B(a, b)` without the
//! cancellation of `ln Γ(a + b) − ln Γ(a) − ln Γ(b)`, whose terms grow as n ln n and leave
//! a relative error of about `n · 10⁻¹⁶` after cancelling ([`ln_front`]).

use core::f64::consts::PI;

/// Below this smaller parameter the prefactor is computed from `lgamma` (the Stirling
/// series' seven terms are below an ulp of its leading one from here up).
const STIRLING_FROM: f64 = 15.0;
/// The expansion's region (Algorithm 708): both parameters above 100…
const EXPANSION_FROM: f64 = 100.0;
/// …and `|λ|` at most this fraction of the smaller one.
const EXPANSION_REACH: f64 = 0.03;
/// Beyond `f = 700`, `e^{−f}` is below 10⁻³⁰⁴: left to the continued fraction, which
/// converges fast that far from the mean.
const EXPANSION_MAX_EXPONENT: f64 = 700.0;
/// The series' terms, in pairs (Algorithm 708's `NUM`).
const SERIES_TERMS: usize = 20;
/// The series stops when a pair of terms adds less than this, relatively.
const SERIES_TOLERANCE: f64 = 1e-17;

/// `φ(u) = u − ln(1 + u)`, for `u > −1`, to a few ulps: by the series of
/// `ln(1 + u) = 2 atanh(r)`, `r = u / (2 + u)`, where the direct form cancels:
/// `φ = 2r² (1/(1 − r) − r (1/3 + r²/5 + r⁴/7 + …))`.
pub(crate) fn log1p_excess(u: f64) -> f64 {
    if !(-0.35..=0.55).contains(&u) {
        return u - libm::log1p(u);
    }
    let r = u / (2.0 + u);
    let r2 = r * r;
    // |r| ≤ 0.22: r² ≤ 0.048, so 12 terms reach 10⁻¹⁷ of the first.
    let mut series = 0.0;
    let mut power = 1.0;
    for k in 1..=13 {
        series += power / f64::from(2 * k + 1);
        power *= r2;
    }
    2.0 * r2 * (1.0 / (1.0 - r) - r * series)
}

/// `δ(x) = ln Γ(x) − ((x − ½) ln x − x + ½ ln 2π)`, Stirling's series, for x ≥ 15
/// (truncated after the x⁻¹³ term, whose successor is below 10⁻¹⁸ there).
fn stirling_correction(x: f64) -> f64 {
    let t = 1.0 / (x * x);
    let series = 1.0 / 12.0
        - t * (1.0 / 360.0
            - t * (1.0 / 1260.0
                - t * (1.0 / 1680.0
                    - t * (1.0 / 1188.0 - t * (691.0 / 360_360.0 - t * (1.0 / 156.0))))));
    series / x
}

/// `Δ(a, b) = δ(a) + δ(b) − δ(a + b)`: `ln B(a, b)` minus its Stirling form.
fn beta_correction(a: f64, b: f64) -> f64 {
    stirling_correction(a) + stirling_correction(b) - stirling_correction(a + b)
}

/// `λ = a − (a + b) x` with one rounding (the product is exact inside the fused
/// multiply-add), so that the distance from the mean keeps its relative precision.
fn distance_from_mean(a: f64, b: f64, x: f64) -> f64 {
    libm::fma(-(a + b), x, a)
}

/// `ln( x^a (1 − x)^b / B(a, b) )` for `a, b > 0`, `0 < x < 1`.
///
/// From `min(a, b) ≥ 15` by Stirling's formula around the mean `x₀ = a/(a + b)`:
/// `a ln(x/x₀) + b ln((1 − x)/(1 − x₀)) + ½ ln(ab/(2π(a + b))) − Δ(a, b)`, the first two
/// as `−(a φ(−λ/a) + b φ(λ/b))` near the mean (they cancel to first order there); below 15
/// from `lgamma`, whose terms are small enough not to cancel much.
pub(crate) fn ln_front(a: f64, b: f64, x: f64) -> f64 {
    if a.min(b) < STIRLING_FROM {
        return libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b)
            + a * libm::log(x)
            + b * libm::log1p(-x);
    }
    let lambda = distance_from_mean(a, b, x);
    let (down, up) = (-lambda / a, lambda / b);
    let exponent = if down.abs() <= 0.5 && up.abs() <= 0.5 {
        -(a * log1p_excess(down) + b * log1p_excess(up))
    } else {
        // Far from the mean: ln(x/x₀) = ln x + ln(1 + b/a), ln((1−x)/(1−x₀)) likewise.
        a * (libm::log(x) + libm::log1p(b / a)) + b * (libm::log1p(-x) + libm::log1p(a / b))
    };
    exponent + 0.5 * libm::log(a / (a + b) * b / (2.0 * PI)) - beta_correction(a, b)
}

/// The expansion of `I_x(a, b)` where it applies, as the parts it is made of.
pub(crate) struct Expansion {
    /// Whether the parameters were swapped (`λ < 0`): then the expansion is of
    /// `I_{1−x}(b, a) = 1 − I_x(a, b)`.
    pub(crate) swapped: bool,
    /// `f + Δ(a, b)`: the tail is `e^{−exponent} · scaled`.
    pub(crate) exponent: f64,
    /// `(2/√π) Σ_n d_n w₀ⁿ J_n`.
    pub(crate) scaled: f64,
    /// `½ ln(ab / (2π(a + b)))`: the prefactor is `e^{−exponent + ln_root}`, so the
    /// tail over the prefactor is `scaled e^{−ln_root}`.
    pub(crate) ln_root: f64,
}

impl Expansion {
    /// The smaller tail itself: `I_x(a, b)` if not swapped, else `1 − I_x(a, b)`.
    pub(crate) fn tail(&self) -> f64 {
        self.scaled * libm::exp(-self.exponent)
    }
}

/// The expansion of `I_x(a, b)` when `min(a, b) > 100`, `|λ| ≤ 0.03 min(a, b)` and the
/// tail is not below 10⁻³⁰⁴; `None` elsewhere (the continued fraction's region).
pub(crate) fn expansion(a: f64, b: f64, x: f64) -> Option<Expansion> {
    let smaller = a.min(b);
    let inside = smaller > EXPANSION_FROM && x > 0.0 && x < 1.0;
    if !inside {
        return None;
    }
    let lambda = distance_from_mean(a, b, x);
    if lambda.abs() > EXPANSION_REACH * smaller {
        return None;
    }
    // Oriented so that x lies below the mean: λ ≥ 0.
    let (swapped, a, b, lambda) = if lambda < 0.0 {
        (true, b, a, -lambda)
    } else {
        (false, a, b, lambda)
    };
    let f = a * log1p_excess(-lambda / a) + b * log1p_excess(lambda / b);
    if f > EXPANSION_MAX_EXPONENT {
        return None;
    }
    let series = temme_series(a, b, f);
    Some(Expansion {
        swapped,
        exponent: f + beta_correction(a, b),
        scaled: core::f64::consts::FRAC_2_SQRT_PI * series,
        ln_root: 0.5 * libm::log(a / (a + b) * b / (2.0 * PI)),
    })
}

/// `exp(z²) erfc(z)` for `0 ≤ z ≤ √700`: within a few ulps, since erfc is, and `z²` is f
/// to within its rounding.
fn scaled_erfc(z: f64, z_squared: f64) -> f64 {
    libm::erfc(z) * libm::exp(z_squared)
}

/// `Σ_n d_n w₀ⁿ J_n(z₀)` of Algorithm 708's `BASYM` for `a, b ≥ 15`, `f = z₀²`.
///
/// The coefficients follow the paper's recurrences (§4): `a_n` from `h` and
/// `r₁ = (b − a)/max(a, b)`; for each power `r = −(i + 1)/2`, `b_n` by the Cauchy-product
/// recurrence `m b_m = r m a_m + Σ_j (j r − (m − j)) a_j b_{m−j}`; `c_i = b_i/(i + 1)`; and
/// `d_i = −(c_i + Σ_j d_{i−j} c_j)`. `J_n` runs by
/// `J_n = 2^{−3/2} (√2 z₀)^{n−1} + (n − 1) J_{n−2}` from `J_0 = (√π/4) exp(z₀²) erfc(z₀)`
/// and `J_1 = 2^{−3/2}`. At most `SERIES_TERMS` terms; each pair is smaller than the last
/// by about `w₀²`.
fn temme_series(a: f64, b: f64, f: f64) -> f64 {
    const ROOT_EIGHTH: f64 = 0.353_553_390_593_273_8; // 2^{−3/2}
    let z0 = libm::sqrt(f);
    let (h, r1, w0) = if a < b {
        let h = a / b;
        (h, (b - a) / b, 1.0 / libm::sqrt(a * (h + 1.0)))
    } else {
        let h = b / a;
        (h, (b - a) / a, 1.0 / libm::sqrt(b * (h + 1.0)))
    };
    let r0 = 1.0 / (h + 1.0);
    let mut coefficient_a = [0.0; SERIES_TERMS + 1];
    let mut coefficient_b = [0.0; SERIES_TERMS + 1];
    let mut coefficient_c = [0.0; SERIES_TERMS + 1];
    let mut coefficient_d = [0.0; SERIES_TERMS + 1];
    coefficient_a[0] = r1 * 2.0 / 3.0;
    coefficient_c[0] = -0.5 * coefficient_a[0];
    coefficient_d[0] = -coefficient_c[0];

    let mut j_even = 0.25 * libm::sqrt(PI) * scaled_erfc(z0, f);
    let mut j_odd = ROOT_EIGHTH;
    let mut sum = j_even + coefficient_d[0] * w0 * j_odd;

    let z = z0 * core::f64::consts::SQRT_2;
    let z_squared = 2.0 * f;
    let (mut h_power, mut h_sum, mut w, mut z_odd, mut z_even) = (1.0, 1.0, w0, z, z_squared);
    for n in (2..=SERIES_TERMS).step_by(2) {
        let nf = n as f64;
        h_power *= h * h;
        coefficient_a[n - 1] = r0 * 2.0 * (h * h_power + 1.0) / (nf + 2.0);
        h_sum += h_power;
        coefficient_a[n] = r1 * 2.0 * h_sum / (nf + 3.0);
        for i in n..=n + 1 {
            let r = -0.5 * (i as f64 + 1.0);
            coefficient_b[0] = r * coefficient_a[0];
            // Plain index loops: this is the inner loop of every evaluation, also in
            // unoptimized test builds.
            for m in 2..=i {
                let mut convolution = 0.0;
                for j in 1..m {
                    convolution += (j as f64 * r - (m - j) as f64)
                        * coefficient_a[j - 1]
                        * coefficient_b[m - j - 1];
                }
                coefficient_b[m - 1] = r * coefficient_a[m - 1] + convolution / m as f64;
            }
            coefficient_c[i - 1] = coefficient_b[i - 1] / (i as f64 + 1.0);
            let mut convolution = 0.0;
            for j in 1..i {
                convolution += coefficient_d[i - j - 1] * coefficient_c[j - 1];
            }
            coefficient_d[i - 1] = -(convolution + coefficient_c[i - 1]);
        }
        j_even = ROOT_EIGHTH * z_odd + (nf - 1.0) * j_even;
        j_odd = ROOT_EIGHTH * z_even + nf * j_odd;
        z_odd *= z_squared;
        z_even *= z_squared;
        w *= w0;
        let even_term = coefficient_d[n - 1] * w * j_even;
        w *= w0;
        let odd_term = coefficient_d[n] * w * j_odd;
        sum += even_term + odd_term;
        if even_term.abs() + odd_term.abs() <= SERIES_TOLERANCE * sum {
            break;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beta::{by_continued_fraction, continued_fraction, regularized_incomplete_beta};

    /// Shapes from 1 to 10⁹, small and large together, equal and lopsided.
    const SHAPES: [f64; 11] = [
        1.0,
        7.0,
        15.0,
        60.0,
        101.0,
        500.0,
        3_001.0,
        1e5,
        1e7,
        123_456_789.0,
        1e9,
    ];
    /// Standard deviations from the mean.
    const OFFSETS: [f64; 17] = [
        -30.0, -8.0, -5.0, -3.0, -2.0, -1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0,
        30.0,
    ];

    /// `x` rounded to a multiple of 2⁻⁴⁸, so that `1 − x` is exact too and both sides of
    /// the symmetry see the same point.
    fn on_grid(x: f64) -> f64 {
        libm::round(x * 2f64.powi(48)) / 2f64.powi(48)
    }

    /// The smaller of `I_x(a, b)` and `1 − I_x(a, b)` by the continued fraction, each on
    /// the side where it converges (the reference).
    fn reference_tail(a: f64, b: f64, x: f64) -> f64 {
        if x < (a + 1.0) / (a + b + 2.0) {
            let lower = libm::exp(ln_front(a, b, x)) * continued_fraction(a, b, x) / a;
            lower.min(1.0 - lower)
        } else {
            let upper = libm::exp(ln_front(a, b, x)) * continued_fraction(b, a, 1.0 - x) / b;
            upper.min(1.0 - upper)
        }
    }

    fn points() -> impl Iterator<Item = (f64, f64, f64)> {
        SHAPES.iter().flat_map(|&a| {
            SHAPES.iter().flat_map(move |&b| {
                let mean = a / (a + b);
                let deviation = libm::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1.0)));
                OFFSETS.iter().filter_map(move |&offset| {
                    let x = on_grid(mean + offset * deviation);
                    (x > 0.0 && x < 1.0).then_some((a, b, x))
                })
            })
        })
    }

    /// Where the continued fraction itself is accurate to better than 1e-12: its rounding
    /// errors grow with its ~sqrt(n) terms and with max(a, b) (about 1e-12 at 10⁷ and 1e-9
    /// at 10⁹, against 40-digit sums: see [`the_function_matches_40_digit_binomial_sums`]).
    const CONTINUED_FRACTION_ACCURATE_TO: f64 = 1e6;

    #[test]
    fn the_expansion_agrees_with_the_continued_fraction_to_1e_12() {
        let mut expanded = 0;
        for (a, b, x) in points() {
            let Some(expansion) = expansion(a, b, x) else {
                continue;
            };
            // The tail over the prefactor, as the consistency e-value uses it.
            let front = libm::exp(ln_front(a, b, x));
            let ratio = expansion.scaled * libm::exp(-expansion.ln_root);
            let direct = expansion.tail() / front;
            assert!(
                (ratio - direct).abs() <= 1e-13 * direct,
                "a = {a}, b = {b}, x = {x}"
            );
            if a.max(b) > CONTINUED_FRACTION_ACCURATE_TO {
                continue;
            }
            expanded += 1;
            let tail = expansion.tail().min(1.0 - expansion.tail());
            let reference = reference_tail(a, b, x);
            assert!(
                (tail - reference).abs() <= 1e-12 * reference,
                "a = {a}, b = {b}, x = {x}: {tail} vs {reference}"
            );
        }
        // The grid reaches into the expansion's region, on both sides of the mean.
        assert!(expanded > 50, "{expanded} points in the expansion's region");
    }

    /// `(a, b, x, tail, which)`: `I_x(a, b)` ("lower") or `1 − I_x(a, b)` ("upper") for
    /// integer a, b as the binomial tail `P[Bin(a + b − 1, x) ≥ a]` (or its complement),
    /// summed term by term in 40-digit arithmetic (mpmath 1.3, `loggamma` for the first
    /// term, the ratio of successive terms after it, out to 14 standard deviations); x on
    /// a grid of 2⁻⁴⁸ at a few standard deviations from the mean.
    #[allow(clippy::excessive_precision)] // the sums' 20 printed digits, as printed
    const HIGH_PRECISION: [(f64, f64, f64, f64, &str); 12] = [
        (
            500.0,
            800.0,
            0.39135939141375786,
            0.30747236507624907047,
            "upper",
        ),
        (
            500.0,
            800.0,
            0.3643833642202665,
            0.066113173583441836875,
            "lower",
        ),
        (
            3001.0,
            100000.0,
            0.029659684636161643,
            0.15864429783701162691,
            "upper",
        ),
        (
            100000.0,
            100000.0,
            0.4977639376126497,
            0.022749996968340948788,
            "lower",
        ),
        (
            1e7,
            1e7,
            0.5002236067921615,
            0.02275013059759296064,
            "upper",
        ),
        (
            1e7,
            1e7,
            0.4999664589811772,
            0.38208858197692920777,
            "lower",
        ),
        (
            10000.0,
            1e9,
            9.899901499466068e-06,
            0.15865118862444689355,
            "lower",
        ),
        (
            123456789.0,
            1e9,
            0.10989943988697704,
            0.15865525377779801527,
            "upper",
        ),
        (
            1e9,
            1e7,
            0.9901067984749403,
            0.0062001112796689394461,
            "upper",
        ),
        (
            1e9,
            1e9,
            0.49996645898034586,
            0.0013498980216481764173,
            "lower",
        ),
        (
            1e9,
            1e9,
            0.5000078262379191,
            0.24196365229809800287,
            "upper",
        ),
        (
            250.0,
            1e9,
            2.97434084473025e-07,
            0.0021886512094971546033,
            "upper",
        ),
    ];

    #[test]
    fn the_function_matches_40_digit_binomial_sums() {
        for (a, b, x, expected, which) in HIGH_PRECISION {
            let value = regularized_incomplete_beta(a, b, x);
            // The side asked for, from the smaller tail as computed (no cancellation).
            let tail = match expansion(a, b, x) {
                Some(expansion) if expansion.swapped == (which == "upper") => expansion.tail(),
                Some(_) | None if which == "lower" => value,
                _ => 1.0 - value,
            };
            let tolerance = if expansion(a, b, x).is_some() {
                1e-14
            } else {
                // The continued fraction's own rounding at a + b ≈ 10⁹.
                1e-8
            };
            assert!(
                (tail - expected).abs() <= tolerance * expected,
                "a = {a}, b = {b}, x = {x}: {tail} vs {expected} ({which})"
            );
        }
    }

    #[test]
    fn the_function_is_the_continued_fraction_outside_the_expansions_region() {
        for (a, b, x) in points() {
            if expansion(a, b, x).is_none() {
                assert_eq!(
                    regularized_incomplete_beta(a, b, x),
                    by_continued_fraction(a, b, x)
                );
            }
        }
    }

    #[test]
    fn the_function_rises_across_the_edges_of_the_expansions_region() {
        for &(a, b) in &[(150.0, 150.0), (400.0, 9_000.0), (2e5, 3e5), (4e8, 6e8)] {
            let mean = a / (a + b);
            let deviation = libm::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1.0)));
            // From 40 deviations below the mean to 40 above, in steps of a tenth: across
            // both edges |λ| = 0.03 min(a, b) wherever they lie within.
            let mut previous = 0.0;
            for step in -400..=400 {
                let x = mean + f64::from(step) * 0.1 * deviation;
                if !(x > 0.0 && x < 1.0) {
                    continue;
                }
                let value = regularized_incomplete_beta(a, b, x);
                assert!(value >= previous, "a = {a}, b = {b}, x = {x}");
                assert!((0.0..=1.0).contains(&value));
                previous = value;
            }
        }
    }

    #[test]
    fn the_prefactor_is_lgammas_where_lgamma_is_accurate() {
        // Below a few thousand, lgamma's cancellation costs less than 1e-13.
        for &(a, b) in &[
            (15.0, 15.0),
            (20.0, 700.0),
            (333.0, 1_000.0),
            (2_000.0, 2_500.0),
        ] {
            for &x in &[0.01, 0.2, 0.5, 0.9] {
                let stirling = ln_front(a, b, x);
                let lgamma = libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b)
                    + a * libm::log(x)
                    + b * libm::log1p(-x);
                assert!(
                    (stirling - lgamma).abs() <= 1e-12 * (1.0 + lgamma.abs()),
                    "a = {a}, b = {b}, x = {x}: {stirling} vs {lgamma}"
                );
            }
        }
    }

    #[test]
    fn the_log1p_excess_is_u_minus_ln_1_plus_u() {
        for &u in &[
            -0.9, -0.35, -0.2, -1e-3, -1e-9, 0.0, 1e-12, 1e-4, 0.1, 0.3, 0.55, 3.0,
        ] {
            let direct = u - libm::log1p(u);
            let series = log1p_excess(u);
            // The direct form is exact enough where |u| is not small; near 0 use u²/2 − u³/3.
            if u.abs() < 1e-3 {
                let taylor: f64 = (2..=8).map(|k| (-u).powi(k) / f64::from(k)).sum();
                assert!((series - taylor).abs() <= 1e-14 * taylor.abs(), "u = {u}");
            } else {
                assert!((series - direct).abs() <= 1e-13 * direct.abs(), "u = {u}");
            }
        }
    }
}
