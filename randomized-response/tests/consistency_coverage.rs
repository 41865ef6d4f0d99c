//! The consistency e-value on honest reports, checked after every report up to 10 000: the
//! flag (E ≥ 1 000) is raised with probability at most 0.001, also at the boundary truths
//! (π = 0 and 1, where the reports sit at the design's extreme rates), and E ≥ 20 with
//! probability at most 0.05.
//!
//! For two-report designs (yes/no, a number's ends) E depends on one count, and the chance
//! of ever being flagged is computed exactly by a killed walk (tests/common; entries below
//! 1e-30 dropped and counted as flags). For k-ary designs the state is k counts, and streams
//! are simulated through the sampler, 2 000 per cell (α + 4 SE allowed, 4 SE < 0.005).

mod common;

use common::{draw_answer, first_false, first_false_by_bisection, in_parallel, Law};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use randomized_response::{Design, NumberDesign, PrivacyLevel, CONSISTENCY_ALPHA};

const STREAM_LENGTH: u64 = 10_000;

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

/// The positions `[first, past)` from two predicates true on a prefix, searched from the
/// band at n − 1.
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

/// A two-report design's consistency cell: the walk counts report 1 (yes, the upper end).
struct ConsistencyCell {
    label: String,
    design: Design,
    rate: f64,
}

fn consistency_cells() -> Vec<ConsistencyCell> {
    let mut designs: Vec<(String, Design)> = [0.1, 1.0, 5.0]
        .iter()
        .map(|&e| (format!("mirrored ε = {e}"), Design::mirrored(level(e))))
        .collect();
    designs.push((
        "forced response 0.67/0.165/0.165".into(),
        Design::forced_response(0.67, 0.165, 0.165).unwrap(),
    ));
    designs.push((
        "unrelated question 0.7/0.5".into(),
        Design::unrelated_question(0.7, 0.5).unwrap(),
    ));
    let number = NumberDesign::new(0.0, 30.0, level(2.0)).unwrap();
    designs.push(("number ends, ε = 2".into(), number.ends().clone()));
    let mut cells = Vec::new();
    for (name, design) in designs {
        for share in [0.0, 0.5, 1.0] {
            let rate = (1.0 - share) * design.probability(Design::NO, Design::YES)
                + share * design.probability(Design::YES, Design::YES);
            cells.push(ConsistencyCell {
                label: format!("{name}, π = {share}"),
                design: design.clone(),
                rate,
            });
        }
    }
    cells
}

/// For each α: the probability that the flag `E ≥ 1/α` is ever raised in 10 000 reports.
///
/// At each n, E is log-convex in the count y of report 1 (a mixture of exponentials in y for
/// each report), so the unflagged counts are one range around E's minimizer, found by
/// walking from the previous minimizer; the flagged counts are killed.
fn false_flag_rates(cell: &ConsistencyCell, alphas: &[f64]) -> (Vec<f64>, f64) {
    let steps = [1.0 - cell.rate, cell.rate];
    let ln_e = |n: u64, y: u64| cell.design.consistency(&[n - y, y]).unwrap().ln_e_value();
    let mut killed: Vec<Law> = alphas.iter().map(|_| Law::at_zero()).collect();
    let mut hints: Vec<Option<(u64, u64)>> = vec![None; alphas.len()];
    let mut minimizer = 0_u64;
    let mut dropped = 0.0;
    for n in 1..=STREAM_LENGTH {
        minimizer = minimizer.min(n);
        while minimizer < n && ln_e(n, minimizer + 1) < ln_e(n, minimizer) {
            minimizer += 1;
        }
        while minimizer > 0 && ln_e(n, minimizer - 1) < ln_e(n, minimizer) {
            minimizer -= 1;
        }
        for (j, &alpha) in alphas.iter().enumerate() {
            let threshold = (1.0 / alpha).ln();
            let flagged = |y: u64| ln_e(n, y) >= threshold;
            let covering = band(
                n,
                hints[j],
                |y| y < minimizer && flagged(y),
                |y| !(y > minimizer && flagged(y)),
            );
            hints[j] = Some(covering);
            killed[j].step(&steps);
            dropped += killed[j].trim();
            killed[j].keep_only(covering);
        }
    }
    let rates = killed
        .iter()
        .map(|law| 1.0 - law.values.iter().sum::<f64>())
        .collect();
    (rates, dropped)
}

