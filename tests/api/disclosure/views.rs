//! The model's contract beyond the auditor: an invitation survey's counts move only with
//! `considered_at`, `min_cell` has a floor of 5, unblinding records what its owner could
//! see, and respondents are told, in their language, who sees what.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp, TokenDevice};
use crate::workspace::{signed_in, Browser};

/// The counts an owner of an invitation survey can see, from every view that shows one:
/// the results' n, progress and withheld responses, the workspace's redemption count, and
/// the surveys list.
async fn counts(app: &TestApp, browser: &mut Browser, token: &str, slug: &str) -> (Value, u64) {
    let results = app.results(token, slug).await;
    let page = browser.get_html(&format!("/surveys/{slug}/results")).await;
    let redeemed = page
        .split("Invitations redeemed: <strong>")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .expect("the invitation box")
        .to_owned();
    let list = browser.get_html("/surveys").await;
    let listed = list
        .split("<th scope=\"row\">Counted</th>")
        .nth(1)
        .and_then(|rest| rest.split("<td>").nth(2))
        .and_then(|cell| cell.split('<').next())
        .unwrap_or_default()
        .to_owned();
    (
        json!([
            results["responses"],
            results["progress"],
            results["release"]["withheld_responses"],
            results["release"]["released_responses"],
            redeemed,
            listed,
        ]),
        results["release"]["considered_at"].as_u64().unwrap(),
    )
}

