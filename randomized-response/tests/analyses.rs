//! The analyses of issue 18, at the extremes and against closed forms: one-sided bounds,
//! tests of θ = θ0, the consistency e-value, differences between groups, the joint
//! distribution of two questions and conditional proportions.

use randomized_response::{
    Confidence, Design, DesignError, Group, JointDesign, Mechanism, NumberDesign,
    PerRecordEstimator, PrivacyLevel, Side, CONSISTENCY_ALPHA,
};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence(level: f64) -> Confidence {
    Confidence::new(level).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

fn yes_share(design: &Design) -> PerRecordEstimator {
    design.option_estimator(Design::YES).unwrap()
}

/// `ln Φ(x)`.
fn ln_normal_cdf(x: f64) -> f64 {
    (0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)).ln()
}

// ---------------------------------------------------------------------------------------
// One-sided bounds

#[test]
fn the_one_sided_chernoff_bound_puts_all_of_beta_on_one_side() {
    let estimator = yes_share(&Design::mirrored(PrivacyLevel::warner()));
    let counts = [600, 400];
    let estimate = estimator.estimate(&counts).unwrap().unwrap();
    let width = estimator.value_width();
    let margin = width * (20.0_f64.ln() / 2000.0).sqrt();
    let ninety_five = confidence(0.95);
    let upper = estimator
        .chernoff_bound(&counts, Side::Upper, ninety_five)
        .unwrap()
        .unwrap();
    let lower = estimator
        .chernoff_bound(&counts, Side::Lower, ninety_five)
        .unwrap()
        .unwrap();
    assert!(close(upper, estimate + margin, 1e-14));
    assert!(close(lower, estimate - margin, 1e-14));
    // The two-sided interval at 90 % has the same ends: ln(2/0.1) = ln(1/0.05).
    let ninety = estimator
        .chernoff_interval(&counts, confidence(0.90))
        .unwrap()
        .unwrap();
    assert!(close(ninety.high(), upper, 1e-14) && close(ninety.low(), lower, 1e-14));
    // Clamped to the target's range at the extremes.
    let all_yes = [0, 10];
    let top = estimator.chernoff_bound(&all_yes, Side::Upper, ninety_five);
    assert_eq!(top.unwrap(), Some(1.0));
    let all_no = [10, 0];
    let bottom = estimator.chernoff_bound(&all_no, Side::Lower, ninety_five);
    assert_eq!(bottom.unwrap(), Some(0.0));
    assert_eq!(
        estimator.chernoff_bound(&[0, 0], Side::Upper, ninety_five),
        Ok(None)
    );
}

#[test]
fn the_one_sided_exact_bound_is_clopper_pearson_at_beta() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    let (w_min, _) = estimator.value_range();
    let width = estimator.value_width();
    let ninety_five = confidence(0.95);
    let beta = ninety_five.beta();
    // n_A = 0 of N: ζ_U = 1 − β^{1/N}; n_A = N: ζ_L = β^{1/N} (the closed forms of the beta
    // quantiles with a shape parameter of 1).
    for n in [1_u64, 10, 100, 10_000] {
        let upper = estimator
            .exact_bound(&[n, 0], Side::Upper, ninety_five)
            .unwrap()
            .unwrap();
        let expected = (w_min + width * (1.0 - beta.powf(1.0 / n as f64))).clamp(0.0, 1.0);
        assert!(
            close(upper, expected, 1e-12),
            "N = {n}: {upper} vs {expected}"
        );
        let lower = estimator
            .exact_bound(&[0, n], Side::Lower, ninety_five)
            .unwrap()
            .unwrap();
        let expected = (w_min + width * beta.powf(1.0 / n as f64)).clamp(0.0, 1.0);
        assert!(
            close(lower, expected, 1e-12),
            "N = {n}: {lower} vs {expected}"
        );
        // Beyond the data, the target's own ends.
        let top = estimator.exact_bound(&[0, n], Side::Upper, ninety_five);
        assert_eq!(top.unwrap(), Some(1.0));
        let bottom = estimator.exact_bound(&[n, 0], Side::Lower, ninety_five);
        assert_eq!(bottom.unwrap(), Some(0.0));
    }
    // In between, the ends of the two-sided interval at 2β.
    for yes in [3_u64, 40, 61, 97] {
        let counts = [100 - yes, yes];
        let ninety = estimator
            .exact_interval(&counts, confidence(0.90))
            .unwrap()
            .unwrap();
        let upper = estimator.exact_bound(&counts, Side::Upper, ninety_five);
        let lower = estimator.exact_bound(&counts, Side::Lower, ninety_five);
        assert!(close(upper.unwrap().unwrap(), ninety.high(), 1e-12));
        assert!(close(lower.unwrap().unwrap(), ninety.low(), 1e-12));
    }
    // No exact bound for a value of more than two values.
    let ordinal = Design::k_ary(3, level(1.0)).unwrap().mean_level_estimator();
    assert_eq!(
        ordinal.exact_bound(&[3, 3, 3], Side::Upper, ninety_five),
        Ok(None)
    );
}

