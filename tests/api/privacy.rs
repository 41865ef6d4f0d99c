//! The privacy invariants of docs/design.md that the server can break, each checked directly.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::common::spawn_app;
use serde_json::json;

const USER_AGENT: &str = "PrivacyProbe/1.0 (respondent-device-fingerprint)";

/// "YYYY-MM" of today (UTC), without a date library (Hinnant's civil-from-days).
fn current_year_month() -> String {
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

fn column_names(connection: &rusqlite::Connection, table: &str) -> Vec<String> {
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
async fn a_stored_response_is_only_its_survey_its_hashed_id_and_per_question_epsilon_and_report() {
    let app = spawn_app().await;
    let connection = app.inspect();
    // The record id (a hash of the response id) and the reports: per question its id,
    // ε and report, packed in one value (migrations/sqlite/0002_privacy_at_rest.sql).
    assert_eq!(
        column_names(&connection, "stored_responses"),
        ["survey_id", "record_id", "reports"]
    );
    assert_eq!(
        column_names(&connection, "arriving_responses"),
        ["survey_id", "record_id", "reports"],
        "the responses since the last epoch wait in a table of the same shape"
    );
    assert_eq!(
        column_names(&connection, "withdrawn_responses"),
        ["survey_id", "tag"]
    );
    let tables: Vec<String> = connection
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let telling = [
        "ip",
        "addr",
        "address",
        "agent",
        "time",
        "timestamp",
        "date",
        "created",
        "seq",
        "cookie",
    ];
    for table in &tables {
        for column in column_names(&connection, table) {
            assert!(
                !column.split('_').any(|word| telling.contains(&word)),
                "{table}.{column} could identify a respondent or the arrival order"
            );
        }
    }
    // Storage order is the hash order, not the arrival order: no rowid to sort by.
    let without_rowid: i64 = connection
        .query_row(
            "SELECT count(*) FROM sqlite_schema
             WHERE name IN ('stored_responses', 'arriving_responses', 'withdrawn_responses',
                            'invitations')
             AND sql LIKE '%WITHOUT ROWID%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(without_rowid, 4);
}

#[tokio::test]
async fn after_a_run_the_database_file_holds_no_address_user_agent_or_timestamp() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[0.5, 2.0]).await;
    let client = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .build()
        .unwrap();
    for i in 0..20 {
        let response = client
            .post(app.url(&format!("/api/surveys/{slug}/responses")))
            .json(&json!({"answers": { ids[0].to_string(): i % 2, ids[1].to_string(): 1 }}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }
    app.results(&token, &slug).await;
    let directory = app.stop().await;

    let year_month = current_year_month();
    let mut inspected = 0;
    for entry in std::fs::read_dir(directory.path()).unwrap() {
        // The -wal and -shm files vanish when the last connection closes, which may happen
        // while this loop runs; their pages are then in the main file, read here too.
        let bytes = match std::fs::read(entry.unwrap().path()) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            read => read.unwrap(),
        };
        inspected += bytes.len();
        let text = String::from_utf8_lossy(&bytes);
        for secret in ["127.0.0.1", USER_AGENT, "PrivacyProbe", &year_month] {
            assert!(
                !text.contains(secret),
                "the database files contain {secret:?}"
            );
        }
    }
    assert!(inspected > 0);
}

#[tokio::test]
async fn exports_are_ordered_by_record_id_not_by_arrival() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    for i in 0..30 {
        app.submit_ok(&slug, json!({ ids[0].to_string(): i % 2 }))
            .await;
    }
    let csv = app.export_csv(&token, &slug).await;
    let record_ids: Vec<&str> = csv.lines().skip(1).map(|line| &line[..64]).collect();
    assert_eq!(record_ids.len(), 30);
    assert!(record_ids.windows(2).all(|pair| pair[0] < pair[1]));
    // Even an unordered scan of either table returns hash order: the responses since the
    // last epoch (all 30 here) wait in `arriving_responses`, keyed as `stored_responses` is.
    let scan = |table: &str| -> Vec<Vec<u8>> {
        app.inspect()
            .prepare(&format!("SELECT record_id FROM {table}"))
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (stored, arriving) = (scan("stored_responses"), scan("arriving_responses"));
    assert_eq!(stored.len() + arriving.len(), 30);
    assert_eq!(arriving.len(), 30, "no epoch has run yet");
    for scanned in [stored, arriving] {
        assert!(scanned.windows(2).all(|pair| pair[0] < pair[1]));
    }
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
