//! Coverage of every interval of every design type, computed exactly from the law of the
//! counts rather than simulated.
//!
//! Every interval depends on the reports only through one count: the reports of the
//! higher-valued report set for a two-valued estimator (a yes/no design's "yes", a choice
//! option, a number's upper end), or the sum of the reported levels for the mean of an
//! ordinal question. With respondents drawn independently from the population, that count
//! after n reports is a random walk with independent steps whose law follows from the
//! realized matrix: a binomial for the two-valued estimators, a sum of categorical steps for
//! the ordinal mean. So:
//!
//! * **fixed N**: the coverage of an interval at N is the probability that the walk's
//!   position at N lies in the range of positions whose interval contains the truth (the
//!   bounds grow with the position, so that range is found by binary search with the crate's
//!   own interval functions);
//! * **anytime**: the probability that the walk stays in those ranges at every n from 1 to
//!   10 000 is computed by propagating the walk's law and removing, at each n, the mass
//!   outside the covering range (a killed walk).
//!
//! The laws are propagated exactly in f64, except that entries below 1e-30 at the edges
//! of the support are dropped and counted as not covering: the computed coverage is a lower
//! bound, short of the truth by the dropped mass (reported, below 1e-20). Asserted:
//! coverage ≥ 0.95 − 1e-9 for every cell. A simulation through the real samplers then
//! checks, on a few cells, that the computed coverage is the sampler's (within 5 standard
//! errors), so the law used above is the one the sampler produces.

mod common;

use common::{counts_at, draw_answer, first_false, first_false_by_bisection, in_parallel, Law};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use randomized_response::{
    Bounds, Confidence, Design, NumberDesign, PerRecordEstimator, PrivacyLevel,
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

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Chernoff,
    Exact,
    Anytime,
}

const KINDS: [Kind; 3] = [Kind::Chernoff, Kind::Exact, Kind::Anytime];

/// One estimate at one truth: its estimator, how its one count moves, and the truth.
#[derive(Clone)]
struct Cell {
    family: &'static str,
    label: String,
    estimator: PerRecordEstimator,
    /// The law of one step of the walk: `steps[j]` is the probability of moving by j.
    steps: Vec<f64>,
    /// Two-valued: the report with the higher value and one with the lower.
    /// Ordinal mean: `None` (the position is the sum of the reported levels).
    binary: Option<(usize, usize)>,
    truth: f64,
}

impl Cell {
    fn largest_step(&self) -> u64 {
        (self.steps.len() - 1) as u64
    }

    /// Report counts with n reports at walk position `position`.
    fn counts(&self, n: u64, position: u64, counts: &mut [u64; 20]) {
        counts_at(self.binary, self.largest_step(), n, position, counts);
    }

    fn interval(&self, kind: Kind, n: u64, position: u64) -> Option<Bounds> {
        let mut counts = [0_u64; 20];
        self.counts(n, position, &mut counts);
        let counts = &counts[..self.estimator.reports()];
        match kind {
            Kind::Chernoff => self.estimator.chernoff_interval(counts, confidence()),
            Kind::Exact => self.estimator.exact_interval(counts, confidence()),
            Kind::Anytime => {
                self.estimator
                    .anytime_interval(counts, confidence(), PLANNED_RESPONDENTS)
            }
        }
        .unwrap()
    }

