//! The ways around the release model that issue 41 found, each as a fixed scenario the
//! auditor reads after every event (every view, the property of docs/design.md, invariant
//! 11: a withdrawn response belongs only to the sets whose views included it), or, for the
//! views the partition cannot see moving, as the direct check the issue describes.
//!
//! k = 5 in every scenario ([`scenario::K`]): an open cell is released with k + 2 = 7
//! unreleased responses, considered every 5 arrivals.

use serde_json::{json, Value};

use super::scenario::{self, Event, Host, Scenario, Stop};
use crate::common::{spawn_app, TestApp};

const LAW: u8 = 0;
const MED: u8 = 1;

fn arrive(cell: u8, report: u8) -> Event {
    Event::Arrive {
        cell: vec![cell],
        reports: vec![report],
    }
}

/// `count` arrivals in `cell`, reports alternating from `first`.
fn arrivals(cell: u8, count: usize, first: u8) -> Vec<Event> {
    (0..count)
        .map(|i| arrive(cell, (first + u8::from(i % 2 == 1)) % 2))
        .collect()
}

fn departments(seed: u64, events: Vec<Event>) -> Scenario {
    Scenario {
        seed,
        groupings: vec![2],
        choice: false,
        invitations: false,
        results_after_close: false,
        stop: Stop::Hand,
        events,
    }
}

async fn audited(scenario: &Scenario) -> scenario::Outcome {
    let mut host = Host::in_process(false).await;
    super::audit(scenario, &mut host)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// Reproduction 1: law released together, all but one withdraw, med makes the next
/// consideration. Per cell, law then showed n = 1 and its estimates the stayer's reports;
/// per release, the stayer's release leaves every figure at that consideration, withheld.
#[tokio::test]
async fn withdrawals_never_leave_one_stayer_of_a_release_in_the_figures() {
    // 7 law and 3 med: the consideration at 10 releases law's 7 (med's 3 wait).
    let mut events = arrivals(LAW, 7, 0);
    events.extend(arrivals(MED, 3, 1));
    // Six of law's seven withdraw; five med arrive and make the consideration at 15.
    events.extend((0..6).map(Event::Withdraw));
    events.extend(arrivals(MED, 5, 0));
    events.push(Event::Close);
    let outcome = audited(&departments(4101, events)).await;
    assert!(outcome.arrivals[6].stored && outcome.arrivals[6].ever_released);
    // The stayer is withheld at close with its release, med's eight are released.
    assert_eq!(outcome.withheld_at_close, 1);
    assert_eq!(outcome.released_at_close, 8);
}

/// Law released in two batches; one withdrawal from the first and a consideration leave law
/// at a size ≥ k, yet S(after) − (S(second) − S(first)) would be the first batch's stayers.
/// Per release, the first batch's stayers (below k) leave together; the second stays.
#[tokio::test]
async fn a_release_left_below_k_leaves_while_the_cells_other_releases_stay() {
    // Batch A: 7 law at the consideration at 10; batch B: 7 more law at 20.
    let mut events = arrivals(LAW, 7, 0);
    events.extend(arrivals(MED, 3, 0));
    events.extend(arrivals(LAW, 7, 1));
    events.extend(arrivals(MED, 3, 1));
    // Three of A withdraw (four stay, fewer than k); five med make the consideration at 25.
    events.extend((0..3).map(Event::Withdraw));
    events.extend(arrivals(MED, 5, 0));
    events.push(Event::Close);
    let outcome = audited(&departments(4102, events)).await;
    assert!(
        (10..17).all(|arrival| outcome.arrivals[arrival].ever_released),
        "batch B stays released"
    );
    // A's four stayers withheld; B's 7 and med's 11 released at close.
    assert_eq!(outcome.withheld_at_close, 4);
    assert_eq!(outcome.released_at_close, 7 + 11);
}

/// A stayer of a release that left is never released again, alone or with new responses:
/// each new release of its cell is made of new responses only.
#[tokio::test]
async fn a_withheld_stayer_is_never_released_again_with_new_responses() {
    let mut events = arrivals(LAW, 7, 0);
    events.extend(arrivals(MED, 3, 0));
    events.extend((0..4).map(Event::Withdraw));
    // Seven new law responses and three med: the consideration at 20 withholds A's three
    // stayers and releases the seven new ones; closing releases med's six.
    events.extend(arrivals(LAW, 7, 1));
    events.extend(arrivals(MED, 3, 1));
    events.push(Event::Restart);
    events.push(Event::Close);
    let outcome = audited(&departments(4103, events)).await;
    for stayer in 4..7 {
        let fate = outcome.arrivals[stayer];
        assert!(fate.stored && !fate.withdrawn, "arrival {stayer} stayed");
    }
    assert_eq!(outcome.withheld_at_close, 3);
    assert_eq!(outcome.released_at_close, 7 + 6);
}

/// Creates and opens a survey; returns its slug and question ids (as the API's keys).
async fn open(app: &TestApp, token: &str, definition: Value) -> (String, Vec<String>) {
    let (slug, questions) = super::reproductions::open(app, token, definition).await;
    let ids = questions
        .iter()
        .map(|q| q["id"].as_i64().unwrap().to_string())
        .collect();
    (slug, ids)
}

async fn read(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.owner_get(token, path).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// Reproduction 2: a withdrawal moved every `?joint=` table at once (n 10 → 9) while the
/// other views kept the last consideration's snapshot; the difference gave the withdrawn
/// response's reports, timed to the second. Now the tables move with the snapshot.
#[tokio::test]
async fn a_withdrawal_moves_the_cross_tabulation_only_at_the_next_consideration() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(
        &app,
        &token,
        json!({"title": "Pairs", "min_cell": 5, "questions": [
            {"text": "First?", "epsilon": 1.0},
            {"text": "Second?", "epsilon": 1.0},
        ]}),
    )
    .await;
    let mut receipts = Vec::new();
    for i in 0..10 {
        receipts.push(
            app.submit_ok(&slug, json!({&ids[0]: i % 2, &ids[1]: (i / 2) % 2}))
                .await,
        );
    }
    let joint = format!("/api/surveys/{slug}/results?joint={},{}", ids[0], ids[1]);
    let before = read(&app, &token, &joint).await;
    assert_eq!(before["n"], 10, "{before}");
    assert_eq!(app.withdraw(&slug, &receipts[3]).await.status(), 204);
    assert_eq!(
        read(&app, &token, &joint).await,
        before,
        "nothing moves before a consideration"
    );
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 10);
    // Five more arrivals make the consideration: the withdrawal takes effect in every view
    // at once (nine stayed, at least k: the release stays); the five new wait for k + 2.
    for i in 0..5 {
        app.submit_ok(&slug, json!({&ids[0]: i % 2, &ids[1]: 1}))
            .await;
    }
    let after = read(&app, &token, &joint).await;
    assert_eq!(after["n"], 9, "{after}");
    assert_eq!(app.results(&token, &slug).await["questions"][0]["n"], 9);
}

