//! Signing up (a one-time link), in and out. The sign-in and sign-up forms carry a
//! pre-session token in a cookie and a hidden field (double submit, [`FormTokenForm`]).

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::{html, see_other, Nav, Page};
use crate::db::Database;
use crate::domain::{Email, Password, SecretToken};
use crate::error::AppError;
use crate::http::auth;
use crate::http::extract::{CsrfForm, FormTokenForm};
use crate::http::rate_limit::LoginAllowed;
use crate::services::accounts::{self, SESSION_ABSOLUTE_SECONDS};

/// How long a sign-in or sign-up form stays usable.
const FORM_COOKIE_SECONDS: i64 = 60 * 60;

/// A fresh pre-session token for a sign-in or sign-up form, and the cookie that holds it.
fn form_token(
    request: &HttpRequest,
) -> Result<(String, actix_web::cookie::Cookie<'static>), AppError> {
    let token = SecretToken::generate()?.expose().to_owned();
    let cookie = auth::cookie(
        request,
        auth::SECURE_FORM_COOKIE,
        auth::PLAIN_FORM_COOKIE,
        token.clone(),
        FORM_COOKIE_SECONDS,
    );
    Ok((token, cookie))
}

fn signed_in_response(request: &HttpRequest, session: &SecretToken) -> Page {
    let mut response = see_other("/surveys");
    let cookie = auth::cookie(
        request,
        auth::SECURE_SESSION_COOKIE,
        auth::PLAIN_SESSION_COOKIE,
        session.expose().to_owned(),
        SESSION_ABSOLUTE_SECONDS,
    );
    let expired_form = auth::cookie(
        request,
        auth::SECURE_FORM_COOKIE,
        auth::PLAIN_FORM_COOKIE,
        String::new(),
        0,
    );
    for cookie in [cookie, expired_form] {
        response.add_cookie(&cookie).map_err(AppError::internal)?;
    }
    Ok(response)
}

#[derive(Template)]
#[template(path = "workspace/login.html")]
struct LoginPage {
    nav: Option<Nav>,
    form_token: String,
    email: String,
    error: Option<String>,
}

fn login_page(request: &HttpRequest, email: String, error: Option<AppError>) -> Page {
    let (form_token, cookie) = form_token(request)?;
    let status = error
        .as_ref()
        .map_or(actix_web::http::StatusCode::OK, |error| {
            actix_web::ResponseError::status_code(error)
        });
    let retry_after_secs = error.as_ref().and_then(AppError::retry_after_secs);
    let page = LoginPage {
        nav: None,
        form_token,
        email,
        error: error.map(|error| error.public_message()),
    };
    let mut response = html(&page)?;
    *response.status_mut() = status;
    if let Some(seconds) = retry_after_secs {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    }
    response.add_cookie(&cookie).map_err(AppError::internal)?;
    Ok(response)
}

/// GET /login
pub async fn login_form(request: HttpRequest) -> Page {
    login_page(&request, String::new(), None)
}

#[derive(Deserialize)]
pub struct LoginForm {
    email: String,
    password: String,
}

/// POST /login: one of the client address's sign-in attempts, then the account's own
/// throttle and the password.
pub async fn login(
    _: LoginAllowed,
    request: HttpRequest,
    db: web::Data<Database>,
    FormTokenForm(form): FormTokenForm<LoginForm>,
) -> Page {
    let outcome = match Email::parse(&form.email) {
        Ok(email) => accounts::sign_in(&db, email, form.password).await,
        Err(error) => Err(error.into()),
    };
    match outcome {
        Ok(session) => signed_in_response(&request, &session),
        Err(error @ (AppError::Invalid { .. } | AppError::TooManyRequests { .. })) => {
            login_page(&request, form.email, Some(error))
        }
        Err(error) => Err(error.into()),
    }
}

/// POST /logout
pub async fn logout(
    request: HttpRequest,
    db: web::Data<Database>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    db.end_session(session.token_hash).await?;
    let mut response = see_other("/login");
    let expired = auth::cookie(
        &request,
        auth::SECURE_SESSION_COOKIE,
        auth::PLAIN_SESSION_COOKIE,
        String::new(),
        0,
    );
    response.add_cookie(&expired).map_err(AppError::internal)?;
    Ok(response)
}

#[derive(Template)]
#[template(path = "workspace/setup.html")]
struct SetupPage {
    nav: Option<Nav>,
    link: String,
    form_token: String,
    email: String,
    error: Option<String>,
}

fn setup_page(
    request: &HttpRequest,
    link: &SecretToken,
    email: String,
    error: Option<AppError>,
) -> Page {
    let (form_token, cookie) = form_token(request)?;
    let status = error
        .as_ref()
        .map_or(actix_web::http::StatusCode::OK, |error| {
            actix_web::ResponseError::status_code(error)
        });
    let page = SetupPage {
        nav: None,
        link: link.expose().to_owned(),
        form_token,
        email,
        error: error.map(|error| error.public_message()),
    };
    let mut response = html(&page)?;
    *response.status_mut() = status;
    response.add_cookie(&cookie).map_err(AppError::internal)?;
    Ok(response)
}

fn signup_link(text: &str) -> Result<SecretToken, AppError> {
    SecretToken::parse(text).ok_or(AppError::NotFound("sign-up link"))
}

/// GET /setup/{token}: the one-time link's account form.
pub async fn setup_form(
    request: HttpRequest,
    db: web::Data<Database>,
    token: web::Path<String>,
) -> Page {
    let link = signup_link(&token)?;
    if !accounts::signup_link_is_valid(&db, &link).await? {
        return Err(AppError::NotFound("sign-up link").into());
    }
    setup_page(&request, &link, String::new(), None)
}

#[derive(Deserialize)]
pub struct SetupForm {
    email: String,
    password: String,
    password_again: String,
}

/// POST /setup/{token}: creates the account, uses up the link, signs in.
pub async fn setup(
    request: HttpRequest,
    db: web::Data<Database>,
    token: web::Path<String>,
    FormTokenForm(form): FormTokenForm<SetupForm>,
) -> Page {
    let link = signup_link(&token)?;
    let parsed = (|| {
        let email = Email::parse(&form.email)?;
        if form.password != form.password_again {
            return Err(AppError::invalid(
                "password_mismatch",
                "the two passwords differ",
            ));
        }
        Ok((email, Password::parse(form.password.clone())?))
    })();
    let outcome = match parsed {
        Ok((email, password)) => accounts::sign_up(&db, link, email, password).await,
        Err(error) => Err(error),
    };
    match outcome {
        Ok(session) => signed_in_response(&request, &session),
        Err(error @ (AppError::Invalid { .. } | AppError::Conflict { .. })) => {
            let link = signup_link(&token)?;
            setup_page(&request, &link, form.email, Some(error))
        }
        Err(error) => Err(error.into()),
    }
}

/// GET /: the surveys list, or the sign-in page.
pub async fn home() -> HttpResponse {
    see_other("/surveys")
}
