//! Designs: every randomized-response mechanism as one row-stochastic matrix.
//!
//! A design over k answers is a matrix P with `P[t][r]` the probability that the true
//! answer t is reported as r. Each row is held as cumulative **integer thresholds** over
//! 2^64: a uniform 64-bit draw u reports the first report (in the row's order) whose
//! threshold exceeds u. So the sampler is exact — the realized probabilities are the integer
//! cells divided by 2^64, and everything else (ε, estimates, posteriors) is computed from
//! those cells, not from the floating-point parameters.
//!
//! **Row order.** Row t lays its reports out on [0, 2^64) starting with report t itself
//! and continuing cyclically: t, t + 1, …, k − 1, 0, …, t − 1. A draw below the first
//! threshold therefore reports the truth, which makes the mirrored design draw-for-draw
//! identical to [`crate::respond`] (truth iff u < T), and k-ary randomized response with two
//! options identical to the mirrored design.
//!
//! **Privacy.** `ε = max_r ln( max_t P[t][r] / min_t P[t][r] )`: for every report r and any
//! two true answers, the report's likelihood ratio is at most e^ε, which is ε-local
//! differential privacy (Warner 1965; Erlingsson, Pihur & Korolova 2014; for k-ary
//! randomized response Wang, Blocki, Li & Jha 2017). [`Design::realized_epsilon`] computes it
//! from the integer cells and rounds it up; every constructor rounds the cells toward
//! privacy so that it never exceeds the promised [`Design::epsilon`]. A design with a zero
//! cell (a report that some true answer can never produce) has ε = ∞ and is refused.
//!
//! **Rounding toward privacy.** The off-diagonal cells (a report that differs from the
//! truth) are rounded *up*, to `c + ⌈c / 2^45⌉` with `c = ⌊x · 2^64⌋ + 1`: above the exact
//! `x · 2^64 · (1 + 2^-45)`. The diagonal cell takes the rest of its row. Every column's
//! ratio (diagonal over off-diagonal) then falls by a factor of at least `1 + 2^-45`, its
//! logarithm by at least 2.8e-14: more than the floating-point error of the promised and
//! the realized ε together (under 1.7e-14 for ε ≤ 20: a few ulps of ε and of the
//! parameters), so `realized ≤ promised` holds both exactly and as computed. No realized
//! probability differs from the requested one by more than 2^-44 (5.7e-14). The mirrored
//! design keeps [`PrivacyLevel::threshold`] exactly.

use rand_core::RngCore;

use crate::level::TWO_POW_64;
use crate::{DesignError, PrivacyLevel};

mod estimate;

/// The fewest options of a choice or ordinal question.
pub const MIN_OPTIONS: usize = 2;
/// The most options of a choice or ordinal question, and the most answers of any design.
pub const MAX_OPTIONS: usize = 20;

/// Off-diagonal cells are rounded up by at least 2^-MARGIN_SHIFT of themselves.
const MARGIN_SHIFT: u32 = 45;
/// 2^64 as an integer wide enough to hold it.
const ONE: u128 = 1 << 64;
/// How far a prior's probabilities may add up away from 1 (decimal inputs).
const SUM_TOLERANCE: f64 = 1e-9;
/// `10^10`: R's `rr` rounds `p + p0 + p1` to 10 decimal places before comparing it with 1.
/// (A literal and a comparison: `libm::pow` would add 3 KiB to the WebAssembly module.)
const R_SUM_SCALE: f64 = 1e10;

