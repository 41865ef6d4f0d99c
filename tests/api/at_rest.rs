//! The attacker's test of privacy at rest (issue 16): someone who gets one copy of the
//! database files at one instant — a stolen disk, a seized server, a leaked backup — learns
//! neither the order in which responses arrived, nor which invitation a response used, nor
//! anything of a withdrawn response, for every response stored before the last compaction
//! epoch.
//!
//! One scenario drives the real binary: responses submitted one by one (each its own
//! commit) in a known order, each with its own invitation; some withdrawn; snapshots of
//! every file of the database directory while serving after an epoch, while serving with
//! responses since the last epoch, after SIGTERM, after SIGKILL with and without responses
//! since the last epoch, and the file `deniable backup` writes. On each snapshot, every
//! file is (a) replayed commit by commit when it is a WAL, (b) ranked by where each
//! response's key sits in it (byte offset, and cell offset inside its page), (c) searched
//! for withdrawn responses, for forms of a response's identity that must never be stored
//! (receipt, response id) and for the hashes of used invitations. (A response's reports
//! are not searched for: a few report bytes per question, shared by every response with
//! the same answers, identify nobody; the ids and the invitations do.)
//!
//! [`analyse_directory`] runs the same analysis on any directory of files given the true
//! arrival order, so that it can be pointed at files made by another binary; the second
//! test does exactly that with the binary of the main branch before this work
//! (`DENIABLE_OLD_BINARY=target/oldmain/release/deniable`) and expects it to fail.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use serde_json::{json, Map, Value};

/// Responses stored before the last epoch of the scenario (the ones the promise covers).
const RESPONSES_BEFORE_EPOCH: usize = 1_000;
/// Responses of the current epoch in snapshots 2 and 4 (reported, not asserted).
const RESPONSES_IN_CURRENT_EPOCH: usize = 100;
/// Withdrawn responses, one drawn from each consecutive block of the arrival order.
const WITHDRAWALS: usize = 50;
/// Seed of everything random on the test's side: receipts and which responses withdraw.
const SEED: u64 = 16;
const EPSILONS: [f64; 3] = [1.0, 0.5, 2.0];
/// `--compact-every` while the scenario waits for epochs.
const SHORT_EPOCH_SECONDS: u64 = 2;
/// `--compact-every` while responses must stay in the current epoch.
const LONG_EPOCH_SECONDS: u64 = 3_600;
/// Slack on top of `--compact-every` before concluding that no further epoch is coming:
/// covers the epoch's own duration and the delay of its log line.
const QUIET_MARGIN: Duration = Duration::from_secs(1);
const OWNER: &str = "attacker@example.org";
const PASSWORD: &str = "correct horse battery staple";

/// A chance bound for |Spearman ρ| between a recovered order and the true one over n
/// responses. Without any correlation ρ is approximately normal with mean 0 and standard
/// deviation 1/√(n−1), so 5/√(n−1) is five standard deviations: chance exceeds it with
/// probability 6·10⁻⁷ per figure (about 2·10⁻⁵ over the 30-odd asserted figures of a
/// run). The figures per page have their own exact standard deviation (see
/// [`within_page_correlation`]) and the same five-fold bound.
fn chance_bound(n: usize) -> f64 {
    5.0 / ((n - 1) as f64).sqrt()
}

#[tokio::test]
async fn files_at_rest_reveal_no_arrival_order_no_invitation_and_no_withdrawn_response() {
    let started = Instant::now();
    let reports = attack(Contract::Current, Path::new(env!("CARGO_BIN_EXE_deniable"))).await;
    print_reports(&reports);
    let violations: Vec<String> = reports
        .iter()
        .flat_map(SnapshotReport::violations)
        .collect();
    eprintln!(
        "at_rest: {} snapshots analysed in {:.1} s, {} violations",
        reports.len(),
        started.elapsed().as_secs_f64(),
        violations.len()
    );
    assert!(
        violations.is_empty(),
        "the files reveal what they must not:\n{}",
        violations.join("\n")
    );
}

/// The same attack on the binary of the main branch before issue 16, which must fail it:
/// run with `DENIABLE_OLD_BINARY=target/oldmain/release/deniable`.
#[tokio::test]
async fn the_same_attack_succeeds_against_the_binary_before_privacy_at_rest() {
    let Some(binary) = std::env::var_os("DENIABLE_OLD_BINARY") else {
        eprintln!(
            "skipped: set DENIABLE_OLD_BINARY to a `deniable` binary of main before issue 16 \
             (e.g. target/oldmain/release/deniable) to show that the attack finds what it looks for"
        );
        return;
    };
    let reports = attack(Contract::BeforeIssue16, Path::new(&binary)).await;
    print_reports(&reports);
    let violations: Vec<String> = reports
        .iter()
        .flat_map(SnapshotReport::violations)
        .collect();
    eprintln!("old binary: {} violations found:", violations.len());
    for violation in &violations {
        eprintln!("  {violation}");
    }
    assert!(
        !violations.is_empty(),
        "the attack found nothing in the old binary's files: it would not detect a regression"
    );
}

// ---------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------

/// What the binary under attack speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Contract {
    /// Issue 16: the device sends `response_id`, the database keys a response by its raw
    /// record id, withdrawals are `POST …/responses/withdraw`, epochs every
    /// `--compact-every` seconds, logged as "compaction epoch".
    Current,
    /// Main before issue 16: the server draws the receipt, the database keys a response by
    /// its response id in hex text, withdrawals are `DELETE …/responses/{receipt}`, and
    /// there are no epochs.
    BeforeIssue16,
}

impl Contract {
    fn key_form(self) -> IdForm {
        match self {
            Contract::Current => IdForm::RecordId,
            Contract::BeforeIssue16 => IdForm::ResponseIdText,
        }
    }
}

