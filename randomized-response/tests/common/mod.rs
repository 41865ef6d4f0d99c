//! The machinery of the exact coverage computations, shared by the coverage tests: the law
//! of a count as a random walk (propagated, trimmed and killed), monotone searches over
//! positions, and a two-core map.
//!
//! Each test binary uses part of it.
#![allow(dead_code)]

use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

/// `./scripts/test --long` (CI) sets `DENIABLE_TEST_MODE=long`: the simulations at their
/// full sizes. The default mode runs them smaller, on the same grids, with tolerances
/// derived from the size run (docs/contributing.md, "Two modes").
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

/// Edge entries of a law below this are dropped (and counted as not covering).
pub const NEGLIGIBLE: f64 = 1e-30;

/// Report counts with n reports at walk position `position`: for a two-valued estimator
/// (`binary = Some((high, low))`) the position counts the higher-valued report; otherwise
/// it is the sum of the reported levels `0..=largest_step`, realized by as many top-level
/// reports as fit, one report of the remainder, and level 0 for the rest.
pub fn counts_at(
    binary: Option<(usize, usize)>,
    largest_step: u64,
    n: u64,
    position: u64,
    counts: &mut [u64; 20],
) {
    counts.fill(0);
    match binary {
        Some((high, low)) => {
            counts[high] = position;
            counts[low] = n - position;
        }
        None => {
            let top = largest_step;
            let (full, rest) = (position / top, position % top);
            counts[top as usize] = full;
            let mut used = full;
            if rest > 0 {
                counts[rest as usize] += 1;
                used += 1;
            }
            counts[0] += n - used;
        }
    }
}

/// The first position in 0..=top where `holds` is false (top + 1 if none), for a predicate
/// that is true up to some position and false after it.
pub fn first_false_by_bisection(top: u64, holds: impl Fn(u64) -> bool) -> u64 {
    let (mut low, mut high) = (0, top + 1);
    while low < high {
        let middle = low + (high - low) / 2;
        if holds(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// The same, walking from `hint` (the answer at the previous n moves only a little).
pub fn first_false(top: u64, hint: u64, holds: impl Fn(u64) -> bool) -> u64 {
    let mut position = hint.min(top + 1);
    if position <= top && holds(position) {
        while position <= top && holds(position) {
            position += 1;
        }
    } else {
        while position > 0 && !holds(position - 1) {
            position -= 1;
        }
    }
    position
}

/// The law of the walk's position: `values[i]` is the probability of `start + i`.
pub struct Law {
    pub start: u64,
    pub values: Vec<f64>,
}

impl Law {
    pub fn at_zero() -> Self {
        Self {
            start: 0,
            values: vec![1.0],
        }
    }

    /// One more report.
    pub fn step(&mut self, steps: &[f64]) {
        let length = self.values.len();
        let mut next = vec![0.0; length + steps.len() - 1];
        // One shifted, scaled copy of the law per step size (vectorizes).
        for (j, &probability) in steps.iter().enumerate() {
            for (out, &mass) in next[j..j + length].iter_mut().zip(&self.values) {
                *out += mass * probability;
            }
        }
        self.values = next;
    }

    /// Drops negligible entries at both edges; returns the mass dropped.
    pub fn trim(&mut self) -> f64 {
        let mut dropped = 0.0;
        let keep_from = self
            .values
            .iter()
            .position(|&m| m >= NEGLIGIBLE)
            .unwrap_or(self.values.len());
        dropped += self.values[..keep_from].iter().sum::<f64>();
        self.values.drain(..keep_from);
        self.start += keep_from as u64;
        let keep_to = self
            .values
            .iter()
            .rposition(|&m| m >= NEGLIGIBLE)
            .map_or(0, |i| i + 1);
        dropped += self.values[keep_to..].iter().sum::<f64>();
        self.values.truncate(keep_to);
        dropped
    }

    /// The mass at positions in `[first, past)`.
    pub fn mass_in(&self, (first, past): (u64, u64)) -> f64 {
        let end = self.start + self.values.len() as u64;
        let (from, to) = (first.max(self.start), past.min(end));
        if from >= to {
            return 0.0;
        }
        self.values[(from - self.start) as usize..(to - self.start) as usize]
            .iter()
            .sum()
    }

    /// Removes the mass outside `[first, past)` (the walks that left the covering range).
    pub fn keep_only(&mut self, (first, past): (u64, u64)) {
        let end = self.start + self.values.len() as u64;
        let (from, to) = (first.max(self.start), past.min(end));
        if from >= to {
            self.values.clear();
            self.start = first;
            return;
        }
        self.values.truncate((to - self.start) as usize);
        self.values.drain(..(from - self.start) as usize);
        self.start = from;
    }
}

/// Runs `work` over `items` on both cores, keeping their order.
pub fn in_parallel<I: Sync, T: Send>(items: &[I], work: impl Fn(&I) -> T + Sync) -> Vec<T> {
    // Interleaved, so that both cores get a share of the expensive cells.
    let work = &work;
    std::thread::scope(|scope| {
        let other = scope.spawn(move || {
            items
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == 1)
                .map(|(_, item)| work(item))
                .collect::<Vec<_>>()
        });
        let mine: Vec<T> = items
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, item)| work(item))
            .collect();
        let theirs = other.join().unwrap();
        let mut results = Vec::with_capacity(items.len());
        let (mut mine, mut theirs) = (mine.into_iter(), theirs.into_iter());
        for i in 0..items.len() {
            results.push(
                if i % 2 == 0 {
                    mine.next()
                } else {
                    theirs.next()
                }
                .unwrap(),
            );
        }
        results
    })
}

/// A truth drawn from a distribution over answers by one 64-bit draw (to within 2^-53).
pub fn draw_answer(distribution: &[f64], rng: &mut ChaCha20Rng) -> usize {
    let uniform = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let mut cumulative = 0.0;
    for (answer, &probability) in distribution.iter().enumerate() {
        cumulative += probability;
        if uniform < cumulative {
            return answer;
        }
    }
    distribution.iter().rposition(|&p| p > 0.0).unwrap()
}
