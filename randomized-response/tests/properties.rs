//! Property tests: for arbitrary valid tallies every returned number is finite,
//! low ≤ clipped estimate ≤ high, and every interval lies within [0, 1].

use proptest::prelude::*;
use randomized_response::{
    posterior_after_no, posterior_after_yes, respondents_needed, summarize, Confidence, Interval,
    PrivacyLevel, Tally,
};

fn privacy_level() -> impl Strategy<Value = PrivacyLevel> {
    (PrivacyLevel::MIN_EPSILON..=PrivacyLevel::MAX_EPSILON)
        .prop_map(|epsilon| PrivacyLevel::new(epsilon).unwrap())
}

fn tally() -> impl Strategy<Value = Tally> {
    // Up to a billion reports, any share of them yes.
    (0_u64..=1_000_000_000, 0.0..=1.0_f64).prop_map(|(n, share)| {
        let reported_yes = ((n as f64) * share).floor() as u64;
        Tally::new(n, reported_yes.min(n)).unwrap()
    })
}

fn confidence() -> impl Strategy<Value = Confidence> {
    prop_oneof![Just(0.9), Just(0.95), Just(0.99), 0.001..0.999_999_f64]
        .prop_map(|level| Confidence::new(level).unwrap())
}

fn assert_well_formed(interval: Interval, clipped_estimate: f64) {
    let (computed_low, computed_high) = interval.computed();
    for value in [computed_low, computed_high, interval.half_width()] {
        assert!(value.is_finite(), "{interval:?}");
    }
    let Some((low, high)) = interval.range() else {
        // Empty only when the interval as computed lies entirely outside [0, 1].
        assert!(computed_high < 0.0 || computed_low > 1.0, "{interval:?}");
        return;
    };
    assert!(0.0 <= low && high <= 1.0, "{interval:?}");
    assert!(
        low <= clipped_estimate && clipped_estimate <= high,
        "{interval:?} does not contain {clipped_estimate}"
    );
    assert!(interval.half_width() >= 0.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_summary_of_one_epsilon_is_finite_and_ordered(
        level in privacy_level(),
        tally in tally(),
        confidence in confidence(),
        planned in 1_u64..10_000_000,
    ) {
        match summarize(&[(level, tally)], confidence, planned) {
            None => prop_assert_eq!(tally.n(), 0),
            Some(summary) => {
                prop_assert!(summary.estimate.is_finite());
                prop_assert!((0.0..=1.0).contains(&summary.estimate_clipped));
                assert_well_formed(summary.chernoff, summary.estimate_clipped);
                assert_well_formed(summary.anytime, summary.estimate_clipped);
                let exact = summary.exact.expect("one ε has an exact interval");
                assert_well_formed(exact, summary.estimate_clipped);
            }
        }
    }

    #[test]
    fn every_summary_of_mixed_epsilons_is_finite_and_ordered(
        groups in prop::collection::vec((privacy_level(), tally()), 0..5),
        confidence in confidence(),
        planned in 1_u64..10_000_000,
    ) {
        let total: u64 = groups.iter().map(|(_, tally)| tally.n()).sum();
        match summarize(&groups, confidence, planned) {
            None => prop_assert_eq!(total, 0),
            Some(summary) => {
                prop_assert_eq!(summary.n, total);
                prop_assert!(summary.estimate.is_finite());
                assert_well_formed(summary.chernoff, summary.estimate_clipped);
                assert_well_formed(summary.anytime, summary.estimate_clipped);
                if let Some(exact) = summary.exact {
                    assert_well_formed(exact, summary.estimate_clipped);
                }
            }
        }
    }

    #[test]
    fn posteriors_are_probabilities_within_a_factor_e_epsilon_in_odds(
        level in privacy_level(),
        prior in 0.0..=1.0_f64,
    ) {
        let after_yes = posterior_after_yes(prior, level).unwrap();
        let after_no = posterior_after_no(prior, level).unwrap();
        prop_assert!((0.0..=1.0).contains(&after_yes) && (0.0..=1.0).contains(&after_no));
        prop_assert!(after_no <= prior + 1e-12 && prior <= after_yes + 1e-12);
    }

    #[test]
    fn the_planner_returns_a_positive_count(
        level in privacy_level(),
        half_width in 0.001..=1.0_f64,
        confidence in confidence(),
    ) {
        prop_assert!(respondents_needed(half_width, level, confidence).unwrap() >= 1);
    }
}
