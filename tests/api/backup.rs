//! Backups while the server serves, and restores that refuse a database in use.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::common::{spawn_app, spawn_app_in, TestApp};
use deniable::db::backup;
use serde_json::json;

fn response_ids(db: &Path) -> BTreeSet<String> {
    let connection = rusqlite::Connection::open(db).unwrap();
    let mut statement = connection
        .prepare("SELECT hex(record_id) FROM all_responses")
        .unwrap();
    let ids = statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids
}

/// How many responses wait in the table of those stored since the last epoch.
fn arriving(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT count(*) FROM arriving_responses", [], |row| {
            row.get(0)
        })
        .unwrap()
}

/// integrity_check is ok, and the tallies agree with the stored reports (a torn copy
/// would disagree).
fn assert_consistent(db: &Path) {
    let connection = rusqlite::Connection::open(db).unwrap();
    let verdict: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
    let mut counted = std::collections::BTreeMap::<i64, i64>::new();
    let mut responses = connection
        .prepare("SELECT reports FROM all_responses")
        .unwrap();
    for reports in responses
        .query_map([], |row| row.get::<_, Vec<u8>>(0))
        .unwrap()
    {
        for report in deniable::db::responses::decode_reports(&reports.unwrap()).unwrap() {
            *counted.entry(report.question_id.get()).or_default() += 1;
        }
    }
    let mut tallies = connection
        .prepare(
            "SELECT question_id, sum(n) FROM report_counts GROUP BY question_id HAVING sum(n) > 0",
        )
        .unwrap();
    let tallied: std::collections::BTreeMap<i64, i64> = tallies
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(tallied, counted, "the report counts match the reports");
}

async fn submit_many(app: &TestApp, count: usize) {
    for _ in 0..count {
        app.submit_ok("demo", json!({"1": 1, "2": 0, "3": 1})).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_is_consistent_and_holds_every_earlier_response() {
    let app = spawn_app().await;
    submit_many(&app, 200).await;
    let before = response_ids(&app.db_path);

    // Keep submitting while the backup runs.
    let stop = Arc::new(AtomicBool::new(false));
    let load = {
        let (client, url, stop) = (
            app.client.clone(),
            app.url("/api/surveys/demo/responses"),
            Arc::clone(&stop),
        );
        tokio::spawn(async move {
            let mut stored = 0;
            while !stop.load(Ordering::Relaxed) {
                let response = client
                    .post(&url)
                    .json(&json!({"answers": {"1": 0, "2": 1, "3": 0}}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 201);
                stored += 1;
            }
            stored
        })
    };
    let directory = tempfile::tempdir().unwrap();
    let copy = directory.path().join("backup.db");
    let (source, target) = (app.db_path.clone(), copy.clone());
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    tokio::task::spawn_blocking(move || backup::backup(&source, &target))
        .await
        .unwrap()
        .expect("the backup succeeds while the server writes");
    let after_backup = response_ids(&app.db_path).len();
    stop.store(true, Ordering::Relaxed);
    let during = load.await.unwrap();
    eprintln!("backup: {during} submissions stored while it ran");
    assert!(
        after_backup > before.len(),
        "the server kept storing while the backup ran"
    );

    assert_consistent(&copy);
    assert_eq!(
        arriving(&copy),
        0,
        "a backup is an epoch of its own: the live file's newest responses are not set apart"
    );
    assert!(
        arriving(&app.db_path) > 0,
        "the live file had responses since its epoch"
    );
    let copied = response_ids(&copy);
    assert!(
        copied.is_superset(&before),
        "every earlier response is in the backup"
    );
    assert!(copied.is_subset(&response_ids(&app.db_path)));

    // Once the load stops, a second backup holds exactly the live responses.
    let again = directory.path().join("again.db");
    backup::backup(&app.db_path, &again).unwrap();
    assert_eq!(response_ids(&again), response_ids(&app.db_path));
    assert!(
        backup::backup(&app.db_path, &again).is_err(),
        "a backup never overwrites"
    );
}

#[tokio::test]
async fn restore_refuses_a_database_in_use_and_brings_a_backup_back_once_stopped() {
    let app = spawn_app().await;
    submit_many(&app, 20).await;
    let directory = tempfile::tempdir().unwrap();
    let copy = directory.path().join("backup.db");

    let output = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .arg("backup")
        .arg(&copy)
        .arg("--db")
        .arg(&app.db_path)
        .output()
        .unwrap();
    assert!(output.status.success());
    let said = String::from_utf8(output.stdout).unwrap();
    assert!(said.contains("compacted"), "{said}");
    assert!(
        !copy.with_file_name("backup.db-wal").exists(),
        "a backup is one self-contained file"
    );
    let saved = response_ids(&copy);
    assert_eq!(saved.len(), 20);

    submit_many(&app, 5).await; // after the backup: gone once restored
    let db_path = app.db_path.clone();
    let restore = || {
        Command::new(env!("CARGO_BIN_EXE_deniable"))
            .arg("restore")
            .arg(&copy)
            .arg("--db")
            .arg(&db_path)
            .output()
            .unwrap()
    };
    let refused = restore();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("in use"));
    assert_eq!(response_ids(&app.db_path).len(), 25, "nothing was touched");

    let kept = app.stop().await;
    let restored = restore();
    assert!(
        restored.status.success(),
        "{}",
        String::from_utf8_lossy(&restored.stderr)
    );
    assert_consistent(&db_path);
    assert_eq!(response_ids(&db_path), saved);

    let app = spawn_app_in(kept).await;
    let results = app
        .client
        .get(app.url("/api/surveys/demo"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        results.status(),
        200,
        "the server starts on the restored database"
    );
}
