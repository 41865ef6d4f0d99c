//! One-sided bounds and tests of θ = θ0: their guarantees computed exactly from the law of
//! the counts (tests/common: the walk of one count, killed where the statement fails).
//!
//! * one-sided bounds at 95 %: `P(θ ≤ U) ≥ 0.95` and `P(θ ≥ L) ≥ 0.95` at N = 10, 100 and
//!   10 000 for the Chernoff, exact and anytime bounds, and `P(θ ≤ U_n for every n ≤ 10 000)
//!   ≥ 0.95` for the anytime ones;
//! * tests of H0: θ = θ0 (θ0 the truth): the exact test rejects at level α ∈ {0.01, 0.05,
//!   0.1} with probability at most α at each N; a researcher who looks after every report and
//!   stops as soon as the anytime p-value is below 0.05 rejects with probability at most
//!   0.05 over 10 000 reports.
//!
//! (The consistency e-value: tests/consistency_coverage.rs.)
//!
//! Computed coverages are lower bounds: law entries below 1e-30 are dropped and counted as
//! failures (reported, below 1e-20). Asserted: ≥ 0.95 − 1e-9 (rejections ≤ α + 1e-9).

mod common;

use common::{counts_at, draw_answer, first_false, first_false_by_bisection, in_parallel, Law};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use randomized_response::{
    Bound, Confidence, Design, NumberDesign, PerRecordEstimator, PrivacyLevel, Side,
};

const CONFIDENCE: f64 = 0.95;
const SIZES: [u64; 3] = [10, 100, 10_000];
const STREAM_LENGTH: u64 = 10_000;
const PLANNED_RESPONDENTS: u64 = 1_000;
const EPSILONS: [f64; 5] = [0.1, 0.5, 1.0, 2.0, 5.0];
const SHARES: [f64; 5] = [0.0, 0.05, 0.5, 0.95, 1.0];

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence() -> Confidence {
    Confidence::new(CONFIDENCE).unwrap()
}

/// One target at one truth: its estimator and the law of the walk of its one count.
struct Cell {
    label: String,
    estimator: PerRecordEstimator,
    /// `steps[j]`: the probability that one report moves the walk by j.
    steps: Vec<f64>,
    /// Two-valued: (higher-valued report, lower-valued report); else the ordinal mean.
    binary: Option<(usize, usize)>,
    truth: f64,
}

impl Cell {
    fn top(&self, n: u64) -> u64 {
        (self.steps.len() as u64 - 1) * n
    }

    fn with_counts<T>(&self, n: u64, position: u64, work: impl FnOnce(&[u64]) -> T) -> T {
        let mut counts = [0_u64; 20];
        counts_at(
            self.binary,
            self.steps.len() as u64 - 1,
            n,
            position,
            &mut counts,
        );
        work(&counts[..self.estimator.reports()])
    }

    fn estimate(&self, n: u64, position: u64) -> f64 {
        self.with_counts(n, position, |c| {
            self.estimator.estimate(c).unwrap().unwrap()
        })
    }
}

fn binary_cell(label: String, estimator: PerRecordEstimator, rate: f64, truth: f64) -> Cell {
    let values = estimator.values();
    let high = (0..values.len())
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap();
    let low = (0..values.len())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap();
    Cell {
        label,
        estimator,
        steps: vec![1.0 - rate, rate],
        binary: Some((high, low)),
        truth,
    }
}

/// Yes/no (mirrored at five ε, forced response), a choice option and a number's mean, at
/// five truths each.
fn binary_cells() -> Vec<Cell> {
    let mut designs: Vec<(String, Design)> = EPSILONS
        .iter()
        .map(|&e| (format!("mirrored ε = {e}"), Design::mirrored(level(e))))
        .collect();
    designs.push((
        "forced response 0.67/0.165/0.165".into(),
        Design::forced_response(0.67, 0.165, 0.165).unwrap(),
    ));
    let mut cells = Vec::new();
    for (name, design) in designs {
        for share in SHARES {
            let rate = (1.0 - share) * design.probability(Design::NO, Design::YES)
                + share * design.probability(Design::YES, Design::YES);
            let estimator = design.option_estimator(Design::YES).unwrap();
            cells.push(binary_cell(
                format!("{name}, π = {share}"),
                estimator,
                rate,
                share,
            ));
        }
    }
    let choice = Design::k_ary(5, level(1.0)).unwrap();
    let (same, other) = (choice.probability(0, 0), choice.probability(1, 0));
    for share in SHARES {
        cells.push(binary_cell(
            format!("k = 5, ε = 1, π_0 = {share}"),
            choice.option_estimator(0).unwrap(),
            share * same + (1.0 - share) * other,
            share,
        ));
    }
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    for share in SHARES {
        let value = 30.0 * share;
        cells.push(binary_cell(
            format!("number 0–30, ε = 1, mean {value}"),
            number.mean_estimator(),
            number
                .report_probability(value, NumberDesign::MAX_END)
                .unwrap(),
            value,
        ));
    }
    cells
}

