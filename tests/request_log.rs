//! What the server logs. Invariant 4: on a respondent's path, no IP address, no user agent
//! and no receipt. And an internal error's cause, with its chain, goes to the log and never
//! to the client. (Its own binary: the log capture is process-wide.)

#[path = "api/common.rs"]
mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use common::{error_code, spawn_app};
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

/// The process's log, captured from the first call on; and a lock that each test holds
/// while it reads the log, so that tests run in one process (`cargo test`) do not take
/// each other's lines.
fn captured_log() -> (CapturedLog, &'static tokio::sync::Mutex<()>) {
    static LOG: OnceLock<CapturedLog> = OnceLock::new();
    static ONE_TEST_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let log = LOG.get_or_init(|| {
        let log = CapturedLog::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            // Everything at debug level except the test client's own connection logs.
            .with_env_filter("debug,reqwest=off,hyper_util=off,hyper=off")
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        log
    });
    (log.clone(), &ONE_TEST_AT_A_TIME)
}

#[tokio::test]
async fn the_request_log_of_a_respondents_visit_has_no_address_user_agent_or_receipt() {
    let (log, lock) = captured_log();
    let _alone = lock.lock().await;
    let app = spawn_app().await;
    let client = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .build()
        .unwrap();
    // Start-up lines (the listening address) are the operator's, not a respondent's visit.
    client.get(app.url("/healthz")).send().await.unwrap();
    log.take();

    // A panel's identifiers in a query string (docs/embedding.md says to use the fragment,
    // which never reaches a server) are in no log line either.
    for path in [
        "/s/demo",
        "/s/demo?PROLIFIC_PID=QueryPid42&STUDY_ID=QueryStudy42",
        "/api/surveys/demo",
        "/static/form.js",
    ] {
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
        "QueryPid42",
        "QueryStudy42",
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

/// A storage failure is a 500 whose body says nothing of it, while the log line has the
/// cause's whole chain: what was being done ("database") over the engine's own message.
#[tokio::test]
async fn a_storage_failure_logs_its_cause_chain_and_tells_the_client_nothing_of_it() {
    let (log, lock) = captured_log();
    let _alone = lock.lock().await;
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    app.submit_ok(&slug, json!({ids[0].to_string(): 1})).await;
    let results = format!("/api/surveys/{slug}/results");
    assert_eq!(app.owner_get(&token, &results).await.status(), 200);
    // The running counts the results read instead of the responses (src/db/counts.rs).
    app.execute_sql("DROP TABLE report_counts").await.unwrap();
    log.take();

    let failed = app.owner_get(&token, &results).await;
    assert_eq!(failed.status(), 500);
    let body: Value = failed.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal");
    assert_eq!(
        body["error"]["message"],
        "internal error; the cause has been logged"
    );
    let body = body.to_string();
    for cause in ["report_counts", "no such table", "database"] {
        assert!(!body.contains(cause), "the body tells {cause:?}: {body}");
    }

    let captured = log.take();
    let line = captured
        .lines()
        .find(|line| line.contains("request failed"))
        .unwrap_or_else(|| panic!("no line for the failed request:\n{captured}"));
    // The context, SQLite's message, then the source rusqlite keeps under it (the result
    // code, "Error code 1: SQL logic error"), which no message above it repeats.
    assert!(
        line.contains("cause=database: no such table: report_counts: Error code 1: "),
        "the line has the context and the cause's chain: {line}"
    );
    // Answers after the failure are as before: the error is this route's, not the server's.
    assert_eq!(
        error_code(app.owner_get(&token, "/api/surveys/no-such-survey").await).await,
        "not_found"
    );
}
