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
use crate::common::{spawn_app, spawn_app_with_epochs, test_settings};
use crate::workspace::signed_in;

pub(crate) const FIXTURE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/fixtures/v0-80e3bd5");

pub(crate) fn hex_sha256(text: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
}

/// Every file of the database: the file itself, its WAL and shared memory.
pub(crate) fn database_files(db: &Path) -> Vec<PathBuf> {
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
pub(crate) fn occurrences(files: &[PathBuf], needles: &[Vec<u8>]) -> usize {
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
pub(crate) fn serve_with_epochs(db: &Path) -> (std::process::Child, String) {
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

pub(crate) fn cli(db: &Path, args: &[&str], stdin: &str) -> std::process::Output {
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

/// `deniable serve` on `db` with an epoch within a second of any write, its log and what
/// it prints after its first line kept.
pub(crate) struct LoggedServer {
    child: std::process::Child,
    address: String,
    log: Arc<Mutex<String>>,
    printed: Arc<Mutex<String>>,
}

impl LoggedServer {
    pub(crate) fn start(db: &Path) -> Self {
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
    pub(crate) async fn wait_for_log(&self, text: &str) {
        for _ in 0..200 {
            if self.log.lock().unwrap().contains(text) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no log line with {text:?}:\n{}", self.log.lock().unwrap());
    }

    pub(crate) async fn submit(&self, client: &reqwest::Client) {
        let response = client
            .post(format!("{}/api/surveys/demo/responses", self.address))
            .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }

    /// SIGTERM; returns what it printed once it exited with status 0.
    pub(crate) fn stop(mut self) -> String {
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
pub(crate) fn wal_index_entries(db: &Path) -> Option<Vec<u32>> {
    let bytes = std::fs::read(db.with_file_name("deniable.db-shm")).ok()?;
    Some(WalIndex::read(&bytes).entries())
}

/// A process with the database open (here: this test, reading it) keeps SQLite from
/// deleting the WAL and its index: docs/design.md, invariant 8, names the exception.
pub(crate) fn hold_open(db: &Path) -> rusqlite::Connection {
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
