//! The analyses of issue 18 across groups and questions, at the extremes and against closed
//! forms: differences between two groups (intervals, Fisher's test against R, the anytime
//! p-value as the dual of the anytime interval) and the joint distribution of two questions
//! (the product design's inverse, four-valued cells, conditional proportions).

use randomized_response::{
    Confidence, Design, DesignError, Group, JointDesign, PerRecordEstimator, PrivacyLevel,
};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence(level: f64) -> Confidence {
    Confidence::new(level).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

fn yes_share(design: &Design) -> PerRecordEstimator {
    design.option_estimator(Design::YES).unwrap()
}

// ---------------------------------------------------------------------------------------
// Differences between two groups

fn group(counts: &[u64], planned_respondents: u64) -> Group<'_> {
    Group {
        counts,
        planned_respondents,
    }
}

#[test]
fn the_difference_intervals_are_their_formulas() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    let (a, b) = ([40, 60], [200, 100]);
    let chosen = confidence(0.95);
    let estimate = estimator.difference_estimate(&a, &b).unwrap().unwrap();
    let expected =
        estimator.estimate(&a).unwrap().unwrap() - estimator.estimate(&b).unwrap().unwrap();
    assert_eq!(estimate, expected);
    // Chernoff: W sqrt(ln(2/β)/2 · (1/n_a + 1/n_b)).
    let chernoff = estimator
        .difference_chernoff_interval(&a, &b, chosen)
        .unwrap()
        .unwrap();
    let half_width =
        estimator.value_width() * (40.0_f64.ln() / 2.0 * (1.0 / 100.0 + 1.0 / 300.0)).sqrt();
    assert!(close(chernoff.half_width(), half_width, 1e-14));
    assert!(close(chernoff.low().unwrap(), estimate - half_width, 1e-14));
    // Exact and anytime: each group at 1 − β/2, combined as [L_a − U_b, U_a − L_b].
    let each = confidence(0.975);
    let exact = estimator
        .difference_exact_interval(&a, &b, chosen)
        .unwrap()
        .unwrap();
    let (exact_a, exact_b) = (
        estimator.exact_interval(&a, each).unwrap().unwrap(),
        estimator.exact_interval(&b, each).unwrap().unwrap(),
    );
    assert_eq!(
        exact.low().unwrap(),
        exact_a.low().unwrap() - exact_b.high().unwrap()
    );
    assert_eq!(
        exact.high().unwrap(),
        exact_a.high().unwrap() - exact_b.low().unwrap()
    );
    let anytime = estimator
        .difference_anytime_interval(group(&a, 200), group(&b, 500), chosen)
        .unwrap()
        .unwrap();
    let (anytime_a, anytime_b) = (
        estimator.anytime_interval(&a, each, 200).unwrap().unwrap(),
        estimator.anytime_interval(&b, each, 500).unwrap().unwrap(),
    );
    assert_eq!(
        anytime.low().unwrap(),
        anytime_a.low().unwrap() - anytime_b.high().unwrap()
    );
    assert_eq!(
        anytime.high().unwrap(),
        anytime_a.high().unwrap() - anytime_b.low().unwrap()
    );
    // The difference's range is [−1, 1]: all yes against all no, in ten reports each.
    let extreme = estimator
        .difference_chernoff_interval(&[0, 10], &[10, 0], chosen)
        .unwrap()
        .unwrap();
    assert_eq!(extreme.high(), Some(1.0));
    // In a thousand each, no difference in [−1, 1] is consistent with the reports.
    let impossible = estimator
        .difference_chernoff_interval(&[0, 1000], &[1000, 0], chosen)
        .unwrap()
        .unwrap();
    assert!(impossible.is_empty() && impossible.computed().0 > 1.0);
    assert_eq!(
        estimator.difference_chernoff_interval(&a, &[0, 0], chosen),
        Ok(None)
    );
}