/// The smallest s with `ln 2 + ½ ln(ρ/(V + ρ)) + s²/(2(V + ρ)) + ln Φ(s/sqrt(V + ρ)) ≥ ln(1/β)`,
/// by plain bisection.
fn half_normal_boundary(time: f64, scale: f64, beta: f64) -> f64 {
    let spread = time + scale;
    let ln_e = |s: f64| {
        std::f64::consts::LN_2
            + 0.5 * (scale / spread).ln()
            + s * s / (2.0 * spread)
            + ln_normal_cdf(s / spread.sqrt())
    };
    let (mut low, mut high) = (0.0, 100.0 * spread.sqrt());
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if ln_e(middle) >= (1.0 / beta).ln() {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

#[test]
fn the_one_sided_anytime_bound_is_the_half_normal_mixture_boundary() {
    for (epsilon, n, yes, planned, level_value) in [
        (1.0, 1_000_u64, 400_u64, 1_000_u64, 0.95),
        (0.1, 10, 5, 1_000, 0.95),
        (5.0, 10_000, 20, 100, 0.99),
        (2.0, 1, 1, 1, 0.8),
    ] {
        let estimator = yes_share(&Design::mirrored(level(epsilon)));
        let counts = [n - yes, yes];
        let chosen = confidence(level_value);
        let beta = chosen.beta();
        let proxy = estimator.value_width().powi(2) / 4.0;
        // ρ tuned as confseq tunes the one-sided mixture: the two-sided choice at 2β.
        let scale = randomized_response::anytime_mixture_scale(
            planned as f64 * proxy,
            confidence(1.0 - 2.0 * beta),
        );
        let margin = half_normal_boundary(n as f64 * proxy, scale, beta) / n as f64;
        let estimate = estimator.estimate(&counts).unwrap().unwrap();
        let upper = estimator
            .anytime_bound(&counts, Side::Upper, chosen, planned)
            .unwrap()
            .unwrap();
        let lower = estimator
            .anytime_bound(&counts, Side::Lower, chosen, planned)
            .unwrap()
            .unwrap();
        assert!(close(upper, (estimate + margin).clamp(0.0, 1.0), 1e-9));
        assert!(close(lower, (estimate - margin).clamp(0.0, 1.0), 1e-9));
        // Looking as often as one likes costs width over the fixed-N one-sided bound, and a
        // one-sided bound is narrower than the two-sided anytime interval.
        let chernoff = estimator.value_width() * ((1.0 / beta).ln() / (2.0 * n as f64)).sqrt();
        let two_sided = estimator
            .anytime_interval(&counts, chosen, planned)
            .unwrap()
            .unwrap();
        assert!(chernoff < margin && margin < two_sided.half_width());
    }
}

#[test]
fn one_sided_summaries_carry_all_three_bounds() {
    let estimator = yes_share(&Design::forced_response(0.67, 0.165, 0.165).unwrap());
    let counts = [700, 300];
    let chosen = confidence(0.95);
    let summary = estimator
        .one_sided(&counts, Side::Upper, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert_eq!(summary.side, Side::Upper);
    let upper = |bound| Some(bound);
    assert_eq!(
        upper(summary.chernoff),
        estimator
            .chernoff_bound(&counts, Side::Upper, chosen)
            .unwrap()
    );
    assert_eq!(
        summary.exact,
        estimator.exact_bound(&counts, Side::Upper, chosen).unwrap()
    );
    assert_eq!(
        upper(summary.anytime),
        estimator
            .anytime_bound(&counts, Side::Upper, chosen, 1_000)
            .unwrap()
    );
    // The exact bound is the tightest at a fixed N, the anytime one the widest.
    let exact = summary.exact.unwrap();
    assert!(exact < summary.chernoff && summary.chernoff < summary.anytime);
    assert_eq!(
        estimator.one_sided(&[0, 0], Side::Lower, chosen, 1_000),
        Ok(None)
    );
}

// ---------------------------------------------------------------------------------------
// Tests of θ = θ0

#[test]
fn the_anytime_p_value_is_one_at_the_estimate_and_beta_at_the_interval_ends() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    let counts = [400, 600];
    let estimate = estimator.estimate(&counts).unwrap().unwrap();
    for (level_value, planned) in [(0.95, 1_000), (0.99, 100), (0.8, 10_000)] {
        let chosen = confidence(level_value);
        let at_estimate = estimator.anytime_p_value(&counts, estimate, chosen, planned);
        assert_eq!(at_estimate.unwrap(), Some(1.0));
        let interval = estimator
            .anytime_interval(&counts, chosen, planned)
            .unwrap()
            .unwrap();
        for end in [
            estimate - interval.half_width(),
            estimate + interval.half_width(),
        ] {
            let p = estimator
                .anytime_p_value(&counts, end, chosen, planned)
                .unwrap()
                .unwrap();
            assert!(close(p, chosen.beta(), 1e-9 * chosen.beta()), "{p}");
        }
    }
    let chosen = confidence(0.95);
    assert_eq!(
        estimator.anytime_p_value(&[0, 0], 0.5, chosen, 1_000),
        Ok(None)
    );
    for outside in [-0.01, 1.01, f64::NAN] {
        assert!(matches!(
            estimator.anytime_p_value(&counts, outside, chosen, 1_000),
            Err(DesignError::NullValue { .. })
        ));
    }
    // Far from the data the e-value is astronomical and the p-value underflows to 0, not
    // NaN.
    let p = estimator
        .anytime_p_value(&[0, 100_000], 0.0, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert!(p < 1e-300);
}

#[test]
fn the_exact_p_value_is_r_binom_test_on_the_reports() {
    // At ε = 5, θ0 = 0 is the report rate q = 1/(1 + e^5); 13 yes of 1 000.
    // R: binom.test(13, 1000, 1/(1 + exp(5)))$p.value = 0.028768461719155713.
    let at_five = yes_share(&Design::mirrored(level(5.0)));
    let p = at_five.exact_p_value(&[987, 13], 0.0).unwrap().unwrap();
    assert!(close(p, 0.028_768_461_719_155_713, 1e-9), "{p}");
    // At ε = 0.1, θ0 = 1 is the rate p = 1/(1 + e^-0.1) ≈ 0.525; 503 yes of 2 000 (the
    // issue's survey). R: binom.test(503, 2000, 1/(1 + exp(-0.1)))$p.value.
    let at_tenth = yes_share(&Design::mirrored(level(0.1)));
    let p = at_tenth.exact_p_value(&[1497, 503], 1.0).unwrap().unwrap();
    let r = 5.589_434_792_051_148e-137;
    assert!(close(p, r, 1e-8 * r), "{p}");
    // Reports exactly at the rate of θ0: p = 1.
    let design = Design::mirrored(PrivacyLevel::warner());
    let warner = yes_share(&design);
    let half =
        (0.5 - design.probability(0, 1)) / (design.probability(1, 1) - design.probability(0, 1));
    assert_eq!(warner.exact_p_value(&[50, 50], half).unwrap(), Some(1.0));
    // No exact test for an ordinal mean, none without reports, none outside the range.
    let ordinal = Design::k_ary(3, level(1.0)).unwrap().mean_level_estimator();
    assert_eq!(ordinal.exact_p_value(&[1, 2, 3], 1.0), Ok(None));
    assert_eq!(warner.exact_p_value(&[0, 0], 0.5), Ok(None));
    assert!(matches!(
        warner.exact_p_value(&[5, 5], 2.0),
        Err(DesignError::NullValue { .. })
    ));
}

// ---------------------------------------------------------------------------------------
// Consistency with the design

#[test]
fn the_issues_reports_contradict_the_mirrored_design() {
    // ε = 0.1, n = 2 000, 503 reported yes: the design reports yes at a rate in
    // [0.475, 0.525].
    let design = Design::mirrored(level(0.1));
    let consistency = design.consistency(&[1497, 503]).unwrap();
    eprintln!(
        "ε = 0.1, 503 yes of 2 000: ln E = {:.1}, p = {:.3e}",
        consistency.ln_e_value(),
        consistency.p_value()
    );
    assert!(consistency.flagged());
    assert!(consistency.ln_e_value() > 150.0);
    // Honest-looking reports are not flagged, even at the lowest possible rate.
    for yes in [950, 1000, 1050] {
        let honest = design.consistency(&[2000 - yes, yes]).unwrap();
        assert!(!honest.flagged() && honest.e_value() < 1.0, "{yes}");
    }
    // Nothing yet: E = 1.
    let nothing = design.consistency(&[0, 0]).unwrap();
    assert_eq!(nothing.ln_e_value(), 0.0);
    assert_eq!(nothing.p_value(), 1.0);
    assert!(!nothing.flagged_at(0.999));
    assert_eq!(CONSISTENCY_ALPHA, 0.001);
}

#[test]
fn a_stream_of_one_report_has_a_closed_form_e_value() {
    // N reports of "no" at ε = 5: E_yes = (1 − (1 − b)^{N+1}) / ((N + 1) b (1 − b)^N) with
    // b = P[no][yes], and E_no = 1/(N + 1) (all at the upper end): E = (E_yes + E_no)/2.
    let design = Design::mirrored(level(5.0));
    let floor = design.report_floor(Design::YES).unwrap();
    assert_eq!(floor, design.probability(Design::NO, Design::YES));
    for n in [1_u64, 10, 1_000, 1_500, 2_000] {
        let e_yes = (1.0 - (1.0 - floor).powi(n as i32 + 1))
            / ((n as f64 + 1.0) * floor * (1.0 - floor).powi(n as i32));
        let expected = 0.5 * (e_yes + 1.0 / (n as f64 + 1.0));
        let consistency = design.consistency(&[n, 0]).unwrap();
        assert!(
            close(consistency.e_value(), expected, 1e-9 * expected),
            "N = {n}: {} vs {expected}",
            consistency.e_value()
        );
    }
    // A faulty client that always sends "no" is flagged after about 1 450 reports at
    // ε = 5, after 15 at ε = 0.1.
    assert!(!design.consistency(&[1_000, 0]).unwrap().flagged());
    assert!(design.consistency(&[2_000, 0]).unwrap().flagged());
    let low = Design::mirrored(level(0.1));
    assert!(!low.consistency(&[10, 0]).unwrap().flagged());
    assert!(low.consistency(&[20, 0]).unwrap().flagged());
}

#[test]
fn every_design_type_has_a_consistency_e_value() {
    // k-ary: an option nobody reports, when every option is reported at least at b.
    let choice = Design::k_ary(3, level(1.0)).unwrap();
    let floor = choice.report_floor(2).unwrap();
    assert_eq!(floor, choice.probability(0, 2));
    let n = 60_u64;
    let e_missing = (1.0 - (1.0 - floor).powi(n as i32 + 1))
        / ((n as f64 + 1.0) * floor * (1.0 - floor).powi(n as i32));
    let consistency = choice.consistency(&[30, 30, 0]).unwrap();
    // The other two reports (30 of 60 each, above b) add little: E ≥ E_missing/3.
    assert!(consistency.e_value() >= e_missing / 3.0);
    assert!(consistency.flagged());
    // Forced response: the floors are the forced probabilities.
    let forced = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    assert!(close(
        forced.report_floor(Design::YES).unwrap(),
        0.165,
        1e-13
    ));
    assert!(close(
        forced.report_floor(Design::NO).unwrap(),
        0.165,
        1e-13
    ));
    assert!(forced.consistency(&[1000, 0]).unwrap().flagged());
    // A number: the mirrored design on its ends, through the mechanism too.
    let number = NumberDesign::new(0.0, 30.0, level(0.5)).unwrap();
    let ends = Design::mirrored(level(0.5));
    let counts = [700, 300];
    let direct = ends.consistency(&counts).unwrap();
    assert_eq!(number.consistency(&counts).unwrap(), direct);
    let mechanism = Mechanism::Number(number);
    assert_eq!(mechanism.consistency(&counts).unwrap(), direct);
    assert!(matches!(
        choice.consistency(&[1, 2]),
        Err(DesignError::CountsLength {
            expected: 3,
            got: 2
        })
    ));
    assert!(matches!(
        choice.report_floor(3),
        Err(DesignError::ReportOutOfRange { .. })
    ));
}

// ---------------------------------------------------------------------------------------
// Differences between two groups

fn group(counts: &[u64], planned_respondents: u64) -> Group<'_> {
    Group {
        counts,
        planned_respondents,
    }
}

#[test]
fn the_difference_intervals_are_their_formulas() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    let (a, b) = ([40, 60], [200, 100]);
    let chosen = confidence(0.95);
    let estimate = estimator.difference_estimate(&a, &b).unwrap().unwrap();
    let expected =
        estimator.estimate(&a).unwrap().unwrap() - estimator.estimate(&b).unwrap().unwrap();
    assert_eq!(estimate, expected);
    // Chernoff: W sqrt(ln(2/β)/2 · (1/n_a + 1/n_b)).
    let chernoff = estimator
        .difference_chernoff_interval(&a, &b, chosen)
        .unwrap()
        .unwrap();
    let half_width =
        estimator.value_width() * (40.0_f64.ln() / 2.0 * (1.0 / 100.0 + 1.0 / 300.0)).sqrt();
    assert!(close(chernoff.half_width(), half_width, 1e-14));
    assert!(close(chernoff.low(), estimate - half_width, 1e-14));
    // Exact and anytime: each group at 1 − β/2, combined as [L_a − U_b, U_a − L_b].
    let each = confidence(0.975);
    let exact = estimator
        .difference_exact_interval(&a, &b, chosen)
        .unwrap()
        .unwrap();
    let (exact_a, exact_b) = (
        estimator.exact_interval(&a, each).unwrap().unwrap(),
        estimator.exact_interval(&b, each).unwrap().unwrap(),
    );
    assert_eq!(exact.low(), exact_a.low() - exact_b.high());
    assert_eq!(exact.high(), exact_a.high() - exact_b.low());
    let anytime = estimator
        .difference_anytime_interval(group(&a, 200), group(&b, 500), chosen)
        .unwrap()
        .unwrap();
    let (anytime_a, anytime_b) = (
        estimator.anytime_interval(&a, each, 200).unwrap().unwrap(),
        estimator.anytime_interval(&b, each, 500).unwrap().unwrap(),
    );
    assert_eq!(anytime.low(), anytime_a.low() - anytime_b.high());
    assert_eq!(anytime.high(), anytime_a.high() - anytime_b.low());
    // The difference's range is [−1, 1]: all yes against all no.
    let extreme = estimator
        .difference_chernoff_interval(&[0, 1000], &[1000, 0], chosen)
        .unwrap()
        .unwrap();
    assert_eq!(extreme.high(), 1.0);
    assert_eq!(
        estimator.difference_chernoff_interval(&a, &[0, 0], chosen),
        Ok(None)
    );
}

#[test]
fn the_difference_tests_are_fisher_and_the_dual_of_the_anytime_interval() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    // Fisher's exact test on the reports: 12 yes of 40 against 30 of 60.
    // R: fisher.test(matrix(c(12, 30, 28, 30), 2))$p.value = 0.06293412572631979.
    let p = estimator
        .difference_exact_p_value(&[28, 12], &[30, 30])
        .unwrap()
        .unwrap();
    assert!(close(p, 0.062_934_125_726_319_79, 1e-12), "{p}");
    assert_eq!(
        estimator
            .difference_exact_p_value(&[5, 5], &[5, 5])
            .unwrap(),
        Some(1.0)
    );
    // The anytime p-value is below β exactly when the anytime interval excludes 0.
    let chosen = confidence(0.95);
    let mut rejected = 0;
    for yes_a in (0..=200).step_by(7) {
        let (a, b) = ([200 - yes_a, yes_a], [150, 150]);
        let (a, b) = (group(&a, 1_000), group(&b, 1_000));
        let p = estimator
            .difference_anytime_p_value(a, b, chosen)
            .unwrap()
            .unwrap();
        let interval = estimator
            .difference_anytime_interval(a, b, chosen)
            .unwrap()
            .unwrap();
        let excludes = interval.low() > 0.0 || interval.high() < 0.0;
        assert_eq!(p < chosen.beta(), excludes, "yes_a = {yes_a}: p = {p}");
        rejected += usize::from(excludes);
        let summary = estimator.difference(a, b, chosen).unwrap().unwrap();
        assert_eq!(summary.anytime_p_value, p);
        assert_eq!(summary.anytime, interval);
        assert_eq!((summary.n_a, summary.n_b), (200, 300));
    }
    assert!(rejected > 5 && rejected < 25, "{rejected}");
    // Identical groups: p = 1; all yes against all no: tiny, never NaN.
    let same = [50, 50];
    let p = estimator
        .difference_anytime_p_value(group(&same, 100), group(&same, 100), chosen)
        .unwrap();
    assert_eq!(p, Some(1.0));
    let (all_yes, all_no) = ([0, 100_000], [100_000, 0]);
    let p = estimator
        .difference_anytime_p_value(group(&all_yes, 100), group(&all_no, 100), chosen)
        .unwrap()
        .unwrap();
    assert!(p > 0.0 && p < 1e-100, "{p}");
}

