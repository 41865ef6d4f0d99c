//! An owner's surveys over the API: create a draft, open, close, unblind, delete. A survey
//! that does not exist and one that belongs to someone else look the same (404): the owner
//! check is part of every query.

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Serialize;

use super::docs::{SlugPath, CSRF_REFUSED, UNAUTHORIZED};
use crate::db::Database;
use crate::domain::{Survey, SurveyDefinition, SurveyDefinitionInput};
use crate::error::{AppError, ErrorBody};
use crate::http::extract::Owner;
use crate::http::public_definition::{public_questions, PublicQuestion};
use crate::services::surveys;

/// An owned survey.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Survey)]
struct SurveyBody {
    /// The survey's name in every URL.
    #[schema(examples("exam-honesty-3f9a1c2e"))]
    slug: String,
    #[schema(value_type = SurveyStatusName)]
    status: &'static str,
    title: String,
    description: String,
    planned_respondents: u64,
    requires_invitation: bool,
    /// `YYYY-MM-DD`: everything of the survey is deleted once that UTC day is over.
    #[schema(format = Date)]
    delete_after: Option<String>,
    /// The fewest responses (and new responses) the live pages show at a time, and the
    /// smallest group a breakdown shows (k-anonymity).
    min_cell: u32,
    /// Fixed in advance: the survey closes once it holds this many responses.
    target_responses: Option<u64>,
    /// Fixed in advance: the survey closes at this UTC instant (RFC 3339).
    #[schema(format = DateTime)]
    closes_at: Option<String>,
    /// When unblinded early: the responses it had then (recorded for good).
    unblinded_at_responses: Option<u64>,
    /// Where respondents answer (a path on this server).
    #[schema(examples("/s/exam-honesty-3f9a1c2e"))]
    link: String,
    /// Who runs the survey, as the form shows it (empty when not given).
    researcher: String,
    /// How respondents reach the researcher: an e-mail or web address (empty when none).
    contact: String,
    /// The information-and-consent statement respondents confirm, if any.
    consent: Option<String>,
    /// The language of the form's own words.
    #[schema(value_type = crate::domain::SurveyLanguage)]
    language: &'static str,
    questions: Vec<PublicQuestion>,
}

/// A survey's status: `draft` (being edited; 404 to respondents), `open` (collecting; ε
/// frozen) or `closed` (for good).
#[derive(utoipa::ToSchema)]
#[schema(as = SurveyStatus, rename_all = "lowercase")]
#[allow(dead_code)] // a schema only: the status is written by `SurveyStatus::as_str`
enum SurveyStatusName {
    Draft,
    Open,
    Closed,
}

impl From<Survey> for SurveyBody {
    fn from(survey: Survey) -> Self {
        Self {
            link: format!("/s/{}", survey.slug),
            questions: public_questions(&survey),
            researcher: survey.intro.researcher().to_owned(),
            contact: survey.intro.contact_text().to_owned(),
            consent: survey.intro.consent().map(str::to_owned),
            language: survey.intro.language().as_str(),
            slug: survey.slug.to_string(),
            status: survey.status.as_str(),
            title: survey.title,
            description: survey.description,
            planned_respondents: survey.planned_respondents,
            requires_invitation: survey.requires_invitation,
            delete_after: survey
                .delete_after
                .as_ref()
                .map(|date| date.as_str().to_owned()),
            min_cell: survey.min_cell.get(),
            target_responses: survey.stopping_rule.target_responses(),
            closes_at: survey.stopping_rule.closes_at().map(|at| at.to_string()),
            unblinded_at_responses: survey.unblinded_at,
        }
    }
}

/// DELETE /api/surveys/{slug}: deletes an owned survey, whatever its status, with all its
/// responses and invitations (as ethics boards require once a study ends). They are gone
/// from every file, rebuilt by a compaction epoch, before the 204.
#[utoipa::path(
    delete,
    path = "/api/surveys/{slug}",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted, and gone from every file."),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
    )
)]
pub async fn delete_survey(
    owner: Owner,
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = crate::domain::Slug::parse(&slug)?;
    surveys::delete(&db, slug, owner.researcher()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// POST /api/surveys: creates a draft from a JSON definition.
#[utoipa::path(
    post,
    path = "/api/surveys",
    tag = "owner",
    security(("bearer" = [])),
    request_body(content = SurveyDefinitionInput, description = "The definition (at most \
        512 KiB), as `deniable survey create --file` takes it."),
    responses(
        (status = 201, description = "The draft.", body = SurveyBody,
            headers(("Location" = String, description = "`/api/surveys/{slug}`: the survey's \
                resource (its GET, the public definition, is a 404 until the survey opens)."))),
        (status = 400, description = "`invalid_json`, `invalid_text`, `invalid_questions`, \
            `invalid_epsilon`, `invalid_planned_respondents`, `invalid_delete_after`, \
            `invalid_min_cell`, `invalid_contact` (neither an e-mail nor an http(s) address), \
            `invalid_language` (not en, de, fr or es), `invalid_completion_url` (not https, a \
            placeholder in its host or path, `{invitation}` or `{key}`, over 2 000 \
            characters) or `invalid_embed_origins` (more than 10, a wildcard, not an origin, \
            http on a host other than loopback), each with the reason.", body = ErrorBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
    )
)]
pub async fn create_survey(
    db: web::Data<Database>,
    owner: Owner,
    body: web::Json<SurveyDefinitionInput>,
) -> Result<HttpResponse, AppError> {
    let definition = SurveyDefinition::parse(body.into_inner())?;
    let survey = surveys::create_draft(&db, owner.researcher(), definition).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/surveys/{}", survey.slug)))
        .json(SurveyBody::from(survey)))
}

/// POST /api/surveys/{slug}/open: starts collection; ε can no longer change.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/open",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The survey, now open.", body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`invalid_status_change`: only a draft can open; \
            `closes_at_passed`: its closing time has passed.", body = ErrorBody),
    )
)]
pub async fn open(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    let survey = surveys::open(&db, &slug, owner.researcher()).await?;
    Ok(HttpResponse::Ok().json(SurveyBody::from(survey)))
}

/// POST /api/surveys/{slug}/close: stops collection for good.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/close",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The survey, now closed.", body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`invalid_status_change`: only an open survey can \
            close.", body = ErrorBody),
    )
)]
pub async fn close(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    let survey = surveys::close(&db, &slug, owner.researcher()).await?;
    Ok(HttpResponse::Ok().json(SurveyBody::from(survey)))
}

/// POST /api/surveys/{slug}/unblind: shows an open survey's estimates before its stopping
/// rule closes it.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/unblind",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Unblinded, recorded for good (again: unchanged). The \
            results then show every figure, and the anytime interval is primary for good.",
            body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`not_blinded` (watched live, or closed) or `not_open` \
            (a draft).", body = ErrorBody),
    )
)]
pub async fn unblind(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    let survey = surveys::unblind(&db, &slug, owner.researcher()).await?;
    Ok(HttpResponse::Ok().json(SurveyBody::from(survey)))
}
