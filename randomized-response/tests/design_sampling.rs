//! Every design through its real sampler: report frequencies against the matrix, the
//! estimates' unbiasedness, and the order of the draws in a submission. Fixed seeds; the
//! tolerances are 5 standard deviations computed from the realized matrix.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{submission_rng, Design, NumberDesign, PerRecordEstimator, PrivacyLevel};

const DRAWS: u32 = 1_000_000;
const SURVEYS: u32 = 2_000;

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn designs() -> Vec<(&'static str, Design)> {
    vec![
        ("mirrored ε = 0.1", Design::mirrored(level(0.1))),
        (
            "mirrored ε = ln 3",
            Design::mirrored(PrivacyLevel::warner()),
        ),
        ("mirrored ε = 5", Design::mirrored(level(5.0))),
        (
            "forced response 0.67/0.165/0.165",
            Design::forced_response(0.67, 0.165, 0.165).unwrap(),
        ),
        (
            "forced response 0.8/0.15/0.05",
            Design::forced_response(0.8, 0.15, 0.05).unwrap(),
        ),
        (
            "unrelated question 0.7/0.5",
            Design::unrelated_question(0.7, 0.5).unwrap(),
        ),
        (
            "unrelated question 0.5/0.2",
            Design::unrelated_question(0.5, 0.2).unwrap(),
        ),
        ("k-ary k = 3, ε = 1", Design::k_ary(3, level(1.0)).unwrap()),
        (
            "k-ary k = 5, ε = 1.5",
            Design::k_ary(5, level(1.5)).unwrap(),
        ),
        (
            "k-ary k = 20, ε = 2",
            Design::k_ary(20, level(2.0)).unwrap(),
        ),
        (
            "k-ary k = 20, ε = 0.1",
            Design::k_ary(20, level(0.1)).unwrap(),
        ),
    ]
}

/// Whether an observed count is within 5 standard deviations of its binomial mean.
fn within_five_sd(count: u64, trials: u64, probability: f64) -> bool {
    let mean = trials as f64 * probability;
    let sd = (trials as f64 * probability * (1.0 - probability)).sqrt();
    (count as f64 - mean).abs() <= 5.0 * sd
}

/// Runs `work` over `items` on both cores, keeping their order.
fn in_parallel<I: Sync, T: Send>(items: &[I], work: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let (first, second) = items.split_at(items.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| second.iter().map(&work).collect::<Vec<_>>());
        let mut results: Vec<T> = first.iter().map(&work).collect();
        results.extend(other.join().unwrap());
        results
    })
}

