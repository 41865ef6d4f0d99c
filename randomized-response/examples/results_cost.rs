//! What one question's results cost as the responses grow: `cargo run --release -p
//! randomized-response --example results_cost` (about twenty seconds).
//!
//! For each N in 10³, 10⁵, 10⁷ and 10⁹ it computes everything the server's results page
//! computes for one question (`src/results.rs`: the consistency e-value, then per target the
//! estimate and three intervals, both one-sided bounds and both p-values of a null), from
//! the counts expected at a fixed true share, for a yes/no question (mirrored, ε = 1) and a
//! three-option choice (k-ary, ε = 2), and prints the time per question as a ratio to its
//! time at N = 10³, all measured in the same run (the fastest of 40 batches of about 20 ms
//! per size, the sizes taken in turn). Absolute times do not carry from one
//! machine (or load) to the next; the ratios do. Then the same for one difference of a
//! breakdown (`src/breakdown.rs`: a third of the N responses against the rest, every figure
//! of `PerRecordEstimator::difference`, Fisher's test included), for equal true shares and
//! for shares one point apart.

use std::hint::black_box;
use std::time::Instant;

use randomized_response::{
    Bound, Confidence, Design, Group, PerRecordEstimator, PrivacyLevel, Side,
};

const SIZES: [u64; 4] = [1_000, 100_000, 10_000_000, 1_000_000_000];

/// Every figure of one target, as `results::target` asks for them (the null tested too).
fn target(estimator: &PerRecordEstimator, counts: &[u64], null: f64) -> f64 {
    let confidence = Confidence::new(0.95).unwrap();
    let planned = 1_000;
    let summary = estimator
        .summarize(counts, confidence, planned)
        .unwrap()
        .unwrap();
    let mut checksum = summary.estimate + summary.exact.map_or(0.0, |exact| exact.low().unwrap());
    for side in [Side::Lower, Side::Upper] {
        let bound = estimator
            .one_sided(counts, side, confidence, planned)
            .unwrap()
            .unwrap();
        checksum += bound.exact.and_then(Bound::value).unwrap_or(0.0)
            + bound.anytime.value().unwrap_or(0.0);
    }
    checksum += estimator
        .anytime_p_value(counts, null, confidence, planned)
        .unwrap()
        .unwrap_or(0.0);
    checksum += estimator
        .exact_p_value(counts, null)
        .unwrap()
        .unwrap_or(0.0);
    checksum
}

/// One question's results: the consistency check, then every target.
fn question(design: &Design, estimators: &[PerRecordEstimator], counts: &[u64]) -> f64 {
    let mut checksum = design.consistency(counts).unwrap().ln_e_value();
    for estimator in estimators {
        // A null near the truth, so the exact test's search runs over its whole range.
        let null = estimator
            .estimate(counts)
            .unwrap()
            .unwrap_or(0.5)
            .clamp(0.01, 0.99)
            * 0.98;
        checksum += target(estimator, counts, null);
    }
    checksum
}

/// The counts of N reports at the report rates of the true shares (rounded).
fn expected_counts(design: &Design, shares: &[f64], n: u64) -> Vec<u64> {
    let k = design.answers();
    let mut counts: Vec<u64> = (0..k)
        .map(|report| {
            let rate: f64 = (0..k)
                .map(|truth| shares[truth] * design.probability(truth, report))
                .sum();
            (rate * n as f64).round() as u64
        })
        .collect();
    let assigned: u64 = counts[1..].iter().sum();
    counts[0] = n - assigned;
    counts
}

/// Calls of `work` that take about 20 ms.
fn batch_size(work: &dyn Fn() -> f64) -> u32 {
    let started = Instant::now();
    let mut calls = 0_u32;
    while started.elapsed().as_millis() < 20 {
        black_box(work());
        calls += 1;
    }
    calls.max(1)
}

/// Nanoseconds per call in one batch.
fn time_batch(work: &dyn Fn() -> f64, calls: u32) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        black_box(work());
    }
    started.elapsed().as_nanos() as f64 / f64::from(calls)
}

