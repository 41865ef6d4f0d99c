//! The two ways to run a survey (docs/design.md, "Which interval is primary"): watched live,
//! with the anytime interval primary however it closes; and fixed in advance, blinded while
//! open, closed by its own rule, then led by the exact interval — unless unblinded early,
//! which is recorded and makes the anytime interval primary for good.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};

/// k = 5: released with 7 new responses at a consideration while open, with 5 at close.
fn definition(rule: Value) -> Value {
    let mut definition = json!({
        "title": "Exam honesty",
        "min_cell": 5,
        "questions": [
            {"text": "Have you ever cheated on an exam?", "epsilon": 1.0},
            {"text": "How often?", "type": "ordinal", "epsilon": 1.0,
             "options": ["Never", "Once", "Often"]},
        ],
    });
    for (key, value) in rule.as_object().unwrap() {
        definition[key] = value.clone();
    }
    definition
}

/// A researcher's open survey with this stopping rule; its slug and question ids.
async fn open_with(app: &TestApp, token: &str, rule: Value) -> (String, Vec<i64>) {
    let created = app.create_survey(token, &definition(rule)).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let ids = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (slug, ids)
}

async fn answer(app: &TestApp, slug: &str, ids: &[i64], yes: u8) -> reqwest::Response {
    app.submit(
        slug,
        json!({ ids[0].to_string(): yes, ids[1].to_string(): 1 }),
    )
    .await
}

/// Every figure computed from the reports, as a list of (where, value).
fn figures(results: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for question in results["questions"].as_array().unwrap() {
        let id = &question["id"];
        for field in ["reported_yes", "estimate", "estimate_clipped", "primary"] {
            found.push((format!("{id}.{field}"), question[field].clone()));
        }
        for kind in ["chernoff", "exact", "anytime"] {
            found.push((format!("{id}.{kind}"), question["intervals"][kind].clone()));
        }
        for option in question["options"].as_array().into_iter().flatten() {
            for field in ["reported", "estimate", "estimate_clipped", "primary"] {
                found.push((format!("{id}.option.{field}"), option[field].clone()));
            }
            for kind in ["chernoff", "exact", "anytime"] {
                found.push((
                    format!("{id}.option.{kind}"),
                    option["intervals"][kind].clone(),
                ));
            }
        }
        if let Some(mean) = question["mean"].as_object() {
            for field in ["estimate", "estimate_clipped", "primary"] {
                found.push((format!("{id}.mean.{field}"), mean[field].clone()));
            }
        }
    }
    found
}

#[tokio::test]
async fn a_survey_watched_live_leads_with_the_anytime_interval_open_and_after_closing() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open_with(&app, &token, json!({})).await;
    // Ten: a release at the consideration at 10.
    for yes in [1, 0, 1, 1, 0, 1, 0, 0, 1, 1] {
        assert_eq!(answer(&app, &slug, &ids, yes).await.status(), 201);
    }
    for phase in ["open", "closed"] {
        let results = app.results(&token, &slug).await;
        assert_eq!(results["status"], phase);
        assert_eq!(results["plan"], "watched_live");
        assert_eq!(results["blinded"], false);
        assert_eq!(results["primary"], "anytime");
        assert_eq!(results["questions"][0]["primary"], "anytime");
        assert_eq!(results["questions"][1]["options"][0]["primary"], "anytime");
        assert_eq!(results["questions"][1]["mean"]["primary"], "anytime");
        // Chernoff stays as the distribution-free guarantee.
        assert!(results["questions"][0]["intervals"]["chernoff"]["low"].is_f64());
        if phase == "open" {
            app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
                .await;
        }
    }
}

#[tokio::test]
async fn a_survey_fixed_by_a_target_is_blinded_then_closes_itself_at_the_target_and_leads_with_exact(
) {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open_with(&app, &token, json!({"target_responses": 5})).await;

    for (sent, yes) in [1, 0, 1, 0].into_iter().enumerate() {
        assert_eq!(answer(&app, &slug, &ids, yes).await.status(), 201);
        let results = app.results(&token, &slug).await;
        assert_eq!(
            results["blinded"],
            true,
            "blinded after {} responses",
            sent + 1
        );
        assert_eq!(results["responses"], sent + 1, "the count stays visible");
        assert_eq!(
            results["questions"][0]["n"], 0,
            "nothing released before close"
        );
        for (place, value) in figures(&results) {
            assert!(value.is_null(), "{place} is {value} while blinded");
        }
        let progress = results["progress"].as_f64().unwrap();
        assert!((progress - (sent + 1) as f64 / 5.0).abs() < 1e-12);
        // The export is refused while blinded.
        for format in ["csv", "ndjson"] {
            let export = app
                .owner_get(&token, &format!("/api/surveys/{slug}/export.{format}"))
                .await;
            assert_eq!(export.status(), 409);
            assert_eq!(error_code(export).await, "blinded");
        }
    }

    // The fifth response reaches the target: it is accepted, and it is the last one.
    assert_eq!(answer(&app, &slug, &ids, 1).await.status(), 201);
    let refused = answer(&app, &slug, &ids, 1).await;
    assert_eq!(refused.status(), 409);
    assert_eq!(error_code(refused).await, "survey_not_open");

    let results = app.results(&token, &slug).await;
    assert_eq!(results["status"], "closed");
    assert_eq!(results["blinded"], false);
    assert_eq!(results["responses"], 5);
    assert_eq!(results["primary"], "exact");
    assert_eq!(results["questions"][0]["primary"], "exact");
    assert_eq!(results["questions"][0]["reported_yes"], 3);
    assert_eq!(results["questions"][1]["options"][2]["primary"], "exact");
    // An ordinal mean has no exact interval: Chernoff leads there.
    assert_eq!(results["questions"][1]["mean"]["primary"], "chernoff");
    let export = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.csv"))
        .await;
    assert_eq!(export.status(), 200);
}

