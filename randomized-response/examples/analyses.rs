//! The figures of the analyses (issue 18), printed: `cargo run --release -p
//! randomized-response --example analyses` (a second or two), or with `-- --sweep` for the
//! longer sweeps (a few minutes on two cores).
//!
//! 1. Widths of the three intervals and of the one-sided bounds at ε = 1, π = 0.3,
//!    N = 1 000 (the anytime interval tuned for 1 000), and the same across ε and π.
//! 2. The consistency e-value on the issue's survey (ε = 0.1, 503 yes of 2 000) and how
//!    many reports of a client that always sends "no" it takes to raise the flag.
//! 3. Tests at a fixed point: the anytime and exact p-values of H0: π = π0.
//! 4. `--sweep`: honest k-ary streams checked after every report to 10 000, 20 000 per
//!    cell, for the false-flag rate of the consistency test; and the rejection rate of a
//!    researcher who stops as soon as the anytime p-value of a group difference is below
//!    0.05, 20 000 interleaved streams.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{
    Bound, Confidence, Design, Group, PerRecordEstimator, PrivacyLevel, Side, CONSISTENCY_ALPHA,
};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn yes_share(epsilon: f64) -> (Design, PerRecordEstimator) {
    let design = Design::mirrored(level(epsilon));
    let estimator = design.option_estimator(Design::YES).unwrap();
    (design, estimator)
}

/// The counts of N reports at the expected rate of share π (rounded).
fn expected_counts(design: &Design, share: f64, n: u64) -> [u64; 2] {
    let rate = (1.0 - share) * design.probability(Design::NO, Design::YES)
        + share * design.probability(Design::YES, Design::YES);
    let yes = (rate * n as f64).round() as u64;
    [n - yes, yes]
}

fn widths() {
    let confidence = Confidence::new(0.95).unwrap();
    let (design, estimator) = yes_share(1.0);
    let counts = expected_counts(&design, 0.3, 1_000);
    let summary = estimator
        .summarize(&counts, confidence, 1_000)
        .unwrap()
        .unwrap();
    let exact = summary.exact.unwrap();
    let chernoff = summary.chernoff;
    let anytime = summary.anytime;
    println!(
        "1. ε = 1, π = 0.3, N = 1 000 ({} reported yes), 95 %:",
        counts[1]
    );
    println!("   interval   low      high     width    ÷ Chernoff");
    for (name, bounds) in [
        ("exact", exact),
        ("Chernoff", chernoff),
        ("anytime", anytime),
    ] {
        let width = bounds.high().unwrap() - bounds.low().unwrap();
        println!(
            "   {name:<9}  {:.4}   {:.4}   {width:.4}   {:.3}",
            bounds.low().unwrap(),
            bounds.high().unwrap(),
            width / (chernoff.high().unwrap() - chernoff.low().unwrap())
        );
    }
    let estimate = summary.estimate;
    for side in [Side::Upper, Side::Lower] {
        let bounds = estimator
            .one_sided(&counts, side, confidence, 1_000)
            .unwrap()
            .unwrap();
        println!(
            "   one-sided {side:?} bound (estimate {estimate:.4}): exact {:.4}, Chernoff {:.4}, \
             anytime {:.4}",
            bounds.exact.and_then(Bound::value).unwrap(),
            bounds.chernoff.value().unwrap(),
            bounds.anytime.value().unwrap()
        );
    }
    println!("   Widths (exact / Chernoff / anytime) across ε and π at N = 1 000:");
    for epsilon in [0.5, 1.0, 3.0_f64.ln(), 2.0, 5.0] {
        let (design, estimator) = yes_share(epsilon);
        let row: Vec<String> = [0.05, 0.3, 0.5]
            .iter()
            .map(|&share| {
                let counts = expected_counts(&design, share, 1_000);
                let s = estimator
                    .summarize(&counts, confidence, 1_000)
                    .unwrap()
                    .unwrap();
                let width = |b: randomized_response::Bounds| 2.0 * b.half_width();
                format!(
                    "π = {share}: {:.3} / {:.3} / {:.3}",
                    width(s.exact.unwrap()),
                    width(s.chernoff),
                    width(s.anytime)
                )
            })
            .collect();
        println!("   ε = {epsilon:.3}: {}", row.join("; "));
    }
}