#[test]
fn the_difference_tests_are_fisher_and_the_dual_of_the_anytime_interval() {
    let estimator = yes_share(&Design::mirrored(level(1.0)));
    // Fisher's exact test on the reports: 12 yes of 40 against 30 of 60.
    // R: fisher.test(matrix(c(12, 30, 28, 30), 2))$p.value = 0.06293412572631979.
    let p = estimator
        .difference_exact_p_value(&[28, 12], &[30, 30])
        .unwrap()
        .unwrap();
    assert!(close(p, 0.062_934_125_726_319_79, 1e-12), "{p}");
    assert_eq!(
        estimator
            .difference_exact_p_value(&[5, 5], &[5, 5])
            .unwrap(),
        Some(1.0)
    );
    // The anytime p-value is below β exactly when the anytime interval excludes 0.
    let chosen = confidence(0.95);
    let mut rejected = 0;
    for yes_a in (0..=200).step_by(7) {
        let (a, b) = ([200 - yes_a, yes_a], [150, 150]);
        let (a, b) = (group(&a, 1_000), group(&b, 1_000));
        let p = estimator
            .difference_anytime_p_value(a, b, chosen)
            .unwrap()
            .unwrap();
        let interval = estimator
            .difference_anytime_interval(a, b, chosen)
            .unwrap()
            .unwrap();
        let excludes = !interval.contains(0.0);
        assert_eq!(p < chosen.beta(), excludes, "yes_a = {yes_a}: p = {p}");
        rejected += usize::from(excludes);
        let summary = estimator.difference(a, b, chosen).unwrap().unwrap();
        assert_eq!(summary.anytime_p_value, p);
        assert_eq!(summary.anytime, interval);
        assert_eq!((summary.n_a, summary.n_b), (200, 300));
    }
    assert!(rejected > 5 && rejected < 25, "{rejected}");
    // Identical groups: p = 1; all yes against all no: tiny, never NaN.
    let same = [50, 50];
    let p = estimator
        .difference_anytime_p_value(group(&same, 100), group(&same, 100), chosen)
        .unwrap();
    assert_eq!(p, Some(1.0));
    let (all_yes, all_no) = ([0, 100_000], [100_000, 0]);
    let p = estimator
        .difference_anytime_p_value(group(&all_yes, 100), group(&all_no, 100), chosen)
        .unwrap()
        .unwrap();
    assert!(p > 0.0 && p < 1e-100, "{p}");
}

// ---------------------------------------------------------------------------------------
// The joint distribution of two questions

