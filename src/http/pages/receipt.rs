//! The receipt page respondents reach from the form (`/s/{slug}/receipt`): paste a receipt
//! to view the stored reports or withdraw them; works without JavaScript.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::respondent_error::{find_survey_page, RespondentPageError};
use crate::db::Database;
use crate::domain::{Receipt, RecordId, StoredGrouping, StoredReport, Survey};
use crate::error::{AppError, ErrorBody};
use crate::explain::report_label;
use crate::http::api::docs::SlugPath;
use crate::i18n::{catalog, escape, Catalog};
use crate::services::responses::look_up_response;
use crate::services::ServiceError;

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
        ReceiptAction::Withdraw => match look_up_response(&db, slug, record_id).await {
            Ok(_) => ReceiptOutcome::ConfirmWithdrawal {
                receipt: receipt.expose().to_owned(),
            },
            Err(ServiceError::NotFound(_)) => ReceiptOutcome::NotFound,
            Err(other) => return Err(on_page(other.into())),
        },
        ReceiptAction::View => match look_up_response(&db, slug, record_id).await {
            Ok((reports, groupings)) => found(&survey, record_id, &reports, &groupings),
            Err(ServiceError::NotFound(_)) => ReceiptOutcome::NotFound,
            Err(other) => return Err(on_page(other.into())),
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
