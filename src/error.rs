//! The one application error type, and the one place it becomes an HTTP response.

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use serde::Serialize;

use crate::domain::{DomainError, Refusal};

/// What an internal error keeps: the original error, typed, with its own sources.
pub type Cause = Box<dyn Error + Send + Sync + 'static>;

/// Everything that can go wrong while serving a request or running a command.
///
/// Client mistakes carry a stable machine-readable `code` and a message meant for people;
/// `Internal` keeps the cause, with its chain of sources, for the log only, never for the
/// client.
#[derive(Debug)]
pub enum AppError {
    /// 400: the request is well-formed HTTP but its content is not acceptable.
    Invalid { code: &'static str, message: String },
    /// 401: an owner-only route without a usable bearer token.
    Unauthorized,
    /// 403: understood but not permitted (no usable invitation, no CSRF token).
    Forbidden { code: &'static str, message: String },
    /// 404: the thing does not exist, or it is not the caller's to see.
    NotFound(&'static str),
    /// 405, with the methods the route has (`GET, HEAD`) for the `Allow` header.
    MethodNotAllowed { allow: String },
    /// 408: the request's body did not arrive in full within the time limit.
    RequestTimeout { limit_secs: u64 },
    /// 409: the request conflicts with the current state (e.g. survey not open).
    Conflict { code: &'static str, message: String },
    /// 410: the thing existed and was deliberately removed (a withdrawn response).
    Gone { code: &'static str, message: String },
    /// 413
    PayloadTooLarge { limit_bytes: usize },
    /// 415
    UnsupportedMediaType,
    /// 429: too many submissions from one address, or failed sign-ins for one account.
    TooManyRequests {
        code: &'static str,
        message: String,
        retry_after_secs: Option<u64>,
    },
    /// 500: a bug or an environment failure; the cause goes to the log ([`ErrorChain`]).
    Internal(Cause),
}

impl AppError {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            code,
            message: message.into(),
        }
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::Forbidden {
            code,
            message: message.into(),
        }
    }

    /// 403 for a state-changing request without its session's CSRF token.
    pub fn csrf_token_missing() -> Self {
        Self::forbidden(
            "csrf_token_missing",
            "this request lacks the form's security (CSRF) token; reload the page and try again",
        )
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            message: message.into(),
        }
    }

    pub fn gone(code: &'static str, message: impl Into<String>) -> Self {
        Self::Gone {
            code,
            message: message.into(),
        }
    }

    /// A 500 whose cause is an error (kept as it is, with its sources) or a message (a
    /// `&str` or `String`, for a bug no error type describes).
    pub fn internal(cause: impl Into<Cause>) -> Self {
        Self::Internal(cause.into())
    }

    /// A 500 that says what was being done when `cause` happened: "cannot commit" over the
    /// database's own error.
    pub fn internal_context(
        context: impl Into<Cow<'static, str>>,
        cause: impl Into<Cause>,
    ) -> Self {
        Self::Internal(Box::new(Context::new(context, cause)))
    }

    /// The cause and its sources, for the log, when this is an internal error.
    pub fn cause_chain(&self) -> Option<ErrorChain<'_>> {
        match self {
            Self::Internal(cause) => Some(ErrorChain(cause.as_ref())),
            _ => None,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { code, .. }
            | Self::Forbidden { code, .. }
            | Self::Conflict { code, .. }
            | Self::Gone { code, .. }
            | Self::TooManyRequests { code, .. } => code,
            Self::Unauthorized => "unauthorized",
            Self::NotFound(_) => "not_found",
            Self::MethodNotAllowed { .. } => "method_not_allowed",
            Self::RequestTimeout { .. } => "request_timeout",
            Self::PayloadTooLarge { .. } => "payload_too_large",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::Internal(_) => "internal",
        }
    }

    /// How long a refused client should wait, when that is known (a per-address limit).
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::TooManyRequests {
                retry_after_secs, ..
            } => *retry_after_secs,
            _ => None,
        }
    }

    /// What the client is told; for `Internal` deliberately nothing about the cause.
    pub fn public_message(&self) -> String {
        match self {
            Self::Invalid { message, .. }
            | Self::Forbidden { message, .. }
            | Self::Conflict { message, .. }
            | Self::Gone { message, .. }
            | Self::TooManyRequests { message, .. } => message.clone(),
            Self::Unauthorized => "this route needs an `Authorization: Bearer <token>` header \
                                   with a valid API token, or a signed-in session"
                .to_owned(),
            Self::NotFound(what) => format!("{what} not found"),
            Self::MethodNotAllowed { allow } => {
                format!("this method is not allowed on this route; it allows {allow}")
            }
            Self::RequestTimeout { limit_secs } => {
                format!("the request body did not arrive within {limit_secs} s; send it again")
            }
            Self::PayloadTooLarge { limit_bytes } => {
                format!("the request body is larger than the limit of {limit_bytes} bytes")
            }
            Self::UnsupportedMediaType => {
                "the request body must be JSON with `Content-Type: application/json`".to_owned()
            }
            Self::Internal(_) => "internal error; the cause has been logged".to_owned(),
        }
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Internal(cause) => write!(f, "internal error: {cause}"),
            other => write!(f, "{}: {}", other.code(), other.public_message()),
        }
    }
}

