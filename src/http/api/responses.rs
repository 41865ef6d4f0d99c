//! What respondents reach: the form, the public definition, submitting, and their receipt.

use std::fmt;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use askama::Template;
use serde::{Deserialize, Serialize};

use super::openapi::SlugPath;
use super::public_definition::{served, PublicDefinition};
use super::rate_limit::SubmissionAllowed;
use crate::db::responses::{Stored, StoredAnswers};
use crate::db::Database;
use crate::domain::{
    Language, Receipt, RecordId, Slug, StoredGrouping, StoredReport, Submission, SubmissionInput,
    Survey, SurveyStatus,
};
use crate::error::{AppError, ErrorBody};
use crate::explain::report_label;
use crate::i18n::{catalog, escape, Catalog};

// The form page lives in its own file; its route keeps the respondent's name.
pub(super) use super::survey_form::{__path_form, form, preview_html};

/// A survey as respondents may see it: drafts are nobody's business but their owner's
/// (who previews them from the workspace).
pub(super) async fn find_survey(db: &Database, slug: Slug) -> Result<Survey, AppError> {
    db.find_survey_for_respondents(slug)
        .await?
        .ok_or(AppError::NotFound("survey"))
}

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
    let survey = find_survey(&db, slug).await?;
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

/// The stored reports and grouping answers a receipt names: a 404 when there are none.
async fn look_up(
    db: &Database,
    slug: Slug,
    record_id: RecordId,
) -> Result<StoredAnswers, AppError> {
    db.look_up_response(slug, record_id)
        .await?
        .ok_or(AppError::NotFound("response"))
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
    let survey = find_survey(&db, slug.clone()).await?;
    let (reports, groupings) = look_up(&db, slug.clone(), record_id).await?;
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

#[derive(Template)]
#[template(path = "receipt.html")]
struct ReceiptPage {
    t: &'static Catalog,
    slug: String,
    title: String,
    outcome: ReceiptOutcome,
    /// The scripts' messages (JSON), for `data-messages`.
    messages: String,
}

enum ReceiptOutcome {
    Ask,
    Found {
        /// "Your row in the researchers' export is named <code>…</code>" (HTML).
        record: String,
        reports: Vec<ReceiptReport>,
    },
    /// The second step of a withdrawal: nothing is withdrawn until the respondent confirms.
    ConfirmWithdrawal {
        /// The receipt just posted, posted again by the confirmation's button (the page is
        /// `no-store`; the receipt never goes in an address).
        receipt: String,
    },
    Withdrawn,
    NotFound,
}

impl ReceiptOutcome {
    /// The confirmation step replaces the page's form with its own.
    fn asks_confirmation(&self) -> bool {
        matches!(self, Self::ConfirmWithdrawal { .. })
    }
}

struct ReceiptReport {
    /// "1. Question — report: <strong>Yes</strong>" (HTML).
    line: String,
}

impl ReceiptPage {
    fn render_with(
        survey: &Survey,
        outcome: ReceiptOutcome,
    ) -> Result<HttpResponse, RespondentPageError> {
        let t = catalog(survey.intro.language());
        let page = Self {
            t,
            slug: survey.slug.to_string(),
            title: survey.title.clone(),
            outcome,
            messages: t.script_messages(),
        };
        let html = page.render().map_err(|error| RespondentPageError {
            error: error.into(),
            language: t.language(),
        })?;
        Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .content_type("text/html; charset=utf-8")
            .body(html))
    }
}

/// GET /s/{slug}/receipt: paste a receipt to view or withdraw one's response.
#[utoipa::path(
    get,
    path = "/s/{slug}/receipt",
    tag = "respondent",
    params(SlugPath),
    responses(
        (status = 200, description = "The receipt page.", body = String,
            content_type = "text/html; charset=utf-8"),
        (status = 404, description = "No such survey, or a draft: an HTML page in the form's \
            style.", body = String, content_type = "text/html; charset=utf-8"),
    )
)]
pub async fn receipt_page(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, RespondentPageError> {
    let survey = find_survey_page(&request, &db, &slug).await?;
    ReceiptPage::render_with(&survey, ReceiptOutcome::Ask)
}

/// The receipt page's form.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ReceiptForm {
    /// The receipt (anything else is reported as "nothing stored").
    receipt: String,
    #[schema(value_type = ReceiptAction)]
    action: String,
}

