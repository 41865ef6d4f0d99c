//! Graceful shutdown of the real binary: on SIGTERM or Ctrl-C it stops accepting, answers
//! what is in flight, commits everything it acknowledged, and exits 0.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use deniable::domain::Receipt;
use futures_util::future::join_all;
use serde_json::{json, Value};

/// Starts `deniable serve` on a free port; returns the child and its base URL.
fn start_server(db: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--submissions-per-minute",
            "0",
        ])
        .arg("--db")
        .arg(db)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let address = crate::common::serving_address(child.stdout.take().unwrap());
    (child, address)
}

fn send_signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn wait_for_exit(child: &mut Child) -> std::process::ExitStatus {
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child.kill().unwrap();
    panic!("the server did not stop within 15 s");
}

async fn submit(client: &reqwest::Client, address: &str) -> Option<String> {
    let response = client
        .post(format!("{address}/api/surveys/demo/responses"))
        .json(&json!({"answers": {"1": 1, "2": 0, "3": 1}}))
        .send()
        .await
        .ok()?;
    if response.status() != 201 {
        return None;
    }
    let body: Value = response.json().await.ok()?;
    Some(body["receipt"].as_str()?.to_owned())
}

fn stored(db: &Path, receipt: &str) -> bool {
    let connection = rusqlite::Connection::open(db).unwrap();
    let record_id = Receipt::parse(receipt).unwrap().response_id().record_id();
    connection
        .query_row(
            "SELECT count(*) FROM all_responses WHERE record_id = ?1",
            [&record_id.as_bytes()[..]],
            |row| row.get::<_, i64>(0),
        )
        .unwrap()
        == 1
}

async fn acknowledged_responses_survive(signal: &str) {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let (mut child, address) = start_server(&db);
    let client = reqwest::Client::new();

    let mut receipts = Vec::new();
    for _ in 0..10 {
        receipts.push(submit(&client, &address).await.expect("acknowledged"));
    }
    // Submissions in flight while the signal arrives: whichever are acknowledged must stay.
    let in_flight = join_all((0..40).map(|_| submit(&client, &address)));
    let signalled = async {
        tokio::time::sleep(Duration::from_millis(5)).await;
        send_signal(&child, signal);
    };
    let (late, ()) = tokio::join!(in_flight, signalled);
    receipts.extend(late.into_iter().flatten());

    let status = wait_for_exit(&mut child).await;
    assert_eq!(status.code(), Some(0), "{signal}: exit status {status}");
    assert!(
        client
            .get(format!("{address}/healthz"))
            .send()
            .await
            .is_err(),
        "nothing listens after the stop"
    );
    let lost = receipts.iter().filter(|r| !stored(&db, r)).count();
    eprintln!("{signal}: {} acknowledged, {lost} lost", receipts.len());
    assert_eq!(lost, 0);
}

#[tokio::test]
async fn on_sigterm_the_server_commits_what_it_acknowledged_and_exits_0() {
    acknowledged_responses_survive("-TERM").await;
}

#[tokio::test]
async fn on_ctrl_c_the_server_stops_just_as_gracefully() {
    acknowledged_responses_survive("-INT").await;
}

#[tokio::test]
async fn the_log_of_a_graceful_stop_has_its_last_epoch_and_no_colour_codes_in_a_file() {
    let directory = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(directory.path().join("deniable.db"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let address = crate::common::serving_address(child.stdout.take().unwrap());
    let client = reqwest::Client::new();
    assert!(submit(&client, &address).await.is_some());
    send_signal(&child, "-TERM");
    assert!(wait_for_exit(&mut child).await.success());
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    assert!(log.contains("compaction epoch"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "no ANSI escape in a log that is not a terminal"
    );
}
