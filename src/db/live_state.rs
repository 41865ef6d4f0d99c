//! Where the owner's views keep the figures of an open survey's last consideration
//! (docs/design.md, invariant 11 and "Releases"). One process on a SQLite file keeps them in
//! its memory (`sqlite::live_state`); nodes on PostgreSQL read them from tables every node
//! shares (`postgres::live_state`). The start-up picks one; the rest of the server asks
//! [`super::Database::released`] and never learns which.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::releases::{Figures, ReleaseState};
use super::Database;
use crate::domain::SurveyId;
use crate::error::AppError;

/// A storage answer that may wait on a read or a write.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = Result<T, AppError>> + Send + 'a>>;

pub trait LiveState: Send + Sync {
    /// A survey's release state and the figures its owner's views show now: while `open`,
    /// those of its last consideration (`k` its min_cell); once closed, the current ones.
    fn released<'a>(
        &'a self,
        db: &'a Database,
        survey_id: SurveyId,
        k: u64,
        open: bool,
    ) -> Pending<'a, (ReleaseState, Arc<Figures>)>;

    /// A deleted survey's state goes with it.
    fn forget(&self, survey_id: SurveyId);
}
