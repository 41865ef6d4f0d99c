//! A survey's life in storage, on either engine: deletion by hand and by retention date,
//! questions frozen once open (even for SQL run by someone with the database's
//! credentials), and live pages that move only in steps of `min_cell` responses. What the
//! SQLite files keep (migration of the first release's file, epochs beside other processes,
//! what a deletion leaves in every file) is in `sqlite_files/`. (docs/design.md, invariants
//! 5 and 8.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{spawn_app, spawn_app_with_epochs, test_settings};
use crate::workspace::signed_in;

#[tokio::test]
async fn a_survey_past_its_retention_date_is_deleted_by_the_next_epoch() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    let app = spawn_app_with_epochs(directory, test_settings(), Duration::from_secs(1)).await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut kept_and_expired = Vec::new();
    for delete_after in ["2999-12-31", "2000-01-01"] {
        let created = app
            .create_survey(
                &token,
                &json!({"title": "Retained", "delete_after": delete_after,
                        "questions": [{"text": "Sensitive?", "epsilon": 1.0}]}),
            )
            .await;
        assert_eq!(created.status(), 201);
        let created: Value = created.json().await.unwrap();
        assert_eq!(created["delete_after"], delete_after);
        kept_and_expired.push(created["slug"].as_str().unwrap().to_owned());
    }
    let bad = app
        .create_survey(
            &token,
            &json!({"title": "Bad", "delete_after": "2027-02-30",
                    "questions": [{"text": "Sensitive?", "epsilon": 1.0}]}),
        )
        .await;
    assert_eq!(bad.status(), 400);

    let mut waited = Duration::ZERO;
    let expired_path = format!("/api/surveys/{}/results", kept_and_expired[1]);
    while app.owner_get(&token, &expired_path).await.status() != 404 {
        assert!(
            waited < Duration::from_secs(10),
            "deleted within a few epochs"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        waited += Duration::from_millis(200);
    }
    let kept_path = format!("/api/surveys/{}/results", kept_and_expired[0]);
    assert_eq!(app.owner_get(&token, &kept_path).await.status(), 200);
}

#[tokio::test]
async fn questions_of_an_open_survey_cannot_be_changed_even_by_sql() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let question = ids[0];
    for statement in [
        format!("UPDATE questions SET epsilon = 5.0 WHERE id = {question}"),
        format!("UPDATE questions SET text = 'Changed?' WHERE id = {question}"),
        format!("DELETE FROM questions WHERE id = {question}"),
    ] {
        let refused = app.execute_sql(statement.clone()).await;
        assert!(refused.is_err(), "{statement} was allowed");
    }
    let survey_id: i64 = app
        .stored_value(format!("SELECT id FROM surveys WHERE slug = '{slug}'"))
        .await;
    let added = app
        .execute_sql(format!(
            "INSERT INTO questions (survey_id, position, text, epsilon) \
             VALUES ({survey_id}, 9, 'New?', 1.0)"
        ))
        .await;
    assert!(added.is_err(), "a question was added to an open survey");
    // Deleting the whole survey stays possible.
    let deleted = app
        .execute_sql(format!("DELETE FROM surveys WHERE id = {survey_id}"))
        .await;
    assert_eq!(deleted, Ok(1));
}

#[tokio::test]
async fn a_survey_without_groupings_moves_its_figures_only_at_considerations_api_and_pages_alike() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let token = deniable::services::accounts::create_token(
        &app.db,
        deniable::domain::Email::parse("owner@example.org").unwrap(),
    )
    .await
    .unwrap();
    let token = token.expose();
    let created = app
        .create_survey(
            token,
            &json!({"title": "Stepped", "min_cell": 5,
                    "questions": [{"text": "Sensitive?", "epsilon": 1.0}]}),
        )
        .await;
    let created: Value = created.json().await.unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let question = created["questions"][0]["id"].as_i64().unwrap().to_string();
    app.owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;

    // One cell (no grouping questions): considered every k = 5 received, released with
    // k + 2 = 7 new responses while open; the live page and the API show the same.
    let mut shown = Vec::new();
    for answer in [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1] {
        app.submit_ok(&slug, json!({ &question: answer })).await;
        let live: Value = researcher
            .get(&format!("/surveys/{slug}/results.json"))
            .await
            .json()
            .await
            .unwrap();
        shown.push(live["questions"][0]["n"].as_u64().unwrap());
        let api = app.results(token, &slug).await;
        assert_eq!(api["questions"][0]["n"], live["questions"][0]["n"]);
        assert_eq!(api["responses"], shown.len(), "the count itself is live");
    }
    assert_eq!(shown, [0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10]);
    app.owner_post(token, &format!("/api/surveys/{slug}/close"))
        .await;
    let live: Value = researcher
        .get(&format!("/surveys/{slug}/results.json"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        live["questions"][0]["n"], 15,
        "closed: the last five are a release of k"
    );
}

#[tokio::test]
async fn reads_during_epochs_wait_while_the_read_connections_close_and_never_fail() {
    let app = Arc::new(spawn_app().await);
    let (token, slug, ids) = app.open_survey(&[1.0, 2.0]).await;
    let epochs_done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..8)
        .map(|_| {
            let (app, token, slug, done) = (
                Arc::clone(&app),
                token.clone(),
                slug.clone(),
                Arc::clone(&epochs_done),
            );
            tokio::spawn(async move {
                let mut reads = 0;
                while !done.load(Ordering::Relaxed) {
                    let results = app
                        .owner_get(&token, &format!("/api/surveys/{slug}/results"))
                        .await;
                    assert_eq!(results.status(), 200, "a read during an epoch");
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    for i in 0..20 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): i % 2, ids[1].to_string(): 1 }),
        )
        .await;
        let epoch = app.db.compact().await.unwrap();
        assert!(!epoch.wal_kept, "nothing else has the database open");
    }
    epochs_done.store(true, Ordering::Relaxed);
    let mut reads = 0;
    for reader in readers {
        reads += reader.await.unwrap();
    }
    assert!(reads >= 8, "{reads} reads");
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 20);
}