/// Which mechanism a [`Design`] is, with its parameters as requested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DesignKind {
    /// Warner's symmetric design at level ε: the truth with `p = e^ε / (1 + e^ε)`.
    Mirrored {
        /// ε.
        epsilon: f64,
    },
    /// Forced response (Boruch 1971; Fox & Tracy 1986): with probability
    /// `answer_truthfully` (R `rr`'s p) the truth, else "yes" with `forced_yes` (p1), else
    /// "no" with `forced_no` (p0).
    ForcedResponse {
        /// p: the probability of answering the question truthfully.
        answer_truthfully: f64,
        /// p1: the probability of a forced "yes".
        forced_yes: f64,
        /// p0: the probability of a forced "no".
        forced_no: f64,
    },
    /// The unrelated-question design with a known innocuous "yes" rate (Greenberg,
    /// Abul-Ela, Simmons & Horvitz 1969), the innocuous answer simulated by the device.
    UnrelatedQuestion {
        /// p: the probability of answering the sensitive question.
        answer_truthfully: f64,
        /// q: the "yes" rate of the (simulated) innocuous question.
        innocuous_yes: f64,
    },
    /// k-ary (generalized) randomized response (Wang, Blocki, Li & Jha 2017, "GRR"; also
    /// "direct encoding" or k-RR): the true option with `e^ε / (e^ε + k − 1)`, each other
    /// option with `1 / (e^ε + k − 1)`.
    KAry {
        /// k, the number of options.
        options: usize,
        /// ε.
        epsilon: f64,
    },
}

/// A randomized-response design: a square row-stochastic matrix held as exact integer
/// sampling thresholds. See the [module documentation](self) for the conventions.
///
/// Yes/no designs have answers and reports `0` = No and `1` = Yes ([`Design::NO`],
/// [`Design::YES`]); choice and ordinal designs use the option index `0..k`.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    kind: DesignKind,
    size: usize,
    epsilon: f64,
    /// `thresholds[t][j]` for `j < size − 1`: the cumulative cell count, in units of
    /// 2^-64, of the first `j + 1` reports of row t's order. The last threshold, 2^64, is
    /// implicit; every stored one is below it because every cell is at least 1.
    thresholds: [[u64; MAX_OPTIONS - 1]; MAX_OPTIONS],
}

/// One number per answer of a design (at most [`MAX_OPTIONS`]): the probabilities of a
/// posterior, or the estimated shares of the true answers (which may fall outside [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shares {
    values: [f64; MAX_OPTIONS],
    len: usize,
}

impl Shares {
    /// The numbers, one per answer.
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len]
    }
}

/// `c + ⌈c / 2^45⌉` with `c = ⌊x · 2^64⌋ + 1`, for `x ∈ [0, 1)`: since `c > x · 2^64`, the
/// result exceeds `x · 2^64 · (1 + 2^-45)` (`None` if it no longer fits below 2^64).
fn cell_above(probability: f64) -> Option<u64> {
    // x · 2^64 is exact (a power-of-two scaling) and below 2^64, so the cast is its floor.
    let above = ((probability * TWO_POW_64) as u64).checked_add(1)?;
    let margin = above.div_ceil(1 << MARGIN_SHIFT);
    above.checked_add(margin)
}

/// The next larger f64, for positive finite values.
fn next_up(value: f64) -> f64 {
    f64::from_bits(value.to_bits() + 1)
}

/// An upper bound on `ln(max / min)` for integers `max ≥ min ≥ 1`.
///
/// Converting each integer to f64 and dividing round by at most 2^-53 each, so the
/// computed ratio is within a factor `1 ± 1.7e-16` of the exact one and its logarithm within
/// 1.7e-16; libm's `log` is within 1 ulp. Adding 2e-16 and stepping up two ulps covers both.
pub(crate) fn ln_ratio_upper(max: u64, min: u64) -> f64 {
    if max == min {
        return 0.0;
    }
    next_up(next_up(libm::log(max as f64 / min as f64) + 2e-16))
}

/// Whether `sum` rounded to 10 decimal places is exactly 1, as R's `round(sum, 10) == 1`
/// decides (R's `rr` refuses a forced-response design otherwise).
///
/// `sum · 10^10` is within an ulp of the exact product, so the rounding can differ from R's
/// only for a sum within about 1e-16 of a half-way point `1 ± 5·10^-11`, never for a
/// decimal input.
fn rounds_to_one(sum: f64) -> bool {
    // round(x) = 10^10, rounding half away from zero as R does for these values, exactly
    // when x − 10^10 lies in [−½, ½) (the subtraction is exact so close to 10^10).
    (-0.5..0.5).contains(&(sum * R_SUM_SCALE - R_SUM_SCALE))
}