    /// The positions at n whose interval contains the truth, `[first, past)`, searched from
    /// `hint` (the bounds grow with the position, so the covering positions are a range).
    fn covering(&self, kind: Kind, n: u64, hint: Option<(u64, u64)>) -> (u64, u64) {
        let top = self.largest_step() * n;
        // The interval as computed: it covers a truth in range exactly when the interval
        // within the range does, and its ends grow with the position even where that is empty.
        let computed = |position: u64| self.interval(kind, n, position).unwrap().computed();
        let below = |position: u64| computed(position).1 < self.truth;
        let reached = |position: u64| computed(position).0 <= self.truth;
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
}

/// What the exact computation gives for one cell.
struct Coverage {
    /// Coverage at each N of [`SIZES`], per kind (`None`: the kind has no interval here).
    fixed: [[Option<f64>; 3]; 3],
    /// Probability that the anytime interval covers at every n up to 10 000.
    time_uniform: f64,
    /// Mass dropped as negligible (the computed coverages are short of the truth by at most
    /// this much).
    dropped: f64,
}

fn compute(cell: &Cell) -> Coverage {
    let mut free = Law::at_zero();
    let mut killed = Law::at_zero();
    let mut fixed = [[None; 3]; 3];
    let mut dropped = 0.0;
    let mut band: Option<(u64, u64)> = None;
    for n in 1..=STREAM_LENGTH {
        free.step(&cell.steps);
        killed.step(&cell.steps);
        dropped += free.trim();
        dropped += killed.trim();
        let covering = cell.covering(Kind::Anytime, n, band);
        band = Some(covering);
        killed.keep_only(covering);
        if let Some(index) = SIZES.iter().position(|&size| size == n) {
            for (k, kind) in KINDS.iter().enumerate() {
                if *kind == Kind::Exact && !cell.estimator.is_two_valued() {
                    continue;
                }
                let range = cell.covering(*kind, n, None);
                fixed[k][index] = Some(free.mass_in(range));
            }
        }
    }
    Coverage {
        fixed,
        time_uniform: killed.values.iter().sum(),
        dropped,
    }
}

/// A two-valued estimator's cell: the walk counts the higher-valued report, which is made
/// with probability `rate`.
fn binary_cell(
    family: &'static str,
    label: String,
    estimator: PerRecordEstimator,
    rate: f64,
    truth: f64,
) -> Cell {
    let values = estimator.values();
    let high = (0..values.len())
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap();
    let low = (0..values.len())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap();
    Cell {
        family,
        label,
        estimator,
        steps: vec![1.0 - rate, rate],
        binary: Some((high, low)),
        truth,
    }
}

fn yes_no_designs() -> Vec<(&'static str, String, Design)> {
    let mut designs = Vec::new();
    for epsilon in EPSILONS {
        designs.push((
            "yes/no mirrored",
            format!("ε = {epsilon}"),
            Design::mirrored(level(epsilon)),
        ));
    }
    for (p, p1, p0) in [
        (2.0 / 3.0, 1.0 / 6.0, 1.0 / 6.0),
        (0.67, 0.165, 0.165),
        (0.8, 0.15, 0.05),
        (0.5, 0.25, 0.25),
        (0.3, 0.35, 0.35),
        (0.9, 0.02, 0.08),
    ] {
        designs.push((
            "yes/no forced response",
            format!("p = {p:.3}, p1 = {p1:.3}, p0 = {p0:.3}"),
            Design::forced_response(p, p1, p0).unwrap(),
        ));
    }
    for (p, q) in [(0.7, 0.5), (0.5, 0.2), (0.9, 0.3), (0.3, 0.5)] {
        designs.push((
            "yes/no unrelated question",
            format!("p = {p}, q = {q}"),
            Design::unrelated_question(p, q).unwrap(),
        ));
    }
    designs
}

fn binary_cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for (family, label, design) in yes_no_designs() {
        for share in SHARES {
            let rate = (1.0 - share) * design.probability(Design::NO, Design::YES)
                + share * design.probability(Design::YES, Design::YES);
            cells.push(binary_cell(
                family,
                format!("{label}, π = {share}"),
                design.option_estimator(Design::YES).unwrap(),
                rate,
                share,
            ));
        }
    }
    for options in [3, 5, 20] {
        for epsilon in EPSILONS {
            let design = Design::k_ary(options, level(epsilon)).unwrap();
            let (same, other) = (design.probability(0, 0), design.probability(1, 0));
            for share in SHARES {
                cells.push(binary_cell(
                    "choice option (k-ary)",
                    format!("k = {options}, ε = {epsilon}, π_0 = {share}"),
                    design.option_estimator(0).unwrap(),
                    share * same + (1.0 - share) * other,
                    share,
                ));
            }
        }
    }
    for epsilon in EPSILONS {
        let number = NumberDesign::new(0.0, 30.0, level(epsilon)).unwrap();
        for share in SHARES {
            // Everyone holds the same value; any population with this mean gives the same law.
            let value = 30.0 * share;
            cells.push(binary_cell(
                "number mean",
                format!("ε = {epsilon}, mean {value}"),
                number.mean_estimator(),
                number
                    .report_probability(value, NumberDesign::MAX_END)
                    .unwrap(),
                value,
            ));
        }
    }
    cells
}