#[tokio::test]
async fn in_an_invitation_survey_every_count_changes_only_when_considered_at_does() {
    let app = spawn_app().await;
    let mut browser = signed_in(&app, "owner@example.org").await;
    let token = deniable::services::accounts::create_token(
        &app.db,
        deniable::domain::Email::parse("owner@example.org").unwrap(),
    )
    .await
    .unwrap();
    let token = token.expose().to_owned();
    let created: Value = app
        .create_survey(
            &token,
            &json!({"title": "Counted", "min_cell": 5, "requires_invitation": true,
                    "target_responses": 40,
                    "questions": [{"text": "Have you?", "epsilon": 1.0}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let question = created["questions"][0]["id"].as_i64().unwrap().to_string();
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    let codes = app.invitations(&token, &slug, 30).await.codes;
    let key = app.public_key(&slug).await;
    let mut waiting = Vec::new();
    let (mut last, mut considered) = counts(&app, &mut browser, &token, &slug).await;
    let mut moves = 0;
    // Redemptions run ahead of responses, then fall behind: every kind of step.
    for (step, code) in codes.iter().enumerate() {
        let device = TokenDevice::new();
        let answer: Value = app
            .redeem(&slug, code, &device.blinded)
            .await
            .json()
            .await
            .unwrap();
        waiting.push(device.finalize(&answer, &key));
        let answering = if step < 12 { step % 2 == 0 } else { true };
        let mut events = vec!["redeemed"];
        if answering {
            events.push("answered");
        }
        for event in events {
            if event == "answered" {
                let bought = waiting.remove(0);
                let sent = app
                    .submit_with_token(&slug, json!({&question: step % 2}), Some(&bought), None)
                    .await;
                assert_eq!(sent.status(), 201);
            }
            let (now, at) = counts(&app, &mut browser, &token, &slug).await;
            if now != last {
                moves += 1;
                assert_ne!(
                    at, considered,
                    "after step {step} ({event}) a count moved without a consideration: \
                     {now} after {last}"
                );
            }
            (last, considered) = (now, at);
        }
    }
    assert!(moves >= 3, "{moves} moves");
}

#[tokio::test]
async fn min_cell_starts_at_five_and_a_survey_stored_with_less_works_with_five() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    for k in [0, 1, 4] {
        let refused = app
            .create_survey(
                &token,
                &json!({"title": "t", "min_cell": k,
                        "questions": [{"text": "Q?", "epsilon": 1.0}]}),
            )
            .await;
        assert_eq!(refused.status(), 400);
        assert_eq!(error_code(refused).await, "invalid_min_cell");
    }
    // A draft of an earlier release, stored with min_cell 1.
    let created: Value = app
        .create_survey(
            &token,
            &json!({"title": "Old", "results_after_close": false, "questions": [
                {"type": "grouping", "text": "Team", "options": ["a", "b"]},
                {"text": "Q?", "epsilon": 1.0}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let stored_slug = slug.clone();
    app.db
        .write(move |connection| {
            connection.execute(
                "UPDATE surveys SET min_cell = 1 WHERE slug = ?1",
                [stored_slug.as_str()],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    let (team, q) = (
        created["questions"][0]["id"].to_string(),
        created["questions"][1]["id"].to_string(),
    );
    // With k = 1 the first three would have been a release (1 + 2); with 5 nothing is
    // shown before the consideration at 10 releases k + 2 = 7 or more.
    for _ in 0..4 {
        app.submit_ok(&slug, json!({&team: 0, &q: 1})).await;
    }
    let results = app.results(&token, &slug).await;
    assert_eq!(
        results["questions"][0]["n"], 0,
        "four responses are fewer than 5"
    );
    for _ in 0..6 {
        app.submit_ok(&slug, json!({&team: 0, &q: 1})).await;
    }
    let results = app.results(&token, &slug).await;
    assert_eq!(results["questions"][0]["n"], 10);
    assert_eq!(results["release"]["considered_at"], 10);
    let definition: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(definition["min_cell"], 5);
    assert_eq!(definition["results_after_close"], false);
}

#[tokio::test]
async fn unblinding_an_invitation_survey_records_the_count_its_owner_could_see() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let created: Value = app
        .create_survey(
            &token,
            &json!({"title": "Blinded", "min_cell": 5, "requires_invitation": true,
                    "results_after_close": false, "target_responses": 100,
                    "questions": [{"text": "Q?", "epsilon": 1.0}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let q = created["questions"][0]["id"].to_string();
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    for code in app.invitations(&token, &slug, 8).await.codes {
        let bought = app.token_for(&slug, &code).await;
        let sent = app
            .submit_with_token(&slug, json!({&q: 1}), Some(&bought), None)
            .await;
        assert_eq!(sent.status(), 201);
    }
    assert_eq!(app.results(&token, &slug).await["responses"], 5);
    let unblinded: Value = app
        .owner_post(&token, &format!("/api/surveys/{slug}/unblind"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        unblinded["unblinded_at_responses"], 5,
        "the count as of the last consideration, not the 8 stored"
    );
}

#[tokio::test]
async fn the_form_says_who_sees_what_beside_the_total_epsilon_in_every_language() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    // Every survey shows its owner totals only (issue 41); with invitations, none before close.
    for (language, after_close, live) in [
        (
            "en",
            "only totals of at least 7 responses, and none before the survey closes",
            "only totals of at least 7 responses;",
        ),
        (
            "de",
            "nur Summen von mindestens 7 Antworten, und keine, bevor die Umfrage schließt",
            "nur Summen von mindestens 7 Antworten;",
        ),
        (
            "fr",
            "que des totaux d'au moins 7 réponses, et aucun avant la clôture",
            "que des totaux d'au moins 7 réponses ;",
        ),
        (
            "es",
            "solo ve totales de al menos 7 respuestas, y ninguno antes de que cierre",
            "solo ve totales de al menos 7 respuestas;",
        ),
    ] {
        for invitations in [true, false] {
            let created: Value = app
                .create_survey(
                    &token,
                    &json!({"title": "t", "language": language, "min_cell": 7,
                            "requires_invitation": invitations,
                            "questions": [{"text": "Q?", "epsilon": 1.0}]}),
                )
                .await
                .json()
                .await
                .unwrap();
            let slug = created["slug"].as_str().unwrap().to_owned();
            app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
                .await;
            let form = app
                .client
                .get(app.url(&format!("/s/{slug}")))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let sentence = form
                .split("id=\"privacy-owner\">")
                .nth(1)
                .and_then(|rest| rest.split("</p>").next())
                .expect("the sentence beside the total ε")
                .replace("&#39;", "'")
                .replace("&#x27;", "'");
            let expected = if invitations { after_close } else { live };
            assert!(sentence.contains(expected), "{language}: {sentence}");
        }
    }
}
