//! Normal-mixture e-values and boundaries (Howard, Ramdas, McAuliffe & Sekhon 2021), the
//! one construction behind every anytime-valid statement of the crate.
//!
//! Let `S_t = Σ_{i ≤ t} (w_i − θ)` be a centred sum of per-record values that each lie in a
//! range of width W. By Hoeffding's lemma each increment is sub-Gaussian with variance
//! proxy `W²/4`, so for every real λ, `exp(λ S_t − λ² V_t / 2)` with intrinsic time
//! `V_t = t W²/4` is a nonnegative supermartingale with initial value 1. A mixture over λ
//! is one too, and Ville's inequality (Ville 1939) bounds the chance that it ever reaches
//! `1/β` by β. Two mixtures have closed forms (Robbins 1970; Howard et al. 2021, §3, the
//! one- and two-sided normal mixtures, also confseq's `normal_mixture_bound`):
//!
//! * **two-sided**, λ ~ N(0, 1/ρ): `E_t = sqrt(ρ/(V + ρ)) · exp(S² / (2(V + ρ)))`, which
//!   reaches `1/β` exactly when `|S| ≥ sqrt((V + ρ)(ln(1 + V/ρ) + 2 ln(1/β)))`: the
//!   boundary of [`crate::anytime_interval`]. The whole β goes to the two sides together
//!   (`2 ln(1/β) = ln(1/β²)`, not `β/2` per side);
//! * **one-sided**, λ ≥ 0 with the half-normal density `2 N(0, 1/ρ)`:
//!   `E_t = 2 sqrt(ρ/(V + ρ)) · exp(S² / (2(V + ρ))) · Φ(S / sqrt(V + ρ))`, which only grows
//!   with S. Its boundary at β has no closed form; `sqrt(2(V + ρ) ln(1 + sqrt(1 + V/ρ)/(2β)))`
//!   bounds it from above, and [`one_sided_boundary`] finds it by Newton's method from that
//!   bound. Since `1/2 ≤ Φ ≤ 1` for `S ≥ 0`, it lies between the two-sided
//!   boundary at 2β and the one at β; near its tuned time it is close to the former, as a
//!   one-sided bound at β is a two-sided one at 2β in the fixed-N world.
//!
//! References: J. Ville, *Étude critique de la notion de collectif*, Gauthier-Villars, 1939;
//! H. Robbins, "Statistical methods related to the law of the iterated logarithm", Annals
//! of Mathematical Statistics 41(5), 1970 (the normal mixture); S. R. Howard, A. Ramdas,
//! J. McAuliffe, J. Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
//! sequences", Annals of Statistics 49(2), 2021; A. Ramdas, P. Grünwald, V. Vovk, G. Shafer,
//! "Game-theoretic statistics and safe anytime-valid inference", Statistical Science 38(4),
//! 2023 (e-values, anytime-valid p-values `min(1, 1/E)`).

use crate::estimate::mixture_scale;
use crate::Confidence;

/// `1/sqrt(2)`.
const FRAC_1_SQRT_2: f64 = core::f64::consts::FRAC_1_SQRT_2;
/// `1/sqrt(2π)`.
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// `ln Φ(x)`, Φ the standard normal distribution function (−∞ where it underflows).
pub(crate) fn ln_normal_cdf(x: f64) -> f64 {
    // Φ(x) = erfc(−x/√2)/2, accurate in both tails (no cancellation for x < 0).
    libm::log(0.5 * libm::erfc(-x * FRAC_1_SQRT_2))
}

/// `ln E` of the two-sided normal mixture at centred sum `sum`, intrinsic time V and
/// scale ρ: `½ ln(ρ/(V + ρ)) + S²/(2(V + ρ))`.
pub(crate) fn two_sided_ln_e_value(sum: f64, intrinsic_time: f64, scale: f64) -> f64 {
    let spread = intrinsic_time + scale;
    -0.5 * libm::log1p(intrinsic_time / scale) + sum * sum / (2.0 * spread)
}

/// `ln E` of the one-sided (upper) normal mixture:
/// `ln 2 + ½ ln(ρ/(V + ρ)) + S²/(2(V + ρ)) + ln Φ(S/sqrt(V + ρ))`.
pub(crate) fn one_sided_ln_e_value(sum: f64, intrinsic_time: f64, scale: f64) -> f64 {
    let spread = intrinsic_time + scale;
    core::f64::consts::LN_2
        + two_sided_ln_e_value(sum, intrinsic_time, scale)
        + ln_normal_cdf(sum / libm::sqrt(spread))
}

/// The ρ for a one-sided boundary at β tuned for `planned_intrinsic_time`: the two-sided
/// choice at 2β, as confseq does (`OneSidedNormalMixture::best_rho(v, α) =
/// TwoSidedNormalMixture::best_rho(v, 2α)`; Howard et al. 2021, §3.5); for β ≥ 1/2, the
/// two-sided choice at β. Any ρ > 0 keeps the boundary valid.
pub(crate) fn one_sided_mixture_scale(planned_intrinsic_time: f64, confidence: Confidence) -> f64 {
    let beta = confidence.beta();
    let c = if beta < 0.5 {
        2.0 * libm::log(0.5 / beta)
    } else {
        2.0 * libm::log(1.0 / beta)
    };
    mixture_scale(planned_intrinsic_time, c)
}

