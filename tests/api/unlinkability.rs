//! Unlinkability of contents (issue 20, "Proof"): 200 invitations are redeemed one by one in
//! a known order; later the 200 tokens are spent, one by one, in an independent known order.
//! An attacker who holds everything but addresses and times — the database files (WAL
//! included, so the write order of both sequences), the server's log, every request and
//! answer of both steps in its order, and the survey's private key — tries to match each
//! response to the redemption that bought its token. Its best strategy must do no better
//! than chance: at most 1 + 4 correct matches of 200 (the correct matches of a random
//! assignment number 1 on average, with standard error 1).
//!
//! The strategies (each gives a full assignment; the best one is scored):
//! * **order**: the k-th response to the k-th redemption (what the files' write order, or
//!   a log, would give if the two orders were related);
//! * **file position**: by rank, the byte offset of the redemption's row (its blinded
//!   element) against that of the spent token's row (its input's hash), in the database
//!   file and in the WAL;
//! * **shared bytes**: the longest byte string that the redemption's request, answer and
//!   row share with the response's request, answer and rows (greedy by score);
//! * **weak blinds**, with the private key: whether a redemption's blinded element is
//!   `m·H(input)` of a spent token's input for a small `m` (a device that did not blind,
//!   or blinded with a guessable scalar), or its evaluation `m·skS·H(input)`.
//!
//! The tie-breaks come from a seeded shuffle, so a strategy without information is a
//! random assignment.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::process::{Child, Command, Stdio};

use blind_tokens::rand_core;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::{json, Value};

use crate::common::{receipt_and_response_id, serving_address, spawn_app, TokenDevice};

const RESPONDENTS: usize = 200;
/// Chance (1 correct match of a random assignment on average) + 4 standard errors (1).
const MOST_CORRECT_BY_CHANCE: usize = 5;
/// The weak blinds the key holder tries: `m·H(input)` for `m` in 1..=this.
const WEAK_BLINDS: u8 = 3;

/// One redemption as the attacker sees it (in redemption order).
struct Redemption {
    invitation: String,
    blinded: Vec<u8>,
    evaluation: Vec<u8>,
    proof: Vec<u8>,
}

/// One response as the attacker sees it (in answer order), and the redemption (by position)
/// that bought its token: the truth the attacker is scored against.
struct Spend {
    body: String,
    answer: String,
    input: Vec<u8>,
    output: Vec<u8>,
    bought_by: usize,
}

/// A `deniable serve` of its own whose log (stderr) is kept: part of what the attacker holds.
struct LoggedServer {
    child: Child,
    address: String,
}

impl LoggedServer {
    fn start(db: &std::path::Path) -> Self {
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
            .env("RUST_LOG", "debug")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let address = serving_address(child.stdout.take().unwrap());
        Self { child, address }
    }

    /// Stops the server (SIGKILL: the files stay as they were, WAL and all) and returns its log.
    fn kill(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut log = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut log);
        }
        log
    }
}

/// Replays the scalar `m` (64 bytes, little-endian, reduced mod ℓ, as voprf 0.5 draws a
/// blind): `blind` then gives `m·H(input)`.
struct FixedScalar([u8; 64]);

impl FixedScalar {
    fn new(m: u8) -> Self {
        let mut bytes = [0u8; 64];
        bytes[0] = m;
        Self(bytes)
    }
}

impl rand_core::RngCore for FixedScalar {
    fn next_u32(&mut self) -> u32 {
        unreachable!("voprf draws scalars with fill_bytes")
    }
    fn next_u64(&mut self) -> u64 {
        unreachable!("voprf draws scalars with fill_bytes")
    }
    fn fill_bytes(&mut self, destination: &mut [u8]) {
        destination.copy_from_slice(&self.0[..destination.len()]);
    }
}

impl rand_core::CryptoRng for FixedScalar {}

fn sha256(bytes: &[u8]) -> Vec<u8> {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .to_vec()
}

