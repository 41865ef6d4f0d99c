//! Cross-tabulation: coverage of each joint cell's Chernoff and anytime intervals and of the
//! conditional proportions' intervals (Bonferroni ratio bounds), at N = 10, 100 and 10 000.
//!
//! A cell's estimate and its conditional proportion depend on the table of report pairs only
//! through the cell's four collapsed counts ([`JointCell::collapse`]), which are multinomial
//! with probabilities that follow from the product design and the true joint distribution.
//! So at N = 10 and 100 coverage is a sum over every composition of N into four counts,
//! computed exactly (asserted ≥ 0.95 − 1e-9; compositions below 1e-25 are skipped and counted
//! as misses, at most 2e-20 in all). At N = 10 000 (1.7·10¹¹ compositions) it is simulated,
//! 8 000 surveys through the samplers for three configurations, asserted ≥ 0.95 − 4 SE
//! with 4 SE < 0.005.
//!
//! A conditional proportion whose interval is undefined (the denominator's lower bound is
//! not above 0) counts as covering: it claims nothing. How often that happens is printed.

mod common;

use common::{draw_answer, in_parallel};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use randomized_response::{Confidence, Design, JointCell, JointDesign, PrivacyLevel};

const CONFIDENCE: f64 = 0.95;
const PLANNED_RESPONDENTS: u64 = 1_000;
/// Compositions less likely than this are not evaluated (and count as misses).
const SKIPPED: f64 = 1e-25;

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence() -> Confidence {
    Confidence::new(CONFIDENCE).unwrap()
}

/// Two questions and the true joint distribution of their answers (row-major).
struct Config {
    label: String,
    first: Design,
    second: Design,
    truth: Vec<f64>,
}

fn configs() -> Vec<Config> {
    let mut configs = Vec::new();
    let truths: [(&str, [f64; 4]); 4] = [
        ("independent 0.3 × 0.6", [0.28, 0.42, 0.12, 0.18]),
        ("correlated", [0.4, 0.1, 0.1, 0.4]),
        ("all yes, yes", [0.0, 0.0, 0.0, 1.0]),
        ("rare", [0.9, 0.05, 0.05, 0.0]),
    ];
    for epsilon in [1.0, 5.0] {
        for (name, truth) in truths {
            configs.push(Config {
                label: format!("mirrored ε = {epsilon} twice, {name}"),
                first: Design::mirrored(level(epsilon)),
                second: Design::mirrored(level(epsilon)),
                truth: truth.to_vec(),
            });
        }
    }
    configs.push(Config {
        label: "forced response × mirrored ε = 2, correlated".into(),
        first: Design::forced_response(0.67, 0.165, 0.165).unwrap(),
        second: Design::mirrored(level(2.0)),
        truth: vec![0.4, 0.1, 0.1, 0.4],
    });
    configs.push(Config {
        label: "mirrored ε = 1 × choice of 3 at ε = 2".into(),
        first: Design::mirrored(level(1.0)),
        second: Design::k_ary(3, level(2.0)).unwrap(),
        truth: vec![0.3, 0.1, 0.1, 0.05, 0.15, 0.3],
    });
    configs
}

/// One cell of a configuration: the cell, its conditional, the truths, and for each of the
/// four collapsed categories its probability and a report pair that falls in it.
struct Target {
    label: String,
    joint: JointDesign,
    cell: JointCell,
    given: usize,
    second: usize,
    share: f64,
    conditional: Option<f64>,
    category: [f64; 4],
    representative: [usize; 4],
}

