//! Designs as matrices: exact values at the extremes, validation messages, the realized ε
//! against the promised ε on sweeps of every design's parameters, the estimators against
//! matrix inversion and the published formulas (R `rr`, GRR), posteriors.

use rand_core::RngCore;
use randomized_response::{
    anytime_interval, chernoff_interval, exact_interval, posterior_after_no, posterior_after_yes,
    respond, respondents_needed, Confidence, Design, DesignError, DesignKind, MechanismError,
    NumberDesign, PrivacyLevel, Tally,
};

const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
/// The largest distance between a realized and a requested probability.
const ROUNDING: f64 = 5.7e-14;

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence() -> Confidence {
    Confidence::new(0.95).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

/// The cell the constructors compute for a requested off-diagonal probability.
fn rounded_up(probability: f64) -> u64 {
    let above = (probability * TWO_POW_64) as u64 + 1;
    above + above.div_ceil(1 << 45)
}

/// A generator that hands out one fixed value and counts the draws.
struct Fixed {
    value: u64,
    draws: usize,
}

impl RngCore for Fixed {
    fn next_u32(&mut self) -> u32 {
        unreachable!("designs draw 64 bits")
    }
    fn next_u64(&mut self) -> u64 {
        self.draws += 1;
        self.value
    }
    fn fill_bytes(&mut self, _: &mut [u8]) {
        unreachable!("designs draw 64 bits")
    }
}

fn fixed(value: u64) -> Fixed {
    Fixed { value, draws: 0 }
}

fn all_designs() -> Vec<Design> {
    let mut designs = vec![
        Design::mirrored(PrivacyLevel::warner()),
        Design::mirrored(level(0.01)),
        Design::mirrored(level(20.0)),
        Design::forced_response(0.67, 0.165, 0.165).unwrap(),
        Design::forced_response(0.8, 0.15, 0.05).unwrap(),
        Design::unrelated_question(0.7, 0.5).unwrap(),
        Design::unrelated_question(0.5, 0.2).unwrap(),
    ];
    for (options, epsilon) in [
        (2, 1.0),
        (3, 0.01),
        (5, 1.5),
        (7, 20.0),
        (20, 2.0),
        (20, 0.01),
    ] {
        designs.push(Design::k_ary(options, level(epsilon)).unwrap());
    }
    designs
}

#[test]
fn the_mirrored_design_is_todays_mechanism_draw_for_draw() {
    for epsilon in [0.01, 0.1, 0.5, 1.0, 1.098_612_288_668_109_8, 2.0, 5.0, 20.0] {
        let level = level(epsilon);
        let design = Design::mirrored(level);
        let threshold = level.threshold();
        for truth in [Design::NO, Design::YES] {
            assert_eq!(design.thresholds(truth).unwrap(), &[threshold]);
            assert_eq!(design.cell(truth, truth), threshold);
            assert_eq!(design.cell(truth, 1 - truth), threshold.wrapping_neg());
        }
        let draws = [
            0,
            threshold - 1,
            threshold,
            threshold + 1,
            u64::MAX,
            1 << 63,
        ];
        for draw in draws {
            for truth in [false, true] {
                let today = respond(truth, level, &mut fixed(draw));
                let report = design.report_for_draw(usize::from(truth), draw).unwrap();
                assert_eq!(report == Design::YES, today, "ε = {epsilon}, u = {draw}");
            }
        }
        // Two options of k-ary randomized response are the same matrix.
        let two = Design::k_ary(2, level).unwrap();
        assert_eq!(two.thresholds(0).unwrap(), design.thresholds(0).unwrap());
        assert_eq!(two.thresholds(1).unwrap(), design.thresholds(1).unwrap());
        // The realized ε is today's, rounded up by a few ulps, and never above ε.
        assert!(design.realized_epsilon() >= level.realized_epsilon());
        assert!(design.realized_epsilon() - level.realized_epsilon() < 1e-14);
        assert!(design.realized_epsilon() <= epsilon);
        assert_eq!(design.epsilon(), epsilon);
        assert!(close(
            design.truth_probability(),
            level.truth_probability(),
            0.0
        ));
    }
}

#[test]
fn forced_response_has_the_matrix_of_its_definition_with_exact_cells() {
    // p = 1/2, p1 = p0 = 1/4: P = [[3/4, 1/4], [1/4, 3/4]] (rows No, Yes), ε = ln 3.
    let design = Design::forced_response(0.5, 0.25, 0.25).unwrap();
    let off = (1_u64 << 62) + 1 + (1 << 17) + 1;
    assert_eq!(design.cell(Design::NO, Design::YES), off);
    assert_eq!(design.cell(Design::YES, Design::NO), off);
    assert_eq!(
        design.thresholds(Design::NO).unwrap(),
        &[off.wrapping_neg()]
    );
    assert_eq!(
        design.thresholds(Design::YES).unwrap(),
        &[off.wrapping_neg()]
    );
    assert!(close(design.epsilon(), 3.0_f64.ln(), 1e-15));
    assert!(design.realized_epsilon() < design.epsilon());
    assert!(design.epsilon() - design.realized_epsilon() < 1e-12);

    // The 0.67 / 0.165 / 0.165: truth probability 0.835, not 0.67.
    let design = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    assert!(close(design.truth_probability(), 0.835, 1e-15));
    let expected = [[0.67 + 0.165, 0.165], [0.165, 0.67 + 0.165]];
    for (truth, row) in expected.iter().enumerate() {
        for (report, &probability) in row.iter().enumerate() {
            assert!(close(
                design.requested_probability(truth, report),
                probability,
                1e-15
            ));
            assert!(close(
                design.probability(truth, report),
                probability,
                ROUNDING
            ));
        }
    }
    assert_eq!(design.cell(Design::NO, Design::YES), rounded_up(0.165));
    assert!(close(design.epsilon(), (0.835_f64 / 0.165).ln(), 1e-14));

    // Asymmetric: P[yes][yes] = p + p1, P[yes][no] = p0, P[no][yes] = p1, P[no][no] = p + p0.
    let design = Design::forced_response(0.7, 0.2, 0.1).unwrap();
    assert!(close(
        design.probability(Design::YES, Design::YES),
        0.9,
        ROUNDING
    ));
    assert!(close(
        design.probability(Design::YES, Design::NO),
        0.1,
        ROUNDING
    ));
    assert!(close(
        design.probability(Design::NO, Design::YES),
        0.2,
        ROUNDING
    ));
    assert!(close(
        design.probability(Design::NO, Design::NO),
        0.8,
        ROUNDING
    ));
    // ε = max(ln(0.9/0.2), ln(0.8/0.1)) = ln 8.
    assert!(close(design.epsilon(), 8.0_f64.ln(), 1e-14));
    assert_eq!(
        design.kind(),
        DesignKind::ForcedResponse {
            answer_truthfully: 0.7,
            forced_yes: 0.2,
            forced_no: 0.1
        }
    );
}

#[test]
fn the_unrelated_question_has_the_matrix_of_its_definition() {
    // p = 1/2, q = 1/2: P[yes][yes] = 3/4, P[no][yes] = 1/4, as Warner's coin.
    let design = Design::unrelated_question(0.5, 0.5).unwrap();
    let off = (1_u64 << 62) + 1 + (1 << 17) + 1;
    assert_eq!(design.cell(Design::NO, Design::YES), off);
    assert_eq!(design.cell(Design::YES, Design::NO), off);
    assert!(close(design.epsilon(), 3.0_f64.ln(), 1e-15));

    let (p, q) = (0.7, 0.3);
    let design = Design::unrelated_question(p, q).unwrap();
    let expected = [
        [p + (1.0 - p) * (1.0 - q), (1.0 - p) * q],
        [(1.0 - p) * (1.0 - q), p + (1.0 - p) * q],
    ];
    for (truth, row) in expected.iter().enumerate() {
        for (report, &probability) in row.iter().enumerate() {
            assert!(close(
                design.probability(truth, report),
                probability,
                ROUNDING
            ));
        }
    }
    let epsilon = f64::max(
        (expected[1][1] / expected[0][1]).ln(),
        (expected[0][0] / expected[1][0]).ln(),
    );
    assert!(close(design.epsilon(), epsilon, 1e-14));
    assert!(close(design.truth_probability(), expected[0][0], 1e-15));
}

#[test]
fn k_ary_randomized_response_has_exact_cells_at_ln_2_and_both_ends_of_epsilon() {
    // k = 3, ε = ln 2: q = 1/(2 + 2) = 1/4 and p = 1/2, up to the rounding of ln 2 and exp.
    let design = Design::k_ary(3, level(2.0_f64.ln())).unwrap();
    let off = rounded_up(1.0 / (2.0_f64.ln().exp() + 2.0));
    assert!(off.abs_diff((1 << 62) + 2 + (1 << 17)) <= 1 << 12, "{off}");
    let truth = 0_u64.wrapping_sub(2 * off);
    for answer in 0..3 {
        assert_eq!(design.thresholds(answer).unwrap(), &[truth, truth + off]);
        for report in 0..3 {
            let expected = if report == answer { truth } else { off };
            assert_eq!(design.cell(answer, report), expected);
        }
    }
    assert!(close(design.truth_probability(), 0.5, 1e-15));
    for (options, epsilon) in [(3, 0.01), (3, 20.0), (20, 0.01), (20, 20.0)] {
        let design = Design::k_ary(options, level(epsilon)).unwrap();
        let requested_other = 1.0 / (epsilon.exp() + (options - 1) as f64);
        let other = rounded_up(requested_other);
        for answer in 0..options {
            for report in 0..options {
                let cell = design.cell(answer, report);
                if report == answer {
                    assert_eq!(
                        u128::from(cell) + (options as u128 - 1) * u128::from(other),
                        1 << 64
                    );
                } else {
                    assert_eq!(cell, other);
                }
            }
        }
        assert!(design.realized_epsilon() <= epsilon);
        // Rounding toward privacy costs at most about 2^-45 of ε's odds plus the
        // resolution of a cell of 2^64 / (e^20 + k − 1) ≈ 3.8e10 at ε = 20.
        assert!(
            epsilon - design.realized_epsilon() < 1e-10,
            "{options}, {epsilon}"
        );
    }
}

#[test]
fn designs_at_the_ends_of_the_accepted_epsilon_range_are_accepted_and_beyond_refused() {
    // Forced response with p1 = p0 = s has ε = ln((1 − s)/s).
    let forced = |epsilon: f64| {
        let s = 1.0 / (1.0 + epsilon.exp());
        Design::forced_response(1.0 - 2.0 * s, s, s)
    };
    // Unrelated question with q = 1/2 has ε = ln((1 + p)/(1 − p)), so p = tanh(ε/2).
    let unrelated = |epsilon: f64| Design::unrelated_question((epsilon / 2.0).tanh(), 0.5);
    for (name, make) in [
        (
            "forced",
            &forced as &dyn Fn(f64) -> Result<Design, DesignError>,
        ),
        ("unrelated", &unrelated),
    ] {
        for epsilon in [0.010_001, 0.5, 19.999] {
            let design = make(epsilon).unwrap_or_else(|e| panic!("{name} at {epsilon}: {e}"));
            assert!(design.realized_epsilon() <= design.epsilon());
            assert!(
                close(design.epsilon(), epsilon, 1e-6),
                "{name}: {}",
                design.epsilon()
            );
        }
        for epsilon in [0.009_9, 20.01] {
            assert!(
                matches!(
                    make(epsilon),
                    Err(DesignError::DesignEpsilonOutOfRange { .. })
                ),
                "{name} at {epsilon}"
            );
        }
    }
    let message = forced(25.0).unwrap_err().to_string();
    assert!(
        message.starts_with("these parameters give epsilon = "),
        "{message}"
    );
    assert!(message.contains("between 0.01 and 20"), "{message}");
}

#[test]
fn designs_with_a_zero_cell_are_refused_with_the_reason() {
    let refusal = Design::forced_response(0.8, 0.2, 0.0).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "a report of No would prove the true answer is No: with forced_no = 0 only a true No \
         is ever reported as No, so no epsilon bounds what a report reveals"
    );
    let refusal = Design::forced_response(0.8, 0.0, 0.2).unwrap_err();
    assert!(refusal
        .to_string()
        .starts_with("a report of Yes would prove the true answer is Yes"));
    assert_eq!(
        Design::forced_response(1.0, 0.0, 0.0),
        Err(DesignError::NoRandomization)
    );
    assert_eq!(
        Design::forced_response(0.0, 0.5, 0.5),
        Err(DesignError::ReportsIgnoreTruth)
    );
    let refusal = Design::unrelated_question(0.7, 0.0).unwrap_err();
    assert!(refusal
        .to_string()
        .starts_with("a report of Yes would prove the true answer is Yes: with innocuous_yes = 0"));
    let refusal = Design::unrelated_question(0.7, 1.0).unwrap_err();
    assert!(refusal
        .to_string()
        .starts_with("a report of No would prove the true answer is No: with innocuous_yes = 1"));
    assert_eq!(
        Design::unrelated_question(1.0, 0.5),
        Err(DesignError::NoRandomization)
    );
    assert!(DesignError::NoRandomization
        .to_string()
        .contains("every report would prove the true answer"));
    assert_eq!(
        Design::unrelated_question(0.0, 0.5),
        Err(DesignError::ReportsIgnoreTruth)
    );
}

