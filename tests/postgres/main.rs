//! Several `deniable serve` processes on one PostgreSQL database (issue 21's proof): three
//! nodes started at the same moment on an empty database, respondents spread over them,
//! single-use invitations and tokens used once across them, a target reached exactly, and
//! a node killed under load without losing an acknowledged response.
//!
//! Needs a PostgreSQL server: `DENIABLE_TEST_POSTGRES` (scripts/test starts a throwaway
//! cluster and runs this binary in its PostgreSQL pass; `.config/nextest.toml` leaves it
//! out of plain runs).

#[path = "../api/common.rs"]
mod common;
mod releases;
mod schema;
#[path = "../api/sweep.rs"]
mod sweep;

use std::process::{Child, Command, Stdio};

use common::{remote_app, serving_address, survey_definition, test_postgres, TestApp};
use deniable::db::DbLocation;
use deniable::simulate::{simulate, SimulationOutcome, SimulationPlan, Truth};
use futures_util::future::join_all;
use indicatif::ProgressBar;
use serde_json::{json, Value};

/// The nodes' processes, killed when the test ends however it ends.
struct Nodes(Vec<Child>);

impl Drop for Nodes {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// An empty database of its own on the test server; its URL.
fn empty_database() -> String {
    let server = test_postgres().expect("DENIABLE_TEST_POSTGRES names the test server");
    let name = format!(
        "multinode_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    let create = format!("CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'");
    run_sql(&server, move |client| {
        client.batch_execute(&create).unwrap();
    });
    // postgresql:///postgres?host=… → postgresql:///NAME?host=…
    let (path, query) = server.split_once('?').unwrap_or((&server, ""));
    let (prefix, _) = path.rsplit_once('/').expect("a URL with a database name");
    format!("{prefix}/{name}?{query}")
}

/// Runs `work` with a client of `url`, on a thread of its own (the blocking client cannot
/// run on the test's async runtime).
fn run_sql<T: Send + 'static>(
    url: &str,
    work: impl FnOnce(&mut postgres::Client) -> T + Send + 'static,
) -> T {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        work(&mut client)
    })
    .join()
    .unwrap()
}

fn count(url: &str, sql: &'static str) -> i64 {
    run_sql(url, move |client| {
        client.query_one(sql, &[]).unwrap().get(0)
    })
}

/// `deniable serve --db URL` on a free port, not waited for.
fn spawn_node(url: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(["serve", "--addr", "127.0.0.1:0", "--workers", "2"])
        .args(["--submissions-per-minute", "0", "--db", url])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts")
}

/// An open survey made through `app` by the owner of `token`; its slug and question ids.
async fn open_survey(app: &TestApp, token: &str, definition: &Value) -> (String, Vec<i64>) {
    let created = app.create_survey(token, definition).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let ids = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (slug, ids)
}

