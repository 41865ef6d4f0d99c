//! Durability and consistency: group commit under load, restarts, withdrawals.

use crate::common::{spawn_app, spawn_app_in};
use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};

#[tokio::test]
async fn two_hundred_concurrent_submissions_are_all_stored_and_tallied() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[0.5, 3.0]).await;
    let submissions = (0..200).map(|i| {
        app.submit(
            &slug,
            json!({ ids[0].to_string(): i % 2, ids[1].to_string(): i % 3 % 2 }),
        )
    });
    let statuses: Vec<u16> = join_all(submissions)
        .await
        .iter()
        .map(|response| response.status().as_u16())
        .collect();
    assert!(statuses.iter().all(|&status| status == 201), "{statuses:?}");

    let stored: Vec<Vec<u8>> = app.stored_column("SELECT reports FROM all_responses").await;
    assert_eq!(stored.len(), 200);
    // Recount every stored report and compare with the running tallies.
    let mut recounted = std::collections::BTreeMap::<i64, (u64, u64)>::new();
    for reports in stored {
        for report in deniable::db::responses::decode_reports(&reports).unwrap() {
            let counts = recounted.entry(report.question_id.get()).or_default();
            counts.0 += 1;
            counts.1 += u64::from(report.report);
        }
    }
    let tallied: std::collections::BTreeMap<i64, (u64, u64)> = app
        .db
        .read(|connection| {
            Ok(connection
                .prepare(
                    "SELECT question_id, sum(n), sum(CASE report WHEN 1 THEN n ELSE 0 END)
                     FROM report_counts GROUP BY question_id HAVING sum(n) > 0",
                )?
                .query_map((), |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        (row.get::<_, i64>(1)? as u64, row.get::<_, i64>(2)? as u64),
                    ))
                })?
                .collect::<Result<_, _>>()?)
        })
        .await
        .unwrap();
    assert_eq!(
        tallied, recounted,
        "the report counts equal the stored rows"
    );
    assert_eq!(recounted.values().map(|counts| counts.0).sum::<u64>(), 400);
    let results = app.results(&token, &slug).await;
    assert_eq!(results["questions"][0]["n"], 200);
    assert_eq!(results["questions"][0]["reported_yes"], 100);
}

#[tokio::test]
async fn a_response_acknowledged_before_a_restart_is_there_after_it() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    let receipt = app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    let directory = app.stop().await;

    let app = spawn_app_in(directory).await;
    let stored = app.lookup(&slug, &receipt).await;
    assert_eq!(stored.status(), 200);
    let results = app.results(&token, &slug).await;
    assert_eq!(results["responses"], 1);
}

#[tokio::test]
async fn a_respondent_sees_exactly_their_stored_reports_with_the_receipt() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[0.5, 2.0]).await;
    let receipt = app
        .submit_ok(
            &slug,
            json!({ ids[0].to_string(): 1, ids[1].to_string(): 0 }),
        )
        .await;
    let response = app.lookup(&slug, &receipt).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["reports"][0]["question_id"], ids[0]);
    assert_eq!(body["reports"][0]["report"], 1);
    assert_eq!(body["reports"][1]["report"], 0);
    assert_eq!(body["reports"][1]["epsilon"], 2.0);

    let someone_elses = "A".repeat(43);
    let unknown = app.lookup(&slug, &someone_elses).await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn a_withdrawn_response_leaves_the_tallies_and_the_exports() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    // Ten kept (k = 10: released at close), one withdrawn before.
    let mut kept = Vec::new();
    for _ in 0..10 {
        kept.push(app.submit_ok(&slug, json!({ ids[0].to_string(): 0 })).await);
    }
    let withdrawn = app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;

    let deleted = app.withdraw(&slug, &withdrawn).await;
    assert_eq!(deleted.status(), 204);
    let again = app.withdraw(&slug, &withdrawn).await;
    assert_eq!(again.status(), 404, "a response is withdrawn once");
    let gone = app.lookup(&slug, &withdrawn).await;
    assert_eq!(gone.status(), 404);

    app.close(&token, &slug).await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["questions"][0]["n"], 10);
    assert_eq!(results["questions"][0]["reported_yes"], 0);
    let csv = app.export_csv(&token, &slug).await;
    assert_eq!(
        csv.lines().count(),
        11,
        "header and the kept responses only"
    );
    // The export names a response by its record id: SHA-256 of SHA-256 of the receipt.
    for kept in &kept {
        assert!(csv.contains(&hex_sha256(&hex_sha256(kept))));
    }
    assert!(!csv.contains(&hex_sha256(&hex_sha256(&withdrawn))));
    let stored: i64 = app.stored_value("SELECT count(*) FROM all_responses").await;
    assert_eq!(stored, 10);
}

#[tokio::test]
async fn a_large_export_streams_every_row_in_record_id_order() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    // More than one export page (512 responses).
    let statuses: Vec<u16> = stream::iter(0..1100)
        .map(|i| app.submit(&slug, json!({ ids[0].to_string(): i % 2 })))
        .buffer_unordered(64)
        .map(|response| response.status().as_u16())
        .collect()
        .await;
    assert!(statuses.iter().all(|&status| status == 201));
    app.close(&token, &slug).await;
    let ndjson = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.ndjson"))
        .await
        .text()
        .await
        .unwrap();
    let record_ids: Vec<String> = ndjson
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["record_id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(record_ids.len(), 1100);
    assert!(record_ids.windows(2).all(|pair| pair[0] < pair[1]));
}

/// The response id a receipt maps to, computed independently of the server's code.
pub(crate) fn hex_sha256(receipt: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, receipt.as_bytes());
    hex::encode(digest.as_ref())
}
