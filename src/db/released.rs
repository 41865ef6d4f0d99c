//! [`Released`]: what every owner view of a survey's reports is computed from, made only
//! here, from the release state (`super::releases`; docs/design.md, invariant 11). A view
//! (a handler, a page, a service, a report) gets report-derived figures through this type
//! alone: the storage functions that read every stored response's counts are private to
//! `src/db/`, so a view that reads unreleased data does not compile (`tests/layout.rs`
//! checks that `src/services/` and `src/http/` name none of them).
//!
//! The figures of an open survey are those of its last consideration: on SQLite a snapshot
//! taken at the server's first read after it and kept in memory (a restart makes withdrawals
//! since then take effect: `releases::apply_withdrawals_at_start`), on PostgreSQL written by
//! the consideration itself for every node. A withdrawal therefore leaves the figures at the
//! next consideration, together with the rest of its release if it left fewer than k;
//! once closed, at once.

use std::sync::Arc;

use super::counts::QuestionCounts;
use super::releases::{Figures, ReleasedCell};
use super::Database;
use crate::domain::{
    GroupingQuestion, QuestionId, ReleaseReason, ReleaseSummary, Survey, SurveyStatus,
};
use crate::error::AppError;

/// What a survey's owner may see computed from its reports now (see the module's
/// documentation). Its fields are private and it has no public constructor but
/// [`Released::for_audit`], which the disclosure auditor uses to recompute a view from a set
/// of responses it sent (`tests/layout.rs` checks that `src/` never calls it).
#[derive(Debug, Clone)]
pub struct Released {
    figures: Arc<Figures>,
    summary: ReleaseSummary,
    responses: u64,
    redemptions: u64,
    next_consideration_at: Option<u64>,
    /// Under `results_after_close` while open: nothing that depends on grouping answers or
    /// on which responses were released (no group sizes).
    hides_groups: bool,
}

impl Released {
    /// The figures of a set of responses the caller knows, with the summary a view shows:
    /// only for the disclosure auditor (`tests/api/disclosure/`), which recomputes every view
    /// from sets of responses it sent and compares.
    #[doc(hidden)]
    pub fn for_audit(
        survey: &Survey,
        cells: Vec<ReleasedCell>,
        pairs: super::releases::PairTables,
        summary: ReleaseSummary,
        responses: u64,
        next_consideration_at: Option<u64>,
    ) -> Self {
        Self {
            figures: Arc::new(Figures { cells, pairs }),
            summary,
            responses,
            redemptions: 0,
            next_consideration_at,
            hides_groups: survey.results_withheld_until_close(),
        }
    }

    pub fn summary(&self) -> ReleaseSummary {
        self.summary
    }

    /// The responses its owner may see counted: for an open survey that requires
    /// invitations, as of the last consideration; otherwise as stored now.
    pub fn responses(&self) -> u64 {
        self.responses
    }

    /// Invitations redeemed, on the same terms.
    pub fn redemptions(&self) -> u64 {
        self.redemptions
    }

    /// While open: the responses received at which releases are next considered.
    pub fn next_consideration_at(&self) -> Option<u64> {
        self.next_consideration_at
    }

    /// Under `results_after_close` while open: no group sizes, nothing that depends on
    /// which responses were released.
    pub fn hides_groups(&self) -> bool {
        self.hides_groups
    }

    /// The responses the figures cover.
    pub fn released_responses(&self) -> u64 {
        self.figures.responses()
    }

    /// Every question's report counts over the figures.
    pub fn counts(&self) -> Vec<QuestionCounts> {
        sum_cells(self.figures.cells.iter())
    }

    /// Per option of `grouping` (by index): its responses in the figures and every
    /// question's report counts among them.
    pub fn grouped(
        &self,
        survey: &Survey,
        grouping: &GroupingQuestion,
    ) -> Vec<(u64, Vec<QuestionCounts>)> {
        let Some(byte) = survey.groupings.iter().position(|g| g.id == grouping.id) else {
            return vec![(0, Vec::new()); grouping.options.len()];
        };
        (0..grouping.options.len())
            .map(|option| {
                let cells = self
                    .figures
                    .cells
                    .iter()
                    .filter(|cell| cell.cell.get(byte).copied() == u8::try_from(option).ok());
                let n = cells.clone().map(|cell| cell.n).sum();
                (n, sum_cells(cells))
            })
            .collect()
    }

