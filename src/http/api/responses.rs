//! What respondents' devices reach over the API: the public definition, submitting, and
//! looking up or withdrawing a response by its receipt. Their HTML pages (the form, the
//! receipt page) are in src/http/pages/.

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use super::docs::SlugPath;
use crate::db::responses::Stored;
use crate::db::Database;
use crate::domain::{
    Receipt, Slug, StoredGrouping, StoredReport, Submission, SubmissionInput, Survey, SurveyStatus,
};
use crate::error::{AppError, ErrorBody};
use crate::http::public_definition::{served, PublicDefinition};
use crate::http::rate_limit::SubmissionAllowed;
use crate::services::responses::{find_for_respondents, look_up_response};

/// GET /api/surveys/{slug}: the public definition with a fresh nonce.
#[utoipa::path(
    get,
    path = "/api/surveys/{slug}",
    tag = "respondent",
    params(SlugPath),
    responses(
        (status = 200, description = "The definition (`Cache-Control: no-store`: the nonce \
            is never reused).", body = PublicDefinition),
        (status = 404, description = "`not_found`: no such survey, or a draft.", body = ErrorBody),
    )
)]
pub async fn definition(
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let survey = find_for_respondents(&db, slug).await?;
    let body = served(&db, &survey).await?;
    // A cached nonce would be reused across submissions.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body))
}

/// A stored submission.
#[derive(Serialize, utoipa::ToSchema)]
struct StoredBody {
    /// Always `stored`.
    #[schema(examples("stored"))]
    status: &'static str,
    /// Hex SHA-256 of the response id: the response's name in exports.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    record_id: String,
    /// Only when the server drew the receipt (the device sent no response id): the
    /// respondent's secret (43 base64url characters), shown only now.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    receipt: Option<String>,
    /// Only when the survey has one: where the form's "Continue" leads, exactly as the
    /// researcher wrote it (the form fills its `{name}` placeholders from the link's
    /// fragment). Given only to a device whose response is stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_url: Option<String>,
}

/// POST /api/surveys/{slug}/responses: stores the reports; answers only after COMMIT.
///
/// Idempotent by `response_id` (invariant 9): the same body again is a 200, even once the
/// survey has closed; other reports under that id a 409; a withdrawn one a 410. Without a
/// `response_id` the server draws the receipt and returns it. The rate limit comes first,
/// so a refused client costs no parsing or database work.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/responses",
    tag = "respondent",
    params(SlugPath),
    request_body(content = SubmissionInput, description = "One response: a randomized \
        report per answered question (bodies of at most 16 KiB)."),
    responses(
        (status = 201, description = "Stored (after COMMIT).", body = StoredBody),
        (status = 200, description = "The same reports were already stored under this \
            `response_id` (a device's retry), even once the survey has closed.",
            body = StoredBody),
        (status = 400, description = "`invalid_json`, `unknown_question`, `invalid_report`, \
            `duplicate_answer`, `missing_answer`, `empty_submission`, \
            `invalid_response_id` or `invalid_token`.", body = ErrorBody),
        (status = 403, description = "`invitation_required` (the survey requires invitations \
            and the body has no `token`) or `token_invalid` (the survey's key did not issue \
            this token).", body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey, or a draft.", body = ErrorBody),
        (status = 409, description = "`survey_not_open` (closed), `response_id_conflict`: \
            other reports are stored under this `response_id`, or `token_spent`: the token \
            bought another response.", body = ErrorBody),
        (status = 410, description = "`response_withdrawn`: this response was withdrawn and \
            cannot be sent again.", body = ErrorBody),
        (status = 429, description = "`too_many_requests`: too many submissions from this \
            network address.", body = ErrorBody, headers(
            ("Retry-After" = u64, description = "Seconds to wait before trying again."))),
    )
)]
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
        .filter(|survey| survey.status != SurveyStatus::Draft)
        .ok_or(AppError::NotFound("survey"))?;
    let submission = Submission::parse(body.into_inner(), &survey)?;
    let token = db.check_token(&survey, &submission).await?;
    let (response_id, receipt) = match submission.response_id() {
        Some(response_id) => (response_id.clone(), None),
        None => {
            let receipt = Receipt::generate()?;
            (receipt.response_id(), Some(receipt))
        }
    };
    let stored = db
        .store_response(&survey, &response_id, submission, token)
        .await?;
    let body = StoredBody {
        status: "stored",
        record_id: response_id.record_id().to_hex(),
        receipt: receipt.map(|receipt| receipt.expose().to_owned()),
        completion_url: survey
            .completion_url
            .as_ref()
            .map(|link| link.as_str().to_owned()),
    };
    let mut response = match stored {
        Stored::Created => HttpResponse::Created(),
        Stored::AlreadyStored => HttpResponse::Ok(),
    };
    Ok(response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body))
}

