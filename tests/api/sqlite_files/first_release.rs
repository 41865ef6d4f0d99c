//! A database file made by the first release (80e3bd5), migrated in place.

use std::sync::Arc;

use serde_json::Value;

use super::{hex_sha256, FIXTURE};
use crate::common::spawn_app_in;
use crate::survey_intro::{form_html, public_definition};
use crate::workspace::{Browser, PASSWORD};
#[tokio::test]
async fn a_database_of_the_first_release_is_migrated_in_place_with_everything_kept() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    std::fs::copy(
        format!("{FIXTURE}/deniable.db"),
        directory.path().join("deniable.db"),
    )
    .unwrap();
    let app = spawn_app_in(Arc::clone(&directory)).await;
    let version: u32 = app
        .inspect()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, deniable::db::SCHEMA_VERSION);

    // The fixture's owner still signs in with their password.
    let mut browser = Browser::new(&app);
    assert_eq!(
        browser
            .try_sign_in("owner@example.org", PASSWORD)
            .await
            .status(),
        303
    );

    // Every response kept its reports; the first receipt had been withdrawn.
    let export = std::fs::read_to_string(format!("{FIXTURE}/export-exam-honesty.csv")).unwrap();
    let receipts = std::fs::read_to_string(format!("{FIXTURE}/receipts-exam-honesty.txt")).unwrap();
    let receipts: Vec<&str> = receipts.lines().collect();
    assert_eq!(receipts.len(), 40);
    assert_eq!(
        app.lookup("exam-honesty-8c53ebf4", receipts[0])
            .await
            .status(),
        404
    );
    for receipt in &receipts[1..] {
        let response = app.lookup("exam-honesty-8c53ebf4", receipt).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        let response_id = hex_sha256(receipt);
        assert_eq!(body["record_id"], hex_sha256(&response_id));
        let exported: Vec<(i64, u64)> = export
            .lines()
            .filter(|line| line.starts_with(&response_id))
            .map(|line| {
                let cells: Vec<&str> = line.split(',').collect();
                (cells[1].parse().unwrap(), cells[4].parse().unwrap())
            })
            .collect();
        let migrated: Vec<(i64, u64)> = body["reports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["question_id"].as_i64().unwrap(),
                    r["report"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(migrated, exported, "{receipt}");
    }
    let invited = std::fs::read_to_string(format!("{FIXTURE}/receipts-invited-only.txt")).unwrap();
    for receipt in invited.lines() {
        assert_eq!(
            app.lookup("invited-only-89997def", receipt).await.status(),
            200
        );
    }

    // Every tally: the results are those the first release computed.
    let token = deniable::services::accounts::create_token(
        &app.db,
        deniable::domain::Email::parse("owner@example.org").unwrap(),
    )
    .await
    .unwrap();
    // A survey that requires invitations shows its owner released responses only
    // (docs/design.md, invariant 11): its three responses are fewer than its min_cell, so
    // migration 0009 left them unreleased, and closing withholds them.
    let closed = app
        .owner_post(token.expose(), "/api/surveys/invited-only-89997def/close")
        .await;
    assert_eq!(closed.status(), 200);
    let invited = app.results(token.expose(), "invited-only-89997def").await;
    assert_eq!(invited["release"]["withheld_responses"], 3, "{invited}");
    assert_eq!(invited["questions"][0]["n"], 0);
    // Migration 0012: an open survey without grouping questions or invitations, outside the
    // release model until then, holds its stored responses as one release, and exports once
    // closed like every survey.
    let honesty = app.results(token.expose(), "exam-honesty-8c53ebf4").await;
    assert_eq!(honesty["status"], "open", "{honesty}");
    assert_eq!(
        honesty["release"]["released_responses"], honesty["responses"],
        "{honesty}"
    );
    assert_eq!(honesty["release"]["withheld_responses"], 0);
    let export = app
        .owner_get(
            token.expose(),
            "/api/surveys/exam-honesty-8c53ebf4/export.csv",
        )
        .await;
    assert_eq!(export.status(), 409);
    for slug in ["exam-honesty-8c53ebf4"] {
        let before: Value = serde_json::from_str(
            &std::fs::read_to_string(format!(
                "{FIXTURE}/results-{}.json",
                &slug[..slug.rfind('-').unwrap()]
            ))
            .unwrap(),
        )
        .unwrap();
        let after = app.results(token.expose(), slug).await;
        for (old, new) in before["questions"]
            .as_array()
            .unwrap()
            .iter()
            .zip(after["questions"].as_array().unwrap())
        {
            assert_eq!(old["n"], new["n"], "{slug}");
            assert_eq!(old["reported_yes"], new["reported_yes"], "{slug}");
            // One code path now estimates every design (the per-record value of the
            // matrix): the same formula, summed in another order, so equal to 1e-12.
            let (old, new) = (old["estimate"].as_f64(), new["estimate"].as_f64());
            match (old, new) {
                (Some(old), Some(new)) => assert!((old - new).abs() < 1e-12, "{slug}: {old} {new}"),
                _ => assert_eq!(old, new, "{slug}"),
            }
        }
    }
    // The unused invitations are kept (links made before must pin the key migration 0005
    // drew for an open survey; this one is closed now).
    let unused: i64 = app
        .inspect()
        .query_row("SELECT count(*) FROM invitations", [], |row| row.get(0))
        .unwrap();
    assert_eq!(unused, 2);
}

#[tokio::test]
async fn surveys_of_the_first_release_are_english_with_nobody_named_after_migration() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    std::fs::copy(
        format!("{FIXTURE}/deniable.db"),
        directory.path().join("deniable.db"),
    )
    .unwrap();
    let app = spawn_app_in(directory).await;
    for slug in ["exam-honesty-8c53ebf4", "demo"] {
        let definition = public_definition(&app, slug).await;
        assert_eq!(definition["language"], "en", "{slug}");
        assert_eq!(definition["researcher"], "", "{slug}");
        assert_eq!(definition["consent"], Value::Null, "{slug}");
        assert!(form_html(&app, slug).await.contains("<html lang=\"en\">"));
    }
}

