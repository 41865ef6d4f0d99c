//! PostgreSQL's live release state: in tables every node reads. The consideration itself
//! writes its figures (`considered_cells`, `considered_pairs`), so every node shows the same
//! figures between considerations.

use std::sync::Arc;

use super::super::live_state::{LiveState, Pending};
use super::super::releases::{self, Figures, FiguresAsOf, Reading, ReleaseState};
use super::super::Database;
use crate::domain::SurveyId;

pub struct InTables;

impl LiveState for InTables {
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        _: u64,
        open: bool,
    ) -> Pending<'a, (ReleaseState, Arc<Figures>)> {
        let as_of = if open {
            FiguresAsOf::LastConsideration
        } else {
            FiguresAsOf::Now
        };
        Box::pin(async move {
            let mut state = db
                .read(move |connection| {
                    releases::state(connection, survey_id, Reading::Stored(as_of), |_| true)
                })
                .await?;
            let figures = Arc::new(state.figures.take().unwrap_or_default());
            Ok((state, figures))
        })
    }

    fn forget(&self, _: SurveyId) {
        // Its rows go with the survey's (by cascade).
    }
}