#[tokio::test]
async fn a_survey_fixed_by_a_closing_time_closes_on_time_without_any_traffic() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let closes_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 2;
    let closes_at = format_utc(closes_at);
    let (slug, ids) = open_with(&app, &token, json!({"closes_at": closes_at})).await;
    // Five (k): one release at close.
    for _ in 0..5 {
        assert_eq!(answer(&app, &slug, &ids, 1).await.status(), 201);
    }
    let results = app.results(&token, &slug).await;
    assert_eq!(results["closes_at"], closes_at.as_str());
    assert_eq!(results["blinded"], true);

    // Nobody responds; the writer's timer closes it.
    tokio::time::sleep(std::time::Duration::from_millis(3_500)).await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["status"], "closed", "closed by the timer");
    assert_eq!(results["primary"], "exact");
    assert_eq!(results["questions"][0]["reported_yes"], 5);
    let late = answer(&app, &slug, &ids, 0).await;
    assert_eq!(late.status(), 409);
}

#[tokio::test]
async fn a_closing_time_must_lie_ahead_when_the_survey_is_created() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    for (rule, code) in [
        (
            json!({"closes_at": "2001-01-01T00:00:00Z"}),
            "invalid_closes_at",
        ),
        (
            json!({"closes_at": "2099-01-01T00:00:00+02:00"}),
            "invalid_closes_at",
        ),
        (json!({"target_responses": 0}), "invalid_target_responses"),
    ] {
        let created = app.create_survey(&token, &definition(rule.clone())).await;
        assert_eq!(created.status(), 400, "{rule}");
        assert_eq!(error_code(created).await, code, "{rule}");
    }
}

#[tokio::test]
async fn unblinding_early_is_recorded_and_makes_the_anytime_interval_primary_for_good() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open_with(&app, &token, json!({"target_responses": 100})).await;
    // Ten: a release at the consideration at 10.
    for yes in [1, 1, 0, 1, 1, 1, 0, 1, 0, 1] {
        assert_eq!(answer(&app, &slug, &ids, yes).await.status(), 201);
    }
    let unblinded = app
        .owner_post(&token, &format!("/api/surveys/{slug}/unblind"))
        .await;
    assert_eq!(unblinded.status(), 200);
    let body: Value = unblinded.json().await.unwrap();
    assert_eq!(body["unblinded_at_responses"], 10);

    let results = app.results(&token, &slug).await;
    assert_eq!(results["blinded"], false);
    assert_eq!(results["unblinded_at_responses"], 10);
    assert_eq!(results["primary"], "anytime");
    assert_eq!(results["questions"][0]["reported_yes"], 7);

    // Closing does not bring the exact interval back, and neither does a second request.
    assert_eq!(
        app.owner_post(&token, &format!("/api/surveys/{slug}/unblind"))
            .await
            .status(),
        200
    );
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["status"], "closed");
    assert_eq!(results["primary"], "anytime");
    assert_eq!(results["questions"][0]["primary"], "anytime");
    assert_eq!(results["questions"][1]["mean"]["primary"], "anytime");
    assert_eq!(results["unblinded_at_responses"], 10);

    // The codebook records it too.
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(codebook["survey"]["plan"], "fixed_in_advance");
    assert_eq!(codebook["survey"]["target_responses"], 100);
    assert_eq!(codebook["survey"]["unblinded_at_responses"], 10);
    assert!(codebook["survey"]["primary_interval"]
        .as_str()
        .unwrap()
        .contains("Unblinded at 10 responses"));
}

#[tokio::test]
async fn only_a_blinded_survey_can_be_unblinded() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (live, _) = open_with(&app, &token, json!({})).await;
    let refused = app
        .owner_post(&token, &format!("/api/surveys/{live}/unblind"))
        .await;
    assert_eq!(refused.status(), 409);
    assert_eq!(error_code(refused).await, "not_blinded");
}

#[tokio::test]
async fn the_stopping_rule_and_min_cell_are_frozen_once_the_survey_opens() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, _) = open_with(&app, &token, json!({"target_responses": 50})).await;
    for change in [
        "target_responses = 5",
        "target_responses = NULL",
        "closes_at = 4102444800",
        "min_cell = 1",
    ] {
        let error = app
            .execute_sql(format!("UPDATE surveys SET {change} WHERE slug = '{slug}'"))
            .await
            .unwrap_err();
        assert!(error.contains("cannot change"), "{change}: {error}");
    }
    app.execute_sql(format!(
        "UPDATE surveys SET unblinded_at_responses = 0 WHERE slug = '{slug}'"
    ))
    .await
    .unwrap();
    let error = app
        .execute_sql(format!(
            "UPDATE surveys SET unblinded_at_responses = NULL WHERE slug = '{slug}'"
        ))
        .await
        .unwrap_err();
    assert!(error.contains("for good"), "{error}");
}

/// Unix seconds as RFC 3339 UTC.
fn format_utc(seconds: u64) -> String {
    deniable::domain::ClosingTime::from_unix(i64::try_from(seconds).unwrap()).to_string()
}
