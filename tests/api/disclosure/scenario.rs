//! Random small scenarios for the auditor, from fixed seeds: a survey with zero to three
//! grouping questions (cells skewed so that cells of 1 and of k − 1 occur), or one that
//! requires invitations; arrivals, redemptions, withdrawals before and after close, restarts
//! (one just before close), a second node on PostgreSQL, a crash (kill -9) when the server
//! is a child process; closing by hand, by target or by time. After every event the
//! auditor reads every view.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use deniable::db::{Database, DbLocation};
use deniable::domain::{Receipt, Slug, Survey};
use futures_util::future::join_all;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tempfile::TempDir;

use super::auditor::{confidence, Auditor, Known, Set};
use super::reads;
use crate::common::{
    database_in, parse_invitations, remote_app, spawn_app_in, test_postgres, TestApp, TokenDevice,
    TEST_PASSWORD,
};
use crate::workspace::Browser;

pub const K: u32 = 5;

/// k of the scenarios: [`K`], or `DISCLOSURE_K` (bench/disclosure measures k = 10 with it).
pub fn k() -> u32 {
    std::env::var("DISCLOSURE_K")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(K)
}

/// Milliseconds spent restarting servers, for the report.
pub static RESTART_MILLIS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How a scenario's survey stops collecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Hand,
    /// Its target: fixed in advance, so blinded while open.
    Target(u64),
    /// A closing time three seconds after it is defined.
    Time,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A response arrives (after its redemption, for a survey that requires invitations).
    Arrive {
        cell: Vec<u8>,
        reports: Vec<u8>,
    },
    /// An invitation is redeemed and never used.
    Redeem,
    /// The respondent of the n-th arrival withdraws, if it is stored.
    Withdraw(usize),
    Restart,
    /// The owner closes it by hand; a survey closing by time waits for its time instead.
    Close,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub seed: u64,
    /// Options of each grouping question.
    pub groupings: Vec<usize>,
    pub choice: bool,
    pub invitations: bool,
    pub results_after_close: bool,
    pub stop: Stop,
    pub events: Vec<Event>,
}

impl Scenario {
    pub fn generate(seed: u64, allow_time: bool) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // One grouping question most often; three now and then (up to 27 cells, so that
        // most of a small survey is withheld).
        let grouping_questions = [0, 1, 1, 1, 2, 2, 3][rng.random_range(0..7)];
        let groupings: Vec<usize> = (0..grouping_questions)
            .map(|_| rng.random_range(2..=3))
            .collect();
        let invitations = groupings.is_empty() || rng.random_bool(0.25);
        let results_after_close = invitations && rng.random_bool(0.5);
        let choice = rng.random_bool(0.5);
        // Skewed answers: the first option of each grouping question is common, the last
        // rare, so that cells of 1 and of k − 1 come up.
        let weights: Vec<Vec<f64>> = groupings
            .iter()
            .map(|&options| (0..options).map(|o| [8.0, 3.0, 1.0][o]).collect())
            .collect();
        let arrivals = rng.random_range(3..=11);
        let stop = match rng.random_range(0..100) {
            _ if allow_time => Stop::Time,
            n if n < 15 => Stop::Target(rng.random_range(1..=arrivals as u64)),
            _ => Stop::Hand,
        };
        let mut events = Vec::new();
        for arrival in 0..arrivals {
            let cell = weights
                .iter()
                .map(|weights| {
                    let total: f64 = weights.iter().sum();
                    let mut draw = rng.random_range(0.0..total);
                    let mut option = 0;
                    while draw >= weights[option] {
                        draw -= weights[option];
                        option += 1;
                    }
                    u8::try_from(option).unwrap()
                })
                .collect();
            let mut reports = vec![u8::from(rng.random_bool(0.4))];
            if choice {
                reports.push(rng.random_range(0..3));
            }
            events.push(Event::Arrive { cell, reports });
            if invitations && rng.random_bool(0.15) {
                events.push(Event::Redeem);
            }
            if arrival > 0 && rng.random_bool(0.1) {
                events.push(Event::Withdraw(rng.random_range(0..arrival)));
            }
            if rng.random_bool(0.01) {
                events.push(Event::Restart);
            }
        }
        if rng.random_bool(0.05) {
            events.push(Event::Restart);
        }
        events.push(Event::Close);
        for _ in 0..rng.random_range(0..=2) {
            events.push(Event::Withdraw(rng.random_range(0..arrivals)));
        }
        Self {
            seed,
            groupings,
            choice,
            invitations,
            results_after_close,
            stop,
            events,
        }
    }

    fn definition(&self) -> Value {
        let mut questions: Vec<Value> = self
            .groupings
            .iter()
            .enumerate()
            .map(|(g, &options)| {
                json!({"type": "grouping", "text": format!("Grouping {g}"),
                       "options": (0..options).map(|o| format!("g{g}o{o}")).collect::<Vec<_>>()})
            })
            .collect();
        questions.push(json!({"text": "Have you?", "epsilon": 1.0}));
        if self.choice {
            questions.push(json!({"type": "choice", "text": "Which?", "epsilon": 1.0,
                                  "options": ["a", "b", "c"]}));
        }
        let mut definition = json!({
            "title": format!("Scenario {}", self.seed),
            "min_cell": k(),
            "requires_invitation": self.invitations,
            "results_after_close": self.results_after_close,
            "questions": questions,
        });
        match self.stop {
            Stop::Hand => {}
            Stop::Target(target) => definition["target_responses"] = json!(target),
            Stop::Time => {
                let at = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_secs()
                    + 3;
                definition["closes_at"] = json!(deniable::domain::ClosingTime::from_unix(
                    i64::try_from(at).unwrap()
                )
                .to_string());
            }
        }
        definition
    }
}

