//! The privacy level, the exact sampler and the seeding, with exact values at the extremes.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{
    randomize_submission, respond, submission_rng, unbiased_value, MechanismError, PrivacyLevel,
    Tally,
};

const LN_3: f64 = 1.098_612_288_668_109_8;

#[test]
fn warners_coin_is_epsilon_ln_3_and_truth_probability_three_quarters() {
    let warner = PrivacyLevel::warner();
    assert!((warner.epsilon() - LN_3).abs() < 1e-15);
    assert!((warner.truth_probability() - 0.75).abs() < 1e-15);
    assert!((warner.lie_probability() - 0.25).abs() < 1e-15);
    assert!((warner.signal() - 0.5).abs() < 1e-15);
    let from_coin = PrivacyLevel::from_truth_probability(0.75).unwrap();
    assert!((from_coin.epsilon() - LN_3).abs() < 1e-15);
}

#[test]
fn truth_probability_and_epsilon_round_trip() {
    for &epsilon in &[0.01, 0.1, 0.5, 1.0, LN_3, 2.0, 5.0, 10.0, 15.0, 19.5] {
        let level = PrivacyLevel::new(epsilon).unwrap();
        let back = PrivacyLevel::from_truth_probability(level.truth_probability()).unwrap();
        // p near 1 loses bits in 1 − p: the round trip is as exact as p's ulp allows.
        let tolerance = 1e-15 / level.lie_probability();
        assert!(
            (back.epsilon() - epsilon).abs() <= tolerance,
            "ε = {epsilon} came back as {}",
            back.epsilon()
        );
        let sum = level.truth_probability() + level.lie_probability();
        assert!((sum - 1.0).abs() < 1e-15);
        let signal = 2.0 * level.truth_probability() - 1.0;
        assert!((level.signal() - signal).abs() < 1e-15);
    }
}

#[test]
fn epsilon_outside_the_documented_range_is_refused_with_a_clear_message() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            PrivacyLevel::new(bad),
            Err(MechanismError::EpsilonNotFinite)
        );
    }
    for bad in [0.0, -0.0, -1.0, 0.009_999, 20.000_001, 1e300] {
        assert_eq!(
            PrivacyLevel::new(bad),
            Err(MechanismError::EpsilonOutOfRange(bad))
        );
    }
    let message = PrivacyLevel::new(25.0).unwrap_err().to_string();
    assert_eq!(message, "epsilon must be between 0.01 and 20, got 25");
    assert!(PrivacyLevel::new(PrivacyLevel::MIN_EPSILON).is_ok());
    assert!(PrivacyLevel::new(PrivacyLevel::MAX_EPSILON).is_ok());
}

#[test]
fn truth_probabilities_outside_one_half_to_one_are_refused() {
    for bad in [f64::NAN, 0.0, 0.3, 0.5, 0.502, 1.0, 1.5, 1.0 - 1e-12] {
        assert!(
            matches!(
                PrivacyLevel::from_truth_probability(bad),
                Err(MechanismError::TruthProbabilityOutOfRange(_))
            ),
            "{bad} was accepted"
        );
    }
}

/// Every accepted ε the test visits: both ends, a dense log grid, and the float
/// neighbours of the ends.
fn accepted_levels() -> impl Iterator<Item = PrivacyLevel> {
    let (low, high) = (PrivacyLevel::MIN_EPSILON, PrivacyLevel::MAX_EPSILON);
    let steps = 20_000;
    let grid =
        (0..=steps).map(move |step| low * (high / low).powf(f64::from(step) / f64::from(steps)));
    let ends = [
        low,
        high,
        f64::from_bits(low.to_bits() + 1),
        f64::from_bits(high.to_bits() - 1),
    ];
    grid.chain(ends)
        .filter_map(|epsilon| PrivacyLevel::new(epsilon).ok())
}

#[test]
fn the_realized_epsilon_never_exceeds_the_promised_epsilon_across_the_range() {
    let mut visited = 0;
    for level in accepted_levels() {
        visited += 1;
        assert!(
            level.realized_epsilon() <= level.epsilon(),
            "ε = {}: realized {}",
            level.epsilon(),
            level.realized_epsilon()
        );
        assert!(level.realized_truth_probability() < level.truth_probability());
        // Rounding toward privacy costs almost nothing: at most 11 ulps of p.
        let shortfall = level.truth_probability() - level.realized_truth_probability();
        assert!(
            shortfall <= 11.0 * f64::EPSILON / 2.0,
            "shortfall {shortfall}"
        );
    }
    assert!(visited > 20_000);
}

#[test]
fn the_realized_epsilon_at_both_ends_of_the_range_is_exactly_computable() {
    for level in [
        PrivacyLevel::new(PrivacyLevel::MIN_EPSILON).unwrap(),
        PrivacyLevel::new(PrivacyLevel::MAX_EPSILON).unwrap(),
    ] {
        let threshold = level.threshold();
        // The threshold is a whole number of 2^-53 steps below 2^64, so both counts are
        // exact floats and the realized probability is exactly T / 2^64.
        assert_eq!(threshold % 2048, 0);
        let lies = threshold.wrapping_neg();
        assert_eq!(threshold as f64 + lies as f64, 18_446_744_073_709_551_616.0);
        assert!(level.realized_epsilon() < level.epsilon());
        assert!(level.epsilon() - level.realized_epsilon() < 1e-6);
    }
}