/// Runs the whole scenario and returns the analysis of every snapshot, in the order taken.
async fn attack(contract: Contract, binary: &Path) -> Vec<SnapshotReport> {
    let workspace = tempfile::tempdir().unwrap();
    let data = workspace.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = data.join("deniable.db");
    let (token, slug) = create_survey_with_the_cli(binary, &db, workspace.path());
    let client = reqwest::Client::new();
    let mut reports = Vec::new();
    let mut logs = String::new();
    let analyse = |label: &str, directory: &Path, arrivals: &[Arrival], boundary| {
        let report = analyse_directory(directory, label, arrivals, contract.key_form(), boundary);
        eprintln!("at_rest: analysed snapshot {label}");
        report
    };

    // Phase 1: every response of the scenario's "before the last epoch" part, then the
    // withdrawals, with frequent epochs.
    let server = Server::start(binary, &db, contract, SHORT_EPOCH_SECONDS);
    let opened = client
        .post(server.url(&format!("/api/surveys/{slug}/open")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200, "the survey opens");
    let question_ids = question_ids(&client, &server, &slug).await;
    let invitations = create_invitations(
        &client,
        &server,
        &token,
        &slug,
        RESPONSES_BEFORE_EPOCH + RESPONSES_IN_CURRENT_EPOCH,
    )
    .await;
    let mut respondents = Respondents {
        client,
        contract,
        slug,
        question_ids,
        rng: StdRng::seed_from_u64(SEED),
        arrivals: Vec::new(),
    };
    let submitting = Instant::now();
    for invitation in &invitations[..RESPONSES_BEFORE_EPOCH] {
        respondents.submit(&server, invitation).await;
    }
    eprintln!(
        "at_rest: {RESPONSES_BEFORE_EPOCH} responses submitted one by one in {:.1} s",
        submitting.elapsed().as_secs_f64()
    );
    // The epoch count is read just before the last write: an epoch logged after it may
    // still have begun before that write (see `wait_for_epoch_after_last_write`).
    let mut epochs_before_last_write = 0;
    for position in withdrawal_positions(&mut respondents.rng) {
        epochs_before_last_write = server.epochs_logged();
        respondents.withdraw(&server, position).await;
    }
    let last_write_acknowledged = Instant::now();
    let stored_so_far = respondents.arrivals.len();
    let copy = snapshot_directory(&data, workspace.path(), "0");
    reports.push(analyse(
        "0 serving, right after the last withdrawal's 204",
        &copy,
        &respondents.arrivals,
        None,
    ));
    server
        .wait_for_epoch_after_last_write(epochs_before_last_write, last_write_acknowledged)
        .await;
    let copy = snapshot_directory(&data, workspace.path(), "1");
    reports.push(analyse(
        "1 serving, an epoch after the last write",
        &copy,
        &respondents.arrivals,
        Some(stored_so_far),
    ));
    logs.push_str(&server.terminate().await);
    let copy = snapshot_directory(&data, workspace.path(), "3");
    reports.push(analyse(
        "3 after SIGTERM",
        &copy,
        &respondents.arrivals,
        Some(stored_so_far),
    ));

    // Phase 2: responses of the current epoch (no epoch runs for an hour), a backup, then
    // a crash.
    let server = Server::start(binary, &db, contract, LONG_EPOCH_SECONDS);
    for invitation in &invitations[RESPONSES_BEFORE_EPOCH..] {
        respondents.submit(&server, invitation).await;
    }
    let copy = snapshot_directory(&data, workspace.path(), "2");
    reports.push(analyse(
        "2 serving, K responses since the last epoch",
        &copy,
        &respondents.arrivals,
        Some(stored_so_far),
    ));
    let backup = data.join("deniable-backup.db");
    run_cli(
        binary,
        &[
            "backup".as_ref(),
            backup.as_os_str(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        None,
    );
    let backup_only = workspace.path().join("snapshot-6");
    std::fs::create_dir(&backup_only).unwrap();
    std::fs::copy(&backup, backup_only.join("deniable-backup.db")).unwrap();
    // A backup is an epoch of its own: the promise covers every response in it.
    reports.push(analyse(
        "6 the file of `deniable backup` while serving",
        &backup_only,
        &respondents.arrivals,
        Some(respondents.arrivals.len()),
    ));
    logs.push_str(&server.kill());
    let copy = snapshot_directory(&data, workspace.path(), "4");
    reports.push(analyse(
        "4 after SIGKILL, K responses since the last epoch",
        &copy,
        &respondents.arrivals,
        Some(stored_so_far),
    ));

    // Phase 3: a restart whose only epoch follows every write, then a crash.
    let server = Server::start(binary, &db, contract, SHORT_EPOCH_SECONDS);
    server.wait_for_first_epoch().await;
    logs.push_str(&server.kill());
    let copy = snapshot_directory(&data, workspace.path(), "5");
    reports.push(analyse(
        "5 after SIGKILL, no write since the last epoch",
        &copy,
        &respondents.arrivals,
        Some(respondents.arrivals.len()),
    ));

    // The server's own log is a file at rest too: nothing of a respondent belongs in it.
    let logs_only = workspace.path().join("snapshot-logs");
    std::fs::create_dir(&logs_only).unwrap();
    std::fs::write(logs_only.join("server-stderr.log"), logs).unwrap();
    reports.push(analyse(
        "L the servers' logs (stderr of the three runs)",
        &logs_only,
        &respondents.arrivals,
        Some(respondents.arrivals.len()),
    ));
    reports
}

/// One position per consecutive block of the first `RESPONSES_BEFORE_EPOCH` arrivals, so
/// the withdrawals are spread over the whole order.
fn withdrawal_positions(rng: &mut StdRng) -> Vec<usize> {
    let block = RESPONSES_BEFORE_EPOCH / WITHDRAWALS;
    (0..WITHDRAWALS)
        .map(|k| k * block + rng.random_range(0..block))
        .collect()
}

/// A researcher, a token and a draft survey that requires invitations, made with the CLI
/// as an operator would, before the server runs. Returns the token and the slug.
fn create_survey_with_the_cli(binary: &Path, db: &Path, workspace: &Path) -> (String, String) {
    let db_args = ["--db".as_ref(), db.as_os_str()];
    let add: Vec<&std::ffi::OsStr> = ["researcher".as_ref(), "add".as_ref(), OWNER.as_ref()]
        .into_iter()
        .chain(db_args)
        .collect();
    run_cli(binary, &add, Some(PASSWORD));
    let create_token: Vec<&std::ffi::OsStr> = ["token".as_ref(), "create".as_ref(), OWNER.as_ref()]
        .into_iter()
        .chain(db_args)
        .collect();
    let token = run_cli(binary, &create_token, None).trim().to_owned();
    let questions: Vec<Value> = EPSILONS
        .iter()
        .enumerate()
        .map(|(i, epsilon)| json!({"text": format!("Sensitive question {}?", i + 1), "epsilon": epsilon}))
        .collect();
    let definition = workspace.join("definition.json");
    std::fs::write(
        &definition,
        json!({
            "title": "At rest",
            "description": "The attacker's test.",
            "requires_invitation": true,
            "questions": questions,
        })
        .to_string(),
    )
    .unwrap();
    let create_survey: Vec<&std::ffi::OsStr> = [
        "survey".as_ref(),
        "create".as_ref(),
        "--owner".as_ref(),
        OWNER.as_ref(),
        "--file".as_ref(),
        definition.as_os_str(),
    ]
    .into_iter()
    .chain(db_args)
    .collect();
    let created = run_cli(binary, &create_survey, None);
    let slug = created
        .strip_prefix("Created draft survey ")
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("unexpected output of `survey create`: {created:?}"))
        .to_owned();
    (token, slug)
}

/// Runs the CLI to completion, feeding `stdin` as its first line; returns its stdout.
fn run_cli(binary: &Path, args: &[&std::ffi::OsStr], stdin: Option<&str>) -> String {
    let mut child = Command::new(binary)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().unwrap();
    if let Some(line) = stdin {
        writeln!(input, "{line}").unwrap();
    }
    drop(input);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "deniable {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

async fn question_ids(client: &reqwest::Client, server: &Server, slug: &str) -> Vec<i64> {
    let definition: Value = client
        .get(server.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    definition["questions"]
        .as_array()
        .expect("the definition lists its questions")
        .iter()
        .map(|question| question["id"].as_i64().unwrap())
        .collect()
}

/// Invitation codes from the owner's mail-merge CSV, in the order handed out.
async fn create_invitations(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    slug: &str,
    count: usize,
) -> Vec<String> {
    let response = client
        .post(server.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(token)
        .json(&json!({ "count": count }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "invitations are created");
    let csv = response.text().await.unwrap();
    let codes: Vec<String> = csv
        .lines()
        .skip(1)
        .map(|line| line.split(',').next().unwrap().to_owned())
        .collect();
    assert_eq!(codes.len(), count);
    codes
}

/// The respondents' side of the scenario: who submitted what, in which order.
struct Respondents {
    client: reqwest::Client,
    contract: Contract,
    slug: String,
    question_ids: Vec<i64>,
    /// Draws the receipts (under the current contract the device draws them).
    rng: StdRng,
    /// Every acknowledged submission, in arrival order.
    arrivals: Vec<Arrival>,
}

impl Respondents {
    /// Submits one response, one request at a time (each its own commit), with its own
    /// invitation. The reports follow a fixed pattern of the arrival position: they are
    /// not what is secret here, the order and the links are.
    async fn submit(&mut self, server: &Server, invitation: &str) {
        let position = self.arrivals.len();
        let answers: Map<String, Value> = self
            .question_ids
            .iter()
            .enumerate()
            .map(|(q, id)| (id.to_string(), json!((position >> q) & 1)))
            .collect();
        let mut body = json!({ "answers": answers, "invitation": invitation });
        let drawn_receipt = (self.contract == Contract::Current).then(|| {
            let mut bytes = [0u8; 32];
            self.rng.fill_bytes(&mut bytes);
            URL_SAFE_NO_PAD.encode(bytes)
        });
        if let Some(receipt) = &drawn_receipt {
            body["response_id"] = json!(hex::encode(sha256(receipt.as_bytes())));
        }
        let slug = &self.slug;
        let response = self
            .client
            .post(server.url(&format!("/api/surveys/{slug}/responses")))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201, "submission {position} is stored");
        let stored: Value = response.json().await.unwrap();
        let receipt = match drawn_receipt {
            Some(receipt) => receipt,
            None => stored["receipt"].as_str().unwrap().to_owned(),
        };
        let arrival = Arrival::new(receipt, sha256(invitation.as_bytes()));
        if self.contract == Contract::Current {
            assert_eq!(
                stored["record_id"].as_str(),
                Some(hex::encode(arrival.record_id).as_str()),
                "the record id is the SHA-256 of the response id's hex text"
            );
        }
        self.arrivals.push(arrival);
    }

    /// Withdraws the response at this arrival position; returns once acknowledged (204).
    async fn withdraw(&mut self, server: &Server, position: usize) {
        let (slug, receipt) = (&self.slug, &self.arrivals[position].receipt);
        let request = match self.contract {
            Contract::Current => self
                .client
                .post(server.url(&format!("/api/surveys/{slug}/responses/withdraw")))
                .json(&json!({ "receipt": receipt })),
            Contract::BeforeIssue16 => self
                .client
                .delete(server.url(&format!("/api/surveys/{slug}/responses/{receipt}"))),
        };
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 204, "the withdrawal is acknowledged");
        self.arrivals[position].withdrawn = true;
    }
}

/// Copies every file of the database directory (database, -wal, -shm, backups) into a new
/// directory: what an attacker who takes the disk now gets.
fn snapshot_directory(data: &Path, workspace: &Path, name: &str) -> PathBuf {
    let copy = workspace.join(format!("snapshot-{name}"));
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(data).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            // A file may vanish between listing and copying (SQLite removes an empty -wal
            // on close): then it is simply not in the snapshot.
            let _ = std::fs::copy(entry.path(), copy.join(entry.file_name()));
        }
    }
    copy
}

// ---------------------------------------------------------------------------------------
// The server process
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct ServerLog {
    text: String,
    epochs: usize,
    last_epoch: Option<Instant>,
}

/// `deniable serve` as a child process, with its log watched for compaction epochs.
struct Server {
    child: Child,
    address: String,
    contract: Contract,
    compact_every: Duration,
    log: Arc<Mutex<ServerLog>>,
    log_reader: Option<JoinHandle<()>>,
}

impl Server {
    fn start(binary: &Path, db: &Path, contract: Contract, compact_every_seconds: u64) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--workers", "2"])
            .args(["--submissions-per-minute", "0"])
            .arg("--db")
            .arg(db)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if contract == Contract::Current {
            command.args(["--compact-every", &compact_every_seconds.to_string()]);
        }
        let mut child = command.spawn().expect("the binary starts");
        let log = Arc::new(Mutex::new(ServerLog::default()));
        let stderr = child.stderr.take().unwrap();
        let written = Arc::clone(&log);
        let log_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = written.lock().unwrap_or_else(PoisonError::into_inner);
                if line.contains("compaction epoch") {
                    log.epochs += 1;
                    log.last_epoch = Some(Instant::now());
                }
                log.text.push_str(&line);
                log.text.push('\n');
            }
        });
        let address = crate::common::serving_address(child.stdout.take().unwrap());
        Self {
            child,
            address,
            contract,
            compact_every: Duration::from_secs(compact_every_seconds),
            log,
            log_reader: Some(log_reader),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn log(&self) -> std::sync::MutexGuard<'_, ServerLog> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn epochs_logged(&self) -> usize {
        self.log().epochs
    }

    /// Returns once an epoch has run after the last write, which was sent when
    /// `epochs_before` epochs had been logged and acknowledged at `acknowledged_at`.
    ///
    /// The first epoch logged after the write was sent may have begun before its commit
    /// (an epoch in progress). But the writer runs an epoch within `--compact-every` of
    /// any commit, so once no epoch has been logged for `--compact-every` plus a margin
    /// since both the last epoch line and the acknowledgement, the last epoch logged is
    /// one that followed the write.
    async fn wait_for_epoch_after_last_write(
        &self,
        epochs_before: usize,
        acknowledged_at: Instant,
    ) {
        if self.contract != Contract::Current {
            return; // No epochs to wait for.
        }
        let quiet = self.compact_every + QUIET_MARGIN;
        let deadline = Instant::now() + quiet * 5;
        loop {
            let (epochs, last_epoch) = {
                let log = self.log();
                (log.epochs, log.last_epoch)
            };
            if let Some(last_epoch) = last_epoch {
                let since = last_epoch.max(acknowledged_at).elapsed();
                if epochs > epochs_before && since >= quiet {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "no compaction epoch logged within {quiet:?} after the last write"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Returns once the first epoch of this process is logged: the server counts the
    /// files it found as written, so that epoch follows every write of earlier runs.
    async fn wait_for_first_epoch(&self) {
        if self.contract != Contract::Current {
            return;
        }
        let deadline = Instant::now() + (self.compact_every + QUIET_MARGIN) * 5;
        while self.epochs_logged() == 0 {
            assert!(
                Instant::now() < deadline,
                "no compaction epoch after start-up"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM, then waits for exit status 0; returns the log.
    async fn terminate(mut self) -> String {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let exit = loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                break exit;
            }
            assert!(Instant::now() < deadline, "no exit within 30 s of SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(exit.code(), Some(0), "SIGTERM: exit status {exit}");
        self.finish_log()
    }

    /// SIGKILL: the process gets no chance to tidy its files. Returns the log.
    fn kill(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.finish_log()
    }

    fn finish_log(&mut self) -> String {
        if let Some(reader) = self.log_reader.take() {
            reader.join().unwrap();
        }
        std::mem::take(&mut self.log().text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed assertion must not leave a server running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------
// The analysis
// ---------------------------------------------------------------------------------------

/// One acknowledged submission, in arrival order, with every form of its identity.
#[derive(Debug, Clone)]
pub struct Arrival {
    /// The 43 base64url characters the respondent keeps.
    pub receipt: String,
    /// Lowercase hex SHA-256 of the receipt's text.
    pub response_id: String,
    /// SHA-256 of the response id's hex text, raw.
    pub record_id: [u8; 32],
    /// SHA-256 of the invitation code's text, as the invitations table holds it.
    pub invitation_hash: [u8; 32],
    pub withdrawn: bool,
}

impl Arrival {
    pub fn new(receipt: String, invitation_hash: [u8; 32]) -> Self {
        let response_id = hex::encode(sha256(receipt.as_bytes()));
        let record_id = sha256(response_id.as_bytes());
        Self {
            receipt,
            response_id,
            record_id,
            invitation_hash,
            withdrawn: false,
        }
    }

    fn form(&self, form: IdForm) -> Vec<u8> {
        match form {
            IdForm::Receipt => self.receipt.as_bytes().to_vec(),
            IdForm::ResponseIdText => self.response_id.as_bytes().to_vec(),
            IdForm::ResponseIdRaw => hex::decode(&self.response_id).unwrap(),
            IdForm::RecordId => self.record_id.to_vec(),
        }
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .try_into()
        .unwrap()
}

/// The forms in which a response's identity could be written to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdForm {
    Receipt,
    ResponseIdText,
    ResponseIdRaw,
    RecordId,
}

impl IdForm {
    const ALL: [IdForm; 4] = [
        IdForm::Receipt,
        IdForm::ResponseIdText,
        IdForm::ResponseIdRaw,
        IdForm::RecordId,
    ];
}

/// Which side of the last epoch a response was stored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Epoch {
    /// Covered by the promise: asserted.
    BeforeLast,
    /// Stored since the last epoch: may be partly ordered; reported.
    Current,
    /// The snapshot was taken when epochs ran during the submissions: reported.
    Unknown,
}

impl Epoch {
    const ALL: [Epoch; 3] = [Epoch::BeforeLast, Epoch::Current, Epoch::Unknown];

    fn of(arrival: usize, stored_before_last_epoch: Option<usize>) -> Self {
        match stored_before_last_epoch {
            None => Epoch::Unknown,
            Some(boundary) if arrival < boundary => Epoch::BeforeLast,
            Some(_) => Epoch::Current,
        }
    }
}

impl fmt::Display for Epoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Epoch::BeforeLast => "before",
            Epoch::Current => "current",
            Epoch::Unknown => "unknown",
        })
    }
}

/// How an attacker orders the responses found in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    /// (a) The first WAL commit (replayed in time order) whose frames hold the response.
    WalFirstCommit,
    /// (b) The byte offset of the response's first occurrence in the file.
    ByteOffset,
    /// (b) Its cell's offset inside its leaf page (SQLite fills a page's cell area from
    /// the end, so a page that only grew keeps its newest cells lowest).
    CellOffset,
    /// (b) The same, compared only among the cells of one page (pooled over pages):
    /// pages fill to different depths, which blurs the offsets of different pages.
    CellOrderWithinPage,
    /// (b) Whether a cell lies out of key order in its page. A page built in one go (by
    /// VACUUM, or when a B-tree page splits) lays its cells out in key order from the end
    /// of the page; a cell inserted later goes wherever there is room. Cells off the
    /// longest key-ordered run were therefore written after the page was built: recent.
    /// After a checkpoint without VACUUM this finds arrival order at z ≈ 10–12 over 1 000
    /// responses (measured while writing this test); after VACUUM, chance.
    CellOutOfKeyOrder,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::WalFirstCommit => "WAL first commit",
            Method::ByteOffset => "byte offset",
            Method::CellOffset => "cell offset in page",
            Method::CellOrderWithinPage => "cell order per page",
            Method::CellOutOfKeyOrder => "cell out of key order",
        })
    }
}

