//! What a survey's owner can learn (docs/design.md, invariant 11): for a survey with
//! grouping questions or invitations, no combination of the figures its owner can obtain
//! determines the reports or grouping answers of fewer than k = `min_cell` responses.
//!
//! The proof is an auditor that knows no attack ([`auditor`]) run over random scenarios
//! per engine ([`scenario`]): a sampled sweep (`crate::sweep`) of 200 fixed seeds in the
//! default mode of `./scripts/test` and 1 000 with `--long` (`DISCLOSURE_SCENARIOS` asks
//! for another count, as `bench/disclosure` does), a few seeds derived from the commit, and
//! every seed of `regression-seeds.txt`; each scenario is replayed with the contents of the
//! responses never released permuted among those that arrived between the same two
//! considerations: every read must come out the same. The attacks an independent review
//! found are named tests of their own ([`reproductions`]).

mod auditor;
mod named;
mod reads;
mod reproductions;
mod scenario;
mod views;

use futures_util::future::join_all;
use scenario::{on_postgres, permuted, run, Host, Outcome, Scenario};

use crate::sweep::{self, Origin};

/// Scenarios per engine from the fixed list: the default mode, and `--long`.
const DEFAULT_SCENARIOS: u64 = 200;
const LONG_SCENARIOS: u64 = 1_000;
/// Seeds derived from the commit under test, per engine and run, drawn from seeds the fixed
/// lists never reach.
const COMMIT_SCENARIOS: usize = 4;
const COMMIT_SEEDS: std::ops::Range<u64> = 2_000_000..1_000_000_000;
/// Seeds that once failed, run in every mode (add a failing seed here).
const REGRESSION_SEEDS: &str = include_str!("regression-seeds.txt");

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
        .unwrap_or_else(|| sweep::sized(DEFAULT_SCENARIOS, LONG_SCENARIOS))
}

/// The command that replays one seed of the sweep, on this engine.
fn replay_command(seed: u64) -> String {
    let engine = if on_postgres() {
        "DENIABLE_TEST_POSTGRES=<a cluster's URL: scripts/postgres-cluster start DIR> "
    } else {
        ""
    };
    format!(
        "{engine}DISCLOSURE_SEED={seed} cargo nextest run --cargo-profile test-run --test api \\
         --no-capture -E 'test(=disclosure::{SWEEP_TEST})'"
    )
}

const SWEEP_TEST: &str = "in_random_scenarios_every_class_of_alike_released_responses_holds_k";

/// Scenarios replayed with a permutation, for the report.
static REPLAYS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs a scenario and, when a permutation of its never-released responses changes
/// anything, its replay; the two transcripts must be equal.
async fn audit(scenario: &Scenario, host: &mut Host) -> Result<Outcome, String> {
    let outcome = run(scenario, host).await?;
    if let Some(replay) = permuted(scenario, &outcome) {
        REPLAYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let replayed = run(&replay, host).await?;
        for (read, (original, again)) in outcome
            .transcript
            .iter()
            .zip(&replayed.transcript)
            .enumerate()
        {
            if let Some(difference) = auditor::first_difference(original, again, "") {
                return Err(format!(
                    "scenario seed {}: read {read} differs when the responses never released \
                     are permuted within their windows ({:?} against {:?}): {difference}",
                    scenario.seed, scenario.events, replay.events
                ));
            }
        }
    }
    Ok(outcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_random_scenarios_every_class_of_alike_released_responses_holds_k() {
    let seeds: Vec<(u64, Origin)> = only_seed().map_or_else(
        || {
            sweep::seeds(
                scenario_count(),
                COMMIT_SCENARIOS,
                COMMIT_SEEDS,
                REGRESSION_SEEDS,
            )
        },
        |seed| vec![(seed, Origin::Fixed)],
    );
    let workers = (0..workers()).map(|worker| {
        let seeds = &seeds;
        async move {
            let mut host = Host::in_process(on_postgres() && worker % 2 == 1).await;
            let mut outcomes = Vec::new();
            for &(seed, origin) in seeds
                .iter()
                .skip(worker as usize)
                .step_by(workers() as usize)
            {
                let scenario = Scenario::generate(seed, seed % 100 == 3);
                let audited = audit(&scenario, &mut host).await;
                if audited.is_err() {
                    // A failed scenario may leave its host mid-way: the next starts afresh.
                    host = Host::in_process(on_postgres() && worker % 2 == 1).await;
                }
                outcomes.push((scenario, origin, audited));
            }
            outcomes
        }
    });
    let audited: Vec<(Scenario, Origin, Result<Outcome, String>)> =
        join_all(workers).await.into_iter().flatten().collect();
    assert_eq!(audited.len(), seeds.len());
    let failures: Vec<String> = audited
        .iter()
        .filter_map(|(scenario, origin, result)| {
            result.as_ref().err().map(|error| {
                format!(
                    "seed {} ({origin:?}) failed: {error}\n  replay: {}",
                    scenario.seed,
                    replay_command(scenario.seed)
                )
            })
        })
        .collect();
    let outcomes: Vec<(&Scenario, &Outcome)> = audited
        .iter()
        .filter_map(|(scenario, _, result)| result.as_ref().ok().map(|o| (scenario, o)))
        .collect();
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
        "{count} scenarios ({} from the commit, {} listed regressions): smallest class of \
         alike released responses {smallest:?} (k = {}); {released} responses released and \
         {withheld} withheld at close in all",
        seeds.iter().filter(|(_, o)| *o == Origin::Commit).count(),
        seeds
            .iter()
            .filter(|(_, o)| *o == Origin::Regression)
            .count(),
        scenario::k()
    );
    let smallest_where = |withdrawals: bool| {
        outcomes
            .iter()
            .filter(|(_, outcome)| outcome.withdrawals == withdrawals)
            .filter_map(|(_, outcome)| outcome.smallest_class)
            .min()
    };
    let stayers: u64 = outcomes.iter().map(|(_, o)| o.stayers_released).sum();
    let stayers_withheld: u64 = outcomes.iter().map(|(_, o)| o.stayers_withheld).sum();
    println!(
        "smallest class with withdrawals of released responses {:?}, without {:?}; stayers \
         withheld by withdrawals: {stayers_withheld} of {stayers} released ({:.2} %)",
        smallest_where(true),
        smallest_where(false),
        100.0 * stayers_withheld as f64 / stayers.max(1) as f64
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
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("{failure}");
        }
        panic!(
            "{} of {count} scenarios failed (each printed above with the command that replays \
             it; add each seed to tests/api/disclosure/regression-seeds.txt)",
            failures.len()
        );
    }
    assert!(
        smallest.is_some_and(|smallest| smallest >= scenario::k() as usize)
            || (only_seed().is_some() && smallest.is_none()),
        "some response was released: {smallest:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_kill_9_restarts_every_class_of_alike_released_responses_still_holds_k() {
    let mut host = Host::child_process().await;
    let mut crashes = 0;
    // 12 scenarios with --long, 6 in the default mode.
    let scenarios: u64 = sweep::sized(6, 12);
    for seed in 0..scenarios {
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
        audit(&scenario, &mut host)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
    assert!(crashes as u64 >= 2 * scenarios, "{crashes} crashes");
}
