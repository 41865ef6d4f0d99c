//! Where the owner's live views keep their release state (docs/design.md, invariant 11 and
//! "Releases"): the cells of the last consideration an open survey shows, and the step in
//! force of the live pages of a survey that shows every response. One process on a SQLite
//! file keeps them in its memory (`sqlite::live_state`); nodes on PostgreSQL read them from
//! tables every node shares (`postgres::live_state`). The start-up picks one; the rest of
//! the server asks [`super::Database`] and never learns which.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::releases::{ReleaseState, ReleasedCell, StoredRelease};
use super::Database;
use crate::domain::SurveyId;
use crate::error::AppError;

/// A storage answer that may wait on a read or a write.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = Result<T, AppError>> + Send + 'a>>;

pub trait LiveState: Send + Sync {
    /// A survey's release state and the released cells its owner's views show now: while
    /// `open`, those of its last consideration; once closed, those released at close.
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        open: bool,
    ) -> Pending<'a, (ReleaseState, Arc<Vec<ReleasedCell>>)>;

    /// The live pages' step in force once `next` is offered: it replaces the one in force
    /// only when at least `step` responses arrived since ([`step_due`]).
    fn step<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        step: u64,
        next: StoredRelease,
    ) -> Pending<'a, Option<StoredRelease>>;

    /// A deleted survey's state goes with it.
    fn forget(&self, survey_id: SurveyId);
}

/// Whether a live page's step is due: at least `step` new responses since the step in
/// force (since none, for the first).
pub fn step_due(step: u64, previous: Option<&StoredRelease>, responses: u64) -> bool {
    responses >= previous.map_or(0, |release| release.responses) + step
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