/// What an attacker looks for.
#[derive(Debug, Clone, Copy)]
enum Needle {
    /// The key by which the database stores the still-stored response at this arrival
    /// position: where it is found gives an order.
    Key(usize),
    /// A form of the identity of the response at this position that no file may hold
    /// (for a withdrawn response: every form, the key included).
    Forbidden(usize, IdForm),
    /// The hash of the invitation the response at this position used.
    Invitation(usize),
}

/// Every needle, indexed by its first eight bytes so a file is searched in one pass.
struct NeedleIndex {
    needles: Vec<(Vec<u8>, Needle)>,
    by_prefix: HashMap<[u8; 8], Vec<usize>>,
    /// One bit per possible first three bytes: most offsets are rejected here, before
    /// any hashing.
    first_three_bytes: Vec<u64>,
}

impl NeedleIndex {
    fn new(arrivals: &[Arrival], keyed_by: IdForm) -> Self {
        let mut needles = Vec::new();
        for (position, arrival) in arrivals.iter().enumerate() {
            for form in IdForm::ALL {
                let needle = if form == keyed_by && !arrival.withdrawn {
                    Needle::Key(position)
                } else {
                    Needle::Forbidden(position, form)
                };
                needles.push((arrival.form(form), needle));
            }
            needles.push((
                arrival.invitation_hash.to_vec(),
                Needle::Invitation(position),
            ));
        }
        let mut by_prefix: HashMap<[u8; 8], Vec<usize>> = HashMap::new();
        let mut first_three_bytes = vec![0u64; (1 << 24) / 64];
        for (index, (bytes, _)) in needles.iter().enumerate() {
            by_prefix
                .entry(bytes[..8].try_into().unwrap())
                .or_default()
                .push(index);
            let three = three_byte_prefix(bytes);
            first_three_bytes[three / 64] |= 1 << (three % 64);
        }
        Self {
            needles,
            by_prefix,
            first_three_bytes,
        }
    }