/// What the receipt page's form asks for: `withdraw` only asks to confirm, and
/// `confirm-withdraw` withdraws (a withdrawal cannot be undone, so it takes two steps).
#[derive(utoipa::ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[schema(rename_all = "kebab-case")]
enum ReceiptAction {
    View,
    Withdraw,
    ConfirmWithdraw,
}

impl ReceiptAction {
    fn parse(text: &str) -> Result<Self, AppError> {
        match text {
            "view" => Ok(Self::View),
            "withdraw" => Ok(Self::Withdraw),
            "confirm-withdraw" => Ok(Self::ConfirmWithdraw),
            _ => Err(AppError::invalid(
                "invalid_action",
                "action must be view, withdraw or confirm-withdraw",
            )),
        }
    }
}

/// POST /s/{slug}/receipt: the page's form (works without JavaScript). No CSRF token: the
/// receipt itself is the credential, and a forged request would have to know it.
#[utoipa::path(
    post,
    path = "/s/{slug}/receipt",
    tag = "respondent",
    params(SlugPath),
    request_body(content = ReceiptForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The page with the stored reports, the question \
            whether to withdraw them (`withdraw`), the withdrawal done (`confirm-withdraw`), \
            or \"nothing is stored under this receipt\".", body = String,
            content_type = "text/html; charset=utf-8"),
        (status = 400, description = "`invalid_form` (a field is missing) or \
            `invalid_action`.", body = ErrorBody),
        (status = 404, description = "No such survey, or a draft: an HTML page in the form's \
            style.", body = String, content_type = "text/html; charset=utf-8"),
    )
)]
pub async fn receipt_action(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
    form: web::Form<ReceiptForm>,
) -> Result<HttpResponse, RespondentPageError> {
    let survey = find_survey_page(&request, &db, &slug).await?;
    let language = survey.intro.language();
    let on_page = |error: AppError| RespondentPageError { error, language };
    let slug = survey.slug.clone();
    // The action is checked first: a bad one is a 400 whatever the receipt.
    let action = ReceiptAction::parse(&form.action).map_err(on_page)?;
    let Ok(receipt) = Receipt::parse(&form.receipt) else {
        return ReceiptPage::render_with(&survey, ReceiptOutcome::NotFound);
    };
    let record_id = receipt.response_id().record_id();
    let outcome = match action {
        ReceiptAction::ConfirmWithdraw => match db.withdraw_response(slug, &receipt).await {
            Ok(()) => ReceiptOutcome::Withdrawn,
            Err(AppError::NotFound(_)) => ReceiptOutcome::NotFound,
            Err(other) => return Err(on_page(other)),
        },
        // Asked only about a response that is there to withdraw.
        ReceiptAction::Withdraw => match look_up(&db, slug, record_id).await {
            Ok(_) => ReceiptOutcome::ConfirmWithdrawal {
                receipt: receipt.expose().to_owned(),
            },
            Err(AppError::NotFound(_)) => ReceiptOutcome::NotFound,
            Err(other) => return Err(on_page(other)),
        },
        ReceiptAction::View => match look_up(&db, slug, record_id).await {
            Ok((reports, groupings)) => found(&survey, record_id, &reports, &groupings),
            Err(AppError::NotFound(_)) => ReceiptOutcome::NotFound,
            Err(other) => return Err(on_page(other)),
        },
    };
    ReceiptPage::render_with(&survey, outcome)
}

