//! SQLite's live release state: in this process's memory. The figures of an open survey as of
//! its last consideration, taken at the first read after it — the stored figures less the
//! releases that withdrawals since left below k, which the next consideration, close or
//! restart withholds for good (`releases::without_releases_below_k`). A restart takes them
//! again from the stored state, after withdrawals took effect at start-up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::super::live_state::{LiveState, Pending};
use super::super::releases::{self, Figures, FiguresAsOf, Reading, ReleaseState};
use super::super::Database;
use crate::domain::SurveyId;

/// The figures of a survey as of one consideration.
struct Snapshot {
    considered_at: u64,
    figures: Arc<Figures>,
}

#[derive(Default)]
pub struct InMemory {
    snapshots: Mutex<HashMap<SurveyId, Snapshot>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveState for InMemory {
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        k: u64,
        open: bool,
    ) -> Pending<'a, (ReleaseState, Arc<Figures>)> {
        Box::pin(async move {
            if !open {
                let mut state = db
                    .read(move |connection| {
                        releases::state(
                            connection,
                            survey_id,
                            Reading::Stored(FiguresAsOf::Now),
                            |_| true,
                        )
                    })
                    .await?;
                let figures = Arc::new(state.figures.take().unwrap_or_default());
                return Ok((state, figures));
            }
            let cached = lock(&self.snapshots)
                .get(&survey_id)
                .map(|snapshot| snapshot.considered_at);
            let mut state = db
                .read(move |connection| {
                    releases::state(
                        connection,
                        survey_id,
                        Reading::NowWithWithdrawals { k },
                        |counters| cached != Some(counters.considered_at),
                    )
                })
                .await?;
            let figures = match state.figures.take() {
                Some(figures) => {
                    let figures = Arc::new(figures);
                    lock(&self.snapshots).insert(
                        survey_id,
                        Snapshot {
                            considered_at: state.counters.considered_at,
                            figures: Arc::clone(&figures),
                        },
                    );
                    figures
                }
                None => lock(&self.snapshots)
                    .get(&survey_id)
                    .map(|snapshot| Arc::clone(&snapshot.figures))
                    .unwrap_or_default(),
            };
            Ok((state, figures))
        })
    }

    fn forget(&self, survey_id: SurveyId) {
        lock(&self.snapshots).remove(&survey_id);
    }
}
