//! Every design through its real sampler: report frequencies against the matrix, the
//! estimates' unbiasedness, and the order of the draws in a submission. Fixed seeds; the
//! tolerances are 5 standard deviations computed from the realized matrix.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{
    randomize_answers, randomize_submission, submission_rng, Answer, Design, DesignError,
    Mechanism, NumberDesign, PerRecordEstimator, PrivacyLevel,
};

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

#[test]
fn randomize_answers_gives_mirrored_questions_the_reports_of_randomize_submission_for_every_seed() {
    // Fixed-seed inputs: 2 000 submissions of 1 to 20 questions, ε across the whole range.
    let mut inputs = ChaCha20Rng::seed_from_u64(17);
    for submission in 0..2_000 {
        let (mut device, mut nonce) = ([0_u8; 32], [0_u8; 32]);
        inputs.fill_bytes(&mut device);
        inputs.fill_bytes(&mut nonce);
        let count = 1 + submission % 20;
        let answers: Vec<(bool, PrivacyLevel)> = (0..count)
            .map(|question| {
                let unit = (inputs.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
                let epsilon = match question {
                    0 => PrivacyLevel::MIN_EPSILON,
                    1 => PrivacyLevel::MAX_EPSILON,
                    _ => {
                        PrivacyLevel::MIN_EPSILON
                            + unit * (PrivacyLevel::MAX_EPSILON - PrivacyLevel::MIN_EPSILON)
                    }
                };
                (inputs.next_u32() % 2 == 1, level(epsilon))
            })
            .collect();
        let today: Vec<usize> = randomize_submission(&device, &nonce, answers.iter().copied())
            .map(usize::from)
            .collect();
        // The mirrored design, and k-ary randomized response with two options, which is it.
        for two_options in [false, true] {
            let questions: Vec<(Mechanism, Answer)> = answers
                .iter()
                .map(|&(truth, level)| {
                    let design = if two_options {
                        Design::k_ary(2, level).unwrap()
                    } else {
                        Design::mirrored(level)
                    };
                    (Mechanism::Square(design), Answer::Index(usize::from(truth)))
                })
                .collect();
            let mut reports = vec![usize::MAX; count];
            randomize_answers(&device, &nonce, &questions, &mut reports).unwrap();
            assert_eq!(
                reports, today,
                "submission {submission}, k-ary: {two_options}"
            );
        }
    }
}

#[test]
fn randomize_answers_takes_each_mechanisms_draws_in_question_order() {
    let (device, nonce) = ([3_u8; 32], [250_u8; 32]);
    let number = NumberDesign::new(-2.5, 7.25, level(0.7)).unwrap();
    let choice = Design::k_ary(20, level(3.0)).unwrap();
    let unrelated = Design::unrelated_question(0.7, 0.5).unwrap();
    let yes_no = Design::mirrored(level(0.01));
    let questions = [
        (Mechanism::Number(number.clone()), Answer::Value(1.0)),
        (Mechanism::Square(choice.clone()), Answer::Index(19)),
        (Mechanism::Number(number.clone()), Answer::Value(7.25)),
        (
            Mechanism::Square(unrelated.clone()),
            Answer::Index(Design::YES),
        ),
        (Mechanism::Square(yes_no.clone()), Answer::Index(Design::NO)),
    ];
    let mut reports = [usize::MAX; 5];
    randomize_answers(&device, &nonce, &questions, &mut reports).unwrap();

    // The stream drawn by hand: 2 + 1 + 2 + 1 + 1 draws.
    let mut stream = submission_rng(&device, &nonce);
    let draws: Vec<u64> = (0..7).map(|_| stream.next_u64()).collect();
    let first = number.report_for_draws(1.0, draws[0], draws[1]).unwrap();
    let second = choice.report_for_draw(19, draws[2]).unwrap();
    let third = number.report_for_draws(7.25, draws[3], draws[4]).unwrap();
    let fourth = unrelated.report_for_draw(Design::YES, draws[5]).unwrap();
    let fifth = yes_no.report_for_draw(Design::NO, draws[6]).unwrap();
    assert_eq!(reports, [first, second, third, fourth, fifth]);
    let drawn: usize = questions
        .iter()
        .map(|(mechanism, _)| mechanism.draws())
        .sum();
    assert_eq!(drawn, 7);
}

#[test]
fn randomize_answers_checks_every_answer_before_writing_any_report() {
    let (device, nonce) = ([1_u8; 32], [2_u8; 32]);
    let yes_no = Mechanism::Square(Design::mirrored(level(1.0)));
    let choice = Mechanism::Square(Design::k_ary(3, level(1.0)).unwrap());
    let number = Mechanism::Number(NumberDesign::new(0.0, 30.0, level(1.0)).unwrap());
    let refused = |last: (Mechanism, Answer)| {
        let questions = [
            (yes_no.clone(), Answer::Index(1)),
            (number.clone(), Answer::Value(12.0)),
            last,
        ];
        let mut reports = [7_usize; 3];
        let error = randomize_answers(&device, &nonce, &questions, &mut reports).unwrap_err();
        assert_eq!(reports, [7; 3], "nothing is written after {error:?}");
        error
    };
    assert_eq!(
        refused((choice.clone(), Answer::Index(3))),
        DesignError::AnswerOutOfRange {
            answer: 3,
            answers: 3
        }
    );
    assert_eq!(
        refused((yes_no.clone(), Answer::Index(2))),
        DesignError::AnswerOutOfRange {
            answer: 2,
            answers: 2
        }
    );
    for value in [30.5, -1e-9, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            refused((number.clone(), Answer::Value(value))),
            DesignError::ValueOutOfBounds {
                min: 0.0,
                max: 30.0,
                ..
            }
        ));
    }
    // An answer of the other kind is out of range too.
    assert!(matches!(
        refused((choice.clone(), Answer::Value(1.0))),
        DesignError::AnswerOutOfRange { answers: 3, .. }
    ));
    assert!(matches!(
        refused((number.clone(), Answer::Index(1))),
        DesignError::ValueOutOfBounds { .. }
    ));

    let questions = [(yes_no, Answer::Index(0))];
    let mut too_many = [5_usize; 2];
    assert_eq!(
        randomize_answers(&device, &nonce, &questions, &mut too_many),
        Err(DesignError::ReportsLength {
            questions: 1,
            reports: 2
        })
    );
    assert_eq!(too_many, [5; 2]);
    let mut none: [usize; 0] = [];
    assert_eq!(randomize_answers(&device, &nonce, &[], &mut none), Ok(()));
}