// ---------------------------------------------------------------------------------------
// The joint distribution of two questions

/// The inverse of a square matrix by Gauss–Jordan elimination with partial pivoting.
fn inverse(matrix: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let k = matrix.len();
    let mut left = matrix.to_vec();
    let mut right: Vec<Vec<f64>> = (0..k)
        .map(|t| (0..k).map(|r| f64::from(u8::from(t == r))).collect())
        .collect();
    for column in 0..k {
        let pivot = (column..k)
            .max_by(|&a, &b| left[a][column].abs().total_cmp(&left[b][column].abs()))
            .unwrap();
        left.swap(column, pivot);
        right.swap(column, pivot);
        let scale = left[column][column];
        for j in 0..k {
            left[column][j] /= scale;
            right[column][j] /= scale;
        }
        for row in 0..k {
            if row != column {
                let factor = left[row][column];
                for j in 0..k {
                    left[row][j] -= factor * left[column][j];
                    right[row][j] -= factor * right[column][j];
                }
            }
        }
    }
    right
}

#[test]
fn the_joint_estimate_inverts_the_product_design() {
    let first = Design::mirrored(level(1.0));
    let second = Design::k_ary(3, level(2.0)).unwrap();
    let joint = JointDesign::new(&first, &second);
    assert_eq!(joint.shape(), (2, 3));
    assert_eq!(joint.table_len(), 6);
    // P over pairs, row-major, and its inverse by elimination.
    let pairs: Vec<(usize, usize)> = (0..2).flat_map(|i| (0..3).map(move |j| (i, j))).collect();
    let matrix: Vec<Vec<f64>> = pairs
        .iter()
        .map(|&truth| {
            pairs
                .iter()
                .map(|&report| joint.probability(truth, report))
                .collect()
        })
        .collect();
    let inverted = inverse(&matrix);
    let table = [120_u64, 33, 47, 81, 9, 210];
    let total: u64 = table.iter().sum();
    let mut shares = [0.0; 6];
    assert!(joint.estimate_distribution(&table, &mut shares).unwrap());
    for (cell, &(i, j)) in pairs.iter().enumerate() {
        // π̂ = P^{-T} f̂.
        let expected: f64 = (0..6)
            .map(|report| inverted[report][cell] * table[report] as f64 / total as f64)
            .sum();
        assert!(close(shares[cell], expected, 1e-12), "{i}, {j}");
        let estimator = joint.cell(i, j).unwrap();
        let collapsed = estimator.collapse(&table).unwrap();
        assert_eq!(collapsed.iter().sum::<u64>(), total);
        let estimate = estimator.estimator().estimate(&collapsed).unwrap().unwrap();
        assert!(close(estimate, expected, 1e-12));
    }
    assert!(close(shares.iter().sum::<f64>(), 1.0, 1e-12));
    assert!(!joint.estimate_distribution(&[0; 6], &mut shares).unwrap());
    assert!(matches!(
        joint.cell(0, 0).unwrap().collapse(&[1, 2, 3]),
        Err(DesignError::CountsLength {
            expected: 6,
            got: 3
        })
    ));
    assert!(joint.cell(2, 0).is_err() && joint.cell(0, 3).is_err());
}

