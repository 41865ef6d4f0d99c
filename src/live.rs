//! What the owner's views show between releases ([`Releases`]).
//!
//! * The workspace's live pages (results, present mode) show the counts released in steps
//!   of at least `min_cell` responses, never fewer than `min_cell` in all, so that a room
//!   watching a projector cannot tie a change on the screen to the person who just
//!   answered. The owner's JSON API and exports are not stepped, but for a survey that
//!   requires invitations.
//! * A survey that requires invitations (issue 20) releases everything its owner sees —
//!   the invitation status, the live pages, the JSON results and the exports — together,
//!   in releases that each hold at least `min_cell` new redemptions and at least `min_cell`
//!   new responses, so that its owner cannot match one redemption to one response by
//!   watching both ([`invitation_release_due`]).
//! * A breakdown by a grouping question moves for all groups together, once k × groups new
//!   responses have arrived (`crate::breakdown`).
//!
//! Closing a survey releases everything.
//!
//! Where the states are kept depends on the engine. On SQLite one process serves the file
//! and keeps them in its memory: a release written to the file would set the newest
//! responses apart from the rest in a copy of it (invariant 8); a restart forgets them, so
//! the live pages release at once what is there and a breakdown waits for a whole step
//! again. On PostgreSQL every node reads and advances the same states in the database
//! (migration 0007), whose heap orders rows by arrival anyway (docs/design.md,
//! "PostgreSQL"). Either way a release is decided again where the state is kept, at the
//! moment it is made, so two requests at once — on one node or on two — cannot release a
//! smaller step than the rule allows.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use crate::db::queries::QuestionCounts;
use crate::db::releases::{self as stored, StoredRelease};
use crate::db::sql::Engine;
use crate::db::{queries, redemptions, Database};
use crate::domain::{QuestionId, RecordId, Survey, SurveyId, SurveyStatus};
use crate::error::AppError;

/// Which release of a survey.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// The survey's own: its live pages, and for a survey that requires invitations
    /// everything its owner sees.
    Survey,
    /// A breakdown by this grouping question.
    Breakdown(QuestionId),
}

impl View {
    fn stored(self) -> i64 {
        match self {
            View::Survey => 0,
            View::Breakdown(grouping) => grouping.get(),
        }
    }
}

/// One release: the survey's responses and redemptions when it was made, and what it
/// published (`None` before the first).
pub type Release = StoredRelease;

/// What a release of a survey that requires invitations holds besides its counts.
#[derive(Clone, Debug, Default)]
pub struct InvitationRelease {
    /// Invitations redeemed.
    pub redemptions: u64,
    /// The responses released and still stored; `None`: all of them (the survey closed).
    pub records: Option<Arc<HashSet<RecordId>>>,
}

/// Whether a release is due for a survey that requires invitations: at least `step` new
/// redemptions and at least `step` new responses since the `previous` release (responses,
/// redemptions), or the survey has closed.
pub fn invitation_release_due(
    step: u64,
    previous: Option<(u64, u64)>,
    now: (u64, u64),
    closed: bool,
) -> bool {
    let (responses, redemptions) = now;
    let (before_responses, before_redemptions) = previous.unwrap_or((0, 0));
    closed || (responses >= before_responses + step && redemptions >= before_redemptions + step)
}

/// Whether a stepped view (live pages, breakdowns) is due: at least `step` new responses
/// since the last release (since none, for the first).
fn step_due(step: u64, previous: Option<&Release>, responses: u64) -> bool {
    responses >= previous.map_or(0, |release| release.responses) + step
}

/// The responses a set of counts covers: the most of any question (each response answers
/// every question).
pub fn responses_counted(counts: &[QuestionCounts]) -> u64 {
    counts.iter().map(QuestionCounts::total).max().unwrap_or(0)
}

/// The release states of every survey and view, kept where the engine allows (see the
/// module's documentation).
pub struct Releases {
    memory: Option<Mutex<Memory>>,
}

#[derive(Default)]
struct Memory {
    releases: HashMap<(SurveyId, View), Release>,
    /// Of a survey that requires invitations: the responses its last release held.
    records: HashMap<SurveyId, Arc<HashSet<RecordId>>>,
}

