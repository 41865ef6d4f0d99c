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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::db::counts::QuestionCounts;
use crate::db::releases::{self as stored, CellsAsOf, ReleaseState, ReleasedCell, StoredRelease};
use crate::db::Database;
use crate::domain::{GroupingQuestion, Survey, SurveyId, SurveyStatus};
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

/// A snapshot of a survey's released cells as of one consideration.
struct Snapshot {
    considered_at: u64,
    cells: Arc<Vec<ReleasedCell>>,
}

/// The release states of the owner's views (see the module's documentation).
pub struct Releases {
    /// The live pages' steps of surveys that show every response, on SQLite.
    steps: Option<Mutex<HashMap<SurveyId, StoredRelease>>>,
    snapshots: Mutex<HashMap<SurveyId, Snapshot>>,
}

impl Releases {
    /// Steps kept here (one process on a SQLite file) or left to storage's tables.
    pub fn new(steps_in_memory: bool) -> Self {
        Self {
            steps: steps_in_memory.then(Mutex::default),
            snapshots: Mutex::default(),
        }
    }

    fn snapshots(&self) -> std::sync::MutexGuard<'_, HashMap<SurveyId, Snapshot>> {
        self.snapshots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What a survey that shows its owner released responses only shows now.
    pub async fn released(&self, db: &Database, survey: &Survey) -> Result<Released, AppError> {
        let survey_id = survey.id;
        let open = survey.status == SurveyStatus::Open;
        // While open, the cells as of the last consideration: on PostgreSQL every node
        // reads them from the database; on SQLite this server keeps them in memory.
        let shared = self.steps.is_none();
        let as_of = if open && shared {
            CellsAsOf::LastConsideration
        } else {
            CellsAsOf::Now
        };
        let cached = if open && !shared {
            self.snapshots()
                .get(&survey_id)
                .map(|snapshot| snapshot.considered_at)
        } else {
            None
        };
        let state: ReleaseState = db
            .read(move |connection| {
                stored::state(connection, survey_id, as_of, |counters| {
                    cached != Some(counters.considered_at)
                })
            })
            .await?;
        let counters = state.counters;
        let cells = match state.cells {
            Some(cells) => {
                let cells = Arc::new(cells);
                if open && !shared {
                    self.snapshots().insert(
                        survey_id,
                        Snapshot {
                            considered_at: counters.considered_at,
                            cells: Arc::clone(&cells),
                        },
                    );
                }
                cells
            }
            None => self
                .snapshots()
                .get(&survey_id)
                .map(|snapshot| Arc::clone(&snapshot.cells))
                .unwrap_or_default(),
        };
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
        let survey_id = survey.id;
        let release = if let Some(steps) = &self.steps {
            let mut steps = steps.lock().unwrap_or_else(PoisonError::into_inner);
            if step_due(step, steps.get(&survey_id), next.responses) {
                steps.insert(survey_id, next);
            }
            steps.get(&survey_id).cloned()
        } else {
            let previous = db
                .read(move |connection| stored::read(connection, survey_id))
                .await?;
            if step_due(step, previous.as_ref(), next.responses) {
                // Decided again where the step is kept: two nodes at once make one step.
                db.write(move |connection| {
                    let previous = stored::read(connection, survey_id)?;
                    if !step_due(step, previous.as_ref(), next.responses) {
                        return Ok(previous);
                    }
                    stored::write(connection, survey_id, &next)?;
                    Ok(Some(next))
                })
                .await?
            } else {
                previous
            }
        };
        Ok(release
            .and_then(|release| release.counts)
            .unwrap_or_default())
    }

    /// A deleted survey's states go with it (in the database, by cascade).
    pub fn forget(&self, survey: SurveyId) {
        if let Some(steps) = &self.steps {
            steps
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&survey);
        }
        self.snapshots().remove(&survey);
    }
}

/// Whether a live page's step is due: at least `step` new responses since the step in
/// force (since none, for the first).
fn step_due(step: u64, previous: Option<&StoredRelease>, responses: u64) -> bool {
    responses >= previous.map_or(0, |release| release.responses) + step
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::QuestionId;

    #[test]
    fn a_live_page_moves_after_a_whole_step_and_never_before() {
        let at = |responses| StoredRelease {
            responses,
            counts: None,
        };
        assert!(!step_due(10, None, 9));
        assert!(step_due(10, None, 10));
        assert!(!step_due(10, Some(&at(10)), 19));
        assert!(step_due(10, Some(&at(10)), 20));
    }

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
