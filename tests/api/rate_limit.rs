//! Per-address limits on submissions and sign-in attempts: 429 with Retry-After past the
//! allowance, other routes untouched, and tests unlimited unless they ask.

use std::num::NonZeroU32;

use crate::common::{error_code, spawn_app_with, test_settings};
use crate::workspace::{add_researcher, Browser, PASSWORD};
use serde_json::json;

fn limited_to(per_minute: u32) -> deniable::http::Settings {
    let mut settings = test_settings();
    settings.submissions_per_minute = NonZeroU32::new(per_minute);
    settings
}

#[tokio::test]
async fn submissions_past_the_allowance_get_429_with_retry_after() {
    let app = spawn_app_with(limited_to(3)).await;
    let answers = json!({"1": 1, "2": 0, "3": 1});
    for _ in 0..3 {
        assert_eq!(app.submit("demo", answers.clone()).await.status(), 201);
    }
    let refused = app.submit("demo", answers.clone()).await;
    assert_eq!(refused.status(), 429);
    let wait = retry_after(&refused);
    assert!((1..=60).contains(&wait), "Retry-After: {wait}");
    assert_eq!(error_code(refused).await, "too_many_requests");

    // Reading is not limited: the definition and the form still answer.
    for path in ["/api/surveys/demo", "/s/demo", "/healthz"] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
    let responses: i64 = app.stored_value("SELECT count(*) FROM all_responses").await;
    assert_eq!(responses, 3);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_allowance() {
    let mut settings = limited_to(1);
    settings.trust_forwarded_for = true;
    let app = spawn_app_with(settings).await;
    let submit_from = |client: &'static str| {
        app.client
            .post(app.url("/api/surveys/demo/responses"))
            .header("x-forwarded-for", format!("203.0.113.200, {client}"))
            .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}}))
            .send()
    };
    assert_eq!(submit_from("192.0.2.1").await.unwrap().status(), 201);
    assert_eq!(submit_from("192.0.2.2").await.unwrap().status(), 201);
    assert_eq!(submit_from("192.0.2.1").await.unwrap().status(), 429);
}

#[tokio::test]
async fn the_test_harness_is_unlimited_by_default() {
    let app = crate::common::spawn_app().await;
    for _ in 0..100 {
        app.submit_ok("demo", json!({"1": 1, "2": 0, "3": 1})).await;
    }
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn the_eleventh_sign_in_attempt_from_one_address_within_a_minute_gets_429_with_retry_after() {
    let mut settings = test_settings();
    settings.logins_per_minute = NonZeroU32::new(10);
    let app = spawn_app_with(settings).await;
    add_researcher(&app, "owner@example.org").await;
    let mut browser = Browser::new(&app);
    // Ten wrong guesses, each at a different account: no account's own throttle is reached.
    for attempt in 1..=10 {
        let response = browser
            .try_sign_in(&format!("guess{attempt}@example.org"), "a wrong password")
            .await;
        assert_eq!(response.status(), 400, "attempt {attempt}");
    }
    // The eleventh, even with the right password, is refused for the address.
    let refused = browser.try_sign_in("owner@example.org", PASSWORD).await;
    assert_eq!(refused.status(), 429);
    let wait = retry_after(&refused);
    assert!((1..=60).contains(&wait), "Retry-After: {wait}");
    assert!(refused.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let page = refused.text().await.unwrap();
    assert!(
        page.contains("too many sign-in attempts from this network address"),
        "{page}"
    );
    assert!(!browser.cookies.keys().any(|name| name.contains("session")));
    // The sign-in page itself and the respondent's path are not limited.
    assert_eq!(browser.get("/login").await.status(), 200);
    assert_eq!(
        app.submit("demo", json!({"1": 1, "2": 0, "3": 1}))
            .await
            .status(),
        201
    );
}

#[tokio::test]
async fn sign_in_attempts_are_unlimited_in_the_test_harness_by_default() {
    let app = crate::common::spawn_app().await;
    let mut browser = Browser::new(&app);
    for attempt in 1..=12 {
        let response = browser
            .try_sign_in(&format!("nobody{attempt}@example.org"), "a wrong password")
            .await;
        assert_eq!(response.status(), 400, "attempt {attempt}");
    }
}
