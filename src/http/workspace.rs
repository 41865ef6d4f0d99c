//! The researcher's workspace in the browser: sign-up, sign-in, the surveys list and the
//! account page here; the builder ([`builder`]), what a design means ([`design`]), results
//! and present mode ([`results`]) in their own files. Every page is an askama template;
//! every state-changing form carries the session's CSRF token; every survey is looked up
//! with its owner inside the query, so another researcher's survey is a 404.

mod breakdown;
mod builder;
mod design;
mod draft_form;
mod reading;
mod refusal;
mod results;

pub use builder::{builder, close, confirm_open, delete_survey, open, preview, save_draft};
pub use design::figures as design_figures;
pub use results::{download_invitations, live_results, present, results_page, unblind};

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::auth::{self, Session, SignedIn};
use super::rate_limit::LoginAllowed;
use crate::accounts::{self, SESSION_ABSOLUTE_SECONDS};
use crate::db::queries::SurveySummary;
use crate::db::Database;
use crate::domain::{
    secrets_match, ApiToken, Email, Password, QuestionDefinition, SecretToken, Slug, Survey,
    SurveyDefinition, SurveyDetails, SurveyStatus, TokenHash,
};
use crate::error::{AppError, PageError};
use design::{DesignEditor, DesignForm};

type Page = Result<HttpResponse, PageError>;

/// How long a sign-in or sign-up form stays usable.
const FORM_COOKIE_SECONDS: i64 = 60 * 60;

fn html(page: &impl Template) -> Page {
    let body = page.render()?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        // Pages carry CSRF tokens and private results: never cached.
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

async fn owned_survey(db: &Database, slug: &str, session: &Session) -> Result<Survey, AppError> {
    db.owned_survey(Slug::parse(slug)?, session.researcher)
        .await
}

/// The header of every signed-in page: who is signed in, and the sign-out form's token.
struct Nav {
    email: String,
    csrf: String,
}

impl Nav {
    fn of(session: &Session) -> Self {
        Self {
            email: session.email.clone(),
            csrf: session.csrf.as_str().to_owned(),
        }
    }
}

// --- sign-in, sign-up, sign-out -----------------------------------------------------------

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

/// Double-submit check: the form's hidden token must equal its cookie.
fn check_form_token(request: &HttpRequest, presented: &str) -> Result<(), AppError> {
    match auth::form_cookie(request) {
        Some(expected) if !presented.is_empty() && secrets_match(&expected, presented) => Ok(()),
        _ => Err(AppError::csrf_token_missing()),
    }
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
    #[serde(default)]
    form_token: String,
    email: String,
    password: String,
}

/// POST /login: one of the client address's sign-in attempts, then the account's own
/// throttle and the password.
pub async fn login(
    _: LoginAllowed,
    request: HttpRequest,
    db: web::Data<Database>,
    form: web::Form<LoginForm>,
) -> Page {
    let form = form.into_inner();
    check_form_token(&request, &form.form_token)?;
    let outcome = match Email::parse(&form.email) {
        Ok(email) => accounts::sign_in(&db, email, form.password).await,
        Err(error) => Err(error),
    };
    match outcome {
        Ok(session) => signed_in_response(&request, &session),
        Err(error @ (AppError::Invalid { .. } | AppError::TooManyRequests { .. })) => {
            login_page(&request, form.email, Some(error))
        }
        Err(error) => Err(error.into()),
    }
}

#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// POST /logout
pub async fn logout(
    request: HttpRequest,
    db: web::Data<Database>,
    signed_in: SignedIn,
    form: web::Form<CsrfForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
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
    #[serde(default)]
    form_token: String,
    email: String,
    password: String,
    password_again: String,
}

/// POST /setup/{token}: creates the account, uses up the link, signs in.
pub async fn setup(
    request: HttpRequest,
    db: web::Data<Database>,
    token: web::Path<String>,
    form: web::Form<SetupForm>,
) -> Page {
    let link = signup_link(&token)?;
    let form = form.into_inner();
    check_form_token(&request, &form.form_token)?;
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

// --- the surveys list ---------------------------------------------------------------------

struct SurveyRow {
    slug: String,
    title: String,
    status: &'static str,
    responses: String,
    draft: bool,
}

impl From<SurveySummary> for SurveyRow {
    fn from(summary: SurveySummary) -> Self {
        Self {
            slug: summary.slug.to_string(),
            title: summary.title,
            status: summary.status.as_str(),
            responses: summary.responses.to_string(),
            draft: summary.status == SurveyStatus::Draft,
        }
    }
}

/// The new-survey form: empty, or as typed when it was refused.
struct NewSurvey {
    title: String,
    description: String,
    question: String,
    editor: DesignEditor,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "workspace/surveys.html")]
struct SurveysPage {
    nav: Option<Nav>,
    csrf: String,
    surveys: Vec<SurveyRow>,
    new_survey: NewSurvey,
}

async fn surveys_page(
    db: &Database,
    session: &Session,
    refused: Option<(&NewSurveyForm, AppError)>,
) -> Page {
    let surveys = db.owned_surveys(session.researcher).await?;
    let (new_survey, status) = match refused {
        None => (
            NewSurvey {
                title: String::new(),
                description: String::new(),
                question: String::new(),
                editor: DesignEditor::blank("first")?,
                error: None,
            },
            StatusCode::OK,
        ),
        Some((form, error)) => (
            NewSurvey {
                title: form.title.clone(),
                description: form.description.clone(),
                question: form.question.clone(),
                editor: DesignEditor::new("first".to_owned(), form.design.clone())?,
                error: Some(error.public_message()),
            },
            StatusCode::BAD_REQUEST,
        ),
    };
    let mut response = html(&SurveysPage {
        nav: Some(Nav::of(session)),
        csrf: session.csrf.as_str().to_owned(),
        surveys: surveys.into_iter().map(SurveyRow::from).collect(),
        new_survey,
    })?;
    *response.status_mut() = status;
    Ok(response)
}

/// GET /surveys
pub async fn surveys(db: web::Data<Database>, signed_in: SignedIn) -> Page {
    surveys_page(&db, &signed_in.0, None).await
}

#[derive(Deserialize)]
pub struct NewSurveyForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    /// The first question's text.
    #[serde(default)]
    question: String,
    #[serde(flatten)]
    design: DesignForm,
}

