//! SQLite's live release state: in this process's memory. A snapshot of the released cells
//! as of the last consideration, taken at the first read after it (a restart takes it again
//! from the stored state, without any response withdrawn since), and the live pages' steps
//! (a restart shows the current counts).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::super::live_state::{step_due, LiveState, Pending};
use super::super::releases::{self, CellsAsOf, ReleasedCell, StoredRelease};
use super::super::Database;
use crate::domain::SurveyId;

/// A snapshot of a survey's released cells as of one consideration.
struct Snapshot {
    considered_at: u64,
    cells: Arc<Vec<ReleasedCell>>,
}

#[derive(Default)]
pub struct InMemory {
    snapshots: Mutex<HashMap<SurveyId, Snapshot>>,
    steps: Mutex<HashMap<SurveyId, StoredRelease>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveState for InMemory {
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        open: bool,
    ) -> Pending<'a, (releases::ReleaseState, Arc<Vec<ReleasedCell>>)> {
        Box::pin(async move {
            let cached = if open {
                lock(&self.snapshots)
                    .get(&survey_id)
                    .map(|snapshot| snapshot.considered_at)
            } else {
                None
            };
            let mut state = db
                .read(move |connection| {
                    releases::state(connection, survey_id, CellsAsOf::Now, |counters| {
                        cached != Some(counters.considered_at)
                    })
                })
                .await?;
            let cells = match state.cells.take() {
                Some(cells) => {
                    let cells = Arc::new(cells);
                    if open {
                        lock(&self.snapshots).insert(
                            survey_id,
                            Snapshot {
                                considered_at: state.counters.considered_at,
                                cells: Arc::clone(&cells),
                            },
                        );
                    }
                    cells
                }
                None => lock(&self.snapshots)
                    .get(&survey_id)
                    .map(|snapshot| Arc::clone(&snapshot.cells))
                    .unwrap_or_default(),
            };
            Ok((state, cells))
        })
    }

    fn step<'a>(
        &'a self,
        _: &'a Database,
        survey_id: SurveyId,
        step: u64,
        next: StoredRelease,
    ) -> Pending<'a, Option<StoredRelease>> {
        let mut steps = lock(&self.steps);
        if step_due(step, steps.get(&survey_id), next.responses) {
            steps.insert(survey_id, next);
        }
        let in_force = steps.get(&survey_id).cloned();
        Box::pin(async move { Ok(in_force) })
    }

    fn forget(&self, survey_id: SurveyId) {
        lock(&self.snapshots).remove(&survey_id);
        lock(&self.steps).remove(&survey_id);
    }
}
