//! Differences between two independent groups: coverage of the intervals of `θ_a − θ_b` and
//! the size of the tests of `θ_a = θ_b`.
//!
//! Each group's intervals depend on its own count of higher-valued reports, a binomial walk
//! (tests/common), and the groups are independent, so at fixed group sizes every coverage
//! is a sum over the product of two binomial laws, computed exactly (entries below 1e-30
//! dropped and counted as misses). Grid: yes/no designs (mirrored at ε = 0.5, 1, 5; forced
//! response) × group sizes {10, 100, 1 000}² × five pairs of truths. Asserted: ≥ 0.95 − 1e-9.
//!
//! * The anytime difference interval at every moment: it covers whenever both groups'
//!   anytime intervals at `1 − β/2` cover, which (independent groups) has probability the
//!   product of the two time-uniform coverages, each computed by a killed walk to 10 000:
//!   a lower bound, asserted ≥ 0.95 − 1e-9.
//! * Fisher's exact test at fixed sizes rejects a true `θ_a = θ_b` at 5 % at most 5 % of the
//!   time (computed exactly over the product law).
//! * The anytime p-value, checked after every report of 10 000 interleaved between the two
//!   groups, by simulation through the sampler: a researcher who stops at p < 0.05 rejects a
//!   true `θ_a = θ_b` at most 5 % (+ 4 SE) of the time.

mod common;

use common::{first_false, first_false_by_bisection, in_parallel, Law};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{Bounds, Confidence, Design, Group, PerRecordEstimator, PrivacyLevel};

const CONFIDENCE: f64 = 0.95;
const SIZES: [u64; 3] = [10, 100, 1_000];
const STREAM_LENGTH: u64 = 10_000;
const TRUTHS: [(f64, f64); 5] = [(0.0, 0.0), (0.05, 0.5), (0.5, 0.5), (1.0, 0.95), (1.0, 0.0)];

fn confidence(level: f64) -> Confidence {
    Confidence::new(level).unwrap()
}

fn designs() -> Vec<(String, Design)> {
    let mut designs: Vec<(String, Design)> = [0.5, 1.0, 5.0]
        .iter()
        .map(|&e| {
            (
                format!("mirrored ε = {e}"),
                Design::mirrored(PrivacyLevel::new(e).unwrap()),
            )
        })
        .collect();
    designs.push((
        "forced response 0.67/0.165/0.165".into(),
        Design::forced_response(0.67, 0.165, 0.165).unwrap(),
    ));
    designs
}

/// The rate of reported yes at true share `share`.
fn rate(design: &Design, share: f64) -> f64 {
    (1.0 - share) * design.probability(Design::NO, Design::YES)
        + share * design.probability(Design::YES, Design::YES)
}

/// The law of the reported yes after n reports at `rate` (trimmed), and the mass dropped.
fn binomial(n: u64, rate: f64) -> (Law, f64) {
    let mut law = Law::at_zero();
    let mut dropped = 0.0;
    for _ in 0..n {
        law.step(&[1.0 - rate, rate]);
        dropped += law.trim();
    }
    (law, dropped)
}

fn counts(n: u64, yes: u64) -> [u64; 2] {
    [n - yes, yes]
}

/// Each point of a group's law: (yes, probability, exact interval, anytime interval), the
/// intervals at `1 − β/2` as the difference combines them.
fn group_points(
    estimator: &PerRecordEstimator,
    n: u64,
    law: &Law,
) -> Vec<(u64, f64, Bounds, Bounds)> {
    let each = confidence(1.0 - (1.0 - CONFIDENCE) / 2.0);
    law.values
        .iter()
        .enumerate()
        .map(|(i, &mass)| {
            let yes = law.start + i as u64;
            let c = counts(n, yes);
            (
                yes,
                mass,
                estimator.exact_interval(&c, each).unwrap().unwrap(),
                estimator.anytime_interval(&c, each, n).unwrap().unwrap(),
            )
        })
        .collect()
}

/// One group of a design at a size and a truth: its law and the points of it.
struct GroupLaw {
    design: usize,
    n: u64,
    truth: f64,
    points: Vec<(u64, f64, Bounds, Bounds)>,
    dropped: f64,
}

