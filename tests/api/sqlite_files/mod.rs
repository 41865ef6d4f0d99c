//! Tests whose subject is SQLite's files themselves: what the columns of the file hold
//! (docs/design.md, invariant 3), what a deletion or a close leaves in every file, the first
//! release's database migrated in place, and the epochs with other processes on the same
//! file. They read the file directly, which only the SQLite engine has; the PostgreSQL
//! meaning of each has tests of its own (tests/postgres/). Every other module reaches data
//! through the app or the storage seam and runs on both engines (scripts/test lists the
//! SQLite-only modules in one place).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::at_rest::wal_index::WalIndex;

mod epochs;
mod first_release;
mod scans;
mod schema;

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