fn targets(config: &Config) -> Vec<Target> {
    let joint = JointDesign::new(&config.first, &config.second);
    let (rows, columns) = joint.shape();
    let mut targets = Vec::new();
    for given in 0..rows {
        let margin: f64 = (0..columns)
            .map(|j| config.truth[given * columns + j])
            .sum();
        for second in 0..columns {
            let cell = joint.cell(given, second).unwrap();
            let mut category = [0.0; 4];
            let mut representative = [usize::MAX; 4];
            for report in 0..rows * columns {
                let mut unit = vec![0_u64; rows * columns];
                unit[report] = 1;
                let slot = cell
                    .collapse(&unit)
                    .unwrap()
                    .iter()
                    .position(|&c| c == 1)
                    .unwrap();
                representative[slot] = representative[slot].min(report);
                let (r1, r2) = (report / columns, report % columns);
                category[slot] += (0..rows * columns)
                    .map(|t| {
                        config.truth[t] * joint.probability((t / columns, t % columns), (r1, r2))
                    })
                    .sum::<f64>();
            }
            let share = config.truth[given * columns + second];
            targets.push(Target {
                label: format!("{}: cell ({given}, {second})", config.label),
                joint: joint.clone(),
                cell,
                given,
                second,
                share,
                conditional: (margin > 0.0).then(|| share / margin),
                category,
                representative,
            });
        }
    }
    targets
}

/// (cell Chernoff, cell anytime, conditional Chernoff, conditional anytime) covered, and
/// whether each conditional interval was undefined.
fn evaluate(target: &Target, collapsed: [u64; 4]) -> ([bool; 4], [bool; 2]) {
    let mut table = vec![0_u64; target.joint.table_len()];
    for (slot, &count) in collapsed.iter().enumerate() {
        table[target.representative[slot]] += count;
    }
    let estimator = target.cell.estimator();
    let chernoff = estimator
        .chernoff_interval(&collapsed, confidence())
        .unwrap()
        .unwrap();
    let anytime = estimator
        .anytime_interval(&collapsed, confidence(), PLANNED_RESPONDENTS)
        .unwrap()
        .unwrap();
    let mut covered = [
        chernoff.contains(target.share),
        anytime.contains(target.share),
        true,
        true,
    ];
    let mut undefined = [false; 2];
    if let Some(truth) = target.conditional {
        let conditional = target
            .joint
            .conditional(target.given, target.second)
            .unwrap();
        let summary = conditional
            .summarize(&table, confidence(), PLANNED_RESPONDENTS)
            .unwrap()
            .unwrap();
        for (k, bounds) in [summary.chernoff, summary.anytime].into_iter().enumerate() {
            match bounds {
                Some(bounds) => covered[2 + k] = bounds.contains(truth),
                None => undefined[k] = true,
            }
        }
    }
    (covered, undefined)
}

/// Exact coverage over every composition of n into the four collapsed counts.
fn exact_coverage(target: &Target, n: u64) -> ([f64; 4], [f64; 2], f64) {
    let ln_factorial: Vec<f64> = (0..=n)
        .scan(0.0, |sum, k| {
            if k > 0 {
                *sum += (k as f64).ln();
            }
            Some(*sum)
        })
        .collect();
    let ln_rate = target.category.map(f64::ln);
    let (mut covered, mut undefined, mut skipped) = ([0.0; 4], [0.0; 2], 0.0);
    for a in 0..=n {
        for b in 0..=n - a {
            for c in 0..=n - a - b {
                let d = n - a - b - c;
                let counts = [a, b, c, d];
                let mut ln_mass = ln_factorial[n as usize];
                for (slot, &count) in counts.iter().enumerate() {
                    ln_mass -= ln_factorial[count as usize];
                    if count > 0 {
                        ln_mass += count as f64 * ln_rate[slot];
                    }
                }
                let mass = ln_mass.exp();
                if mass < SKIPPED {
                    skipped += mass;
                    continue;
                }
                let (hits, empty) = evaluate(target, counts);
                for k in 0..4 {
                    if hits[k] {
                        covered[k] += mass;
                    }
                }
                for k in 0..2 {
                    if empty[k] {
                        undefined[k] += mass;
                    }
                }
            }
        }
    }
    (covered, undefined, skipped)
}

const KINDS: [&str; 4] = [
    "cell Chernoff",
    "cell anytime",
    "conditional Chernoff",
    "conditional anytime",
];

