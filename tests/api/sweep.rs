//! The sizes of the long sweeps and the seeds of the sampled ones (docs/contributing.md,
//! "Two modes").
//!
//! `./scripts/test` sets `DENIABLE_TEST_MODE` (`default` or `long`, with `--long`) and
//! `DENIABLE_TEST_COMMIT` (the commit under test). A sampled sweep runs, in both modes, a
//! fixed list of seeds (the first `default` or `long` of them), a few seeds derived from the
//! commit (so each commit explores a little further), and every seed of its committed list
//! of seeds that once failed. A failing seed is printed with the command that replays it;
//! add it to that list.
#![allow(dead_code)] // each test binary that includes it uses a different part

/// `./scripts/test --long` (CI): the sweeps at their full sizes.
pub fn long_mode() -> bool {
    std::env::var("DENIABLE_TEST_MODE").as_deref() == Ok("long")
}

/// `long` in the long mode, `default` otherwise.
pub fn sized<T>(default: T, long: T) -> T {
    if long_mode() {
        long
    } else {
        default
    }
}

/// Why a seed is in a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Fixed,
    /// Derived from the commit under test.
    Commit,
    /// In the committed list of seeds that once failed.
    Regression,
}

/// A sweep's seeds: `0..fixed` (`fixed` as [`sized`] gives it), `derived` seeds from the
/// commit in `derived_range`, and the seeds listed in `regressions` (the text of the
/// committed file: one seed per line, `#` starts a comment).
pub fn seeds(
    fixed: u64,
    derived: usize,
    derived_range: std::ops::Range<u64>,
    regressions: &str,
) -> Vec<(u64, Origin)> {
    let mut seeds: Vec<(u64, Origin)> = (0..fixed).map(|seed| (seed, Origin::Fixed)).collect();
    let mut state = commit_hash();
    let width = derived_range.end - derived_range.start;
    for _ in 0..derived {
        state = splitmix64(state);
        seeds.push((derived_range.start + state % width, Origin::Commit));
    }
    for line in regressions.lines() {
        let seed = line.split('#').next().unwrap_or_default().trim();
        if seed.is_empty() {
            continue;
        }
        let seed: u64 = seed
            .parse()
            .unwrap_or_else(|_| panic!("a seed list holds {line:?}, not a number"));
        seeds.push((seed, Origin::Regression));
    }
    let mut seen = std::collections::HashSet::new();
    seeds.retain(|(seed, _)| seen.insert(*seed));
    seeds
}

/// The commit under test (`DENIABLE_TEST_COMMIT`, else the checkout's HEAD), hashed.
fn commit_hash() -> u64 {
    let commit = std::env::var("DENIABLE_TEST_COMMIT")
        .ok()
        .filter(|commit| !commit.is_empty())
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "HEAD"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .ok()
                .filter(|output| output.status.success())
                .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        })
        .unwrap_or_default();
    commit
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// SplitMix64's step: a well-mixed next value.
fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn a_sweep_runs_its_fixed_seeds_a_few_from_the_commit_and_every_listed_regression() {
    let seeds = seeds(
        3,
        2,
        1_000..2_000,
        "# a comment\n703  # closed by time\n\n1\n",
    );
    let fixed: Vec<u64> = seeds
        .iter()
        .filter(|(_, origin)| *origin == Origin::Fixed)
        .map(|(seed, _)| *seed)
        .collect();
    assert_eq!(fixed, [0, 1, 2]);
    let derived: Vec<u64> = seeds
        .iter()
        .filter(|(_, origin)| *origin == Origin::Commit)
        .map(|(seed, _)| *seed)
        .collect();
    assert_eq!(derived.len(), 2);
    assert!(derived.iter().all(|seed| (1_000..2_000).contains(seed)));
    // 1 is already among the fixed seeds: run once.
    assert_eq!(
        seeds
            .iter()
            .filter(|(_, origin)| *origin == Origin::Regression)
            .map(|(seed, _)| *seed)
            .collect::<Vec<_>>(),
        [703]
    );
}
