//! Timing, measured (issue 20, "Proof"): blind tokens make a redemption and a response
//! unlinkable by what they contain, not by when they happen. This simulation measures how
//! many a timing-only attacker links under a realistic arrival model, and how much the
//! owner's release-gated views (`deniable::db::releases`, considered every `min_cell` new
//! responses and redemptions) take away from an owner who watches them.
//!
//! Arrival model: respondents redeem at independent uniform times over a day (the mail
//! merge went out in the morning; people open it when they do), and each answers 1 to 30
//! minutes (uniform) after redeeming.
//!
//! Attackers (each knows the delay model and, in the worst case, when each person redeemed):
//! * **the live server** (or a proxy, or a copy of a store that keeps write order): the
//!   exact time of every redemption and of every response;
//! * **the owner, ungated**: polls the views every minute and sees each new response
//!   appear, with the minute it appeared in;
//! * **the owner, gated**: sees the views only as released: a response is known to have
//!   arrived between two releases.
//!
//! Each attacker assigns every response to a distinct redemption that could have bought
//! it (its redemption within 1 to 30 minutes before the response could have arrived),
//! earliest-deadline first, which is the best it can do when every feasible delay is
//! equally likely; it is scored by the fraction of responses linked to their own
//! redemption. `expected_guess` is the mean of 1 / (feasible candidates), the accuracy of
//! a uniform guess among them. Figures are printed and written to
//! target/timing-report.txt.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use deniable::db::releases::consideration_due;

const DAY_S: f64 = 24.0 * 3600.0;
const MIN_DELAY_S: f64 = 60.0;
const MAX_DELAY_S: f64 = 30.0 * 60.0;
/// How often the owner looks at the views.
const POLL_S: f64 = 60.0;
const RUNS: u64 = 5;

struct Respondent {
    redeemed_at: f64,
    answered_at: f64,
}

fn population(respondents: usize, rng: &mut StdRng) -> Vec<Respondent> {
    let mut people: Vec<Respondent> = (0..respondents)
        .map(|_| {
            let redeemed_at = rng.random_range(0.0..DAY_S);
            Respondent {
                redeemed_at,
                answered_at: redeemed_at + rng.random_range(MIN_DELAY_S..MAX_DELAY_S),
            }
        })
        .collect();
    people.sort_by(|a, b| a.redeemed_at.total_cmp(&b.redeemed_at));
    people
}

/// When each response is known to have arrived: (not before, not after).
type Window = (f64, f64);

