//! Crash durability: runs the real server under submission load, kills it with SIGKILL at
//! random moments, restarts it, and checks that every acknowledged receipt is still stored
//! and that `PRAGMA integrity_check` stays ok. Run through `scripts/crash-test`.
//!
//! Traffic goes to 127.0.0.1 only; the number of cycles and the time per cycle are bounded.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Simultaneous submitting clients, like `simulate --concurrency`.
const CLIENTS: usize = 16;
/// How long the server runs under load before it is killed: a random moment in this range.
const LIFETIME_MS: std::ops::Range<u64> = 50..800;

struct Options {
    binary: PathBuf,
    cycles: usize,
    seed: u64,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        binary: PathBuf::new(),
        cycles: 50,
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--binary" => options.binary = PathBuf::from(value),
            "--cycles" => options.cycles = value.parse().map_err(|e| format!("--cycles: {e}"))?,
            "--seed" => options.seed = value.parse().map_err(|e| format!("--seed: {e}"))?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if !options.binary.is_file() {
        return Err("--binary must name the deniable executable".to_owned());
    }
    Ok(options)
}

/// Starts the server on a free loopback port and returns it with its base URL.
fn start(binary: &Path, db: &Path) -> Child {
    Command::new(binary)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--submissions-per-minute",
            "0",
        ])
        // An epoch (VACUUM, WAL truncation) within a second of any write, so that many
        // kills land in the middle of one: nothing acknowledged may be lost there either.
        .args(["--compact-every", "1"])
        .args(["--workers", "2"])
        .arg("--db")
        .arg(db)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts")
}

fn address_of(child: &mut Child) -> String {
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("the server prints its address");
    std::thread::spawn(move || for _ in stdout.lines() {});
    line.trim()
        .strip_prefix("Deniable is serving on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}

/// One client: submits random reports until the server dies; keeps each receipt that came
/// back with 201, i.e. each response the server acknowledged.
async fn submit_until_killed(
    client: reqwest::Client,
    url: String,
    acknowledged: Arc<Mutex<Vec<String>>>,
) {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    loop {
        let answers = json!({"1": rng.random_range(0..2), "2": rng.random_range(0..2), "3": rng.random_range(0..2)});
        let Ok(response) = client
            .post(&url)
            .json(&json!({ "answers": answers }))
            .send()
            .await
        else {
            return;
        };
        if response.status() != 201 {
            return;
        }
        let Ok(body) = response.json::<Value>().await else {
            return;
        };
        if let Some(receipt) = body["receipt"].as_str() {
            acknowledged.lock().unwrap().push(receipt.to_owned());
        }
    }
}

fn integrity(db: &Path) -> String {
    let connection = rusqlite::Connection::open(db).expect("the database opens");
    connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("integrity_check runs")
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "crash_test: {message}\nusage: crash_test --binary PATH [--cycles 50] [--seed 1]"
            );
            return ExitCode::from(2);
        }
    };
    let directory = tempfile::tempdir().expect("a temporary directory");
    let db = directory.path().join("crash.db");
    let mut rng = rand::rngs::StdRng::seed_from_u64(options.seed);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let mut integrity_failures = 0;

    for cycle in 1..=options.cycles {
        let mut server = start(&options.binary, &db);
        let url = format!("{}/api/surveys/demo/responses", address_of(&mut server));
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                tokio::spawn(submit_until_killed(
                    client.clone(),
                    url.clone(),
                    Arc::clone(&acknowledged),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(rng.random_range(LIFETIME_MS))).await;
        server.kill().expect("SIGKILL"); // std's kill is SIGKILL on Unix
        server.wait().expect("the killed server is reaped");
        for client in clients {
            let _ = client.await;
        }
        let verdict = integrity(&db);
        if verdict != "ok" {
            integrity_failures += 1;
            eprintln!("cycle {cycle}: integrity_check: {verdict}");
        }
        eprint!(
            "\rcycle {cycle}/{}: {} receipts acknowledged so far",
            options.cycles,
            acknowledged.lock().unwrap().len()
        );
    }
    eprintln!();

    // A last, clean start: every acknowledged receipt must be there.
    let mut server = start(&options.binary, &db);
    let base = address_of(&mut server);
    let receipts = std::mem::take(&mut *acknowledged.lock().unwrap());
    let lost: usize = stream::iter(&receipts)
        .map(|receipt| {
            let (client, url) = (&client, format!("{base}/api/surveys/demo/responses/lookup"));
            async move {
                let lookup = client
                    .post(&url)
                    .json(&serde_json::json!({ "receipt": receipt }))
                    .send()
                    .await;
                match lookup {
                    Ok(response) if response.status() == 200 => 0,
                    _ => 1,
                }
            }
        })
        .buffer_unordered(CLIENTS)
        .fold(0, |lost, one| async move { lost + one })
        .await;
    server.kill().ok();
    server.wait().ok();
    let final_verdict = integrity(&db);
    if final_verdict != "ok" {
        integrity_failures += 1;
    }

    println!(
        "crash test: {} cycles of SIGKILL under load in {:.0} s",
        options.cycles,
        started.elapsed().as_secs_f64()
    );
    println!("receipts checked: {}", receipts.len());
    println!("receipts lost: {lost}");
    println!(
        "integrity_check: {} of {} ok",
        options.cycles + 1 - integrity_failures,
        options.cycles + 1
    );
    if lost == 0 && integrity_failures == 0 && !receipts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
