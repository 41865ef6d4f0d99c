//! Estimators with exact values at the extremes and closed forms.

use randomized_response::{
    anytime_interval, anytime_mixture_scale, chernoff_interval, exact_interval, posterior_after_no,
    posterior_after_yes, respondents_needed, summarize, total_epsilon, unbiased_estimate,
    Confidence, MechanismError, PrivacyLevel, Tally,
};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn tally(n: u64, reported_yes: u64) -> Tally {
    Tally::new(n, reported_yes).unwrap()
}

fn confidence(level: f64) -> Confidence {
    Confidence::new(level).unwrap()
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

#[test]
fn no_reports_give_no_estimate_never_nan() {
    let ninety_five = confidence(0.95);
    for groups in [vec![], vec![(PrivacyLevel::warner(), Tally::default())]] {
        assert_eq!(unbiased_estimate(&groups), None);
        assert_eq!(chernoff_interval(&groups, ninety_five), None);
        assert_eq!(exact_interval(&groups, ninety_five), None);
        assert_eq!(anytime_interval(&groups, ninety_five, 1000), None);
        assert_eq!(summarize(&groups, ninety_five, 1000), None);
    }
}

#[test]
fn confidence_levels_outside_zero_to_one_are_refused() {
    // 5e-324 and 1e-17 are in (0, 1), but their β = 1 − level rounds to exactly 1.
    for bad in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY, 5e-324, 1e-17] {
        assert!(matches!(
            Confidence::new(bad),
            Err(MechanismError::ConfidenceOutOfRange(_))
        ));
    }
    let ninety = confidence(0.9);
    assert!(close(ninety.beta(), 0.1, 1e-15));
}

#[test]
fn the_unbiased_estimate_inverts_the_expected_reports() {
    // Warner (p = 3/4): 1000 reports, 400 yes → π̂ = (0.4 − 0.25) / 0.5 = 0.3.
    let groups = [(PrivacyLevel::warner(), tally(1000, 400))];
    assert!(close(unbiased_estimate(&groups).unwrap(), 0.3, 1e-12));
    // All no at p = 3/4 → π̂ = −0.5, clipped to 0 by the summary.
    let all_no = [(PrivacyLevel::warner(), tally(10, 0))];
    let summary = summarize(&all_no, confidence(0.95), 100).unwrap();
    assert!(close(summary.estimate, -0.5, 1e-12));
    assert_eq!(summary.estimate_clipped, 0.0);
}

#[test]
fn mixed_epsilons_weight_each_group_by_its_count() {
    // Two groups whose debiased yes counts are 0.3·1000 and 0.6·500: π̂ = 600 / 1500.
    let warner = PrivacyLevel::warner();
    let strong = level(2.0);
    let yes_strong = 500.0 * (strong.lie_probability() + strong.signal() * 0.6);
    let groups = [
        (warner, tally(1000, 400)),
        (strong, tally(500, yes_strong.round() as u64)),
    ];
    let expected = (300.0
        + (yes_strong.round() - 500.0 * strong.lie_probability()) / strong.signal())
        / 1500.0;
    assert!(close(unbiased_estimate(&groups).unwrap(), expected, 1e-12));
    assert!(close(expected, 0.4, 2e-3));
    // Clopper–Pearson needs one ε.
    assert_eq!(exact_interval(&groups, confidence(0.95)), None);
    assert!(chernoff_interval(&groups, confidence(0.95)).is_some());
}

#[test]
fn the_chernoff_half_width_is_the_one_epsilon_closed_form() {
    // h = sqrt(ln(2/β) / (2N)) / r with N = 1000, β = 0.05, r = 1/2.
    let groups = [(PrivacyLevel::warner(), tally(1000, 400))];
    let interval = chernoff_interval(&groups, confidence(0.95)).unwrap();
    let expected = (40.0_f64.ln() / 2000.0).sqrt() / 0.5;
    assert!(close(interval.half_width(), expected, 1e-12));
    assert!(close(interval.low().unwrap(), 0.3 - expected, 1e-12));
    assert!(close(interval.high().unwrap(), 0.3 + expected, 1e-12));
}

#[test]
fn the_chernoff_half_width_with_mixed_epsilons_sums_inverse_squared_signals() {
    let (a, b) = (level(0.5), level(3.0));
    let groups = [(a, tally(300, 160)), (b, tally(700, 200))];
    let interval = chernoff_interval(&groups, confidence(0.9)).unwrap();
    let sum = 300.0 / a.signal().powi(2) + 700.0 / b.signal().powi(2);
    let expected = ((2.0_f64 / 0.1).ln() / 2.0 * sum).sqrt() / 1000.0;
    assert!(close(interval.half_width(), expected, 1e-12));
}

#[test]
fn the_exact_interval_at_zero_and_all_yes_has_closed_form_bounds() {
    // y = 0: the upper rate bound is 1 − (β/2)^(1/N); y = N: the lower is (β/2)^(1/N).
    let warner = PrivacyLevel::warner();
    let map = |rate: f64| (rate - 0.25) / 0.5;
    let none = exact_interval(&[(warner, tally(10, 0))], confidence(0.95)).unwrap();
    let upper_rate = 1.0 - 0.025_f64.powf(0.1);
    assert_eq!(none.low().unwrap(), 0.0);
    assert!(close(none.high().unwrap(), map(upper_rate).max(0.0), 1e-12));
    let all = exact_interval(&[(warner, tally(10, 10))], confidence(0.95)).unwrap();
    let lower_rate = 0.025_f64.powf(0.1);
    assert!(close(all.low().unwrap(), map(lower_rate), 1e-12));
    assert_eq!(all.high().unwrap(), 1.0);
}

