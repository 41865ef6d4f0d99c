//! The privacy invariants of docs/design.md that the server can break, each checked directly.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::common::spawn_app;
use serde_json::json;

pub(crate) const USER_AGENT: &str = "PrivacyProbe/1.0 (respondent-device-fingerprint)";

/// "YYYY-MM" of today (UTC), without a date library (Hinnant's civil-from-days).
pub(crate) fn current_year_month() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        / 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}")
}

pub(crate) fn column_names(connection: &rusqlite::Connection, table: &str) -> Vec<String> {
    let mut statement = connection
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .unwrap();
    statement
        .query_map([table], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[tokio::test]
async fn every_route_sends_the_security_headers() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    let receipt = app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    let requests = [
        app.client.get(app.url("/healthz")),
        app.client.get(app.url("/s/demo")),
        app.client.get(app.url("/api/surveys/demo")),
        app.client.get(app.url("/static/form.js")),
        app.client.get(app.url("/static/form.css")),
        app.client.get(app.url("/static/randomized_response.wasm")),
        app.client
            .post(app.url(&format!("/api/surveys/{slug}/responses/lookup")))
            .json(&json!({ "receipt": receipt })),
        app.client
            .post(app.url("/api/surveys/demo/responses"))
            .json(&json!({"answers": {}})),
        app.client
            .get(app.url(&format!("/api/surveys/{slug}/results")))
            .bearer_auth(&token),
        app.client
            .get(app.url(&format!("/api/surveys/{slug}/export.csv")))
            .bearer_auth(&token),
        app.client
            .get(app.url(&format!("/api/surveys/{slug}/codebook.json")))
            .bearer_auth(&token),
        app.client.get(app.url("/api/surveys/demo/results")),
        app.client.get(app.url("/nowhere")),
        app.client.patch(app.url("/healthz")),
    ];
    for request in requests {
        let response = request.send().await.unwrap();
        let headers = response.headers();
        let url = response.url().path().to_owned();
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("default-src 'self'")
                && csp.contains("frame-ancestors 'none'")
                && !csp.contains("http")
                && !csp.contains('*'),
            "{url}"
        );
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval'"),
            "{url}"
        );
        assert!(!csp.contains("unsafe-inline"), "{url}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{url}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{url}");
        assert_eq!(headers["x-frame-options"], "DENY", "{url}");
    }
}

#[tokio::test]
async fn the_form_cannot_leak_answers_without_script_and_has_no_inline_code() {
    let app = spawn_app().await;
    let html = app
        .client
        .get(app.url("/s/demo"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !html.contains("<form"),
        "no native form submission, so no answer in a URL"
    );
    assert!(!html.contains("style="), "no inline style");
    assert!(!has_inline_event_handler(&html), "no inline event handler");
    for script in html.split("<script").skip(1) {
        assert!(
            script.trim_start().starts_with("src=\"/static/"),
            "only same-origin scripts"
        );
    }
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no third-party request"
    );
}

#[test]
fn the_form_scripts_use_only_the_cryptographic_generator_and_store_only_reports() {
    let page_script = include_str!("../../static/form.js");
    let core = include_str!("../../static/form-core.js");
    let receipt_page = include_str!("../../static/receipt.js");
    let tokens_page = include_str!("../../static/form-tokens.js");
    let tokens = include_str!("../../static/blind-tokens.js");
    for script in [page_script, core, receipt_page, tokens_page, tokens] {
        assert!(!script.contains("Math.random"));
        assert!(!script.contains("document.cookie"));
        assert!(!script.contains("\"truth\""), "no stored truth field");
    }
    assert!(core.contains("getRandomValues"));
    // Storage is written in two places, with the state of invariants 1 and 6 (reports, the
    // response id, the pending body and its receipt) and of invariant 10 (the redemption
    // state until it is answered, then the unspent token): nowhere else.
    assert_eq!(core.matches(".setItem(").count(), 2);
    assert_eq!(page_script.matches(".setItem(").count(), 0);
    assert!(!tokens.contains("setItem") && !tokens.contains("localStorage"));
    assert_eq!(tokens_page.matches(".setItem(").count(), 0);
    assert!(!receipt_page.contains("localStorage.setItem"));
}

/// ` onclick=`, ` onload=`… anywhere in the markup.
fn has_inline_event_handler(html: &str) -> bool {
    html.match_indices(" on").any(|(at, _)| {
        let rest = &html[at + 3..];
        let name_length = rest.bytes().take_while(u8::is_ascii_lowercase).count();
        name_length > 0 && rest[name_length..].starts_with('=')
    })
}
