//! What the workspace's live pages (results, present mode) show: the counts released in
//! steps of at least `min_cell` responses, never fewer than `min_cell` in all, so that a room
//! watching a projector cannot tie a change on the screen to the person who just answered.
//! Closing a survey releases everything. The owner's JSON API and exports are not stepped.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::db::queries::QuestionCounts;
use crate::domain::{Survey, SurveyId, SurveyStatus};

/// Held in memory by the server (a restart releases at once what is there).
#[derive(Default)]
pub struct LiveReleases {
    released: Mutex<HashMap<SurveyId, Release>>,
}

#[derive(Clone)]
struct Release {
    responses: u64,
    counts: Vec<QuestionCounts>,
}

/// The responses a set of counts covers: the most of any question (each response answers
/// every question).
pub fn responses_counted(counts: &[QuestionCounts]) -> u64 {
    counts.iter().map(QuestionCounts::total).max().unwrap_or(0)
}

impl LiveReleases {
    /// The counts to show for `survey` now, given its current ones.
    pub fn visible(&self, survey: &Survey, current: Vec<QuestionCounts>) -> Vec<QuestionCounts> {
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
                },
            );
            return current;
        }
        previous.map(|release| release.counts).unwrap_or_default()
    }

    /// A deleted survey's release goes with it.
    pub fn forget(&self, survey: SurveyId) {
        self.released
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&survey);
    }
}