#[test]
fn malformed_parameters_are_refused_with_clear_messages() {
    assert_eq!(
        Design::forced_response(0.5, 0.25, 0.125)
            .unwrap_err()
            .to_string(),
        "answer_truthfully, forced_yes and forced_no must add up to 1 (to 10 decimal places, \
         as R's rr requires), but they add up to 0.875"
    );
    // Decimal inputs that add up to 1 only up to rounding are accepted.
    assert!(Design::forced_response(0.7, 0.2, 0.1).is_ok());
    assert!(Design::forced_response(0.67, 0.165, 0.165).is_ok());
    for bad in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
        assert!(matches!(
            Design::forced_response(bad, 0.5, 0.5),
            Err(DesignError::NotAProbability {
                parameter: "answer_truthfully",
                ..
            })
        ));
        assert!(matches!(
            Design::unrelated_question(0.5, bad),
            Err(DesignError::NotAProbability {
                parameter: "innocuous_yes",
                ..
            })
        ));
    }
    assert_eq!(
        Design::unrelated_question(1.2, 0.5)
            .unwrap_err()
            .to_string(),
        "answer_truthfully must be a probability between 0 and 1, got 1.2"
    );
    for options in [0, 1, 21, 100] {
        assert_eq!(
            Design::k_ary(options, level(1.0)),
            Err(DesignError::OptionCount { options })
        );
    }
    assert_eq!(
        Design::k_ary(1, level(1.0)).unwrap_err().to_string(),
        "a choice or ordinal question needs between 2 and 20 options, got 1"
    );
    assert_eq!(
        DesignError::from(PrivacyLevel::new(25.0).unwrap_err()).to_string(),
        "epsilon must be between 0.01 and 20, got 25"
    );
    for (min, max) in [
        (1.0, 1.0),
        (2.0, 1.0),
        (f64::NAN, 1.0),
        (0.0, f64::INFINITY),
    ] {
        assert!(matches!(
            NumberDesign::new(min, max, level(1.0)),
            Err(DesignError::NumberBounds { .. })
        ));
    }
    assert!(matches!(
        NumberDesign::new(-f64::MAX, f64::MAX, level(1.0)),
        Err(DesignError::NumberBounds { .. })
    ));
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    assert_eq!(
        number.respond(31.0, &mut fixed(0)).unwrap_err().to_string(),
        "the answer must be a number between 0 and 30, got 31"
    );
    let design = Design::k_ary(4, level(1.0)).unwrap();
    assert_eq!(
        design.respond(4, &mut fixed(0)).unwrap_err().to_string(),
        "the true answer must be one of the 4 answers 0 to 3, got 4"
    );
}