fn group_laws(designs: &[(String, Design)]) -> Vec<GroupLaw> {
    let mut keys = Vec::new();
    for design in 0..designs.len() {
        for n in SIZES {
            for truth in [0.0, 0.05, 0.5, 0.95, 1.0] {
                keys.push((design, n, truth));
            }
        }
    }
    in_parallel(&keys, |&(design, n, truth)| {
        let estimator = designs[design].1.option_estimator(Design::YES).unwrap();
        let (law, dropped) = binomial(n, rate(&designs[design].1, truth));
        GroupLaw {
            design,
            n,
            truth,
            points: group_points(&estimator, n, &law),
            dropped,
        }
    })
}

struct Cell<'a> {
    label: String,
    design: &'a Design,
    a: &'a GroupLaw,
    b: &'a GroupLaw,
}

/// Coverage of the Chernoff, exact and anytime difference intervals at the cell's sizes,
/// Fisher's rejection rate at 5 % when the truths are equal, and the mass dropped.
fn fixed_size(cell: &Cell<'_>) -> ([f64; 3], Option<f64>, f64) {
    let estimator = cell.design.option_estimator(Design::YES).unwrap();
    let (n_a, n_b) = (cell.a.n, cell.b.n);
    let difference = cell.a.truth - cell.b.truth;
    let mut covered = [0.0; 3];
    let mut rejected = 0.0;
    let equal = cell.a.truth == cell.b.truth;
    for &(yes_a, mass_a, exact_a, anytime_a) in &cell.a.points {
        for &(yes_b, mass_b, exact_b, anytime_b) in &cell.b.points {
            let mass = mass_a * mass_b;
            let (a, b) = (counts(n_a, yes_a), counts(n_b, yes_b));
            let chernoff = estimator
                .difference_chernoff_interval(&a, &b, confidence(CONFIDENCE))
                .unwrap()
                .unwrap();
            // [L_a − U_b, U_a − L_b], as the crate combines them (tests/analyses.rs).
            let combined = |x: Bounds, y: Bounds| match (x.range(), y.range()) {
                (Some((x_low, x_high)), Some((y_low, y_high))) => {
                    x_low - y_high <= difference && difference <= x_high - y_low
                }
                _ => false,
            };
            for (k, hit) in [
                chernoff.contains(difference),
                combined(exact_a, exact_b),
                combined(anytime_a, anytime_b),
            ]
            .into_iter()
            .enumerate()
            {
                if hit {
                    covered[k] += mass;
                }
            }
            if equal {
                let p = estimator.difference_exact_p_value(&a, &b).unwrap().unwrap();
                if p <= 1.0 - CONFIDENCE {
                    rejected += mass;
                }
            }
        }
    }
    (
        covered,
        equal.then_some(rejected),
        cell.a.dropped + cell.b.dropped,
    )
}