    /// Every occurrence of every needle, by increasing offset.
    fn scan(&self, data: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        for offset in 0..data.len().saturating_sub(7) {
            let rest = &data[offset..];
            let three = three_byte_prefix(rest);
            if self.first_three_bytes[three / 64] & (1 << (three % 64)) == 0 {
                continue;
            }
            let Some(candidates) = self.by_prefix.get(&rest[..8]) else {
                continue;
            };
            for &index in candidates {
                let (bytes, needle) = &self.needles[index];
                if rest.starts_with(bytes) {
                    hits.push(Hit {
                        offset,
                        needle: *needle,
                    });
                }
            }
        }
        hits
    }
}

fn three_byte_prefix(bytes: &[u8]) -> usize {
    (usize::from(bytes[0]) << 16) | (usize::from(bytes[1]) << 8) | usize::from(bytes[2])
}

#[derive(Debug, Clone, Copy)]
struct Hit {
    offset: usize,
    needle: Needle,
}

const WAL_HEADER_BYTES: usize = 32;
const WAL_FRAME_HEADER_BYTES: usize = 24;

/// How a file is cut into pages, as far as the attacker can tell from its header.
enum Layout {
    Database {
        page_size: usize,
    },
    Wal {
        page_size: usize,
        frames: Vec<WalFrame>,
        /// Per frame: the time rank of the commit it belongs to.
        commit_of_frame: Vec<usize>,
    },
    Other,
}

