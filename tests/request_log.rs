//! Invariant 4: what the server logs on a respondent's path has no IP address, no user
//! agent and no receipt. (Its own binary: the log capture is process-wide.)

#[path = "api/common.rs"]
mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use common::spawn_app;
use serde_json::{json, Value};

const USER_AGENT: &str = "LogProbe/2.0 (respondent-device-fingerprint)";

#[derive(Clone, Default)]
struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl CapturedLog {
    fn take(&self) -> String {
        let mut bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8(std::mem::take(&mut *bytes)).unwrap()
    }
}

impl Write for CapturedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_request_log_of_a_respondents_visit_has_no_address_user_agent_or_receipt() {
    let log = CapturedLog::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        // Everything at debug level except the test client's own connection logs.
        .with_env_filter("debug,reqwest=off,hyper_util=off,hyper=off")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let app = spawn_app().await;
    let client = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .build()
        .unwrap();
    // Start-up lines (the listening address) are the operator's, not a respondent's visit.
    client.get(app.url("/healthz")).send().await.unwrap();
    log.take();

    for path in ["/s/demo", "/api/surveys/demo", "/static/form.js"] {
        assert_eq!(
            client.get(app.url(path)).send().await.unwrap().status(),
            200
        );
    }
    let submitted: Value = client
        .post(app.url("/api/surveys/demo/responses"))
        .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let receipt = submitted["receipt"].as_str().unwrap();
    for action in ["lookup", "withdraw"] {
        let status = client
            .post(app.url(&format!("/api/surveys/demo/responses/{action}")))
            .json(&json!({ "receipt": receipt }))
            .send()
            .await
            .unwrap()
            .status();
        assert!(status.is_success(), "{action}: {status}");
    }
    // A device that drew its own receipt sends only its response id.
    let device_response_id = "d".repeat(64);
    let stored = client
        .post(app.url("/api/surveys/demo/responses"))
        .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}, "response_id": device_response_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 201);

    let captured = log.take();
    assert!(
        captured.contains("/api/surveys/{slug}/responses/withdraw"),
        "routes are logged as patterns:\n{captured}"
    );
    for secret in [
        "127.0.0.1",
        "localhost",
        USER_AGENT,
        "LogProbe",
        receipt,
        &device_response_id,
    ] {
        assert!(
            !captured.contains(secret),
            "the log contains {secret:?}:\n{captured}"
        );
    }
    let response_id = hex::encode(ring::digest::digest(
        &ring::digest::SHA256,
        receipt.as_bytes(),
    ));
    assert!(
        !captured.contains(&response_id),
        "the log joins no response id to a request"
    );

    // An invitation survey's two steps: neither the invitation, nor the blinded value, nor
    // the token is logged (docs/design.md, invariant 10).
    let (owner, invited, ids) = app.open_invitation_survey(&[1.0]).await;
    let codes = app.invitations(&owner, &invited, 1).await.codes;
    let public_key = app.public_key(&invited).await;
    log.take();
    let device = common::TokenDevice::new();
    let redeemed: Value = client
        .post(app.url(&format!("/api/surveys/{invited}/redemptions")))
        .json(&json!({"invitation": codes[0], "blinded": device.blinded}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let bought = device.finalize(&redeemed, &public_key);
    let spent = client
        .post(app.url(&format!("/api/surveys/{invited}/responses")))
        .json(&json!({"answers": {ids[0].to_string(): 1}, "token": bought}))
        .send()
        .await
        .unwrap();
    assert_eq!(spent.status(), 201);
    let captured = log.take();
    assert!(
        captured.contains("/api/surveys/{slug}/redemptions"),
        "routes are logged as patterns:\n{captured}"
    );
    for secret in [
        "127.0.0.1",
        USER_AGENT,
        codes[0].as_str(),
        device.blinded.as_str(),
        redeemed["evaluation"].as_str().unwrap(),
        redeemed["proof"].as_str().unwrap(),
        bought["input"].as_str().unwrap(),
        bought["output"].as_str().unwrap(),
    ] {
        assert!(
            !captured.contains(secret),
            "the log contains {secret:?}:\n{captured}"
        );
    }
}
