//! Epochs with other processes on the same file: the command line writing while the
//! server compacts, another process keeping the WAL's index, responses waiting in their own
//! table until the next epoch, and two server processes sharing one database file.

use std::process::Command;
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::json;

use super::{
    cli, database_files, hex_sha256, hold_open, serve_with_epochs, wal_index_entries, LoggedServer,
};
use crate::common::{receipt_and_response_id, spawn_app, spawn_app_in, TokenDevice};
use crate::invitations::{answers, count, SecondServer};

fn file_count(connection: &rusqlite::Connection, sql: &str) -> i64 {
    connection.query_row(sql, [], |row| row.get(0)).unwrap()
}
#[tokio::test]
async fn command_line_writes_during_epochs_are_all_kept_and_a_stop_leaves_one_file() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let (mut server, address) = serve_with_epochs(&db);
    let client = reqwest::Client::new();
    let submitter = {
        let (client, url) = (
            client.clone(),
            format!("{address}/api/surveys/demo/responses"),
        );
        tokio::spawn(async move {
            let mut stored = 0;
            for i in 0..400 {
                let response = client
                    .post(&url)
                    .json(&json!({"answers": {"1": i % 2, "2": 1, "3": 0}}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 201);
                stored += 1;
                if i % 40 == 0 {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
            }
            stored
        })
    };
    let mut tokens = Vec::new();
    for i in 0..8 {
        let email = format!("colleague{i}@example.org");
        let added = tokio::task::spawn_blocking({
            let db = db.clone();
            let email = email.clone();
            move || {
                cli(
                    &db,
                    &["researcher", "add", &email],
                    "correct horse battery staple\n",
                )
            }
        })
        .await
        .unwrap();
        assert!(added.status.success(), "{added:?}");
        let token = tokio::task::spawn_blocking({
            let db = db.clone();
            move || cli(&db, &["token", "create", &email], "")
        })
        .await
        .unwrap();
        assert!(token.status.success());
        tokens.push(String::from_utf8(token.stdout).unwrap().trim().to_owned());
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    let stored = submitter.await.unwrap();
    // Let at least one more epoch pass, then check every CLI write through the server.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for (i, token) in tokens.iter().enumerate() {
        let response = client
            .get(format!("{address}/api/surveys/demo/results"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        // The first account adopted the demo; the others' tokens are valid, not its owner's.
        let expected = if i == 0 { 200 } else { 404 };
        assert_eq!(response.status(), expected, "colleague{i}'s token");
    }

    let pid = server.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    assert!(server.wait().unwrap().success());
    // The database file is the only file: SQLite deleted the WAL and its index (issue 31).
    assert_eq!(
        database_files(&db),
        std::slice::from_ref(&db),
        "one file after a graceful stop"
    );
    // It alone, copied elsewhere, holds everything.
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(&db, alone.path().join("copy.db")).unwrap();
    let copy = rusqlite::Connection::open(alone.path().join("copy.db")).unwrap();
    let responses: i64 = copy
        .query_row("SELECT count(*) FROM all_responses", [], |row| row.get(0))
        .unwrap();
    assert_eq!(responses, stored);
    let researchers: i64 = copy
        .query_row(
            "SELECT count(*) FROM researchers WHERE email LIKE 'colleague%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(researchers, 8);
}

#[tokio::test]
async fn another_process_holding_the_database_keeps_the_wal_index_which_is_logged_retried_and_deleted_once_it_lets_go(
) {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let server = LoggedServer::start(&db);
    let client = reqwest::Client::new();
    server.wait_for_log("compaction epoch").await;
    assert!(
        wal_index_entries(&db).is_none_or(|entries| entries.is_empty()),
        "an epoch with the database to itself deletes the WAL's index"
    );

    let holder = hold_open(&db);
    for _ in 0..20 {
        server.submit(&client).await;
    }
    // Each try is logged with its count, and retried at every wake (here each second).
    server
        .wait_for_log("another process has the database open")
        .await;
    server.wait_for_log("tries=2").await;
    assert!(
        wal_index_entries(&db).is_some_and(|entries| !entries.is_empty()),
        "the exception: SQLite keeps the index while another process has the file open"
    );
    drop(holder);
    server
        .wait_for_log("the WAL and its index are deleted after all")
        .await;
    assert!(
        wal_index_entries(&db).is_none_or(|entries| entries.is_empty()),
        "the next try after the other process let go deletes the index"
    );

    // A stop while another process holds the database keeps both files and says so.
    let holder = hold_open(&db);
    server.submit(&client).await;
    let printed = server.stop();
    assert!(
        printed.contains("Another process has the database open"),
        "{printed}"
    );
    assert!(wal_index_entries(&db).is_some_and(|entries| !entries.is_empty()));
    drop(holder);
    // The next start clears the index, its epoch and stop delete both files.
    let server = LoggedServer::start(&db);
    server.wait_for_log("compaction epoch").await;
    let printed = server.stop();
    assert!(printed.contains("the database file alone holds everything"));
    assert_eq!(
        database_files(&db),
        std::slice::from_ref(&db),
        "one file after the stop"
    );
}

/// The responses since the last epoch wait in `arriving_responses` (SQLite); every route
/// reads both tables, and each epoch (the graceful stop's too) merges them into
/// `stored_responses`.
#[tokio::test]
async fn responses_since_the_last_epoch_wait_in_their_own_table_and_every_route_sees_both() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    let answer = |i: usize| json!({ ids[0].to_string(): i % 2 });
    let mut merged = Vec::new();
    for i in 0..20 {
        merged.push(app.submit_ok(&slug, answer(i)).await);
    }
    app.db.compact().await.unwrap();
    let tables = |app: &crate::common::TestApp| {
        let db = app.inspect();
        (
            file_count(&db, "SELECT count(*) FROM stored_responses"),
            file_count(&db, "SELECT count(*) FROM arriving_responses"),
        )
    };
    assert_eq!(tables(&app), (20, 0), "the epoch merged every response");
    let mut arriving = Vec::new();
    for i in 20..40 {
        arriving.push(app.submit_ok(&slug, answer(i)).await);
    }
    assert_eq!(
        tables(&app),
        (20, 20),
        "new responses wait apart until the next epoch"
    );

    // A retry is found in either table, and a different body under its id is refused.
    for (i, receipt) in [(0, &merged[0]), (20, &arriving[0])] {
        let body = |report: usize| {
            json!({ "answers": answer(report), "response_id": hex_sha256(receipt) }).to_string()
        };
        assert_eq!(
            app.submit_raw(&slug, body(i)).await.status(),
            200,
            "retry {i}"
        );
        assert_eq!(
            app.submit_raw(&slug, body(i + 1)).await.status(),
            409,
            "other {i}"
        );
        assert_eq!(app.lookup(&slug, receipt).await.status(), 200);
    }
    // Exports wait for close; the withdrawals below then take effect at once.
    app.close(&token, &slug).await;
    let csv = app.export_csv(&token, &slug).await;
    let rows: Vec<&str> = csv.lines().skip(1).map(|line| &line[..64]).collect();
    assert_eq!(rows.len(), 40, "the export holds both tables");
    assert!(
        rows.windows(2).all(|pair| pair[0] < pair[1]),
        "one record-id order"
    );

    // A withdrawal finds its response in either table.
    for receipt in [&merged[1], &arriving[1]] {
        assert_eq!(app.withdraw(&slug, receipt).await.status(), 204);
        assert_eq!(app.lookup(&slug, receipt).await.status(), 404);
    }
    assert_eq!(tables(&app), (19, 19));
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 38);

    app.db.close().await.unwrap(); // the graceful stop's epoch
    let app = spawn_app_in(app.stop().await).await;
    assert_eq!(tables(&app), (38, 0), "the next epoch merged the rest");
    assert_eq!(app.lookup(&slug, &arriving[2]).await.status(), 200);
    assert_eq!(app.export_csv(&token, &slug).await.lines().count(), 39);
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 38);
}

#[tokio::test]
async fn two_server_processes_on_one_database_evaluate_one_invitation_and_store_one_spend() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let codes = app.invitations(&token, &slug, 2).await.codes;
    let second = SecondServer::start(&app);
    let servers = [app.address.clone(), second.address.clone()];

    // 100 devices redeem one invitation, half through each process.
    let devices: Vec<TokenDevice> = (0..100).map(|_| TokenDevice::new()).collect();
    let statuses: Vec<u16> = join_all(devices.iter().enumerate().map(|(i, device)| {
        let url = format!("{}/api/surveys/{slug}/redemptions", servers[i % 2]);
        let body = json!({"invitation": codes[0], "blinded": device.blinded});
        let client = app.client.clone();
        async move {
            client
                .post(url)
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    }))
    .await;
    let redeemed = statuses.iter().filter(|&&s| s == 200).count();
    let used = statuses.iter().filter(|&&s| s == 409).count();
    eprintln!("two processes, redemption race: {redeemed} evaluated, {used} refused of 100");
    assert_eq!((redeemed, used), (1, 99));
    assert_eq!(count(&app, "redemptions").await, 1);

    // 100 spends of one token, half through each process.
    let bought = app.token_for(&slug, &codes[1]).await;
    let statuses: Vec<u16> = join_all((0..100).map(|i| {
        let url = format!("{}/api/surveys/{slug}/responses", servers[i % 2]);
        let (_, response_id) = receipt_and_response_id();
        let body = json!({"answers": answers(&ids), "token": bought, "response_id": response_id});
        let client = app.client.clone();
        async move {
            client
                .post(url)
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    }))
    .await;
    let stored = statuses.iter().filter(|&&s| s == 201).count();
    let spent = statuses.iter().filter(|&&s| s == 409).count();
    eprintln!("two processes, token race: {stored} stored, {spent} refused of 100");
    assert_eq!((stored, spent), (1, 99));
    assert_eq!(count(&app, "all_responses").await, 1);
    assert_eq!(count(&app, "spent_tokens").await, 1);
}
