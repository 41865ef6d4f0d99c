//! What an owner may see of a survey's reports, and when: results, breakdowns and
//! cross-tabulations, all from its released figures (`crate::db::released`; docs/design.md,
//! invariant 11), and the refusals while a survey is blinded or withholds its results until
//! it closes.

use super::ServiceError;
use crate::breakdown::{self, Breakdown};
use crate::db::Database;
use crate::domain::{ResearcherId, Slug, Survey};
use crate::joint;
use crate::results::{self, Asked, SurveyResults};

/// An owned survey and its results, from its released figures (the API and the pages alike).
pub async fn owned_results(
    db: &Database,
    slug: &str,
    researcher: ResearcherId,
    asked: Asked,
) -> Result<(Survey, SurveyResults), ServiceError> {
    let survey = db.owned_survey(Slug::parse(slug)?, researcher).await?;
    let released = db.released(&survey).await?;
    let computed = results::compute_released(&survey, &released, asked)?;
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

/// An owned survey's cross-tabulation of two of its questions (`?joint=q1,q2`), from its
/// released figures.
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
    let released = db.released(&survey).await?;
    Ok(joint::compute(&survey, &one, &two, &released, confidence)?)
}

/// An owned survey's breakdown by one of its grouping questions, from its released cells
/// (the API and the workspace alike).
pub async fn owned_breakdown(
    db: &Database,
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
    let released = db.released(&survey).await?;
    Ok(breakdown::compute(
        &survey, &grouping, &released, confidence,
    )?)
}
