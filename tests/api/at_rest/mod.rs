//! The attacker's test of privacy at rest (issue 16): someone who gets one copy of the
//! database files at one instant — a stolen disk, a seized server, a leaked backup — learns
//! neither the order in which responses arrived, nor which invitation a response used, nor
//! anything of a withdrawn response, for every response stored before the last compaction
//! epoch. Since issue 20 each device redeems its invitation for a blind token (a commit of
//! its own) right before it answers: the files then hold the used invitations (who took
//! part, by design), which must not be ordered by redemption either, and the spent
//! tokens, which must not be ordered by arrival.
//!
//! One scenario drives the real binary: responses submitted one by one (each its own
//! commit) in a known order, each with its own invitation (redeemed right before, or, for
//! the responses of the current epoch, redemptions and responses interleaved at random);
//! some withdrawn; snapshots of
//! every file of the database directory while serving after an epoch, while serving with
//! responses since the last epoch, after SIGTERM, after SIGKILL with and without responses
//! since the last epoch, and the file `deniable backup` writes. On each snapshot, every
//! file is (a) replayed commit by commit when it is a WAL, (b) ranked by where each
//! response's key sits in it (byte offset, and cell offset inside its page), (c) searched
//! for withdrawn responses, for forms of a response's identity that must never be stored
//! (receipt, response id) and for the hashes of used invitations, (d) read as a WAL's index
//! when it is the `-shm` file: the page numbers its hash tables list, frame by frame, which
//! after an epoch must hold none from before it (issue 31). (A response's reports
//! are not searched for: a few report bytes per question, shared by every response with
//! the same answers, identify nobody; the ids and the invitations do.)
//!
//! [`analyse_directory`] runs the same analysis on any directory of files given the true
//! arrival order, so that it can be pointed at files made by another binary; the second
//! test does exactly that with the binary of the main branch before this work
//! (`DENIABLE_OLD_BINARY=target/oldmain/release/deniable`) and expects it to fail.

mod files;
mod layout;
mod report;
mod server;
mod statistics;
pub(crate) mod wal_index;

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use serde_json::{json, Map, Value};

use files::{analyse_directory, sha256, Arrival, IdForm};
use report::{print_reports, SnapshotReport};
use server::Server;
use wal_index::{positions_recovered, recover_commits, CommitKind, WalIndex};

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