#[test]
fn invalid_answers_are_refused_before_any_draw() {
    let mut rng = fixed(0);
    let design = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    assert!(design.respond(2, &mut rng).is_err());
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    assert!(number.respond(f64::NAN, &mut rng).is_err());
    assert!(number.respond(-0.5, &mut rng).is_err());
    assert_eq!(rng.draws, 0);
    assert!(design.respond(1, &mut rng).is_ok());
    assert_eq!(rng.draws, Design::DRAWS);
    assert!(number.respond(30.0, &mut rng).is_ok());
    assert_eq!(rng.draws, Design::DRAWS + NumberDesign::DRAWS);
}

#[test]
fn a_draw_reports_the_first_report_whose_threshold_exceeds_it() {
    let design = Design::k_ary(5, level(1.5)).unwrap();
    for truth in 0..5 {
        let thresholds = design.thresholds(truth).unwrap().to_vec();
        assert_eq!(thresholds.len(), 4);
        assert_eq!(design.report_for_draw(truth, 0).unwrap(), truth);
        for (position, &threshold) in thresholds.iter().enumerate() {
            let below = design.report_for_draw(truth, threshold - 1).unwrap();
            let at = design.report_for_draw(truth, threshold).unwrap();
            assert_eq!(below, (truth + position) % 5);
            assert_eq!(at, (truth + position + 1) % 5);
        }
        assert_eq!(
            design.report_for_draw(truth, u64::MAX).unwrap(),
            (truth + 4) % 5
        );
        // The cells of a row add up to 2^64 exactly.
        let row: u128 = (0..5)
            .map(|report| u128::from(design.cell(truth, report)))
            .sum();
        assert_eq!(row, 1 << 64);
    }
}

/// The designs of a parameter sweep, or why each was refused.
type Sweep = dyn Iterator<Item = Result<Design, DesignError>>;