#[test]
fn the_difference_intervals_cover_at_fixed_sizes_and_fisher_keeps_its_level() {
    let designs = designs();
    let laws = group_laws(&designs);
    let find = |design: usize, n: u64, truth: f64| {
        laws.iter()
            .find(|g| g.design == design && g.n == n && g.truth == truth)
            .unwrap()
    };
    let mut cells = Vec::new();
    for (index, (name, design)) in designs.iter().enumerate() {
        for n_a in SIZES {
            for n_b in SIZES {
                for (truth_a, truth_b) in TRUTHS {
                    cells.push(Cell {
                        label: format!("{name}, n = {n_a}/{n_b}, θ = ({truth_a}, {truth_b})"),
                        design,
                        a: find(index, n_a, truth_a),
                        b: find(index, n_b, truth_b),
                    });
                }
            }
        }
    }
    let results = in_parallel(&cells, fixed_size);
    let mut minimum = [1.0_f64; 3];
    let mut worst_fisher = 0.0_f64;
    let mut failures = Vec::new();
    for (cell, (covered, rejected, dropped)) in cells.iter().zip(&results) {
        for (k, name) in ["Chernoff", "exact", "anytime"].iter().enumerate() {
            minimum[k] = minimum[k].min(covered[k]);
            if covered[k] < CONFIDENCE - 1e-9 {
                failures.push(format!("{}: {name} covers {}", cell.label, covered[k]));
            }
        }
        if let Some(rejected) = rejected {
            worst_fisher = worst_fisher.max(*rejected);
            if *rejected > 1.0 - CONFIDENCE + 1e-9 {
                failures.push(format!("{}: Fisher rejects {rejected}", cell.label));
            }
        }
        if *dropped > 1e-20 {
            failures.push(format!("{}: dropped {dropped}", cell.label));
        }
    }
    eprintln!(
        "differences ({} cells, sizes 10/100/1 000 each): minimum coverage Chernoff {:.4}, \
         exact {:.4}, anytime {:.4}; Fisher's largest rejection of a true θ_a = θ_b at 5 %: \
         {worst_fisher:.4}",
        cells.len(),
        minimum[0],
        minimum[1],
        minimum[2]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The probability that one group's anytime interval at `1 − β/2`, tuned for `planned`,
/// covers its truth at every n ≤ 10 000.
fn time_uniform(design: &Design, truth: f64, planned: u64) -> f64 {
    let estimator = design.option_estimator(Design::YES).unwrap();
    let each = confidence(1.0 - (1.0 - CONFIDENCE) / 2.0);
    let steps = [1.0 - rate(design, truth), rate(design, truth)];
    let interval = |n: u64, yes: u64| {
        estimator
            .anytime_interval(&counts(n, yes), each, planned)
            .unwrap()
            .unwrap()
    };
    let mut killed = Law::at_zero();
    let mut band: Option<(u64, u64)> = None;
    for n in 1..=STREAM_LENGTH {
        killed.step(&steps);
        killed.trim();
        // As computed: covers a truth in range exactly when the interval within it does.
        let below = |yes: u64| interval(n, yes).computed().1 < truth;
        let reached = |yes: u64| interval(n, yes).computed().0 <= truth;
        let covering = match band {
            Some((first, past)) => (first_false(n, first, below), first_false(n, past, reached)),
            None => (
                first_false_by_bisection(n, below),
                first_false_by_bisection(n, reached),
            ),
        };
        band = Some(covering);
        killed.keep_only(covering);
    }
    killed.values.iter().sum()
}

#[test]
fn the_anytime_difference_interval_covers_at_every_moment() {
    let mut groups = Vec::new();
    for (name, design) in designs() {
        for truth in [0.0, 0.05, 0.5, 0.95, 1.0] {
            for planned in SIZES {
                groups.push((name.clone(), design.clone(), truth, planned));
            }
        }
    }
    let survivals = in_parallel(&groups, |(_, design, truth, planned)| {
        time_uniform(design, *truth, *planned)
    });
    let survival = |name: &str, truth: f64, planned: u64| {
        groups
            .iter()
            .zip(&survivals)
            .find(|((n, _, t, p), _)| n == name && *t == truth && *p == planned)
            .map(|(_, &s)| s)
            .unwrap()
    };
    let mut minimum = 1.0_f64;
    for (name, _) in designs() {
        for (truth_a, truth_b) in TRUTHS {
            for n_a in SIZES {
                for n_b in SIZES {
                    let both = survival(&name, truth_a, n_a) * survival(&name, truth_b, n_b);
                    minimum = minimum.min(both);
                    assert!(
                        both >= CONFIDENCE - 1e-9,
                        "{name}, θ = ({truth_a}, {truth_b}), planned {n_a}/{n_b}: {both}"
                    );
                }
            }
        }
    }
    let single = survivals.iter().copied().fold(1.0, f64::min);
    eprintln!(
        "anytime difference at every moment to {STREAM_LENGTH} reports per group: each group \
         at 97.5 % covers throughout with probability ≥ {single:.4}; both (a lower bound on the \
         difference's coverage) ≥ {minimum:.4}"
    );
}

#[test]
fn stopping_when_the_anytime_difference_p_value_drops_below_005_keeps_5_percent() {
    // Respondents join group a with probability 0.3, else b; θ_a = θ_b; 10 000 reports,
    // the p-value checked after every one once both groups have answered. The p-value is
    // below 0.05 exactly when the anytime difference interval at 95 % excludes 0
    // (tests/analyses.rs), so that interval, from each group's half-width (a function of its
    // size only), screens the reports, and the p-value itself decides whenever the interval
    // comes within 1e-9 of excluding 0.
    const STREAMS: u32 = 4_000;
    let chosen = confidence(CONFIDENCE);
    let each = confidence(1.0 - (1.0 - CONFIDENCE) / 2.0);
    let cases = [
        (
            "mirrored ε = 1, θ = 0.5",
            Design::mirrored(PrivacyLevel::new(1.0).unwrap()),
            0.5,
        ),
        (
            "forced response, θ = 0.05",
            Design::forced_response(0.67, 0.165, 0.165).unwrap(),
            0.05,
        ),
    ];
    let (planned_a, planned_b) = (3_000_u64, 7_000_u64);
    let mut results = Vec::new();
    for (name, design, truth) in &cases {
        let estimator = design.option_estimator(Design::YES).unwrap();
        let half_widths = |planned: u64| -> Vec<f64> {
            (0..=STREAM_LENGTH)
                .map(|n| {
                    if n == 0 {
                        return f64::INFINITY;
                    }
                    let c = counts(n, 0);
                    estimator
                        .anytime_interval(&c, each, planned)
                        .unwrap()
                        .unwrap()
                        .half_width()
                })
                .collect()
        };
        let (widths_a, widths_b) = (half_widths(planned_a), half_widths(planned_b));
        let rejected = in_parallel(&[0_u64, 1], |&half| {
            let mut rng = ChaCha20Rng::seed_from_u64(0xd1ff + half);
            let mut rejected = 0_u32;
            for _ in 0..STREAMS / 2 {
                let (mut a, mut b) = ([0_u64; 2], [0_u64; 2]);
                for _ in 0..STREAM_LENGTH {
                    let in_a = rng.next_u64() < 0x4ccc_cccc_cccc_cccd; // 0.3 · 2^64
                    let uniform = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
                    let truth_yes = uniform < *truth;
                    let report = design.respond(usize::from(truth_yes), &mut rng).unwrap();
                    if in_a {
                        a[report] += 1;
                    } else {
                        b[report] += 1;
                    }
                    let (n_a, n_b) = (a[0] + a[1], b[0] + b[1]);
                    if n_a == 0 || n_b == 0 {
                        continue;
                    }
                    let estimate_a = estimator.estimate(&a).unwrap().unwrap();
                    let estimate_b = estimator.estimate(&b).unwrap().unwrap();
                    let clip = |x: f64| x.clamp(0.0, 1.0);
                    let (wa, wb) = (widths_a[n_a as usize], widths_b[n_b as usize]);
                    let low = clip(estimate_a - wa) - clip(estimate_b + wb);
                    let high = clip(estimate_a + wa) - clip(estimate_b - wb);
                    if low > -1e-9 || high < 1e-9 {
                        let p = estimator
                            .difference_anytime_p_value(
                                Group {
                                    counts: &a,
                                    planned_respondents: planned_a,
                                },
                                Group {
                                    counts: &b,
                                    planned_respondents: planned_b,
                                },
                                chosen,
                            )
                            .unwrap()
                            .unwrap();
                        if p <= 0.05 {
                            rejected += 1;
                            break;
                        }
                    }
                }
            }
            rejected
        });
        let rate = f64::from(rejected.iter().sum::<u32>()) / f64::from(STREAMS);
        let standard_error = (rate * (1.0 - rate) / f64::from(STREAMS)).sqrt();
        results.push((name, rate, standard_error));
    }
    for (name, rate, standard_error) in &results {
        eprintln!(
            "{name}: stopping at p < 0.05 rejects a true θ_a = θ_b in {rate:.4} of {STREAMS} \
             streams (4 SE = {:.4})",
            4.0 * standard_error
        );
        assert!(4.0 * standard_error < 0.005);
        assert!(*rate <= 0.05 + 4.0 * standard_error, "{name}: {rate}");
    }
}
