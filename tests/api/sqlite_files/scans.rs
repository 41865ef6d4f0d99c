//! What a deletion, a close or a run leaves in every file (WAL and its index included, and
//! later backups): scans of the bytes, not queries.

use serde_json::{json, Value};

use super::{database_files, occurrences};
use crate::common::{error_code, receipt_and_response_id, spawn_app, TokenDevice};
use crate::invitations::{answers, definition};
use crate::privacy::{current_year_month, USER_AGENT};
#[tokio::test]
async fn a_deleted_survey_leaves_no_response_invitation_or_token_in_any_file_or_later_backup() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let created = app
        .create_survey(
            &token,
            &json!({"title": "To destroy", "requires_invitation": true,
                    "questions": [{"text": "Sensitive?", "epsilon": 1.0}]}),
        )
        .await;
    let created: Value = created.json().await.unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let question = created["questions"][0]["id"].as_i64().unwrap();
    assert_eq!(
        app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
            .await
            .status(),
        200
    );
    let invitations = app.invitations(&token, &slug, 60).await;
    let private_key: Vec<u8> = app
        .inspect()
        .query_row("SELECT private_key FROM invitation_keys", [], |row| {
            row.get(0)
        })
        .unwrap();
    let mut needles = vec![private_key];
    let public_key = app.public_key(&slug).await;
    for (i, code) in invitations.codes.iter().enumerate() {
        needles.push(
            ring::digest::digest(&ring::digest::SHA256, code.as_bytes())
                .as_ref()
                .to_vec(),
        );
        if i < 40 {
            // Redeemed, then spent: the blinded element, the evaluation, the spent token's
            // hash and the response are all the survey's data.
            let device = TokenDevice::new();
            let answer: Value = app
                .redeem(&slug, code, &device.blinded)
                .await
                .json()
                .await
                .unwrap();
            let bought = device.finalize(&answer, &public_key);
            needles.push(blind_tokens::from_base64url(&device.blinded).unwrap());
            needles.push(
                blind_tokens::from_base64url(answer["evaluation"].as_str().unwrap()).unwrap(),
            );
            needles.push(
                ring::digest::digest(
                    &ring::digest::SHA256,
                    &blind_tokens::from_base64url(bought["input"].as_str().unwrap()).unwrap(),
                )
                .as_ref()
                .to_vec(),
            );
            let response = app
                .submit_with_token(
                    &slug,
                    json!({ question.to_string(): i % 2 }),
                    Some(&bought),
                    None,
                )
                .await;
            assert_eq!(response.status(), 201);
            let record_id: Value = response.json().await.unwrap();
            let record_id = hex::decode(record_id["record_id"].as_str().unwrap()).unwrap();
            needles.push(record_id);
        }
    }
    let files = database_files(&app.db_path);
    assert!(
        occurrences(&files, &needles) > 0,
        "the scan finds the survey's data before the deletion"
    );

    let deleted = app
        .client
        .delete(app.url(&format!("/api/surveys/{slug}")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    assert_eq!(
        occurrences(&database_files(&app.db_path), &needles),
        0,
        "nothing of the deleted survey in the database, WAL or shared memory"
    );
    let backup = app.db_path.with_file_name("after-deletion.db");
    deniable::db::backup::backup(&app.db_path, &backup).unwrap();
    assert_eq!(occurrences(&[backup], &needles), 0);
    let gone = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
}

#[tokio::test]
async fn closing_erases_the_private_key_from_every_file_and_only_retries_still_succeed() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let codes = app.invitations(&token, &slug, 3).await.codes;
    let private_key: Vec<u8> = app
        .inspect()
        .query_row("SELECT private_key FROM invitation_keys", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(private_key.len(), 32);
    let spent = app.token_for(&slug, &codes[0]).await;
    let (_, response_id) = receipt_and_response_id();
    let first = app
        .submit_with_token(&slug, answers(&ids), Some(&spent), Some(&response_id))
        .await;
    assert_eq!(first.status(), 201);
    let unspent = app.token_for(&slug, &codes[1]).await;
    let device = TokenDevice::new();
    let fingerprint = definition(&app, &slug).await["invitation_key"]["fingerprint"].clone();

    let closed = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);
    let erased: Option<Vec<u8>> = app
        .inspect()
        .query_row("SELECT private_key FROM invitation_keys", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(erased, None);
    for file in ["deniable.db", "deniable.db-wal"] {
        let path = app.db_path.with_file_name(file);
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes
                .windows(32)
                .any(|window| window == private_key.as_slice()),
            "{file} still holds the private key"
        );
    }
    let response = app.redeem(&slug, &codes[2], &device.blinded).await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "survey_not_open");
    let response = app
        .submit_with_token(&slug, answers(&ids), Some(&unspent), None)
        .await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "survey_not_open");
    let retry = app
        .submit_with_token(&slug, answers(&ids), Some(&spent), Some(&response_id))
        .await;
    assert_eq!(retry.status(), 200, "a device's retry is still recognised");
    assert_eq!(
        definition(&app, &slug).await["invitation_key"]["fingerprint"],
        fingerprint,
        "the public key stays, so links can still be checked"
    );
    let response = app.request_invitations(&token, &slug, json!(1)).await;
    assert_eq!(response.status(), 409);
    assert_eq!(error_code(response).await, "survey_closed");
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
    app.close(&token, &slug).await;
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