/// A grid on (0, 1) with its extremes: 1 % steps and values within 1e-8 of either end.
fn unit_grid(steps: u32) -> Vec<f64> {
    let mut grid: Vec<f64> = (1..steps)
        .map(|i| f64::from(i) / f64::from(steps))
        .collect();
    for extreme in [1e-8, 1e-6, 1e-4, 1e-3] {
        grid.push(extreme);
        grid.push(1.0 - extreme);
    }
    grid
}

/// Every design of a parameter sweep, or the reason it was refused.
fn forced_response_sweep() -> impl Iterator<Item = Result<Design, DesignError>> {
    unit_grid(100).into_iter().flat_map(|truthfully| {
        unit_grid(50).into_iter().map(move |share| {
            let yes = (1.0 - truthfully) * share;
            Design::forced_response(truthfully, yes, 1.0 - truthfully - yes)
        })
    })
}

fn unrelated_question_sweep() -> impl Iterator<Item = Result<Design, DesignError>> {
    unit_grid(200).into_iter().flat_map(|truthfully| {
        unit_grid(100)
            .into_iter()
            .map(move |innocuous| Design::unrelated_question(truthfully, innocuous))
    })
}

fn k_ary_sweep() -> impl Iterator<Item = Result<Design, DesignError>> {
    let (low, high) = (PrivacyLevel::MIN_EPSILON, PrivacyLevel::MAX_EPSILON);
    (2..=20).flat_map(move |options| {
        (0..=1000).map(move |step| {
            let epsilon = low * (high / low).powf(f64::from(step) / 1000.0);
            Design::k_ary(options, level(epsilon))
        })
    })
}

fn mirrored_sweep() -> impl Iterator<Item = Result<Design, DesignError>> {
    let (low, high) = (PrivacyLevel::MIN_EPSILON, PrivacyLevel::MAX_EPSILON);
    (0..=20_000).map(move |step| {
        let epsilon = low * (high / low).powf(f64::from(step) / 20_000.0);
        Ok(Design::mirrored(level(epsilon)))
    })
}

/// ln(max/min) of every column, as a reader would compute it from the integer cells.
fn plain_realized_epsilon(design: &Design) -> f64 {
    let k = design.answers();
    (0..k)
        .map(|report| {
            let column: Vec<u64> = (0..k).map(|truth| design.cell(truth, report)).collect();
            let max = *column.iter().max().unwrap() as f64;
            let min = *column.iter().min().unwrap() as f64;
            (max / min).ln()
        })
        .fold(0.0, f64::max)
}

#[test]
fn the_realized_epsilon_never_exceeds_the_promised_epsilon_on_every_sweep() {
    let sweeps: [(&str, Box<Sweep>); 4] = [
        ("mirrored", Box::new(mirrored_sweep())),
        ("forced response", Box::new(forced_response_sweep())),
        ("unrelated question", Box::new(unrelated_question_sweep())),
        ("k-ary", Box::new(k_ary_sweep())),
    ];
    for (name, sweep) in sweeps {
        let (mut accepted, mut refused, mut worst_cost) = (0, 0, 0.0_f64);
        for design in sweep {
            let design = match design {
                Ok(design) => design,
                Err(DesignError::DesignEpsilonOutOfRange { .. } | DesignError::BelowResolution) => {
                    refused += 1;
                    continue;
                }
                Err(other) => panic!("{name}: {other}"),
            };
            accepted += 1;
            let (promised, realized) = (design.epsilon(), design.realized_epsilon());
            assert!(
                realized <= promised,
                "{name} {:?}: realized {realized} > promised {promised}",
                design.kind()
            );
            assert!(plain_realized_epsilon(&design) <= realized);
            // Rounding toward privacy moves no probability by more than 2^-44.
            let k = design.answers();
            for truth in 0..k {
                for report in 0..k {
                    let requested = design.requested_probability(truth, report);
                    let difference = (design.probability(truth, report) - requested).abs();
                    assert!(difference <= ROUNDING, "{name} {:?}", design.kind());
                }
            }
            // And costs little ε: each of a column's two extreme cells moves by at most
            // 2^-44, so its log-ratio by at most 2 · 2^-44 / (the smallest probability).
            let smallest = (0..k)
                .flat_map(|t| (0..k).map(move |r| (t, r)))
                .map(|(t, r)| design.requested_probability(t, r))
                .fold(1.0, f64::min);
            let cost = promised - realized;
            assert!(
                cost <= 2.0 * ROUNDING / smallest + 1e-12,
                "{name} {:?}: ε {promised} realized {realized}",
                design.kind()
            );
            worst_cost = worst_cost.max(cost);
        }
        eprintln!(
            "{name}: {accepted} designs checked, {refused} refused; \
             largest ε − realized ε {worst_cost:.2e}"
        );
        assert!(accepted > 1_000, "{name}");
    }
}

/// P⁻¹ by Gauss–Jordan elimination with partial pivoting, from the realized probabilities.
fn inverse(design: &Design) -> Vec<Vec<f64>> {
    let k = design.answers();
    let mut left: Vec<Vec<f64>> = (0..k)
        .map(|t| (0..k).map(|r| design.probability(t, r)).collect())
        .collect();
    let mut right: Vec<Vec<f64>> = (0..k)
        .map(|t| (0..k).map(|r| f64::from(u8::from(t == r))).collect())
        .collect();
    for column in 0..k {
        let pivot = (column..k)
            .max_by(|&a, &b| left[a][column].abs().total_cmp(&left[b][column].abs()))
            .unwrap();
        left.swap(column, pivot);
        right.swap(column, pivot);
        let scale = left[column][column];
        for j in 0..k {
            left[column][j] /= scale;
            right[column][j] /= scale;
        }
        for row in 0..k {
            if row != column {
                let factor = left[row][column];
                for j in 0..k {
                    left[row][j] -= factor * left[column][j];
                    right[row][j] -= factor * right[column][j];
                }
            }
        }
    }
    right
}

