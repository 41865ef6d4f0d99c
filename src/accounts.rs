//! Researchers, API tokens and survey creation: shared by the CLI, the API and the tests.

use crate::crypto::PasswordHash;
use crate::db::{queries, Database};
use crate::domain::{ApiToken, Email, Password, Slug, Survey, SurveyDefinition, SurveyStatus};
use crate::error::AppError;

pub async fn add_researcher(
    db: &Database,
    email: Email,
    password: Password,
) -> Result<(), AppError> {
    // PBKDF2 is deliberately slow: derive it before taking the writer's time.
    let hash = tokio::task::spawn_blocking(move || PasswordHash::derive(password.expose()))
        .await
        .map_err(AppError::internal)??;
    db.write(move |connection| queries::insert_researcher(connection, &email, &hash))
        .await
}

/// Creates a new API token for a researcher; the token is returned once, only its hash kept.
pub async fn create_token(db: &Database, email: Email) -> Result<ApiToken, AppError> {
    let token = ApiToken::generate()?;
    let hash = token.hash();
    db.write(move |connection| queries::insert_token(connection, &email, &hash))
        .await?;
    Ok(token)
}

/// Creates a draft survey owned by the researcher with this e-mail.
pub async fn create_survey(
    db: &Database,
    owner: Email,
    definition: SurveyDefinition,
) -> Result<Survey, AppError> {
    let slug = Slug::generate(definition.title())?;
    db.write(move |connection| {
        let owner_id =
            queries::researcher_id(connection, &owner)?.ok_or(AppError::NotFound("researcher"))?;
        queries::insert_survey(
            connection,
            owner_id,
            &slug,
            &definition,
            SurveyStatus::Draft,
        )?;
        queries::find_survey(connection, &slug)?
            .ok_or_else(|| AppError::internal("a survey vanished right after its creation"))
    })
    .await
}
