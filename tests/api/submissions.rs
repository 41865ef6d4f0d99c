//! Invariant 9 (docs/design.md): a truth is randomized once. Submissions are idempotent by
//! the device's `response_id`; a withdrawn response stays withdrawn, whether its pending
//! body or an exported row is replayed.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};

/// A receipt as a device draws it, and the response id it sends (hex SHA-256 of the text).
fn device_receipt(seed: u8) -> (String, String) {
    use base64::Engine;
    let receipt = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([seed; 32]);
    let response_id = hex_sha256(&receipt);
    (receipt, response_id)
}

fn hex_sha256(text: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
}

async fn send(app: &TestApp, slug: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/surveys/{slug}/responses")))
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_same_body_sent_again_is_stored_once_and_answered_200() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0, 2.0]).await;
    let (receipt, response_id) = device_receipt(7);
    let body = json!({
        "answers": { ids[0].to_string(): 1, ids[1].to_string(): 0 },
        "response_id": response_id,
    });

    let first = send(&app, &slug, &body).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["status"], "stored");
    assert_eq!(first["record_id"], hex_sha256(&response_id));
    assert!(
        first.get("receipt").is_none(),
        "the device drew the receipt"
    );

    for _ in 0..3 {
        let again = send(&app, &slug, &body).await;
        assert_eq!(again.status(), 200);
        let again: Value = again.json().await.unwrap();
        assert_eq!(again["record_id"], first["record_id"]);
        assert!(again.get("reports").is_none(), "status only, no reports");
    }
    // Stored once (the count of responses is live; their figures wait for a release).
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 1);
    assert_eq!(app.lookup(&slug, &receipt).await.status(), 200);
}

#[tokio::test]
async fn other_reports_under_a_stored_response_id_are_a_conflict() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let (receipt, response_id) = device_receipt(8);
    let stored = send(
        &app,
        &slug,
        &json!({"answers": { ids[0].to_string(): 1 }, "response_id": response_id}),
    )
    .await;
    assert_eq!(stored.status(), 201);
    let flipped = send(
        &app,
        &slug,
        &json!({"answers": { ids[0].to_string(): 0 }, "response_id": response_id}),
    )
    .await;
    assert_eq!(flipped.status(), 409);
    assert_eq!(error_code(flipped).await, "response_id_conflict");
    // The first report stands.
    let stored: Value = app.lookup(&slug, &receipt).await.json().await.unwrap();
    assert_eq!(stored["reports"][0]["question_id"], ids[0], "{stored}");
    assert_eq!(stored["reports"][0]["report"], 1, "{stored}");
}

#[tokio::test]
async fn a_retry_after_the_survey_closed_is_still_200_and_a_new_response_is_refused() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    let (_, stored_id) = device_receipt(9);
    let (_, new_id) = device_receipt(10);
    let body = |response_id: &str| json!({"answers": { ids[0].to_string(): 1 }, "response_id": response_id});
    assert_eq!(send(&app, &slug, &body(&stored_id)).await.status(), 201);
    let closed = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);

    let retry = send(&app, &slug, &body(&stored_id)).await;
    assert_eq!(
        retry.status(),
        200,
        "the commit's answer was lost: same body"
    );
    let late = send(&app, &slug, &body(&new_id)).await;
    assert_eq!(late.status(), 409);
    assert_eq!(error_code(late).await, "survey_not_open");
}

#[tokio::test]
async fn without_a_response_id_the_server_draws_the_receipt() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let response = app.submit(&slug, json!({ ids[0].to_string(): 1 })).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    let receipt = body["receipt"].as_str().unwrap();
    assert_eq!(receipt.len(), 43);
    assert_eq!(body["record_id"], hex_sha256(&hex_sha256(receipt)));
}

#[tokio::test]
async fn a_malformed_response_id_is_a_400() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    for bad in ["", "ABC", &"A".repeat(64), &"a".repeat(63), &"g".repeat(64)] {
        let response = send(
            &app,
            &slug,
            &json!({"answers": { ids[0].to_string(): 1 }, "response_id": bad}),
        )
        .await;
        assert_eq!(response.status(), 400, "{bad:?}");
        assert_eq!(error_code(response).await, "invalid_response_id");
    }
}