    /// The `rows` × `columns` table of two questions' report pairs over the figures,
    /// row-major (a cross-tabulation's input).
    pub fn pairs(
        &self,
        first: QuestionId,
        second: QuestionId,
        rows: usize,
        columns: usize,
    ) -> Vec<u64> {
        self.figures.pairs.table(first, second, rows, columns)
    }

    /// Whether an export may be made: once the survey is closed (while open, each export
    /// would differ from the last by the newest responses).
    pub fn export_permit(&self, survey: &Survey) -> Option<ExportPermit> {
        (survey.status == SurveyStatus::Closed).then_some(ExportPermit(()))
    }
}

/// Proof that an export covers what the figures cover: a closed survey's responses in
/// releases that were not withheld (`Database::export_page` asks for it).
#[derive(Debug, Clone, Copy)]
pub struct ExportPermit(());

/// Report counts summed over cells.
fn sum_cells<'a>(cells: impl Iterator<Item = &'a ReleasedCell>) -> Vec<QuestionCounts> {
    let mut sum: Vec<QuestionCounts> = Vec::new();
    for cell in cells {
        for question in &cell.counts {
            let total = match sum
                .iter_mut()
                .position(|q| q.question_id == question.question_id)
            {
                Some(at) => &mut sum[at],
                None => {
                    sum.push(QuestionCounts {
                        question_id: question.question_id,
                        counts: Vec::new(),
                    });
                    sum.last_mut().expect("just pushed")
                }
            };
            if total.counts.len() < question.counts.len() {
                total.counts.resize(question.counts.len(), 0);
            }
            for (total, count) in total.counts.iter_mut().zip(&question.counts) {
                *total += count;
            }
        }
    }
    sum.sort_by_key(|question| question.question_id);
    sum
}

impl Database {
    /// What `survey`'s owner may see computed from its reports now (a draft: nothing).
    pub async fn released(&self, survey: &Survey) -> Result<Released, AppError> {
        let open = survey.status == SurveyStatus::Open;
        let k = u64::from(survey.min_cell.get());
        let (state, figures) = if survey.status == SurveyStatus::Draft {
            (Default::default(), Arc::default())
        } else {
            self.live.released(self, survey.id, k, open).await?
        };
        let counters = state.counters;
        let released = figures.responses();
        let (responses, redemptions) = if open && survey.requires_invitation {
            // Every count moves only with the considerations: watching them would otherwise
            // match a redemption to a response.
            (
                counters.considered_responses,
                counters.considered_redemptions,
            )
        } else {
            (state.stored, state.redeemed)
        };
        let hides_groups = survey.results_withheld_until_close();
        // Nothing that depends on which responses were released, not even their number.
        let figures = if hides_groups {
            Arc::default()
        } else {
            figures
        };
        let reason = match survey.status {
            SurveyStatus::Open if survey.results_after_close => ReleaseReason::ResultsAfterClose,
            SurveyStatus::Open | SurveyStatus::Draft => ReleaseReason::Waiting,
            SurveyStatus::Closed => ReleaseReason::Closed,
        };
        Ok(Released {
            figures,
            summary: ReleaseSummary {
                considered_at: counters.considered_at,
                released_responses: (!hides_groups).then_some(released),
                withheld_responses: (!hides_groups).then(|| responses.saturating_sub(released)),
                reason,
            },
            responses,
            redemptions,
            next_consideration_at: open.then(|| counters.considered_at + k),
            hides_groups,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_sum_question_by_question_whatever_their_lengths() {
        let question = |id, counts: &[u64]| QuestionCounts {
            question_id: QuestionId::from_stored(id),
            counts: counts.to_vec(),
        };
        let cell = |bytes: &[u8], counts| ReleasedCell {
            cell: bytes.to_vec(),
            n: 0,
            counts,
        };
        let cells = [
            cell(&[0], vec![question(2, &[3, 4]), question(1, &[1])]),
            cell(&[1], vec![question(1, &[0, 5])]),
        ];
        assert_eq!(
            sum_cells(cells.iter()),
            vec![question(1, &[1, 5]), question(2, &[3, 4])]
        );
    }
}
