//! End to end: 10 000 simulated devices, and the estimates cover the known truths.

use std::time::Instant;

use crate::common::spawn_app;
use deniable::simulate::{simulate, SimulationPlan};
use indicatif::ProgressBar;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_simulated_respondents_are_estimated_within_every_chernoff_interval() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_survey(&[0.5, 3f64.ln(), 2.0]).await;
    let plan = SimulationPlan {
        base_url: app.address.clone(),
        survey: slug,
        respondents: 10_000,
        truths: vec![0.3, 0.1, 0.05],
        concurrency: 32,
        seed: 42,
        token: Some(token),
    };

    let started = Instant::now();
    let outcome = simulate(&plan, &ProgressBar::hidden())
        .await
        .expect("the simulation runs");
    eprintln!(
        "10 000 respondents simulated in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    assert_eq!(outcome.submitted, 10_000);
    let results = outcome
        .results
        .expect("results were fetched with the token");
    for (question, truth) in outcome.questions.iter().zip(&plan.truths) {
        assert_eq!(question.true_yes, (truth * 10_000.0).round() as usize);
        let found = results
            .questions
            .iter()
            .find(|q| q.id == question.id)
            .unwrap();
        assert_eq!(found.n, 10_000);
        let chernoff = found.intervals.chernoff.expect("an interval with data");
        assert!(
            chernoff.contains(question.true_proportion),
            "question {}: truth {} outside [{}, {}] (estimate {:?})",
            question.id,
            question.true_proportion,
            chernoff.low,
            chernoff.high,
            found.estimate
        );
    }
}
