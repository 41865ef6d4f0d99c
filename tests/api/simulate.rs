//! `deniable simulate` end to end: simulated devices answer through HTTP with known truths
//! (the 10 000-device proof of every type is `designs.rs`).

use std::time::Instant;

use crate::common::{spawn_app, spawn_app_with, test_settings};
use deniable::simulate::{
    simulate, simulate_on, MailMerge, SimulationPlan, SimulationTarget, Truth,
};
use indicatif::ProgressBar;
use serde_json::{json, Value};

fn plan(base_url: &str, survey: &str, respondents: usize, truths: Vec<Truth>) -> SimulationPlan {
    SimulationPlan {
        base_url: base_url.to_owned(),
        survey: survey.to_owned(),
        respondents,
        truths,
        concurrency: 16,
        seed: 42,
        reproducible: true,
        confidence: 0.95,
        token: None,
        invitations: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_release_survey_is_simulated_and_every_yes_share_is_covered() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_survey(&[0.5, 3f64.ln(), 2.0]).await;
    let truths = [0.3, 0.1, 0.05];
    let plan = SimulationPlan {
        token: Some(token),
        // Bonferroni over the three questions; the coins come from the seed.
        confidence: 1.0 - 0.05 / 3.0,
        ..plan(
            &app.address,
            &slug,
            2_000,
            truths.iter().map(|&t| Truth::Yes(t)).collect(),
        )
    };

    let started = Instant::now();
    let outcome = simulate(&plan, &ProgressBar::hidden())
        .await
        .expect("the simulation runs");
    eprintln!(
        "2 000 respondents simulated in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    assert_eq!(outcome.submitted, 2_000);
    for (question, truth) in outcome.questions.iter().zip(truths) {
        assert_eq!(question.targets.len(), 1);
        assert_eq!(question.targets[0].name, "yes");
        assert_eq!(question.targets[0].truth, truth);
    }
    let checks = outcome.checks();
    assert_eq!(checks.len(), 3);
    for check in &checks {
        assert_eq!(check.intervals.len(), 3, "chernoff, exact and anytime");
        assert!(
            check.misses().is_empty(),
            "question {}: truth {} missed by {:?} (estimate {:?})",
            check.question_id,
            check.truth,
            check.misses(),
            check.estimate
        );
    }
}

/// The results' counts of every question: what the reports were.
fn counts(results: &Value) -> Vec<Value> {
    results["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            json!({
                "n": q["n"],
                "reported_yes": q["reported_yes"],
                "options": q["options"].as_array().map(|options| {
                    options.iter().map(|o| o["reported"].clone()).collect::<Vec<_>>()
                }),
                "mean": q["mean"]["estimate"],
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reproducible_run_sends_the_same_reports_to_another_server() {
    let definition = json!({"title": "Mixed", "questions": [
        {"text": "Yes?", "design": "unrelated_question", "answer_truthfully": 0.7,
         "innocuous_yes": 0.4},
        {"text": "Which?", "type": "choice", "options": ["a", "b", "c"], "epsilon": 1},
        {"text": "How many?", "type": "number", "min": -5, "max": 5, "epsilon": 1},
    ]});
    let truths = vec![
        Truth::Yes(0.5),
        Truth::Options(vec![0.2, 0.3, 0.5]),
        Truth::Values(vec![(-5.0, 0.5), (2.5, 0.5)]),
    ];
    let mut seen = Vec::new();
    for _ in 0..2 {
        let app = spawn_app().await;
        let token = app.researcher_with_token("owner@example.org").await;
        let created = app.create_survey(&token, &definition).await;
        assert_eq!(created.status(), 201);
        let slug = created.json::<Value>().await.unwrap()["slug"]
            .as_str()
            .unwrap()
            .to_owned();
        app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
            .await;
        let plan = plan(&app.address, &slug, 300, truths.clone());
        let outcome = simulate(&plan, &ProgressBar::hidden()).await.unwrap();
        assert_eq!(outcome.submitted, 300);
        seen.push(counts(&app.results(&token, &slug).await));
    }
    assert_eq!(seen[0], seen[1], "other nonces, the same reports");
}

#[tokio::test]
async fn a_truth_that_does_not_fit_its_question_is_refused_before_anything_is_sent() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "T", "questions": [
        {"text": "How many?", "type": "number", "min": 0, "max": 30, "epsilon": 1}
    ]});
    let created = app.create_survey(&token, &definition).await;
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    for (truth, expected) in [
        (Truth::Yes(0.5), "value:share"),
        (Truth::Values(vec![(40.0, 1.0)]), "outside"),
    ] {
        let error = simulate(
            &plan(&app.address, &slug, 10, vec![truth]),
            &ProgressBar::hidden(),
        )
        .await
        .unwrap_err();
        assert!(error.to_string().contains(expected), "{error}");
    }
    let too_many = plan(&app.address, &slug, 10, vec![Truth::Yes(0.5); 2]);
    let error = simulate(&too_many, &ProgressBar::hidden())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("1 questions but 2"), "{error}");
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_survey_is_simulated_in_two_steps_one_invitation_per_device() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[2.0]).await;
    let csv = app
        .request_invitations(&token, &slug, json!(60))
        .await
        .text()
        .await
        .unwrap();
    let invitations = MailMerge::parse(&csv).expect("the mail merge's CSV");
    let truths = vec![Truth::Yes(0.5)];

    // Without the invitations, or with fewer than respondents: refused before anything.
    let error = simulate(
        &plan(&app.address, &slug, 50, truths.clone()),
        &ProgressBar::hidden(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("--invitations"), "{error}");
    let mut short = invitations.clone();
    short.codes.truncate(10);
    let error = simulate(
        &SimulationPlan {
            invitations: Some(short),
            ..plan(&app.address, &slug, 50, truths.clone())
        },
        &ProgressBar::hidden(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("one each"), "{error}");
    // A key other than the links' is refused, as the form refuses it.
    let mut other_key = invitations.clone();
    other_key.fingerprint = "0".repeat(64);
    let error = simulate(
        &SimulationPlan {
            invitations: Some(other_key),
            ..plan(&app.address, &slug, 50, truths.clone())
        },
        &ProgressBar::hidden(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("fingerprint"), "{error}");

    let outcome = simulate(
        &SimulationPlan {
            invitations: Some(invitations),
            token: Some(token.clone()),
            ..plan(&app.address, &slug, 50, truths)
        },
        &ProgressBar::hidden(),
    )
    .await
    .expect("the simulation runs");
    assert_eq!(outcome.submitted, 50);
    // Released responses only (docs/design.md, invariant 11): once closed, every one is
    // counted, released or withheld.
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 50);
    assert_eq!(
        results["questions"][0]["n"].as_u64().unwrap()
            + results["release"]["withheld_responses"].as_u64().unwrap(),
        50
    );
    let redeemed: i64 = app.stored_value("SELECT count(*) FROM redemptions").await;
    assert_eq!(redeemed, 50, "one redemption per device");
}

/// A survey with a grouping question first and a yes/no question second, opened.
async fn open_grouped(app: &crate::common::TestApp, token: &str) -> String {
    let created = app
        .create_survey(
            token,
            &json!({"title": "Sport", "min_cell": 5, "questions": [
                {"type": "grouping", "text": "Which sport do you compete in?",
                 "options": ["Rowing", "Judo"]},
                {"text": "Have you doped?", "epsilon": 1.0},
            ]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    app.owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    slug
}

#[tokio::test]
async fn the_command_refuses_an_existing_survey_other_than_the_demo_before_storing_anything() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_survey(&[1.0]).await;
    let address = app.address.clone();
    let refused = slug.clone();
    let output = tokio::task::spawn_blocking(move || {
        crate::cli::deniable(
            &[
                "simulate", "--url", &address, "--survey", &refused, "--truth", "0.3",
            ],
            "",
        )
    })
    .await
    .unwrap();
    assert!(!output.status.success(), "{output:?}");
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains(&format!("simulate does not write to survey {slug}"))
            && error.contains(&format!("--new-survey --from-survey {slug}")),
        "{error}"
    );
    assert_eq!(app.results(&token, &slug).await["responses"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_survey_from_a_definition_is_created_opened_and_simulated() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "Fresh", "questions": [
        {"text": "Yes?", "epsilon": 2.0},
    ]});
    let plan = SimulationPlan {
        token: Some(token.clone()),
        ..plan(&app.address, "ignored", 40, vec![Truth::Yes(0.5)])
    };
    let (slug, outcome) = simulate_on(
        &SimulationTarget::NewSurvey(definition),
        &plan,
        &ProgressBar::hidden(),
    )
    .await
    .expect("the simulation runs");
    assert_eq!(outcome.submitted, 40);
    assert_ne!(slug, "demo");
    let results = app.results(&token, &slug).await;
    assert_eq!(results["title"], "Fresh");
    assert_eq!(results["responses"], 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_leaves_the_original_untouched_and_numbers_questions_as_the_form_does() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let original = open_grouped(&app, &token).await;
    let plan = SimulationPlan {
        token: Some(token.clone()),
        ..plan(
            &app.address,
            "ignored",
            20,
            vec![Truth::Options(vec![0.5, 0.5]), Truth::Yes(0.3)],
        )
    };
    let (copy, outcome) = simulate_on(
        &SimulationTarget::CopyOf(original.clone()),
        &plan,
        &ProgressBar::hidden(),
    )
    .await
    .expect("the simulation runs");
    assert_ne!(copy, original);
    assert_eq!(outcome.submitted, 20);
    assert_eq!(
        outcome.questions[0].number, 2,
        "the yes/no question is the form's second, after the grouping question"
    );
    assert_eq!(app.results(&token, &original).await["responses"], 0);
    assert_eq!(app.results(&token, &copy).await["responses"], 20);
}

#[tokio::test]
async fn a_new_survey_without_the_owners_token_is_refused_before_anything_is_created() {
    let app = spawn_app().await;
    let error = simulate_on(
        &SimulationTarget::NewSurvey(
            json!({"title": "T", "questions": [{"text": "Q", "epsilon": 1}]}),
        ),
        &plan(&app.address, "ignored", 10, vec![Truth::Yes(0.5)]),
        &ProgressBar::hidden(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("--token"), "{error}");
    assert_eq!(error.stored(), None, "nothing was sent");
}

#[tokio::test]
async fn an_error_after_sending_says_how_many_responses_were_stored_and_where() {
    let mut settings = test_settings();
    settings.submissions_per_minute = std::num::NonZeroU32::new(12);
    let app = spawn_app_with(settings).await;
    let plan = SimulationPlan {
        concurrency: 1,
        ..plan(&app.address, "demo", 30, vec![Truth::Yes(0.5); 3])
    };
    let error = simulate_on(&SimulationTarget::Demo, &plan, &ProgressBar::hidden())
        .await
        .unwrap_err();
    assert_eq!(
        error.stored(),
        Some(12),
        "the allowance, one device at a time"
    );
    let message = error.to_string();
    assert!(message.contains("rate-limits submissions"), "{message}");
    assert!(
        message.contains("12 simulated responses were stored in the demo survey before this error"),
        "{message}"
    );
}
