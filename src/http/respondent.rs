//! What respondents reach: the form, the public definition, submitting, and their receipt.

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use askama::Template;
use randomized_response::posterior_after_yes;
use serde::Serialize;

use super::rate_limit::SubmissionAllowed;
use crate::db::{queries, Database};
use crate::domain::{
    Nonce, Receipt, ResponseId, Slug, StoredReport, Submission, SubmissionInput, Survey,
    SurveyStatus,
};
use crate::error::AppError;

/// The prior an observer is assumed to hold, for the plain-language explanation.
const EXPLAINED_PRIOR: f64 = 0.10;

async fn find_survey(db: &Database, slug: Slug) -> Result<Survey, AppError> {
    db.read(move |connection| queries::find_survey(connection, &slug))
        .await?
        .ok_or(AppError::NotFound("survey"))
}

#[derive(Template)]
#[template(path = "survey.html")]
struct SurveyPage {
    /// The owner's preview: a banner, and nothing can be sent.
    preview: bool,
    slug: String,
    title: String,
    description: String,
    status_note: Option<&'static str>,
    accepting: bool,
    total_epsilon: String,
    questions: Vec<QuestionView>,
}

struct QuestionView {
    id: i64,
    number: u32,
    text: String,
    required: bool,
    epsilon: String,
    truth_percent: String,
    prior_percent: String,
    posterior_after_yes_percent: String,
}

fn percent(fraction: f64) -> String {
    format!("{:.0}", fraction * 100.0)
}

impl SurveyPage {
    fn of(survey: Survey, preview: bool) -> Result<Self, AppError> {
        let questions = survey
            .questions
            .iter()
            .map(|question| {
                let posterior = posterior_after_yes(EXPLAINED_PRIOR, question.level)
                    .map_err(AppError::internal)?;
                Ok(QuestionView {
                    id: question.id.get(),
                    number: question.position + 1,
                    text: question.text.clone(),
                    required: question.required,
                    epsilon: format!("{:.2}", question.level.epsilon()),
                    truth_percent: percent(question.level.truth_probability()),
                    prior_percent: percent(EXPLAINED_PRIOR),
                    posterior_after_yes_percent: percent(posterior),
                })
            })
            .collect::<Result<Vec<_>, AppError>>()?;
        Ok(Self {
            preview,
            slug: survey.slug.to_string(),
            total_epsilon: format!("{:.2}", survey.total_epsilon()),
            status_note: match survey.status {
                SurveyStatus::Draft => Some("This survey is not open yet: nothing can be sent."),
                SurveyStatus::Open => None,
                SurveyStatus::Closed => Some("This survey is closed: nothing can be sent."),
            },
            accepting: !preview && survey.status == SurveyStatus::Open,
            title: survey.title,
            description: survey.description,
            questions,
        })
    }
}

/// GET /s/{slug}: the form.
pub async fn form(
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let survey = find_survey(&db, slug).await?;
    let html = SurveyPage::of(survey, false)?.render()?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(html))
}

/// The form exactly as respondents see it, with a preview banner and sending disabled.
pub(super) fn preview_html(survey: Survey) -> Result<String, AppError> {
    Ok(SurveyPage::of(survey, true)?.render()?)
}

#[derive(Serialize)]
struct PublicDefinition {
    slug: String,
    title: String,
    description: String,
    status: &'static str,
    /// The form then sends the code from its invitation link's fragment.
    requires_invitation: bool,
    total_epsilon: f64,
    /// 64 hex characters: the server's half of the seed, fresh for every request.
    nonce: String,
    questions: Vec<PublicQuestion>,
}

#[derive(Serialize)]
pub(super) struct PublicQuestion {
    id: i64,
    position: u32,
    text: String,
    epsilon: f64,
    truth_probability: f64,
    required: bool,
}

