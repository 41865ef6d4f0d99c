//! The one close step, and closing surveys at their closing time.
//!
//! Every way a survey stops collecting — by hand (the API, the workspace's button,
//! `deniable survey close`), by reaching its target (in the transaction of the response that
//! reaches it), at its closing time (the writer's timer) and by deletion — goes through
//! [`close_survey`], which does the same things each time: the status, the erasure of the
//! invitation key, the last consideration of releases, and on PostgreSQL the rewrite of the
//! survey's rows in key order (docs/design.md, "Closing").
//!
//! The writer's timer wakes at the earliest closing time of an open survey, so a survey
//! fixed in advance closes on time even when nobody responds (docs/design.md, "Which
//! interval is primary").

use std::time::Duration;

use super::sql::{params, Conn, OptionalExtension};

use super::queries;
use crate::domain::{ClosingTime, Refusal, ResearcherId, Slug, SurveyId, SurveyStatus};
use crate::error::AppError;

/// Closes an open survey, in the caller's transaction: it stops collecting, its private
/// key (invitations) is erased, releases are considered a last time (withdrawals take
/// effect; cells with at least k unreleased responses are released; the rest stay
/// withheld), and on PostgreSQL its rows are rewritten in key order. Returns false, changing nothing, when the survey is not
/// open.
pub fn close_survey(connection: &Conn, survey_id: SurveyId) -> Result<bool, AppError> {
    let closed = connection
        .prepare_cached(
            "UPDATE surveys SET status = 'closed' WHERE id = ?1 AND status = 'open'
             RETURNING id",
        )?
        .query_row([survey_id.get()], |row| row.get::<_, i64>(0))
        .optional()?;
    if closed.is_none() {
        return Ok(false);
    }
    super::redemptions::erase_private_key(connection, survey_id)?;
    super::releases::consider_at_close(connection, survey_id)?;
    connection.rules().after_close(connection, survey_id)?;
    Ok(true)
}

/// Moves an owned survey from `from` to `to`; 404 when not owned, 409 when in another state.
/// Opening refuses a closing time that has passed meanwhile (409 `closes_at_passed`).
pub fn change_status(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Result<(), AppError> {
    if to == SurveyStatus::Open {
        let closes_at = queries::find_owned_survey(connection, slug, owner)?
            .filter(|survey| survey.status == from)
            .and_then(|survey| survey.stopping_rule.closes_at());
        if let Some(closes_at) = closes_at.filter(|at| at.has_passed(ClosingTime::now())) {
            return Err(Refusal::ClosesAtPassed { closes_at }.into());
        }
    }
    if to == SurveyStatus::Closed {
        // Closing goes through the one close step, whoever asks.
        let owned = connection
            .query_row(
                "SELECT id FROM surveys WHERE slug = ?1 AND owner_id = ?2 AND status = ?3",
                params![slug.as_str(), owner.get(), from.as_str()],
                |row| row.get::<_, i64>(0),
            )
            .optional()?;
        if let Some(survey_id) = owned {
            if close_survey(connection, SurveyId::from_stored(survey_id))? {
                return Ok(());
            }
        }
    } else {
        let changed = connection.execute(
            "UPDATE surveys SET status = ?1 WHERE slug = ?2 AND status = ?3 AND owner_id = ?4",
            params![to.as_str(), slug.as_str(), from.as_str(), owner.get()],
        )?;
        if changed == 1 {
            return Ok(());
        }
    }
    match queries::find_owned_survey(connection, slug, owner)? {
        None => Err(AppError::NotFound("survey")),
        Some(survey) => Err(Refusal::InvalidStatusChange {
            status: survey.status,
            from,
            to,
        }
        .into()),
    }
}

/// Closes every open survey whose closing time has come (the writer's timer), each through
/// the one close step; returns their slugs.
pub fn close_due_surveys(connection: &Conn, now: ClosingTime) -> Result<Vec<String>, AppError> {
    let due = connection
        .prepare_cached(
            "SELECT id, slug FROM surveys
             WHERE status = 'open' AND closes_at IS NOT NULL AND closes_at <= ?1",
        )?
        .query_map([now.unix()], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut closed = Vec::with_capacity(due.len());
    for (id, slug) in due {
        let survey_id = SurveyId::from_stored(id);
        if atomically(connection, || close_survey(connection, survey_id))? {
            closed.push(slug);
        }
    }
    Ok(closed)
}

/// Runs `step` as one unit: it commits whole or not at all, and nobody reads half of it.
/// A savepoint, so it nests in the caller's transaction (PostgreSQL's timer holds one with
/// the group lock) or, on SQLite's writer outside any, is a transaction of its own. A
/// close outside one would commit statement by statement: a reader could see the survey
/// closed before its last consideration, and a crash could leave it closed with its key.
pub(super) fn atomically<T>(
    connection: &Conn,
    step: impl FnOnce() -> Result<T, AppError>,
) -> Result<T, AppError> {
    connection.execute_batch("SAVEPOINT close_step")?;
    match step() {
        Ok(value) => {
            connection.execute_batch("RELEASE close_step")?;
            Ok(value)
        }
        Err(error) => {
            let _ = connection.execute_batch("ROLLBACK TO close_step; RELEASE close_step");
            Err(error)
        }
    }
}

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

    /// Learns the next closing time and closes the surveys whose time has come, each in a
    /// unit of its own ([`atomically`]); a failure is logged and retried at the next tick.
    /// Only a read when nothing is due.
    pub(super) fn tick(&mut self, connection: &Conn) {
        self.refresh(connection);
        if !self
            .next
            .is_some_and(|next| next.has_passed(ClosingTime::now()))
        {
            return;
        }
        match close_due_surveys(connection, ClosingTime::now()) {
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
