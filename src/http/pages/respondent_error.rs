//! The respondents' error pages (`/s/…`): "survey not found" and failures as HTML in the
//! form's style and language.

use std::fmt;

use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use askama::Template;

use crate::db::Database;
use crate::domain::{Language, Slug, Survey};
use crate::error::AppError;
use crate::i18n::{catalog, Catalog};
use crate::services::responses::find_for_respondents;

/// A survey for a respondent's page: an unknown survey and a draft are the same HTML 404, in
/// the language the browser prefers (no survey sets one).
pub(crate) async fn find_survey_page(
    request: &HttpRequest,
    db: &Database,
    slug: &str,
) -> Result<Survey, RespondentPageError> {
    let on_page = |error| RespondentPageError {
        error,
        language: browser_language(request),
    };
    let slug = Slug::parse(slug).map_err(|error| on_page(error.into()))?;
    find_for_respondents(db, slug)
        .await
        .map_err(|error| on_page(error.into()))
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
    pub(crate) error: AppError,
    pub(crate) language: Language,
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
        if let Some(cause) = self.error.cause_chain() {
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
pub(crate) fn unknown_page(request: &HttpRequest) -> HttpResponse {
    RespondentPageError {
        error: AppError::NotFound("page"),
        language: browser_language(request),
    }
    .error_response()
}