struct WalFrame {
    page_number: u32,
}

/// Where an offset falls: which page (by number), where that page's bytes start in the
/// file, and which WAL frame holds it.
struct PageSpot {
    page_number: u32,
    page_start: usize,
    frame: Option<usize>,
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

impl Layout {
    fn of(name: &str, bytes: &[u8]) -> Self {
        if name.ends_with("-wal") {
            return Self::wal(bytes).unwrap_or(Layout::Other);
        }
        if bytes.len() >= 100 && bytes.starts_with(b"SQLite format 3\0") {
            let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
                1 => 65_536,
                size => usize::from(size),
            };
            return Layout::Database { page_size };
        }
        Layout::Other
    }

    /// Every frame physically present, valid or stale (an attacker reads them all), and
    /// each frame's commit ranked in time: frames of an older WAL generation (a smaller
    /// salt-1: SQLite adds one at each restart of the WAL) first, then file order inside
    /// a generation. A commit ends with a frame whose "database size after commit" is not
    /// zero; frames after the last such frame form one uncommitted group.
    fn wal(bytes: &[u8]) -> Option<Self> {
        if bytes.len() < WAL_HEADER_BYTES || be_u32(bytes, 0) & !1 != 0x377f_0682 {
            return None;
        }
        let page_size = usize::try_from(be_u32(bytes, 8)).ok()?;
        let header_salt = be_u32(bytes, 16);
        let frame_bytes = WAL_FRAME_HEADER_BYTES + page_size;
        let count = (bytes.len() - WAL_HEADER_BYTES) / frame_bytes;
        let frames = (0..count)
            .map(|index| WalFrame {
                page_number: be_u32(bytes, WAL_HEADER_BYTES + index * frame_bytes),
            })
            .collect();
        let commit_of_frame = rank_commits(bytes, count, frame_bytes, header_salt);
        Some(Layout::Wal {
            page_size,
            frames,
            commit_of_frame,
        })
    }

    fn spot(&self, offset: usize) -> Option<PageSpot> {
        match self {
            Layout::Database { page_size } => Some(PageSpot {
                page_number: u32::try_from(offset / page_size + 1).unwrap(),
                page_start: offset - offset % page_size,
                frame: None,
            }),
            Layout::Wal {
                page_size, frames, ..
            } => {
                let frame_bytes = WAL_FRAME_HEADER_BYTES + page_size;
                let inside = offset.checked_sub(WAL_HEADER_BYTES)?;
                let frame = inside / frame_bytes;
                let frame_start = WAL_HEADER_BYTES + frame * frame_bytes;
                let page_start = frame_start + WAL_FRAME_HEADER_BYTES;
                (frame < frames.len() && offset >= page_start).then(|| PageSpot {
                    page_number: frames[frame].page_number,
                    page_start,
                    frame: Some(frame),
                })
            }
            Layout::Other => None,
        }
    }
}

/// Per frame, the time rank of its commit (see [`Layout::wal`]).
fn rank_commits(
    bytes: &[u8],
    frame_count: usize,
    frame_bytes: usize,
    header_salt: u32,
) -> Vec<usize> {
    let mut physical_commit_of_frame = Vec::with_capacity(frame_count);
    // Per physical commit: the age of its generation, from its first frame.
    let mut commit_ages: Vec<u32> = Vec::new();
    let mut starts_commit = true;
    for index in 0..frame_count {
        let at = WAL_HEADER_BYTES + index * frame_bytes;
        if starts_commit {
            commit_ages.push(header_salt.wrapping_sub(be_u32(bytes, at + 8)));
        }
        physical_commit_of_frame.push(commit_ages.len() - 1);
        starts_commit = be_u32(bytes, at + 4) != 0;
    }
    let mut in_time_order: Vec<usize> = (0..commit_ages.len()).collect();
    in_time_order.sort_by_key(|&commit| (Reverse(commit_ages[commit]), commit));
    let mut rank = vec![0; commit_ages.len()];
    for (time, &commit) in in_time_order.iter().enumerate() {
        rank[commit] = time;
    }
    physical_commit_of_frame
        .iter()
        .map(|&commit| rank[commit])
        .collect()
}

/// What one file gives away.
#[derive(Debug)]
pub struct FileReport {
    pub name: String,
    pub bytes: usize,
    pub wal_commits: Option<usize>,
    orders: Vec<OrderFigure>,
    /// Withdrawn responses with any form of their identity in the file, and occurrences.
    pub withdrawn_found: usize,
    pub withdrawn_occurrences: usize,
    /// Stored responses whose receipt or response id (any form but the key) is in the file.
    pub secrets_found: usize,
    /// Which forms of an identity were found, withdrawn or stored (e.g. the key of a
    /// withdrawn response, or a stored response's receipt).
    forms_found: Vec<IdForm>,
    /// Used invitations whose hash is in the file, and how many of them a WAL replay links
    /// to their response (the commit that deletes the invitation is the first to hold the
    /// response), per epoch of the response.
    invitations_found: Vec<(Epoch, usize)>,
    links: Vec<(Epoch, usize)>,
}

#[derive(Debug, Clone, Copy)]
struct OrderFigure {
    method: Method,
    epoch: Epoch,
    n: usize,
    rho: Option<f64>,
    /// Five standard deviations of `rho` under no correlation.
    bound: Option<f64>,
}

