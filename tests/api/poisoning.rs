//! Poisoning: how far m fake reports can move an estimate, and how invitations stop them.
//!
//! Every unbiased value z = (report − q)/r lies in [−q/r, p/r]. With N reports of which m
//! are fake, the estimate is the mean of z, so against the honest reports' estimate π̂ₕ (a
//! proportion in [0, 1]) the fakes move it by (m/N)·(z̄_fake − π̂ₕ), at most
//! (m/N)·max(p/r − 0, 1 + q/r) = p/(2p − 1) · m/N, since 1 + q/r = p/r.

use crate::common::{spawn_app, TestApp, TokenDevice};
use randomized_response::{unbiased_estimate, PrivacyLevel, Tally};
use serde_json::{json, Value};

fn estimate(level: PrivacyLevel, n: u64, reported_yes: u64) -> f64 {
    unbiased_estimate(&[(level, Tally::new(n, reported_yes).unwrap())]).unwrap()
}

fn bound(level: PrivacyLevel, m: u64, total: u64) -> f64 {
    let p = level.truth_probability();
    p / (2.0 * p - 1.0) * m as f64 / total as f64
}

#[test]
fn m_fake_reports_move_an_estimate_by_at_most_p_over_2p_minus_1_times_m_over_n() {
    let mut worst_ratio: f64 = 0.0;
    for epsilon in [0.25, 0.5, 1.0, 3f64.ln(), 2.0, 5.0] {
        let level = PrivacyLevel::new(epsilon).unwrap();
        let (p, q) = (level.truth_probability(), level.lie_probability());
        for honest in [100_u64, 1_000, 10_000] {
            // Honest tallies whose estimate is a proportion, from 0 to 1.
            for truth in [0.0, 0.1, 0.5, 0.9, 1.0] {
                let honest_yes = ((truth * p + (1.0 - truth) * q) * honest as f64).round() as u64;
                let before = estimate(level, honest, honest_yes);
                if !(0.0..=1.0).contains(&before) {
                    continue;
                }
                for fakes in [1_u64, 10, 100, 1_000] {
                    let total = honest + fakes;
                    let limit = bound(level, fakes, total);
                    // The attacker's best: all yes (pushes up) or all no (pushes down).
                    for fake_yes in [fakes, 0] {
                        let after = estimate(level, total, honest_yes + fake_yes);
                        let moved = (after - before).abs();
                        assert!(
                            moved <= limit + 1e-12,
                            "ε {epsilon}, N {total}, m {fakes}: moved {moved} > {limit}"
                        );
                        worst_ratio = worst_ratio.max(moved / limit);
                    }
                }
            }
        }
    }
    // The bound is tight: all-yes fakes against an honest estimate of 0 reach it.
    assert!(
        worst_ratio > 0.999,
        "worst case reached {worst_ratio} of the bound"
    );
}

async fn first_estimate(app: &TestApp, token: &str, slug: &str) -> (u64, f64) {
    let results = app.results(token, slug).await;
    let question = &results["questions"][0];
    (
        question["n"].as_u64().unwrap(),
        question["estimate"].as_f64().unwrap_or(0.0),
    )
}

async fn open_survey_with(app: &TestApp, token: &str, requires_invitation: bool) -> (String, i64) {
    let mut definition = crate::common::survey_definition(&[1.0]);
    definition["requires_invitation"] = json!(requires_invitation);
    // The smallest min_cell, and figures while open (invitation surveys show released
    // responses only: docs/design.md, invariant 11).
    definition["min_cell"] = json!(5);
    definition["results_after_close"] = json!(false);
    let created: Value = app
        .create_survey(token, &definition)
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let id = created["questions"][0]["id"].as_i64().unwrap();
    let opened = app
        .owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (slug, id)
}

#[tokio::test]
async fn fake_submissions_move_an_open_survey_within_the_bound_and_invitations_stop_them() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let level = PrivacyLevel::new(1.0).unwrap();
    let (honest, fakes) = (60_u64, 20_u64);

    // Without invitations: honest reports (alternating), then m fake "yes" reports.
    let (open, id) = open_survey_with(&app, &token, false).await;
    for i in 0..honest {
        app.submit_ok(&open, json!({ id.to_string(): i % 2 })).await;
    }
    let (_, before) = first_estimate(&app, &token, &open).await;
    for _ in 0..fakes {
        app.submit_ok(&open, json!({ id.to_string(): 1 })).await;
    }
    let (n, after) = first_estimate(&app, &token, &open).await;
    assert_eq!(n, honest + fakes);
    let limit = bound(level, fakes, n);
    eprintln!(
        "open survey: {fakes} fakes moved the estimate {before:.4} → {after:.4} (bound {limit:.4})"
    );
    assert!(after > before && after - before <= limit + 1e-12);

    // With invitations: the same attacker, without a token bought by an invitation,
    // stores nothing: no token, a guessed invitation, a made-up token.
    let (closed, id) = open_survey_with(&app, &token, true).await;
    let invitations = app.invitations(&token, &closed, 5).await;
    let fake_answers = json!({ id.to_string(): 1 });
    for fake in 0..fakes {
        let refused = app
            .submit_with_token(&closed, fake_answers.clone(), None, None)
            .await;
        assert_eq!(refused.status(), 403);
        let guessed = format!("{fake:064x}");
        let refused = app
            .redeem(&closed, &guessed, &TokenDevice::new().blinded)
            .await;
        assert_eq!(refused.status(), 403);
        let made_up = json!({
            "input": blind_tokens::to_base64url(&[fake as u8; 32]),
            "output": blind_tokens::to_base64url(&[fake as u8; 64]),
        });
        let refused = app
            .submit_with_token(&closed, fake_answers.clone(), Some(&made_up), None)
            .await;
        assert_eq!(refused.status(), 403);
    }
    let results = app.results(&token, &closed).await;
    assert_eq!(results["questions"][0]["n"], 0, "no fake report was stored");

    // N invitations allow at most N responses: each token buys one, however often sent.
    for code in &invitations.codes {
        let bought = app.token_for(&closed, code).await;
        for attempt in 0..3 {
            let status = app
                .submit_with_token(&closed, fake_answers.clone(), Some(&bought), None)
                .await
                .status();
            assert_eq!(status, if attempt == 0 { 201 } else { 409 });
        }
    }
    app.close(&token, &closed).await;
    let results = app.results(&token, &closed).await;
    assert_eq!(
        results["questions"][0]["n"], 5,
        "five invitations, five responses (released together at close)"
    );
}
