//! What an owner may see of a survey's reports, and when: results (every response's, or the
//! released ones; docs/design.md, invariant 11), breakdowns, cross-tabulations, and the
//! refusals while a survey is blinded or withholds its results until it closes.

use super::ServiceError;
use crate::breakdown::{self, Breakdown};
use crate::db::{responses, Database};
use crate::domain::{ResearcherId, Slug, Survey};
use crate::joint;
use crate::live::Releases;
use crate::results::{self, Asked, SurveyResults};

/// An owned survey and its results, for the API: every response's, or for a survey with
/// grouping questions or invitations its released responses' (docs/design.md, invariant
/// 11).
pub async fn owned_results(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    asked: Asked,
) -> Result<(Survey, SurveyResults), ServiceError> {
    owned_counted(db, releases, slug, researcher, asked, Counting::Every).await
}

/// [`owned_results`] as the live pages show them: released responses for a survey with
/// grouping questions or invitations (as the API), steps of `min_cell` for the others.
pub async fn owned_live_results(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    asked: Asked,
) -> Result<(Survey, SurveyResults), ServiceError> {
    owned_counted(db, releases, slug, researcher, asked, Counting::LiveSteps).await
}

/// What the figures of a survey without grouping questions or invitations count.
enum Counting {
    /// Every stored response (the API).
    Every,
    /// The live pages' steps of `min_cell` responses.
    LiveSteps,
}

async fn owned_counted(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    asked: Asked,
    counting: Counting,
) -> Result<(Survey, SurveyResults), ServiceError> {
    let (survey, tallies) = db
        .owned_survey_with_counts(Slug::parse(slug)?, researcher)
        .await?;
    if survey.shows_released_only() {
        let released = releases.released(db, &survey).await?;
        let computed = results::compute_released(&survey, &released, asked)?;
        return Ok((survey, computed));
    }
    let counted = match counting {
        Counting::Every => tallies,
        Counting::LiveSteps => releases.live_counts(db, &survey, tallies).await?,
    };
    let computed = results::compute_asked(&survey, &counted, asked)?;
    Ok((survey, computed))
}

/// 409 `results_after_close`: a survey defined with `results_after_close` shows nothing
/// computed from its reports until it closes.
pub fn refuse_until_close(survey: &Survey, what: &'static str) -> Result<(), ServiceError> {
    if survey.results_withheld_until_close() {
        return Err(ServiceError::ResultsAfterClose { what });
    }
    Ok(())
}

/// 409 `blinded`: a survey fixed in advance shows nothing computed from its reports while
/// it is open (docs/design.md, "Which interval is primary").
pub fn refuse_while_blinded(survey: &Survey, what: &'static str) -> Result<(), ServiceError> {
    if survey.is_blinded() {
        return Err(ServiceError::Blinded { what });
    }
    Ok(())
}

/// The responses a read of an owned survey covers: its released ones for a survey with
/// grouping questions or invitations, every stored one otherwise.
pub fn covering(survey: &Survey) -> responses::Covering {
    if survey.shows_released_only() {
        responses::Covering::Released
    } else {
        responses::Covering::Stored
    }
}

/// An owned survey's cross-tabulation of two of its questions (`?joint=q1,q2`); of a survey
/// with grouping questions or invitations, of its released responses only.
pub async fn owned_joint(
    db: &Database,
    slug: &str,
    researcher: ResearcherId,
    pair: &str,
    confidence: Option<f64>,
) -> Result<joint::JointResults, ServiceError> {
    let confidence = results::parse_confidence(confidence)?;
    let (first, second) = joint::parse_pair(pair)?;
    let slug = Slug::parse(slug)?;
    let survey = db.owned_survey(slug, researcher).await?;
    refuse_while_blinded(&survey, "a cross-tabulation")?;
    refuse_until_close(&survey, "a cross-tabulation")?;
    let (one, two) = joint::questions(&survey, first, second)?;
    let (survey_id, ids, covering) = (survey.id, (one.id, two.id), covering(&survey));
    let sizes = (one.design.reports(), two.design.reports());
    let table = db.report_pairs(survey_id, ids, sizes, covering).await?;
    Ok(joint::compute(&survey, &one, &two, &table, confidence)?)
}

/// An owned survey's breakdown by one of its grouping questions, from its released cells
/// (the API and the workspace alike).
pub async fn owned_breakdown(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    by: i64,
    confidence: Option<f64>,
) -> Result<Breakdown, ServiceError> {
    let confidence = results::parse_confidence(confidence)?;
    let slug = Slug::parse(slug)?;
    let survey = db.owned_survey(slug, researcher).await?;
    let grouping = survey
        .groupings
        .iter()
        .find(|grouping| grouping.id.get() == by)
        .cloned()
        .ok_or(ServiceError::NotAGroupingQuestion { id: by })?;
    let released = releases.released(db, &survey).await?;
    Ok(breakdown::compute(
        &survey, &grouping, &released, confidence,
    )?)
}