#[test]
fn a_joint_cell_of_two_mirrored_questions_has_four_values_and_width_p_over_r_squared() {
    let design = Design::mirrored(level(1.0));
    let joint = JointDesign::new(&design, &design);
    let (u_low, u_high) = yes_share(&design).value_range();
    let cell = joint.cell(Design::YES, Design::YES).unwrap();
    let estimator = cell.estimator();
    assert_eq!(
        estimator.values(),
        &[
            u_low * u_low,
            u_low * u_high,
            u_high * u_low,
            u_high * u_high
        ]
    );
    assert!(!estimator.is_two_valued());
    let (p, r) = (level(1.0).truth_probability(), level(1.0).signal());
    assert!(close(estimator.value_width(), p / (r * r), 1e-12));
    // Chernoff and anytime apply; exact does not.
    let table = [400, 100, 100, 400];
    let collapsed = cell.collapse(&table).unwrap();
    // Report pair (yes, yes) is the last collapsed report, (no, no) the first.
    assert_eq!(collapsed, [400, 100, 100, 400]);
    let chosen = confidence(0.95);
    assert!(estimator
        .chernoff_interval(&collapsed, chosen)
        .unwrap()
        .is_some());
    assert_eq!(estimator.exact_interval(&collapsed, chosen), Ok(None));
}