#[test]
fn per_record_values_are_the_entries_of_the_inverse_matrix_and_unbiased() {
    for design in all_designs() {
        let k = design.answers();
        let inverse = inverse(&design);
        // A truth distribution with every answer present, unevenly.
        let weights: Vec<f64> = (0..k).map(|i| (i + 1) as f64).collect();
        let total: f64 = weights.iter().sum();
        let truth: Vec<f64> = weights.iter().map(|w| w / total).collect();
        let reported: Vec<f64> = (0..k)
            .map(|r| (0..k).map(|t| truth[t] * design.probability(t, r)).sum())
            .collect();
        for (option, &share) in truth.iter().enumerate() {
            let estimator = design.option_estimator(option).unwrap();
            assert!(estimator.is_two_valued());
            let mut expected = 0.0;
            for report in 0..k {
                let value = estimator.values()[report];
                let scale = inverse[report][option].abs().max(1.0);
                assert!(
                    close(value, inverse[report][option], 1e-9 * scale),
                    "{:?}: w_{option}({report}) = {value}, P⁻¹ gives {}",
                    design.kind(),
                    inverse[report][option]
                );
                expected += reported[report] * value;
            }
            let tolerance = 1e-12 * estimator.value_width();
            assert!(close(expected, share, tolerance), "{:?}", design.kind());
        }
        // The mean level: Σ i π_i.
        let mean: f64 = truth.iter().enumerate().map(|(i, p)| i as f64 * p).sum();
        let estimator = design.mean_level_estimator();
        let expected: f64 = (0..k).map(|r| reported[r] * estimator.values()[r]).sum();
        assert!(close(expected, mean, 1e-12 * estimator.value_width()));
        assert_eq!(estimator.is_two_valued(), k == 2);
        assert_eq!(estimator.target_range(), (0.0, (k - 1) as f64));
    }
}

#[test]
fn the_forced_response_and_unrelated_question_estimates_equal_rs_rr_estimator() {
    // R `rr` (Blair, Imai & Zhou 2015), `rrcd()`: P(report yes) = c·π + d with
    // forced-known c = p, d = p1; unrelated-known c = p, d = (1 − p)q; mirrored c = 2p − 1,
    // d = 1 − p. Without covariates the estimate is (ȳ − d)/c.
    let designs: Vec<(Design, f64, f64)> = vec![
        (
            Design::forced_response(0.67, 0.165, 0.165).unwrap(),
            0.67,
            0.165,
        ),
        (
            Design::forced_response(2.0 / 3.0, 1.0 / 6.0, 1.0 / 6.0).unwrap(),
            2.0 / 3.0,
            1.0 / 6.0,
        ),
        (Design::forced_response(0.8, 0.15, 0.05).unwrap(), 0.8, 0.15),
        (Design::forced_response(0.5, 0.1, 0.4).unwrap(), 0.5, 0.1),
        (
            Design::unrelated_question(0.7, 0.5).unwrap(),
            0.7,
            0.3 * 0.5,
        ),
        (
            Design::unrelated_question(2.0 / 3.0, 1.0 / 3.0).unwrap(),
            2.0 / 3.0,
            1.0 / 9.0,
        ),
        (
            Design::mirrored(level(1.0)),
            level(1.0).signal(),
            level(1.0).lie_probability(),
        ),
    ];
    for (design, c, d) in designs {
        let estimator = design.option_estimator(Design::YES).unwrap();
        for (n, yes) in [
            (1_u64, 0_u64),
            (1, 1),
            (10, 3),
            (1000, 400),
            (1000, 0),
            (123_457, 98_765),
        ] {
            let rr = (yes as f64 / n as f64 - d) / c;
            let ours = estimator.estimate(&[n - yes, yes]).unwrap().unwrap();
            assert!(
                close(ours, rr, 1e-12),
                "{:?} {n} {yes}: {ours} vs {rr}",
                design.kind()
            );
            // The share of "no" is its complement.
            let no = design.option_estimator(Design::NO).unwrap();
            let no = no.estimate(&[n - yes, yes]).unwrap().unwrap();
            assert!(close(no, 1.0 - ours, 1e-12));
        }
    }
}