/// The inverse of a square matrix by Gauss–Jordan elimination with partial pivoting.
fn inverse(matrix: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let k = matrix.len();
    let mut left = matrix.to_vec();
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
fn the_joint_estimate_inverts_the_product_design() {
    let first = Design::mirrored(level(1.0));
    let second = Design::k_ary(3, level(2.0)).unwrap();
    let joint = JointDesign::new(&first, &second);
    assert_eq!(joint.shape(), (2, 3));
    assert_eq!(joint.table_len(), 6);
    // P over pairs, row-major, and its inverse by elimination.
    let pairs: Vec<(usize, usize)> = (0..2).flat_map(|i| (0..3).map(move |j| (i, j))).collect();
    let matrix: Vec<Vec<f64>> = pairs
        .iter()
        .map(|&truth| {
            pairs
                .iter()
                .map(|&report| joint.probability(truth, report))
                .collect()
        })
        .collect();
    let inverted = inverse(&matrix);
    let table = [120_u64, 33, 47, 81, 9, 210];
    let total: u64 = table.iter().sum();
    let mut shares = [0.0; 6];
    assert!(joint.estimate_distribution(&table, &mut shares).unwrap());
    for (cell, &(i, j)) in pairs.iter().enumerate() {
        // π̂ = P^{-T} f̂.
        let expected: f64 = (0..6)
            .map(|report| inverted[report][cell] * table[report] as f64 / total as f64)
            .sum();
        assert!(close(shares[cell], expected, 1e-12), "{i}, {j}");
        let estimator = joint.cell(i, j).unwrap();
        let collapsed = estimator.collapse(&table).unwrap();
        assert_eq!(collapsed.iter().sum::<u64>(), total);
        let estimate = estimator.estimator().estimate(&collapsed).unwrap().unwrap();
        assert!(close(estimate, expected, 1e-12));
    }
    assert!(close(shares.iter().sum::<f64>(), 1.0, 1e-12));
    assert!(!joint.estimate_distribution(&[0; 6], &mut shares).unwrap());
    assert!(matches!(
        joint.cell(0, 0).unwrap().collapse(&[1, 2, 3]),
        Err(DesignError::CountsLength {
            expected: 6,
            got: 3
        })
    ));
    assert!(joint.cell(2, 0).is_err() && joint.cell(0, 3).is_err());
}

#[test]
fn a_joint_cell_of_two_mirrored_questions_has_four_values_and_width_p_over_r_squared() {
    let design = Design::mirrored(level(1.0));
    let joint = JointDesign::new(&design, &design);
    let (u_low, u_high) = yes_share(&design).value_range();
    let cell = joint.cell(Design::YES, Design::YES).unwrap();
    let estimator = cell.estimator();
    assert_eq!(
        estimator.values(),
        &[
            u_low * u_low,
            u_low * u_high,
            u_high * u_low,
            u_high * u_high
        ]
    );
    assert!(!estimator.is_two_valued());
    let (p, r) = (level(1.0).truth_probability(), level(1.0).signal());
    assert!(close(estimator.value_width(), p / (r * r), 1e-12));
    // Chernoff and anytime apply; exact does not.
    let table = [400, 100, 100, 400];
    let collapsed = cell.collapse(&table).unwrap();
    // Report pair (yes, yes) is the last collapsed report, (no, no) the first.
    assert_eq!(collapsed, [400, 100, 100, 400]);
    let chosen = confidence(0.95);
    assert!(estimator
        .chernoff_interval(&collapsed, chosen)
        .unwrap()
        .is_some());
    assert_eq!(estimator.exact_interval(&collapsed, chosen), Ok(None));
}

#[test]
fn conditional_proportions_are_ratio_bounds_at_beta_over_two() {
    let design = Design::mirrored(level(2.0));
    let joint = JointDesign::new(&design, &design);
    // True joint: (no, no) 0.4, (no, yes) 0.1, (yes, no) 0.1, (yes, yes) 0.4, so
    // π(yes | yes) = 0.8. The table of expected counts at N = 10¹² (rounded).
    let truth = [0.4, 0.1, 0.1, 0.4];
    let total = 1e12;
    let table: Vec<u64> = (0..4)
        .map(|report| {
            let expected: f64 = (0..4)
                .map(|t| truth[t] * joint.probability((t / 2, t % 2), (report / 2, report % 2)))
                .sum();
            (expected * total).round() as u64
        })
        .collect();
    let conditional = joint.conditional(Design::YES, Design::YES).unwrap();
    let chosen = confidence(0.95);
    let summary = conditional
        .summarize(&table, chosen, 1_000)
        .unwrap()
        .unwrap();
    assert!(close(summary.estimate.unwrap(), 0.8, 1e-9));
    for bounds in [summary.chernoff.unwrap(), summary.anytime.unwrap()] {
        assert!(bounds.contains(0.8) && bounds.high().unwrap() - bounds.low().unwrap() < 1e-4);
    }
    assert_eq!(summary.exact, None);
    // The ratio of the two intervals at 1 − β/2, by hand, on a small table.
    let small = [30_u64, 12, 9, 49];
    let summary = conditional
        .summarize(&small, chosen, 1_000)
        .unwrap()
        .unwrap();
    let each = confidence(0.975);
    let numerator_counts = conditional.numerator().collapse(&small).unwrap();
    let denominator_counts = [
        numerator_counts[0] + numerator_counts[1],
        numerator_counts[2] + numerator_counts[3],
    ];
    let numerator = conditional
        .numerator()
        .estimator()
        .chernoff_interval(&numerator_counts, each)
        .unwrap()
        .unwrap();
    let denominator = conditional
        .denominator()
        .chernoff_interval(&denominator_counts, each)
        .unwrap()
        .unwrap();
    let chernoff = summary.chernoff;
    if denominator.low().unwrap() > 0.0 {
        let bounds = chernoff.unwrap();
        let low = numerator.low().unwrap().max(0.0) / denominator.high().unwrap();
        let high = (numerator.high().unwrap() / denominator.low().unwrap()).min(1.0);
        assert!(
            close(bounds.low().unwrap(), low, 1e-15) && close(bounds.high().unwrap(), high, 1e-15)
        );
    } else {
        assert_eq!(chernoff, None);
    }
    // Ten respondents cannot show that anybody answered yes: undefined, not [0, 1].
    let few = [3_u64, 2, 2, 3];
    let summary = conditional.summarize(&few, chosen, 1_000).unwrap().unwrap();
    assert_eq!((summary.chernoff, summary.anytime), (None, None));
    assert_eq!(conditional.summarize(&[0; 4], chosen, 1_000), Ok(None));
}