/// Rounds over every size in turn; each size keeps its fastest batch. On a machine shared
/// with other work the fastest batch is the one least disturbed, and taking the sizes in
/// turn exposes all of them to the same disturbances.
const ROUNDS: usize = 40;

/// Times one piece of work per size (`works[i]` at `SIZES[i]`) and prints the ratios.
fn time_sizes(name: &str, unit: &str, works: &[Box<dyn Fn() -> f64 + '_>]) {
    let calls: Vec<u32> = works.iter().map(|work| batch_size(work)).collect();
    let mut fastest = [f64::INFINITY; SIZES.len()];
    for _ in 0..ROUNDS {
        for (size, work) in works.iter().enumerate() {
            fastest[size] = fastest[size].min(time_batch(work, calls[size]));
        }
    }
    println!("{name}");
    for (size, &n) in SIZES.iter().enumerate() {
        println!(
            "  N = 1e{:<2} {:>10.1} µs per {unit}  {:>6.2}× N = 1e3",
            n.ilog10(),
            fastest[size] / 1000.0,
            fastest[size] / fastest[0]
        );
    }
}

fn estimators_of(design: &Design) -> Vec<PerRecordEstimator> {
    if design.answers() == 2 {
        vec![design.option_estimator(Design::YES).unwrap()]
    } else {
        (0..design.answers())
            .map(|option| design.option_estimator(option).unwrap())
            .collect()
    }
}

fn report(name: &str, design: &Design, shares: &[f64]) {
    let estimators = estimators_of(design);
    let counts: Vec<Vec<u64>> = SIZES
        .iter()
        .map(|&n| expected_counts(design, shares, n))
        .collect();
    let works: Vec<Box<dyn Fn() -> f64 + '_>> = counts
        .iter()
        .map(|counts| {
            let estimators = &estimators;
            Box::new(move || question(design, estimators, black_box(counts)))
                as Box<dyn Fn() -> f64>
        })
        .collect();
    time_sizes(name, "question", &works);
}

/// One breakdown difference of a yes/no question: a third of N (true share `share_a`)
/// against the other two thirds (`share_b`), as `breakdown::difference` asks for it.
fn report_difference(name: &str, design: &Design, share_a: f64, share_b: f64) {
    let estimator = design.option_estimator(Design::YES).unwrap();
    let confidence = Confidence::new(0.95).unwrap();
    let groups: Vec<(Vec<u64>, Vec<u64>)> = SIZES
        .iter()
        .map(|&n| {
            let third = n / 3;
            (
                expected_counts(design, &[1.0 - share_a, share_a], third),
                expected_counts(design, &[1.0 - share_b, share_b], n - third),
            )
        })
        .collect();
    let works: Vec<Box<dyn Fn() -> f64 + '_>> = groups
        .iter()
        .map(|(a, b)| {
            let estimator = &estimator;
            Box::new(move || {
                let group = |counts| Group {
                    counts,
                    planned_respondents: 1_000,
                };
                let summary = estimator
                    .difference(group(black_box(a)), group(black_box(b)), confidence)
                    .unwrap()
                    .unwrap();
                summary.estimate + summary.exact_p_value.unwrap_or(0.0)
            }) as Box<dyn Fn() -> f64>
        })
        .collect();
    time_sizes(name, "difference", &works);
}

fn main() {
    let yes_no = Design::mirrored(PrivacyLevel::new(1.0).unwrap());
    report(
        "yes/no (mirrored, ε = 1, true share 0.3)",
        &yes_no,
        &[0.7, 0.3],
    );
    let choice = Design::k_ary(3, PrivacyLevel::new(2.0).unwrap()).unwrap();
    report(
        "choice of 3 (k-ary, ε = 2, true shares 0.5, 0.3, 0.2)",
        &choice,
        &[0.5, 0.3, 0.2],
    );
    report_difference(
        "difference, yes/no (mirrored, ε = 1), a third against the rest, true shares 0.3 and 0.3",
        &yes_no,
        0.3,
        0.3,
    );
    report_difference(
        "difference, yes/no (mirrored, ε = 1), a third against the rest, true shares 0.3 and 0.31",
        &yes_no,
        0.3,
        0.31,
    );
}
