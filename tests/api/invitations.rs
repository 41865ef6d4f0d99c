//! Invitations (issue 20): single-use codes that buy a blind token in one request
//! (`POST …/redemptions`), the token spent with the response in another. The same
//! guarantees as before (one response per invitation, nothing stored joins an invitation to
//! a response), now without the two ever meeting in one request or one transaction.

use std::process::{Child, Command, Stdio};

use crate::common::{
    error_code, receipt_and_response_id, serving_address, spawn_app, TestApp, TokenDevice,
};
use futures_util::future::join_all;
use serde_json::{json, Value};

pub(crate) fn answers(ids: &[i64]) -> Value {
    json!({ ids[0].to_string(): 1, ids[1].to_string(): 0 })
}

pub(crate) async fn count(app: &TestApp, table: &str) -> i64 {
    app.stored_value(format!("SELECT count(*) FROM {table}"))
        .await
}

pub(crate) async fn definition(app: &TestApp, slug: &str) -> Value {
    app.client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_owner_gets_single_use_links_that_pin_one_key_and_only_hashes_are_stored() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let first = app.invitations(&token, &slug, 5).await;
    let second = app.invitations(&token, &slug, 2).await;
    assert_eq!(first.codes.len(), 5);
    assert_eq!(
        first.fingerprint, second.fingerprint,
        "every link of a survey pins the same key"
    );
    assert_eq!(count(&app, "invitations").await, 7);
    let stored: Vec<Vec<u8>> = app.stored_column("SELECT code_hash FROM invitations").await;
    for code in &first.codes {
        assert!(stored
            .iter()
            .all(|hash| hash.len() == 32 && hash != code.as_bytes()));
    }
    // The anonymous definition publishes the key whose fingerprint the links carry.
    let published = definition(&app, &slug).await;
    assert_eq!(published["requires_invitation"], true);
    let key = &published["invitation_key"];
    assert_eq!(key["fingerprint"], first.fingerprint.as_str());
    let public_key = blind_tokens::from_base64url(key["public_key"].as_str().unwrap()).unwrap();
    assert_eq!(public_key.len(), 32);
    let digest = ring::digest::digest(&ring::digest::SHA256, &public_key);
    assert_eq!(hex::encode(digest.as_ref()), first.fingerprint);
    // A survey anyone can answer has no key to publish.
    let (open_to_all, _) = app.draft_survey(&token, &[1.0]).await;
    app.owner_post(&token, &format!("/api/surveys/{open_to_all}/open"))
        .await;
    assert!(definition(&app, &open_to_all)
        .await
        .get("invitation_key")
        .is_none());
    // A token sent there is ignored, but a malformed one is refused like any malformed body.
    let id = definition(&app, &open_to_all).await["questions"][0]["id"]
        .as_i64()
        .unwrap();
    let malformed = json!({"input": "AAAA", "output": "AAAA"});
    let response = app
        .submit_with_token(
            &open_to_all,
            json!({ id.to_string(): 1 }),
            Some(&malformed),
            None,
        )
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "invalid_token");
}

