//! What the owner's views show ([`Releases`]; docs/design.md, invariant 11 and
//! "Releases").
//!
//! * A survey with grouping questions or invitations shows its owner report-derived figures
//!   of **released** responses only, released by cell (a combination of grouping answers)
//!   at considerations every k stored responses and at close (`crate::db::releases`). The
//!   figures of an open survey are those of its last consideration: a snapshot of the
//!   released cells as of it — on SQLite taken at the server's first read after it and kept
//!   in memory (a restart takes it again from the stored state, without any response
//!   withdrawn since), on PostgreSQL written by the consideration itself for every node —
//!   so that a withdrawal leaves them at the next consideration rather than at once (after
//!   close, at once). Nothing ever shows a response not released.
//! * Other surveys show their owner everything through the API; their live pages (results,
//!   present mode) move in steps of k responses, so that a room watching a projector
//!   cannot tie a change on the screen to the person who just answered. That step is kept
//!   in memory on SQLite (a restart shows the current counts) and in the database on
//!   PostgreSQL (shared by every node).

use std::sync::Arc;

use crate::db::counts::QuestionCounts;
use crate::db::releases::{ReleasedCell, StoredRelease};
use crate::db::Database;
use crate::domain::{GroupingQuestion, Survey, SurveyStatus};
use crate::error::AppError;
use crate::results::{ReleaseReason, ReleaseSummary};

/// The responses a set of counts covers: the most of any question (each response answers
/// every question).
pub fn responses_counted(counts: &[QuestionCounts]) -> u64 {
    counts.iter().map(QuestionCounts::total).max().unwrap_or(0)
}

/// What a survey that shows its owner released responses only shows now.
#[derive(Debug, Clone)]
pub struct Released {
    /// The released cells the figures come from.
    pub cells: Arc<Vec<ReleasedCell>>,
    pub summary: ReleaseSummary,
    /// The responses its owner may see counted: for an open survey that requires
    /// invitations, as of the last consideration; otherwise as stored now.
    pub responses: u64,
    /// Invitations redeemed, on the same terms.
    pub redemptions: u64,
    /// While open: the responses received at which releases are next considered.
    pub next_consideration_at: Option<u64>,
}

impl Released {
    /// Every question's report counts over the released cells.
    pub fn counts(&self) -> Vec<QuestionCounts> {
        sum_cells(self.cells.iter())
    }

    /// Per option of `grouping` (by index): its released responses and every question's
    /// report counts among them, summed over the released cells that gave that answer.
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
                    .cells
                    .iter()
                    .filter(|cell| cell.cell.get(byte).copied() == u8::try_from(option).ok());
                let n = cells.clone().map(|cell| cell.n).sum();
                (n, sum_cells(cells))
            })
            .collect()
    }
}

/// Report counts summed over cells.
fn sum_cells<'a>(cells: impl Iterator<Item = &'a ReleasedCell>) -> Vec<QuestionCounts> {
    let mut sum: Vec<QuestionCounts> = Vec::new();
    for cell in cells {
        for question in &cell.counts {
            let total = match sum
                .iter_mut()
                .find(|q| q.question_id == question.question_id)
            {
                Some(total) => total,
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

/// The owner's views of released responses and live steps (see the module's
/// documentation); their state is storage's ([`crate::db::live_state`]).
pub struct Releases;

impl Releases {
    /// What a survey that shows its owner released responses only shows now.
    pub async fn released(&self, db: &Database, survey: &Survey) -> Result<Released, AppError> {
        let open = survey.status == SurveyStatus::Open;
        let (state, cells) = db.owner_release_state(survey.id, open).await?;
        let counters = state.counters;
        let released: u64 = cells.iter().map(|cell| cell.n).sum();
        let gated_counts = open && survey.requires_invitation;
        let (responses, redemptions, released_responses, withheld) = if gated_counts {
            (
                counters.considered_responses,
                counters.considered_redemptions,
                counters.considered_released,
                counters
                    .considered_responses
                    .saturating_sub(counters.considered_released),
            )
        } else if open {
            (
                state.stored,
                state.redeemed,
                released,
                state.stored.saturating_sub(released),
            )
        } else {
            (state.stored, state.redeemed, released, state.unreleased)
        };
        let reason = if !open {
            ReleaseReason::Closed
        } else if survey.results_after_close {
            ReleaseReason::ResultsAfterClose
        } else {
            ReleaseReason::Waiting
        };
        Ok(Released {
            cells,
            summary: ReleaseSummary {
                considered_at: counters.considered_at,
                released_responses,
                withheld_responses: withheld,
                reason,
            },
            responses,
            redemptions,
            next_consideration_at: open
                .then(|| counters.considered_at + u64::from(survey.min_cell.get())),
        })
    }

    /// The live pages of a survey that shows every response: the counts to show now, given
    /// its current ones (moved on once at least k responses have arrived since the step in
    /// force).
    pub async fn live_counts(
        &self,
        db: &Database,
        survey: &Survey,
        current: Vec<QuestionCounts>,
    ) -> Result<Vec<QuestionCounts>, AppError> {
        if survey.status == SurveyStatus::Closed {
            return Ok(current);
        }
        let step = u64::from(survey.min_cell.get());
        let next = StoredRelease {
            responses: responses_counted(&current),
            counts: Some(current),
        };
        let release = db.live_step(survey.id, step, next).await?;
        Ok(release
            .and_then(|release| release.counts)
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::QuestionId;

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
