//! Coverage and unbiasedness by simulation, drawing every report through the real sampler.
//!
//! Grid: ε ∈ {0.1, 0.5, ln 3, 2, 5} × true proportion π ∈ {0, 0.05, 0.5, 0.95, 1} ×
//! N ∈ {10, 100, 10 000}. Each simulated respondent's truth is yes with probability π,
//! then [`respond`] randomizes it. Seeds are fixed, so the run is deterministic.
//! Run it optimised (`./scripts/test` uses the `test-run` profile): with `--long` it draws
//! about 10⁹ coins (2 000 surveys per cell, 500 streams); the default mode runs the same grid
//! with 500 surveys per cell and 200 streams, every tolerance derived from the count run.

mod common;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{
    anytime_interval, chernoff_interval, exact_interval, respond, unbiased_estimate, Confidence,
    Interval, PrivacyLevel, Tally,
};

const EPSILONS: [f64; 5] = [0.1, 0.5, 1.098_612_288_668_109_8, 2.0, 5.0];
const PROPORTIONS: [f64; 5] = [0.0, 0.05, 0.5, 0.95, 1.0];
const SIZES: [u64; 3] = [10, 100, 10_000];
/// Simulated surveys per cell (default mode, `--long`).
fn surveys() -> u32 {
    common::sized(500, 2_000)
}
/// Simulated streams per cell (default mode, `--long`).
fn streams() -> u32 {
    common::sized(200, 500)
}
const STREAM_LENGTH: u64 = 10_000;
const PLANNED_RESPONDENTS: u64 = 1_000;
const CONFIDENCE: f64 = 0.95;

/// A truth drawn as yes with probability `proportion`, from one 64-bit draw.
fn draw_truth(proportion: f64, rng: &mut ChaCha20Rng) -> bool {
    let draw = rng.next_u64();
    proportion >= 1.0 || (draw as f64) < proportion * 18_446_744_073_709_551_616.0
}

fn cell_seed(parts: &[u64]) -> u64 {
    parts.iter().fold(0x00de_a1ab_1e00, |seed, part| {
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(*part + 1)
    })
}

/// The reported-yes counts y (out of `respondents`) whose interval contains `proportion`.
///
/// For one ε both bounds of every interval grow with y (π̂ does, and the Chernoff and
/// anytime widths do not depend on y; Clopper–Pearson bounds are monotone in y), so the
/// covering counts form one range, found by binary search with the crate's own interval.
fn covering_counts(
    respondents: u64,
    proportion: f64,
    interval: impl Fn(Tally) -> Interval,
) -> std::ops::RangeInclusive<u64> {
    let at = |yes: u64| interval(Tally::new(respondents, yes).unwrap());
    // First y whose upper bound reaches π, then first y whose lower bound passes π.
    // (The interval as computed: it contains a proportion in [0, 1] exactly when the
    // interval within [0, 1] does, and its ends grow with y even where that one is empty.)
    let first = partition_point(respondents, |yes| at(yes).computed().1 < proportion);
    let past = partition_point(respondents, |yes| at(yes).computed().0 <= proportion);
    if past == 0 || first >= past {
        // An empty range: nothing covers.
        #[allow(clippy::reversed_empty_ranges)]
        return 1..=0;
    }
    first..=past - 1
}