#[tokio::test]
async fn a_redemption_uses_the_invitation_up_and_a_retry_gets_the_same_bytes() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let invitations = app.invitations(&token, &slug, 2).await;
    let code = &invitations.codes[0];
    let device = TokenDevice::new();

    // Malformed: 400, and the invitation is not used.
    for blinded in ["", "AAAA", &"A".repeat(44), "not base64url!!"] {
        let response = app.redeem(&slug, code, blinded).await;
        assert_eq!(response.status(), 400, "{blinded:?}");
        assert_eq!(error_code(response).await, "invalid_blinded");
    }
    let identity = blind_tokens::to_base64url(&[0; 32]);
    let response = app.redeem(&slug, code, &identity).await;
    assert_eq!(
        response.status(),
        400,
        "the identity is no element to evaluate"
    );
    for body in [
        json!({"invitation": code}),
        json!({"invitation": code, "blinded": device.blinded, "extra": 1}),
        json!({"invitation": 5, "blinded": device.blinded}),
    ] {
        let response = app
            .client
            .post(app.url(&format!("/api/surveys/{slug}/redemptions")))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
    }
    assert_eq!(
        count(&app, "invitations").await,
        2,
        "nothing was used up so far"
    );

    // Unknown: 403.
    for unknown in ["not-a-code", &"a".repeat(64)] {
        let response = app.redeem(&slug, unknown, &device.blinded).await;
        assert_eq!(response.status(), 403);
        assert_eq!(error_code(response).await, "invitation_invalid");
    }

    // The first redemption, then its retry: the same bytes (the proof is fresh at every
    // evaluation, so the server answers from what it stored).
    let first = app.redeem(&slug, code, &device.blinded).await;
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "no-store");
    let first: Value = first.json().await.unwrap();
    for _ in 0..3 {
        let again = app.redeem(&slug, code, &device.blinded).await;
        assert_eq!(again.status(), 200);
        assert_eq!(again.json::<Value>().await.unwrap(), first);
    }
    let token_value = device.finalize(&first, &app.public_key(&slug).await);
    assert_eq!(token_value["input"].as_str().unwrap().len(), 43);

    // Another blinded element for the used invitation: 409.
    let other = TokenDevice::new();
    let response = app.redeem(&slug, code, &other.blinded).await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "invitation_used");

    assert_eq!(
        count(&app, "invitations").await,
        1,
        "the used invitation left the unused ones"
    );
    assert_eq!(count(&app, "redemptions").await, 1);
    let stored: (Vec<u8>, Vec<u8>) = (
        app.stored_value("SELECT blinded FROM redemptions").await,
        app.stored_value("SELECT evaluation FROM redemptions").await,
    );
    assert_eq!(
        blind_tokens::to_base64url(&stored.0),
        device.blinded,
        "the blinded element is kept with the used invitation"
    );
    assert_eq!(
        blind_tokens::to_base64url(&stored.1),
        first["evaluation"].as_str().unwrap()
    );

    // An invitation of one survey redeems nothing in another.
    let mut other_survey = crate::common::survey_definition(&[1.0]);
    other_survey["requires_invitation"] = json!(true);
    let created: Value = app
        .create_survey(&token, &other_survey)
        .await
        .json()
        .await
        .unwrap();
    let elsewhere = created["slug"].as_str().unwrap().to_owned();
    app.owner_post(&token, &format!("/api/surveys/{elsewhere}/open"))
        .await;
    let response = app
        .redeem(
            &elsewhere,
            &invitations.codes[1],
            &TokenDevice::new().blinded,
        )
        .await;
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn a_response_needs_a_token_its_survey_issued_and_spends_it_once() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let invitations = app.invitations(&token, &slug, 2).await;
    let bought = app.token_for(&slug, &invitations.codes[0]).await;

    let without = app
        .submit_with_token(&slug, answers(&ids), None, None)
        .await;
    assert_eq!(without.status(), 403);
    assert_eq!(error_code(without).await, "invitation_required");

    // The old path is gone: an invitation in the response body is an unknown field.
    let old = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/responses")))
        .json(&json!({"answers": answers(&ids), "invitation": invitations.codes[1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 400);

    // Tokens the survey's key did not issue: 403; malformed ones: 400.
    let mut forged = bought.clone();
    let mut output = blind_tokens::from_base64url(forged["output"].as_str().unwrap()).unwrap();
    output[0] ^= 1;
    forged["output"] = json!(blind_tokens::to_base64url(&output));
    let other_input =
        json!({"input": blind_tokens::to_base64url(&[9; 32]), "output": bought["output"]});
    for invalid in [&forged, &other_input] {
        let response = app
            .submit_with_token(&slug, answers(&ids), Some(invalid), None)
            .await;
        assert_eq!(response.status(), 403);
        assert_eq!(error_code(response).await, "token_invalid");
    }
    for malformed in [
        json!({"input": "AAAA", "output": bought["output"]}),
        json!({"input": bought["input"]}),
        json!("a token"),
    ] {
        let response = app
            .submit_with_token(&slug, answers(&ids), Some(&malformed), None)
            .await;
        assert_eq!(response.status(), 400, "{malformed}");
    }
    assert_eq!(count(&app, "all_responses").await, 0);
    assert_eq!(count(&app, "spent_tokens").await, 0);

    // Spent once; the same body again is the idempotent 200; the token with another
    // response is a 409.
    let (_, response_id) = receipt_and_response_id();
    let stored = app
        .submit_with_token(&slug, answers(&ids), Some(&bought), Some(&response_id))
        .await;
    assert_eq!(stored.status(), 201);
    let retry = app
        .submit_with_token(&slug, answers(&ids), Some(&bought), Some(&response_id))
        .await;
    assert_eq!(retry.status(), 200, "a retry of the stored response");
    let (_, another_id) = receipt_and_response_id();
    let again = app
        .submit_with_token(&slug, answers(&ids), Some(&bought), Some(&another_id))
        .await;
    assert_eq!(again.status(), 409);
    assert_eq!(error_code(again).await, "token_spent");
    let other_reports = json!({ ids[0].to_string(): 0, ids[1].to_string(): 0 });
    let conflicting = app
        .submit_with_token(&slug, other_reports, Some(&bought), Some(&response_id))
        .await;
    assert_eq!(conflicting.status(), 409);
    assert_eq!(error_code(conflicting).await, "response_id_conflict");

    assert_eq!(count(&app, "all_responses").await, 1);
    assert_eq!(count(&app, "spent_tokens").await, 1);
    // One response is fewer than k: its owner sees it counted once closed, and withheld.
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 1);
    assert_eq!(results["release"]["withheld_responses"], 1);
}

#[tokio::test]
async fn an_invalid_submission_does_not_spend_its_token() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let code = app.invitations(&token, &slug, 1).await.codes.remove(0);
    let bought = app.token_for(&slug, &code).await;
    let incomplete = app
        .submit_with_token(&slug, json!({ ids[0].to_string(): 1 }), Some(&bought), None)
        .await;
    assert_eq!(incomplete.status(), 400);
    assert_eq!(count(&app, "spent_tokens").await, 0);
    let stored = app
        .submit_with_token(&slug, answers(&ids), Some(&bought), None)
        .await;
    assert_eq!(stored.status(), 201);
}