/// The same attack on a binary of the main branch before issue 31, whose WAL index (`-shm`)
/// kept the page numbers of the last epoch's frames after the epoch and after SIGTERM: run
/// with `DENIABLE_BEFORE_ISSUE_31_BINARY=target/main-3a1ac23/debug/deniable` (built at
/// commit 3a1ac23). It must find exactly that.
#[tokio::test]
async fn the_same_attack_finds_the_last_epochs_frames_in_the_wal_index_before_issue_31() {
    let Some(binary) = std::env::var_os("DENIABLE_BEFORE_ISSUE_31_BINARY") else {
        eprintln!(
            "skipped: set DENIABLE_BEFORE_ISSUE_31_BINARY to a `deniable` binary of main before \
             issue 31 (e.g. built at 3a1ac23) to show that the attack finds its WAL index"
        );
        return;
    };
    let reports = attack(Contract::Current, Path::new(&binary)).await;
    print_reports(&reports);
    let violations: Vec<String> = reports
        .iter()
        .flat_map(SnapshotReport::violations)
        .collect();
    eprintln!(
        "binary before issue 31: {} violations found:",
        violations.len()
    );
    for violation in &violations {
        eprintln!("  {violation}");
    }
    assert!(
        violations
            .iter()
            .any(|violation| violation.contains("the WAL's index keeps")),
        "the attack found no stale WAL index in that binary's files: it would not detect a \
         regression"
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
        commits: Vec::new(),
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
    // a crash. Devices redeem when a link is opened and answer later, so redemptions and
    // responses interleave as they arrive.
    let server = Server::start(binary, &db, contract, LONG_EPOCH_SECONDS);
    let commits_before_phase_2 = respondents.commits.len();
    respondents
        .interleave(&server, &invitations[RESPONSES_BEFORE_EPOCH..])
        .await;
    let phase_2_commits = respondents.commits[commits_before_phase_2..].to_vec();
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
    let before_last_epoch = snapshot_directory(&data, workspace.path(), "4");
    reports.push(analyse(
        "4 after SIGKILL, K responses since the last epoch",
        &before_last_epoch,
        &respondents.arrivals,
        Some(stored_so_far),
    ));

    // Phase 3: a restart whose only epoch follows every write, then a crash.
    let server = Server::start(binary, &db, contract, SHORT_EPOCH_SECONDS);
    server.wait_for_first_epoch().await;
    logs.push_str(&server.kill());
    let after_last_epoch = snapshot_directory(&data, workspace.path(), "5");
    reports.push(analyse(
        "5 after SIGKILL, no write since the last epoch",
        &after_last_epoch,
        &respondents.arrivals,
        Some(respondents.arrivals.len()),
    ));
    print_what_the_wal_index_keeps(&before_last_epoch, &after_last_epoch, &phase_2_commits);

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
    /// Every acknowledged redemption and response, in the order of their commits.
    commits: Vec<CommitKind>,
}

/// An invitation on its way to a response: redeemed for a token (under the current
/// contract) or still to be sent with the response (before issue 16).
struct Invited {
    invitation: String,
    token: Option<Value>,
}

impl Respondents {
    /// Redeems and then answers with one invitation, one request at a time (each its own
    /// commit).
    async fn submit(&mut self, server: &Server, invitation: &str) {
        let invited = self.invite(server, invitation).await;
        self.answer(server, invited).await;
    }

    /// Redeems the invitations and answers with them, one request at a time: before each
    /// request a coin says whether the next device redeems its invitation or the device
    /// that redeemed longest ago answers (always one of the two when the other is not
    /// possible).
    async fn interleave(&mut self, server: &Server, invitations: &[String]) {
        let mut redeemed = VecDeque::new();
        let mut next = invitations.iter();
        let mut left = invitations.len();
        while left > 0 {
            let redeem =
                redeemed.len() < left && (redeemed.is_empty() || self.rng.random_bool(0.5));
            if redeem {
                let invitation = next.next().unwrap();
                redeemed.push_back(self.invite(server, invitation).await);
            } else {
                self.answer(server, redeemed.pop_front().unwrap()).await;
                left -= 1;
            }
        }
    }

    /// Since issue 20 the invitation buys a blind token first, in a request (and a commit)
    /// of its own; the response spends the token. Before, the response carried the
    /// invitation.
    async fn invite(&mut self, server: &Server, invitation: &str) -> Invited {
        let token = match self.contract {
            Contract::Current => {
                let token = self.redeem(server, invitation).await;
                self.commits.push(CommitKind::Redemption);
                Some(token)
            }
            Contract::BeforeIssue16 => None,
        };
        Invited {
            invitation: invitation.to_owned(),
            token,
        }
    }

    /// Submits one response with its invitation or token. The reports follow a fixed
    /// pattern of the arrival position: they are not what is secret here, the order and the
    /// links are.
    async fn answer(&mut self, server: &Server, invited: Invited) {
        let position = self.arrivals.len();
        let answers: Map<String, Value> = self
            .question_ids
            .iter()
            .enumerate()
            .map(|(q, id)| (id.to_string(), json!((position >> q) & 1)))
            .collect();
        let mut body = json!({ "answers": answers });
        let invitation = invited.invitation.as_str();
        let spent_hash = match invited.token {
            Some(token) => {
                let input = blind_tokens::from_base64url(token["input"].as_str().unwrap()).unwrap();
                body["token"] = token;
                Some(sha256(&input))
            }
            None => {
                body["invitation"] = json!(invitation);
                None
            }
        };
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
        let arrival = Arrival::new(receipt, sha256(invitation.as_bytes()), spent_hash);
        if self.contract == Contract::Current {
            assert_eq!(
                stored["record_id"].as_str(),
                Some(hex::encode(arrival.record_id).as_str()),
                "the record id is the SHA-256 of the response id's hex text"
            );
        }
        self.arrivals.push(arrival);
        self.commits.push(CommitKind::Response);
    }

    /// Redeems an invitation for a blind token, as the form does; returns the token.
    async fn redeem(&mut self, server: &Server, invitation: &str) -> Value {
        let slug = &self.slug;
        let definition: Value = self
            .client
            .get(server.url(&format!("/api/surveys/{slug}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let public_key = definition["invitation_key"]["public_key"].as_str().unwrap();
        let device = crate::common::TokenDevice::new();
        let response = self
            .client
            .post(server.url(&format!("/api/surveys/{slug}/redemptions")))
            .json(&json!({ "invitation": invitation, "blinded": device.blinded }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "the invitation is redeemed");
        device.finalize(&response.json().await.unwrap(), public_key)
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

/// For the closing note: what the WAL's index kept through the last epoch. The index after
/// it (snapshot 5) is compared, frame for frame, with the WAL before it (snapshot 4, the
/// same files the restarted server compacted), and the redemptions and responses of that
/// epoch are recovered from the index alone. Asserted elsewhere: no page number of a frame
/// written before an epoch stays ([`report::SnapshotReport::violations`]).
fn print_what_the_wal_index_keeps(before: &Path, after: &Path, truth: &[CommitKind]) {
    let wal_pages = match std::fs::read(before.join("deniable.db-wal")) {
        Ok(bytes) => layout::wal_page_numbers(&bytes),
        Err(_) => Vec::new(),
    };
    let index = std::fs::read(after.join("deniable.db-shm"))
        .map(|bytes| WalIndex::read(&bytes).entries())
        .unwrap_or_default();
    let matched = wal_pages
        .iter()
        .zip(&index)
        .filter(|(wal, index)| wal == index)
        .count();
    let recovered = recover_commits(
        &index,
        root_page(&after.join("deniable.db"), "report_counts"),
    );
    let found = positions_recovered(&recovered, truth);
    let responses = truth
        .iter()
        .filter(|&&kind| kind == CommitKind::Response)
        .count();
    eprintln!();
    eprintln!(
        "== the WAL's index after the last epoch (snapshot 5): {} page numbers; {matched} of the \
         {} frames of the WAL before it (snapshot 4) listed frame for frame; {} commits \
         recovered, the redemptions and responses of that epoch named rightly at {found} of {} \
         positions (naming every commit a response: {responses})",
        index.len(),
        wal_pages.len(),
        recovered.len(),
        truth.len(),
    );
}

/// The root page of a table, from the schema in a copy of the database file (opened as
/// immutable: the copy gets no `-wal` or `-shm` of its own); 0 when unknown.
fn root_page(database: &Path, table: &str) -> u32 {
    let uri = format!("file:{}?immutable=1", database.display());
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    rusqlite::Connection::open_with_flags(uri, flags)
        .and_then(|copy| {
            copy.query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
                [table],
                |row| row.get(0),
            )
        })
        .unwrap_or(0)
}
