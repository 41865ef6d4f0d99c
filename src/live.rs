//! What the workspace's live pages (results, present mode) show: the counts released in
//! steps of at least `min_cell` responses, never fewer than `min_cell` in all, so that a room
//! watching a projector cannot tie a change on the screen to the person who just answered.
//! Closing a survey releases everything. The owner's JSON API and exports are not stepped,
//! but for a survey that requires invitations.
//!
//! A survey that requires invitations (issue 20) releases everything its owner sees — the
//! invitation status, the live pages, the JSON results and the exports — together, in
//! releases that each hold at least `min_cell` new redemptions and at least `min_cell` new
//! responses (closing releases the rest), so that its owner cannot match one redemption to
//! one response by watching both ([`InvitationRelease`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use crate::db::queries::QuestionCounts;
use crate::domain::{RecordId, Survey, SurveyId, SurveyStatus};

/// Held in memory by the server (a restart releases at once what is there).
#[derive(Default)]
pub struct LiveReleases {
    released: Mutex<HashMap<SurveyId, Release>>,
}

#[derive(Clone)]
struct Release {
    responses: u64,
    counts: Vec<QuestionCounts>,
    /// Only for a survey that requires invitations, and only through
    /// [`LiveReleases::release_with_invitations`].
    invitations: Option<InvitationRelease>,
}

/// What a release of a survey that requires invitations holds besides its counts.
#[derive(Clone, Debug, Default)]
pub struct InvitationRelease {
    /// Invitations redeemed.
    pub redemptions: u64,
    /// The responses stored (exports show those of them still stored, and no other).
    pub records: Arc<HashSet<RecordId>>,
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

/// The responses a set of counts covers: the most of any question (each response answers
/// every question).
pub fn responses_counted(counts: &[QuestionCounts]) -> u64 {
    counts.iter().map(QuestionCounts::total).max().unwrap_or(0)
}

impl LiveReleases {
    /// The counts to show for `survey` now, given its current ones. (A survey that requires
    /// invitations releases only through [`Self::release_with_invitations`]: here it shows
    /// its last release.)
    pub fn visible(&self, survey: &Survey, current: Vec<QuestionCounts>) -> Vec<QuestionCounts> {
        if survey.requires_invitation {
            return self.released_with_invitations(survey).0;
        }
        let now = responses_counted(&current);
        let step = u64::from(survey.min_cell.get());
        let mut released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
        let previous = released.get(&survey.id).cloned();
        let release_now = survey.status == SurveyStatus::Closed
            || match &previous {
                None => now >= step,
                Some(release) => now >= release.responses + step,
            };
        if release_now {
            released.insert(
                survey.id,
                Release {
                    responses: now,
                    counts: current.clone(),
                    invitations: None,
                },
            );
            return current;
        }
        previous.map(|release| release.counts).unwrap_or_default()
    }

    /// A survey that requires invitations: whether its current state (responses,
    /// redemptions) would make a release, so that the caller reads the records only then.
    pub fn invitation_release_due(
        &self,
        survey: &Survey,
        responses: u64,
        redemptions: u64,
    ) -> bool {
        let released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
        invitation_release_due(
            u64::from(survey.min_cell.get()),
            released.get(&survey.id).map(previous_invitation_state),
            (responses, redemptions),
            survey.status == SurveyStatus::Closed,
        )
    }

    /// A survey that requires invitations: releases `current` (counts, redemptions and the
    /// records, read together) if a release is due, checked again here under the lock so
    /// that two owners' requests at once cannot release a smaller step; returns what the
    /// owner sees.
    pub fn release_with_invitations(
        &self,
        survey: &Survey,
        current: Vec<QuestionCounts>,
        invitations: InvitationRelease,
    ) -> (Vec<QuestionCounts>, InvitationRelease) {
        let responses = responses_counted(&current);
        let mut released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
        let due = invitation_release_due(
            u64::from(survey.min_cell.get()),
            released.get(&survey.id).map(previous_invitation_state),
            (responses, invitations.redemptions),
            survey.status == SurveyStatus::Closed,
        );
        if due {
            released.insert(
                survey.id,
                Release {
                    responses,
                    counts: current.clone(),
                    invitations: Some(invitations.clone()),
                },
            );
            return (current, invitations);
        }
        drop(released);
        self.released_with_invitations(survey)
    }

    /// What a survey that requires invitations has released so far (nothing: empty).
    pub fn released_with_invitations(
        &self,
        survey: &Survey,
    ) -> (Vec<QuestionCounts>, InvitationRelease) {
        let released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
        match released.get(&survey.id) {
            Some(release) => (
                release.counts.clone(),
                release.invitations.clone().unwrap_or_default(),
            ),
            None => (Vec::new(), InvitationRelease::default()),
        }
    }

    /// A deleted survey's release goes with it.
    pub fn forget(&self, survey: SurveyId) {
        self.released
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&survey);
    }
}

/// (responses, redemptions) of a release; one made without invitations counts none.
fn previous_invitation_state(release: &Release) -> (u64, u64) {
    (
        release.responses,
        release.invitations.as_ref().map_or(0, |i| i.redemptions),
    )
}

#[cfg(test)]
mod tests {
    use super::invitation_release_due;

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
}