/// The first y in 0..=n for which `below` is false (n + 1 if none).
fn partition_point(n: u64, below: impl Fn(u64) -> bool) -> u64 {
    let (mut low, mut high) = (0, n + 1);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// The probability that Binomial(n, rate) lands in `counts`, from the log-pmf.
fn binomial_probability(n: u64, rate: f64, counts: &std::ops::RangeInclusive<u64>) -> f64 {
    let n_float = n as f64;
    counts
        .clone()
        .map(|y| {
            let y_float = y as f64;
            let log_choose = libm::lgamma(n_float + 1.0)
                - libm::lgamma(y_float + 1.0)
                - libm::lgamma(n_float - y_float + 1.0);
            let log_rate = if y == 0 { 0.0 } else { y_float * rate.ln() };
            let log_rest = if y == n {
                0.0
            } else {
                (n_float - y_float) * (-rate).ln_1p()
            };
            (log_choose + log_rate + log_rest).exp()
        })
        .sum()
}

struct FixedSizeCell {
    label: String,
    proportion: f64,
    chernoff_simulated: f64,
    chernoff_computed: f64,
    exact_simulated: f64,
    exact_computed: f64,
    mean_estimate: f64,
    standard_error: f64,
}

fn simulate_fixed_size(epsilon: f64, proportion: f64, respondents: u64) -> FixedSizeCell {
    let level = PrivacyLevel::new(epsilon).unwrap();
    let confidence = Confidence::new(CONFIDENCE).unwrap();
    let chernoff_counts = covering_counts(respondents, proportion, |tally| {
        chernoff_interval(&[(level, tally)], confidence).unwrap()
    });
    let exact_counts = covering_counts(respondents, proportion, |tally| {
        exact_interval(&[(level, tally)], confidence).unwrap()
    });
    let mut rng = ChaCha20Rng::seed_from_u64(cell_seed(&[
        epsilon.to_bits(),
        proportion.to_bits(),
        respondents,
    ]));
    let (mut chernoff_covered, mut exact_covered, mut estimate_sum) = (0_u32, 0_u32, 0.0);
    for _ in 0..surveys() {
        let mut tally = Tally::default();
        for _ in 0..respondents {
            let truth = draw_truth(proportion, &mut rng);
            tally.record(respond(truth, level, &mut rng));
        }
        estimate_sum += unbiased_estimate(&[(level, tally)]).unwrap();
        chernoff_covered += u32::from(chernoff_counts.contains(&tally.reported_yes()));
        exact_covered += u32::from(exact_counts.contains(&tally.reported_yes()));
    }
    // Reports are Bernoulli(ζ) with ζ = q + rπ, so Var(z) = ζ(1 − ζ) / r².
    let reported_rate = level.realized_truth_probability() * proportion
        + (1.0 - level.realized_truth_probability()) * (1.0 - proportion);
    let variance = reported_rate * (1.0 - reported_rate) / level.signal().powi(2);
    FixedSizeCell {
        label: format!("ε = {epsilon:.3}, π = {proportion}, N = {respondents}"),
        proportion,
        chernoff_simulated: f64::from(chernoff_covered) / f64::from(surveys()),
        chernoff_computed: binomial_probability(respondents, reported_rate, &chernoff_counts),
        exact_simulated: f64::from(exact_covered) / f64::from(surveys()),
        exact_computed: binomial_probability(respondents, reported_rate, &exact_counts),
        mean_estimate: estimate_sum / f64::from(surveys()),
        standard_error: (variance / respondents as f64 / f64::from(surveys())).sqrt(),
    }
}

/// The share of streams whose anytime interval covers π at every N from 1 to 10 000.
fn simulate_streams(epsilon: f64, proportion: f64) -> f64 {
    let level = PrivacyLevel::new(epsilon).unwrap();
    let confidence = Confidence::new(CONFIDENCE).unwrap();
    let covering: Vec<_> = (1..=STREAM_LENGTH)
        .map(|n| {
            covering_counts(n, proportion, |tally| {
                anytime_interval(&[(level, tally)], confidence, PLANNED_RESPONDENTS).unwrap()
            })
        })
        .collect();
    let mut rng = ChaCha20Rng::seed_from_u64(cell_seed(&[epsilon.to_bits(), proportion.to_bits()]));
    let mut covered_throughout = 0_u32;
    for _ in 0..streams() {
        let mut tally = Tally::default();
        let mut always_covered = true;
        for counts in &covering {
            let truth = draw_truth(proportion, &mut rng);
            tally.record(respond(truth, level, &mut rng));
            always_covered &= counts.contains(&tally.reported_yes());
        }
        covered_throughout += u32::from(always_covered);
    }
    f64::from(covered_throughout) / f64::from(streams())
}

fn grid() -> Vec<(f64, f64)> {
    EPSILONS
        .iter()
        .flat_map(|&epsilon| {
            PROPORTIONS
                .iter()
                .map(move |&proportion| (epsilon, proportion))
        })
        .collect()
}

/// Runs `work` over the grid on both cores, keeping the grid's order.
fn in_parallel<T: Send>(cells: &[(f64, f64)], work: impl Fn(f64, f64) -> T + Sync) -> Vec<T> {
    let (first, second) = cells.split_at(cells.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| second.iter().map(|&(e, p)| work(e, p)).collect::<Vec<_>>());
        let mut results: Vec<T> = first.iter().map(|&(e, p)| work(e, p)).collect();
        results.extend(other.join().unwrap());
        results
    })
}

/// Five standard errors of a simulated coverage around the computed coverage.
fn simulation_tolerance(coverage: f64) -> f64 {
    5.0 * (coverage * (1.0 - coverage) / f64::from(surveys()))
        .sqrt()
        .max(1.0 / f64::from(surveys()))
}

