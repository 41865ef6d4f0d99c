//! Cross-tabulation of two randomized questions: their joint distribution and conditional
//! proportions.
//!
//! Each respondent's two answers `(t1, t2)` are randomized independently (consecutive
//! draws of the submission's stream), so the pair of reports `(r1, r2)` follows the product
//! design `P = P1 ⊗ P2`, `P[(t1,t2)][(r1,r2)] = P1[t1][r1] P2[t2][r2]`, whose inverse is
//! `P1⁻¹ ⊗ P2⁻¹`. The share of the pair `(i, j)` therefore has the per-record value
//! `w(r1, r2) = (P1⁻¹)[r1][i] · (P2⁻¹)[r2][j] = u_i(r1) v_j(r2)`, unbiased because
//! `E[u_i(R1) v_j(R2) | t1, t2] = 1[t1 = i] 1[t2 = j]`.
//!
//! Each factor is an option's per-record value, two-valued (it depends only on whether the
//! report is in the option's "high" set: the option itself for k-ary designs), so w takes at
//! most four values and depends on the k1·k2 table of report pairs only through the four
//! counts of (r1 high or not) × (r2 high or not). [`JointCell`] is a [`PerRecordEstimator`]
//! over those four collapsed reports: its Chernoff and anytime intervals, one-sided bounds
//! and tests all apply, for any k1, k2 ≤ [`crate::MAX_OPTIONS`] (tables up to 400 cells),
//! with no estimator larger than four values. Its range is `W = (u_max − u_min)(v_max − v_min)`
//! at most, e.g. `p/r²` for two mirrored yes/no questions at the same ε, against `1/r` for
//! one. The products take three or four distinct values, so a cell has no exact
//! (Clopper–Pearson) interval; at a fixed N its Chernoff interval is the one to show.
//!
//! **Conditional proportions** `π(t2 = j | t1 = i) = π(i, j) / π1(i)` ([`Conditional`]): the
//! numerator's interval `[L_n, U_n]` (the cell) and the denominator's `[L_d, U_d]` (option i
//! of question 1, from its marginal counts) each at confidence `1 − β/2`; with probability at
//! least `1 − β` both hold (Bonferroni), and then, when `L_d > 0`,
//! `π(j | i) ∈ [max(L_n, 0)/U_d, min(U_n/L_d, 1)]`. When `L_d ≤ 0` the data do not exclude
//! that nobody answered i, and the conditional proportion is left undefined (`None`: any
//! value in [0, 1] is possible); when either interval is empty, so is the conditional's
//! (no value is consistent with the reports). The same construction with the anytime intervals at
//! `1 − β/2` is valid at every N at once.

use crate::per_record::Bounds;
use crate::{Confidence, Design, DesignError, PerRecordEstimator};

/// Two randomized questions asked of the same respondents, as one product design.
///
/// The table of report pairs is row-major: the count of `(r1, r2)` at `r1 · k2 + r2`.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDesign {
    first: Design,
    second: Design,
}

/// The estimator of one cell's share `π(i, j)` of the joint distribution (see the
/// [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointCell {
    estimator: PerRecordEstimator,
    first_high: u32,
    second_high: u32,
    shape: (usize, usize),
}

/// The conditional proportion `π(t2 = j | t1 = i)` (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditional {
    numerator: JointCell,
    denominator: PerRecordEstimator,
}

/// A conditional proportion's estimate and intervals; `None` where undefined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConditionalSummary {
    /// `π̂(i, j) / π̂1(i)`; `None` when `π̂1(i) ≤ 0`.
    pub estimate: Option<f64>,
    /// The estimate clamped to [0, 1].
    pub estimate_clipped: Option<f64>,
    /// From the two Chernoff intervals at `1 − β/2`; `None` when `L_d ≤ 0`, empty when
    /// either interval is.
    pub chernoff: Option<Bounds>,
    /// From the two exact intervals at `1 − β/2`, when the cell's value is two-valued
    /// (never for a product of two randomized questions; kept for symmetry).
    pub exact: Option<Bounds>,
    /// From the two anytime intervals at `1 − β/2`; valid at every N at once.
    pub anytime: Option<Bounds>,
}

