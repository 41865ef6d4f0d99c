//! Security headers on every response, HSTS only when configured, and per-route body limits.

use crate::common::{error_code, spawn_app, spawn_app_with, test_settings, TestApp};
use reqwest::Method;

const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
                   img-src 'self'; connect-src 'self'; object-src 'none'; form-action 'self'; \
                   base-uri 'none'; frame-ancestors 'none'";

/// Every route of the contract (and some that do not exist), with a method each.
fn every_route(slug: &str) -> Vec<(Method, String)> {
    let receipt = "A".repeat(43);
    [
        (Method::GET, "/healthz".to_owned()),
        (Method::GET, format!("/s/{slug}")),
        (Method::GET, format!("/api/surveys/{slug}")),
        (Method::POST, "/api/surveys".to_owned()),
        (Method::POST, format!("/api/surveys/{slug}/responses")),
        (
            Method::GET,
            format!("/api/surveys/{slug}/responses/{receipt}"),
        ),
        (
            Method::DELETE,
            format!("/api/surveys/{slug}/responses/{receipt}"),
        ),
        (Method::POST, format!("/api/surveys/{slug}/open")),
        (Method::POST, format!("/api/surveys/{slug}/close")),
        (Method::GET, format!("/api/surveys/{slug}/results")),
        (Method::GET, format!("/api/surveys/{slug}/export.csv")),
        (Method::GET, format!("/api/surveys/{slug}/export.ndjson")),
        (Method::GET, format!("/api/surveys/{slug}/codebook.json")),
        (Method::POST, format!("/api/surveys/{slug}/invitations")),
        (Method::GET, "/static/form.js".to_owned()),
        (Method::GET, "/static/randomized_response.wasm".to_owned()),
        (Method::GET, "/static/nothing-here.js".to_owned()),
        (Method::GET, "/no/such/page".to_owned()),
        (Method::PUT, "/healthz".to_owned()),
    ]
    .into_iter()
    .map(|(method, path)| (method, path.to_owned()))
    .collect()
}

async fn responses_of_every_route(app: &TestApp, token: &str) -> Vec<(String, reqwest::Response)> {
    let mut responses = Vec::new();
    for (method, path) in every_route("demo") {
        let response = app
            .client
            .request(method.clone(), app.url(&path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        responses.push((format!("{method} {path}"), response));
    }
    responses
}

#[tokio::test]
async fn every_route_answers_with_the_security_headers_and_no_hsts_by_default() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    for (route, response) in responses_of_every_route(&app, &token).await {
        let headers = response.headers();
        assert_eq!(headers["content-security-policy"], CSP, "{route}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{route}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{route}");
        assert_eq!(headers["x-frame-options"], "DENY", "{route}");
        assert!(
            !headers.contains_key("strict-transport-security"),
            "{route}"
        );
    }
}

#[tokio::test]
async fn hsts_is_sent_on_every_route_when_configured_for_https() {
    let mut settings = test_settings();
    settings.hsts = true;
    let app = spawn_app_with(settings).await;
    let token = app.researcher_with_token("owner@example.org").await;
    for (route, response) in responses_of_every_route(&app, &token).await {
        assert_eq!(
            response.headers()["strict-transport-security"],
            "max-age=63072000; includeSubDomains",
            "{route}"
        );
    }
}

#[tokio::test]
async fn a_body_sent_to_a_route_that_takes_none_is_a_413() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    for path in [
        "/api/surveys/demo/open",
        "/api/surveys/demo/close",
        "/healthz",
    ] {
        let method = if path == "/healthz" {
            Method::GET
        } else {
            Method::POST
        };
        let response = app
            .client
            .request(method, app.url(path))
            .bearer_auth(&token)
            .body("x".repeat(10))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 413, "{path}");
        assert_eq!(error_code(response).await, "payload_too_large");
    }
}

#[tokio::test]
async fn a_definition_over_its_limit_is_a_413_before_it_is_read() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let response = app
        .client
        .post(app.url("/api/surveys"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(vec![b' '; deniable::http::DEFINITION_LIMIT_BYTES + 1])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_eq!(error_code(response).await, "payload_too_large");
}