fn b64(value: &Value) -> Vec<u8> {
    blind_tokens::from_base64url(value.as_str().unwrap()).unwrap()
}

/// Every 4-byte string of `bytes`.
fn grams(bytes: &[u8]) -> HashSet<[u8; 4]> {
    bytes
        .windows(4)
        .map(|window| window.try_into().unwrap())
        .collect()
}

/// Assigns each spend a distinct redemption, best scores first (ties by `tie_order`, a
/// shuffled index per pair).
fn greedy(scores: &[Vec<f64>], tie_order: &[usize]) -> Vec<usize> {
    let n = scores.len();
    let mut pairs: Vec<(usize, usize)> = (0..n).flat_map(|s| (0..n).map(move |r| (s, r))).collect();
    pairs.sort_by(|&(s1, r1), &(s2, r2)| {
        scores[s2][r2]
            .total_cmp(&scores[s1][r1])
            .then(tie_order[s1 * n + r1].cmp(&tie_order[s2 * n + r2]))
    });
    let mut assigned = vec![usize::MAX; n];
    let mut taken = vec![false; n];
    for (s, r) in pairs {
        if assigned[s] == usize::MAX && !taken[r] {
            assigned[s] = r;
            taken[r] = true;
        }
    }
    assigned
}

/// By rank: the spend with the k-th smallest key to the redemption with the k-th smallest.
fn by_rank(spend_keys: &[f64], redemption_keys: &[f64], tie_order: &[usize]) -> Vec<usize> {
    let order = |keys: &[f64]| {
        let mut indices: Vec<usize> = (0..keys.len()).collect();
        indices.sort_by(|&a, &b| {
            keys[a]
                .total_cmp(&keys[b])
                .then(tie_order[a].cmp(&tie_order[b]))
        });
        indices
    };
    let (spends, redemptions) = (order(spend_keys), order(redemption_keys));
    let mut assigned = vec![0; spend_keys.len()];
    for (s, r) in spends.into_iter().zip(redemptions) {
        assigned[s] = r;
    }
    assigned
}