/// An option's two per-record values and its high reports, from its estimator.
fn factor(design: &Design, option: usize) -> Result<(f64, f64, u32), DesignError> {
    let estimator = design.option_estimator(option)?;
    let (low, high) = estimator.value_range();
    let set = estimator
        .high_report_set()
        .unwrap_or_else(|| unreachable!("an option's per-record value is two-valued"));
    Ok((low, high, set))
}

impl JointDesign {
    /// The product of two questions' designs, `first` giving the rows of the table.
    pub fn new(first: &Design, second: &Design) -> Self {
        Self {
            first: first.clone(),
            second: second.clone(),
        }
    }

    /// `(k1, k2)`: the answers of each question.
    pub fn shape(&self) -> (usize, usize) {
        (self.first.answers(), self.second.answers())
    }

    /// `k1 · k2`: the length of a table of report pairs.
    pub fn table_len(&self) -> usize {
        self.first.answers() * self.second.answers()
    }

    /// `P[(t1, t2)][(r1, r2)] = P1[t1][r1] · P2[t2][r2]` with the realized matrices.
    pub fn probability(&self, truth: (usize, usize), report: (usize, usize)) -> f64 {
        self.first.probability(truth.0, report.0) * self.second.probability(truth.1, report.1)
    }

    /// The estimator of the share of respondents whose true answers are `(first, second)`.
    pub fn cell(&self, first: usize, second: usize) -> Result<JointCell, DesignError> {
        let (u_low, u_high, first_high) = factor(&self.first, first)?;
        let (v_low, v_high, second_high) = factor(&self.second, second)?;
        // Collapsed report 2·[r1 high] + [r2 high].
        let values = [
            u_low * v_low,
            u_low * v_high,
            u_high * v_low,
            u_high * v_high,
        ];
        Ok(JointCell {
            estimator: PerRecordEstimator::new(&values, 0.0, 1.0),
            first_high,
            second_high,
            shape: self.shape(),
        })
    }

    /// The conditional proportion `π(t2 = second | t1 = given_first)`. For the other
    /// direction, build the joint design with the questions swapped (and the table
    /// transposed).
    pub fn conditional(
        &self,
        given_first: usize,
        second: usize,
    ) -> Result<Conditional, DesignError> {
        let numerator = self.cell(given_first, second)?;
        let (low, high, _) = factor(&self.first, given_first)?;
        Ok(Conditional {
            numerator,
            denominator: PerRecordEstimator::new(&[low, high], 0.0, 1.0),
        })
    }

    /// The unbiased estimate of the whole joint distribution, `(P1⁻¹ ⊗ P2⁻¹)ᵀ f̂`, written
    /// row-major to `shares` (length `k1 · k2`); entries add up to 1 and may fall outside
    /// [0, 1]. `Ok(false)` (nothing written) when there are no reports.
    pub fn estimate_distribution(
        &self,
        table: &[u64],
        shares: &mut [f64],
    ) -> Result<bool, DesignError> {
        let (rows, columns) = self.shape();
        if shares.len() != rows * columns {
            return Err(DesignError::CountsLength {
                expected: rows * columns,
                got: shares.len(),
            });
        }
        for first in 0..rows {
            for second in 0..columns {
                let cell = self.cell(first, second)?;
                match cell.estimator.estimate(&cell.collapse(table)?)? {
                    Some(estimate) => shares[first * columns + second] = estimate,
                    None => return Ok(false),
                }
            }
        }
        Ok(true)
    }
}

/// Whether `report` is in the bit set.
fn is_in(set: u32, report: usize) -> bool {
    set >> report & 1 == 1
}

impl JointCell {
    /// The estimator over the four collapsed reports (`2·[r1 high] + [r2 high]`), with every
    /// interval, bound and test of [`PerRecordEstimator`]; feed it [`Self::collapse`].
    pub fn estimator(&self) -> &PerRecordEstimator {
        &self.estimator
    }