impl Releases {
    pub fn for_engine(engine: Engine) -> Self {
        Self {
            memory: match engine {
                Engine::Sqlite => Some(Mutex::default()),
                Engine::Postgres => None,
            },
        }
    }

    fn memory(&self) -> Option<std::sync::MutexGuard<'_, Memory>> {
        self.memory
            .as_ref()
            .map(|memory| memory.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The release of `view` in force.
    pub async fn current(
        &self,
        db: &Database,
        survey: SurveyId,
        view: View,
    ) -> Result<Option<Release>, AppError> {
        if let Some(memory) = self.memory() {
            return Ok(memory.releases.get(&(survey, view)).cloned());
        }
        db.read(move |connection| stored::read(connection, survey, view.stored()))
            .await
    }

    /// Makes a stepped view's `next` (counts read just now) its release if at least
    /// `step` responses have arrived since the one in force; returns the release in force.
    pub async fn advance(
        &self,
        db: &Database,
        survey: SurveyId,
        view: View,
        step: u64,
        next: Release,
    ) -> Result<Option<Release>, AppError> {
        if let Some(mut memory) = self.memory() {
            let key = (survey, view);
            if matches!(view, View::Breakdown(_)) && !memory.releases.contains_key(&key) {
                // First seen since the server started: what it published before a restart
                // is not known, and releasing now could differ from that by one response.
                // Nothing is released until a whole step past now.
                let baseline = Release {
                    counts: None,
                    ..next.clone()
                };
                memory.releases.insert(key, baseline);
            }
            if step_due(step, memory.releases.get(&key), next.responses) {
                memory.releases.insert(key, next);
            }
            return Ok(memory.releases.get(&key).cloned());
        }
        let previous = self.current(db, survey, view).await?;
        if !step_due(step, previous.as_ref(), next.responses) {
            return Ok(previous);
        }
        db.write(move |connection| {
            let previous = stored::read(connection, survey, view.stored())?;
            if !step_due(step, previous.as_ref(), next.responses) {
                return Ok(previous);
            }
            stored::write(connection, survey, view.stored(), &next)?;
            Ok(Some(next))
        })
        .await
    }

    /// A survey that requires invitations: its counts and invitation release as its owner
    /// may see them now, releasing the current state first if a release is due. `tallies`:
    /// the counts just read, for the cheap check; a due release reads everything again,
    /// together, where the state is kept.
    pub async fn with_invitations(
        &self,
        db: &Database,
        survey: &Survey,
        tallies: &[QuestionCounts],
    ) -> Result<(Vec<QuestionCounts>, InvitationRelease), AppError> {
        let survey_id = survey.id;
        let redeemed = db
            .read(move |connection| redemptions::invitation_counts(connection, survey_id))
            .await?
            .redeemed;
        if survey.status == SurveyStatus::Closed {
            let release = InvitationRelease {
                redemptions: redeemed,
                records: None,
            };
            return Ok((tallies.to_vec(), release));
        }
        let step = u64::from(survey.min_cell.get());
        let previous = self.current(db, survey_id, View::Survey).await?;
        let now = (responses_counted(tallies), redeemed);
        if !invitation_release_due(step, previous.as_ref().map(invitation_state), now, false) {
            return self
                .released_with_invitations(db, survey_id, previous)
                .await;
        }
        if self.memory.is_some() {
            let snapshot = db
                .read(move |connection| redemptions::release_snapshot(connection, survey_id))
                .await?;
            let previous = self.release_in_memory(survey_id, step, snapshot);
            return self
                .released_with_invitations(db, survey_id, previous)
                .await;
        }
        let release = db
            .write(move |connection| {
                let previous = stored::read(connection, survey_id, View::Survey.stored())?;
                let counts = queries::survey_report_counts(connection, survey_id)?;
                let redeemed = redemptions::invitation_counts(connection, survey_id)?.redeemed;
                let now = (responses_counted(&counts), redeemed);
                if !invitation_release_due(
                    step,
                    previous.as_ref().map(invitation_state),
                    now,
                    false,
                ) {
                    return Ok(previous);
                }
                let release = Release {
                    responses: now.0,
                    redemptions: now.1,
                    counts: Some(vec![counts]),
                };
                stored::write(connection, survey_id, View::Survey.stored(), &release)?;
                stored::release_stored_responses(connection, survey_id)?;
                Ok(Some(release))
            })
            .await?;
        self.released_with_invitations(db, survey_id, release).await
    }

    /// A survey that requires invitations, on SQLite: makes `snapshot` its release if one is
    /// due against the release in force, checked again under the lock; returns the release
    /// in force.
    fn release_in_memory(
        &self,
        survey: SurveyId,
        step: u64,
        snapshot: redemptions::ReleaseSnapshot,
    ) -> Option<Release> {
        let mut memory = self.memory().expect("kept in memory");
        let key = (survey, View::Survey);
        let now = (responses_counted(&snapshot.counts), snapshot.redeemed);
        let previous = memory.releases.get(&key).map(invitation_state);
        if invitation_release_due(step, previous, now, false) {
            let release = Release {
                responses: now.0,
                redemptions: now.1,
                counts: Some(vec![snapshot.counts]),
            };
            memory.releases.insert(key, release);
            memory.records.insert(survey, Arc::new(snapshot.records));
        }
        memory.releases.get(&key).cloned()
    }

    /// What `release` (of a survey that requires invitations) shows: its counts (nothing
    /// before the first) and the responses it holds that are still stored.
    async fn released_with_invitations(
        &self,
        db: &Database,
        survey: SurveyId,
        release: Option<Release>,
    ) -> Result<(Vec<QuestionCounts>, InvitationRelease), AppError> {
        let Some(release) = release else {
            return Ok((
                Vec::new(),
                InvitationRelease {
                    redemptions: 0,
                    records: Some(Arc::default()),
                },
            ));
        };
        let records = if let Some(memory) = self.memory() {
            memory.records.get(&survey).cloned().unwrap_or_default()
        } else {
            let records = db
                .read(move |connection| stored::released_records(connection, survey))
                .await?;
            Arc::new(records)
        };
        let counts = release
            .counts
            .and_then(|groups| groups.into_iter().next())
            .unwrap_or_default();
        Ok((
            counts,
            InvitationRelease {
                redemptions: release.redemptions,
                records: Some(records),
            },
        ))
    }

    /// The live pages of a survey (one that does not require invitations): the counts to
    /// show now, given its current ones.
    pub async fn live_counts(
        &self,
        db: &Database,
        survey: &Survey,
        current: Vec<QuestionCounts>,
    ) -> Result<Vec<QuestionCounts>, AppError> {
        if survey.status == SurveyStatus::Closed {
            return Ok(current);
        }
        let next = Release {
            responses: responses_counted(&current),
            redemptions: 0,
            counts: Some(vec![current]),
        };
        let step = u64::from(survey.min_cell.get());
        let release = self
            .advance(db, survey.id, View::Survey, step, next)
            .await?;
        Ok(release
            .and_then(|release| release.counts)
            .and_then(|groups| groups.into_iter().next())
            .unwrap_or_default())
    }

    /// A deleted survey's releases go with it (in the database, by cascade).
    pub fn forget(&self, survey: SurveyId) {
        if let Some(mut memory) = self.memory() {
            memory.releases.retain(|(id, _), _| *id != survey);
            memory.records.remove(&survey);
        }
    }
}

/// (responses, redemptions) of a release.
fn invitation_state(release: &Release) -> (u64, u64) {
    (release.responses, release.redemptions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitation_release_needs_k_new_redemptions_and_k_new_responses() {
        assert!(!invitation_release_due(5, None, (4, 9), false));
        assert!(!invitation_release_due(5, None, (9, 4), false));
        assert!(invitation_release_due(5, None, (5, 5), false));
        assert!(!invitation_release_due(5, Some((5, 5)), (10, 9), false));
        assert!(!invitation_release_due(5, Some((5, 5)), (9, 10), false));
        assert!(invitation_release_due(5, Some((5, 5)), (10, 10), false));
        // Closing releases the rest, however little.
        assert!(invitation_release_due(5, Some((5, 5)), (6, 5), true));
    }

    #[test]
    fn a_stepped_view_moves_after_a_whole_step_and_never_before() {
        let at = |responses| Release {
            responses,
            ..Release::default()
        };
        assert!(!step_due(10, None, 9));
        assert!(step_due(10, None, 10));
        assert!(!step_due(10, Some(&at(10)), 19));
        assert!(step_due(10, Some(&at(10)), 20));
    }
}
