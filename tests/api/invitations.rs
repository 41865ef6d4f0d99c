//! Invitations: single-use codes, consumed with the response, never linked to it.

use crate::common::{error_code, spawn_app, survey_definition, TestApp};
use futures_util::future::join_all;
use serde_json::{json, Value};

/// An open survey that requires invitations; returns (token, slug, question ids).
async fn invitation_survey(app: &TestApp) -> (String, String, Vec<i64>) {
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = survey_definition(&[1.0, 2.0]);
    definition["requires_invitation"] = json!(true);
    let created = app.create_survey(&token, &definition).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    assert_eq!(body["requires_invitation"], true);
    let slug = body["slug"].as_str().unwrap().to_owned();
    let ids = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (token, slug, ids)
}

async fn request_invitations(
    app: &TestApp,
    token: &str,
    slug: &str,
    count: Value,
) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(token)
        .json(&json!({ "count": count }))
        .send()
        .await
        .unwrap()
}

/// Creates invitations through the API and returns the codes from the CSV.
async fn invitations(app: &TestApp, token: &str, slug: &str, count: u32) -> Vec<String> {
    let response = request_invitations(app, token, slug, json!(count)).await;
    assert_eq!(response.status(), 201);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = response.text().await.unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("invitation,link"));
    lines
        .map(|line| {
            let (code, link) = line.split_once(',').unwrap();
            assert!(
                link.ends_with(&format!("/s/{slug}#invitation={code}")),
                "{link}"
            );
            code.to_owned()
        })
        .collect()
}

fn answers(ids: &[i64]) -> Value {
    json!({ ids[0].to_string(): 1, ids[1].to_string(): 0 })
}

