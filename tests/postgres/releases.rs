//! Release state on PostgreSQL is the database's, not a node's (docs/design.md, "Releases
//! across nodes"): releases are considered inside the writer transaction that makes them
//! due, whichever node it runs on, so every node shows the same released cells, many
//! refreshes at once over two nodes show one state, a node started later shows the state
//! in force rather than releasing what is there, and closing withholds what never made a
//! cell of k.

use futures_util::future::join_all;
use serde_json::json;

use super::common::{remote_app, serving_address, TestApp};
use super::{count, empty_database, spawn_node, Nodes};
use deniable::db::DbLocation;

const K: u64 = 5;

/// What an open cell needs to be released: k + max(2, ⌈k/5⌉).
const OPEN: u64 = K + 2;

async fn nodes(url: &str, how_many: usize) -> (Nodes, Vec<TestApp>) {
    let mut children: Vec<_> = (0..how_many).map(|_| spawn_node(url)).collect();
    let addresses: Vec<String> = children
        .iter_mut()
        .map(|child| serving_address(child.stdout.take().unwrap()))
        .collect();
    let location: DbLocation = url.parse().unwrap();
    let mut apps = Vec::new();
    for address in addresses {
        apps.push(remote_app(address, location.clone()).await);
    }
    (Nodes(children), apps)
}

async fn send(app: &TestApp, slug: &str, grouping: i64, question: i64, group: u8) {
    app.submit_ok(
        slug,
        json!({ grouping.to_string(): group, question.to_string(): group % 2 }),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_node_shows_the_one_release_in_the_database_and_a_new_node_keeps_it() {
    let url = empty_database();
    let (first_two, apps) = nodes(&url, 2).await;
    let token = apps[0].researcher_with_token("owner@example.org").await;
    let definition = json!({
        "title": "Sport and doping",
        "min_cell": K,
        "results_after_close": false,
        "questions": [
            {"type": "grouping", "text": "Sport", "options": ["Rowing", "Judo", "Chess"]},
            {"text": "Have you used a performance-enhancing drug?", "epsilon": 1.0},
        ],
    });
    let (slug, ids) = super::open_survey(&apps[0], &token, &definition).await;
    let (grouping, question) = (ids[0], ids[1]);

    // Twenty responses over both nodes, in turn by group: at the consideration at 20, Rowing
    // and Judo hold seven each (k + 2) and are released, whichever node ran it; Chess's six
    // wait.
    for index in 0..4 * K {
        send(
            &apps[(index % 2) as usize],
            &slug,
            grouping,
            question,
            (index % 3) as u8,
        )
        .await;
    }
    let released = apps[1].breakdown(&token, &slug, grouping).await;
    assert_eq!(released["released_responses"], 2 * OPEN);
    assert_eq!(apps[0].breakdown(&token, &slug, grouping).await, released);

    // Four more Chess, on either node, one at a time: no node moves.
    for index in 0..K - 1 {
        let node = &apps[(index % 2) as usize];
        send(node, &slug, grouping, question, 2).await;
        for app in &apps {
            assert_eq!(app.breakdown(&token, &slug, grouping).await, released);
        }
    }

    // The fifth (a Rowing one) makes the consideration at 25: Chess's ten are released; 20
    // refreshes at once over both nodes show one state.
    send(&apps[1], &slug, grouping, question, 0).await;
    let refreshes = join_all((0..20).map(|i| {
        let (app, token, slug) = (&apps[i % 2], &token, &slug);
        async move { app.breakdown(token, slug, grouping).await }
    }))
    .await;
    for refresh in &refreshes {
        assert_eq!(refresh, &refreshes[0]);
    }
    assert_eq!(refreshes[0]["released_responses"], 2 * OPEN + 10);
    assert_eq!(refreshes[0]["next_release_at"], 6 * K);
    assert_eq!(count(&url, "SELECT count(*) FROM unreleased_responses"), 1);

    // Four more Chess, then both nodes stop and a new one starts: it shows the state in force.
    for _ in 0..4 {
        send(&apps[0], &slug, grouping, question, 2).await;
    }
    drop(first_two);
    let (_later, later) = nodes(&url, 1).await;
    assert_eq!(
        later[0].breakdown(&token, &slug, grouping).await,
        refreshes[0]
    );

    // Closing withholds the five waiting: fewer than k new ones in Rowing (1) and Chess (4).
    let closed = later[0]
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);
    let after = later[0].breakdown(&token, &slug, grouping).await;
    assert_eq!(after["released_responses"], 2 * OPEN + 10);
    assert_eq!(count(&url, "SELECT count(*) FROM unreleased_responses"), 5);
    let results = later[0].results(&token, &slug).await;
    assert_eq!(results["release"]["withheld_responses"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_invitation_surveys_release_is_the_same_from_every_node_and_a_withdrawal_leaves_it() {
    let url = empty_database();
    let (_nodes, apps) = nodes(&url, 2).await;
    let token = apps[0].researcher_with_token("owner@example.org").await;
    let mut definition = super::common::survey_definition(&[1.0]);
    definition["requires_invitation"] = json!(true);
    definition["results_after_close"] = json!(false);
    definition["min_cell"] = json!(K);
    let (slug, ids) = super::open_survey(&apps[0], &token, &definition).await;
    let codes = apps[0].invitations(&token, &slug, 11).await.codes;
    let answer = json!({ ids[0].to_string(): 1 });

    // Ten redeemed and answered, over both nodes: the consideration at 10 releases them
    // (five were fewer than k + 2).
    let mut receipts = Vec::new();
    for (index, code) in codes[..10].iter().enumerate() {
        let node = &apps[index % 2];
        let bought = node.token_for(&slug, code).await;
        let (receipt, response_id) = super::common::receipt_and_response_id();
        let stored = node
            .submit_with_token(&slug, answer.clone(), Some(&bought), Some(&response_id))
            .await;
        assert_eq!(stored.status(), 201);
        receipts.push(receipt);
    }
    let results = apps[1].results(&token, &slug).await;
    assert_eq!(results["questions"][0]["n"], 10);
    // An eleventh through the second node moves nothing on either.
    let bought = apps[1].token_for(&slug, &codes[10]).await;
    let stored = apps[1]
        .submit_with_token(&slug, answer.clone(), Some(&bought), None)
        .await;
    assert_eq!(stored.status(), 201);
    for app in &apps {
        assert_eq!(app.results(&token, &slug).await, results);
    }
    assert_eq!(count(&url, "SELECT count(*) FROM unreleased_responses"), 1);

    // A released response withdrawn, then the survey closed: its release keeps nine (at
    // least k), so the export holds them; the eleventh is withheld.
    let withdrawn = apps[1].withdraw(&slug, &receipts[0]).await;
    assert_eq!(withdrawn.status(), 204);
    let closed = apps[0]
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);
    for app in &apps {
        let rows = app.export_csv(&token, &slug).await.lines().count() - 1;
        assert_eq!(
            rows, 9,
            "the export holds the released responses still stored"
        );
    }
}
