//! What a survey's owner can learn (docs/design.md, invariant 11): for a survey with
//! grouping questions or invitations, no combination of the figures its owner can obtain
//! determines the reports or grouping answers of fewer than k = `min_cell` responses.
//!
//! The proof is an auditor that knows no attack ([`auditor`]) run over a thousand random
//! scenarios per engine ([`scenario`]; more with `DISCLOSURE_SCENARIOS`, as
//! `bench/disclosure` does), each replayed with the contents of the responses never
//! released permuted among those that arrived between the same two considerations: every
//! read must come out the same. The attacks an independent review found are named tests
//! of their own ([`reproductions`]).

mod auditor;
mod reproductions;
mod scenario;
mod views;

use futures_util::future::join_all;
use scenario::{on_postgres, permuted, run, Host, Outcome, Scenario};

/// Scenarios per engine in `./scripts/test`; `DISCLOSURE_SCENARIOS` asks for more.
const DEFAULT_SCENARIOS: u64 = 1_000;
/// Hosts running scenarios at once (each a server of its own, or two on PostgreSQL). Reads
/// wait on the network on PostgreSQL: more hosts keep both cores busy there.
fn workers() -> u64 {
    if on_postgres() {
        16
    } else {
        8
    }
}

/// `DISCLOSURE_SEED=n` runs that scenario alone (what a failure names).
fn only_seed() -> Option<u64> {
    std::env::var("DISCLOSURE_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
}

fn scenario_count() -> u64 {
    std::env::var("DISCLOSURE_SCENARIOS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_SCENARIOS)
}

/// Scenarios replayed with a permutation, for the report.
static REPLAYS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs a scenario and, when a permutation of its never-released responses changes
/// anything, its replay; the two transcripts must be equal.
async fn audit(scenario: &Scenario, host: &mut Host) -> Outcome {
    let outcome = run(scenario, host).await.unwrap_or_else(|e| panic!("{e}"));
    if let Some(replay) = permuted(scenario, &outcome) {
        REPLAYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let replayed = run(&replay, host).await.unwrap_or_else(|e| panic!("{e}"));
        for (read, (original, again)) in outcome
            .transcript
            .iter()
            .zip(&replayed.transcript)
            .enumerate()
        {
            if let Some(difference) = auditor::first_difference(original, again, "") {
                panic!(
                    "scenario seed {}: read {read} differs when the responses never released \
                     are permuted within their windows ({:?} against {:?}): {difference}",
                    scenario.seed, scenario.events, replay.events
                );
            }
        }
    }
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_thousand_random_scenarios_every_class_of_alike_released_responses_holds_k() {
    let count = scenario_count();
    let seeds: Vec<u64> = only_seed().map_or_else(|| (0..count).collect(), |seed| vec![seed]);
    let workers = (0..workers()).map(|worker| {
        let seeds = &seeds;
        async move {
            let mut host = Host::in_process(on_postgres() && worker % 2 == 1).await;
            let mut outcomes = Vec::new();
            for &seed in seeds
                .iter()
                .skip(worker as usize)
                .step_by(workers() as usize)
            {
                let scenario = Scenario::generate(seed, seed % 100 == 3);
                outcomes.push((scenario.clone(), audit(&scenario, &mut host).await));
            }
            outcomes
        }
    });
    let outcomes: Vec<(Scenario, Outcome)> =
        join_all(workers).await.into_iter().flatten().collect();
    assert_eq!(outcomes.len(), seeds.len());
    let count = seeds.len();
    let smallest = outcomes
        .iter()
        .filter_map(|(_, outcome)| outcome.smallest_class)
        .min();
    let withheld: u64 = outcomes.iter().map(|(_, o)| o.withheld_at_close).sum();
    let released: u64 = outcomes.iter().map(|(_, o)| o.released_at_close).sum();
    println!(
        "{} scenarios replayed with their never-released responses permuted",
        REPLAYS.load(std::sync::atomic::Ordering::Relaxed)
    );
    println!(
        "restarts took {} ms in all",
        scenario::RESTART_MILLIS.load(std::sync::atomic::Ordering::Relaxed)
    );
    println!(
        "{count} scenarios: smallest class of alike released responses {smallest:?} (k = {}); \
         {released} responses released and {withheld} withheld at close in all",
        scenario::K
    );
    for (scenario, outcome) in outcomes.iter().take(6) {
        println!(
            "  seed {}: {} grouping question(s) {:?}, invitations {}, results after close {}, \
             {:?}: {} release moment(s), smallest class {:?}, {} released and {} withheld at \
             close",
            scenario.seed,
            scenario.groupings.len(),
            scenario.groupings,
            scenario.invitations,
            scenario.results_after_close,
            scenario.stop,
            outcome.releases,
            outcome.smallest_class,
            outcome.released_at_close,
            outcome.withheld_at_close
        );
    }
    assert!(
        smallest.is_some_and(|smallest| smallest >= scenario::K as usize),
        "some response was released: {smallest:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_kill_9_restarts_every_class_of_alike_released_responses_still_holds_k() {
    let mut host = Host::child_process().await;
    let mut crashes = 0;
    for seed in 0..12 {
        let mut scenario = Scenario::generate(1_000_000 + seed, false);
        // A crash in the middle of every scenario, and one just before its close.
        let middle = scenario.events.len() / 2;
        scenario.events.insert(middle, scenario::Event::Restart);
        let close = scenario
            .events
            .iter()
            .position(|event| *event == scenario::Event::Close)
            .unwrap();
        scenario.events.insert(close, scenario::Event::Restart);
        crashes += scenario
            .events
            .iter()
            .filter(|event| **event == scenario::Event::Restart)
            .count();
        audit(&scenario, &mut host).await;
    }
    assert!(crashes >= 24, "{crashes} crashes");
}