#[test]
fn the_exact_interval_matches_published_clopper_pearson_bounds() {
    // 5 of 10 at 95 %: the rate lies in [0.187086, 0.812914]; π = (ζ − q) / r.
    let strong = level(5.0);
    let to_proportion = |rate: f64| (rate - strong.lie_probability()) / strong.signal();
    let interval = exact_interval(&[(strong, tally(10, 5))], confidence(0.95)).unwrap();
    assert!(close(
        interval.low().unwrap(),
        to_proportion(0.187_086),
        2e-6
    ));
    assert!(close(
        interval.high().unwrap(),
        to_proportion(0.812_914),
        2e-6
    ));
    // Under Warner's p = 3/4 the same rates map outside [0, 1] and are clipped.
    let warner =
        exact_interval(&[(PrivacyLevel::warner(), tally(10, 5))], confidence(0.95)).unwrap();
    assert_eq!((warner.low().unwrap(), warner.high().unwrap()), (0.0, 1.0));
    assert!(close(
        warner.half_width(),
        (0.812_914 - 0.187_086) / 2.0 / 0.5,
        2e-6
    ));
}

#[test]
fn the_planner_solves_the_chernoff_bound_for_n() {
    // ln(40) / (2 · 0.05² · 0.5²) = 2951.1… → 2952 respondents for ±5 % at 95 %.
    let needed = respondents_needed(0.05, PrivacyLevel::warner(), confidence(0.95)).unwrap();
    assert_eq!(needed, 2952);
    // With that many reports the Chernoff half-width is at most 0.05, and one fewer is not.
    let at = |n: u64| {
        chernoff_interval(
            &[(PrivacyLevel::warner(), tally(n, n / 2))],
            confidence(0.95),
        )
        .unwrap()
        .half_width()
    };
    assert!(at(needed) <= 0.05 && at(needed - 1) > 0.05);
    assert_eq!(
        respondents_needed(0.0, PrivacyLevel::warner(), confidence(0.95)),
        Err(MechanismError::HalfWidthOutOfRange(0.0))
    );
}

#[test]
fn an_observer_moves_from_ten_to_twenty_five_percent_after_a_warner_yes() {
    let warner = PrivacyLevel::warner();
    assert!(close(
        posterior_after_yes(0.1, warner).unwrap(),
        0.25,
        1e-12
    ));
    assert!(close(
        posterior_after_no(0.1, warner).unwrap(),
        0.025 / 0.7,
        1e-12
    ));
    assert_eq!(posterior_after_yes(0.0, warner).unwrap(), 0.0);
    assert_eq!(posterior_after_no(1.0, warner).unwrap(), 1.0);
    assert_eq!(
        posterior_after_yes(1.2, warner),
        Err(MechanismError::PriorOutOfRange(1.2))
    );
}

#[test]
fn a_report_changes_the_odds_by_exactly_e_to_the_epsilon() {
    let odds = |probability: f64| probability / (1.0 - probability);
    for epsilon in [0.01, 0.5, 1.0, 4.0, 10.0] {
        let level = level(epsilon);
        for prior in [0.01, 0.1, 0.5, 0.9] {
            let after_yes = odds(posterior_after_yes(prior, level).unwrap()) / odds(prior);
            let after_no = odds(prior) / odds(posterior_after_no(prior, level).unwrap());
            assert!(
                close(after_yes.ln(), epsilon, 1e-9),
                "ε = {epsilon}, ξ = {prior}"
            );
            assert!(
                close(after_no.ln(), epsilon, 1e-9),
                "ε = {epsilon}, ξ = {prior}"
            );
        }
    }
}

#[test]
fn the_total_epsilon_of_a_survey_is_the_sum_of_its_questions() {
    let levels = [0.5, PrivacyLevel::warner().epsilon(), 2.0].map(level);
    assert!(close(total_epsilon(levels), 2.5 + 3.0_f64.ln(), 1e-12));
    assert_eq!(total_epsilon([]), 0.0);
}

#[test]
fn the_mixture_scale_minimizes_the_anytime_boundary_at_the_planned_time() {
    let ninety_five = confidence(0.95);
    let planned = 1234.5;
    let boundary = |rho: f64| {
        ((planned + rho) * ((1.0 + planned / rho).ln() + 2.0 * (1.0 / 0.05_f64).ln())).sqrt()
    };
    let tuned = anytime_mixture_scale(planned, ninety_five);
    for factor in [0.5, 0.8, 0.95, 1.05, 1.25, 2.0] {
        assert!(
            boundary(tuned) < boundary(tuned * factor),
            "factor {factor}"
        );
    }
}

#[test]
fn half_widths_at_a_thousand_respondents_epsilon_one_and_thirty_percent_yes() {
    // The expected reported-yes count at π = 0.3: N (q + rπ).
    let one = level(1.0);
    let expected_yes = 1000.0 * (one.lie_probability() + one.signal() * 0.3);
    let groups = [(one, tally(1000, expected_yes.round() as u64))];
    let ninety_five = confidence(0.95);
    let chernoff = chernoff_interval(&groups, ninety_five)
        .unwrap()
        .half_width();
    let exact = exact_interval(&groups, ninety_five).unwrap().half_width();
    let anytime = anytime_interval(&groups, ninety_five, 1000)
        .unwrap()
        .half_width();
    eprintln!(
        "N = 1000, ε = 1, π = 0.3: chernoff {chernoff:.4}, exact {exact:.4}, anytime {anytime:.4}"
    );
    assert!(
        exact <= 0.8 * chernoff,
        "exact {exact} vs chernoff {chernoff}"
    );
    assert!(
        anytime <= 1.2 * chernoff,
        "anytime {anytime} vs chernoff {chernoff}"
    );
    assert!(anytime > chernoff, "validity at every N costs some width");
}