/// The one-sided normal-mixture boundary at intrinsic time V, scale ρ and error β: the
/// smallest `s ≥ 0` at which the one-sided e-value reaches `1/β`, so that
/// `P(∃t: S_t ≥ u(V_t)) ≤ β` (Ville).
///
/// With `x = s/sqrt(V + ρ)` and `A = sqrt(1 + V/ρ)/(2β)` the crossing is
/// `g(x) = x²/2 + ln Φ(x) − ln A ≥ 0`. g is increasing and convex on x ≥ 0
/// (`g' = x + φ/Φ > 0`, `g'' = 1 − (φ/Φ)(x + φ/Φ) > 0`), and `x = sqrt(2 ln(1 + A))` (the
/// closed-form bound of the module documentation) has `g ≥ 0`, because
/// `1 − Φ(x) ≤ e^{−x²/2} = 1/(1 + A)`. Newton's method from there descends monotonically to
/// the root without crossing it (convexity), in a handful of steps; it stops at the last
/// point where g, as computed, is still nonnegative, so the boundary is never below the
/// computed root.
pub(crate) fn one_sided_boundary(intrinsic_time: f64, scale: f64, confidence: Confidence) -> f64 {
    let spread = intrinsic_time + scale;
    let root_spread = libm::sqrt(spread);
    let target = libm::log(1.0 / confidence.beta());
    // g(x), computed as the e-value's own logarithm minus ln(1/β).
    let g = |x: f64| one_sided_ln_e_value(x * root_spread, intrinsic_time, scale) - target;
    let ln_a = 0.5 * libm::log1p(intrinsic_time / scale) - libm::log(2.0 * confidence.beta());
    // ln(1 + A) = ln A + ln(1 + 1/A), without overflow for huge A.
    let mut x = libm::sqrt(2.0 * (ln_a + libm::log1p(libm::exp(-ln_a))));
    let mut excess = g(x);
    while excess < 0.0 {
        // Only if rounding put the closed form a hair below the root.
        x *= 1.0 + 1e-12;
        excess = g(x);
    }
    for _ in 0..100 {
        // g'(x) = x + φ(x)/Φ(x).
        let mills = libm::exp(-0.5 * x * x - ln_normal_cdf(x)) * FRAC_1_SQRT_2PI;
        let step = excess / (x + mills);
        let next = x - step;
        if step.is_nan() || step <= 1e-15 * x || next < 0.0 {
            break;
        }
        let next_excess = g(next);
        if next_excess < 0.0 {
            break;
        }
        (x, excess) = (next, next_excess);
    }
    x * root_spread
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::normal_mixture_boundary;

    fn confidence(level: f64) -> Confidence {
        Confidence::new(level).unwrap()
    }

    #[test]
    fn the_two_sided_e_value_reaches_one_over_beta_exactly_on_the_boundary() {
        for &(v, rho, level) in &[(250.0, 40.0, 0.95), (1.0, 3.0, 0.99), (1e6, 1e4, 0.9)] {
            let boundary = normal_mixture_boundary(v, rho, confidence(level));
            let ln_e = two_sided_ln_e_value(boundary, v, rho);
            let target = libm::log(1.0 / (1.0 - level));
            assert!((ln_e - target).abs() < 1e-10, "{ln_e} vs {target}");
        }
    }

    #[test]
    fn the_one_sided_boundary_solves_its_e_value_and_lies_below_the_closed_form() {
        for &(v, rho, level) in &[
            (250.0, 40.0, 0.95),
            (1.0, 3.0, 0.99),
            (1e6, 1e4, 0.9),
            (0.01, 100.0, 0.5),
            (1e3, 1e3, 0.999_999),
        ] {
            let confidence = confidence(level);
            let beta = confidence.beta();
            let boundary = one_sided_boundary(v, rho, confidence);
            let target = libm::log(1.0 / beta);
            let ln_e = one_sided_ln_e_value(boundary, v, rho);
            assert!(ln_e >= target && ln_e - target < 1e-9, "{ln_e} vs {target}");
            let closed = libm::sqrt(
                2.0 * (v + rho) * libm::log(1.0 + libm::sqrt(1.0 + v / rho) / (2.0 * beta)),
            );
            assert!(boundary <= closed * (1.0 + 1e-12));
            // Never wider than the two-sided boundary at β, never narrower than it at 2β.
            assert!(boundary <= normal_mixture_boundary(v, rho, confidence));
            if beta < 0.5 {
                let doubled = Confidence::new(1.0 - 2.0 * beta).unwrap();
                assert!(boundary >= normal_mixture_boundary(v, rho, doubled) * (1.0 - 1e-12));
            }
        }
    }

    #[test]
    fn the_normal_cdf_has_its_known_values() {
        assert!((ln_normal_cdf(0.0) - libm::log(0.5)).abs() < 1e-15);
        // Φ(1.959963984540054) = 0.975.
        assert!((libm::exp(ln_normal_cdf(1.959_963_984_540_054)) - 0.975).abs() < 1e-15);
        assert!((libm::exp(ln_normal_cdf(-1.959_963_984_540_054)) - 0.025).abs() < 1e-16);
    }
}
