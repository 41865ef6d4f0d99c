//! A survey's life cycle for its owner: found with its owner inside the query (someone
//! else's survey is a 404, like one that does not exist), created, opened, closed,
//! unblinded, deleted. The API and the pages call the same functions.

use super::ServiceError;
use crate::db::Database;
use crate::domain::{Email, ResearcherId, Slug, Survey, SurveyDefinition, SurveyStatus};

/// The owner's survey named by `slug` as a path gives it.
pub async fn find_owned(
    db: &Database,
    slug: &str,
    owner: ResearcherId,
) -> Result<Survey, ServiceError> {
    Ok(db.owned_survey(Slug::parse(slug)?, owner).await?)
}

/// A new draft under a slug drawn from its title.
pub async fn create_draft(
    db: &Database,
    owner: ResearcherId,
    definition: SurveyDefinition,
) -> Result<Survey, ServiceError> {
    let slug = Slug::generate(definition.title())?;
    Ok(db.create_draft(owner, slug, definition).await?)
}

/// Moves an owned survey from `from` to `to` (409 from any other status); closing erases
/// its private key before the answer.
pub async fn change_status(
    db: &Database,
    slug: &str,
    owner: ResearcherId,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Result<Survey, ServiceError> {
    Ok(db
        .change_status(Slug::parse(slug)?, owner, from, to)
        .await?)
}

/// A draft starts collecting; ε can no longer change.
pub async fn open(db: &Database, slug: &str, owner: ResearcherId) -> Result<Survey, ServiceError> {
    change_status(db, slug, owner, SurveyStatus::Draft, SurveyStatus::Open).await
}

/// An open survey stops collecting for good.
pub async fn close(db: &Database, slug: &str, owner: ResearcherId) -> Result<Survey, ServiceError> {
    change_status(db, slug, owner, SurveyStatus::Open, SurveyStatus::Closed).await
}

/// An open survey fixed in advance shows its estimates before its stopping rule closes it;
/// recorded for good.
pub async fn unblind(
    db: &Database,
    slug: &str,
    owner: ResearcherId,
) -> Result<Survey, ServiceError> {
    Ok(db.unblind(Slug::parse(slug)?, owner).await?)
}

/// Deletes an owned survey of any status with all its responses and invitations, gone from
/// every file before this returns.
pub async fn delete(db: &Database, slug: Slug, owner: ResearcherId) -> Result<(), ServiceError> {
    db.delete_survey(slug, owner).await?;
    Ok(())
}

/// A new draft owned by the researcher with this e-mail (`deniable survey create`).
pub async fn create_draft_for(
    db: &Database,
    owner: Email,
    definition: SurveyDefinition,
) -> Result<Survey, ServiceError> {
    let owner = db
        .researcher_by_email(owner)
        .await?
        .ok_or(ServiceError::NotFound("researcher"))?;
    create_draft(db, owner, definition).await
}

/// Moves a survey from `from` to `to` for whoever runs the command line (it can write the
/// database file, so it acts for the owner): `deniable survey open` and `close`. A running
/// server reads surveys from the file on every request, so it shows the change at once.
pub async fn change_status_as_operator(
    db: &Database,
    slug: Slug,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Result<Survey, ServiceError> {
    // Closing erases the survey's private key: gone from the WAL too before the answer,
    // as on the API and the workspace's button.
    Ok(db.change_status_as_owner(slug, from, to).await?)
}
