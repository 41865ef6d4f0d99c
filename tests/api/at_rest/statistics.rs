//! The statistics: Spearman's ρ and its chance bound, the correlation inside pages with its
//! exact chance level, and which cells lie out of key order in their page.

use std::cmp::Reverse;
use std::collections::HashMap;

use super::files::{Arrival, IdForm};

/// A chance bound for |Spearman ρ| between a recovered order and the true one over n
/// responses. Without any correlation ρ is approximately normal with mean 0 and standard
/// deviation 1/√(n−1), so 5/√(n−1) is five standard deviations: chance exceeds it with
/// probability 6·10⁻⁷ per figure (about 2·10⁻⁵ over the 30-odd asserted figures of a
/// run). The figures per page have their own exact standard deviation (see
/// [`within_page_correlation`]) and the same five-fold bound.
pub(super) fn chance_bound(n: usize) -> f64 {
    5.0 / ((n - 1) as f64).sqrt()
}

/// Spearman's ρ: Pearson's correlation of the ranks, ties given their average rank.
/// `None` below three pairs or when either side is constant.
pub(super) fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let xs = average_ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let ys = average_ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let n = xs.len() as f64;
    let (mean_x, mean_y) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let mut covariance = 0.0;
    let mut variance_x = 0.0;
    let mut variance_y = 0.0;
    for (x, y) in xs.iter().zip(&ys) {
        covariance += (x - mean_x) * (y - mean_y);
        variance_x += (x - mean_x).powi(2);
        variance_y += (y - mean_y).powi(2);
    }
    (variance_x > 0.0 && variance_y > 0.0).then(|| covariance / (variance_x * variance_y).sqrt())
}

/// Per response found in a page: 1 when its cell lies off the longest run of cells in key
/// order (cells taken from the end of the page, where a page built in one go starts),
/// else 0. `cells`: per arrival position, (where its page starts, its cell's offset).
pub(super) fn cells_out_of_key_order(
    cells: &HashMap<usize, (usize, usize)>,
    arrivals: &[Arrival],
    keyed_by: IdForm,
) -> HashMap<usize, usize> {
    let mut pages: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (&position, &(page, offset)) in cells {
        pages.entry(page).or_default().push((offset, position));
    }
    let mut out_of_order = HashMap::new();
    for mut page in pages.into_values() {
        page.sort_by_key(|&(offset, _)| Reverse(offset));
        let keys: Vec<Vec<u8>> = page
            .iter()
            .map(|&(_, position)| arrivals[position].form(keyed_by))
            .collect();
        let in_order = longest_increasing_run(&keys);
        for ((_, position), in_order) in page.into_iter().zip(in_order) {
            out_of_order.insert(position, usize::from(!in_order));
        }
    }
    out_of_order
}

/// Which elements lie on one longest strictly increasing subsequence (patience sorting).
fn longest_increasing_run(keys: &[Vec<u8>]) -> Vec<bool> {
    // tails[l]: the element ending the increasing subsequence of length l + 1 with the
    // smallest last key seen so far.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; keys.len()];
    for (index, key) in keys.iter().enumerate() {
        let length = tails.partition_point(|&tail| keys[tail] < *key);
        previous[index] = length.checked_sub(1).map(|shorter| tails[shorter]);
        if length == tails.len() {
            tails.push(index);
        } else {
            tails[length] = index;
        }
    }
    let mut on_run = vec![false; keys.len()];
    let mut next = tails.last().copied();
    while let Some(index) = next {
        on_run[index] = true;
        next = previous[index];
    }
    on_run
}

/// Correlation of arrival and a score inside each page, pooled over pages, with its
/// exact chance level. Per page of m cells, with a and b the (average) ranks of arrival
/// and score: S = Σ (a − ā)(b − b̄). Under no correlation each page's arrivals are a
/// random permutation over its cells, so S has mean 0 and variance
/// Σ(a − ā)² · Σ(b − b̄)² / (m − 1). Pooled: ρ = ΣS / Σ√(Σ(a − ā)² · Σ(b − b̄)²), a
/// weighted mean of per-page Spearman ρ, whose standard deviation by chance follows from
/// the summed variances. Input: (page, arrival position, score); pages where either side
/// is constant say nothing and are left out. Returns (cells compared, ρ, its standard
/// deviation by chance).
pub(super) fn within_page_correlation(
    cells: &[(usize, usize, f64)],
) -> (usize, Option<f64>, Option<f64>) {
    let mut pages: HashMap<usize, Vec<(f64, f64)>> = HashMap::new();
    for &(page, position, score) in cells {
        pages
            .entry(page)
            .or_default()
            .push((position as f64, score));
    }
    let (mut n, mut sum, mut scale, mut variance) = (0, 0.0, 0.0, 0.0);
    for pairs in pages.values() {
        let m = pairs.len() as f64;
        let arrivals = average_ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
        let scores = average_ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
        let centre = (m + 1.0) / 2.0; // The mean of average ranks, ties or not.
        let spread_a: f64 = arrivals.iter().map(|a| (a - centre).powi(2)).sum();
        let spread_b: f64 = scores.iter().map(|b| (b - centre).powi(2)).sum();
        if spread_a == 0.0 || spread_b == 0.0 {
            continue;
        }
        sum += arrivals
            .iter()
            .zip(&scores)
            .map(|(a, b)| (a - centre) * (b - centre))
            .sum::<f64>();
        scale += (spread_a * spread_b).sqrt();
        variance += spread_a * spread_b / (m - 1.0);
        n += pairs.len();
    }
    if scale == 0.0 {
        return (n, None, None);
    }
    (n, Some(sum / scale), Some(variance.sqrt() / scale))
}

fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end) as f64 / 2.0 + 1.0;
        for &index in &order[start..=end] {
            ranks[index] = rank;
        }
        start = end + 1;
    }
    ranks
}