/// The mean level of a three-level ordinal question: all lowest, uniform, all highest.
fn ordinal_cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for epsilon in [1.0, 5.0] {
        let design = Design::k_ary(3, level(epsilon)).unwrap();
        for (name, distribution) in [
            ("all lowest", [1.0, 0.0, 0.0]),
            ("uniform", [1.0 / 3.0; 3]),
            ("all highest", [0.0, 0.0, 1.0]),
        ] {
            let steps = (0..3)
                .map(|r| {
                    (0..3)
                        .map(|t| distribution[t] * design.probability(t, r))
                        .sum()
                })
                .collect();
            let truth = distribution[1] + 2.0 * distribution[2];
            cells.push(Cell {
                label: format!("ordinal k = 3, ε = {epsilon}, {name}"),
                estimator: design.mean_level_estimator(),
                steps,
                binary: None,
                truth,
            });
        }
    }
    cells
}

/// The positions `[first, past)` that keep the statement true at n, from two predicates
/// true on a prefix: `below` (failing below the band) and `reached` (not yet failing above
/// it), searched from the band at n − 1.
fn band(
    top: u64,
    hint: Option<(u64, u64)>,
    below: impl Fn(u64) -> bool,
    reached: impl Fn(u64) -> bool,
) -> (u64, u64) {
    match hint {
        Some((first, past)) => (
            first_false(top, first, below),
            first_false(top, past, reached),
        ),
        None => (
            first_false_by_bisection(top, below),
            first_false_by_bisection(top, reached),
        ),
    }
}

/// The probability that the walk stays inside `band_at(n, hint)` at every n ≤ 10 000, the
/// laws at the fixed sizes, and the mass dropped as negligible.
fn killed_walk(
    cell: &Cell,
    band_at: impl Fn(u64, Option<(u64, u64)>) -> (u64, u64),
) -> (f64, Vec<Law>, f64) {
    let (mut free, mut killed) = (Law::at_zero(), Law::at_zero());
    let (mut hint, mut dropped, mut laws) = (None, 0.0, Vec::new());
    for n in 1..=STREAM_LENGTH {
        free.step(&cell.steps);
        killed.step(&cell.steps);
        dropped += free.trim() + killed.trim();
        let covering = band_at(n, hint);
        hint = Some(covering);
        killed.keep_only(covering);
        if SIZES.contains(&n) {
            laws.push(Law {
                start: free.start,
                values: free.values.clone(),
            });
        }
    }
    (killed.values.iter().sum(), laws, dropped)
}

/// The band of a one-sided bound: the positions where `bound(n, position)` covers.
fn one_sided_band(
    cell: &Cell,
    side: Side,
    n: u64,
    hint: Option<(u64, u64)>,
    bound: impl Fn(&[u64]) -> Option<Bound>,
) -> (u64, u64) {
    let top = cell.top(n);
    // An empty bound (an upper one below the range, a lower one above it) covers nothing.
    let beyond = match side {
        Side::Upper => f64::NEG_INFINITY,
        Side::Lower => f64::INFINITY,
    };
    let at = |position: u64| {
        cell.with_counts(n, position, |c| bound(c).unwrap().value().unwrap_or(beyond))
    };
    match side {
        Side::Upper => band(top, hint, |p| at(p) < cell.truth, |_| true),
        Side::Lower => band(top, hint, |_| false, |p| at(p) <= cell.truth),
    }
}