#[test]
fn the_k_ary_estimate_equals_the_grr_estimator_of_pure_ldp_and_multi_freq_ldpy() {
    // π̂_i = (n_i/N − q)/(p − q), p = e^ε/(e^ε + k − 1), q = (1 − p)/(k − 1).
    use rand_core::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([5; 32]);
    for options in [2, 3, 5, 12, 20] {
        for epsilon in [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0] {
            let design = Design::k_ary(options, level(epsilon)).unwrap();
            let p = epsilon.exp() / (epsilon.exp() + (options - 1) as f64);
            let q = (1.0 - p) / (options - 1) as f64;
            // The sampler's own q and p − q, the latter from the integer cells.
            let realized_q = design.probability(0, 1);
            let realized_signal = (design.cell(0, 0) - design.cell(0, 1)) as f64 / TWO_POW_64;
            // Counts as a survey would see them (the expected reports of a random
            // distribution of true answers, rounded), and arbitrary counts.
            let n = 10 + rng.next_u64() % 1_000_000;
            let weights: Vec<f64> = (0..options).map(|_| rng.next_u32() as f64).collect();
            let total: f64 = weights.iter().sum();
            let survey: Vec<u64> = weights
                .iter()
                .map(|w| (n as f64 * (q + (p - q) * w / total)).round() as u64)
                .collect();
            let arbitrary: Vec<u64> = (0..options).map(|_| rng.next_u64() % 10_000).collect();
            for counts in [survey, arbitrary] {
                let n: u64 = counts.iter().sum();
                let estimate = design.estimate_distribution(&counts).unwrap().unwrap();
                assert!(close(estimate.as_slice().iter().sum::<f64>(), 1.0, 1e-9));
                for (option, &count) in counts.iter().enumerate() {
                    let rate = count as f64 / n as f64;
                    let ours = estimate.as_slice()[option];
                    let grr = (rate - realized_q) / realized_signal;
                    assert!(
                        close(ours, grr, 1e-12 * ours.abs().max(1.0)),
                        "k = {options}, ε = {epsilon}: {ours} vs {grr}"
                    );
                    // With the nominal p and q: q moves by at most 2^-44 and p − q by at most
                    // twice that, which the division by p − q magnifies at small ε.
                    let nominal = (rate - q) / (p - q);
                    let tolerance = 1e-12 + (1.0 + 2.0 * ours.abs()) * ROUNDING / (p - q);
                    assert!(
                        close(ours, nominal, tolerance),
                        "k = {options}, ε = {epsilon}: {ours} vs {nominal}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_mirrored_design_gives_todays_estimates_and_intervals() {
    for (epsilon, n, yes) in [
        (1.0, 1000, 400),
        (0.1, 50, 30),
        (5.0, 10, 0),
        (2.0, 10_000, 9_999),
    ] {
        let level = level(epsilon);
        let groups = [(level, Tally::new(n, yes).unwrap())];
        let counts = [n - yes, yes];
        let estimator = Design::mirrored(level)
            .option_estimator(Design::YES)
            .unwrap();
        let summary = estimator
            .summarize(&counts, confidence(), 1000)
            .unwrap()
            .unwrap();
        let today = [
            chernoff_interval(&groups, confidence()).unwrap(),
            exact_interval(&groups, confidence()).unwrap(),
            anytime_interval(&groups, confidence(), 1000).unwrap(),
        ];
        let ours = [summary.chernoff, summary.exact.unwrap(), summary.anytime];
        for (today, ours) in today.iter().zip(ours) {
            let ((our_low, our_high), (today_low, today_high)) =
                (ours.computed(), today.computed());
            assert!(
                close(our_low, today_low, 1e-11) && close(our_high, today_high, 1e-11),
                "{ours:?} vs {today:?}"
            );
            assert_eq!(ours.is_empty(), today.is_empty(), "{ours:?} vs {today:?}");
            assert!(close(ours.half_width(), today.half_width(), 1e-11));
        }
        // The width of the per-record value is 1/r.
        assert!(close(estimator.value_width(), 1.0 / level.signal(), 1e-9));
        for half_width in [0.05, 0.1] {
            assert_eq!(
                estimator
                    .respondents_needed(half_width, confidence())
                    .unwrap(),
                respondents_needed(half_width, level, confidence()).unwrap()
            );
        }
    }
}

#[test]
fn intervals_have_their_closed_forms_for_an_option_of_a_choice() {
    // k = 3, ε = ln 2: p = 1/2, q = 1/4, so π̂ = (n_i/N − 1/4)·4 and W = 4.
    let design = Design::k_ary(3, level(2.0_f64.ln())).unwrap();
    let estimator = design.option_estimator(1).unwrap();
    let counts = [3, 5, 2];
    let estimate = estimator.estimate(&counts).unwrap().unwrap();
    assert!(close(estimate, 1.0, 1e-12));
    assert!(close(estimator.value_width(), 4.0, 1e-12));
    let summary = estimator
        .summarize(&counts, confidence(), 100)
        .unwrap()
        .unwrap();
    let chernoff = 4.0 * (40.0_f64.ln() / 20.0).sqrt();
    assert!(close(summary.chernoff.half_width(), chernoff, 1e-12));
    assert_eq!(
        (
            summary.chernoff.low().unwrap(),
            summary.chernoff.high().unwrap()
        ),
        (0.0, 1.0)
    );
    // Clopper–Pearson for 5 of 10 at 95 %: [0.187086, 0.812914], mapped by 4(ζ − 1/4).
    let exact = summary.exact.unwrap();
    assert!(close(
        exact.half_width(),
        4.0 * (0.812_914 - 0.187_086) / 2.0,
        1e-5
    ));
    assert_eq!(exact.low().unwrap(), 0.0);
    assert_eq!(summary.estimate_clipped, 1.0);
    // Nothing reported: no estimate; wrong lengths: an error, not a guess.
    assert_eq!(estimator.summarize(&[0, 0, 0], confidence(), 100), Ok(None));
    assert_eq!(
        estimator.estimate(&[1, 2]),
        Err(DesignError::CountsLength {
            expected: 3,
            got: 2
        })
    );
    assert_eq!(
        estimator.estimate(&[u64::MAX, 1, 0]),
        Err(DesignError::CountOverflow)
    );
    assert!(matches!(
        estimator.respondents_needed(0.0, confidence()),
        Err(DesignError::HalfWidth(_))
    ));
    // The ordinal mean has no exact interval beyond two levels.
    let mean = design.mean_level_estimator();
    let summary = mean.summarize(&counts, confidence(), 100).unwrap().unwrap();
    assert_eq!(summary.exact, None);
    // Levels 0, 1, 2 with values (r − b·3)/(a − b) = 4r − 3.
    assert!(close(
        summary.estimate,
        (0.0 * 3.0 + 1.0 * 5.0 + 2.0 * 2.0) / 10.0 * 4.0 - 3.0,
        1e-12
    ));
}

#[test]
fn the_observer_belief_is_the_posterior_of_the_reported_answer() {
    // Warner's closed form: at ε = ln 3 (p = 3/4), 10 % becomes 25 % after a Yes.
    let warner = Design::mirrored(PrivacyLevel::warner());
    let belief = warner.observer_belief(0.1, Design::YES).unwrap();
    assert!(close(belief, 0.25, 1e-12), "{belief}");
    assert!(close(
        belief,
        posterior_after_yes(0.1, PrivacyLevel::warner()).unwrap(),
        1e-12
    ));
    // The smallest ε barely moves it: the odds change by a factor in [1, e^ε]. The ends of
    // the prior stay where they are.
    let faint = PrivacyLevel::new(PrivacyLevel::MIN_EPSILON).unwrap();
    let belief = Design::mirrored(faint)
        .observer_belief(0.1, Design::YES)
        .unwrap();
    let odds_change = belief / (1.0 - belief) / (0.1 / 0.9);
    assert!((1.0..=faint.epsilon().exp() * (1.0 + 1e-12)).contains(&odds_change));
    assert_eq!(warner.observer_belief(0.0, Design::YES).unwrap(), 0.0);
    assert_eq!(warner.observer_belief(1.0, Design::YES).unwrap(), 1.0);
    // Asymmetric forced response: the truth 1/2, Yes forced 2/5, No forced 1/10, so a Yes
    // report comes from a Yes 9/10 of the time and from a No 2/5: 0.09 / (0.09 + 0.36).
    let forced = Design::forced_response(0.5, 0.4, 0.1).unwrap();
    let belief = forced.observer_belief(0.1, Design::YES).unwrap();
    assert!(close(belief, 0.2, 1e-9), "{belief}");
    // k options: the rest spread evenly, P[0][0] = e^ε / (e^ε + k − 1).
    let k_ary = Design::k_ary(4, PrivacyLevel::new(1.5).unwrap()).unwrap();
    let (keep, other) = (k_ary.probability(0, 0), k_ary.probability(1, 0));
    let expected = 0.1 * keep / (0.1 * keep + 0.9 * other);
    assert!(close(
        k_ary.observer_belief(0.1, 0).unwrap(),
        expected,
        1e-12
    ));
    assert_eq!(
        warner.observer_belief(1.5, Design::YES),
        Err(DesignError::Prior)
    );
    assert!(matches!(
        warner.observer_belief(0.1, 2),
        Err(DesignError::AnswerOutOfRange {
            answer: 2,
            answers: 2
        })
    ));
}

#[test]
fn posteriors_follow_bayes_rule_and_move_the_odds_by_at_most_e_to_the_epsilon() {
    let warner = PrivacyLevel::warner();
    let mirrored = Design::mirrored(warner);
    for prior in [0.0, 0.1, 0.5, 0.9, 1.0] {
        let after_yes = mirrored
            .posterior(&[1.0 - prior, prior], Design::YES)
            .unwrap();
        let after_no = mirrored
            .posterior(&[1.0 - prior, prior], Design::NO)
            .unwrap();
        assert!(close(
            after_yes.as_slice()[1],
            posterior_after_yes(prior, warner).unwrap(),
            1e-12
        ));
        assert!(close(
            after_no.as_slice()[1],
            posterior_after_no(prior, warner).unwrap(),
            1e-12
        ));
    }
    for design in all_designs() {
        let k = design.answers();
        let bound = design.realized_epsilon().exp() * (1.0 + 1e-12);
        let uniform = vec![1.0 / k as f64; k];
        let skewed: Vec<f64> = (0..k)
            .map(|i| 2.0 * (i + 1) as f64 / (k * (k + 1)) as f64)
            .collect();
        for prior in [&uniform, &skewed] {
            for report in 0..k {
                let posterior = design.posterior(prior, report).unwrap();
                assert!(close(posterior.as_slice().iter().sum(), 1.0, 1e-12));
                for a in 0..k {
                    for b in 0..k {
                        let change = (posterior.as_slice()[a] / posterior.as_slice()[b])
                            / (prior[a] / prior[b]);
                        assert!(change <= bound, "{:?}", design.kind());
                    }
                }
            }
        }
        // From a uniform prior the posterior of the report's own answer is P[r][r] / Σ_t P[t][r].
        let posterior = design.posterior(&uniform, 0).unwrap();
        let column: f64 = (0..k).map(|t| design.probability(t, 0)).sum();
        assert!(close(
            posterior.as_slice()[0],
            design.probability(0, 0) / column,
            1e-12
        ));
    }
    let design = Design::k_ary(3, level(1.0)).unwrap();
    for bad in [
        vec![0.5, 0.5],
        vec![0.5, 0.6, -0.1],
        vec![0.2, 0.2, 0.2],
        vec![f64::NAN, 0.5, 0.5],
    ] {
        assert_eq!(design.posterior(&bad, 0), Err(DesignError::Prior));
    }
    assert!(matches!(
        design.posterior(&[0.2, 0.3, 0.5], 3),
        Err(DesignError::ReportOutOfRange { .. })
    ));
}

#[test]
fn a_number_rounds_to_an_end_with_its_first_draw_and_randomizes_it_with_the_second() {
    let level = level(1.0);
    let number = NumberDesign::new(0.0, 30.0, level).unwrap();
    assert_eq!(number.rounding_threshold(0.0).unwrap(), 0);
    assert_eq!(number.rounding_threshold(30.0).unwrap(), 1 << 64);
    assert_eq!(number.rounding_threshold(15.0).unwrap(), 1 << 63);
    assert_eq!(number.rounding_threshold(7.5).unwrap(), 1 << 62);
    let threshold = level.threshold();
    let (below, above) = ((1_u64 << 63) - 1, 1_u64 << 63);
    // Rounded to the upper end, reported truthfully below T.
    assert_eq!(
        number.report_for_draws(15.0, below, 0).unwrap(),
        NumberDesign::MAX_END
    );
    assert_eq!(
        number.report_for_draws(15.0, below, threshold).unwrap(),
        NumberDesign::MIN_END
    );
    assert_eq!(
        number.report_for_draws(15.0, above, threshold - 1).unwrap(),
        NumberDesign::MIN_END
    );
    assert_eq!(
        number.report_for_draws(15.0, above, u64::MAX).unwrap(),
        NumberDesign::MAX_END
    );
    assert_eq!(
        number.report_for_draws(30.0, u64::MAX, 0).unwrap(),
        NumberDesign::MAX_END
    );
    assert_eq!(
        number.report_for_draws(0.0, 0, 0).unwrap(),
        NumberDesign::MIN_END
    );
    // The second draw is the mirrored design's, as `respond` uses it.
    for draw in [0, threshold - 1, threshold, u64::MAX] {
        let today = respond(true, level, &mut fixed(draw));
        let ours = number.report_for_draws(30.0, 0, draw).unwrap() == NumberDesign::MAX_END;
        assert_eq!(ours, today);
    }
    // P(upper report | v) = q + r x.
    let (p, q) = (
        number.ends().probability(1, 1),
        number.ends().probability(0, 1),
    );
    for value in [0.0, 3.0, 15.0, 29.0, 30.0] {
        let x = value / 30.0;
        let probability = number
            .report_probability(value, NumberDesign::MAX_END)
            .unwrap();
        assert!(close(probability, q + (p - q) * x, 1e-15));
    }
    assert_eq!(number.epsilon(), 1.0);
    assert!(number.realized_epsilon() <= 1.0);
    assert!(close(
        number.truth_probability(),
        level.truth_probability(),
        0.0
    ));
}

#[test]
fn the_mean_of_a_number_has_a_bounded_unbiased_per_record_value() {
    let level = level(1.0);
    let number = NumberDesign::new(0.0, 30.0, level).unwrap();
    let estimator = number.mean_estimator();
    let (p, q) = (
        number.ends().probability(1, 1),
        number.ends().probability(0, 1),
    );
    let r = p - q;
    let (low, high) = estimator.value_range();
    assert!(close(low, -30.0 * q / r, 1e-12));
    assert!(close(high, 30.0 * p / r, 1e-12));
    assert!(close(estimator.value_width(), 30.0 / level.signal(), 1e-9));
    assert!(estimator.is_two_valued());
    assert_eq!(estimator.target_range(), (0.0, 30.0));
    for value in [0.0, 1.0, 12.5, 30.0] {
        let upper = number.report_probability(value, 1).unwrap();
        let expected = (1.0 - upper) * low + upper * high;
        assert!(close(expected, value, 1e-12), "{value}: {expected}");
    }
    // A shifted range shifts the values.
    let shifted = NumberDesign::new(-10.0, 20.0, level)
        .unwrap()
        .mean_estimator();
    assert!(close(shifted.value_range().0, low - 10.0, 1e-12));
    // Posterior over candidate values: the odds move by at most e^ε.
    let values = [0.0, 10.0, 30.0];
    let prior = [0.2, 0.5, 0.3];
    let mut posterior = [0.0; 3];
    number
        .posterior(&values, &prior, 1, &mut posterior)
        .unwrap();
    assert!(close(posterior.iter().sum(), 1.0, 1e-12));
    let odds = (posterior[2] / posterior[0]) / (prior[2] / prior[0]);
    assert!(close(odds.ln(), number.realized_epsilon(), 1e-9));
    assert_eq!(
        number.posterior(&values, &[0.5, 0.5], 1, &mut posterior),
        Err(DesignError::Prior)
    );
}

#[test]
fn the_mean_interval_of_a_number_at_epsilon_one_and_a_thousand_respondents() {
    // 0–30 at ε = 1, N = 1 000, half the reports at each end (a mean near 15).
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    let estimator = number.mean_estimator();
    let summary = estimator
        .summarize(&[500, 500], confidence(), 1000)
        .unwrap()
        .unwrap();
    let chernoff = 30.0 / 0.5_f64.tanh() * (40.0_f64.ln() / 2000.0).sqrt();
    assert!(close(summary.chernoff.half_width(), chernoff, 1e-9));
    assert!(close(chernoff, 2.788, 1e-3), "{chernoff}");
    let exact = summary.exact.unwrap().half_width();
    let anytime = summary.anytime.half_width();
    eprintln!(
        "number 0–30, ε = 1, N = 1000: half-widths Chernoff {chernoff:.3}, exact {exact:.3}, \
         anytime {anytime:.3} ({:.4}, {:.4}, {:.4} of the range)",
        chernoff / 30.0,
        exact / 30.0,
        anytime / 30.0
    );
    assert!(close(exact, 2.04, 0.01), "{exact}");
    assert!(anytime > chernoff && anytime < 1.2 * chernoff, "{anytime}");
    // The planner agrees: ±2.79 needs 1 000 respondents, ±1 needs 7 771.
    assert_eq!(
        estimator
            .respondents_needed(chernoff + 1e-9, confidence())
            .unwrap(),
        1000
    );
    let for_one = estimator.respondents_needed(1.0, confidence()).unwrap();
    assert_eq!(for_one, (chernoff * chernoff * 1000.0).ceil() as u64);
}

#[test]
fn a_summary_clips_to_the_target_range_and_keeps_the_raw_estimate() {
    let estimator = Design::forced_response(0.67, 0.165, 0.165)
        .unwrap()
        .option_estimator(Design::YES)
        .unwrap();
    // No "yes" at all: (0 − 0.165)/0.67 < 0.
    let summary = estimator
        .summarize(&[20, 0], confidence(), 100)
        .unwrap()
        .unwrap();
    assert!(close(summary.estimate, -0.165 / 0.67, 1e-12));
    assert_eq!(summary.estimate_clipped, 0.0);
    for bounds in [summary.chernoff, summary.exact.unwrap(), summary.anytime] {
        assert_eq!(bounds.low().unwrap(), 0.0);
        assert!(bounds.high().unwrap() > 0.0 && bounds.high().unwrap() <= 1.0);
        assert!(bounds.contains(0.0));
    }
    assert_eq!(
        MechanismError::EpsilonNotFinite.to_string(),
        DesignError::Epsilon(MechanismError::EpsilonNotFinite).to_string()
    );
}

#[test]
fn forced_response_sums_are_accepted_exactly_when_r_rounds_them_to_one() {
    // Issue 32: within 1e-9 of 1, but R's rr refuses unless round(p + p0 + p1, 10) == 1.
    let refused = Design::forced_response(0.67, 0.165, 0.165_000_000_8).unwrap_err();
    assert_eq!(
        refused,
        DesignError::ForcedResponseSum {
            sum: 0.67 + 0.165 + 0.165_000_000_8
        }
    );
    assert!(refused.to_string().contains("1.0000000008"), "{refused}");
    // A sum that rounds to 1 at the tenth decimal place, as R's round(·, 10) sees it.
    assert!(Design::forced_response(0.67, 0.165, 0.165_000_000_04).is_ok());
    assert!(Design::forced_response(0.67, 0.165, 0.164_999_999_96).is_ok());
    assert!(Design::forced_response(0.67, 0.165, 0.165_000_000_06).is_err());
    assert!(Design::forced_response(0.67, 0.165, 0.164_999_999_94).is_err());
}