#[tokio::test]
async fn a_hundred_concurrent_spends_of_one_token_store_exactly_one_response() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let code = app.invitations(&token, &slug, 1).await.codes.remove(0);
    let bought = app.token_for(&slug, &code).await;

    // Each spend with its own response id: one response, 99 refusals.
    let statuses: Vec<u16> = join_all((0..100).map(|_| async {
        let (_, response_id) = receipt_and_response_id();
        app.submit_with_token(&slug, answers(&ids), Some(&bought), Some(&response_id))
            .await
            .status()
            .as_u16()
    }))
    .await;
    let stored = statuses.iter().filter(|&&s| s == 201).count();
    let refused = statuses.iter().filter(|&&s| s == 409).count();
    eprintln!("token race: {stored} stored, {refused} refused (token_spent) of 100");
    assert_eq!((stored, refused), (1, 99));
    assert_eq!(count(&app, "all_responses").await, 1);
    assert_eq!(count(&app, "spent_tokens").await, 1);
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 1, "the counts count one response");
    assert_eq!(results["release"]["withheld_responses"], 1);
}

#[tokio::test]
async fn a_hundred_concurrent_redemptions_of_one_invitation_answer_one_evaluation() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let code = app.invitations(&token, &slug, 1).await.codes.remove(0);
    let devices: Vec<TokenDevice> = (0..100).map(|_| TokenDevice::new()).collect();
    let answers: Vec<(u16, Option<Value>)> = join_all(devices.iter().map(|device| async {
        let response = app.redeem(&slug, &code, &device.blinded).await;
        let status = response.status().as_u16();
        (
            status,
            (status == 200).then_some(response.json().await.unwrap()),
        )
    }))
    .await;
    let redeemed = answers.iter().filter(|(s, _)| *s == 200).count();
    let used = answers.iter().filter(|(s, _)| *s == 409).count();
    eprintln!("redemption race: {redeemed} evaluated, {used} refused (invitation_used) of 100");
    assert_eq!((redeemed, used), (1, 99));
    assert_eq!(count(&app, "redemptions").await, 1);
    assert_eq!(count(&app, "invitations").await, 0);
    // The one answered is the one stored.
    let (index, answer) = answers
        .iter()
        .enumerate()
        .find_map(|(i, (_, answer))| answer.as_ref().map(|a| (i, a.clone())))
        .unwrap();
    let again = app.redeem(&slug, &code, &devices[index].blinded).await;
    assert_eq!(again.json::<Value>().await.unwrap(), answer);

    // 100 retries of one device at once: one evaluation, the same bytes for all.
    let code = app.invitations(&token, &slug, 1).await.codes.remove(0);
    let device = TokenDevice::new();
    let answers: Vec<Value> = join_all((0..100).map(|_| async {
        let response = app.redeem(&slug, &code, &device.blinded).await;
        assert_eq!(response.status(), 200);
        response.json::<Value>().await.unwrap()
    }))
    .await;
    assert!(answers.iter().all(|answer| *answer == answers[0]));
    assert_eq!(count(&app, "redemptions").await, 2);
}