fn first_offset(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[tokio::test]
async fn no_stored_byte_log_line_or_request_content_links_a_redemption_to_its_response() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let invitations = app.invitations(&token, &slug, RESPONDENTS as u32).await;
    let public_key = app.public_key(&slug).await;
    let private_key: Vec<u8> = app
        .inspect()
        .query_row("SELECT private_key FROM invitation_keys", [], |row| {
            row.get(0)
        })
        .unwrap();
    let server = LoggedServer::start(&app.db_path);
    let client = crate::common::test_client();
    let url = |path: &str| format!("{}{path}", server.address);

    // Redemptions, one by one, in the mail merge's order (timed: the server's cost of one,
    // round trip included; the device's own work is outside the clock).
    let mut redemptions = Vec::new();
    let mut tokens = Vec::new();
    let mut redeeming = std::time::Duration::ZERO;
    for code in &invitations.codes {
        let device = TokenDevice::new();
        let started = std::time::Instant::now();
        let response = client
            .post(url(&format!("/api/surveys/{slug}/redemptions")))
            .json(&json!({"invitation": code, "blinded": device.blinded}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let answer: Value = response.json().await.unwrap();
        redeeming += started.elapsed();
        tokens.push(device.finalize(&answer, &public_key));
        redemptions.push(Redemption {
            invitation: code.clone(),
            blinded: blind_tokens::from_base64url(&device.blinded).unwrap(),
            evaluation: b64(&answer["evaluation"]),
            proof: b64(&answer["proof"]),
        });
    }
    // Later, the answers, one by one, in an independent order.
    let mut rng = rand::rngs::StdRng::seed_from_u64(20);
    let mut answer_order: Vec<usize> = (0..RESPONDENTS).collect();
    answer_order.shuffle(&mut rng);
    let mut spends = Vec::new();
    let mut spending = std::time::Duration::ZERO;
    for &bought_by in &answer_order {
        let token = &tokens[bought_by];
        let (_, response_id) = receipt_and_response_id();
        let body = json!({
            "answers": { ids[0].to_string(): rand::Rng::random_range(&mut rng, 0..2u8),
                         ids[1].to_string(): rand::Rng::random_range(&mut rng, 0..2u8) },
            "response_id": response_id,
            "token": token,
        })
        .to_string();
        let started = std::time::Instant::now();
        let response = client
            .post(url(&format!("/api/surveys/{slug}/responses")))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        spending += started.elapsed();
        spends.push(Spend {
            body,
            answer: response.text().await.unwrap(),
            input: b64(&token["input"]),
            output: b64(&token["output"]),
            bought_by,
        });
    }
    eprintln!(
        "unlinkability: one at a time over loopback (the test binary's build, each a commit): \
         a redemption {:.2} ms, a response with its token {:.2} ms on average",
        redeeming.as_secs_f64() * 1e3 / RESPONDENTS as f64,
        spending.as_secs_f64() * 1e3 / RESPONDENTS as f64
    );
    let log = server.kill();
    let database = std::fs::read(&app.db_path).unwrap();
    let wal = std::fs::read(app.db_path.with_extension("db-wal")).unwrap_or_default();
    eprintln!(
        "unlinkability: {RESPONDENTS} redemptions then {RESPONDENTS} responses; the attacker holds \
         {} database bytes, {} WAL bytes, {} log bytes",
        database.len(),
        wal.len(),
        log.len()
    );

    // Nothing of either step is in the log.
    for redemption in &redemptions {
        for secret in [
            redemption.invitation.clone(),
            blind_tokens::to_base64url(&redemption.blinded),
            blind_tokens::to_base64url(&redemption.evaluation),
        ] {
            assert!(!log.contains(&secret), "the log holds a redemption's bytes");
        }
    }
    for spend in &spends {
        assert!(!log.contains(&blind_tokens::to_base64url(&spend.input)));
        assert!(!log.contains(&hex::encode(sha256(&spend.input))));
    }

    let n = RESPONDENTS;
    let mut tie_order: Vec<usize> = (0..n * n).collect();
    tie_order.shuffle(&mut rng);
    let mut strategies: Vec<(&str, Vec<usize>)> = Vec::new();

    // Order: the k-th answer to the k-th redemption.
    strategies.push(("order", (0..n).collect()));

    // File position, in the database file and in the WAL.
    for (name, file) in [
        ("database file position", &database),
        ("WAL position", &wal),
    ] {
        let spend_keys: Vec<f64> = spends
            .iter()
            .map(|s| first_offset(file, &sha256(&s.input)).map_or(f64::INFINITY, |o| o as f64))
            .collect();
        let redemption_keys: Vec<f64> = redemptions
            .iter()
            .map(|r| first_offset(file, &r.blinded).map_or(f64::INFINITY, |o| o as f64))
            .collect();
        let found = spend_keys.iter().filter(|k| k.is_finite()).count();
        eprintln!(
            "unlinkability: {name}: {found} spent tokens found, ordered against the redemptions"
        );
        strategies.push((name, by_rank(&spend_keys, &redemption_keys, &tie_order)));
    }

    // Shared bytes between everything of a redemption (its request, answer and row, raw and
    // as sent) and everything of a response (its request, answer and rows): the 4-byte
    // strings they share.
    let redemption_grams: Vec<HashSet<[u8; 4]>> = redemptions
        .iter()
        .map(|r| {
            let sent = json!({"invitation": r.invitation, "blinded": blind_tokens::to_base64url(&r.blinded)});
            let answered = json!({"evaluation": blind_tokens::to_base64url(&r.evaluation),
                                  "proof": blind_tokens::to_base64url(&r.proof)});
            let mut all = grams(&sha256(r.invitation.as_bytes()));
            for part in [&r.blinded, &r.evaluation, &r.proof] {
                all.extend(grams(part));
            }
            all.extend(grams(sent.to_string().as_bytes()));
            all.extend(grams(answered.to_string().as_bytes()));
            all
        })
        .collect();
    // What every request of a step shares (JSON punctuation, field names) says nothing.
    let common: HashSet<[u8; 4]> = redemption_grams
        .iter()
        .skip(1)
        .fold(redemption_grams[0].clone(), |acc, g| &acc & g);
    let shared: Vec<Vec<f64>> = spends
        .iter()
        .map(|s| {
            let mut mine = grams(&s.input);
            for part in [&s.output, &sha256(&s.input)] {
                mine.extend(grams(part));
            }
            mine.extend(grams(s.body.as_bytes()));
            mine.extend(grams(s.answer.as_bytes()));
            redemption_grams
                .iter()
                .map(|r| {
                    r.intersection(&mine)
                        .filter(|g| !common.contains(*g))
                        .count() as f64
                })
                .collect()
        })
        .collect();
    let most = shared.iter().flatten().fold(0.0_f64, |a, &b| a.max(b));
    eprintln!(
        "unlinkability: the most 4-byte strings any redemption shares with any response: {most}"
    );
    strategies.push(("shared bytes", greedy(&shared, &tie_order)));

    // Weak blinds, with the private key: blinded = m·H(input), evaluation = m·skS·H(input).
    let key = blind_tokens::PrivateKey::from_bytes(&private_key).unwrap();
    let mut weak_by_blinded: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut weak_by_evaluation: HashMap<Vec<u8>, usize> = HashMap::new();
    for (s, spend) in spends.iter().enumerate() {
        for m in 1..=WEAK_BLINDS {
            let (_, blinded) = blind_tokens::blind(&spend.input, &mut FixedScalar::new(m)).unwrap();
            let evaluated = blind_tokens::evaluate(&key, &blinded, &mut rand::rng()).unwrap();
            weak_by_blinded.insert(blinded.to_vec(), s);
            weak_by_evaluation.insert(evaluated.evaluation.to_vec(), s);
        }
    }
    // The control: the replayed scalar is what voprf blinds with (the same m, the same
    // element; another m, another one), so a weak blind would be found.
    let replay = |m| {
        blind_tokens::blind(&spends[0].input, &mut FixedScalar::new(m))
            .unwrap()
            .1
    };
    assert_eq!(replay(2), replay(2));
    assert_ne!(replay(1), replay(2));
    assert_eq!(weak_by_blinded.get(replay(2).as_slice()), Some(&0));
    let mut weak = vec![vec![0.0; n]; n];
    let mut weak_hits = 0;
    for (r, redemption) in redemptions.iter().enumerate() {
        for found in [
            weak_by_blinded.get(&redemption.blinded),
            weak_by_evaluation.get(&redemption.evaluation),
        ]
        .into_iter()
        .flatten()
        {
            weak[*found][r] = 1.0;
            weak_hits += 1;
        }
    }
    eprintln!("unlinkability: weak blinds (m ≤ {WEAK_BLINDS}) found: {weak_hits}");
    strategies.push((
        "weak blinds with the private key",
        greedy(&weak, &tie_order),
    ));

    let mut best = 0;
    for (name, assignment) in &strategies {
        let correct = spends
            .iter()
            .zip(assignment)
            .filter(|(spend, &r)| spend.bought_by == r)
            .count();
        eprintln!("unlinkability: strategy {name:<34} {correct:>3} of {n} correct (chance: 1 ± 1)");
        best = best.max(correct);
    }
    assert!(
        best <= MOST_CORRECT_BY_CHANCE,
        "the best strategy matched {best} of {n}, more than chance + 4 SE ({MOST_CORRECT_BY_CHANCE})"
    );
    // The control: the same attacker, told the answer order, links them all.
    let control = spends
        .iter()
        .zip(&answer_order)
        .filter(|(spend, &r)| spend.bought_by == r)
        .count();
    assert_eq!(control, n, "the scoring itself finds a true link");
}