pub(super) fn public_questions(survey: &Survey) -> Vec<PublicQuestion> {
    survey
        .questions
        .iter()
        .map(|question| PublicQuestion {
            id: question.id.get(),
            position: question.position,
            text: question.text.clone(),
            epsilon: question.level.epsilon(),
            truth_probability: question.level.truth_probability(),
            required: question.required,
        })
        .collect()
}

/// GET /api/surveys/{slug}: the public definition with a fresh nonce.
pub async fn definition(
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let survey = find_survey(&db, slug).await?;
    let body = PublicDefinition {
        nonce: Nonce::generate()?.to_hex(),
        questions: public_questions(&survey),
        total_epsilon: survey.total_epsilon(),
        status: survey.status.as_str(),
        requires_invitation: survey.requires_invitation,
        slug: survey.slug.to_string(),
        title: survey.title,
        description: survey.description,
    };
    // A cached nonce would be reused across submissions.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body))
}

#[derive(Serialize)]
struct ReceiptBody {
    receipt: String,
}

/// POST /api/surveys/{slug}/responses: stores the reports; answers only after COMMIT.
/// The rate limit comes first, so a refused client costs no parsing or database work.
pub async fn submit(
    _: SubmissionAllowed,
    db: web::Data<Database>,
    slug: web::Path<String>,
    body: web::Json<SubmissionInput>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let survey = db
        .find_survey_for_submission(slug)
        .await?
        .ok_or(AppError::NotFound("survey"))?;
    if survey.status != SurveyStatus::Open {
        return Err(survey_not_open(survey.status));
    }
    let submission = Submission::parse(body.into_inner(), &survey)?;
    let receipt = Receipt::generate()?;
    let response_id = receipt.response_id();
    let survey_id = survey.id;
    db.write(move |connection| {
        queries::insert_response(connection, survey_id, &response_id, &submission)
    })
    .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(ReceiptBody {
            receipt: receipt.expose().to_owned(),
        }))
}

fn survey_not_open(status: SurveyStatus) -> AppError {
    AppError::conflict(
        "survey_not_open",
        format!(
            "this survey is {} and does not accept responses",
            status.as_str()
        ),
    )
}

#[derive(Serialize)]
struct StoredResponseBody {
    survey: String,
    response_id: String,
    reports: Vec<StoredReportBody>,
}

#[derive(Serialize)]
struct StoredReportBody {
    question_id: i64,
    epsilon: f64,
    truth_probability: f64,
    report: u8,
}

impl From<&StoredReport> for StoredReportBody {
    fn from(stored: &StoredReport) -> Self {
        Self {
            question_id: stored.question_id.get(),
            epsilon: stored.level.epsilon(),
            truth_probability: stored.level.truth_probability(),
            report: u8::from(stored.report),
        }
    }
}

/// The survey and the stored response id named by a receipt route; the receipt itself is
/// hashed at once and goes no further.
fn parse_receipt_path(path: web::Path<(String, String)>) -> Result<(Slug, ResponseId), AppError> {
    let (slug, receipt) = path.into_inner();
    Ok((Slug::parse(&slug)?, Receipt::parse(&receipt)?.response_id()))
}

/// GET /api/surveys/{slug}/responses/{receipt}: what the server holds of one's response.
pub async fn view_response(
    db: web::Data<Database>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AppError> {
    let (slug, response_id) = parse_receipt_path(path)?;
    let lookup = (slug.clone(), response_id.clone());
    let reports = db
        .read(move |connection| queries::find_response(connection, &lookup.0, &lookup.1))
        .await?
        .ok_or(AppError::NotFound("response"))?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(StoredResponseBody {
            survey: slug.to_string(),
            response_id: response_id.as_str().to_owned(),
            reports: reports.iter().map(Into::into).collect(),
        }))
}

/// DELETE /api/surveys/{slug}/responses/{receipt}: withdraws one's response.
pub async fn withdraw_response(
    db: web::Data<Database>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AppError> {
    let (slug, response_id) = parse_receipt_path(path)?;
    db.write(move |connection| queries::delete_response(connection, &slug, &response_id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