/// What one snapshot gives away, file by file.
#[derive(Debug)]
pub struct SnapshotReport {
    pub label: String,
    /// Responses stored before the last epoch, in arrival order (`None`: not known).
    pub stored_before_last_epoch: Option<usize>,
    pub arrivals: usize,
    pub withdrawn: usize,
    pub files: Vec<FileReport>,
}

/// The attack on one directory of files: every file is searched for every form of every
/// arrival's identity and for the used invitations' hashes; WAL files are replayed over
/// the database file of the same name; orders are scored against the true arrival order.
/// `stored_before_last_epoch`: how many of the first arrivals the last epoch covers.
pub fn analyse_directory(
    directory: &Path,
    label: &str,
    arrivals: &[Arrival],
    keyed_by: IdForm,
    stored_before_last_epoch: Option<usize>,
) -> SnapshotReport {
    let index = NeedleIndex::new(arrivals, keyed_by);
    let truth = Truth {
        arrivals,
        keyed_by,
        stored_before_last_epoch,
    };
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let files: Vec<(String, Vec<u8>)> = names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(directory.join(&name)).unwrap();
            (name, bytes)
        })
        .collect();
    let scanned: Vec<(Layout, Vec<Hit>)> = files
        .iter()
        .map(|(name, bytes)| (Layout::of(name, bytes), index.scan(bytes)))
        .collect();
    let reports = files
        .iter()
        .zip(&scanned)
        .map(|((name, bytes), (layout, hits))| {
            // A WAL is replayed over its database: the pages it does not rewrite.
            let base = name.strip_suffix("-wal").and_then(|database| {
                files
                    .iter()
                    .position(|(other, _)| other == database)
                    .map(|at| (&scanned[at].0, scanned[at].1.as_slice()))
            });
            analyse_file(name, bytes, layout, hits, base, &truth)
        })
        .collect();
    SnapshotReport {
        label: label.to_owned(),
        stored_before_last_epoch,
        arrivals: arrivals.len(),
        withdrawn: arrivals.iter().filter(|a| a.withdrawn).count(),
        files: reports,
    }
}

/// What the findings are scored against.
struct Truth<'a> {
    /// Every acknowledged submission, in arrival order.
    arrivals: &'a [Arrival],
    /// The form by which the database keys a stored response.
    keyed_by: IdForm,
    /// How many of the first arrivals the last epoch covers (`None`: not known).
    stored_before_last_epoch: Option<usize>,
}

fn analyse_file(
    name: &str,
    bytes: &[u8],
    layout: &Layout,
    hits: &[Hit],
    base: Option<(&Layout, &[Hit])>,
    truth: &Truth,
) -> FileReport {
    let Truth {
        arrivals,
        keyed_by,
        stored_before_last_epoch,
    } = *truth;
    let mut first_offset: HashMap<usize, usize> = HashMap::new();
    // Per response: where its leaf page starts in the file, and its cell's offset there.
    let mut cell: HashMap<usize, (usize, usize)> = HashMap::new();
    let mut first_commit: HashMap<usize, usize> = HashMap::new();
    let mut withdrawn: HashSet<usize> = HashSet::new();
    let mut withdrawn_occurrences = 0;
    let mut secrets: HashSet<usize> = HashSet::new();
    let mut forms_found: Vec<IdForm> = Vec::new();
    let mut invitations: HashSet<usize> = HashSet::new();
    for hit in hits {
        match hit.needle {
            Needle::Key(position) => {
                first_offset.entry(position).or_insert(hit.offset);
                if let Some(spot) = layout.spot(hit.offset) {
                    // The cell's place in a leaf page: where rows live, but for the few
                    // that an index B-tree (a WITHOUT ROWID table) keeps in its interior
                    // pages, placed below.
                    if is_leaf_page(bytes, &spot) {
                        cell.entry(position)
                            .or_insert((spot.page_start, hit.offset - spot.page_start));
                    }
                    if let (
                        Some(frame),
                        Layout::Wal {
                            commit_of_frame, ..
                        },
                    ) = (spot.frame, layout)
                    {
                        let commit = commit_of_frame[frame];
                        let first = first_commit.entry(position).or_insert(commit);
                        *first = (*first).min(commit);
                    }
                }
            }
            Needle::Forbidden(position, form) => {
                if arrivals[position].withdrawn {
                    withdrawn.insert(position);
                    withdrawn_occurrences += 1;
                } else {
                    secrets.insert(position);
                }
                if !forms_found.contains(&form) {
                    forms_found.push(form);
                }
            }
            Needle::Invitation(position) => {
                invitations.insert(position);
            }
        }
    }
    // A response found in no leaf page (a row in an interior page) has its cell where it
    // was first found.
    for (&position, &offset) in &first_offset {
        if let Some(spot) = layout.spot(offset) {
            cell.entry(position)
                .or_insert((spot.page_start, offset - spot.page_start));
        }
    }
    let deletions = match (layout, base) {
        (Layout::Wal { .. }, Some((base_layout, base_hits))) => {
            invitation_deletions(layout, hits, base_layout, base_hits)
        }
        (Layout::Wal { .. }, None) => invitation_deletions(layout, hits, &Layout::Other, &[]),
        _ => HashMap::new(),
    };
    let epoch_of = |position: usize| Epoch::of(position, stored_before_last_epoch);
    let cell_offset: HashMap<usize, usize> = cell
        .iter()
        .map(|(&position, &(_, offset))| (position, offset))
        .collect();
    let mut methods = Vec::new();
    if matches!(layout, Layout::Wal { .. }) {
        methods.push((Method::WalFirstCommit, &first_commit));
    }
    methods.push((Method::ByteOffset, &first_offset));
    if !matches!(layout, Layout::Other) {
        methods.push((Method::CellOffset, &cell_offset));
    }
    let reported_epochs: Vec<Epoch> = Epoch::ALL
        .into_iter()
        .filter(|&epoch| (epoch == Epoch::Unknown) == stored_before_last_epoch.is_none())
        .collect();
    let mut orders = Vec::new();
    for (method, recovered) in methods {
        for &epoch in &reported_epochs {
            let pairs: Vec<(f64, f64)> = recovered
                .iter()
                .filter(|(&position, _)| epoch_of(position) == epoch)
                .map(|(&position, &value)| (position as f64, value as f64))
                .collect();
            let rho = spearman(&pairs);
            orders.push(OrderFigure {
                method,
                epoch,
                n: pairs.len(),
                rho,
                bound: rho.map(|_| chance_bound(pairs.len())),
            });
        }
    }
    if !matches!(layout, Layout::Other) {
        let out_of_key_order = cells_out_of_key_order(&cell, arrivals, keyed_by);
        let per_page_scores = [
            (Method::CellOrderWithinPage, &cell_offset),
            (Method::CellOutOfKeyOrder, &out_of_key_order),
        ];
        for (method, scores) in per_page_scores {
            for &epoch in &reported_epochs {
                let cells: Vec<(usize, usize, f64)> = scores
                    .iter()
                    .filter(|(&position, _)| epoch_of(position) == epoch)
                    .map(|(&position, &score)| (cell[&position].0, position, score as f64))
                    .collect();
                let (n, rho, null_sd) = within_page_correlation(&cells);
                orders.push(OrderFigure {
                    method,
                    epoch,
                    n,
                    rho,
                    bound: null_sd.map(|sd| 5.0 * sd),
                });
            }
        }
    }
    let count_by_epoch = |positions: Vec<usize>| -> Vec<(Epoch, usize)> {
        Epoch::ALL
            .iter()
            .map(|&epoch| {
                let count = positions.iter().filter(|&&p| epoch_of(p) == epoch).count();
                (epoch, count)
            })
            .collect()
    };
    let invitations_found = count_by_epoch(invitations.into_iter().collect());
    let links = count_by_epoch(
        first_commit
            .iter()
            .filter(|(position, commit)| deletions.get(position) == Some(commit))
            .map(|(&position, _)| position)
            .collect(),
    );
    FileReport {
        name: name.to_owned(),
        bytes: bytes.len(),
        wal_commits: match layout {
            Layout::Wal {
                commit_of_frame, ..
            } => Some(commit_of_frame.iter().max().map_or(0, |last| last + 1)),
            _ => None,
        },
        orders,
        withdrawn_found: withdrawn.len(),
        withdrawn_occurrences,
        secrets_found: secrets.len(),
        forms_found,
        invitations_found,
        links,
    }
}

