//! Property tests over arbitrary design parameters and report counts: a design is either
//! refused for a documented reason or privacy-safe (realized ε ≤ promised ε, every cell
//! positive, rows adding up to 2^64), and every summary is finite, ordered and within the
//! target's range.

use proptest::prelude::*;
use randomized_response::{
    Confidence, Design, DesignError, NumberDesign, PerRecordEstimator, PrivacyLevel,
};

fn check_design(design: &Design) {
    let k = design.answers();
    assert!(design.realized_epsilon() <= design.epsilon());
    for truth in 0..k {
        let row: u128 = (0..k).map(|r| u128::from(design.cell(truth, r))).sum();
        assert_eq!(row, 1 << 64);
        for report in 0..k {
            assert!(design.cell(truth, report) >= 1);
            // Each report is most likely under its own truth.
            assert!(design.cell(report, report) > design.cell(truth, report) || truth == report);
        }
    }
}

fn check_refusal(error: DesignError) {
    assert!(
        matches!(
            error,
            DesignError::DesignEpsilonOutOfRange { .. }
                | DesignError::BelowResolution
                | DesignError::ReportProvesAnswer { .. }
                | DesignError::NoRandomization
                | DesignError::ReportsIgnoreTruth
        ),
        "{error:?}"
    );
    assert!(!error.to_string().is_empty());
}

fn check_summary(estimator: &PerRecordEstimator, counts: &[u64], confidence: f64, planned: u64) {
    let confidence = Confidence::new(confidence).unwrap();
    let total: u64 = counts.iter().sum();
    let (low, high) = estimator.target_range();
    match estimator.summarize(counts, confidence, planned).unwrap() {
        None => assert_eq!(total, 0),
        Some(summary) => {
            assert_eq!(summary.n, total);
            assert!(summary.estimate.is_finite());
            let clipped = summary.estimate_clipped;
            assert!((low..=high).contains(&clipped));
            let exact = summary.exact;
            assert_eq!(exact.is_some(), estimator.is_two_valued());
            for bounds in [Some(summary.chernoff), exact, Some(summary.anytime)]
                .into_iter()
                .flatten()
            {
                assert!(bounds.half_width() >= 0.0);
                let (computed_low, computed_high) = bounds.computed();
                assert!(computed_low.is_finite() && computed_high.is_finite());
                let Some((bounds_low, bounds_high)) = bounds.range() else {
                    // Empty only when it lies entirely outside the target's range.
                    assert!(computed_high < low || computed_low > high, "{bounds:?}");
                    continue;
                };
                assert!(low <= bounds_low && bounds_high <= high, "{bounds:?}");
                assert!(bounds.contains(clipped), "{bounds:?} misses {clipped}");
            }
        }
    }
}

fn counts(k: usize) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(prop_oneof![Just(0_u64), 0_u64..20, 0_u64..1_000_000_000], k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn forced_response_is_refused_or_safe(
        truthfully in prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64, 0.0..1e-6_f64],
        share in prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64, 0.0..1e-9_f64],
    ) {
        let yes = (1.0 - truthfully) * share;
        match Design::forced_response(truthfully, yes, 1.0 - truthfully - yes) {
            Ok(design) => check_design(&design),
            Err(error) => check_refusal(error),
        }
    }

    #[test]
    fn the_unrelated_question_is_refused_or_safe(
        truthfully in prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64, 0.999_999..1.0_f64],
        innocuous in prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64],
    ) {
        match Design::unrelated_question(truthfully, innocuous) {
            Ok(design) => check_design(&design),
            Err(error) => check_refusal(error),
        }
    }

    #[test]
    fn every_summary_of_a_choice_is_finite_ordered_and_in_range(
        options in 2_usize..=20,
        epsilon in PrivacyLevel::MIN_EPSILON..=PrivacyLevel::MAX_EPSILON,
        counts in counts(20),
        option in 0_usize..20,
        confidence in 0.5..0.999_f64,
        planned in 1_u64..10_000_000,
    ) {
        let design = Design::k_ary(options, PrivacyLevel::new(epsilon).unwrap()).unwrap();
        check_design(&design);
        let counts = &counts[..options];
        let option = option % options;
        check_summary(&design.option_estimator(option).unwrap(), counts, confidence, planned);
        check_summary(&design.mean_level_estimator(), counts, confidence, planned);
        let total: u64 = counts.iter().sum();
        if let Some(shares) = design.estimate_distribution(counts).unwrap() {
            prop_assert!(total > 0);
            let sum: f64 = shares.as_slice().iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-6 * shares.as_slice().iter().map(|s| s.abs()).sum::<f64>().max(1.0));
        }
    }

    #[test]
    fn every_summary_of_a_number_is_finite_ordered_and_in_range(
        min in -1e6..1e6_f64,
        span in 1e-3..1e6_f64,
        epsilon in PrivacyLevel::MIN_EPSILON..=PrivacyLevel::MAX_EPSILON,
        position in 0.0..=1.0_f64,
        draws in (any::<u64>(), any::<u64>()),
        counts in counts(2),
    ) {
        let number = NumberDesign::new(min, min + span, PrivacyLevel::new(epsilon).unwrap()).unwrap();
        let value = (min + span * position).clamp(number.min(), number.max());
        let report = number.report_for_draws(value, draws.0, draws.1).unwrap();
        prop_assert!(report <= NumberDesign::MAX_END);
        let upper = number.report_probability(value, NumberDesign::MAX_END).unwrap();
        prop_assert!((0.0..=1.0).contains(&upper));
        check_summary(&number.mean_estimator(), &counts, 0.95, 1000);
    }
}
