//! Who is asking: an API bearer token (scripts) or a session cookie (the browser), and the
//! session's cookie and CSRF rules.

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;

use crate::services::accounts::{now_unix, SESSION_IDLE_SECONDS, SESSION_TOUCH_SECONDS};
use crate::db::Database;
use crate::domain::{CsrfToken, ResearcherId, SecretToken, TokenHash};
use crate::error::{AppError, PageError};
use crate::http::public_url::is_secure_context;

/// The session cookie's name in a secure context: the `__Host-` prefix makes the browser
/// insist on Secure, Path=/ and no Domain, so no sibling host can plant or read it.
pub const SECURE_SESSION_COOKIE: &str = "__Host-deniable-session";
/// The name over plain HTTP on a host other than localhost (where Secure cannot be set).
pub const PLAIN_SESSION_COOKIE: &str = "deniable-session";
/// The pre-session cookie of the sign-in and sign-up forms (double-submit CSRF check).
pub const SECURE_FORM_COOKIE: &str = "__Host-deniable-form";
pub const PLAIN_FORM_COOKIE: &str = "deniable-form";
/// The header a script sends its session's CSRF token in (for JSON POSTs with a cookie).
pub const CSRF_HEADER: &str = "x-csrf-token";

fn database(request: &HttpRequest) -> Result<Database, AppError> {
    request
        .app_data::<web::Data<Database>>()
        .map(|db| db.get_ref().clone())
        .ok_or_else(|| AppError::internal("the database is not configured"))
}

/// A cookie with the flags every cookie of Deniable carries.
pub fn cookie(
    request: &HttpRequest,
    secure_name: &'static str,
    plain_name: &'static str,
    value: String,
    max_age_seconds: i64,
) -> Cookie<'static> {
    let secure = is_secure_context(request);
    let mut cookie = Cookie::new(if secure { secure_name } else { plain_name }, value);
    cookie.set_http_only(true);
    cookie.set_same_site(SameSite::Strict);
    cookie.set_secure(secure);
    cookie.set_path("/");
    cookie.set_max_age(time::Duration::seconds(max_age_seconds));
    cookie
}

/// Only the name this context sets: in a secure context the `__Host-` name alone, since a
/// plain-named cookie may have been planted by a sibling host or over plain HTTP.
fn cookie_value(request: &HttpRequest, secure_name: &str, plain_name: &str) -> Option<String> {
    let name = if is_secure_context(request) {
        secure_name
    } else {
        plain_name
    };
    request.cookie(name).map(|cookie| cookie.value().to_owned())
}

/// The sign-in and sign-up forms' pre-session token, from its cookie.
pub fn form_cookie(request: &HttpRequest) -> Option<String> {
    cookie_value(request, SECURE_FORM_COOKIE, PLAIN_FORM_COOKIE)
}

/// A signed-in researcher's live session.
pub struct Session {
    pub researcher: ResearcherId,
    pub email: String,
    pub token_hash: TokenHash,
    pub csrf: CsrfToken,
}

impl Session {
    /// Refuses (403) a state-changing request whose CSRF token is missing or wrong.
    pub fn check_csrf(&self, presented: &str) -> Result<(), AppError> {
        if self.csrf.matches(presented) {
            Ok(())
        } else {
            Err(AppError::csrf_token_missing())
        }
    }
}

/// The session of the request's cookie, if live; moves its idle expiry on.
async fn current_session(request: &HttpRequest) -> Result<Option<Session>, AppError> {
    let Some(token) = cookie_value(request, SECURE_SESSION_COOKIE, PLAIN_SESSION_COOKIE)
        .and_then(|value| SecretToken::parse(&value))
    else {
        return Ok(None);
    };
    let db = database(request)?;
    let hash = token.hash();
    let now = now_unix();
    let Some(live) = db.session(hash, now).await? else {
        return Ok(None);
    };
    let idle_expires_at = now + SESSION_IDLE_SECONDS;
    if idle_expires_at - live.idle_expires_at >= SESSION_TOUCH_SECONDS {
        db.touch_session(hash, idle_expires_at).await?;
    }
    Ok(Some(Session {
        researcher: live.researcher,
        email: live.email,
        token_hash: hash,
        csrf: token.csrf_token(),
    }))
}

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
                session.check_csrf(presented)?;
            }
            Ok(Self(session.researcher))
        })
    }
}