/// B-tree leaf pages: index leaf (WITHOUT ROWID tables) or table leaf. Page 1 starts with
/// the 100-byte database header.
fn is_leaf_page(bytes: &[u8], spot: &PageSpot) -> bool {
    let header = spot.page_start + if spot.page_number == 1 { 100 } else { 0 };
    matches!(bytes.get(header), Some(0x0a | 0x0d))
}

/// (a) For each used invitation (by the arrival position of its response), the time rank
/// of the WAL commit that deleted it: replaying the commits in time order over the pages
/// of the database file, the first commit after which no page holds its hash any more.
fn invitation_deletions(
    wal: &Layout,
    wal_hits: &[Hit],
    base: &Layout,
    base_hits: &[Hit],
) -> HashMap<usize, usize> {
    let Layout::Wal {
        frames,
        commit_of_frame,
        ..
    } = wal
    else {
        return HashMap::new();
    };
    let mut page_holds: HashMap<u32, HashSet<usize>> = HashMap::new();
    let mut held_by: HashMap<usize, HashSet<u32>> = HashMap::new();
    for hit in base_hits {
        if let (Needle::Invitation(position), Some(spot)) = (hit.needle, base.spot(hit.offset)) {
            page_holds
                .entry(spot.page_number)
                .or_default()
                .insert(position);
            held_by
                .entry(position)
                .or_default()
                .insert(spot.page_number);
        }
    }
    let mut in_frame: HashMap<usize, HashSet<usize>> = HashMap::new();
    for hit in wal_hits {
        if let (Needle::Invitation(position), Some(spot)) = (hit.needle, wal.spot(hit.offset)) {
            in_frame
                .entry(spot.frame.unwrap())
                .or_default()
                .insert(position);
        }
    }
    let mut frames_in_time_order: Vec<usize> = (0..frames.len()).collect();
    frames_in_time_order.sort_by_key(|&frame| (commit_of_frame[frame], frame));
    let mut deleted_at = HashMap::new();
    let mut touched: HashSet<usize> = HashSet::new();
    let mut in_time_order = frames_in_time_order.iter().peekable();
    while let Some(&frame) = in_time_order.next() {
        let page = frames[frame].page_number;
        let now_held = in_frame.remove(&frame).unwrap_or_default();
        for position in page_holds.remove(&page).unwrap_or_default() {
            if let Some(pages) = held_by.get_mut(&position) {
                pages.remove(&page);
            }
            touched.insert(position);
        }
        for &position in &now_held {
            held_by.entry(position).or_default().insert(page);
        }
        page_holds.insert(page, now_held);
        let commit = commit_of_frame[frame];
        let commit_ends = in_time_order
            .peek()
            .is_none_or(|&&next| commit_of_frame[next] != commit);
        if commit_ends {
            for position in touched.drain() {
                if held_by.get(&position).is_none_or(HashSet::is_empty) {
                    deleted_at.entry(position).or_insert(commit);
                }
            }
        }
    }
    deleted_at
}

/// Spearman's ρ: Pearson's correlation of the ranks, ties given their average rank.
/// `None` below three pairs or when either side is constant.
fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let xs = average_ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let ys = average_ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let n = xs.len() as f64;
    let (mean_x, mean_y) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let mut covariance = 0.0;
    let mut variance_x = 0.0;
    let mut variance_y = 0.0;
    for (x, y) in xs.iter().zip(&ys) {
        covariance += (x - mean_x) * (y - mean_y);
        variance_x += (x - mean_x).powi(2);
        variance_y += (y - mean_y).powi(2);
    }
    (variance_x > 0.0 && variance_y > 0.0).then(|| covariance / (variance_x * variance_y).sqrt())
}

/// Per response found in a page: 1 when its cell lies off the longest run of cells in key
/// order (cells taken from the end of the page, where a page built in one go starts),
/// else 0. `cells`: per arrival position, (where its page starts, its cell's offset).
fn cells_out_of_key_order(
    cells: &HashMap<usize, (usize, usize)>,
    arrivals: &[Arrival],
    keyed_by: IdForm,
) -> HashMap<usize, usize> {
    let mut pages: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (&position, &(page, offset)) in cells {
        pages.entry(page).or_default().push((offset, position));
    }
    let mut out_of_order = HashMap::new();
    for mut page in pages.into_values() {
        page.sort_by_key(|&(offset, _)| Reverse(offset));
        let keys: Vec<Vec<u8>> = page
            .iter()
            .map(|&(_, position)| arrivals[position].form(keyed_by))
            .collect();
        let in_order = longest_increasing_run(&keys);
        for ((_, position), in_order) in page.into_iter().zip(in_order) {
            out_of_order.insert(position, usize::from(!in_order));
        }
    }
    out_of_order
}

/// Which elements lie on one longest strictly increasing subsequence (patience sorting).
fn longest_increasing_run(keys: &[Vec<u8>]) -> Vec<bool> {
    // tails[l]: the element ending the increasing subsequence of length l + 1 with the
    // smallest last key seen so far.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; keys.len()];
    for (index, key) in keys.iter().enumerate() {
        let length = tails.partition_point(|&tail| keys[tail] < *key);
        previous[index] = length.checked_sub(1).map(|shorter| tails[shorter]);
        if length == tails.len() {
            tails.push(index);
        } else {
            tails[length] = index;
        }
    }
    let mut on_run = vec![false; keys.len()];
    let mut next = tails.last().copied();
    while let Some(index) = next {
        on_run[index] = true;
        next = previous[index];
    }
    on_run
}

