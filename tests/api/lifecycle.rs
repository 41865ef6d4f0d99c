//! A database's life: migration from the first release, compaction epochs beside other
//! writers and readers, a graceful stop that leaves one self-contained file and no WAL or
//! WAL index (unless another process holds the database open), deletion (by hand and by
//! retention date) that leaves nothing behind, frozen questions, and live pages that move
//! only in steps of `min_cell` responses. (docs/design.md, invariants 5 and 8.)

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::at_rest::wal_index::WalIndex;
use crate::common::{spawn_app, spawn_app_in, spawn_app_with_epochs, test_settings, TokenDevice};
use crate::workspace::{signed_in, Browser, PASSWORD};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/fixtures/v0-80e3bd5");

fn hex_sha256(text: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
}

/// Every file of the database: the file itself, its WAL and shared memory.
fn database_files(db: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        })
        .filter(|path| path.exists())
        .collect()
}

/// How many of `needles` occur anywhere in the files.
fn occurrences(files: &[PathBuf], needles: &[Vec<u8>]) -> usize {
    let contents: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    needles
        .iter()
        .filter(|needle| {
            contents.iter().any(|bytes| {
                bytes
                    .windows(needle.len())
                    .any(|window| window == &needle[..])
            })
        })
        .count()
}

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
    let token = deniable::accounts::create_token(
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
    let connection = rusqlite::Connection::open(&app.db_path).unwrap();
    connection.busy_timeout(Duration::from_secs(5)).unwrap();
    for statement in [
        "UPDATE questions SET epsilon = 5.0 WHERE id = ?1",
        "UPDATE questions SET text = 'Changed?' WHERE id = ?1",
        "DELETE FROM questions WHERE id = ?1",
    ] {
        let refused = connection.execute(statement, [ids[0]]);
        assert!(refused.is_err(), "{statement} was allowed");
    }
    let survey_id: i64 = connection
        .query_row("SELECT id FROM surveys WHERE slug = ?1", [&slug], |row| {
            row.get(0)
        })
        .unwrap();
    let added = connection.execute(
        "INSERT INTO questions (survey_id, position, text, epsilon) VALUES (?1, 9, 'New?', 1.0)",
        [survey_id],
    );
    assert!(added.is_err(), "a question was added to an open survey");
    // Deleting the whole survey stays possible.
    let deleted = connection
        .execute("DELETE FROM surveys WHERE id = ?1", [survey_id])
        .unwrap();
    assert_eq!(deleted, 1);
}

#[tokio::test]
async fn the_live_pages_move_only_in_steps_of_min_cell_responses_and_closing_releases_all() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let token = deniable::accounts::create_token(
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

    let mut shown = Vec::new();
    for answer in [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1] {
        app.submit_ok(&slug, json!({ &question: answer })).await;
        let live: Value = researcher
            .get(&format!("/surveys/{slug}/results.json"))
            .await
            .json()
            .await
            .unwrap();
        shown.push(live["questions"][0]["n"].as_u64().unwrap());
        // The owner's API is not stepped.
        let api = app.results(token, &slug).await;
        assert_eq!(api["questions"][0]["n"], shown.len());
    }
    assert_eq!(shown, [0, 0, 0, 0, 5, 5, 5, 5, 5, 10, 10, 10]);
    app.owner_post(token, &format!("/api/surveys/{slug}/close"))
        .await;
    let live: Value = researcher
        .get(&format!("/surveys/{slug}/results.json"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(live["questions"][0]["n"], 12, "closed: every response");
}

/// The binary, started on `db` with an epoch within a second of any write.
fn serve_with_epochs(db: &Path) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(["serve", "--addr", "127.0.0.1:0", "--compact-every", "1"])
        .args(["--submissions-per-minute", "0", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let address = crate::common::serving_address(child.stdout.take().unwrap());
    (child, address)
}

fn cli(db: &Path, args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(args)
        .arg("--db")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
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

/// `deniable serve` on `db` with an epoch within a second of any write, its log and what
/// it prints after its first line kept.
struct LoggedServer {
    child: std::process::Child,
    address: String,
    log: Arc<Mutex<String>>,
    printed: Arc<Mutex<String>>,
}

impl LoggedServer {
    fn start(db: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
            .args(["serve", "--addr", "127.0.0.1:0", "--compact-every", "1"])
            .args(["--submissions-per-minute", "0", "--db"])
            .arg(db)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let address = first
            .trim()
            .strip_prefix("Deniable is serving on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        let keep = |lines: Box<dyn BufRead + Send>| {
            let kept = Arc::new(Mutex::new(String::new()));
            let writer = Arc::clone(&kept);
            std::thread::spawn(move || {
                for line in lines.lines().map_while(Result::ok) {
                    let mut kept = writer.lock().unwrap();
                    kept.push_str(&line);
                    kept.push('\n');
                }
            });
            kept
        };
        let log = keep(Box::new(BufReader::new(child.stderr.take().unwrap())));
        let printed = keep(Box::new(stdout));
        Self {
            child,
            address,
            log,
            printed,
        }
    }

    /// Waits until the log has a line with `text` (10 s at most).
    async fn wait_for_log(&self, text: &str) {
        for _ in 0..200 {
            if self.log.lock().unwrap().contains(text) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no log line with {text:?}:\n{}", self.log.lock().unwrap());
    }

    async fn submit(&self, client: &reqwest::Client) {
        let response = client
            .post(format!("{}/api/surveys/demo/responses", self.address))
            .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }

    /// SIGTERM; returns what it printed once it exited with status 0.
    fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        assert!(self.child.wait().unwrap().success());
        // The output threads finish with the process's pipes.
        std::thread::sleep(Duration::from_millis(100));
        let printed = self.printed.lock().unwrap().clone();
        printed
    }
}

/// What the WAL's index (`-shm`) beside `db` lists, if it exists: page numbers in frame order.
fn wal_index_entries(db: &Path) -> Option<Vec<u32>> {
    let bytes = std::fs::read(db.with_file_name("deniable.db-shm")).ok()?;
    Some(WalIndex::read(&bytes).entries())
}

/// A process with the database open (here: this test, reading it) keeps SQLite from
/// deleting the WAL and its index: docs/design.md, invariant 8, names the exception.
fn hold_open(db: &Path) -> rusqlite::Connection {
    let holder =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let surveys: i64 = holder
        .query_row("SELECT count(*) FROM surveys", [], |row| row.get(0))
        .unwrap();
    assert!(surveys > 0);
    holder
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