#[test]
fn honest_yes_no_and_number_reports_are_flagged_at_most_at_the_nominal_rate() {
    let cells = consistency_cells();
    let alphas = [CONSISTENCY_ALPHA, 0.05];
    let results = in_parallel(&cells, |cell| false_flag_rates(cell, &alphas));
    let mut worst = [0.0_f64; 2];
    for (cell, (rates, dropped)) in cells.iter().zip(&results) {
        assert!(*dropped <= 1e-20, "{}: dropped {dropped}", cell.label);
        for (j, &alpha) in alphas.iter().enumerate() {
            worst[j] = worst[j].max(rates[j]);
            assert!(
                rates[j] <= alpha + 1e-9,
                "{}: E ≥ 1/{alpha} in {} of honest streams",
                cell.label,
                rates[j]
            );
        }
    }
    eprintln!(
        "consistency, yes/no and number ({} cells, π = 0, 0.5, 1), checked after every report \
         to {STREAM_LENGTH}: largest false-flag probability {:.2e} (E ≥ 1 000, α = 0.001), \
         {:.4} (E ≥ 20, α = 0.05)",
        cells.len(),
        worst[0],
        worst[1]
    );
}

#[test]
fn honest_k_ary_reports_are_flagged_at_most_at_the_nominal_rate() {
    // The state is k counts, so streams are simulated through the sampler: 2 000 streams of
    // 10 000 reports per cell, the flag checked after every report. A flag needs some E_r
    // ≥ 1/α (E is their mean), and E_r falls as n_r grows, so E is evaluated only when some
    // count is at or below the largest count whose E_r reaches 1/α.
    const STREAMS: u32 = 2_000;
    let alpha = CONSISTENCY_ALPHA;
    let mut cells = Vec::new();
    for options in [3_usize, 5] {
        for epsilon in [0.5, 2.0] {
            let mut corner = vec![0.0; options];
            corner[0] = 1.0;
            cells.push((options, epsilon, "all option 0", corner));
            cells.push((
                options,
                epsilon,
                "uniform",
                vec![1.0 / options as f64; options],
            ));
        }
    }
    let results = in_parallel(&cells, |(options, epsilon, _, distribution)| {
        let design = Design::k_ary(*options, level(*epsilon)).unwrap();
        // The largest count of one report whose E_r alone reaches 1/α, at each n (the same
        // for every report of a k-ary design).
        let threshold = (1.0 / alpha).ln();
        let mut limits = Vec::with_capacity(STREAM_LENGTH as usize);
        let mut limit: i64 = -1;
        for n in 1..=STREAM_LENGTH {
            let reaches = |count: u64| {
                let mut counts = vec![0_u64; *options];
                counts[0] = count;
                counts[1] = n - count;
                design.report_ln_e_value(&counts, 0).unwrap() >= threshold
            };
            while limit < n as i64 && reaches((limit + 1) as u64) {
                limit += 1;
            }
            limits.push(limit);
        }
        let mut rng = ChaCha20Rng::seed_from_u64((*options as u64) << 8 | epsilon.to_bits() >> 52);
        let mut flagged = 0_u32;
        for _ in 0..STREAMS {
            let mut counts = vec![0_u64; *options];
            for &limit in &limits {
                let truth = draw_answer(distribution, &mut rng);
                counts[design.respond(truth, &mut rng).unwrap()] += 1;
                if counts.iter().any(|&c| c as i64 <= limit)
                    && design.consistency(&counts).unwrap().flagged()
                {
                    flagged += 1;
                    break;
                }
            }
        }
        f64::from(flagged) / f64::from(STREAMS)
    });
    let standard_error = (alpha * (1.0 - alpha) / f64::from(STREAMS)).sqrt();
    assert!(4.0 * standard_error < 0.005);
    let worst = results.iter().copied().fold(0.0, f64::max);
    for ((options, epsilon, name, _), rate) in cells.iter().zip(&results) {
        assert!(
            *rate <= alpha + 4.0 * standard_error,
            "k = {options}, ε = {epsilon}, {name}: flagged {rate}"
        );
    }
    eprintln!(
        "consistency, k-ary ({} cells × {STREAMS} streams of {STREAM_LENGTH}): largest \
         false-flag rate {worst:.4} (allowed α + 4 SE = {:.4})",
        cells.len(),
        alpha + 4.0 * standard_error
    );
}