impl Error for AppError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Internal(cause) => Some(cause.as_ref()),
            _ => None,
        }
    }
}

/// The one place the domain's refusals become the application's, hence statuses.
impl From<DomainError> for AppError {
    fn from(error: DomainError) -> Self {
        match error {
            DomainError::Invalid { code, message } => Self::Invalid { code, message },
            DomainError::Refused { code, message } => Self::Forbidden { code, message },
            DomainError::NotFound(what) => Self::NotFound(what),
            DomainError::Conflict { code, message } => Self::Conflict { code, message },
            DomainError::Internal(cause) => Self::Internal(cause),
        }
    }
}

/// A business rule broken against stored state: 410 when the thing is gone for good, 409
/// otherwise; the code and the words are the refusal's own.
impl From<Refusal> for AppError {
    fn from(refusal: Refusal) -> Self {
        let (code, message) = (refusal.code(), refusal.to_string());
        if refusal.is_gone() {
            Self::Gone { code, message }
        } else {
            Self::Conflict { code, message }
        }
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(error: rusqlite::Error) -> Self {
        Self::internal_context("database", error)
    }
}

impl From<postgres::Error> for AppError {
    fn from(error: postgres::Error) -> Self {
        Self::internal_context("database", error)
    }
}

impl From<askama::Error> for AppError {
    fn from(error: askama::Error) -> Self {
        Self::internal_context("template rendering", error)
    }
}

impl From<crate::crypto::RandomnessFailed> for AppError {
    fn from(error: crate::crypto::RandomnessFailed) -> Self {
        Self::internal(error)
    }
}

/// An error with what was being done when it happened. Its message is the context followed
/// by the cause's message, as most errors print theirs, and [`Error::source`] is the cause.
#[derive(Debug)]
pub struct Context {
    context: Cow<'static, str>,
    cause: Cause,
}

impl Context {
    pub fn new(context: impl Into<Cow<'static, str>>, cause: impl Into<Cause>) -> Self {
        Self {
            context: context.into(),
            cause: cause.into(),
        }
    }
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.cause)
    }
}

impl Error for Context {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(self.cause.as_ref())
    }
}

/// An error and its sources for the log, `a: b: c`, walking [`Error::source`]. Many
/// errors print their source's message in their own too, so a source whose message the
/// previous one already ends with (or that ends with the previous one's) is left out.
pub struct ErrorChain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut previous = self.0.to_string();
        f.write_str(&previous)?;
        let mut next = self.0.source();
        while let Some(error) = next {
            let message = error.to_string();
            if !previous.ends_with(&message) && !message.ends_with(&previous) {
                write!(f, ": {message}")?;
            }
            previous = message;
            next = error.source();
        }
        Ok(())
    }
}