/// Links each response to a distinct feasible redemption: first every link that is certain
/// (a response with one feasible redemption left, or a redemption with one feasible response
/// left, repeated until none is), then the rest earliest deadline first. Returns the
/// fraction linked correctly, the fraction linked for certain (all of them correct), and
/// the mean of 1 / (feasible candidates) over the responses (a uniform guess's accuracy).
fn attack(redeemed: &[Window], windows: &[Window], rng: &mut StdRng) -> (f64, f64, f64) {
    let n = redeemed.len();
    let feasible = |response: usize, r: usize| {
        let (not_before, not_after) = windows[response];
        redeemed[r].0 + MIN_DELAY_S <= not_after && redeemed[r].1 + MAX_DELAY_S >= not_before
    };
    // Candidates per response, by the latest their redemption can have been; those the
    // attacker cannot tell apart in an order nothing tells.
    let mut by_time: Vec<usize> = (0..n).collect();
    by_time.shuffle(rng);
    by_time.sort_by(|&a, &b| redeemed[a].1.total_cmp(&redeemed[b].1));
    let mut candidates: Vec<Vec<usize>> = (0..n)
        .map(|response| {
            by_time
                .iter()
                .copied()
                .filter(|&r| feasible(response, r))
                .collect()
        })
        .collect();
    let guess = candidates
        .iter()
        .map(|c| 1.0 / c.len().max(1) as f64)
        .sum::<f64>()
        / n as f64;
    let mut linked: Vec<Option<usize>> = vec![None; n];
    let mut taken = vec![false; n];
    let mut certain = 0;
    loop {
        let mut progress = false;
        for response in 0..n {
            if linked[response].is_some() {
                continue;
            }
            candidates[response].retain(|&r| !taken[r]);
            if let [only] = candidates[response][..] {
                linked[response] = Some(only);
                taken[only] = true;
                certain += 1;
                progress = true;
            }
        }
        let mut holders: Vec<Vec<usize>> = vec![Vec::new(); n];
        for response in (0..n).filter(|&response| linked[response].is_none()) {
            for &r in &candidates[response] {
                holders[r].push(response);
            }
        }
        for (r, holders) in holders.iter().enumerate() {
            if let ([only], false) = (&holders[..], taken[r]) {
                if linked[*only].is_none() {
                    linked[*only] = Some(r);
                    taken[r] = true;
                    certain += 1;
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    // The rest: by the latest moment they can have arrived; those that share it (one
    // release, one poll) in an order nothing tells (their record ids are random).
    let mut order: Vec<usize> = (0..n)
        .filter(|&response| linked[response].is_none())
        .collect();
    order.shuffle(rng);
    order.sort_by(|&a, &b| windows[a].1.total_cmp(&windows[b].1));
    for response in order {
        if let Some(&chosen) = candidates[response].iter().find(|&&r| !taken[r]) {
            taken[chosen] = true;
            linked[response] = Some(chosen);
        }
    }
    let correct = (0..n)
        .filter(|&response| linked[response] == Some(response))
        .count();
    (correct as f64 / n as f64, certain as f64 / n as f64, guess)
}

/// Exact times: what the live server sees, of the redemptions and of the responses.
fn exact(times: impl Iterator<Item = f64>) -> Vec<Window> {
    times.map(|t| (t, t)).collect()
}

/// The minute in which each event appeared in ungated views polled every minute.
fn polled(times: impl Iterator<Item = f64>) -> Vec<Window> {
    times
        .map(|t| {
            let poll = (t / POLL_S).ceil() * POLL_S;
            (poll - POLL_S, poll)
        })
        .collect()
}

/// The release in which each response appeared, the owner polling every minute and the
/// server considering releases by `consideration_due` with step `k`; the rest at closing
/// (the end of the day plus the longest delay).
fn released_windows(people: &[Respondent], k: u64) -> (Vec<Window>, Vec<Window>, usize) {
    let close = DAY_S + MAX_DELAY_S + POLL_S;
    let mut releases: Vec<(f64, u64, u64)> = Vec::new(); // (time, responses, redemptions)
    let mut previous: Option<(u64, u64)> = None;
    let mut answered: Vec<f64> = people.iter().map(|p| p.answered_at).collect();
    answered.sort_by(f64::total_cmp);
    let mut t = POLL_S;
    while t <= close {
        let closed = t + POLL_S > close;
        let responses = answered.iter().take_while(|&&a| a <= t).count() as u64;
        let redemptions = people.iter().take_while(|p| p.redeemed_at <= t).count() as u64;
        let due = closed
            || consideration_due(
                k,
                previous.unwrap_or((0, 0)),
                (responses, redemptions),
                true,
            );
        if previous != Some((responses, redemptions)) && due {
            releases.push((t, responses, redemptions));
            previous = Some((responses, redemptions));
        }
        t += POLL_S;
    }
    let window = |t: f64| {
        let at = releases
            .iter()
            .position(|&(time, _, _)| time >= t)
            .expect("closing releases everything");
        let not_before = if at == 0 { 0.0 } else { releases[at - 1].0 };
        (not_before, releases[at].0)
    };
    let responses = people.iter().map(|p| window(p.answered_at)).collect();
    let redemptions = people.iter().map(|p| window(p.redeemed_at)).collect();
    (responses, redemptions, releases.len())
}

#[test]
fn a_timing_only_attacker_links_few_responses_through_the_release_gated_views() {
    let mut lines = vec![format!(
        "Timing-only linking: redemptions uniform over 24 h, each answer 1–30 min later; \
         mean of {RUNS} runs. Fraction of responses linked to their redemption \
         (certain links first, then earliest deadline) / expected accuracy of a uniform guess among the \
         feasible ones."
    )];
    for respondents in [200, 1_000] {
        let mut rows: Vec<(String, [f64; 3])> = Vec::new();
        let mut add = |name: String, (linked, certain, guess): (f64, f64, f64)| {
            let figures = [linked, certain, guess].map(|x| x / RUNS as f64);
            match rows.iter_mut().find(|row| row.0 == name) {
                Some(row) => (0..3).for_each(|i| row.1[i] += figures[i]),
                None => rows.push((name, figures)),
            }
        };
        let mut release_counts: Vec<(u64, usize)> = Vec::new();
        for run in 0..RUNS {
            let mut rng = StdRng::seed_from_u64(20 + run);
            let people = population(respondents, &mut rng);
            let redeemed = || people.iter().map(|p| p.redeemed_at);
            let answered = || people.iter().map(|p| p.answered_at);
            add(
                "live server (exact times)".into(),
                attack(&exact(redeemed()), &exact(answered()), &mut rng),
            );
            add(
                "owner, ungated views polled each minute".into(),
                attack(&polled(redeemed()), &polled(answered()), &mut rng),
            );
            for k in [5, 10, 20] {
                let (responses, redemptions, releases) = released_windows(&people, k);
                release_counts.push((k, releases));
                add(
                    format!("owner, gated views, min_cell {k}"),
                    attack(&redemptions, &responses, &mut rng),
                );
                // The worst case: an owner who also knows when each person redeemed (say,
                // they watched them open the mail) and sees the responses through the gate.
                add(
                    format!("owner, gated, knowing redemption times, min_cell {k}"),
                    attack(&exact(redeemed()), &responses, &mut rng),
                );
            }
        }
        lines.push(format!("{respondents} respondents:"));
        for (name, [linked, certain, guess]) in &rows {
            lines.push(format!(
                "  {name:<52} linked {:>5.1} % (for certain {:>5.1} %)   uniform guess {:>5.1} %",
                100.0 * linked,
                100.0 * certain,
                100.0 * guess
            ));
        }
        for k in [5, 10, 20] {
            let mean = release_counts
                .iter()
                .filter(|(step, _)| *step == k)
                .map(|(_, n)| *n as f64)
                .sum::<f64>()
                / RUNS as f64;
            lines.push(format!(
                "  releases over the day with min_cell {k}: {mean:.0} on average"
            ));
        }
        let figure = |prefix: &str, at: usize| {
            rows.iter()
                .find(|row| row.0.starts_with(prefix))
                .map(|row| row.1[at])
                .unwrap()
        };
        let ungated = figure("owner, ungated", 0);
        let gated = figure("owner, gated views, min_cell 10", 0);
        lines.push(format!(
            "  gated (min_cell 10) against ungated: {:.1} % against {:.1} % linked",
            100.0 * gated,
            100.0 * ungated
        ));
        // Nothing is certain through the gate, and it links fewer than the ungated views.
        assert_eq!(figure("owner, gated views, min_cell 10", 1), 0.0);
        assert!(gated < ungated, "gated {gated}, ungated {ungated}");
    }
    let report = lines.join("\n");
    eprintln!("{report}");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join("timing-report.txt"), format!("{report}\n"));
}