/// Item 4: considerations every k arrivals and a live response count let an owner who knows
/// who arrived when solve each batch's members. Under `results_after_close` (the default
/// with grouping questions) nothing that depends on grouping answers or on which responses
/// were released shows until close: only `responses` and `considered_at` move.
#[tokio::test]
async fn under_results_after_close_an_arrival_window_has_nothing_to_solve_until_close() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(
        &app,
        &token,
        json!({"title": "Windows", "min_cell": 5, "questions": [
            {"type": "grouping", "text": "Dept", "options": ["law", "med"]},
            {"text": "Have you?", "epsilon": 1.0},
            {"text": "And you?", "epsilon": 1.0},
        ]}),
    )
    .await;
    let by = format!("/api/surveys/{slug}/results?by={}", ids[0]);
    let joint = format!("/api/surveys/{slug}/results?joint={},{}", ids[1], ids[2]);
    for arrival in 0..30u64 {
        // 80/20 between the departments, the case the issue measured.
        let dept = u64::from(arrival % 5 == 0);
        app.submit_ok(
            &slug,
            json!({&ids[0]: dept, &ids[1]: arrival % 2, &ids[2]: arrival % 3 % 2}),
        )
        .await;
        let results = app.results(&token, &slug).await;
        assert_eq!(results["responses"], arrival + 1);
        assert_eq!(results["release"]["reason"], "results_after_close");
        assert!(
            results["release"]["released_responses"].is_null(),
            "{results}"
        );
        assert!(
            results["release"]["withheld_responses"].is_null(),
            "{results}"
        );
        for question in results["questions"].as_array().unwrap() {
            assert_eq!(question["n"], 0, "{question}");
            assert!(question["estimate"].is_null(), "{question}");
        }
        let breakdown: Value = app.owner_get(&token, &by).await.json().await.unwrap();
        for group in breakdown["groups"].as_array().unwrap() {
            assert!(group["n"].is_null(), "no group n while open: {group}");
            assert_eq!(
                group["suppressed"], false,
                "nothing said of any group: {group}"
            );
        }
        let table = app.owner_get(&token, &joint).await;
        assert_eq!(table.status(), 409, "no cross-tabulation while open");
        assert_eq!(
            crate::common::error_code(table).await,
            "results_after_close"
        );
    }
    app.close(&token, &slug).await;
    let closed = app.results(&token, &slug).await;
    assert_eq!(closed["release"]["reason"], "closed");
    assert_eq!(closed["questions"][0]["n"], 30);
}