async fn submit_with(
    app: &TestApp,
    slug: &str,
    ids: &[i64],
    invitation: Option<&str>,
) -> reqwest::Response {
    let mut body = json!({ "answers": answers(ids) });
    if let Some(code) = invitation {
        body["invitation"] = json!(code);
    }
    app.client
        .post(app.url(&format!("/api/surveys/{slug}/responses")))
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn count(app: &TestApp, table: &str) -> i64 {
    app.inspect()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

#[tokio::test]
async fn an_owner_gets_single_use_links_and_only_their_hashes_are_stored() {
    let app = spawn_app().await;
    let (token, slug, _) = invitation_survey(&app).await;
    let codes = invitations(&app, &token, &slug, 5).await;
    assert_eq!(codes.len(), 5);
    assert_eq!(count(&app, "invitations"), 5);
    let stored: Vec<Vec<u8>> = app
        .inspect()
        .prepare("SELECT code_hash FROM invitations")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for code in &codes {
        assert!(stored
            .iter()
            .all(|hash| hash.len() == 32 && hash != code.as_bytes()));
    }
    let definition: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(definition["requires_invitation"], true);
}

#[tokio::test]
async fn a_response_needs_an_unused_invitation_and_uses_it_up() {
    let app = spawn_app().await;
    let (token, slug, ids) = invitation_survey(&app).await;
    let codes = invitations(&app, &token, &slug, 2).await;

    let without = submit_with(&app, &slug, &ids, None).await;
    assert_eq!(without.status(), 403);
    assert_eq!(error_code(without).await, "invitation_required");

    for unknown in ["not-a-code", &"a".repeat(64)] {
        let response = submit_with(&app, &slug, &ids, Some(unknown)).await;
        assert_eq!(response.status(), 403);
        assert_eq!(error_code(response).await, "invitation_invalid");
    }

    let first = submit_with(&app, &slug, &ids, Some(&codes[0])).await;
    assert_eq!(first.status(), 201);
    let again = submit_with(&app, &slug, &ids, Some(&codes[0])).await;
    assert_eq!(again.status(), 403);
    assert_eq!(error_code(again).await, "invitation_invalid");

    assert_eq!(count(&app, "stored_responses"), 1);
    assert_eq!(count(&app, "invitations"), 1, "the used invitation is gone");
}

#[tokio::test]
async fn an_invalid_submission_does_not_use_up_its_invitation() {
    let app = spawn_app().await;
    let (token, slug, ids) = invitation_survey(&app).await;
    let codes = invitations(&app, &token, &slug, 1).await;
    let incomplete = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/responses")))
        .json(&json!({ "answers": { ids[0].to_string(): 1 }, "invitation": codes[0] }))
        .send()
        .await
        .unwrap();
    assert_eq!(incomplete.status(), 400);
    assert_eq!(
        submit_with(&app, &slug, &ids, Some(&codes[0]))
            .await
            .status(),
        201
    );
}

#[tokio::test]
async fn a_hundred_concurrent_submissions_with_one_invitation_store_exactly_one() {
    let app = spawn_app().await;
    let (token, slug, ids) = invitation_survey(&app).await;
    let code = invitations(&app, &token, &slug, 1).await.remove(0);

    let statuses: Vec<u16> = join_all((0..100).map(|_| async {
        submit_with(&app, &slug, &ids, Some(&code))
            .await
            .status()
            .as_u16()
    }))
    .await;
    let stored = statuses.iter().filter(|&&s| s == 201).count();
    let refused = statuses.iter().filter(|&&s| s == 403).count();
    eprintln!(
        "invitation race: {stored} stored, {refused} refused of {}",
        statuses.len()
    );
    assert_eq!((stored, refused), (1, 99));
    assert_eq!(count(&app, "stored_responses"), 1);
    assert_eq!(count(&app, "invitations"), 0);
    let results = app.results(&token, &slug).await;
    assert_eq!(
        results["questions"][0]["n"], 1,
        "the report counts count the one response"
    );
}

#[tokio::test]
async fn no_column_joins_an_invitation_to_a_response() {
    let app = spawn_app().await;
    let connection = app.inspect();
    let columns = |table: &str| -> Vec<String> {
        connection
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(columns("invitations"), ["code_hash", "survey_id"]);
    for table in ["stored_responses", "report_counts"] {
        assert!(
            columns(table).iter().all(|c| !c.contains("invitation")),
            "{table}: {:?}",
            columns(table)
        );
    }
    let foreign_keys: i64 = connection
        .query_row(
            "SELECT count(*) FROM pragma_foreign_key_list('invitations') WHERE \"table\" != 'surveys'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(foreign_keys, 0, "invitations refer to their survey only");
}

#[tokio::test]
async fn invitations_are_owner_only_bounded_and_for_surveys_that_require_them() {
    let app = spawn_app().await;
    let (token, slug, _) = invitation_survey(&app).await;
    for bad in [json!(0), json!(10_001), json!(-1)] {
        let response = request_invitations(&app, &token, &slug, bad).await;
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
    let response = request_invitations(&app, &stranger, &slug, json!(1)).await;
    assert_eq!(response.status(), 404);
    let (open_to_all, _) = app.draft_survey(&token, &[1.0]).await;
    let response = request_invitations(&app, &token, &open_to_all, json!(1)).await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "invitations_not_required");
    assert_eq!(count(&app, "invitations"), 0);
}

#[tokio::test]
async fn the_cli_prints_invitations_as_csv_that_the_server_accepts() {
    let app = spawn_app().await;
    let (_, slug, ids) = invitation_survey(&app).await;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args([
            "invitations",
            "create",
            "--survey",
            &slug,
            "--count",
            "3",
            "--url",
            "https://survey.example.org",
        ])
        .arg("--db")
        .arg(&app.db_path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let csv = String::from_utf8(output.stdout).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 3);
    let (code, link) = rows[0].split_once(',').unwrap();
    assert_eq!(
        link,
        format!("https://survey.example.org/s/{slug}#invitation={code}")
    );
    assert_eq!(
        submit_with(&app, &slug, &ids, Some(code)).await.status(),
        201
    );
}