/// Correlation of arrival and a score inside each page, pooled over pages, with its
/// exact chance level. Per page of m cells, with a and b the (average) ranks of arrival
/// and score: S = Σ (a − ā)(b − b̄). Under no correlation each page's arrivals are a
/// random permutation over its cells, so S has mean 0 and variance
/// Σ(a − ā)² · Σ(b − b̄)² / (m − 1). Pooled: ρ = ΣS / Σ√(Σ(a − ā)² · Σ(b − b̄)²), a
/// weighted mean of per-page Spearman ρ, whose standard deviation by chance follows from
/// the summed variances. Input: (page, arrival position, score); pages where either side
/// is constant say nothing and are left out. Returns (cells compared, ρ, its standard
/// deviation by chance).
fn within_page_correlation(cells: &[(usize, usize, f64)]) -> (usize, Option<f64>, Option<f64>) {
    let mut pages: HashMap<usize, Vec<(f64, f64)>> = HashMap::new();
    for &(page, position, score) in cells {
        pages
            .entry(page)
            .or_default()
            .push((position as f64, score));
    }
    let (mut n, mut sum, mut scale, mut variance) = (0, 0.0, 0.0, 0.0);
    for pairs in pages.values() {
        let m = pairs.len() as f64;
        let arrivals = average_ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
        let scores = average_ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
        let centre = (m + 1.0) / 2.0; // The mean of average ranks, ties or not.
        let spread_a: f64 = arrivals.iter().map(|a| (a - centre).powi(2)).sum();
        let spread_b: f64 = scores.iter().map(|b| (b - centre).powi(2)).sum();
        if spread_a == 0.0 || spread_b == 0.0 {
            continue;
        }
        sum += arrivals
            .iter()
            .zip(&scores)
            .map(|(a, b)| (a - centre) * (b - centre))
            .sum::<f64>();
        scale += (spread_a * spread_b).sqrt();
        variance += spread_a * spread_b / (m - 1.0);
        n += pairs.len();
    }
    if scale == 0.0 {
        return (n, None, None);
    }
    (n, Some(sum / scale), Some(variance.sqrt() / scale))
}

fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end) as f64 / 2.0 + 1.0;
        for &index in &order[start..=end] {
            ranks[index] = rank;
        }
        start = end + 1;
    }
    ranks
}

impl SnapshotReport {
    /// What the promise forbids: for responses before the last epoch, an order beyond
    /// chance or a used invitation's hash (or a link); in any snapshot (all are taken
    /// after the withdrawals' 204), a withdrawn response or a stored response's receipt
    /// or response id.
    fn violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        for file in &self.files {
            let at = format!("snapshot {:?}, {}", self.label, file.name);
            for figure in &file.orders {
                if let (Epoch::BeforeLast, Some(rho), Some(bound)) =
                    (figure.epoch, figure.rho, figure.bound)
                {
                    if rho.abs() >= bound {
                        found.push(format!(
                            "{at}: {} orders {} responses stored before the last epoch, \
                             Spearman ρ = {rho:+.3} (chance bound {bound:.3})",
                            figure.method, figure.n
                        ));
                    }
                }
            }
            if file.withdrawn_found > 0 {
                found.push(format!(
                    "{at}: {} withdrawn responses found ({} occurrences)",
                    file.withdrawn_found, file.withdrawn_occurrences
                ));
            }
            if file.secrets_found > 0 {
                found.push(format!(
                    "{at}: the receipt or response id of {} stored responses",
                    file.secrets_found
                ));
            }
            for (epoch, count) in &file.invitations_found {
                if *epoch == Epoch::BeforeLast && *count > 0 {
                    found.push(format!(
                        "{at}: the hashes of {count} invitations used before the last epoch"
                    ));
                }
            }
            for (epoch, count) in &file.links {
                if *epoch == Epoch::BeforeLast && *count > 0 {
                    found.push(format!(
                        "{at}: {count} responses stored before the last epoch linked to \
                         their invitation by the WAL"
                    ));
                }
            }
        }
        found
    }
}

/// The table for the closing note: every ρ per snapshot, file and method, and the counts.
fn print_reports(reports: &[SnapshotReport]) {
    for report in reports {
        eprintln!();
        eprintln!(
            "== snapshot {}: {} arrivals, {} withdrawn, {}",
            report.label,
            report.arrivals,
            report.withdrawn,
            match report.stored_before_last_epoch {
                Some(boundary) => format!(
                    "arrivals 0..{boundary} before the last epoch, {boundary}..{} in the current one",
                    report.arrivals
                ),
                None => "epoch boundary not known (epochs ran during the submissions)".to_owned(),
            }
        );
        eprintln!(
            "   {:<22} {:>9}  {:<22} {:<8} {:>5} {:>8} {:>7}  verdict",
            "file", "bytes", "method", "epoch", "n", "rho", "bound"
        );
        for file in &report.files {
            for figure in file.orders.iter().filter(|figure| figure.n > 0) {
                let bound = figure.bound;
                let verdict = match (figure.epoch, figure.rho, bound) {
                    (_, None, _) | (_, _, None) => "n/a",
                    (Epoch::BeforeLast, Some(rho), Some(bound)) if rho.abs() >= bound => "FAIL",
                    (Epoch::BeforeLast, _, _) => "ok",
                    (_, Some(rho), Some(bound)) if rho.abs() >= bound => "ordered (reported)",
                    _ => "chance (reported)",
                };
                eprintln!(
                    "   {:<22} {:>9}  {:<22} {:<8} {:>5} {:>8} {:>7}  {verdict}",
                    file.name,
                    file.bytes,
                    figure.method.to_string(),
                    figure.epoch.to_string(),
                    figure.n,
                    figure
                        .rho
                        .map_or("-".to_owned(), |rho| format!("{rho:+.4}")),
                    bound.map_or("-".to_owned(), |bound| format!("{bound:.4}")),
                );
            }
            let per_epoch = |counts: &[(Epoch, usize)]| {
                counts
                    .iter()
                    .filter(|(epoch, _)| {
                        report.stored_before_last_epoch.is_some() != (*epoch == Epoch::Unknown)
                    })
                    .map(|(epoch, count)| format!("{epoch} {count}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            eprintln!(
                "   {:<22} {:>9}  withdrawn found {} ({} occurrences); receipts/response ids of \
                 stored responses {}{}; used-invitation hashes: {}; WAL links: {}{}",
                file.name,
                file.bytes,
                file.withdrawn_found,
                file.withdrawn_occurrences,
                file.secrets_found,
                if file.forms_found.is_empty() {
                    String::new()
                } else {
                    format!(" (forms found: {:?})", file.forms_found)
                },
                per_epoch(&file.invitations_found),
                per_epoch(&file.links),
                file.wal_commits
                    .map_or(String::new(), |commits| format!("; {commits} WAL commits")),
            );
        }
    }
}