fn check_probability(parameter: &'static str, value: f64) -> Result<f64, DesignError> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(DesignError::NotAProbability { parameter, value })
    }
}

/// A design's ε from its requested 2×2 cells: `max(ln((1 − B)/C), ln((1 − C)/B))` with
/// `C = P[no][yes]` and `B = P[yes][no]`, refused outside the accepted range.
fn two_by_two_epsilon(no_reported_yes: f64, yes_reported_no: f64) -> Result<f64, DesignError> {
    let epsilon = f64::max(
        libm::log((1.0 - yes_reported_no) / no_reported_yes),
        libm::log((1.0 - no_reported_yes) / yes_reported_no),
    );
    if (PrivacyLevel::MIN_EPSILON..=PrivacyLevel::MAX_EPSILON).contains(&epsilon) {
        Ok(epsilon)
    } else {
        Err(DesignError::DesignEpsilonOutOfRange { epsilon })
    }
}

impl Design {
    /// The answer (and report) index of "No" in a yes/no design.
    pub const NO: usize = 0;
    /// The answer (and report) index of "Yes" in a yes/no design.
    pub const YES: usize = 1;
    /// Uniform 64-bit draws one report takes: always one.
    pub const DRAWS: usize = 1;

    /// A 2×2 design from its two off-diagonal cells, `C = P[no][yes]` and
    /// `B = P[yes][no]` in units of 2^-64; the diagonal cells take the rest of their rows.
    fn two_by_two(
        kind: DesignKind,
        epsilon: f64,
        no_reported_yes: u64,
        yes_reported_no: u64,
    ) -> Result<Self, DesignError> {
        // Each report must stay more likely under its own truth: P[yes][yes] > P[no][yes]
        // and P[no][no] > P[yes][no], both equivalent to B + C < 2^64.
        if no_reported_yes.checked_add(yes_reported_no).is_none()
            || no_reported_yes == 0
            || yes_reported_no == 0
        {
            return Err(DesignError::BelowResolution);
        }
        // Row No reports No first, row Yes reports Yes first: 2^64 − C and 2^64 − B.
        Ok(Self::two_rows(
            kind,
            epsilon,
            no_reported_yes.wrapping_neg(),
            yes_reported_no.wrapping_neg(),
        ))
    }

    /// The 2×2 design whose row No reports No below `no_reports_no` and row Yes reports Yes
    /// below `yes_reports_yes` (each row's one stored threshold); the callers check the cells.
    fn two_rows(kind: DesignKind, epsilon: f64, no_reports_no: u64, yes_reports_yes: u64) -> Self {
        let mut design = Self::blank(kind, 2, epsilon);
        design.thresholds[Self::NO][0] = no_reports_no;
        design.thresholds[Self::YES][0] = yes_reports_yes;
        design
    }

    /// A design whose thresholds are still all zero, for a constructor to fill in.
    ///
    /// Never inlined: every constructor shares this one zeroing of the 3 KB threshold
    /// table, which keeps the WebAssembly module small (inlined, the compiler splits it
    /// around the constructor's stores into a piece per row).
    #[inline(never)]
    fn blank(kind: DesignKind, size: usize, epsilon: f64) -> Self {
        Self {
            kind,
            size,
            epsilon,
            thresholds: [[0; MAX_OPTIONS - 1]; MAX_OPTIONS],
        }
    }

    /// The mirrored (Warner) yes/no design at level ε: the device reports the truth with
    /// `p = e^ε / (1 + e^ε)` and its opposite with `q = 1 − p` (Warner 1965).
    ///
    /// Its thresholds are [`PrivacyLevel::threshold`] in both rows, so for every draw it
    /// reports exactly what [`crate::respond`] reports.
    #[inline(never)] // one copy in the WebAssembly module for its three callers there
    pub fn mirrored(level: PrivacyLevel) -> Self {
        // Both rows report the truth first, below T; 2^64 − T ∈ [1, 2^63) keeps every cell
        // positive and each report more likely under its own truth.
        let kind = DesignKind::Mirrored {
            epsilon: level.epsilon(),
        };
        let threshold = level.threshold();
        Self::two_rows(kind, level.epsilon(), threshold, threshold)
    }

