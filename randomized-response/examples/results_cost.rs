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
//! machine (or load) to the next; the ratios do.

use std::hint::black_box;
use std::time::Instant;

use randomized_response::{Confidence, Design, PerRecordEstimator, PrivacyLevel, Side};

const SIZES: [u64; 4] = [1_000, 100_000, 10_000_000, 1_000_000_000];

/// Every figure of one target, as `results::target` asks for them (the null tested too).
fn target(estimator: &PerRecordEstimator, counts: &[u64], null: f64) -> f64 {
    let confidence = Confidence::new(0.95).unwrap();
    let planned = 1_000;
    let summary = estimator
        .summarize(counts, confidence, planned)
        .unwrap()
        .unwrap();
    let mut checksum = summary.estimate + summary.exact.map_or(0.0, |exact| exact.low());
    for side in [Side::Lower, Side::Upper] {
        let bound = estimator
            .one_sided(counts, side, confidence, planned)
            .unwrap()
            .unwrap();
        checksum += bound.exact.unwrap_or(0.0) + bound.anytime;
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

/// Calls of one question that take about 20 ms.
fn batch_size(design: &Design, estimators: &[PerRecordEstimator], counts: &[u64]) -> u32 {
    let started = Instant::now();
    let mut calls = 0_u32;
    while started.elapsed().as_millis() < 20 {
        black_box(question(design, estimators, black_box(counts)));
        calls += 1;
    }
    calls.max(1)
}

/// Nanoseconds per question in one batch.
fn time_batch(
    design: &Design,
    estimators: &[PerRecordEstimator],
    counts: &[u64],
    calls: u32,
) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        black_box(question(design, estimators, black_box(counts)));
    }
    started.elapsed().as_nanos() as f64 / f64::from(calls)
}

/// Rounds over every size in turn; each size keeps its fastest batch. On a machine shared
/// with other work the fastest batch is the one least disturbed, and taking the sizes in
/// turn exposes all of them to the same disturbances.
const ROUNDS: usize = 40;

fn report(name: &str, design: &Design, shares: &[f64]) {
    let estimators: Vec<PerRecordEstimator> = if design.answers() == 2 {
        vec![design.option_estimator(Design::YES).unwrap()]
    } else {
        (0..design.answers())
            .map(|option| design.option_estimator(option).unwrap())
            .collect()
    };
    let counts: Vec<Vec<u64>> = SIZES
        .iter()
        .map(|&n| expected_counts(design, shares, n))
        .collect();
    let calls: Vec<u32> = counts
        .iter()
        .map(|counts| batch_size(design, &estimators, counts))
        .collect();
    let mut fastest = [f64::INFINITY; SIZES.len()];
    for _ in 0..ROUNDS {
        for (size, counts) in counts.iter().enumerate() {
            let time = time_batch(design, &estimators, counts, calls[size]);
            fastest[size] = fastest[size].min(time);
        }
    }
    println!("{name}");
    for (size, &n) in SIZES.iter().enumerate() {
        println!(
            "  N = 1e{:<2} {:>10.1} µs per question  {:>6.2}× N = 1e3",
            n.ilog10(),
            fastest[size] / 1000.0,
            fastest[size] / fastest[0]
        );
    }
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
}