fn ordinal_cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for options in [3, 5] {
        let mut distributions: Vec<(&str, Vec<f64>)> = Vec::new();
        let mut lowest = vec![0.0; options];
        lowest[0] = 1.0;
        let mut highest = vec![0.0; options];
        highest[options - 1] = 1.0;
        let mut ends = vec![0.0; options];
        ends[0] = 0.5;
        ends[options - 1] = 0.5;
        let middle = (options - 1) / 2;
        let bell: Vec<f64> = (0..options)
            .map(|i| 1.0 / (1.0 + (i as f64 - middle as f64).abs()))
            .collect();
        let bell_total: f64 = bell.iter().sum();
        distributions.push(("all lowest", lowest));
        distributions.push(("all highest", highest));
        distributions.push(("uniform", vec![1.0 / options as f64; options]));
        distributions.push(("half at each end", ends));
        distributions.push(("bell", bell.iter().map(|b| b / bell_total).collect()));
        for epsilon in EPSILONS {
            let design = Design::k_ary(options, level(epsilon)).unwrap();
            for (name, distribution) in &distributions {
                let steps: Vec<f64> = (0..options)
                    .map(|r| {
                        (0..options)
                            .map(|t| distribution[t] * design.probability(t, r))
                            .sum()
                    })
                    .collect();
                let truth = distribution
                    .iter()
                    .enumerate()
                    .map(|(i, p)| i as f64 * p)
                    .sum();
                cells.push(Cell {
                    family: "ordinal mean (k-ary)",
                    label: format!("k = {options}, ε = {epsilon}, {name}"),
                    estimator: design.mean_level_estimator(),
                    steps,
                    binary: None,
                    truth,
                });
            }
        }
    }
    cells
}

