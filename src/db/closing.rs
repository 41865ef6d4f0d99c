//! Closing surveys at their closing time (docs/design.md, "Which interval is primary"): the
//! writer's timer wakes at the earliest closing time of an open survey, so a survey fixed in
//! advance closes on time even when nobody responds. (Each response's transaction checks
//! the closing time too, and reaching the target closes a survey in that transaction.)

use std::time::Duration;

use super::sql::Conn;

use super::queries;
use crate::domain::ClosingTime;

/// The shortest sleep before a closing time: closing times are whole seconds.
const RETRY: Duration = Duration::from_millis(200);

/// When the writer must next close a survey.
#[derive(Debug, Default)]
pub(super) struct ClosingClock {
    next: Option<ClosingTime>,
}

impl ClosingClock {
    /// How long the writer may sleep before the next closing time (`None`: no deadline).
    /// Never less than [`RETRY`], so a close that keeps failing cannot spin the writer.
    pub(super) fn wait(&self) -> Option<Duration> {
        self.next.map(|next| {
            let seconds = next.unix().saturating_sub(ClosingTime::now().unix());
            Duration::from_secs(u64::try_from(seconds).unwrap_or(0)).max(RETRY)
        })
    }

    /// Learns the next closing time and closes the surveys whose time has come. Runs
    /// outside any transaction (the close commits on its own); a failure is logged and
    /// retried at the next tick. Only a read when nothing is due.
    pub(super) fn tick(&mut self, connection: &Conn) {
        self.refresh(connection);
        if !self
            .next
            .is_some_and(|next| next.has_passed(ClosingTime::now()))
        {
            return;
        }
        match queries::close_due_surveys(connection, ClosingTime::now()) {
            Ok(closed) => {
                tracing::info!(
                    surveys = closed.len(),
                    "closed surveys at their closing time"
                );
            }
            Err(error) => tracing::error!(%error, "cannot close surveys at their closing time"),
        }
        self.refresh(connection);
    }

    fn refresh(&mut self, connection: &Conn) {
        match queries::next_closing_time(connection) {
            Ok(next) => self.next = next,
            Err(error) => tracing::error!(%error, "cannot read the next closing time"),
        }
    }
}