/// Where a scenario runs: one or two in-process nodes on one database, or the real binary
/// as a child process that a restart kills with SIGKILL.
pub struct Host {
    directory: Arc<TempDir>,
    pub nodes: Vec<TestApp>,
    child: Option<std::process::Child>,
    two_nodes: bool,
    pub token: String,
    /// The owner's browser session, for the pages (sessions are stored: restarts keep it).
    browser: Option<Browser>,
}

impl Host {
    pub async fn in_process(two_nodes: bool) -> Self {
        let directory = Arc::new(tempfile::tempdir().unwrap());
        crate::common::own_database_in(directory.path());
        let mut host = Self {
            directory,
            nodes: Vec::new(),
            child: None,
            two_nodes,
            token: String::new(),
            browser: None,
        };
        host.start().await;
        host.token = host.nodes[0]
            .researcher_with_token("auditor@example.org")
            .await;
        host.sign_in().await;
        host
    }

    /// The real binary, killed with SIGKILL at every restart.
    pub async fn child_process() -> Self {
        let directory = Arc::new(tempfile::tempdir().unwrap());
        let mut host = Self {
            directory,
            nodes: Vec::new(),
            child: None,
            two_nodes: false,
            token: String::new(),
            browser: None,
        };
        host.start_child().await;
        host.token = host.nodes[0]
            .researcher_with_token("auditor@example.org")
            .await;
        host.sign_in().await;
        host
    }

    async fn sign_in(&mut self) {
        let mut browser = Browser::new(&self.nodes[0]);
        let response = browser
            .try_sign_in("auditor@example.org", TEST_PASSWORD)
            .await;
        assert_eq!(response.status(), 303, "the auditor signs in");
        self.browser = Some(browser);
    }

    /// The owner's browser, pointed at `node`.
    fn browser_on(&mut self, turn: usize) -> &mut Browser {
        let address = self.node(turn).address.clone();
        let browser = self.browser.as_mut().expect("signed in");
        browser.base = address;
        browser
    }

    async fn start(&mut self) {
        self.nodes
            .push(spawn_app_in(Arc::clone(&self.directory)).await);
        if self.two_nodes {
            self.nodes
                .push(spawn_app_in(Arc::clone(&self.directory)).await);
        }
    }

