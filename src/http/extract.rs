//! The checks every handler needs, as extractors: a handler that names one cannot forget its
//! check, and a refused request never reaches the handler. [`SignedIn`] (a page's session),
//! [`Owner`] (an API caller), [`CsrfForm`] (a signed-in page's form with its session's CSRF
//! token) and [`FormTokenForm`] (the sign-in and sign-up forms' double-submit token).

use actix_web::dev::Payload;
use actix_web::error::UrlencodedError;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::{try_join, LocalBoxFuture};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::auth::{current_session, database, form_cookie, Session, CSRF_HEADER};
use crate::domain::{secrets_match, ResearcherId, TokenHash};
use crate::error::{AppError, PageError};

/// A browser page's signed-in researcher; without a session the page redirects to sign-in.
pub struct SignedIn(pub Session);

impl FromRequest for SignedIn {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, PageError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            current_session(&request)
                .await?
                .map(SignedIn)
                .ok_or(PageError(AppError::Unauthorized))
        })
    }
}

/// The caller of an owner-only API route: a known bearer token or a browser session.
///
/// Without one (no credentials, an unknown token, no live session) the route is a 401 as
/// soon as this is known: the handler's body extractor is polled alongside and never
/// waited for, so a body that is large or slow is not read first.
pub struct Owner(ResearcherId);

impl Owner {
    pub fn researcher(&self) -> ResearcherId {
        self.0
    }
}

fn bearer_token(request: &HttpRequest) -> Option<TokenHash> {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
        .map(TokenHash::of_presented)
}

/// Refuses (403) a state-changing request whose CSRF token is missing or wrong.
fn check_csrf(session: &Session, presented: &str) -> Result<(), AppError> {
    if session.csrf.matches(presented) {
        Ok(())
    } else {
        Err(AppError::csrf_token_missing())
    }
}

/// Double-submit check: the form's hidden token must equal its cookie.
fn check_form_token(request: &HttpRequest, presented: &str) -> Result<(), AppError> {
    match form_cookie(request) {
        Some(expected) if !presented.is_empty() && secrets_match(&expected, presented) => Ok(()),
        _ => Err(AppError::csrf_token_missing()),
    }
}

impl FromRequest for Owner {
    type Error = AppError;
    type Future = LocalBoxFuture<'static, Result<Self, AppError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            if let Some(token) = bearer_token(&request) {
                let db = database(&request)?;
                let researcher = db.researcher_for_token(token).await?;
                return researcher.map(Self).ok_or(AppError::Unauthorized);
            }
            let session = current_session(&request)
                .await?
                .ok_or(AppError::Unauthorized)?;
            // A cookie travels with any request the browser makes: a state-changing API
            // call with only a cookie must also prove it comes from our own page.
            if !request.method().is_safe() {
                let presented = request
                    .headers()
                    .get(CSRF_HEADER)
                    .and_then(|value| value.to_str().ok())
                    .unwrap_or_default();
                check_csrf(&session, presented)?;
            }
            Ok(Self(session.researcher))
        })
    }
}

/// A form with nothing but its check (sign-out, a button).
#[derive(Deserialize)]
pub struct NoFields {}

/// A urlencoded form's fields, read with the app's form limit and error handling (the
/// `web::FormConfig` of src/http/mod.rs), then deserialized twice: as the handler's `T` and
/// for the check's own field, so that `T` does not carry it.
struct Fields(String);

type PairsFuture = <web::Form<Vec<(String, String)>> as FromRequest>::Future;

impl Fields {
    fn extract(request: &HttpRequest, payload: &mut Payload) -> PairsFuture {
        web::Form::<Vec<(String, String)>>::from_request(request, payload)
    }

    async fn read(pairs: PairsFuture) -> Result<Self, actix_web::Error> {
        let pairs = pairs.await?.into_inner();
        let encoded = serde_urlencoded::to_string(pairs).map_err(AppError::internal)?;
        Ok(Self(encoded))
    }

    /// As `web::Form<T>` would have: a field missing or malformed is the form's 400.
    fn parse<T: DeserializeOwned>(&self, request: &HttpRequest) -> Result<T, actix_web::Error> {
        serde_urlencoded::from_str(&self.0)
            .map_err(|error| super::form_error(UrlencodedError::Parse(error), request))
    }
}

#[derive(Deserialize)]
struct CsrfField {
    #[serde(default)]
    csrf: String,
}

/// A signed-in page's form (`T`) whose `csrf` field matches the session's token; otherwise
/// the 403 `csrf_token_missing` page before the handler runs. Without a session, the
/// redirect to sign-in, as [`SignedIn`].
pub struct CsrfForm<T = NoFields> {
    pub session: Session,
    pub form: T,
}

impl<T: DeserializeOwned + 'static> FromRequest for CsrfForm<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // The session and the body together, the first refusal answering (as two
        // extractors of one handler would).
        let signed_in = SignedIn::from_request(request, payload);
        let fields = Fields::extract(request, payload);
        let request = request.clone();
        Box::pin(async move {
            let signed_in = async move { signed_in.await.map_err(actix_web::Error::from) };
            let (SignedIn(session), fields) = try_join(signed_in, Fields::read(fields)).await?;
            let form = fields.parse::<T>(&request)?;
            let CsrfField { csrf } = fields.parse(&request)?;
            check_csrf(&session, &csrf).map_err(PageError)?;
            Ok(Self { session, form })
        })
    }
}

/// The sign-in or sign-up form (`T`) whose `form_token` field equals its pre-session
/// cookie (double submit); otherwise the 403 `csrf_token_missing` page before the handler.
pub struct FormTokenForm<T>(pub T);

#[derive(Deserialize)]
struct FormTokenField {
    #[serde(default)]
    form_token: String,
}

impl<T: DeserializeOwned + 'static> FromRequest for FormTokenForm<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let fields = Fields::extract(request, payload);
        let request = request.clone();
        Box::pin(async move {
            let fields = Fields::read(fields).await?;
            let form = fields.parse::<T>(&request)?;
            let FormTokenField { form_token } = fields.parse(&request)?;
            check_form_token(&request, &form_token).map_err(PageError)?;
            Ok(Self(form))
        })
    }
}