/// A second `deniable serve` on the test server's database file: two processes, one file.
pub(crate) struct SecondServer {
    child: Child,
    pub(crate) address: String,
}

impl SecondServer {
    pub(crate) fn start(app: &TestApp) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--submissions-per-minute",
                "0",
            ])
            .arg("--db")
            .arg(&app.db_path)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let address = serving_address(child.stdout.take().unwrap());
        Self { child, address }
    }
}

impl Drop for SecondServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn invitations_are_owner_only_bounded_and_for_surveys_that_require_them() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[1.0, 2.0]).await;
    for bad in [json!(0), json!(10_001), json!(-1)] {
        let response = app.request_invitations(&token, &slug, bad).await;
        assert_eq!(response.status(), 400);
    }
    let anonymous = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .json(&json!({"count": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let stranger = app.researcher_with_token("stranger@example.org").await;
    let response = app.request_invitations(&stranger, &slug, json!(1)).await;
    assert_eq!(response.status(), 404);
    let (open_to_all, _) = app.draft_survey(&token, &[1.0]).await;
    let response = app
        .request_invitations(&token, &open_to_all, json!(1))
        .await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "invitations_not_required");
    let response = app
        .redeem(&open_to_all, &"a".repeat(64), &TokenDevice::new().blinded)
        .await;
    assert_eq!(response.status(), 404, "a draft is nobody's business");
    assert_eq!(count(&app, "invitations").await, 0);
}

/// The owner's results as its owner sees them: (n of the first question, `responses`).
async fn owner_views(app: &TestApp, token: &str, slug: &str) -> (u64, u64) {
    let results = app.results(token, slug).await;
    (
        results["questions"][0]["n"].as_u64().unwrap_or(0),
        results["responses"].as_u64().unwrap(),
    )
}

#[tokio::test]
async fn owner_views_advance_only_at_considerations_of_k_redemptions_and_k_responses() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = crate::common::survey_definition(&[1.0, 2.0]);
    definition["requires_invitation"] = json!(true);
    definition["results_after_close"] = json!(false);
    definition["min_cell"] = json!(5);
    let created: Value = app
        .create_survey(&token, &definition)
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let ids: Vec<i64> = created["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    let codes = app.invitations(&token, &slug, 12).await.codes;
    let mut tokens = Vec::new();
    let spend = |bought: Value| {
        let answers = answers(&ids);
        let app = &app;
        let slug = slug.clone();
        async move {
            let status = app
                .submit_with_token(&slug, answers, Some(&bought), None)
                .await
                .status();
            assert_eq!(status, 201);
        }
    };

    // Four redemptions, four responses: below k = 5, nothing is shown, not even the count.
    for code in &codes[..4] {
        tokens.push(app.token_for(&slug, code).await);
    }
    for bought in tokens.drain(..) {
        spend(bought).await;
    }
    assert_eq!(owner_views(&app, &token, &slug).await, (0, 0));
    let export = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.csv"))
        .await;
    assert_eq!(export.status(), 409);
    assert_eq!(error_code(export).await, "export_withheld");
    // A fifth of each: considered, so counted; fewer than a release needs while open
    // (k + 2 = 7), so not shown.
    spend(app.token_for(&slug, &codes[4]).await).await;
    assert_eq!(owner_views(&app, &token, &slug).await, (0, 5));
    // Five more redemptions but only four more responses: nothing moves.
    for code in &codes[5..10] {
        tokens.push(app.token_for(&slug, code).await);
    }
    for _ in 0..4 {
        spend(tokens.remove(0)).await;
    }
    assert_eq!(owner_views(&app, &token, &slug).await, (0, 5));
    // The fifth response: considered (5 new redemptions, 5 new responses), and the ten
    // waiting are released together.
    spend(tokens.remove(0)).await;
    assert_eq!(owner_views(&app, &token, &slug).await, (10, 10));
    // One more of each, then closing: the one is fewer than k new ones, withheld.
    spend(app.token_for(&slug, &codes[10]).await).await;
    assert_eq!(owner_views(&app, &token, &slug).await, (10, 10));
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(owner_views(&app, &token, &slug).await, (10, 11));
    let results = app.results(&token, &slug).await;
    assert_eq!(results["release"]["withheld_responses"], 1);
    assert_eq!(app.export_csv(&token, &slug).await.lines().count(), 1 + 20);
}

/// Issue 31: anyone holding an invitation code could tell whether it was used, without
/// using it, by sending a malformed blinded element (the identity): 400 for an unused
/// invitation, 409 for a used one, 403 for an unknown one. The body is checked first now.
#[tokio::test]
async fn a_malformed_blinded_element_gets_the_same_answer_whatever_the_invitations_state() {
    use base64::Engine;
    let app = spawn_app().await;
    let (token, slug, _) = app.open_invitation_survey(&[1.0]).await;
    let codes = app.invitations(&token, &slug, 2).await.codes;
    let (unused, used) = (&codes[0], &codes[1]);
    app.token_for(&slug, used).await;
    let unknown = "A".repeat(43);
    let encode = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let malformed = [
        encode(&[0; 32]),         // the identity
        encode(&[0xff; 32]),      // not a canonical encoding
        encode(&[1; 31]),         // too short
        encode(&[1; 33]),         // too long
        "not base64!".to_owned(), // not base64url at all
        String::new(),
    ];
    for blinded in &malformed {
        let mut answers = Vec::new();
        for code in [unused.as_str(), used.as_str(), unknown.as_str()] {
            let response = app.redeem(&slug, code, blinded).await;
            answers.push((response.status().as_u16(), response.text().await.unwrap()));
        }
        assert!(
            answers.iter().all(|answer| *answer == answers[0]),
            "{blinded:?}: {answers:?}"
        );
        assert_eq!(answers[0].0, 400, "{blinded:?}: {answers:?}");
        assert!(answers[0].1.contains("invalid_blinded"), "{answers:?}");
    }
    // The probed invitation was not used up: it still redeems.
    let device = TokenDevice::new();
    assert_eq!(
        app.redeem(&slug, unused, &device.blinded).await.status(),
        200
    );
}

/// The survey's private key as stored, read through the server's own storage (either
/// engine); `None` once erased, or when the survey is gone.
async fn stored_private_key(app: &TestApp, slug: &str) -> Option<Vec<u8>> {
    let slug = slug.to_owned();
    app.db
        .read(move |connection| {
            use deniable::db::sql::OptionalExtension;
            Ok(connection
                .query_row(
                    "SELECT private_key FROM invitation_keys
                     WHERE survey_id = (SELECT id FROM surveys WHERE slug = ?1)",
                    [slug.as_str()],
                    |row| row.get::<_, Option<Vec<u8>>>(0),
                )
                .optional()?
                .flatten())
        })
        .await
        .unwrap()
}

/// Issue 31: closed by hand (the API, the workspace's button, `deniable survey close`),
/// by reaching its target, at its closing time, or by deletion, a survey's private key
/// goes through one close step. On SQLite no file holds its bytes from that moment on (the
/// automatic ways included: the writer truncates the WAL before it answers the response
/// that reached the target and before the tick that closed by time ends), nor a backup; on PostgreSQL the key column is empty (its
/// files may hold old row versions until VACUUM, its WAL and archives: docs/design.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_of_stopping_a_survey_erases_its_private_key_from_every_file() {
    let app = spawn_app().await;
    let mut browser = crate::workspace::signed_in(&app, "owner@example.org").await;
    let token = deniable::services::accounts::create_token(
        &app.db,
        deniable::domain::Email::parse("owner@example.org").unwrap(),
    )
    .await
    .unwrap();
    let token = token.expose().to_owned();
    // A closing time a few seconds after the survey is defined (not after the test starts:
    // on a busy machine the surveys before it take seconds).
    let closes_soon = || {
        deniable::domain::ClosingTime::from_unix(
            i64::try_from(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_secs(),
            )
            .unwrap()
                + 3,
        )
        .to_string()
    };
    let ways = ["api", "page", "cli", "target", "time", "deletion"];
    let mut keys = Vec::new();
    for way in ways {
        let mut definition = crate::common::survey_definition(&[1.0]);
        definition["requires_invitation"] = json!(true);
        definition["title"] = json!(format!("Closed by {way}"));
        match way {
            "target" => definition["target_responses"] = json!(1),
            "time" => definition["closes_at"] = json!(closes_soon()),
            _ => {}
        }
        let created: Value = app
            .create_survey(&token, &definition)
            .await
            .json()
            .await
            .unwrap();
        let slug = created["slug"].as_str().unwrap().to_owned();
        let ids = [created["questions"][0]["id"].as_i64().unwrap()];
        let opened = app
            .owner_post(&token, &format!("/api/surveys/{slug}/open"))
            .await;
        assert_eq!(opened.status(), 200, "{way}");
        let key = stored_private_key(&app, &slug)
            .await
            .expect("a key while open");
        assert_eq!(key.len(), 32);
        let code = app.invitations(&token, &slug, 1).await.codes.remove(0);
        let bought = app.token_for(&slug, &code).await;
        let answers = json!({ ids[0].to_string(): 1 });
        let sent = app
            .submit_with_token(&slug, answers, Some(&bought), None)
            .await;
        assert_eq!(sent.status(), 201, "{way}");
        match way {
            "api" => {
                let closed = app
                    .owner_post(&token, &format!("/api/surveys/{slug}/close"))
                    .await;
                assert_eq!(closed.status(), 200);
            }
            "page" => {
                let closed = browser
                    .post_with_csrf(&format!("/surveys/{slug}/close"), &[])
                    .await;
                assert_eq!(closed.status(), 303);
            }
            "cli" => {
                let location = app.db_location.clone();
                let slug = slug.clone();
                let output = tokio::task::spawn_blocking(move || {
                    let db = match &location {
                        deniable::db::DbLocation::Sqlite(path) => path.display().to_string(),
                        deniable::db::DbLocation::Postgres(url) => url.clone(),
                    };
                    Command::new(env!("CARGO_BIN_EXE_deniable"))
                        .args(["survey", "close", &slug, "--db", &db])
                        .output()
                        .unwrap()
                })
                .await
                .unwrap();
                assert!(output.status.success(), "{output:?}");
            }
            "target" => {}
            "time" => {
                for _ in 0..80 {
                    if app.results(&token, &slug).await["status"] == "closed" {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
            "deletion" => {
                let deleted = app
                    .client
                    .delete(app.url(&format!("/api/surveys/{slug}")))
                    .bearer_auth(&token)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(deleted.status(), 204);
            }
            _ => unreachable!(),
        }
        if way != "deletion" {
            assert_eq!(
                app.results(&token, &slug).await["status"],
                "closed",
                "closed by {way}"
            );
        }
        assert_eq!(
            stored_private_key(&app, &slug).await,
            None,
            "closed by {way}"
        );
        if crate::common::test_postgres().is_none() && way != "deletion" {
            if way == "time" {
                // The tick that closed it ends before the writer takes the next job.
                app.db.drain().await.unwrap();
            }
            // At this moment, without waiting for an epoch: the answer to the response that
            // reached the target, the end of the tick that closed by time, the close itself.
            assert_eq!(
                files_holding(&app.db_path, &key),
                Vec::<String>::new(),
                "the key of the survey closed by {way}, at once"
            );
        }
        keys.push((way, key));
    }
    if crate::common::test_postgres().is_some() {
        return;
    }
    // The next epoch, and a backup taken afterwards.
    app.db.compact().await.unwrap();
    let backup = app.db_path.with_file_name("after-closing.db");
    let source = app.db_path.clone();
    let target = backup.clone();
    tokio::task::spawn_blocking(move || deniable::db::backup::backup(&source, &target))
        .await
        .unwrap()
        .unwrap();
    for suffix in ["", "-wal", "-shm"] {
        for path in [&app.db_path, &backup] {
            let mut name = path.file_name().unwrap().to_os_string();
            name.push(suffix);
            let file = path.with_file_name(name);
            let bytes = std::fs::read(&file).unwrap_or_default();
            for (way, key) in &keys {
                assert!(
                    !bytes.windows(32).any(|window| window == key.as_slice()),
                    "{} still holds the private key of the survey closed by {way}",
                    file.display()
                );
            }
        }
    }
}

/// The database's files (the file, its WAL and index) that hold `needle`.
fn files_holding(database: &std::path::Path, needle: &[u8]) -> Vec<String> {
    ["", "-wal", "-shm"]
        .into_iter()
        .filter_map(|suffix| {
            let mut name = database.file_name().unwrap().to_os_string();
            name.push(suffix);
            let file = database.with_file_name(name);
            let bytes = std::fs::read(&file).unwrap_or_default();
            bytes
                .windows(needle.len())
                .any(|window| window == needle)
                .then(|| file.display().to_string())
        })
        .collect()
}