/// Checks every cell and prints the minimum coverage per design family and interval.
fn check(cells: &[Cell]) {
    let coverages = in_parallel(cells, compute);
    let mut failures = Vec::new();
    let mut families: Vec<&str> = cells.iter().map(|c| c.family).collect();
    families.dedup();
    for family in families {
        let mut minimum = [[1.0_f64; 3]; 3];
        let mut time_uniform = 1.0_f64;
        let mut dropped = 0.0_f64;
        for (cell, coverage) in cells.iter().zip(&coverages) {
            if cell.family != family {
                continue;
            }
            dropped = dropped.max(coverage.dropped);
            for (k, kind) in KINDS.iter().enumerate() {
                for (s, size) in SIZES.iter().enumerate() {
                    if let Some(value) = coverage.fixed[k][s] {
                        minimum[k][s] = minimum[k][s].min(value);
                        if value < CONFIDENCE - 1e-9 {
                            failures.push(format!(
                                "{family}, {}: {kind:?} at N = {size} covers {value}",
                                cell.label
                            ));
                        }
                    }
                }
            }
            time_uniform = time_uniform.min(coverage.time_uniform);
            if coverage.time_uniform < CONFIDENCE - 1e-9 {
                failures.push(format!(
                    "{family}, {}: anytime covers at every n ≤ {STREAM_LENGTH} with {}",
                    cell.label, coverage.time_uniform
                ));
            }
            if coverage.dropped > 1e-20 {
                failures.push(format!(
                    "{family}, {}: dropped {}",
                    cell.label, coverage.dropped
                ));
            }
        }
        let cells_here = cells.iter().filter(|c| c.family == family).count();
        let row = |k: usize| {
            if minimum[k].iter().all(|&m| m == 1.0) && KINDS[k] == Kind::Exact {
                "none (not two-valued)".to_string()
            } else {
                format!(
                    "{:.4} / {:.4} / {:.4}",
                    minimum[k][0], minimum[k][1], minimum[k][2]
                )
            }
        };
        eprintln!(
            "{family} ({cells_here} cells): minimum coverage at N = 10 / 100 / 10 000: \
             Chernoff {}, exact {}, anytime {}; anytime at every n ≤ {STREAM_LENGTH}: \
             {time_uniform:.4}; dropped mass ≤ {dropped:.1e}",
            row(0),
            row(1),
            row(2),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_interval_of_every_two_valued_estimate_covers_at_every_n() {
    // Yes/no (mirrored, forced response, unrelated question), each option of a choice,
    // and the mean of a number: ε (or the design's parameters) × truth × N.
    check(&binary_cells());
}

#[test]
fn the_intervals_of_an_ordinal_mean_cover_at_every_n() {
    check(&ordinal_cells());
}

/// The law of the count of upper reports of a fixed class of respondents whose reports are
/// independent with probabilities `rates` (Poisson-binomial), and the mass dropped.
fn poisson_binomial(rates: &[f64]) -> (Law, f64) {
    let mut law = Law::at_zero();
    let mut dropped = 0.0;
    for &rate in rates {
        law.step(&[1.0 - rate, rate]);
        dropped += law.trim();
    }
    (law, dropped)
}

/// The value of the i-th member of a fixed class.
type ValueOf = dyn Fn(u64) -> f64;

#[test]
fn the_intervals_of_a_number_cover_the_mean_of_a_fixed_class_too() {
    // Not a random sample but N fixed people with their own values: the count of upper
    // reports is then Poisson-binomial. Hoeffding's and the anytime bounds hold for
    // independent, non-identical reports; Clopper–Pearson's acceptance region contains the
    // mean count, where a Poisson-binomial law is more concentrated than the binomial
    // (Hoeffding 1956), so its coverage does not fall either. Checked exactly here.
    let mut failures = Vec::new();
    let mut minimum = [1.0_f64; 3];
    for epsilon in EPSILONS {
        let number = NumberDesign::new(0.0, 30.0, level(epsilon)).unwrap();
        for size in SIZES {
            let classes: [(&str, Box<ValueOf>); 3] = [
                ("every day count 0..=30", Box::new(|i| (i % 31) as f64)),
                (
                    "mostly zero, some thirty",
                    Box::new(|i| if i % 10 == 0 { 30.0 } else { 0.0 }),
                ),
                ("fractions", Box::new(|i| ((i * 7919) % 1000) as f64 * 0.03)),
            ];
            for (name, value_of) in &classes {
                let values: Vec<f64> = (0..size).map(value_of).collect();
                let mean = values.iter().sum::<f64>() / size as f64;
                let rates: Vec<f64> = values
                    .iter()
                    .map(|&v| number.report_probability(v, NumberDesign::MAX_END).unwrap())
                    .collect();
                let cell = binary_cell(
                    "number mean",
                    String::new(),
                    number.mean_estimator(),
                    0.5,
                    mean,
                );
                let (law, dropped) = poisson_binomial(&rates);
                assert!(dropped < 1e-20, "{dropped}");
                for (k, kind) in KINDS.iter().enumerate() {
                    let coverage = law.mass_in(cell.covering(*kind, size, None));
                    minimum[k] = minimum[k].min(coverage);
                    if coverage < CONFIDENCE - 1e-9 {
                        failures.push(format!(
                            "ε = {epsilon}, N = {size}, {name}: {kind:?} covers {coverage}"
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "number mean, fixed classes: minimum coverage Chernoff {:.4}, exact {:.4}, anytime {:.4}",
        minimum[0], minimum[1], minimum[2]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn simulated_surveys_through_the_samplers_agree_with_the_computed_coverage() {
    const SURVEYS: u32 = 2_000;
    const RESPONDENTS: u64 = 100;
    let forced = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    let unrelated = Design::unrelated_question(0.7, 0.5).unwrap();
    let choice = Design::k_ary(4, level(1.5)).unwrap();
    let ordinal = Design::k_ary(5, level(1.0)).unwrap();
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    let likert = [0.1, 0.2, 0.4, 0.2, 0.1];
    let rows = [0.3, 0.7];
    let skewed_choice = [0.5, 0.3, 0.15, 0.05];
    let column = |design: &Design, distribution: &[f64], report: usize| -> f64 {
        distribution
            .iter()
            .enumerate()
            .map(|(t, p)| p * design.probability(t, report))
            .sum()
    };
    // (cell for the computation, design for the simulation, distribution of true answers)
    let mut cases: Vec<(Cell, Option<Design>, Vec<f64>)> = Vec::new();
    for design in [&forced, &unrelated] {
        cases.push((
            binary_cell(
                "yes/no",
                format!("{:?}", design.kind()),
                design.option_estimator(Design::YES).unwrap(),
                column(design, &rows, Design::YES),
                rows[1],
            ),
            Some(design.clone()),
            rows.to_vec(),
        ));
    }
    cases.push((
        binary_cell(
            "choice",
            "option 1".into(),
            choice.option_estimator(1).unwrap(),
            column(&choice, &skewed_choice, 1),
            skewed_choice[1],
        ),
        Some(choice.clone()),
        skewed_choice.to_vec(),
    ));
    let steps: Vec<f64> = (0..5).map(|r| column(&ordinal, &likert, r)).collect();
    cases.push((
        Cell {
            family: "ordinal",
            label: "mean".into(),
            estimator: ordinal.mean_level_estimator(),
            steps,
            binary: None,
            truth: 2.0,
        },
        Some(ordinal.clone()),
        likert.to_vec(),
    ));
    // The number: values 0, 3, 30 with probabilities 0.5, 0.3, 0.2 (mean 6.9).
    let values = [0.0, 3.0, 30.0];
    let weights = [0.5, 0.3, 0.2];
    let upper: f64 = values
        .iter()
        .zip(weights)
        .map(|(&v, w)| w * number.report_probability(v, 1).unwrap())
        .sum();
    cases.push((
        binary_cell("number", "mean".into(), number.mean_estimator(), upper, 6.9),
        None,
        weights.to_vec(),
    ));
    let results = in_parallel(&cases, |(cell, design, distribution)| {
        let mut rng = ChaCha20Rng::seed_from_u64(cell.truth.to_bits());
        let mut covered = [0_u32; 3];
        for _ in 0..SURVEYS {
            let mut counts = [0_u64; 20];
            for _ in 0..RESPONDENTS {
                let truth = draw_answer(distribution, &mut rng);
                let report = match design {
                    Some(design) => design.respond(truth, &mut rng).unwrap(),
                    None => number.respond(values[truth], &mut rng).unwrap(),
                };
                counts[report] += 1;
            }
            let counts = &counts[..cell.estimator.reports()];
            let summary = cell
                .estimator
                .summarize(counts, confidence(), PLANNED_RESPONDENTS)
                .unwrap()
                .unwrap();
            let intervals = [Some(summary.chernoff), summary.exact, Some(summary.anytime)];
            for (k, interval) in intervals.iter().enumerate() {
                covered[k] += u32::from(interval.is_some_and(|i| i.contains(cell.truth)));
            }
        }
        let mut failures = Vec::new();
        for (k, kind) in KINDS.iter().enumerate() {
            let computed = if *kind == Kind::Exact && !cell.estimator.is_two_valued() {
                0.0
            } else {
                let range = cell.covering(*kind, RESPONDENTS, None);
                let mut law = Law::at_zero();
                for _ in 0..RESPONDENTS {
                    law.step(&cell.steps);
                }
                law.mass_in(range)
            };
            let simulated = f64::from(covered[k]) / f64::from(SURVEYS);
            let tolerance = 5.0
                * (computed * (1.0 - computed) / f64::from(SURVEYS))
                    .sqrt()
                    .max(1.0 / f64::from(SURVEYS));
            if (simulated - computed).abs() > tolerance {
                failures.push(format!(
                    "{} {}: {kind:?} simulated {simulated}, computed {computed}",
                    cell.family, cell.label
                ));
            }
        }
        failures
    });
    let failures: Vec<String> = results.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn simulated_streams_stay_covered_as_often_as_the_killed_walk_computes() {
    // Forced response 0.67/0.165/0.165 at π = 0.5 (reports near half "yes", where the
    // anytime interval is least conservative), streams of 10 000 respondents.
    const STREAMS: u32 = 2_000;
    let design = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    let rows = [0.5, 0.5];
    let rate = 0.5 * design.probability(Design::NO, Design::YES)
        + 0.5 * design.probability(Design::YES, Design::YES);
    let cell = binary_cell(
        "yes/no",
        "forced response".into(),
        design.option_estimator(Design::YES).unwrap(),
        rate,
        0.5,
    );
    let computed = compute(&cell).time_uniform;
    let mut bands = Vec::new();
    let mut band = None;
    for n in 1..=STREAM_LENGTH {
        let covering = cell.covering(Kind::Anytime, n, band);
        band = Some(covering);
        bands.push(covering);
    }
    let halves = in_parallel(&[0_u64, 1], |&half| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x5eed + half);
        let mut covered = 0_u32;
        for _ in 0..STREAMS / 2 {
            let mut yes = 0_u64;
            let mut inside = true;
            for &(first, past) in &bands {
                let truth = draw_answer(&rows, &mut rng);
                yes += u64::from(design.respond(truth, &mut rng).unwrap() == Design::YES);
                inside &= first <= yes && yes < past;
            }
            covered += u32::from(inside);
        }
        covered
    });
    let simulated = f64::from(halves.iter().sum::<u32>()) / f64::from(STREAMS);
    let tolerance = 5.0 * (computed * (1.0 - computed) / f64::from(STREAMS)).sqrt();
    eprintln!(
        "anytime at every n ≤ {STREAM_LENGTH}: computed {computed:.4}, simulated {simulated:.4} \
         ({STREAMS} streams)"
    );
    assert!((simulated - computed).abs() <= tolerance);
}