#[test]
fn chernoff_and_exact_intervals_cover_the_truth_and_the_estimate_is_unbiased_on_the_grid() {
    let mut cells = Vec::new();
    for respondents in SIZES {
        cells.extend(in_parallel(&grid(), |epsilon, proportion| {
            simulate_fixed_size(epsilon, proportion, respondents)
        }));
    }
    let mut failures = Vec::new();
    for cell in &cells {
        let label = &cell.label;
        // The guarantee, computed exactly from the binomial law of the reports.
        for (name, computed) in [
            ("Chernoff", cell.chernoff_computed),
            ("exact", cell.exact_computed),
        ] {
            if computed < CONFIDENCE {
                failures.push(format!("{label}: {name} coverage is {computed}"));
            }
        }
        // Chernoff is conservative enough that the simulation itself clears 95 %.
        if cell.chernoff_simulated < CONFIDENCE {
            failures.push(format!(
                "{label}: simulated Chernoff coverage {}",
                cell.chernoff_simulated
            ));
        }
        // Clopper–Pearson's coverage is close to 95 % at large N, so 2 000 simulated surveys
        // land on either side of it; they must agree with the computed coverage.
        for (name, simulated, computed) in [
            ("Chernoff", cell.chernoff_simulated, cell.chernoff_computed),
            ("exact", cell.exact_simulated, cell.exact_computed),
        ] {
            if (simulated - computed).abs() > simulation_tolerance(computed) {
                failures.push(format!(
                    "{label}: {name} simulated {simulated}, computed {computed}"
                ));
            }
        }
        let deviation = (cell.mean_estimate - cell.proportion).abs();
        if deviation > 5.0 * cell.standard_error {
            failures.push(format!(
                "{label}: mean estimate {} is {:.1} standard errors from the truth",
                cell.mean_estimate,
                deviation / cell.standard_error
            ));
        }
    }
    let minimum =
        |coverage: fn(&FixedSizeCell) -> f64| cells.iter().map(coverage).fold(1.0, f64::min);
    eprintln!(
        "{} cells × {} surveys: minimum coverage Chernoff {:.4} simulated, {:.4} computed; \
         exact {:.4} simulated, {:.4} computed",
        cells.len(),
        surveys(),
        minimum(|cell| cell.chernoff_simulated),
        minimum(|cell| cell.chernoff_computed),
        minimum(|cell| cell.exact_simulated),
        minimum(|cell| cell.exact_computed),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_anytime_interval_covers_the_truth_at_every_sample_size_at_once() {
    let cells = grid();
    let coverages = in_parallel(&cells, simulate_streams);
    let minimum = coverages.iter().copied().fold(1.0, f64::min);
    eprintln!(
        "{} cells × {} streams of {STREAM_LENGTH}: minimum simultaneous coverage {minimum:.4}",
        cells.len(),
        streams()
    );
    for ((epsilon, proportion), coverage) in cells.iter().zip(&coverages) {
        assert!(
            *coverage >= CONFIDENCE,
            "ε = {epsilon}, π = {proportion}: covered throughout in {coverage} of streams"
        );
    }
}

#[test]
fn a_mix_of_two_epsilons_is_unbiased_and_covered() {
    let levels = [
        PrivacyLevel::new(0.5).unwrap(),
        PrivacyLevel::new(2.0).unwrap(),
    ];
    let confidence = Confidence::new(CONFIDENCE).unwrap();
    let (proportion, respondents) = (0.3, 1_000);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut estimates = Vec::new();
    let (mut chernoff_covered, mut anytime_covered) = (0_u32, 0_u32);
    for _ in 0..surveys() {
        let mut tallies = [Tally::default(); 2];
        for _ in 0..respondents {
            // Each respondent answered one of two versions of the question.
            let version = (rng.next_u32() & 1) as usize;
            let truth = draw_truth(proportion, &mut rng);
            tallies[version].record(respond(truth, levels[version], &mut rng));
        }
        let groups = [(levels[0], tallies[0]), (levels[1], tallies[1])];
        estimates.push(unbiased_estimate(&groups).unwrap());
        chernoff_covered += u32::from(
            chernoff_interval(&groups, confidence)
                .unwrap()
                .contains(proportion),
        );
        anytime_covered += u32::from(
            anytime_interval(&groups, confidence, respondents)
                .unwrap()
                .contains(proportion),
        );
        assert_eq!(exact_interval(&groups, confidence), None);
    }
    let count = estimates.len() as f64;
    let mean = estimates.iter().sum::<f64>() / count;
    let variance = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (count - 1.0);
    let standard_error = (variance / count).sqrt();
    assert!(
        (mean - proportion).abs() <= 5.0 * standard_error,
        "mean {mean}, standard error {standard_error}"
    );
    assert!(f64::from(chernoff_covered) / f64::from(surveys()) >= CONFIDENCE);
    assert!(f64::from(anytime_covered) / f64::from(surveys()) >= CONFIDENCE);
}