#[test]
fn joint_cells_and_conditional_proportions_cover_at_n_10_and_100_exactly() {
    let targets: Vec<Target> = configs().iter().flat_map(targets).collect();
    let mut jobs = Vec::new();
    for index in 0..targets.len() {
        for n in [10_u64, 100] {
            jobs.push((index, n));
        }
    }
    let results = in_parallel(&jobs, |&(index, n)| exact_coverage(&targets[index], n));
    let mut minimum = [[1.0_f64; 4]; 2];
    let mut undefined_most = [[0.0_f64; 2]; 2];
    let mut failures = Vec::new();
    for (&(index, n), (covered, undefined, skipped)) in jobs.iter().zip(&results) {
        let size = usize::from(n == 100);
        assert!(
            *skipped < 2e-20,
            "{}: skipped {skipped}",
            targets[index].label
        );
        for k in 0..4 {
            minimum[size][k] = minimum[size][k].min(covered[k]);
            if covered[k] < CONFIDENCE - 1e-9 {
                failures.push(format!(
                    "{}, N = {n}: {} covers {}",
                    targets[index].label, KINDS[k], covered[k]
                ));
            }
        }
        for k in 0..2 {
            undefined_most[size][k] = undefined_most[size][k].max(undefined[k]);
        }
    }
    for (size, n) in [10, 100].iter().enumerate() {
        eprintln!(
            "joint ({} cells), N = {n}: minimum coverage {}",
            targets.len(),
            KINDS
                .iter()
                .zip(minimum[size])
                .map(|(kind, m)| format!("{kind} {m:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    eprintln!(
        "conditional intervals undefined (the denominator's lower bound ≤ 0): at most {:.4} \
         (Chernoff) and {:.4} (anytime) of the time at N = 10, {:.4} and {:.4} at N = 100",
        undefined_most[0][0], undefined_most[0][1], undefined_most[1][0], undefined_most[1][1]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn joint_cells_and_conditional_proportions_cover_at_n_10000_in_simulation() {
    const SURVEYS: u32 = 8_000;
    const RESPONDENTS: u64 = 10_000;
    let configs: Vec<Config> = configs()
        .into_iter()
        .filter(|c| {
            (c.label.contains("correlated") && c.label.starts_with("mirrored"))
                || c.label.contains("choice")
        })
        .collect();
    let results = in_parallel(&configs, |config| {
        let targets = targets(config);
        let joint = JointDesign::new(&config.first, &config.second);
        let (_, columns) = joint.shape();
        let mut rng = ChaCha20Rng::seed_from_u64(config.label.len() as u64 * 7919);
        let mut covered = vec![[0_u32; 4]; targets.len()];
        for _ in 0..SURVEYS {
            let mut table = vec![0_u64; joint.table_len()];
            for _ in 0..RESPONDENTS {
                let truth = draw_answer(&config.truth, &mut rng);
                let r1 = config.first.respond(truth / columns, &mut rng).unwrap();
                let r2 = config.second.respond(truth % columns, &mut rng).unwrap();
                table[r1 * columns + r2] += 1;
            }
            for (target, hits) in targets.iter().zip(covered.iter_mut()) {
                let (covers, _) = evaluate(target, target.cell.collapse(&table).unwrap());
                for k in 0..4 {
                    hits[k] += u32::from(covers[k]);
                }
            }
        }
        targets
            .iter()
            .zip(covered)
            .map(|(t, hits)| {
                (
                    t.label.clone(),
                    hits.map(|h| f64::from(h) / f64::from(SURVEYS)),
                )
            })
            .collect::<Vec<_>>()
    });
    let mut minimum = [1.0_f64; 4];
    let mut failures = Vec::new();
    for (label, coverage) in results.into_iter().flatten() {
        for k in 0..4 {
            minimum[k] = minimum[k].min(coverage[k]);
            let standard_error = (coverage[k] * (1.0 - coverage[k]) / f64::from(SURVEYS)).sqrt();
            if 4.0 * standard_error >= 0.005 || coverage[k] < CONFIDENCE - 4.0 * standard_error {
                failures.push(format!(
                    "{label}: {} covers {} (SE {standard_error})",
                    KINDS[k], coverage[k]
                ));
            }
        }
    }
    eprintln!(
        "joint, N = {RESPONDENTS} ({SURVEYS} simulated surveys per configuration): minimum \
         coverage {}",
        KINDS
            .iter()
            .zip(minimum)
            .map(|(kind, m)| format!("{kind} {m:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