impl NewSurveyForm {
    fn parse(&self) -> Result<SurveyDefinition, AppError> {
        let details = SurveyDetails::parse(&self.title, &self.description, None)?;
        let design = self.design.to_fields("question")?;
        let question = QuestionDefinition::of("question", &self.question, &design)?;
        Ok(SurveyDefinition::of(details, vec![question], false))
    }
}

/// POST /surveys: a new draft with its first question; on to the builder. A refused form
/// comes back with its reason and everything typed.
pub async fn create_survey(
    db: web::Data<Database>,
    signed_in: SignedIn,
    form: web::Form<NewSurveyForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let definition = match form.parse() {
        Ok(definition) => definition,
        Err(error @ AppError::Invalid { .. }) => {
            return surveys_page(&db, &session, Some((&form, error))).await
        }
        Err(error) => return Err(error.into()),
    };
    let slug = Slug::generate(definition.title())?;
    let draft = db
        .create_draft(session.researcher, slug, definition)
        .await?;
    Ok(see_other(&format!("/surveys/{}/edit", draft.slug)))
}

// --- the account: API tokens and invitations ----------------------------------------------

#[derive(Template)]
#[template(path = "workspace/account.html")]
struct AccountPage {
    nav: Option<Nav>,
    csrf: String,
    tokens: Vec<(String, String)>,
    new_token: Option<String>,
    invitation_link: Option<String>,
}

async fn account_page(
    db: &Database,
    session: &Session,
    new_token: Option<String>,
    invitation_link: Option<String>,
) -> Page {
    let tokens = db.api_tokens(session.researcher).await?;
    html(&AccountPage {
        nav: Some(Nav::of(session)),
        csrf: session.csrf.as_str().to_owned(),
        tokens: tokens
            .into_iter()
            .map(|hash| {
                let hex = hash.to_hex();
                (hex[..12].to_owned(), hex)
            })
            .collect(),
        new_token,
        invitation_link,
    })
}

/// GET /account
pub async fn account(db: web::Data<Database>, signed_in: SignedIn) -> Page {
    account_page(&db, &signed_in.0, None, None).await
}

/// POST /account/tokens: a new API token, shown on this response only.
pub async fn create_token(
    db: web::Data<Database>,
    signed_in: SignedIn,
    form: web::Form<CsrfForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let token = ApiToken::generate()?;
    db.add_api_token(session.researcher, token.hash()).await?;
    account_page(&db, &session, Some(token.expose().to_owned()), None).await
}

/// POST /account/tokens/{hash}/revoke
pub async fn revoke_token(
    db: web::Data<Database>,
    signed_in: SignedIn,
    hash: web::Path<String>,
    form: web::Form<CsrfForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let hash = TokenHash::from_hex(&hash)?;
    db.revoke_api_token(session.researcher, hash).await?;
    Ok(see_other("/account"))
}

/// POST /account/invitations: a one-time link for a colleague, shown on this response only.
pub async fn create_invitation(
    request: HttpRequest,
    db: web::Data<Database>,
    signed_in: SignedIn,
    form: web::Form<CsrfForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let origin = super::origin(&request)?;
    let link = accounts::create_invitation(&db, session.researcher).await?;
    let url = format!("{}/setup/{}", origin, link.expose());
    account_page(&db, &session, None, Some(url)).await
}
