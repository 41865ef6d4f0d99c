//! The surveys list and the new-survey form (a draft with its first question).

use actix_web::http::StatusCode;
use actix_web::web;
use askama::Template;
use serde::Deserialize;

use super::design::{DesignEditor, DesignForm};
use super::{html, see_other, Nav, Page};
use crate::db::queries::SurveySummary;
use crate::db::Database;
use crate::domain::{QuestionDefinition, SurveyDefinition, SurveyDetails, SurveyStatus};
use crate::error::AppError;
use crate::http::auth::Session;
use crate::http::extract::{CsrfForm, SignedIn};
use crate::services::surveys;

struct SurveyRow {
    slug: String,
    title: String,
    status: &'static str,
    responses: String,
    draft: bool,
}

impl From<SurveySummary> for SurveyRow {
    fn from(summary: SurveySummary) -> Self {
        Self {
            slug: summary.slug.to_string(),
            title: summary.title,
            status: summary.status.as_str(),
            responses: summary.responses.to_string(),
            draft: summary.status == SurveyStatus::Draft,
        }
    }
}

/// The new-survey form: empty, or as typed when it was refused.
struct NewSurvey {
    title: String,
    description: String,
    question: String,
    editor: DesignEditor,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "workspace/surveys.html")]
struct SurveysPage {
    nav: Option<Nav>,
    csrf: String,
    surveys: Vec<SurveyRow>,
    new_survey: NewSurvey,
}

async fn surveys_page(
    db: &Database,
    session: &Session,
    refused: Option<(&NewSurveyForm, AppError)>,
) -> Page {
    let surveys = db.owned_surveys(session.researcher).await?;
    let (new_survey, status) = match refused {
        None => (
            NewSurvey {
                title: String::new(),
                description: String::new(),
                question: String::new(),
                editor: DesignEditor::blank("first")?,
                error: None,
            },
            StatusCode::OK,
        ),
        Some((form, error)) => (
            NewSurvey {
                title: form.title.clone(),
                description: form.description.clone(),
                question: form.question.clone(),
                editor: DesignEditor::new("first".to_owned(), form.design.clone())?,
                error: Some(error.public_message()),
            },
            StatusCode::BAD_REQUEST,
        ),
    };
    let mut response = html(&SurveysPage {
        nav: Some(Nav::of(session)),
        csrf: session.csrf.as_str().to_owned(),
        surveys: surveys.into_iter().map(SurveyRow::from).collect(),
        new_survey,
    })?;
    *response.status_mut() = status;
    Ok(response)
}

/// GET /surveys
pub async fn surveys(db: web::Data<Database>, signed_in: SignedIn) -> Page {
    surveys_page(&db, &signed_in.0, None).await
}

#[derive(Deserialize)]
pub struct NewSurveyForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    /// The first question's text.
    #[serde(default)]
    question: String,
    #[serde(flatten)]
    design: DesignForm,
}

impl NewSurveyForm {
    fn parse(&self) -> Result<SurveyDefinition, AppError> {
        let details = SurveyDetails::parse(&self.title, &self.description, None)?;
        let design = self.design.to_fields("question")?;
        let question = QuestionDefinition::of("question", &self.question, &design)?;
        Ok(SurveyDefinition::of(details, vec![question], false))
    }
}

/// POST /surveys: a new draft with its first question; on to the builder. A refused form
/// comes back with its reason and everything typed.
pub async fn create_survey(
    db: web::Data<Database>,
    CsrfForm { session, form }: CsrfForm<NewSurveyForm>,
) -> Page {
    let definition = match form.parse() {
        Ok(definition) => definition,
        Err(error @ AppError::Invalid { .. }) => {
            return surveys_page(&db, &session, Some((&form, error))).await
        }
        Err(error) => return Err(error.into()),
    };
    let draft = surveys::create_draft(&db, session.researcher, definition).await?;
    Ok(see_other(&format!("/surveys/{}/edit", draft.slug)))
}
