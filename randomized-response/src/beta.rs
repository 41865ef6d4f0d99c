//! The regularized incomplete beta function and its inverse, for Clopper–Pearson bounds.
//!
//! `I_x(a, b)` is evaluated with its continued fraction (modified Lentz algorithm), using
//! the symmetry `I_x(a, b) = 1 − I_{1−x}(b, a)` where the fraction converges slowly
//! (Press et al., Numerical Recipes, 3rd ed., §6.4), except for large a and b near the
//! mean, where the fraction needs about `sqrt(ab/(a + b))` terms and Temme's uniform
//! asymptotic expansion takes over in a fixed number of operations (module `large`). The
//! inverse is safeguarded Newton inside a bracket, which cannot fail to converge and lets
//! the caller round outward.

mod large;

pub(crate) use large::{expansion, ln_front};

const MAX_TERMS: usize = 100_000;
const RELATIVE_TOLERANCE: f64 = 1e-15;
const TINY: f64 = 1e-300;

/// `I_x(a, b)` for `a, b > 0` and `x ∈ [0, 1]`.
pub(crate) fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    match expansion(a, b, x) {
        Some(expansion) if expansion.swapped => 1.0 - expansion.tail(),
        Some(expansion) => expansion.tail(),
        None => by_continued_fraction(a, b, x),
    }
}

/// `I_x(a, b)` by the continued fraction alone (on the side where it converges fast):
/// the reference the expansion is tested against.
pub(crate) fn by_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = libm::exp(ln_front(a, b, x));
    if x < (a + 1.0) / (a + b + 2.0) {
        front * continued_fraction(a, b, x) / a
    } else {
        1.0 - front * continued_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of `I_x(a, b)`: `I_x(a, b) = x^a (1 − x)^b / (a B(a, b)) · cf`,
/// which converges fast for `x < (a + 1)/(a + b + 2)`.
pub(crate) fn continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    let clamp = |value: f64| if value.abs() < TINY { TINY } else { value };
    let mut c = 1.0;
    let mut d = 1.0 / clamp(1.0 - (a + b) * x / (a + 1.0));
    let mut fraction = d;
    for m in 1..=MAX_TERMS {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / clamp(1.0 + even * d);
        c = clamp(1.0 + even / c);
        fraction *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / clamp(1.0 + odd * d);
        c = clamp(1.0 + odd / c);
        let step = d * c;
        fraction *= step;
        if (step - 1.0).abs() < RELATIVE_TOLERANCE {
            break;
        }
    }
    fraction
}

/// Which side of the true quantile a bisection result should fall on.
#[derive(Clone, Copy)]
pub(crate) enum Rounding {
    Down,
    Up,
}

/// The beta density `x^(a−1) (1 − x)^(b−1) / B(a, b)`: the derivative of `I_x(a, b)`.
fn beta_density(a: f64, b: f64, x: f64) -> f64 {
    libm::exp(ln_front(a, b, x) - libm::log(x) - libm::log1p(-x))
}

/// How close the returned bound is to the true quantile.
const QUANTILE_TOLERANCE: f64 = 1e-13;