    /// The forced-response yes/no design (Boruch 1971; Fox & Tracy 1986, *Randomized
    /// Response*, Sage): the device reports the truth with probability `answer_truthfully`
    /// (p), otherwise "yes" with probability `forced_yes` (p1) or "no" with `forced_no` (p0).
    ///
    /// `P[yes][yes] = p + p1`, `P[yes][no] = p0`, `P[no][yes] = p1`, `P[no][no] = p + p0`,
    /// so `P(report yes) = p1 + p·π` (R `rr`: `design = "forced-known"`, `c = p`, `d = p1`;
    /// Blair, Imai & Zhou 2015) and
    /// `ε = max( ln((p + p1)/p1), ln((p + p0)/p0) )`.
    ///
    /// The three must add up to 1 when their sum is rounded to 10 decimal places, the check
    /// R's `rr` makes (`round(p + p0 + p1, 10) == 1`), so that the codebook's R call accepts
    /// every design this accepts; the matrix uses p1 and p0 as given and
    /// `1 − p0`, `1 − p1` on its diagonal. Refused: p1 = 0 or p0 = 0 (a report would prove
    /// the answer: ε = ∞), p = 1 (no randomization), p = 0 (reports independent of the
    /// truth), and an ε outside [0.01, 20].
    pub fn forced_response(
        answer_truthfully: f64,
        forced_yes: f64,
        forced_no: f64,
    ) -> Result<Self, DesignError> {
        let truthfully = check_probability("answer_truthfully", answer_truthfully)?;
        let yes = check_probability("forced_yes", forced_yes)?;
        let no = check_probability("forced_no", forced_no)?;
        let sum = truthfully + yes + no;
        if !rounds_to_one(sum) {
            return Err(DesignError::ForcedResponseSum { sum });
        }
        if truthfully == 0.0 {
            return Err(DesignError::ReportsIgnoreTruth);
        }
        if yes == 0.0 && no == 0.0 {
            return Err(DesignError::NoRandomization);
        }
        if no == 0.0 {
            return Err(DesignError::ReportProvesAnswer {
                answer: "No",
                parameter: "forced_no",
                value: no,
            });
        }
        if yes == 0.0 {
            return Err(DesignError::ReportProvesAnswer {
                answer: "Yes",
                parameter: "forced_yes",
                value: yes,
            });
        }
        let kind = DesignKind::ForcedResponse {
            answer_truthfully,
            forced_yes,
            forced_no,
        };
        Self::from_requested_cells(kind, yes, no)
    }

    /// The unrelated-question yes/no design with a known innocuous rate (Greenberg,
    /// Abul-Ela, Simmons & Horvitz 1969, JASA 64(326)): with probability
    /// `answer_truthfully` (p) the device reports the truth, otherwise the answer to a
    /// simulated innocuous question whose "yes" rate is `innocuous_yes` (q).
    ///
    /// `P[yes][yes] = p + (1 − p)q`, `P[no][yes] = (1 − p)q`, so
    /// `P(report yes) = (1 − p)q + p·π` (R `rr`: `design = "unrelated-known"`, `c = p`,
    /// `d = (1 − p)q`) and `ε = max( ln((p + (1−p)q)/((1−p)q)), ln((p + (1−p)(1−q))/((1−p)(1−q))) )`.
    ///
    /// Refused: q = 0 (a report of Yes would prove Yes), q = 1 (a report of No would prove
    /// No), p = 1 (no randomization), p = 0 (reports independent of the truth), and an ε
    /// outside [0.01, 20].
    pub fn unrelated_question(
        answer_truthfully: f64,
        innocuous_yes: f64,
    ) -> Result<Self, DesignError> {
        let truthfully = check_probability("answer_truthfully", answer_truthfully)?;
        let innocuous = check_probability("innocuous_yes", innocuous_yes)?;
        if truthfully == 0.0 {
            return Err(DesignError::ReportsIgnoreTruth);
        }
        if truthfully == 1.0 {
            return Err(DesignError::NoRandomization);
        }
        for (value, answer) in [(0.0, "Yes"), (1.0, "No")] {
            if innocuous == value {
                return Err(DesignError::ReportProvesAnswer {
                    answer,
                    parameter: "innocuous_yes",
                    value,
                });
            }
        }
        let kind = DesignKind::UnrelatedQuestion {
            answer_truthfully,
            innocuous_yes,
        };
        let no_reported_yes = (1.0 - truthfully) * innocuous;
        let yes_reported_no = (1.0 - truthfully) * (1.0 - innocuous);
        Self::from_requested_cells(kind, no_reported_yes, yes_reported_no)
    }