    async fn start_child(&mut self) {
        let location = database_in(self.directory.path());
        let db_argument = match &location {
            DbLocation::Sqlite(path) => path.display().to_string(),
            DbLocation::Postgres(url) => url.clone(),
        };
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_deniable"))
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--submissions-per-minute",
                "0",
            ])
            .args(["--db", &db_argument])
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the binary starts");
        let address = crate::common::serving_address(child.stdout.take().unwrap());
        self.child = Some(child);
        if self.nodes.is_empty() {
            // This process's own handle on the database reads the storage for the auditor.
            self.nodes.push(remote_app(address, location).await);
        } else {
            self.nodes[0].address = address;
        }
    }

    async fn restart(&mut self) {
        let started = std::time::Instant::now();
        self.restart_now().await;
        RESTART_MILLIS.fetch_add(
            u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    async fn restart_now(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
            self.start_child().await;
            return;
        }
        for node in self.nodes.drain(..) {
            node.stop().await;
        }
        self.start().await;
    }

    /// The node an event or a read goes to.
    pub fn node(&self, turn: usize) -> &TestApp {
        &self.nodes[turn % self.nodes.len()]
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What a run of a scenario showed.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Every read, normalized (record ids left out), in order.
    pub transcript: Vec<Value>,
    /// Distinct values of `considered_at` at which the figures changed.
    pub releases: usize,
    pub smallest_class: Option<usize>,
    pub withheld_at_close: u64,
    pub released_at_close: u64,
    /// Responses ever released that never withdrew, and those of them the last export left
    /// out (withheld with a release that withdrawals left below k).
    pub stayers_released: u64,
    pub stayers_withheld: u64,
    /// Whether any released response withdrew.
    pub withdrawals: bool,
    /// Per arrival: the `considered_at` when it arrived, and whether it was ever released,
    /// stored at the end, withdrawn.
    pub arrivals: Vec<ArrivalFate>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ArrivalFate {
    pub window: u64,
    pub ever_released: bool,
    pub withdrawn: bool,
    pub stored: bool,
}

async fn survey_of(db: &Database, slug: &str) -> Survey {
    let slug = Slug::parse(slug).unwrap();
    db.read(move |connection| deniable::db::queries::find_survey(connection, &slug))
        .await
        .unwrap()
        .unwrap()
}

async fn unreleased(db: &Database, survey: &Survey) -> BTreeSet<String> {
    let id = survey.id;
    db.read(move |connection| deniable::db::releases::records_in_figures(connection, id))
        .await
        .unwrap()
        .into_iter()
        .map(|record| record.to_hex())
        .collect()
}

fn new_receipt() -> (String, String, String) {
    let (receipt, response_id) = crate::common::receipt_and_response_id();
    let record_id = Receipt::parse(&receipt)
        .unwrap()
        .response_id()
        .record_id()
        .to_hex();
    (receipt, response_id, record_id)
}

/// Runs `scenario` on `host`, auditing after every event.
pub async fn run(scenario: &Scenario, host: &mut Host) -> Result<Outcome, String> {
    let fail = |event: usize, message: String| {
        format!(
            "scenario seed {} ({:?}), after event {event}: {message}",
            scenario.seed, scenario
        )
    };
    let token = host.token.clone();
    let created = host
        .node(0)
        .create_survey(&token, &scenario.definition())
        .await;
    if created.status() != 201 {
        return Err(fail(
            0,
            format!("create: {}", created.text().await.unwrap()),
        ));
    }
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let question_ids: Vec<i64> = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["type"] != "grouping")
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let grouping_ids: Vec<i64> = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["type"] == "grouping")
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = host
        .node(0)
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200, "scenario {}", scenario.seed);
    let mut codes = if scenario.invitations {
        let count = u32::try_from(scenario.events.len()).unwrap() + 2;
        let response = host
            .node(0)
            .request_invitations(&token, &slug, json!(count))
            .await;
        assert_eq!(response.status(), 201);
        parse_invitations(&response.text().await.unwrap(), &slug).codes
    } else {
        Vec::new()
    }
    .into_iter();
    let mut auditor = Auditor::new(k() as usize);
    let mut outcome = Outcome::default();
    let mut arrival_of: Vec<usize> = Vec::new(); // arrival number → auditor index
    let mut considered_at = 0_u64;
    let mut last_figures: Option<Value> = None;
    let mut last_counts: Option<Value> = None;
    let mut release_moments = BTreeSet::new();
    let mut status = "open".to_owned();
    let mut survey: Option<Survey> = None;
    // Each page read, by the API views read with it: the same views must give the same page.
    let mut pages_seen: HashMap<String, String> = HashMap::new();
    let mut last_exported = Set::new();
    for (step, event) in scenario.events.iter().enumerate() {
        let node = host.node(step);
        let mut may_move = false;
        match event {
            Event::Arrive { cell, reports } => {
                let mut answers = serde_json::Map::new();
                for (id, &answer) in grouping_ids.iter().zip(cell) {
                    answers.insert(id.to_string(), json!(answer));
                }
                for (id, &report) in question_ids.iter().zip(reports) {
                    answers.insert(id.to_string(), json!(report));
                }
                let token_body = if scenario.invitations {
                    let code = codes.next().unwrap();
                    let device = TokenDevice::new();
                    let redeemed = node.redeem(&slug, &code, &device.blinded).await;
                    if redeemed.status() != 200 {
                        None
                    } else {
                        let answer: Value = redeemed.json().await.unwrap();
                        Some(device.finalize(&answer, &node.public_key(&slug).await))
                    }
                } else {
                    None
                };
                let (receipt, response_id, record_id) = new_receipt();
                let response = node
                    .submit_with_token(
                        &slug,
                        Value::Object(answers),
                        token_body.as_ref(),
                        Some(&response_id),
                    )
                    .await;
                let stored = response.status() == 201;
                auditor.responses.push(Known {
                    record_id,
                    receipt,
                    cell: cell.clone(),
                    reports: question_ids
                        .iter()
                        .copied()
                        .zip(reports.iter().copied())
                        .collect(),
                    stored,
                    withdrawn: false,
                    ever_released: false,
                });
                arrival_of.push(auditor.responses.len() - 1);
                outcome.arrivals.push(ArrivalFate {
                    window: considered_at,
                    ..ArrivalFate::default()
                });
            }
            Event::Redeem => {
                if let Some(code) = codes.next() {
                    let device = TokenDevice::new();
                    let _ = node.redeem(&slug, &code, &device.blinded).await;
                }
            }
            Event::Withdraw(arrival) => {
                let Some(&index) = arrival_of.get(*arrival) else {
                    continue;
                };
                if auditor.responses[index].stored {
                    let response = node
                        .withdraw(&slug, &auditor.responses[index].receipt.clone())
                        .await;
                    if response.status() != 204 {
                        return Err(fail(step, format!("withdraw: {}", response.status())));
                    }
                    auditor.responses[index].stored = false;
                    auditor.responses[index].withdrawn = true;
                    may_move = true;
                }
            }
            Event::Restart => {
                host.restart().await;
                auditor.restarted();
                may_move = true;
            }
            Event::Close => {
                if scenario.stop == Stop::Time {
                    for _ in 0..100 {
                        let results = host.node(step).results(&token, &slug).await;
                        if results["status"] == "closed" {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                } else {
                    let _ = host
                        .node(step)
                        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
                        .await;
                }
            }
        }
        // Read every view, on the node whose turn it is.
        let node = host.node(step + 1);
        // The survey as stored changes only at its close.
        if survey
            .as_ref()
            .is_none_or(|survey| survey.status.as_str() != status)
        {
            survey = Some(survey_of(&node.db, &slug).await);
        }
        let survey = survey.clone().unwrap();
        // Every view at once (the same state: nothing is written meanwhile).
        let joint_paths: Vec<((i64, i64), String)> = if question_ids.len() == 2 {
            [(0, 1), (1, 0)]
                .map(|(a, b)| {
                    let pair = (question_ids[a], question_ids[b]);
                    (
                        pair,
                        format!("/api/surveys/{slug}/results?joint={},{}", pair.0, pair.1),
                    )
                })
                .to_vec()
        } else {
            Vec::new()
        };
        // A survey closing by time may close while the views are read: read them again
        // until they all saw one state (the status and the release before and after).
        let (results, unreleased, breakdowns, joint, (export_status, export_body)) = loop {
            let timed = scenario.stop == Stop::Time;
            let before = if timed {
                node.results(&token, &slug).await
            } else {
                Value::Null
            };
            let read = tokio::join!(
                node.results(&token, &slug),
                unreleased(&node.db, &survey),
                join_all(
                    grouping_ids
                        .iter()
                        .map(|id| node.breakdown(&token, &slug, *id))
                ),
                join_all(joint_paths.iter().map(|(pair, path)| async {
                    let response = node.owner_get(&token, path).await;
                    let status = response.status().as_u16();
                    (*pair, status, response.json::<Value>().await.unwrap())
                })),
                async {
                    let response = node
                        .owner_get(&token, &format!("/api/surveys/{slug}/export.csv"))
                        .await;
                    (response.status().as_u16(), response.text().await.unwrap())
                },
            );
            if !timed {
                break read;
            }
            let after = node.results(&token, &slug).await;
            if same_state(&before, &after) && same_state(&read.0, &after) {
                break read;
            }
        };
        let now_considered = results["release"]["considered_at"].as_u64().unwrap_or(0);
        let now_status = results["status"].as_str().unwrap_or_default().to_owned();
        let survey = if survey.status.as_str() == now_status {
            survey
        } else {
            survey_of(&node.db, &slug).await
        };
        let released: Set = auditor.begin_read(&unreleased, now_considered);
        let mut read = serde_json::Map::new();
        auditor
            .match_results(&survey, &released, &results)
            .map_err(|e| fail(step, e))?;
        let summary = serde_json::from_value(results["release"].clone()).unwrap();
        let mut figures = vec![results["questions"].clone()];
        for (byte, breakdown) in breakdowns.into_iter().enumerate() {
            auditor
                .match_breakdown(&survey, byte, &released, summary, &breakdown)
                .map_err(|e| fail(step, e))?;
            figures.push(breakdown["groups"].clone());
            figures.push(breakdown["differences"].clone());
            read.insert(format!("by {byte}"), breakdown);
        }
        for (order, (pair, status, body)) in joint.into_iter().enumerate() {
            if status == 200 {
                auditor
                    .match_joint(&survey, pair, &released, &body)
                    .map_err(|e| fail(step, e))?;
                figures.push(body["cells"].clone());
            } else if !(status == 409
                && (survey.is_blinded() || survey.results_withheld_until_close()))
            {
                return Err(fail(step, format!("joint answered {status}: {body}")));
            }
            read.insert(format!("joint {order}"), body);
        }
        if now_status == "closed" {
            if export_status != 200 {
                return Err(fail(
                    step,
                    format!("a closed survey's export: {export_status}"),
                ));
            }
            let exported = auditor
                .match_export(&survey, &export_body)
                .map_err(|e| fail(step, e))?;
            last_exported.clone_from(&exported);
            // Rows without their record ids, questions by place: the replay's names differ.
            let mut rows: Vec<String> = export_body
                .lines()
                .skip(1)
                .map(|line| {
                    let mut fields: Vec<String> = line.split(',').map(str::to_owned).collect();
                    let place = question_ids
                        .iter()
                        .position(|id| id.to_string() == fields[1]);
                    fields[1] = format!("question {}", place.unwrap_or(usize::MAX));
                    fields[1..].join(",")
                })
                .collect();
            rows.sort();
            read.insert("export".to_owned(), json!(rows));
            if status != "closed" {
                outcome.released_at_close = exported.len() as u64;
                outcome.withheld_at_close = results["release"]["withheld_responses"]
                    .as_u64()
                    .unwrap_or(0);
            }
        } else if export_status != 409 {
            return Err(fail(
                step,
                format!("an open survey's export: {export_status}"),
            ));
        }
        // The other reads of this moment: the results as asked otherwise (`?null=`,
        // `?simultaneous=`), the NDJSON export, the live pages' JSON and the pages.
        let mut variants = Vec::new();
        for (query, asked) in asked_variants() {
            let path = format!("/api/surveys/{slug}/results?{query}");
            let body: Value = node.owner_get(&token, &path).await.json().await.unwrap();
            variants.push((path, asked, body));
        }
        let ndjson = node
            .owner_get(&token, &format!("/api/surveys/{slug}/export.ndjson"))
            .await;
        let ndjson = (ndjson.status().as_u16(), ndjson.text().await.unwrap());
        let results_json: Value = host
            .browser_on(step + 1)
            .get(&format!("/surveys/{slug}/results.json"))
            .await
            .json()
            .await
            .unwrap();
        let mut pages = Vec::new();
        for path in page_paths(&slug, &grouping_ids, step) {
            let browser = host.browser_on(step + 1);
            // The pages show the respondents' link (and its QR code): the node's address.
            let address = browser.base.clone();
            let page = browser.get(&path).await;
            let page_status = page.status().as_u16();
            let page = reads::normalized(&page.text().await.unwrap());
            pages.push((address, path, page_status, page));
        }
        // A survey closing by time may have closed since the views were read (a close is for
        // good, so one look afterwards covers every read): then these reads belong to no read.
        if unchanged(scenario, host.node(step + 1), &token, &slug, &results).await {
            for (path, asked, body) in variants {
                auditor
                    .match_results_as_asked(&survey, &released, &body, asked)
                    .map_err(|e| fail(step, format!("{path}: {e}")))?;
            }
            check_ndjson(&ndjson, export_status, &export_body).map_err(|e| fail(step, e))?;
            auditor
                .match_results(&survey, &released, &results_json)
                .map_err(|e| fail(step, format!("results.json: {e}")))?;
            let views_now = Value::Object(read.clone());
            for (address, path, page_status, page) in pages {
                let key = format!("{address}{path} {results} {views_now}");
                match pages_seen.get(&key) {
                    Some(seen) if *seen != page => {
                        return Err(fail(step, page_changed(&path, page_status, seen, &page)));
                    }
                    Some(_) => {}
                    None => {
                        pages_seen.insert(key, page);
                    }
                }
            }
        }
        auditor.check_classes().map_err(|e| fail(step, e))?;
        // Moments: report-derived figures move only at a consideration, at close, or where
        // a withdrawal or a restart (the documented exception) may show one leaving.
        let figures = Value::Array(figures);
        let counts = json!([
            results["responses"],
            results["progress"],
            results["release"]
        ]);
        if let Some(last) = &last_figures {
            if *last != figures {
                release_moments.insert(now_considered);
                if now_considered == considered_at && now_status == status && !may_move {
                    return Err(fail(
                        step,
                        format!("figures moved between considerations: {figures} after {last}"),
                    ));
                }
            }
        }
        if scenario.invitations && now_status == "open" && status == "open" {
            if let Some(last) = &last_counts {
                if *last != counts && now_considered == considered_at {
                    return Err(fail(
                        step,
                        format!("an invitation survey's counts moved between considerations: {counts} after {last}"),
                    ));
                }
            }
        }
        last_figures = Some(figures);
        last_counts = Some(counts);
        considered_at = now_considered;
        status = now_status;
        let mut results = results;
        results["slug"] = json!("");
        results["title"] = json!("");
        results["closes_at"] = json!(results["closes_at"].is_string());
        read.insert("results".to_owned(), results);
        // The replay's survey has other question ids: name each by its place instead.
        let ids: Vec<i64> = body["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["id"].as_i64().unwrap())
            .collect();
        outcome
            .transcript
            .push(by_place(Value::Object(read), &ids, false));
    }
    outcome.releases = release_moments.len();
    for (index, response) in auditor.responses.iter().enumerate() {
        if response.ever_released && response.withdrawn {
            outcome.withdrawals = true;
        }
        if response.ever_released && !response.withdrawn {
            outcome.stayers_released += 1;
            if !last_exported.contains(&index) {
                outcome.stayers_withheld += 1;
            }
        }
    }
    outcome.smallest_class = auditor.smallest_class;
    for (fate, &index) in outcome.arrivals.iter_mut().zip(&arrival_of) {
        let response = &auditor.responses[index];
        fate.ever_released = response.ever_released;
        fate.withdrawn = response.withdrawn;
        fate.stored = response.stored;
    }
    Ok(outcome)
}

/// Whether two reads of the results saw the survey in one state (its status and release).
fn same_state(one: &Value, other: &Value) -> bool {
    one["status"] == other["status"] && one["release"] == other["release"]
}

/// The NDJSON export read with the CSV: the same status, and once closed the same records.
fn check_ndjson((status, body): &(u16, String), csv_status: u16, csv: &str) -> Result<(), String> {
    if *status != csv_status {
        return Err(format!(
            "export.ndjson answered {status}, export.csv {csv_status}"
        ));
    }
    if *status != 200 {
        return Ok(());
    }
    let csv_records: BTreeSet<&str> = csv
        .lines()
        .skip(1)
        .filter_map(|line| line.split(',').next())
        .collect();
    let records: Vec<Value> = body
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let records: BTreeSet<&str> = records
        .iter()
        .map(|record| record["record_id"].as_str().unwrap())
        .collect();
    if records != csv_records {
        return Err("export.ndjson holds other records than export.csv".to_owned());
    }
    Ok(())
}

/// Why a page read with the same API views as an earlier one differs from it, around the
/// first byte that differs.
fn page_changed(path: &str, status: u16, seen: &str, page: &str) -> String {
    let at = seen
        .bytes()
        .zip(page.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(seen.len().min(page.len()));
    let around = |text: &str| {
        let bytes = &text.as_bytes()[at.saturating_sub(120)..(at + 120).min(text.len())];
        String::from_utf8_lossy(bytes).into_owned()
    };
    format!(
        "{path} ({status}) changed while every API view read with it stayed the same: it shows \
         something they do not (before: {:?}, now: {:?})",
        around(seen),
        around(page)
    )
}

/// Whether the survey is still as `results` saw it (status and release): always, unless it
/// closes by time, which can happen between two reads.
async fn unchanged(
    scenario: &Scenario,
    node: &TestApp,
    token: &str,
    slug: &str,
    results: &Value,
) -> bool {
    if scenario.stop != Stop::Time {
        return true;
    }
    same_state(&node.results(token, slug).await, results)
}

/// The results' other ways of asking (`reads::PARAMETERS`): `?null=` at 0 and 0.5, and
/// `?simultaneous=`.
fn asked_variants() -> Vec<(&'static str, deniable::results::Asked)> {
    let at = deniable::results::Asked::at(confidence());
    vec![
        (
            "null=0",
            deniable::results::Asked {
                null: Some(0.0),
                ..at
            },
        ),
        (
            "null=0.5&simultaneous=true",
            deniable::results::Asked {
                null: Some(0.5),
                simultaneous: true,
                ..at
            },
        ),
    ]
}

/// The live pages, with every parameter that selects another view (`reads::PARAMETERS`):
/// the page as first opened, and once with every parameter at once (each grouping question
/// in turn), present mode with and without `hide` in turn.
fn page_paths(slug: &str, grouping_ids: &[i64], step: usize) -> Vec<String> {
    let by = grouping_ids
        .get(step % grouping_ids.len().max(1))
        .map_or(String::new(), |id| format!("&by={id}"));
    vec![
        format!("/surveys/{slug}/results"),
        format!("/surveys/{slug}/results?null=0.5&simultaneous=on{by}"),
        if step % 2 == 0 {
            format!("/surveys/{slug}/present")
        } else {
            format!("/surveys/{slug}/present?hide=1")
        },
    ]
}

/// `value` with every question id (under `id`, `by`, `question`, `given_question` or
/// `questions`) replaced by the question's place in the survey.
fn by_place(value: Value, ids: &[i64], names_an_id: bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let names = matches!(
                        key.as_str(),
                        "id" | "by" | "question" | "given_question" | "questions"
                    );
                    (key, by_place(value, ids, names))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| by_place(item, ids, names_an_id))
                .collect(),
        ),
        Value::Number(number) if names_an_id => match number
            .as_i64()
            .and_then(|n| ids.iter().position(|&id| id == n))
        {
            Some(place) => json!(format!("question {place}")),
            None => Value::Number(number),
        },
        other => other,
    }
}

