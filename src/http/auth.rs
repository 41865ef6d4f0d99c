//! The session cookie and the sign-in forms' cookie: their names and flags, and the live
//! session a request's cookie names. The checks built on them are src/http/extract.rs.

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::{web, HttpRequest};

use crate::db::Database;
use crate::domain::{CsrfToken, ResearcherId, SecretToken, TokenHash};
use crate::error::AppError;
use crate::http::public_url::is_secure_context;
use crate::services::accounts::{now_unix, SESSION_IDLE_SECONDS, SESSION_TOUCH_SECONDS};

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

pub(super) fn database(request: &HttpRequest) -> Result<Database, AppError> {
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

/// The session of the request's cookie, if live; moves its idle expiry on.
pub(super) async fn current_session(request: &HttpRequest) -> Result<Option<Session>, AppError> {
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