    /// A 2×2 design from its requested off-diagonal probabilities `P[no][yes]` and
    /// `P[yes][no]`: its ε from them ([`two_by_two_epsilon`]), its cells rounded up toward
    /// privacy ([`cell_above`]).
    fn from_requested_cells(
        kind: DesignKind,
        no_reported_yes: f64,
        yes_reported_no: f64,
    ) -> Result<Self, DesignError> {
        let epsilon = two_by_two_epsilon(no_reported_yes, yes_reported_no)?;
        let rounded = |x: f64| cell_above(x).ok_or(DesignError::BelowResolution);
        Self::two_by_two(
            kind,
            epsilon,
            rounded(no_reported_yes)?,
            rounded(yes_reported_no)?,
        )
    }

    /// k-ary randomized response over `options` (2 to 20) choices or ordered levels at
    /// level ε (Wang, Blocki, Li & Jha 2017, "Locally differentially private protocols for
    /// frequency estimation", USENIX Security, §4.1 "direct encoding"): the true option with
    /// `p = e^ε / (e^ε + k − 1)`, each other option with `q = 1 / (e^ε + k − 1)`; `p/q = e^ε`.
    ///
    /// With two options it is the mirrored design (same thresholds, same draws). With more,
    /// q is rounded up toward privacy and p takes the rest of the row.
    pub fn k_ary(options: usize, level: PrivacyLevel) -> Result<Self, DesignError> {
        if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options) {
            return Err(DesignError::OptionCount { options });
        }
        let kind = DesignKind::KAry {
            options,
            epsilon: level.epsilon(),
        };
        if options == 2 {
            let mut design = Self::mirrored(level);
            design.kind = kind;
            return Ok(design);
        }
        let others = (options - 1) as u64;
        let other = libm::exp(level.epsilon()) + others as f64;
        let other = cell_above(1.0 / other).ok_or(DesignError::BelowResolution)?;
        // The k − 1 other cells take (k − 1)·other and the truth the rest,
        // 2^64 − (k − 1)·other, which must stay above other: k·other < 2^64.
        if other > u64::MAX / options as u64 {
            return Err(DesignError::BelowResolution);
        }
        // 2^64 − (k − 1)·other, with 0 < (k − 1)·other < 2^64.
        let truth = (others * other).wrapping_neg();
        // Every row has the same thresholds in its own order: truth + position · other for
        // positions 0 to k − 2, each below 2^64 because the last cell is still to come.
        let mut row = [0; MAX_OPTIONS - 1];
        let mut threshold = truth;
        for slot in &mut row[..options - 1] {
            *slot = threshold;
            // After the last stored slot this reaches 2^64, never stored: wrap rather than fail.
            threshold = threshold.wrapping_add(other);
        }
        let mut design = Self::blank(kind, options, level.epsilon());
        design.thresholds[..options].fill(row);
        Ok(design)
    }

    /// The mechanism and its parameters as requested.
    pub fn kind(&self) -> DesignKind {
        self.kind
    }

    /// The number of answers, which is also the number of reports (every design is square).
    pub fn answers(&self) -> usize {
        self.size
    }

    /// The promised ε, from the requested parameters (for mirrored and k-ary designs, the
    /// requested ε itself). [`Self::realized_epsilon`] never exceeds it.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// `max_t P[t][t]` with the requested parameters: the largest probability that a report
    /// equals the truth. For forced response with 0.67/0.165/0.165 that is 0.835, not 0.67.
    pub fn truth_probability(&self) -> f64 {
        (0..self.size)
            .map(|answer| self.requested_probability(answer, answer))
            .fold(0.0, f64::max)
    }

    /// `P[truth][report]` with the requested parameters, for the codebook (the sampler uses
    /// [`Self::probability`], within 2^-44 of it). Answers or reports out of range give 0.
    pub fn requested_probability(&self, truth: usize, report: usize) -> f64 {
        if truth >= self.size || report >= self.size {
            return 0.0;
        }
        let same = truth == report;
        match self.kind {
            // As PrivacyLevel computes p and q.
            DesignKind::Mirrored { epsilon } => {
                if same {
                    1.0 / (1.0 + libm::exp(-epsilon))
                } else {
                    1.0 / (1.0 + libm::exp(epsilon))
                }
            }
            DesignKind::ForcedResponse {
                forced_yes,
                forced_no,
                ..
            } => {
                let (yes_reported_no, no_reported_yes) = (forced_no, forced_yes);
                self.two_by_two_requested(truth, report, no_reported_yes, yes_reported_no)
            }
            DesignKind::UnrelatedQuestion {
                answer_truthfully,
                innocuous_yes,
            } => {
                let no_reported_yes = (1.0 - answer_truthfully) * innocuous_yes;
                let yes_reported_no = (1.0 - answer_truthfully) * (1.0 - innocuous_yes);
                self.two_by_two_requested(truth, report, no_reported_yes, yes_reported_no)
            }
            DesignKind::KAry { options, epsilon } => {
                let other = 1.0 / (libm::exp(epsilon) + (options - 1) as f64);
                if same {
                    1.0 / (1.0 + (options - 1) as f64 * libm::exp(-epsilon))
                } else {
                    other
                }
            }
        }
    }

    fn two_by_two_requested(
        &self,
        truth: usize,
        report: usize,
        no_reported_yes: f64,
        yes_reported_no: f64,
    ) -> f64 {
        match (truth, report) {
            (Self::NO, Self::YES) => no_reported_yes,
            (Self::NO, _) => 1.0 - no_reported_yes,
            (_, Self::NO) => yes_reported_no,
            _ => 1.0 - yes_reported_no,
        }
    }

    pub(crate) fn check_answer(&self, answer: usize) -> Result<(), DesignError> {
        if answer < self.size {
            Ok(())
        } else {
            Err(DesignError::AnswerOutOfRange {
                answer,
                answers: self.size,
            })
        }
    }

    fn check_report(&self, report: usize) -> Result<(), DesignError> {
        if report < self.size {
            Ok(())
        } else {
            Err(DesignError::ReportOutOfRange {
                report,
                reports: self.size,
            })
        }
    }

    /// Row `truth`'s stored thresholds, `size − 1` of them, in the row's order (report
    /// `truth` first, then cyclically); the last threshold, 2^64, is implicit.
    pub fn thresholds(&self, truth: usize) -> Result<&[u64], DesignError> {
        self.check_answer(truth)?;
        Ok(&self.thresholds[truth][..self.size - 1])
    }

    /// The report at `position` in row `truth`'s order: `(truth + position) mod k`.
    pub fn report_at(&self, truth: usize, position: usize) -> usize {
        (truth + position) % self.size
    }

    /// The integer cell of `P[truth][report]`, in units of 2^-64: exactly the number of
    /// draws u for which the sampler reports `report` when the truth is `truth`. At least 1
    /// and below 2^64. Out-of-range indices give 0.
    pub fn cell(&self, truth: usize, report: usize) -> u64 {
        if truth >= self.size || report >= self.size {
            return 0;
        }
        let position = (report + self.size - truth) % self.size;
        let row = &self.thresholds[truth];
        let below = if position == 0 { 0 } else { row[position - 1] };
        if position == self.size - 1 {
            // 2^64 − below, with below ≥ 1.
            below.wrapping_neg()
        } else {
            row[position] - below
        }
    }

    /// The realized `P[truth][report] = cell / 2^64`: the probability the sampler really
    /// uses, within 2^-44 of [`Self::requested_probability`].
    pub fn probability(&self, truth: usize, report: usize) -> f64 {
        self.cell(truth, report) as f64 / TWO_POW_64
    }

    /// The realized ε, `max_r ln( max_t cell[t][r] / min_t cell[t][r] )` from the integer
    /// cells, rounded up: an upper bound on the privacy loss of the sampler as it runs.
    /// Never above [`Self::epsilon`].
    pub fn realized_epsilon(&self) -> f64 {
        (0..self.size)
            .map(|report| {
                let column = (0..self.size).map(|truth| self.cell(truth, report));
                let max = column.clone().max().unwrap_or(1);
                let min = column.min().unwrap_or(1);
                ln_ratio_upper(max, min)
            })
            .fold(0.0, f64::max)
    }

    /// The report for true answer `truth` given one uniform 64-bit draw: the first report in
    /// the row's order whose threshold exceeds `draw` (the last threshold being 2^64).
    #[inline(never)] // one copy in the WebAssembly module for squares and numbers alike
    pub fn report_for_draw(&self, truth: usize, draw: u64) -> Result<usize, DesignError> {
        self.check_answer(truth)?;
        let position = self.thresholds[truth][..self.size - 1]
            .iter()
            .position(|&threshold| draw < threshold)
            .unwrap_or(self.size - 1);
        Ok(self.report_at(truth, position))
    }

    /// Randomizes the true answer `truth` with exactly one 64-bit draw from `rng` (for a
    /// submission, the ChaCha20 stream of [`crate::submission_rng`], questions in order).
    /// An invalid answer is refused before anything is drawn.
    pub fn respond<R: RngCore + ?Sized>(
        &self,
        truth: usize,
        rng: &mut R,
    ) -> Result<usize, DesignError> {
        self.check_answer(truth)?;
        self.report_for_draw(truth, rng.next_u64())
    }

    /// What an observer believes about the true answer after seeing `report`, from any
    /// prior over the answers: `posterior_t = prior_t P[t][r] / Σ_s prior_s P[s][r]` (Bayes'
    /// rule, with the realized P). The odds between any two answers move by at most
    /// `e^ε`.
    ///
    /// The prior needs one probability in [0, 1] per answer, adding up to 1 within 1e-9.
    pub fn posterior(&self, prior: &[f64], report: usize) -> Result<Shares, DesignError> {
        self.check_report(report)?;
        let sum: f64 = prior.iter().sum();
        if prior.len() != self.size
            || !prior.iter().all(|p| (0.0..=1.0).contains(p))
            || libm::fabs(sum - 1.0) > SUM_TOLERANCE
        {
            return Err(DesignError::Prior);
        }
        let mut values = [0.0; MAX_OPTIONS];
        for (truth, value) in values.iter_mut().take(self.size).enumerate() {
            *value = prior[truth] * self.probability(truth, report);
        }
        // Every cell is positive and the prior sums to 1, so the evidence is positive.
        let evidence: f64 = values.iter().sum();
        for value in &mut values {
            *value /= evidence;
        }
        Ok(Shares {
            values,
            len: self.size,
        })
    }

    /// The bound the form and the builder state: what an observer believes about `answer`
    /// once `answer` is reported, from a belief `prior` in it beforehand and the rest spread
    /// evenly over the other answers,
    /// `ξ P[a][a] / (ξ P[a][a] + (1 − ξ)/(k − 1) · Σ_{t≠a} P[t][a])` ([`Self::posterior`],
    /// with the realized P). For the symmetric yes/no design and a = Yes it is
    /// `ξp / (ξp + (1 − ξ)q)` (docs/design.md, "What an observer learns").
    ///
    /// `prior` needs to be in [0, 1] and `answer` one of the design's answers.
    pub fn observer_belief(&self, prior: f64, answer: usize) -> Result<f64, DesignError> {
        self.check_answer(answer)?;
        if !(0.0..=1.0).contains(&prior) {
            return Err(DesignError::Prior);
        }
        let rest = (1.0 - prior) / (self.size - 1) as f64;
        let mut priors = [0.0; MAX_OPTIONS];
        for (truth, belief) in priors.iter_mut().take(self.size).enumerate() {
            *belief = if truth == answer { prior } else { rest };
        }
        Ok(self.posterior(&priors[..self.size], answer)?.as_slice()[answer])
    }
}