/// The same scenario with the contents (cell and reports) of the arrivals that were never
/// released permuted among those that arrived between the same two considerations: if the
/// owner's views depended on anything but released cells and counts, some read would
/// differ. `None` when no such permutation changes anything.
pub fn permuted(scenario: &Scenario, outcome: &Outcome) -> Option<Scenario> {
    // A survey closing by time closes when the clock says: which arrivals come before it
    // differs from run to run, so its replay would not be the same scenario.
    if scenario.stop == Stop::Time {
        return None;
    }
    let mut windows: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let arrival_events: Vec<usize> = scenario
        .events
        .iter()
        .enumerate()
        .filter(|(_, event)| matches!(event, Event::Arrive { .. }))
        .map(|(i, _)| i)
        .collect();
    let withdrawn_targets: BTreeSet<usize> = scenario
        .events
        .iter()
        .filter_map(|event| match event {
            Event::Withdraw(arrival) => Some(*arrival),
            _ => None,
        })
        .collect();
    for (arrival, fate) in outcome.arrivals.iter().enumerate() {
        if fate.stored && !fate.ever_released && !withdrawn_targets.contains(&arrival) {
            windows.entry(fate.window).or_default().push(arrival);
        }
    }
    let mut permuted = scenario.clone();
    let mut changed = false;
    for arrivals in windows.values().filter(|a| a.len() >= 2) {
        let contents: Vec<Event> = arrivals
            .iter()
            .map(|&a| scenario.events[arrival_events[a]].clone())
            .collect();
        for (position, &arrival) in arrivals.iter().enumerate() {
            let moved = contents[(position + 1) % contents.len()].clone();
            if moved != contents[position] {
                changed = true;
            }
            permuted.events[arrival_events[arrival]] = moved;
        }
    }
    changed.then_some(permuted)
}

/// Whether the engine under test is PostgreSQL (two nodes, no SQLite files).
pub fn on_postgres() -> bool {
    test_postgres().is_some()
}