fn consistency() {
    let design = Design::mirrored(level(0.1));
    let issue = design.consistency(&[1497, 503]).unwrap();
    println!(
        "2. ε = 0.1, 503 yes of 2 000: ln E = {:.1} (E = {:.2e}), anytime p = {:.2e}, flagged at \
         E ≥ {}: {}",
        issue.ln_e_value(),
        issue.e_value(),
        issue.p_value(),
        1.0 / CONSISTENCY_ALPHA,
        issue.flagged()
    );
    for epsilon in [0.1, 0.5, 1.0, 2.0, 5.0] {
        let design = Design::mirrored(level(epsilon));
        let first = (1..100_000_u64)
            .find(|&n| design.consistency(&[n, 0]).unwrap().flagged())
            .unwrap();
        println!(
            "   ε = {epsilon}: a client that always sends \"no\" is flagged after {first} reports"
        );
    }
}

fn tests() {
    let confidence = Confidence::new(0.95).unwrap();
    let (design, estimator) = yes_share(1.0);
    let counts = expected_counts(&design, 0.3, 1_000);
    println!("3. ε = 1, {} yes of 1 000 (π̂ ≈ 0.3):", counts[1]);
    for null in [0.2, 0.25, 0.3, 0.4] {
        let anytime = estimator
            .anytime_p_value(&counts, null, confidence, 1_000)
            .unwrap()
            .unwrap();
        let exact = estimator.exact_p_value(&counts, null).unwrap().unwrap();
        println!("   H0: π = {null}: anytime p = {anytime:.4}, exact p = {exact:.4}");
    }
}

fn k_ary_false_flags() {
    const STREAMS: u32 = 20_000;
    println!("4a. k-ary consistency, {STREAMS} honest streams of 10 000 per cell, checked after every report:");
    for (options, epsilon) in [(3_usize, 0.5), (5, 2.0)] {
        let design = Design::k_ary(options, level(epsilon)).unwrap();
        let mut limits = Vec::new();
        let mut limit: i64 = -1;
        for n in 1..=10_000_u64 {
            let reaches = |count: u64| {
                let mut counts = vec![0; options];
                counts[0] = count;
                counts[1] = n - count;
                design.report_ln_e_value(&counts, 0).unwrap() >= (1.0 / CONSISTENCY_ALPHA).ln()
            };
            while limit < n as i64 && reaches((limit + 1) as u64) {
                limit += 1;
            }
            limits.push(limit);
        }
        let mut rng = ChaCha20Rng::seed_from_u64(options as u64);
        let mut flagged = 0;
        for _ in 0..STREAMS {
            let mut counts = vec![0_u64; options];
            for &limit in &limits {
                // Everyone's truth is option 0: the other reports sit at their lowest rate.
                counts[design.respond(0, &mut rng).unwrap()] += 1;
                if counts.iter().any(|&c| c as i64 <= limit)
                    && design.consistency(&counts).unwrap().flagged()
                {
                    flagged += 1;
                    break;
                }
            }
        }
        println!(
            "    k = {options}, ε = {epsilon}, all option 0: flagged in {flagged} of {STREAMS} ({:.5})",
            f64::from(flagged) / f64::from(STREAMS)
        );
    }
}

fn difference_stopping() {
    const STREAMS: u32 = 20_000;
    let confidence = Confidence::new(0.95).unwrap();
    let (_, estimator) = yes_share(1.0);
    let mut rng = ChaCha20Rng::seed_from_u64(18);
    let design = Design::mirrored(level(1.0));
    let mut rejected = 0;
    for _ in 0..STREAMS {
        let (mut a, mut b) = ([0_u64; 2], [0_u64; 2]);
        for step in 0..10_000 {
            let truth = usize::from(rng.next_u64() < u64::MAX / 2);
            let report = design.respond(truth, &mut rng).unwrap();
            if rng.next_u64() < u64::MAX / 10 * 3 {
                a[report] += 1;
            } else {
                b[report] += 1;
            }
            // Every 10th report, to keep the sweep within minutes.
            if step % 10 != 9 || a[0] + a[1] == 0 || b[0] + b[1] == 0 {
                continue;
            }
            let p = estimator
                .difference_anytime_p_value(
                    Group {
                        counts: &a,
                        planned_respondents: 3_000,
                    },
                    Group {
                        counts: &b,
                        planned_respondents: 7_000,
                    },
                    confidence,
                )
                .unwrap()
                .unwrap();
            if p < 0.05 {
                rejected += 1;
                break;
            }
        }
    }
    println!(
        "4b. group difference, θ_a = θ_b = 0.5, ε = 1, 30 % in group a: stopping at the first \
         anytime p < 0.05 (looking every 10 reports to 10 000) rejects in {rejected} of {STREAMS}"
    );
}

fn main() {
    widths();
    consistency();
    tests();
    if std::env::args().any(|a| a == "--sweep") {
        k_ary_false_flags();
        difference_stopping();
    }
}