#[test]
fn the_sampler_reports_the_truth_with_frequency_p_within_five_standard_deviations() {
    let draws = 1_000_000_u32;
    for (seed, epsilon) in [(1_u64, 0.1), (2, 1.0), (3, LN_3), (4, 5.0)] {
        let level = PrivacyLevel::new(epsilon).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let truthful = (0..draws)
            .filter(|draw| {
                let truth = draw % 2 == 0;
                respond(truth, level, &mut rng) == truth
            })
            .count();
        let p = level.truth_probability();
        let frequency = truthful as f64 / f64::from(draws);
        let standard_deviation = (p * (1.0 - p) / f64::from(draws)).sqrt();
        assert!(
            (frequency - p).abs() <= 5.0 * standard_deviation,
            "ε = {epsilon}: frequency {frequency}, p = {p}, sd = {standard_deviation}"
        );
    }
}

#[test]
fn the_sampler_compares_one_64_bit_draw_with_the_threshold() {
    struct Fixed(u64);
    impl RngCore for Fixed {
        fn next_u32(&mut self) -> u32 {
            unreachable!("the sampler draws 64 bits")
        }
        fn next_u64(&mut self) -> u64 {
            self.0
        }
        fn fill_bytes(&mut self, _: &mut [u8]) {
            unreachable!("the sampler draws 64 bits")
        }
    }
    let level = PrivacyLevel::warner();
    let threshold = level.threshold();
    assert!(respond(true, level, &mut Fixed(threshold - 1)));
    assert!(!respond(true, level, &mut Fixed(threshold)));
    assert!(!respond(false, level, &mut Fixed(0)));
    assert!(respond(false, level, &mut Fixed(u64::MAX)));
}

#[test]
fn the_seed_is_the_xor_of_device_bytes_and_nonce_into_standard_chacha20() {
    // RFC 8439, appendix A.1, test vector 1: key and nonce zero, block 0 begins
    // 76 b8 e0 ad a0 f1 3d 90, read as a little-endian u64.
    let mut rng = submission_rng(&[0x5a; 32], &[0x5a; 32]);
    assert_eq!(rng.next_u64(), 0x903d_f1a0_ade0_b876);

    let device: [u8; 32] = core::array::from_fn(|i| i as u8 * 7);
    let nonce: [u8; 32] = core::array::from_fn(|i| 255 - i as u8);
    let combined: [u8; 32] = core::array::from_fn(|i| device[i] ^ nonce[i]);
    let mut mixed = submission_rng(&device, &nonce);
    let mut direct = ChaCha20Rng::from_seed(combined);
    assert_eq!(mixed.next_u64(), direct.next_u64());
}

#[test]
fn question_k_of_a_submission_uses_the_kth_draw_in_question_order() {
    let (device, nonce) = ([3u8; 32], [9u8; 32]);
    let levels = [0.5, LN_3, 2.0, 20.0, 0.01].map(|e| PrivacyLevel::new(e).unwrap());
    let truths = [true, false, true, false, true];
    let reports: Vec<bool> =
        randomize_submission(&device, &nonce, truths.into_iter().zip(levels)).collect();
    let mut rng = submission_rng(&device, &nonce);
    for (k, (&truth, &level)) in truths.iter().zip(&levels).enumerate() {
        let draw = rng.next_u64();
        let expected = if draw < level.threshold() {
            truth
        } else {
            !truth
        };
        assert_eq!(reports[k], expected, "question {k}");
    }
}

#[test]
fn at_the_top_of_the_range_reports_equal_the_truths() {
    // The device lies with probability about 2e-9 at ε = 20.
    let level = PrivacyLevel::new(PrivacyLevel::MAX_EPSILON).unwrap();
    let truths: Vec<bool> = (0..1000).map(|i| i % 3 == 0).collect();
    let reports: Vec<bool> =
        randomize_submission(&[1; 32], &[2; 32], truths.iter().map(|&t| (t, level))).collect();
    assert_eq!(reports, truths);
}

#[test]
fn unbiased_values_average_to_the_truth() {
    for level in [PrivacyLevel::warner(), PrivacyLevel::new(0.1).unwrap()] {
        let (p, q) = (level.truth_probability(), level.lie_probability());
        let given_yes = p * unbiased_value(true, level) + q * unbiased_value(false, level);
        let given_no = q * unbiased_value(true, level) + p * unbiased_value(false, level);
        assert!((given_yes - 1.0).abs() < 1e-12);
        assert!(given_no.abs() < 1e-12);
    }
    // Warner: z is (1 − 1/4)/(1/2) = 3/2 for a yes and (0 − 1/4)/(1/2) = −1/2 for a no.
    assert!((unbiased_value(true, PrivacyLevel::warner()) - 1.5).abs() < 1e-15);
    assert!((unbiased_value(false, PrivacyLevel::warner()) + 0.5).abs() < 1e-15);
}

#[test]
fn tallies_add_and_subtract_like_the_sets_of_reports_they_count() {
    let first = Tally::from_reports([true, false, true]);
    let second = Tally::from_reports([false, true]);
    let both = first.checked_add(second).unwrap();
    assert_eq!((both.n(), both.reported_yes()), (5, 3));
    assert_eq!(both.checked_sub(second), Some(first));
    assert_eq!(first.checked_sub(both), None);
    assert_eq!(
        Tally::new(2, 3),
        Err(MechanismError::YesExceedsCount {
            n: 2,
            reported_yes: 3
        })
    );
    // Withdrawing a yes from a tally that has none is refused, not wrapped around.
    assert_eq!(
        Tally::new(3, 0)
            .unwrap()
            .checked_sub(Tally::new(1, 1).unwrap()),
        None
    );
    assert_eq!(
        Tally::new(u64::MAX, 0)
            .unwrap()
            .checked_add(Tally::new(1, 0).unwrap()),
        None
    );
}