#[tokio::test]
async fn question_ids_that_parse_to_the_same_id_are_one_question_answered_twice() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let id = ids[0];
    for (one, other) in [
        (format!("{id}"), format!("+{id}")),
        (format!("{id}"), format!("0{id}")),
    ] {
        let body = format!(r#"{{"answers": {{"{one}": 1, "{other}": 0}}}}"#);
        let response = app
            .client
            .post(app.url(&format!("/api/surveys/{slug}/responses")))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        assert_eq!(error_code(response).await, "duplicate_answer");
    }
}

#[tokio::test]
async fn a_withdrawn_response_stays_withdrawn_when_its_pending_body_or_export_row_is_replayed() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0, 0.5]).await;
    let (receipt, response_id) = device_receipt(11);
    let pending_body = json!({
        "answers": { ids[0].to_string(): 1, ids[1].to_string(): 1 },
        "response_id": response_id,
    });
    assert_eq!(send(&app, &slug, &pending_body).await.status(), 201);
    // The record id an export row would carry: the SHA-256 of the response id (exports wait
    // for close, and `storage.rs` checks the column).
    let record_id = hex_sha256(&response_id);

    assert_eq!(app.withdraw(&slug, &receipt).await.status(), 204);

    // The device's pending body, replayed (its acknowledgement was lost, say).
    let replayed = send(&app, &slug, &pending_body).await;
    assert_eq!(replayed.status(), 410);
    assert_eq!(error_code(replayed).await, "response_withdrawn");
    // An exported row carries the record id, not the response id: sent as one, it is a
    // different (new) response, never the withdrawn one.
    let from_export = send(
        &app,
        &slug,
        &json!({"answers": { ids[0].to_string(): 1, ids[1].to_string(): 1 }, "response_id": record_id}),
    )
    .await;
    assert_eq!(from_export.status(), 201);
    assert_eq!(
        app.lookup(&slug, &receipt).await.status(),
        404,
        "the withdrawn record is not back"
    );
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 1, "only the new response");
}

#[tokio::test]
async fn the_receipt_page_shows_and_withdraws_after_a_confirmation_without_javascript() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    let receipt = app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    let page = app
        .client
        .get(app.url(&format!("/s/{slug}/receipt")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("id=\"receipt-input\""));

    let post = |action: &'static str| {
        app.client
            .post(app.url(&format!("/s/{slug}/receipt")))
            .form(&[("receipt", receipt.as_str()), ("action", action)])
            .send()
    };
    let viewed = post("view").await.unwrap().text().await.unwrap();
    assert!(viewed.contains("id=\"stored-reports\""));
    assert!(viewed.contains(&hex_sha256(&hex_sha256(&receipt))));
    // "Withdraw" only asks: the response stays until the second, explicit step.
    let asked = post("withdraw").await.unwrap().text().await.unwrap();
    assert!(asked.contains("id=\"confirm-withdrawal\""));
    assert!(asked.contains("cannot be undone"));
    assert!(asked.contains("value=\"confirm-withdraw\""));
    assert_eq!(app.results(&token, &slug).await["responses"], 1);
    assert_eq!(app.lookup(&slug, &receipt).await.status(), 200);
    let withdrawn = post("confirm-withdraw")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(withdrawn.contains("id=\"withdrawn\""));
    // Asked about a receipt that names nothing: "nothing is stored", no question.
    let asked_again = post("withdraw").await.unwrap().text().await.unwrap();
    assert!(asked_again.contains("id=\"not-found\""));
    assert!(!asked_again.contains("id=\"confirm-withdrawal\""));
    let again = post("view").await.unwrap().text().await.unwrap();
    assert!(again.contains("id=\"not-found\""));
    assert_eq!(app.results(&token, &slug).await["responses"], 0);
}

#[tokio::test]
async fn the_old_receipt_paths_are_gone() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let receipt = app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    let path = app.url(&format!("/api/surveys/{slug}/responses/{receipt}"));
    assert_eq!(app.client.get(&path).send().await.unwrap().status(), 404);
    assert_eq!(app.client.delete(&path).send().await.unwrap().status(), 404);
    assert_eq!(app.lookup(&slug, &receipt).await.status(), 200);
}