#[test]
fn conditional_proportions_are_ratio_bounds_at_beta_over_two() {
    let design = Design::mirrored(level(2.0));
    let joint = JointDesign::new(&design, &design);
    // True joint: (no, no) 0.4, (no, yes) 0.1, (yes, no) 0.1, (yes, yes) 0.4, so
    // π(yes | yes) = 0.8. The table of expected counts at N = 10¹² (rounded).
    let truth = [0.4, 0.1, 0.1, 0.4];
    let total = 1e12;
    let table: Vec<u64> = (0..4)
        .map(|report| {
            let expected: f64 = (0..4)
                .map(|t| truth[t] * joint.probability((t / 2, t % 2), (report / 2, report % 2)))
                .sum();
            (expected * total).round() as u64
        })
        .collect();
    let conditional = joint.conditional(Design::YES, Design::YES).unwrap();
    let chosen = confidence(0.95);
    let summary = conditional
        .summarize(&table, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert!(close(summary.estimate.unwrap(), 0.8, 1e-9));
    for bounds in [summary.chernoff.unwrap(), summary.anytime.unwrap()] {
        assert!(bounds.contains(0.8) && bounds.high() - bounds.low() < 1e-4);
    }
    assert_eq!(summary.exact, None);
    // The ratio of the two intervals at 1 − β/2, by hand, on a small table.
    let small = [30_u64, 12, 9, 49];
    let summary = conditional
        .summarize(&small, chosen, 1_000)
        .unwrap()
        .unwrap();
    let each = confidence(0.975);
    let numerator_counts = conditional.numerator().collapse(&small).unwrap();
    let denominator_counts = [
        numerator_counts[0] + numerator_counts[1],
        numerator_counts[2] + numerator_counts[3],
    ];
    let numerator = conditional
        .numerator()
        .estimator()
        .chernoff_interval(&numerator_counts, each)
        .unwrap()
        .unwrap();
    let denominator = conditional
        .denominator()
        .chernoff_interval(&denominator_counts, each)
        .unwrap()
        .unwrap();
    let chernoff = summary.chernoff;
    if denominator.low() > 0.0 {
        let bounds = chernoff.unwrap();
        let low = numerator.low().max(0.0) / denominator.high();
        let high = (numerator.high() / denominator.low()).min(1.0);
        assert!(close(bounds.low(), low, 1e-15) && close(bounds.high(), high, 1e-15));
    } else {
        assert_eq!(chernoff, None);
    }
    // Ten respondents cannot show that anybody answered yes: undefined, not [0, 1].
    let few = [3_u64, 2, 2, 3];
    let summary = conditional.summarize(&few, chosen, 1_000).unwrap().unwrap();
    assert_eq!((summary.chernoff, summary.anytime), (None, None));
    assert_eq!(conditional.summarize(&[0; 4], chosen, 1_000), Ok(None));
}