fn yes_to_first(ids: &[i64]) -> Value {
    let mut answers = json!({});
    for (i, id) in ids.iter().enumerate() {
        answers[id.to_string()] = json!(u8::from(i == 0));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_on_one_postgresql_share_every_survey_token_target_and_acknowledgement() {
    let url = empty_database();

    // Three nodes at the same moment on the empty database: one schema, one demo survey,
    // one first sign-up link.
    let mut children: Vec<Child> = (0..3).map(|_| spawn_node(&url)).collect();
    let addresses: Vec<String> = children
        .iter_mut()
        .map(|child| serving_address(child.stdout.take().unwrap()))
        .collect();
    let mut nodes = Nodes(children);
    assert_eq!(
        count(&url, "SELECT count(*) FROM schema_version"),
        1,
        "one schema version row"
    );
    assert_eq!(
        count(&url, "SELECT max(version)::bigint FROM schema_version"),
        i64::from(deniable::db::SCHEMA_VERSION)
    );
    assert_eq!(
        count(&url, "SELECT count(*) FROM surveys WHERE slug = 'demo'"),
        1
    );
    assert_eq!(count(&url, "SELECT count(*) FROM researchers"), 1);
    assert_eq!(
        count(
            &url,
            "SELECT count(*) FROM signup_links WHERE issued_by IS NULL"
        ),
        1
    );
    let location: DbLocation = url.parse().unwrap();
    let mut apps = Vec::new();
    for address in &addresses {
        apps.push(remote_app(address.clone(), location.clone()).await);
    }
    let token = apps[0].researcher_with_token("owner@example.org").await;

    // 10 000 simulated respondents (3 000 in the default mode of ./scripts/test) spread over
    // the three nodes at once, a fifth, two fifths and two fifths.
    let respondents: usize = sweep::sized(3_000, 10_000);
    let (slug, _) = open_survey(&apps[1], &token, &survey_definition(&[0.5, 1.0, 2.0])).await;
    let truths = [0.3, 0.1, 0.05];
    let plans: Vec<SimulationPlan> = [respondents / 5, respondents * 2 / 5, respondents * 2 / 5]
        .into_iter()
        .zip(&addresses)
        .zip(1..)
        .map(|((respondents, address), seed)| SimulationPlan {
            base_url: address.clone(),
            survey: slug.clone(),
            respondents,
            truths: truths.iter().map(|&t| Truth::Yes(t)).collect(),
            concurrency: 8,
            seed,
            reproducible: true,
            confidence: 0.95,
            token: None,
            invitations: None,
        })
        .collect();
    let hidden = ProgressBar::hidden();
    let outcomes = join_all(plans.iter().map(|plan| simulate(plan, &hidden))).await;
    let outcomes: Vec<SimulationOutcome> = outcomes
        .into_iter()
        .map(|outcome| outcome.expect("the simulation runs"))
        .collect();
    // Each run's truths are exact shares, so the three together hold exactly those shares.
    for outcome in &outcomes {
        for (question, truth) in outcome.questions.iter().zip(truths) {
            assert_eq!(question.targets[0].truth, truth);
        }
    }
    let confidence = 1.0 - 0.05 / 3.0; // Bonferroni over the three questions
    let results: deniable::results::SurveyResults = apps[2]
        .client
        .get(apps[2].url(&format!("/api/surveys/{slug}/results")))
        .query(&[("confidence", confidence)])
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let together = SimulationOutcome {
        submitted: outcomes.iter().map(|o| o.submitted).sum(),
        questions: outcomes[0].questions.clone(),
        results: Some(results),
    };
    assert_eq!(together.submitted, respondents);
    let checks = together.checks();
    assert_eq!(checks.len(), 3);
    for check in &checks {
        assert!(
            check.misses().is_empty(),
            "question {}: truth {} missed by {:?} (estimate {:?})",
            check.question_id,
            check.truth,
            check.misses(),
            check.estimate
        );
    }
    let n = apps[0].results(&token, &slug).await["questions"][0]["n"].clone();
    assert_eq!(n, respondents, "every node's responses are counted once");

    // One invitation redeemed 100 times at once over the three nodes: one evaluation; one
    // token spent 100 times at once: one response.
    let mut definition = survey_definition(&[1.0, 2.0]);
    definition["requires_invitation"] = json!(true);
    let (slug, ids) = open_survey(&apps[0], &token, &definition).await;
    let code = apps[0].invitations(&token, &slug, 1).await.codes.remove(0);
    let devices: Vec<common::TokenDevice> = (0..100).map(|_| common::TokenDevice::new()).collect();
    let redeemed = join_all(devices.iter().enumerate().map(|(i, device)| {
        let app = &apps[i % 3];
        let (slug, code) = (&slug, &code);
        async move {
            app.redeem(slug, code, &device.blinded)
                .await
                .status()
                .as_u16()
        }
    }))
    .await;
    assert_eq!(redeemed.iter().filter(|&&s| s == 200).count(), 1);
    assert_eq!(redeemed.iter().filter(|&&s| s == 409).count(), 99);
    let code = apps[0].invitations(&token, &slug, 1).await.codes.remove(0);
    let bought = apps[1].token_for(&slug, &code).await;
    let spent = join_all((0..100).map(|i| {
        let app = &apps[i % 3];
        let (slug, ids, bought) = (&slug, &ids, &bought);
        async move {
            let (_, response_id) = common::receipt_and_response_id();
            app.submit_with_token(slug, yes_to_first(ids), Some(bought), Some(&response_id))
                .await
                .status()
                .as_u16()
        }
    }))
    .await;
    assert_eq!(spent.iter().filter(|&&s| s == 201).count(), 1, "{spent:?}");
    assert_eq!(spent.iter().filter(|&&s| s == 409).count(), 99);
    assert_eq!(
        count(
            &url,
            "SELECT count(*) FROM stored_responses JOIN surveys ON surveys.id = survey_id
             WHERE surveys.requires_invitation = 1"
        ),
        1
    );
    assert_eq!(count(&url, "SELECT count(*) FROM spent_tokens"), 1);

    // A target of 60 under 150 concurrent submissions over the three nodes: exactly 60.
    let mut definition = survey_definition(&[1.0, 2.0]);
    definition["target_responses"] = json!(60);
    let (slug, ids) = open_survey(&apps[2], &token, &definition).await;
    let statuses = join_all((0..150).map(|i| {
        let app = &apps[i % 3];
        let (slug, ids) = (&slug, &ids);
        async move { app.submit(slug, yes_to_first(ids)).await.status().as_u16() }
    }))
    .await;
    assert_eq!(statuses.iter().filter(|&&s| s == 201).count(), 60);
    assert_eq!(statuses.iter().filter(|&&s| s == 409).count(), 90);
    let survey: Value = apps[0]
        .owner_get(&token, &format!("/api/surveys/{slug}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(survey["status"], "closed");
    assert_eq!(
        apps[1].results(&token, &slug).await["questions"][0]["n"],
        60
    );

    // kill -9 of one node under load: every acknowledged response is stored, and the two
    // others keep serving.
    let (slug, ids) = open_survey(&apps[0], &token, &survey_definition(&[1.0])).await;
    let load = join_all((0..300).map(|i| {
        let app = &apps[i % 3];
        let (slug, ids) = (&slug, &ids);
        async move {
            let (receipt, response_id) = common::receipt_and_response_id();
            let body = json!({ "answers": yes_to_first(ids), "response_id": response_id });
            let sent = app
                .client
                .post(app.url(&format!("/api/surveys/{slug}/responses")))
                .timeout(std::time::Duration::from_secs(30))
                .json(&body)
                .send()
                .await;
            (i % 3, receipt, sent.map(|r| r.status().as_u16()).ok())
        }
    }));
    let killer = async {
        // Once the load is under way: SIGKILL, no graceful stop.
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        nodes.0[2].kill().unwrap();
    };
    let (sent, ()) = tokio::join!(load, killer);
    let acknowledged: Vec<&(usize, String, Option<u16>)> =
        sent.iter().filter(|(_, _, s)| *s == Some(201)).collect();
    let lost_on_the_killed_node = sent
        .iter()
        .filter(|(node, _, s)| *node == 2 && *s != Some(201))
        .count();
    eprintln!(
        "kill -9 under load: {} of 300 acknowledged, {lost_on_the_killed_node} sent to the \
         killed node unanswered",
        acknowledged.len()
    );
    for (_, receipt, _) in &acknowledged {
        let found = apps[0].lookup(&slug, receipt).await;
        assert_eq!(found.status(), 200, "an acknowledged response is stored");
    }
    for app in &apps[..2] {
        let after = app.submit(&slug, yes_to_first(&ids)).await;
        assert_eq!(after.status(), 201, "the surviving nodes keep serving");
    }
    // The live count (the figures' n moves only with releases).
    let stored = apps[1].results(&token, &slug).await["responses"]
        .as_u64()
        .unwrap();
    assert!(stored >= acknowledged.len() as u64 + 2);
}

/// The `xmin` (as text) and record id of a survey's stored responses, in `ctid` order.
fn heap_order(url: &str, slug: &str) -> Vec<(String, Vec<u8>)> {
    let slug = slug.to_owned();
    run_sql(url, move |client| {
        client
            .query(
                "SELECT xmin::text, record_id FROM stored_responses
                 WHERE survey_id = (SELECT id FROM surveys WHERE slug = $1) ORDER BY ctid",
                &[&slug],
            )
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_surveys_rows_share_one_xmin_and_lie_in_record_id_order() {
    let app = common::spawn_app().await;
    let DbLocation::Postgres(url) = app.db_location.clone() else {
        panic!("this test runs on PostgreSQL");
    };
    let (token, slug, ids) = app.open_survey(&[1.0, 2.0]).await;
    // One at a time: each response in a transaction (and a heap position) of its own.
    for _ in 0..30 {
        app.submit_ok(&slug, yes_to_first(&ids)).await;
    }
    let before = heap_order(&url, &slug);
    assert_eq!(before.len(), 30);
    let transactions: std::collections::BTreeSet<&String> = before.iter().map(|(x, _)| x).collect();
    assert!(transactions.len() > 1, "open, the heap records the commits");

    let closed = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);

    let after = heap_order(&url, &slug);
    assert_eq!(after.len(), 30, "the rewrite keeps every response");
    let transactions: std::collections::BTreeSet<&String> = after.iter().map(|(x, _)| x).collect();
    assert_eq!(transactions.len(), 1, "one xmin: the rewrite's");
    let in_heap_order: Vec<&Vec<u8>> = after.iter().map(|(_, id)| id).collect();
    let mut in_key_order = in_heap_order.clone();
    in_key_order.sort();
    assert_eq!(in_heap_order, in_key_order, "ctid order is record-id order");
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 30);
}
