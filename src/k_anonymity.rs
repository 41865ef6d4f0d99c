//! k-anonymity of grouping answers (Sweeney 2002; Samarati 2001): no published figure —
//! a breakdown's group, an export's combination of grouping answers — rests on fewer than
//! k responses, k being the survey's `min_cell`.
//!
//! Hiding a small group alone does not hide it: the total minus the groups shown is the
//! hidden group. So suppression here is *complementary*: the groups below k (those with any
//! response at all) are folded into one "other" category together, and while that fold is
//! still below k the smallest groups shown are added to it, until it holds at least k or
//! everything is folded. Then every published figure — each group shown, "other", the
//! total — rests on at least k responses (or the fold is everything and nothing is broken
//! down), and no difference of them isolates fewer than k: total − shown − other = 0.
//!
//! A group without any response needs no protection (it describes nobody); it is not shown
//! either, and adds nothing to the fold.

/// How one breakdown publishes its groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// Per group: shown with its own figures.
    pub shown: Vec<bool>,
    /// The groups folded into "other" (empty: no "other"). Its total is at least k, unless
    /// `everything_folded`.
    pub folded: Vec<usize>,
    /// Fewer than k responses in all: nothing is broken down at all.
    pub everything_folded: bool,
}

impl Suppression {
    /// Whether "other" is published (a fold of at least k, and not everything).
    pub fn has_other(&self) -> bool {
        !self.folded.is_empty() && !self.everything_folded
    }
}

/// The suppression of groups with these response counts at minimum size `k` (≥ 1).
pub fn suppress(counts: &[u64], k: u64) -> Suppression {
    let k = k.max(1);
    let mut shown: Vec<bool> = counts.iter().map(|&n| n >= k).collect();
    let mut folded: Vec<usize> = (0..counts.len())
        .filter(|&group| counts[group] > 0 && counts[group] < k)
        .collect();
    let mut folded_total: u64 = folded.iter().map(|&group| counts[group]).sum();
    if !folded.is_empty() {
        // Complementary suppression: the smallest shown groups join until the fold is ≥ k.
        let mut candidates: Vec<usize> = (0..counts.len()).filter(|&g| shown[g]).collect();
        candidates.sort_by_key(|&group| (counts[group], group));
        for group in candidates {
            if folded_total >= k {
                break;
            }
            shown[group] = false;
            folded.push(group);
            folded_total += counts[group];
        }
        folded.sort_unstable();
    }
    let everything_folded = !folded.is_empty() && shown.iter().all(|&s| !s);
    Suppression {
        shown,
        folded,
        everything_folded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every published figure rests on ≥ k, and the total minus the shown groups is
    /// "other" (or nothing): no subtraction isolates a group below k.
    fn check(counts: &[u64], k: u64) -> Suppression {
        let suppression = suppress(counts, k);
        let total: u64 = counts.iter().sum();
        for (group, &n) in counts.iter().enumerate() {
            if suppression.shown[group] {
                assert!(n >= k, "{counts:?}: group {group} shown with {n}");
            }
        }
        let shown_total: u64 = (0..counts.len())
            .filter(|&g| suppression.shown[g])
            .map(|g| counts[g])
            .sum();
        let rest = total - shown_total;
        if suppression.has_other() {
            let other: u64 = suppression.folded.iter().map(|&g| counts[g]).sum();
            assert!(other >= k, "{counts:?}: other holds {other}");
            assert_eq!(
                rest, other,
                "{counts:?}: the total minus the shown groups is other"
            );
        } else if suppression.everything_folded {
            assert_eq!(shown_total, 0, "{counts:?}: nothing is broken down");
        } else {
            assert_eq!(rest, 0, "{counts:?}: nothing hidden but empty groups");
        }
        suppression
    }

    #[test]
    fn a_group_of_k_minus_one_is_folded_with_the_smallest_other_group_so_subtraction_finds_nothing()
    {
        let suppression = check(&[9, 40, 25], 10);
        assert_eq!(suppression.shown, [false, true, false]);
        assert_eq!(suppression.folded, [0, 2]);
    }

    #[test]
    fn small_groups_that_together_reach_k_are_one_other_and_big_groups_stay() {
        let suppression = check(&[4, 7, 30, 50], 10);
        assert_eq!(suppression.shown, [false, false, true, true]);
        assert_eq!(suppression.folded, [0, 1]);
    }

    #[test]
    fn empty_groups_are_hidden_but_protect_nobody_and_fold_nothing() {
        let suppression = check(&[0, 30, 50], 10);
        assert_eq!(suppression.shown, [false, true, true]);
        assert!(suppression.folded.is_empty());
    }

    #[test]
    fn fewer_than_k_responses_in_all_break_nothing_down() {
        let suppression = check(&[3, 4], 10);
        assert!(suppression.everything_folded);
        assert!(!suppression.has_other());
        assert_eq!(suppression.shown, [false, false]);
    }

    #[test]
    fn every_small_grid_of_counts_survives_subtraction() {
        for k in 1..=5 {
            for a in 0..8 {
                for b in 0..8 {
                    for c in 0..8 {
                        check(&[a, b, c], k);
                    }
                }
            }
        }
    }
}