#[test]
fn one_sided_bounds_cover_at_fixed_n_and_the_anytime_ones_at_every_n() {
    let mut cells = binary_cells();
    cells.extend(ordinal_cells());
    let results = in_parallel(&cells, |cell| {
        let mut failures = Vec::new();
        // [side][kind: Chernoff, exact, anytime][size], and the anytime at every n.
        let mut minimum = [[[1.0_f64; 3]; 3]; 2];
        let mut time_uniform = [1.0_f64; 2];
        let mut dropped_most = 0.0_f64;
        for (s, side) in [Side::Upper, Side::Lower].into_iter().enumerate() {
            let anytime = |c: &[u64]| {
                cell.estimator
                    .anytime_bound(c, side, confidence(), PLANNED_RESPONDENTS)
                    .unwrap()
            };
            let (survival, laws, dropped) =
                killed_walk(cell, |n, hint| one_sided_band(cell, side, n, hint, anytime));
            dropped_most = dropped_most.max(dropped);
            time_uniform[s] = survival;
            if survival < CONFIDENCE - 1e-9 {
                failures.push(format!(
                    "{}: anytime {side:?} at every n: {survival}",
                    cell.label
                ));
            }
            for (i, (&size, law)) in SIZES.iter().zip(&laws).enumerate() {
                let chernoff = |c: &[u64]| {
                    cell.estimator
                        .chernoff_bound(c, side, confidence())
                        .unwrap()
                };
                let exact = |c: &[u64]| cell.estimator.exact_bound(c, side, confidence()).unwrap();
                let mut coverages = vec![
                    law.mass_in(one_sided_band(cell, side, size, None, chernoff)),
                    law.mass_in(one_sided_band(cell, side, size, None, anytime)),
                ];
                if cell.estimator.is_two_valued() {
                    coverages.insert(
                        1,
                        law.mass_in(one_sided_band(cell, side, size, None, exact)),
                    );
                }
                for (k, &coverage) in coverages.iter().enumerate() {
                    let kind = if coverages.len() == 2 && k == 1 { 2 } else { k };
                    minimum[s][kind][i] = minimum[s][kind][i].min(coverage);
                    if coverage < CONFIDENCE - 1e-9 {
                        failures.push(format!(
                            "{}: {side:?} kind {kind} at N = {size}: {coverage}",
                            cell.label
                        ));
                    }
                }
            }
        }
        if dropped_most > 1e-20 {
            failures.push(format!("{}: dropped {dropped_most}", cell.label));
        }
        (minimum, time_uniform, failures)
    });
    let mut minimum = [[[1.0_f64; 3]; 3]; 2];
    let mut time_uniform = [1.0_f64; 2];
    let mut failures = Vec::new();
    for (cell_minimum, cell_uniform, cell_failures) in results {
        for s in 0..2 {
            for k in 0..3 {
                for i in 0..3 {
                    minimum[s][k][i] = minimum[s][k][i].min(cell_minimum[s][k][i]);
                }
            }
            time_uniform[s] = time_uniform[s].min(cell_uniform[s]);
        }
        failures.extend(cell_failures);
    }
    for (s, side) in ["upper", "lower"].iter().enumerate() {
        let row = |k: usize| {
            format!(
                "{:.4} / {:.4} / {:.4}",
                minimum[s][k][0], minimum[s][k][1], minimum[s][k][2]
            )
        };
        eprintln!(
            "one-sided {side} bounds ({} cells), minimum coverage at N = 10 / 100 / 10 000: \
             Chernoff {}, exact {}, anytime {}; anytime at every n ≤ {STREAM_LENGTH}: {:.4}",
            cells.len(),
            row(0),
            row(1),
            row(2),
            time_uniform[s]
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_exact_test_rejects_a_true_hypothesis_at_most_at_its_level() {
    let cells = binary_cells();
    let levels = [0.01, 0.05, 0.1];
    let results = in_parallel(&cells, |cell| {
        let mut worst = [0.0_f64; 3];
        let mut law = Law::at_zero();
        for n in 1..=*SIZES.last().unwrap() {
            law.step(&cell.steps);
            law.trim();
            if !SIZES.contains(&n) {
                continue;
            }
            let mut rejected = [0.0; 3];
            for (i, &mass) in law.values.iter().enumerate() {
                let position = law.start + i as u64;
                let p = cell.with_counts(n, position, |c| {
                    cell.estimator
                        .exact_p_value(c, cell.truth)
                        .unwrap()
                        .unwrap()
                });
                for (j, &alpha) in levels.iter().enumerate() {
                    if p <= alpha {
                        rejected[j] += mass;
                    }
                }
            }
            for j in 0..3 {
                worst[j] = worst[j].max(rejected[j]);
            }
        }
        worst
    });
    let mut worst = [0.0_f64; 3];
    for (cell, rejected) in cells.iter().zip(&results) {
        for (j, &alpha) in levels.iter().enumerate() {
            worst[j] = worst[j].max(rejected[j]);
            assert!(
                rejected[j] <= alpha + 1e-9,
                "{}: rejects at level {alpha} with probability {}",
                cell.label,
                rejected[j]
            );
        }
    }
    eprintln!(
        "exact binomial test ({} cells, N = 10 / 100 / 10 000): largest rejection rate of a \
         true H0 at α = 0.01 / 0.05 / 0.1: {:.4} / {:.4} / {:.4}",
        cells.len(),
        worst[0],
        worst[1],
        worst[2]
    );
}

/// The band where the anytime p-value of θ0 = truth stays above α.
fn p_value_band(cell: &Cell, alpha: f64, n: u64, hint: Option<(u64, u64)>) -> (u64, u64) {
    let p = |position: u64| {
        cell.with_counts(n, position, |c| {
            cell.estimator
                .anytime_p_value(c, cell.truth, confidence(), PLANNED_RESPONDENTS)
                .unwrap()
                .unwrap()
        })
    };
    band(
        cell.top(n),
        hint,
        |position| cell.estimate(n, position) < cell.truth && p(position) <= alpha,
        |position| !(cell.estimate(n, position) > cell.truth && p(position) <= alpha),
    )
}

#[test]
fn a_researcher_who_stops_at_p_below_005_rejects_a_true_hypothesis_at_most_5_percent() {
    let mut cells = binary_cells();
    cells.extend(ordinal_cells());
    let results = in_parallel(&cells, |cell| {
        let (survival, _, dropped) = killed_walk(cell, |n, hint| p_value_band(cell, 0.05, n, hint));
        (1.0 - survival, dropped)
    });
    let mut worst = 0.0_f64;
    for (cell, &(rejected, dropped)) in cells.iter().zip(&results) {
        worst = worst.max(rejected);
        assert!(dropped <= 1e-20, "{}: dropped {dropped}", cell.label);
        assert!(
            rejected <= 0.05 + 1e-9,
            "{}: stopping at p < 0.05 rejects with probability {rejected}",
            cell.label
        );
    }
    eprintln!(
        "anytime p-value ({} cells), checked after every report to {STREAM_LENGTH}: largest \
         probability of ever reaching p ≤ 0.05 under H0: {worst:.4}",
        cells.len()
    );
}

#[test]
fn simulated_researchers_stop_as_often_as_the_killed_walk_computes() {
    // Forced response at π = 0.5, 4 000 streams of 10 000 reports through the sampler.
    const STREAMS: u32 = 4_000;
    let design = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    let rate = 0.5 * design.probability(Design::NO, Design::YES)
        + 0.5 * design.probability(Design::YES, Design::YES);
    let cell = binary_cell(
        "forced response".into(),
        design.option_estimator(Design::YES).unwrap(),
        rate,
        0.5,
    );
    let mut bands = Vec::new();
    let mut hint = None;
    for n in 1..=STREAM_LENGTH {
        let covering = p_value_band(&cell, 0.05, n, hint);
        hint = Some(covering);
        bands.push(covering);
    }
    let (survival, _, _) = killed_walk(&cell, |n, _| bands[n as usize - 1]);
    let computed = 1.0 - survival;
    let halves = in_parallel(&[0_u64, 1], |&half| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x57_0b + half);
        let mut stopped = 0_u32;
        for _ in 0..STREAMS / 2 {
            let mut yes = 0_u64;
            for &(first, past) in &bands {
                let truth = draw_answer(&[0.5, 0.5], &mut rng);
                yes += u64::from(design.respond(truth, &mut rng).unwrap() == Design::YES);
                if yes < first || yes >= past {
                    stopped += 1;
                    break;
                }
            }
        }
        stopped
    });
    let simulated = f64::from(halves.iter().sum::<u32>()) / f64::from(STREAMS);
    let tolerance = 5.0 * (computed * (1.0 - computed) / f64::from(STREAMS)).sqrt();
    eprintln!("stopping at p < 0.05: computed {computed:.4}, simulated {simulated:.4}");
    assert!((simulated - computed).abs() <= tolerance.max(5.0 / f64::from(STREAMS)));
}
