//! The planner: each interval's count is the smallest N whose half-width meets the target.

use randomized_response::{Confidence, Design, NumberDesign, PerRecordEstimator, PrivacyLevel};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

fn confidence(level: f64) -> Confidence {
    Confidence::new(level).unwrap()
}

/// The planner's targets across designs: yes shares, an option's share, a number's mean.
fn estimators() -> Vec<(String, PerRecordEstimator, f64)> {
    let mut all: Vec<(String, PerRecordEstimator, f64)> = [0.5, 1.0, 3f64.ln(), 2.0, 5.0]
        .into_iter()
        .map(|epsilon| {
            let yes = Design::mirrored(level(epsilon))
                .option_estimator(Design::YES)
                .unwrap();
            (format!("mirrored ε = {epsilon:.3}"), yes, 1.0)
        })
        .collect();
    let forced = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    all.push((
        "forced response".to_owned(),
        forced.option_estimator(Design::YES).unwrap(),
        1.0,
    ));
    let choice = Design::k_ary(4, level(1.5)).unwrap();
    all.push((
        "choice of 4".to_owned(),
        choice.option_estimator(2).unwrap(),
        1.0,
    ));
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    all.push(("number 0–30".to_owned(), number.mean_estimator(), 30.0));
    all
}

#[test]
fn each_search_returns_the_first_n_whose_half_width_meets_the_target() {
    for chosen in [confidence(0.95), confidence(0.9), confidence(0.99)] {
        for (name, estimator, range) in estimators() {
            for fraction in [0.05, 0.10] {
                let target = fraction * range;
                let exact = estimator
                    .exact_respondents_needed(target, chosen)
                    .unwrap()
                    .expect("a two-valued target has an exact interval");
                let width = |n| {
                    estimator
                        .widest_exact_half_width(n, chosen)
                        .unwrap()
                        .unwrap()
                };
                assert!(
                    width(exact) <= target && target < width(exact - 1),
                    "{name}, ±{fraction}: exact N = {exact}"
                );
                let anytime = estimator
                    .anytime_respondents_needed(target, chosen)
                    .unwrap();
                let width = |n| estimator.tuned_anytime_half_width(n, chosen).unwrap();
                assert!(
                    width(anytime) <= target && target < width(anytime - 1),
                    "{name}, ±{fraction}: anytime N = {anytime}"
                );
            }
        }
    }
}

#[test]
fn the_half_widths_searched_are_those_the_results_show() {
    let chosen = confidence(0.95);
    let yes = Design::mirrored(level(1.0))
        .option_estimator(Design::YES)
        .unwrap();
    // The anytime interval tuned for the N it is computed at, whatever the counts.
    for (n, reported_yes) in [(1_000_u64, 408_u64), (3_697, 10), (20, 20)] {
        let shown = yes
            .anytime_interval(&[n - reported_yes, reported_yes], chosen, n)
            .unwrap()
            .unwrap();
        let planned = yes.tuned_anytime_half_width(n, chosen).unwrap();
        assert!((shown.half_width() - planned).abs() <= 1e-12 * planned);
    }
    // The exact interval at half the reports yes, its widest among all counts of that N.
    let n = 301_u64;
    let widest = yes.widest_exact_half_width(n, chosen).unwrap().unwrap();
    for reported_yes in 0..=n {
        let interval = yes
            .exact_interval(&[n - reported_yes, reported_yes], chosen)
            .unwrap()
            .unwrap();
        assert!(
            interval.half_width() <= widest + 1e-12,
            "{reported_yes} yes"
        );
    }
    assert_eq!(yes.tuned_anytime_half_width(0, chosen), None);
    let ordinal_mean = Design::k_ary(3, level(1.0)).unwrap().mean_level_estimator();
    assert_eq!(ordinal_mean.exact_respondents_needed(0.1, chosen), Ok(None));
}

#[test]
fn chernoff_asks_for_more_than_the_exact_interval_and_fewer_than_the_anytime_one() {
    // Issue 32: the builder's count was Chernoff's, 1.8–1.9× the exact interval's and
    // 0.67–0.80× the anytime one's.
    let chosen = confidence(0.95);
    for (name, estimator, range) in estimators() {
        let target = 0.05 * range;
        let chernoff = estimator.respondents_needed(target, chosen).unwrap() as f64;
        let exact = estimator
            .exact_respondents_needed(target, chosen)
            .unwrap()
            .unwrap() as f64;
        let anytime = estimator
            .anytime_respondents_needed(target, chosen)
            .unwrap() as f64;
        println!(
            "{name}, ±5 % at 95 %: exact {exact}, Chernoff {chernoff} ({:.2}× exact), anytime \
             {anytime} (Chernoff {:.2}× it)",
            chernoff / exact,
            chernoff / anytime
        );
        assert!(exact < chernoff && chernoff < anytime, "{name}");
        assert!((1.5..=2.0).contains(&(chernoff / exact)), "{name}");
        assert!((0.75..=0.85).contains(&(chernoff / anytime)), "{name}");
    }
}
