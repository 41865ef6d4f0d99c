//! What the workspace's live pages (results, present mode) show: the tallies released in
//! steps of at least `min_cell` responses, never fewer than `min_cell` in all, so that a room
//! watching a projector cannot tie a change on the screen to the person who just answered.
//! Closing a survey releases everything. The owner's JSON API and exports are not stepped.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::db::queries::QuestionTally;
use crate::domain::{Survey, SurveyId, SurveyStatus};

/// Held in memory by the server (a restart releases at once what is there).
#[derive(Default)]
pub struct LiveReleases {
    released: Mutex<HashMap<SurveyId, Release>>,
}

#[derive(Clone)]
struct Release {
    responses: u64,
    tallies: Vec<QuestionTally>,
}

/// The responses a set of tallies counts: the most of any question (each response
/// answers every required question).
pub fn responses_counted(tallies: &[QuestionTally]) -> u64 {
    let mut per_question: HashMap<i64, u64> = HashMap::new();
    for tally in tallies {
        *per_question.entry(tally.question_id.get()).or_default() += tally.tally.n();
    }
    per_question.into_values().max().unwrap_or(0)
}

impl LiveReleases {
    /// The tallies to show for `survey` now, given its current ones.
    pub fn visible(&self, survey: &Survey, current: Vec<QuestionTally>) -> Vec<QuestionTally> {
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
                    tallies: current.clone(),
                },
            );
            return current;
        }
        previous.map(|release| release.tallies).unwrap_or_default()
    }

    /// A deleted survey's release goes with it.
    pub fn forget(&self, survey: SurveyId) {
        self.released
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&survey);
    }
}