/// Everything stored of a receipt's response, in the survey's words and question order: the
/// reports, and the grouping answers marked as sent as given.
fn found(
    survey: &Survey,
    record_id: RecordId,
    reports: &[StoredReport],
    groupings: &[StoredGrouping],
) -> ReceiptOutcome {
    let t = catalog(survey.intro.language());
    let grouping_lines = groupings.iter().filter_map(|stored| {
        let grouping = survey
            .groupings
            .iter()
            .find(|grouping| grouping.id == stored.question_id)?;
        Some((
            grouping.position,
            ReceiptReport {
                line: t.markup(
                    "found-grouping",
                    &[
                        ("number", (grouping.position + 1).to_string()),
                        ("question", escape(&grouping.text)),
                        (
                            "answer",
                            format!(
                                "<strong>{}</strong>",
                                escape(&grouping.label(stored.answer))
                            ),
                        ),
                    ],
                ),
            },
        ))
    });
    ReceiptOutcome::Found {
        record: t.markup(
            "found-record",
            &[(
                "record",
                format!("<code id=\"record-id\">{}</code>", record_id.to_hex()),
            )],
        ),
        reports: {
            let mut lines: Vec<(u32, ReceiptReport)> = reports
                .iter()
                .filter_map(|stored| {
                    let question = survey
                        .questions
                        .iter()
                        .find(|question| question.id == stored.question_id)?;
                    let report = report_label(&question.design, stored.report, t);
                    Some((
                        question.position,
                        ReceiptReport {
                            line: t.markup(
                                "found-report",
                                &[
                                    ("number", (question.position + 1).to_string()),
                                    ("question", escape(&question.text)),
                                    ("report", format!("<strong>{}</strong>", escape(&report))),
                                ],
                            ),
                        },
                    ))
                })
                .chain(grouping_lines)
                .collect();
            lines.sort_by_key(|(position, _)| *position);
            lines.into_iter().map(|(_, line)| line).collect()
        },
    }
}

// --- the respondents' error pages -----------------------------------------------------------

/// A survey for a respondent's page: an unknown survey and a draft are the same HTML 404, in
/// the language the browser prefers (no survey sets one).
pub(super) async fn find_survey_page(
    request: &HttpRequest,
    db: &Database,
    slug: &str,
) -> Result<Survey, RespondentPageError> {
    let on_page = |error| RespondentPageError {
        error,
        language: browser_language(request),
    };
    let slug = Slug::parse(slug).map_err(on_page)?;
    find_survey(db, slug).await.map_err(on_page)
}

/// The language the browser prefers among the form's, from `Accept-Language`.
fn browser_language(request: &HttpRequest) -> Language {
    request
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .map_or(Language::En, Language::preferred_by)
}

/// An error on a page respondents reach (`/s/…`): "survey not found" (404) and failures
/// (5xx) are HTML pages in the form's style and language; anything else (a crafted form's
/// 400) stays the JSON error of the API.
#[derive(Debug)]
pub struct RespondentPageError {
    pub(super) error: AppError,
    pub(super) language: Language,
}

impl fmt::Display for RespondentPageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

#[derive(Template)]
#[template(path = "respondent_error.html")]
struct ErrorPage {
    t: &'static Catalog,
    not_found: bool,
    status: u16,
    /// The error's code, for scripts and tests (`data-error-code`).
    code: &'static str,
}

impl ResponseError for RespondentPageError {
    fn status_code(&self) -> StatusCode {
        self.error.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let not_found = matches!(self.error, AppError::NotFound(_));
        if !not_found && !status.is_server_error() {
            return self.error.error_response();
        }
        if let AppError::Internal(cause) = &self.error {
            tracing::error!(%cause, "a respondent's page failed");
        }
        let page = ErrorPage {
            t: catalog(self.language),
            not_found,
            status: status.as_u16(),
            code: if not_found { "not_found" } else { "internal" },
        };
        match page.render() {
            Ok(html) => HttpResponse::build(status)
                .insert_header((header::CACHE_CONTROL, "no-store"))
                // Without a survey, the page's language came from `Accept-Language`.
                .insert_header((header::VARY, "Accept-Language"))
                .content_type("text/html; charset=utf-8")
                .body(html),
            Err(error) => {
                tracing::error!(%error, "the respondent's error page failed to render");
                self.error.error_response()
            }
        }
    }
}

/// Any other address under `/s/`: the respondents' "survey not found" page.
pub(super) fn unknown_page(request: &HttpRequest) -> HttpResponse {
    RespondentPageError {
        error: AppError::NotFound("page"),
        language: browser_language(request),
    }
    .error_response()
}
