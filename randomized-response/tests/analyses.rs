//! The analyses of issue 18 on one question, at the extremes and against closed forms:
//! one-sided bounds, tests of θ = θ0 and the consistency e-value (across groups and
//! questions: tests/groups_and_joint.rs).

use randomized_response::{
    Bound, Confidence, Design, DesignError, Mechanism, NumberDesign, PerRecordEstimator,
    PrivacyLevel, Side, CONSISTENCY_ALPHA,
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
        .unwrap()
        .value()
        .unwrap();
    let lower = estimator
        .chernoff_bound(&counts, Side::Lower, ninety_five)
        .unwrap()
        .unwrap()
        .value()
        .unwrap();
    assert!(close(upper, estimate + margin, 1e-14));
    assert!(close(lower, estimate - margin, 1e-14));
    // The two-sided interval at 90 % has the same ends: ln(2/0.1) = ln(1/0.05).
    let ninety = estimator
        .chernoff_interval(&counts, confidence(0.90))
        .unwrap()
        .unwrap();
    assert!(
        close(ninety.high().unwrap(), upper, 1e-14) && close(ninety.low().unwrap(), lower, 1e-14)
    );
    // Clamped to the target's range at the extremes.
    let all_yes = [0, 10];
    let top = estimator.chernoff_bound(&all_yes, Side::Upper, ninety_five);
    assert_eq!(top.unwrap(), Some(Bound::Within(1.0)));
    let all_no = [10, 0];
    let bottom = estimator.chernoff_bound(&all_no, Side::Lower, ninety_five);
    assert_eq!(bottom.unwrap(), Some(Bound::Within(0.0)));
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
    // Each within [0, 1]; an upper bound below 0 (a lower one above 1) is empty.
    let within = |bound: f64, upper: bool| {
        if (upper && bound < 0.0) || (!upper && bound > 1.0) {
            None
        } else {
            Some(bound.clamp(0.0, 1.0))
        }
    };
    for n in [1_u64, 10, 100, 10_000] {
        let upper = estimator
            .exact_bound(&[n, 0], Side::Upper, ninety_five)
            .unwrap()
            .unwrap()
            .value();
        let expected = within(w_min + width * (1.0 - beta.powf(1.0 / n as f64)), true);
        assert_eq!(upper.is_some(), expected.is_some(), "N = {n}: {upper:?}");
        if let (Some(upper), Some(expected)) = (upper, expected) {
            assert!(
                close(upper, expected, 1e-12),
                "N = {n}: {upper} vs {expected}"
            );
        }
        let lower = estimator
            .exact_bound(&[0, n], Side::Lower, ninety_five)
            .unwrap()
            .unwrap()
            .value();
        let expected = within(w_min + width * beta.powf(1.0 / n as f64), false);
        assert_eq!(lower.is_some(), expected.is_some(), "N = {n}: {lower:?}");
        if let (Some(lower), Some(expected)) = (lower, expected) {
            assert!(
                close(lower, expected, 1e-12),
                "N = {n}: {lower} vs {expected}"
            );
        }
        // Beyond the data, the target's own ends.
        let top = estimator.exact_bound(&[0, n], Side::Upper, ninety_five);
        assert_eq!(top.unwrap(), Some(Bound::Within(1.0)));
        let bottom = estimator.exact_bound(&[n, 0], Side::Lower, ninety_five);
        assert_eq!(bottom.unwrap(), Some(Bound::Within(0.0)));
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
        // (At 3 yes the interval lies below 0, and the upper bound is empty with it.)
        let (low, high) = ninety.computed();
        for (bound, expected) in [(upper, within(high, true)), (lower, within(low, false))] {
            let bound = bound.unwrap().unwrap().value();
            assert_eq!(bound.is_some(), expected.is_some(), "{yes} yes: {bound:?}");
            if let (Some(bound), Some(expected)) = (bound, expected) {
                assert!(
                    close(bound, expected, 1e-12),
                    "{yes} yes: {bound} vs {expected}"
                );
            }
        }
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
            .unwrap()
            .value()
            .unwrap();
        let lower = estimator
            .anytime_bound(&counts, Side::Lower, chosen, planned)
            .unwrap()
            .unwrap()
            .value()
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
    let value = |bound: Bound| bound.value().unwrap();
    let exact = value(summary.exact.unwrap());
    let (chernoff, anytime) = (value(summary.chernoff), value(summary.anytime));
    assert!(exact < chernoff && chernoff < anytime);
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

#[test]
fn reports_the_design_cannot_produce_give_empty_intervals_that_agree_with_the_test() {
    // Issue 32: mirrored ε = 0.5, 50 yes of 200. The design reports yes at least
    // q = 1/(1 + e^0.5) ≈ 37.8 % of the time whatever the truth; 25 % lies so far below
    // that every interval lies entirely below 0, so none is a point at 0.
    let estimator = yes_share(&Design::mirrored(level(0.5)));
    let counts = [150, 50];
    let chosen = confidence(0.95);
    let summary = estimator
        .summarize(&counts, chosen, 1_000)
        .unwrap()
        .unwrap();
    for interval in [summary.chernoff, summary.exact.unwrap(), summary.anytime] {
        assert!(interval.is_empty(), "{interval:?}");
        assert_eq!((interval.low(), interval.high()), (None, None));
        assert!(!interval.contains(0.0));
        let (_, computed_high) = interval.computed();
        assert!(computed_high < 0.0, "{interval:?}");
        assert!(interval.half_width() > 0.0);
    }
    // The test of θ0 = 0 says the same: p < β exactly when θ0 lies outside the anytime
    // interval, and 0 does.
    let p = estimator
        .anytime_p_value(&counts, 0.0, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert!(p < chosen.beta(), "p = {p}");
    // The one-sided upper bounds lie below 0 too ("at most" nothing in [0, 1]); the lower
    // ones say nothing beyond the range's own end.
    let upper = estimator
        .one_sided(&counts, Side::Upper, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert_eq!(
        (upper.chernoff, upper.exact, upper.anytime),
        (Bound::Empty, Some(Bound::Empty), Bound::Empty)
    );
    let lower = estimator
        .one_sided(&counts, Side::Lower, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert_eq!(lower.chernoff, Bound::Within(0.0));
    // A difference against a group with consistent reports is empty as well.
    let difference = estimator
        .difference_chernoff_interval(&counts, &[100, 100], chosen)
        .unwrap()
        .unwrap();
    assert!(
        !difference.is_empty(),
        "only the group's own interval is empty"
    );
    let combined = estimator
        .difference_exact_interval(&counts, &[100, 100], chosen)
        .unwrap()
        .unwrap();
    assert!(combined.is_empty(), "{combined:?}");
}

#[test]
fn an_interval_touching_the_range_keeps_its_end_and_is_not_empty() {
    // At the last count whose Chernoff interval still reaches 0 the interval is [0, h'],
    // and at θ0 = 0 the anytime p-value is not below β while 0 is inside.
    let estimator = yes_share(&Design::mirrored(level(0.5)));
    let chosen = confidence(0.95);
    for yes in 50..=120_u64 {
        let counts = [200 - yes, yes];
        let anytime = estimator
            .anytime_interval(&counts, chosen, 1_000)
            .unwrap()
            .unwrap();
        let p = estimator
            .anytime_p_value(&counts, 0.0, chosen, 1_000)
            .unwrap()
            .unwrap();
        assert_eq!(
            anytime.contains(0.0),
            p >= chosen.beta(),
            "{yes} yes: {anytime:?}, p = {p}"
        );
        if let Some((low, high)) = anytime.range() {
            assert!((0.0..=high).contains(&low) && high <= 1.0);
        }
    }
}
