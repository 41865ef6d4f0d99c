//! PostgreSQL's live release state: in tables every node reads. The consideration itself
//! writes its cells (`considered_cells`), so every node shows the same figures between
//! considerations; the live pages' steps are rows of `releases`, decided again inside the
//! write so that two nodes at once make one step.

use std::sync::Arc;

use super::super::live_state::{step_due, LiveState, Pending};
use super::super::releases::{self, CellsAsOf, ReleaseState, ReleasedCell, StoredRelease};
use super::super::Database;
use crate::domain::SurveyId;

pub struct InTables;

impl LiveState for InTables {
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        open: bool,
    ) -> Pending<'a, (ReleaseState, Arc<Vec<ReleasedCell>>)> {
        let as_of = if open {
            CellsAsOf::LastConsideration
        } else {
            CellsAsOf::Now
        };
        Box::pin(async move {
            let mut state = db
                .read(move |connection| releases::state(connection, survey_id, as_of, |_| true))
                .await?;
            let cells = Arc::new(state.cells.take().unwrap_or_default());
            Ok((state, cells))
        })
    }

    fn step<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        step: u64,
        next: StoredRelease,
    ) -> Pending<'a, Option<StoredRelease>> {
        Box::pin(async move {
            let previous = db
                .read(move |connection| releases::read(connection, survey_id))
                .await?;
            if !step_due(step, previous.as_ref(), next.responses) {
                return Ok(previous);
            }
            db.write(move |connection| {
                let previous = releases::read(connection, survey_id)?;
                if !step_due(step, previous.as_ref(), next.responses) {
                    return Ok(previous);
                }
                releases::write(connection, survey_id, &next)?;
                Ok(Some(next))
            })
            .await
        })
    }

    fn forget(&self, _: SurveyId) {
        // Its rows go with the survey's (by cascade).
    }
}