/// The x with `I_x(a, b) = probability`, to within 1e-13, rounded as asked so that
/// confidence bounds built from it are never narrower than the exact ones.
///
/// Safeguarded Newton (Press et al., §9.4): a bracket `[low, high]` with
/// `I_low < probability ≤ I_high` is kept throughout; a Newton step that leaves it, or
/// stalls, is replaced by bisection. Once Newton has converged, the bracket is closed
/// around the root from both sides, so the result honours the rounding exactly as plain
/// bisection would, in about a fifth of the evaluations.
pub(crate) fn inverse_regularized_incomplete_beta(
    a: f64,
    b: f64,
    probability: f64,
    rounding: Rounding,
) -> f64 {
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    let mut x = a / (a + b);
    let mut previous_width = f64::INFINITY;
    while high - low > QUANTILE_TOLERANCE {
        let excess = regularized_incomplete_beta(a, b, x) - probability;
        if excess < 0.0 {
            low = x;
        } else {
            high = x;
        }
        let step = excess / beta_density(a, b, x);
        let newton = x - step;
        if step.abs() <= QUANTILE_TOLERANCE / 4.0 {
            // Converged: close the bracket just around the root, if the function agrees.
            let (below, above) = (x - QUANTILE_TOLERANCE / 2.0, x + QUANTILE_TOLERANCE / 2.0);
            if below > low && regularized_incomplete_beta(a, b, below) < probability {
                low = below;
            }
            if above < high && regularized_incomplete_beta(a, b, above) >= probability {
                high = above;
            }
        }
        let width = high - low;
        x = if newton.is_finite() && newton > low && newton < high && width < previous_width {
            newton
        } else {
            0.5 * (low + high)
        };
        previous_width = width;
    }
    match rounding {
        Rounding::Down => low,
        Rounding::Up => high,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_incomplete_beta_matches_closed_forms() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 − (1 − x)^b.
        for &x in &[0.001, 0.1, 0.37, 0.5, 0.9, 0.999] {
            assert!((regularized_incomplete_beta(1.0, 1.0, x) - x).abs() < 1e-14);
            assert!((regularized_incomplete_beta(7.0, 1.0, x) - x.powi(7)).abs() < 1e-14);
            let expected = 1.0 - (1.0 - x).powi(12);
            assert!((regularized_incomplete_beta(1.0, 12.0, x) - expected).abs() < 1e-13);
        }
    }

    #[test]
    fn the_incomplete_beta_is_a_binomial_tail() {
        // P[Bin(n, x) ≥ k] = I_x(k, n − k + 1).
        let (n, x) = (20_u32, 0.3_f64);
        for k in 1..=n {
            let tail: f64 = (k..=n)
                .map(|j| binomial(n, j) * x.powi(j as i32) * (1.0 - x).powi((n - j) as i32))
                .sum();
            let beta = regularized_incomplete_beta(f64::from(k), f64::from(n - k + 1), x);
            assert!((tail - beta).abs() < 1e-12, "k = {k}: {tail} vs {beta}");
        }
    }

    #[test]
    fn the_inverse_rounds_in_the_direction_asked() {
        let (a, b, probability) = (30.0, 71.0, 0.025);
        let down = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Down);
        let up = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Up);
        assert!(down < up && up - down <= 1e-13);
        assert!(regularized_incomplete_beta(a, b, down) < probability);
        assert!(regularized_incomplete_beta(a, b, up) >= probability);
    }

    #[test]
    fn the_inverse_keeps_its_contract_from_tiny_to_huge_shapes() {
        for &(a, b) in &[
            (1.0, 1.0),
            (1.0, 1e6),
            (3.0, 8.0),
            (500.0, 501.0),
            (4e5, 6e5),
            (1e6, 1.0),
        ] {
            for &probability in &[1e-6, 0.005, 0.025, 0.5, 0.975, 0.999_999] {
                let down = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Down);
                let up = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Up);
                assert!(up - down <= 1e-13, "a = {a}, b = {b}, p = {probability}");
                assert!(regularized_incomplete_beta(a, b, down) < probability || down == 0.0);
                assert!(regularized_incomplete_beta(a, b, up) >= probability);
            }
        }
    }

    #[test]
    fn the_inverse_keeps_its_contract_where_the_expansion_serves() {
        // Clopper–Pearson shapes of 10⁵ to 2·10⁹ responses: Newton's evaluations and the
        // closing of the bracket all fall in the expansion's region or next to it.
        for &(a, b) in &[
            (30_000.0, 70_001.0),
            (3e6, 7e6 + 1.0),
            (2e8 + 1.0, 8e8),
            (1e9, 1e9 + 1.0),
            (150.0, 1e9),
        ] {
            for &probability in &[1e-6, 0.005, 0.025, 0.5, 0.975, 0.999_999] {
                let down = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Down);
                let up = inverse_regularized_incomplete_beta(a, b, probability, Rounding::Up);
                assert!(
                    down < up && up - down <= 1e-13,
                    "a = {a}, b = {b}, p = {probability}"
                );
                assert!(regularized_incomplete_beta(a, b, down) < probability);
                assert!(regularized_incomplete_beta(a, b, up) >= probability);
            }
        }
    }

    fn binomial(n: u32, k: u32) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
    }
}