/// `{"receipt": "..."}`: receipts travel in bodies, never in a URL (proxies log URLs).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReceiptRequest)]
pub struct ReceiptInput {
    /// The respondent's secret receipt: 43 base64url characters.
    #[schema(pattern = "^[A-Za-z0-9_-]{43}$")]
    receipt: String,
}

/// What the server holds of one response: everything stored of it.
#[derive(Serialize, utoipa::ToSchema)]
struct StoredResponseBody {
    /// The survey's slug.
    survey: String,
    #[schema(pattern = "^[0-9a-f]{64}$")]
    record_id: String,
    reports: Vec<StoredReportBody>,
    /// The answers to grouping questions, stored as given (not randomized).
    groupings: Vec<StoredGroupingBody>,
}

/// One grouping answer as stored.
#[derive(Serialize, utoipa::ToSchema)]
struct StoredGroupingBody {
    question_id: i64,
    /// The option's index, as in a submission's `answers`.
    #[schema(minimum = 0, maximum = 19)]
    answer: u8,
    /// The option's label.
    label: String,
}

impl StoredGroupingBody {
    fn of(stored: &StoredGrouping, survey: &Survey) -> Self {
        Self {
            question_id: stored.question_id.get(),
            answer: stored.answer,
            label: survey
                .groupings
                .iter()
                .find(|grouping| grouping.id == stored.question_id)
                .map_or_else(
                    || format!("option {}", stored.answer),
                    |grouping| grouping.label(stored.answer),
                ),
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
struct StoredReportBody {
    question_id: i64,
    epsilon: f64,
    truth_probability: f64,
    /// The randomized report, as in a submission's `answers`.
    #[schema(minimum = 0, maximum = 19)]
    report: u8,
}

impl StoredReportBody {
    fn of(stored: &StoredReport, survey: &Survey) -> Self {
        let question = survey.questions.iter().find(|q| q.id == stored.question_id);
        Self {
            question_id: stored.question_id.get(),
            epsilon: stored.level.epsilon(),
            truth_probability: question.map_or_else(
                || stored.level.truth_probability(),
                |question| question.design.truth_probability(),
            ),
            report: stored.report,
        }
    }
}

/// POST /api/surveys/{slug}/responses/lookup `{"receipt"}`: what the server holds of one's
/// response.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/responses/lookup",
    tag = "respondent",
    params(SlugPath),
    request_body = ReceiptInput,
    responses(
        (status = 200, description = "Everything stored of the response: its reports and \
            its grouping answers.", body = StoredResponseBody),
        (status = 400, description = "`invalid_json`.", body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey, or nothing is stored \
            under this receipt (withdrawn, never sent, or not a receipt).", body = ErrorBody),
    )
)]
pub async fn lookup_response(
    db: web::Data<Database>,
    slug: web::Path<String>,
    body: web::Json<ReceiptInput>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let record_id = Receipt::parse(&body.receipt)?.response_id().record_id();
    let survey = find_for_respondents(&db, slug.clone()).await?;
    let (reports, groupings) = look_up_response(&db, slug.clone(), record_id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(StoredResponseBody {
            survey: slug.to_string(),
            record_id: record_id.to_hex(),
            reports: reports
                .iter()
                .map(|stored| StoredReportBody::of(stored, &survey))
                .collect(),
            groupings: groupings
                .iter()
                .map(|stored| StoredGroupingBody::of(stored, &survey))
                .collect(),
        }))
}

/// POST /api/surveys/{slug}/responses/withdraw `{"receipt"}`: withdraws one's response.
///
/// Once answered, the reports are gone from every file of the database.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/responses/withdraw",
    tag = "respondent",
    params(SlugPath),
    request_body = ReceiptInput,
    responses(
        (status = 204, description = "Withdrawn."),
        (status = 400, description = "`invalid_json`.", body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey, or nothing is stored \
            under this receipt.", body = ErrorBody),
    )
)]
pub async fn withdraw_response(
    db: web::Data<Database>,
    slug: web::Path<String>,
    body: web::Json<ReceiptInput>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let receipt = Receipt::parse(&body.receipt)?;
    db.withdraw_response(slug, &receipt).await?;
    Ok(HttpResponse::NoContent().finish())
}