/// Every JSON error: `{"error": {"code": "...", "message": "..."}}`.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ErrorDetail<'a> {
    /// Stable and machine-readable, e.g. `not_found`, `invalid_json`, `survey_not_open`.
    #[schema(examples("not_found"))]
    code: &'a str,
    /// For people; it may change between versions.
    #[schema(examples("survey not found"))]
    message: String,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Invalid { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::Conflict { .. } => StatusCode::CONFLICT,
            Self::Gone { .. } => StatusCode::GONE,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Some(cause) = self.cause_chain() {
            tracing::error!(%cause, "request failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        if matches!(self, Self::Unauthorized) {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let Some(retry_after_secs) = self.retry_after_secs() {
            response.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
        }
        if let Self::MethodNotAllowed { allow } = self {
            response.insert_header((header::ALLOW, allow.as_str()));
        }
        response.json(ErrorBody {
            error: ErrorDetail {
                code: self.code(),
                message: self.public_message(),
            },
        })
    }
}

/// The same errors on the researcher's browser pages: a readable HTML page with the same
/// status and message, and a redirect to the sign-in page when the session is missing.
#[derive(Debug)]
pub struct PageError(pub AppError);

impl From<AppError> for PageError {
    fn from(error: AppError) -> Self {
        Self(error)
    }
}

impl From<DomainError> for PageError {
    fn from(error: DomainError) -> Self {
        Self(error.into())
    }
}

impl From<askama::Error> for PageError {
    fn from(error: askama::Error) -> Self {
        Self(error.into())
    }
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Template)]
#[template(path = "workspace/error.html")]
struct ErrorPage<'a> {
    status: u16,
    reason: &'a str,
    message: &'a str,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        if matches!(self.0, AppError::Unauthorized) {
            return HttpResponse::SeeOther()
                .insert_header((header::LOCATION, "/login"))
                .finish();
        }
        if let Some(cause) = self.0.cause_chain() {
            tracing::error!(%cause, "page failed");
        }
        let status = self.status_code();
        let message = self.0.public_message();
        let page = ErrorPage {
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or("Error"),
            message: &message,
        };
        let mut response = HttpResponse::build(status);
        if let Some(retry_after_secs) = self.0.retry_after_secs() {
            response.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
        }
        match page.render() {
            Ok(html) => response.content_type("text/html; charset=utf-8").body(html),
            Err(error) => {
                tracing::error!(%error, "the error page failed to render");
                response
                    .content_type("text/plain; charset=utf-8")
                    .body(message)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that prints only itself, with an optional source: what the chain must walk.
    #[derive(Debug)]
    struct Link(&'static str, Option<Box<Link>>);

    impl fmt::Display for Link {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Link {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|link| link as &(dyn Error + 'static))
        }
    }

    #[test]
    fn the_log_gets_every_source_once_and_the_client_none() {
        let cause = Link(
            "no such table: t",
            Some(Box::new(Link("SQL logic error", None))),
        );
        let error = AppError::internal_context("database", cause);
        assert_eq!(
            error.cause_chain().unwrap().to_string(),
            "database: no such table: t: SQL logic error"
        );
        assert_eq!(
            error.to_string(),
            "internal error: database: no such table: t"
        );
        assert!(error.source().is_some());
        assert_eq!(
            error.public_message(),
            "internal error; the cause has been logged"
        );
        assert!(AppError::NotFound("survey").cause_chain().is_none());
        // A message alone is a cause too.
        let message = AppError::internal("a stored value is malformed");
        assert_eq!(
            message.cause_chain().unwrap().to_string(),
            "a stored value is malformed"
        );
    }

    #[test]
    fn a_domain_error_keeps_its_code_and_message_and_gets_its_status() {
        for (error, status, code, message) in [
            (
                DomainError::invalid("invalid_title", "title is empty"),
                StatusCode::BAD_REQUEST,
                "invalid_title",
                "title is empty",
            ),
            (
                DomainError::refused("token_invalid", "not this survey's"),
                StatusCode::FORBIDDEN,
                "token_invalid",
                "not this survey's",
            ),
            (
                DomainError::NotFound("survey"),
                StatusCode::NOT_FOUND,
                "not_found",
                "survey not found",
            ),
            (
                DomainError::conflict("invitation_used", "redeemed before"),
                StatusCode::CONFLICT,
                "invitation_used",
                "redeemed before",
            ),
            (
                DomainError::internal("a stored key is malformed"),
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error; the cause has been logged",
            ),
        ] {
            let error = AppError::from(error);
            assert_eq!(error.status_code(), status);
            assert_eq!(error.code(), code);
            assert_eq!(error.public_message(), message);
        }
    }
}