    /// The four collapsed counts of a row-major `k1 × k2` table of report pairs.
    pub fn collapse(&self, table: &[u64]) -> Result<[u64; 4], DesignError> {
        let (rows, columns) = self.shape;
        if table.len() != rows * columns {
            return Err(DesignError::CountsLength {
                expected: rows * columns,
                got: table.len(),
            });
        }
        let mut collapsed = [0_u64; 4];
        for (index, &count) in table.iter().enumerate() {
            let (r1, r2) = (index / columns, index % columns);
            let slot = 2 * usize::from(is_in(self.first_high, r1))
                + usize::from(is_in(self.second_high, r2));
            collapsed[slot] = collapsed[slot]
                .checked_add(count)
                .ok_or(DesignError::CountOverflow)?;
        }
        Ok(collapsed)
    }
}

/// `[max(L_n, 0)/U_d, min(U_n/L_d, 1)]` when `L_d > 0`; empty when the numerator's or the
/// denominator's interval is (no value of the cell or of the margin is consistent with the
/// reports, so no ratio is; it is then computed from the intervals as computed).
fn ratio(numerator: Option<Bounds>, denominator: Option<Bounds>) -> Option<Bounds> {
    let (numerator, denominator) = (numerator?, denominator?);
    let (Some((top_low, top_high)), Some((bottom_low, bottom_high))) =
        (numerator.range(), denominator.range())
    else {
        let ((top_low, top_high), (bottom_low, bottom_high)) =
            (numerator.computed(), denominator.computed());
        return Some(Bounds::empty(
            top_low.max(0.0) / bottom_high,
            top_high / bottom_low,
        ));
    };
    if bottom_low <= 0.0 {
        return None;
    }
    Some(Bounds::within(
        top_low.max(0.0) / bottom_high,
        top_high / bottom_low,
        0.0,
        1.0,
    ))
}

impl Conditional {
    /// The numerator, the cell `π(i, j)`.
    pub fn numerator(&self) -> &JointCell {
        &self.numerator
    }

    /// The denominator's estimator, the share `π1(i)`, over the two collapsed reports of the
    /// first question (`[r1 not high, r1 high]`).
    pub fn denominator(&self) -> &PerRecordEstimator {
        &self.denominator
    }

    /// Everything a cross-tabulation shows for `π(j | i)` at confidence 1 − β (the numerator
    /// and denominator each at `1 − β/2`); `Ok(None)` when there are no reports.
    pub fn summarize(
        &self,
        table: &[u64],
        confidence: Confidence,
        planned_respondents: u64,
    ) -> Result<Option<ConditionalSummary>, DesignError> {
        let cell = self.numerator.collapse(table)?;
        // The first question's margin: [r1 not high, r1 high].
        let margin = [cell[0] + cell[1], cell[2] + cell[3]];
        let (numerator, denominator) = (&self.numerator.estimator, &self.denominator);
        let (Some(top), Some(bottom)) =
            (numerator.estimate(&cell)?, denominator.estimate(&margin)?)
        else {
            return Ok(None);
        };
        let estimate = (bottom > 0.0).then(|| top / bottom);
        let each = Confidence::new(1.0 - confidence.beta() / 2.0)
            .unwrap_or_else(|_| unreachable!("β/2 lies in (0, 1/2)"));
        Ok(Some(ConditionalSummary {
            estimate,
            estimate_clipped: estimate.map(|e| e.clamp(0.0, 1.0)),
            chernoff: ratio(
                numerator.chernoff_interval(&cell, each)?,
                denominator.chernoff_interval(&margin, each)?,
            ),
            exact: match numerator.exact_interval(&cell, each)? {
                Some(top) => ratio(Some(top), denominator.exact_interval(&margin, each)?),
                None => None,
            },
            anytime: ratio(
                numerator.anytime_interval(&cell, each, planned_respondents)?,
                denominator.anytime_interval(&margin, each, planned_respondents)?,
            ),
        }))
    }
}