#[test]
fn every_row_of_every_design_is_sampled_with_its_probabilities_within_five_sd() {
    let designs = designs();
    let failures = in_parallel(&designs, |(name, design)| {
        let mut failures = Vec::new();
        let k = design.answers();
        for truth in 0..k {
            let seed = name
                .bytes()
                .fold(truth as u64, |s, b| s * 31 + u64::from(b));
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let mut counts = vec![0_u64; k];
            for _ in 0..DRAWS {
                counts[design.respond(truth, &mut rng).unwrap()] += 1;
            }
            for (report, &count) in counts.iter().enumerate() {
                let probability = design.probability(truth, report);
                if !within_five_sd(count, u64::from(DRAWS), probability) {
                    failures.push(format!(
                        "{name}: truth {truth}, report {report}: {count} of {DRAWS}, P = {probability}"
                    ));
                }
            }
        }
        failures
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_number_is_reported_as_the_upper_end_with_probability_q_plus_r_x_within_five_sd() {
    let cases: Vec<(f64, f64)> = [0.5, 2.0]
        .into_iter()
        .flat_map(|epsilon| [0.0, 0.5, 7.3, 15.0, 29.99, 30.0].map(move |value| (epsilon, value)))
        .collect();
    let failures = in_parallel(&cases, |&(epsilon, value)| {
        let number = NumberDesign::new(0.0, 30.0, level(epsilon)).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(value.to_bits() ^ epsilon.to_bits());
        let upper = (0..DRAWS)
            .filter(|_| number.respond(value, &mut rng).unwrap() == NumberDesign::MAX_END)
            .count() as u64;
        let probability = number
            .report_probability(value, NumberDesign::MAX_END)
            .unwrap();
        let (p, q) = (
            number.ends().probability(1, 1),
            number.ends().probability(0, 1),
        );
        assert!((probability - (q + (p - q) * value / 30.0)).abs() < 1e-15);
        (!within_five_sd(upper, u64::from(DRAWS), probability))
            .then(|| format!("ε = {epsilon}, v = {value}: {upper} of {DRAWS}, P = {probability}"))
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A truth drawn from a distribution over answers by one 64-bit draw (to within 2^-53).
fn draw_answer(distribution: &[f64], rng: &mut ChaCha20Rng) -> usize {
    let uniform = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let mut cumulative = 0.0;
    for (answer, &probability) in distribution.iter().enumerate() {
        cumulative += probability;
        if uniform < cumulative {
            return answer;
        }
    }
    distribution.iter().rposition(|&p| p > 0.0).unwrap()
}

/// The exact mean and variance of the per-record value when reports have frequencies `f`.
fn value_moments(estimator: &PerRecordEstimator, frequencies: &[f64]) -> (f64, f64) {
    let mean: f64 = frequencies
        .iter()
        .zip(estimator.values())
        .map(|(f, w)| f * w)
        .sum();
    let square: f64 = frequencies
        .iter()
        .zip(estimator.values())
        .map(|(f, w)| f * w * w)
        .sum();
    (mean, square - mean * mean)
}

/// The true distributions a design's estimates are checked at: all on the first answer,
/// uniform, and skewed.
fn distributions(k: usize) -> Vec<Vec<f64>> {
    let mut point = vec![0.0; k];
    point[0] = 1.0;
    let uniform = vec![1.0 / k as f64; k];
    let total = (k * (k + 1) / 2) as f64;
    let skewed = (0..k).map(|i| (k - i) as f64 / total).collect();
    vec![point, uniform, skewed]
}

#[test]
fn every_estimate_of_every_design_is_unbiased_within_five_standard_errors() {
    let mut cases = Vec::new();
    for (name, design) in designs() {
        for distribution in distributions(design.answers()) {
            for respondents in [10_u64, 100] {
                cases.push((name, design.clone(), distribution.clone(), respondents));
            }
        }
    }
    let failures = in_parallel(&cases, |(name, design, distribution, respondents)| {
        let k = design.answers();
        let mut estimators: Vec<(String, PerRecordEstimator, f64)> = (0..k)
            .map(|option| {
                let estimator = design.option_estimator(option).unwrap();
                (format!("option {option}"), estimator, distribution[option])
            })
            .collect();
        let mean_level: f64 = distribution
            .iter()
            .enumerate()
            .map(|(i, p)| i as f64 * p)
            .sum();
        estimators.push((
            "mean level".into(),
            design.mean_level_estimator(),
            mean_level,
        ));
        let frequencies: Vec<f64> = (0..k)
            .map(|r| {
                (0..k)
                    .map(|t| distribution[t] * design.probability(t, r))
                    .sum()
            })
            .collect();
        let seed = name
            .bytes()
            .fold(*respondents, |s, b| s * 31 + u64::from(b));
        let mut rng = ChaCha20Rng::seed_from_u64(seed ^ distribution[0].to_bits());
        let mut sums = vec![0.0; estimators.len()];
        for _ in 0..SURVEYS {
            let mut counts = vec![0_u64; k];
            for _ in 0..*respondents {
                let truth = draw_answer(distribution, &mut rng);
                counts[design.respond(truth, &mut rng).unwrap()] += 1;
            }
            for (sum, (_, estimator, _)) in sums.iter_mut().zip(&estimators) {
                *sum += estimator.estimate(&counts).unwrap().unwrap();
            }
        }
        let mut failures = Vec::new();
        for (sum, (label, estimator, truth)) in sums.iter().zip(&estimators) {
            let (expected, variance) = value_moments(estimator, &frequencies);
            assert!((expected - truth).abs() <= 1e-12 * estimator.value_width());
            let standard_error = (variance / (*respondents as f64 * f64::from(SURVEYS))).sqrt();
            let mean = sum / f64::from(SURVEYS);
            if (mean - truth).abs() > 5.0 * standard_error.max(1e-12) {
                failures.push(format!(
                    "{name}, π = {distribution:?}, N = {respondents}, {label}: mean {mean}, \
                     truth {truth}, standard error {standard_error}"
                ));
            }
        }
        failures
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_mean_of_a_number_is_unbiased_within_five_standard_errors() {
    // Values from a skewed population on 0–30 (a count of days), and from the ends.
    let populations: [(&str, Vec<(f64, f64)>); 3] = [
        (
            "skewed",
            vec![
                (0.0, 0.4),
                (1.0, 0.2),
                (2.5, 0.15),
                (7.0, 0.15),
                (30.0, 0.1),
            ],
        ),
        ("all zero", vec![(0.0, 1.0)]),
        ("all thirty", vec![(30.0, 1.0)]),
    ];
    let mut cases = Vec::new();
    for epsilon in [0.5, 1.0, 5.0] {
        for (name, population) in &populations {
            cases.push((epsilon, *name, population.clone()));
        }
    }
    let failures = in_parallel(&cases, |(epsilon, name, population)| {
        let number = NumberDesign::new(0.0, 30.0, level(*epsilon)).unwrap();
        let estimator = number.mean_estimator();
        let weights: Vec<f64> = population.iter().map(|&(_, w)| w).collect();
        let mean: f64 = population.iter().map(|(v, w)| v * w).sum();
        // Reports are Bernoulli(E[P(upper | v)]): the per-record value's exact variance.
        let upper: f64 = population
            .iter()
            .map(|&(v, w)| w * number.report_probability(v, 1).unwrap())
            .sum();
        let (expected, variance) = value_moments(&estimator, &[1.0 - upper, upper]);
        assert!((expected - mean).abs() < 1e-12 * estimator.value_width());
        let respondents = 100_u64;
        let mut rng = ChaCha20Rng::seed_from_u64(epsilon.to_bits() ^ mean.to_bits());
        let mut sum = 0.0;
        for _ in 0..SURVEYS {
            let mut counts = [0_u64; 2];
            for _ in 0..respondents {
                let value = population[draw_answer(&weights, &mut rng)].0;
                counts[number.respond(value, &mut rng).unwrap()] += 1;
            }
            sum += estimator.estimate(&counts).unwrap().unwrap();
        }
        let standard_error = (variance / (respondents as f64 * f64::from(SURVEYS))).sqrt();
        let observed = sum / f64::from(SURVEYS);
        ((observed - mean).abs() > 5.0 * standard_error).then(|| {
            format!("ε = {epsilon}, {name}: mean {observed}, truth {mean}, SE {standard_error}")
        })
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_submission_takes_one_draw_per_choice_and_two_per_number_in_question_order() {
    let (device, nonce) = ([7_u8; 32], [201_u8; 32]);
    let yes_no = Design::mirrored(level(1.0));
    let choice = Design::k_ary(4, level(1.5)).unwrap();
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    let forced = Design::forced_response(0.67, 0.165, 0.165).unwrap();

    let mut rng = submission_rng(&device, &nonce);
    let reports = [
        yes_no.respond(Design::YES, &mut rng).unwrap(),
        choice.respond(2, &mut rng).unwrap(),
        number.respond(12.5, &mut rng).unwrap(),
        forced.respond(Design::NO, &mut rng).unwrap(),
    ];

    let mut draws = submission_rng(&device, &nonce);
    let mut next = || draws.next_u64();
    let expected = [
        yes_no.report_for_draw(Design::YES, next()).unwrap(),
        choice.report_for_draw(2, next()).unwrap(),
        {
            let rounding = next();
            number.report_for_draws(12.5, rounding, next()).unwrap()
        },
        forced.report_for_draw(Design::NO, next()).unwrap(),
    ];
    assert_eq!(reports, expected);
    // Five draws in all: the sixth is the next one either stream gives.
    let sixth = next();
    assert_eq!(rng.next_u64(), sixth);
    // And the mirrored question's report is today's.
    let mut today = submission_rng(&device, &nonce);
    let first = randomized_response::respond(true, level(1.0), &mut today);
    assert_eq!(reports[0] == Design::YES, first);
}