/// An unused sign-up link that the first release's owner made for a colleague (its row as
/// that release stored it, `invited_by` naming the owner) creates the colleague's account
/// once the file has gone through every migration (0010 renames the column).
#[tokio::test]
async fn a_colleagues_sign_up_link_made_by_the_first_release_still_creates_the_account() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    let file = directory.path().join("deniable.db");
    std::fs::copy(format!("{FIXTURE}/deniable.db"), &file).unwrap();
    let link = deniable::domain::SecretToken::generate().unwrap();
    let old = rusqlite::Connection::open(&file).unwrap();
    old.execute(
        "INSERT INTO signup_links (token_hash, invited_by, expires_at)
         SELECT ?1, id, ?2 FROM researchers WHERE email = 'owner@example.org'",
        rusqlite::params![
            link.hash().as_bytes(),
            deniable::services::accounts::now_unix() + 3600
        ],
    )
    .unwrap();
    drop(old);

    let app = spawn_app_in(directory).await;
    let issuer: i64 = app
        .inspect()
        .query_row("SELECT issued_by FROM signup_links", [], |row| row.get(0))
        .unwrap();
    assert_eq!(issuer, 1, "the owner's id, kept");
    let path = format!("/setup/{}", link.expose());
    let mut colleague = Browser::new(&app);
    let page = colleague.get_html(&path).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let joined = colleague
        .post_form(
            &path,
            &[
                ("form_token", &form_token),
                ("email", "colleague@example.org"),
                ("password", PASSWORD),
                ("password_again", PASSWORD),
            ],
        )
        .await;
    assert_eq!(joined.status(), 303);
    assert_eq!(colleague.get("/surveys").await.status(), 200, "signed in");
}
