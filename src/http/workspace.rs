//! The researcher's workspace in the browser: sign-up, sign-in, the surveys list, the
//! builder, results, present mode and the account page. Every page is an askama template;
//! every state-changing form carries the session's CSRF token; every survey is looked up
//! with its owner inside the query, so another researcher's survey is a 404.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use randomized_response::{posterior_after_yes, respondents_needed, Confidence, PrivacyLevel};
use serde::Deserialize;

use super::auth::{self, Session, SignedIn};
use super::rate_limit::LoginAllowed;
use super::researcher;
use crate::accounts::{self, SESSION_ABSOLUTE_SECONDS};
use crate::db::queries::{self, SurveySummary};
use crate::db::Database;
use crate::domain::{
    secrets_match, ApiToken, DesignFields, Email, InvitationCount, Password, QuestionDefinition,
    QuestionId, SecretToken, Slug, Survey, SurveyDefinition, SurveyDetails, SurveyStatus,
    TokenHash,
};
use crate::error::{AppError, PageError};
use crate::invitations;
use crate::live::LiveReleases;
use crate::results::{IntervalBounds, SurveyResults};

type Page = Result<HttpResponse, PageError>;

/// The prior of the observer in the ε explanation, as on the respondent's form.
const EXPLAINED_PRIOR: f64 = 0.10;
/// How long a sign-in or sign-up form stays usable.
const FORM_COOKIE_SECONDS: i64 = 60 * 60;
/// The confidence levels the results page offers.
const CONFIDENCE_CHOICES: [u32; 3] = [90, 95, 99];

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

fn percent(fraction: f64) -> String {
    format!("{:.1} %", fraction * 100.0)
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
    let hash = session.token_hash;
    db.write(move |connection| queries::delete_session(connection, &hash))
        .await?;
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
    responses: u64,
    draft: bool,
}

impl From<SurveySummary> for SurveyRow {
    fn from(summary: SurveySummary) -> Self {
        Self {
            slug: summary.slug.to_string(),
            title: summary.title,
            status: summary.status.as_str(),
            responses: summary.responses,
            draft: summary.status == SurveyStatus::Draft,
        }
    }
}

#[derive(Template)]
#[template(path = "workspace/surveys.html")]
struct SurveysPage {
    nav: Option<Nav>,
    csrf: String,
    surveys: Vec<SurveyRow>,
}

/// GET /surveys
pub async fn surveys(db: web::Data<Database>, signed_in: SignedIn) -> Page {
    let researcher = signed_in.0.researcher;
    let surveys = db
        .read(move |connection| queries::list_owned_surveys(connection, researcher))
        .await?;
    html(&SurveysPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        surveys: surveys.into_iter().map(SurveyRow::from).collect(),
    })
}

#[derive(Deserialize)]
pub struct NewSurveyForm {
    #[serde(default)]
    csrf: String,
    title: String,
    #[serde(default)]
    description: String,
    question: String,
    epsilon: f64,
}

/// POST /surveys: a new draft with its first question; on to the builder.
pub async fn create_survey(
    db: web::Data<Database>,
    signed_in: SignedIn,
    form: web::Form<NewSurveyForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let details = SurveyDetails::parse(&form.title, &form.description, None)?;
    let question = QuestionDefinition::of("question", &form.question, &mirrored(form.epsilon))?;
    let definition = SurveyDefinition::of(details, vec![question], false);
    let slug = Slug::generate(definition.title())?;
    let owner = session.researcher;
    let created = slug.clone();
    db.write(move |connection| {
        queries::insert_survey(
            connection,
            owner,
            &created,
            &definition,
            SurveyStatus::Draft,
        )
    })
    .await?;
    Ok(see_other(&format!("/surveys/{slug}/edit")))
}

// --- the builder --------------------------------------------------------------------------

async fn owned_survey(db: &Database, slug: &str, session: &Session) -> Result<Survey, AppError> {
    let slug = Slug::parse(slug)?;
    let researcher = session.researcher;
    db.read(move |connection| queries::find_owned_survey(connection, &slug, researcher))
        .await?
        .ok_or(AppError::NotFound("survey"))
}

/// What one ε means, with the same formulas as the respondent's form and the JS.
struct LevelFigures {
    epsilon: String,
    truth_percent: String,
    posterior_percent: String,
    needed_5: u64,
    needed_10: u64,
}

/// A yes/no mirrored question's design fields at level ε.
fn mirrored(epsilon: f64) -> DesignFields {
    DesignFields {
        epsilon: Some(epsilon),
        ..DesignFields::default()
    }
}

fn level_figures(level: PrivacyLevel) -> Result<LevelFigures, AppError> {
    let confidence = Confidence::new(0.95).map_err(AppError::internal)?;
    Ok(LevelFigures {
        epsilon: format!("{:.2}", level.epsilon()),
        truth_percent: percent(level.truth_probability()),
        posterior_percent: percent(
            posterior_after_yes(EXPLAINED_PRIOR, level).map_err(AppError::internal)?,
        ),
        needed_5: respondents_needed(0.05, level, confidence).map_err(AppError::internal)?,
        needed_10: respondents_needed(0.10, level, confidence).map_err(AppError::internal)?,
    })
}

struct BuilderQuestion {
    id: i64,
    number: u32,
    text: String,
    required: bool,
    figures: LevelFigures,
    first: bool,
    last: bool,
}

#[derive(Template)]
#[template(path = "workspace/builder.html")]
struct BuilderPage {
    nav: Option<Nav>,
    csrf: String,
    slug: String,
    title: String,
    description: String,
    planned_respondents: u64,
    requires_invitation: bool,
    status: &'static str,
    editable: bool,
    total_epsilon: String,
    questions: Vec<BuilderQuestion>,
    min_epsilon: f64,
    max_epsilon: f64,
}

/// GET /surveys/{slug}/edit
pub async fn builder(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = owned_survey(&db, &slug, &signed_in.0).await?;
    let count = survey.questions.len();
    let questions = survey
        .questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            Ok(BuilderQuestion {
                id: question.id.get(),
                number: question.position + 1,
                text: question.text.clone(),
                required: true,
                figures: level_figures(question.design.level())?,
                first: index == 0,
                last: index + 1 == count,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    html(&BuilderPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        slug: survey.slug.to_string(),
        total_epsilon: format!("{:.2}", survey.total_epsilon()),
        status: survey.status.as_str(),
        editable: survey.status == SurveyStatus::Draft,
        title: survey.title,
        description: survey.description,
        planned_respondents: survey.planned_respondents,
        requires_invitation: survey.requires_invitation,
        questions,
        min_epsilon: PrivacyLevel::MIN_EPSILON,
        max_epsilon: PrivacyLevel::MAX_EPSILON,
    })
}

#[derive(Deserialize)]
pub struct DetailsForm {
    #[serde(default)]
    csrf: String,
    title: String,
    #[serde(default)]
    description: String,
    planned_respondents: u64,
    /// The checkbox: present when responses need a single-use invitation.
    requires_invitation: Option<String>,
}

fn back_to_builder(slug: &Slug) -> HttpResponse {
    see_other(&format!("/surveys/{slug}/edit"))
}

/// POST /surveys/{slug}/edit: title, description, planned respondents, invitations.
pub async fn update_details(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<DetailsForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let slug = Slug::parse(&slug)?;
    let details = SurveyDetails::parse(
        &form.title,
        &form.description,
        Some(form.planned_respondents),
    )?;
    let requires_invitation = form.requires_invitation.is_some();
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| {
        queries::update_survey_details(
            connection,
            &target,
            researcher,
            &details,
            requires_invitation,
        )
    })
    .await?;
    Ok(back_to_builder(&slug))
}

#[derive(Deserialize)]
pub struct QuestionForm {
    #[serde(default)]
    csrf: String,
    text: String,
    epsilon: f64,
}

impl QuestionForm {
    fn parse(&self) -> Result<QuestionDefinition, AppError> {
        QuestionDefinition::of("question", &self.text, &mirrored(self.epsilon))
    }
}

/// POST /surveys/{slug}/questions: a new question at the end.
pub async fn add_question(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<QuestionForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let slug = Slug::parse(&slug)?;
    let question = form.parse()?;
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| queries::add_question(connection, &target, researcher, &question))
        .await?;
    Ok(back_to_builder(&slug))
}

fn question_path(path: (String, i64)) -> Result<(Slug, QuestionId), AppError> {
    Ok((Slug::parse(&path.0)?, QuestionId::from_stored(path.1)))
}

/// POST /surveys/{slug}/questions/{id}: its text, ε and whether it is required.
pub async fn update_question(
    db: web::Data<Database>,
    signed_in: SignedIn,
    path: web::Path<(String, i64)>,
    form: web::Form<QuestionForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let (slug, question) = question_path(path.into_inner())?;
    let definition = form.parse()?;
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| {
        queries::update_question(connection, &target, researcher, question, &definition)
    })
    .await?;
    Ok(back_to_builder(&slug))
}

#[derive(Deserialize)]
pub struct MoveForm {
    #[serde(default)]
    csrf: String,
    direction: String,
}

/// POST /surveys/{slug}/questions/{id}/move: `direction` is `up` or `down`.
pub async fn move_question(
    db: web::Data<Database>,
    signed_in: SignedIn,
    path: web::Path<(String, i64)>,
    form: web::Form<MoveForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let (slug, question) = question_path(path.into_inner())?;
    let up = match form.direction.as_str() {
        "up" => true,
        "down" => false,
        _ => {
            return Err(
                AppError::invalid("invalid_direction", "a question moves up or down").into(),
            )
        }
    };
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| {
        queries::move_question(connection, &target, researcher, question, up)
    })
    .await?;
    Ok(back_to_builder(&slug))
}

/// POST /surveys/{slug}/questions/{id}/delete
pub async fn delete_question(
    db: web::Data<Database>,
    signed_in: SignedIn,
    path: web::Path<(String, i64)>,
    form: web::Form<CsrfForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let (slug, question) = question_path(path.into_inner())?;
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| queries::delete_question(connection, &target, researcher, question))
        .await?;
    Ok(back_to_builder(&slug))
}

/// GET /surveys/{slug}/preview: the respondent's form, sending disabled.
pub async fn preview(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = owned_survey(&db, &slug, &signed_in.0).await?;
    let body = super::respondent::preview_html(survey)?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

#[derive(Template)]
#[template(path = "workspace/open.html")]
struct OpenPage {
    nav: Option<Nav>,
    csrf: String,
    slug: String,
    title: String,
    total_epsilon: String,
    questions: Vec<BuilderQuestion>,
}

/// GET /surveys/{slug}/open: the confirmation that ε is frozen from then on.
pub async fn confirm_open(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = owned_survey(&db, &slug, &signed_in.0).await?;
    if survey.status != SurveyStatus::Draft {
        return Err(AppError::conflict("not_a_draft", "only a draft survey can be opened").into());
    }
    let questions = survey
        .questions
        .iter()
        .map(|question| {
            Ok(BuilderQuestion {
                id: question.id.get(),
                number: question.position + 1,
                text: question.text.clone(),
                required: true,
                figures: level_figures(question.design.level())?,
                first: false,
                last: false,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    html(&OpenPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        slug: survey.slug.to_string(),
        total_epsilon: format!("{:.2}", survey.total_epsilon()),
        title: survey.title,
        questions,
    })
}

async fn change_status(
    db: &Database,
    session: &Session,
    slug: &str,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Page {
    let slug = Slug::parse(slug)?;
    let (researcher, target) = (session.researcher, slug.clone());
    db.write(move |connection| queries::change_status(connection, &target, researcher, from, to))
        .await?;
    Ok(see_other(&format!("/surveys/{slug}/results")))
}

/// POST /surveys/{slug}/open
pub async fn open(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<CsrfForm>,
) -> Page {
    signed_in.0.check_csrf(&form.csrf)?;
    change_status(
        &db,
        &signed_in.0,
        &slug,
        SurveyStatus::Draft,
        SurveyStatus::Open,
    )
    .await
}

/// POST /surveys/{slug}/close
pub async fn close(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<CsrfForm>,
) -> Page {
    signed_in.0.check_csrf(&form.csrf)?;
    change_status(
        &db,
        &signed_in.0,
        &slug,
        SurveyStatus::Open,
        SurveyStatus::Closed,
    )
    .await
}

#[derive(Deserialize)]
pub struct DeleteSurveyForm {
    #[serde(default)]
    csrf: String,
    /// The survey's slug, typed again: deleting destroys every response for good.
    #[serde(default)]
    confirm: String,
}

/// POST /surveys/{slug}/delete: deletes a survey of any status with all its responses and
/// invitations (ethics boards ask for data to be destroyed once a study ends), only with
/// its slug typed as confirmation. Gone from every file before the redirect.
pub async fn delete_survey(
    db: web::Data<Database>,
    releases: web::Data<LiveReleases>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<DeleteSurveyForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let slug = Slug::parse(&slug)?;
    // Still 404 for someone else's survey, before saying anything about it.
    let survey = owned_survey(&db, slug.as_str(), &session).await?;
    if form.confirm.trim() != survey.slug.as_str() {
        return Err(AppError::invalid(
            "unconfirmed",
            format!(
                "type the survey's name {} to confirm that it and all its responses should be \
                 deleted",
                survey.slug
            ),
        )
        .into());
    }
    researcher::erase_survey(&db, &releases, survey.slug, session.researcher).await?;
    Ok(see_other("/surveys"))
}

// --- results and present mode -------------------------------------------------------------

/// The chart's geometry (SVG user units); the page script maps values the same way.
const CHART_LEFT: f64 = 56.0;
const CHART_WIDTH: f64 = 520.0;
const CHART_ROW: f64 = 44.0;
const CHART_TOP: f64 = 28.0;

fn chart_x(fraction: f64) -> String {
    format!("{:.1}", CHART_LEFT + fraction.clamp(0.0, 1.0) * CHART_WIDTH)
}

fn interval_text(bounds: Option<IntervalBounds>) -> String {
    bounds.map_or_else(
        || "–".to_owned(),
        |b| format!("{} to {}", percent(b.low), percent(b.high)),
    )
}

struct ResultRow {
    id: i64,
    number: u32,
    text: String,
    epsilon: String,
    n: u64,
    share_yes: String,
    estimate: String,
    chernoff: String,
    exact: String,
    anytime: String,
    has_data: bool,
    y: String,
    label_y: String,
    estimate_x: String,
    low_x: String,
    high_x: String,
}

struct Tick {
    x: String,
    label: String,
}

struct ResultsView {
    slug: String,
    title: String,
    status: &'static str,
    open: bool,
    requires_invitation: bool,
    max_invitations: u32,
    /// The live figures move in steps of at least this many responses.
    min_cell: u32,
    confidence: String,
    confidence_percent: u32,
    choices: Vec<(u32, bool)>,
    respondents: u64,
    needed: u64,
    progress_value: u64,
    widest_half_width: String,
    rows: Vec<ResultRow>,
    chart_height: String,
    axis_bottom: String,
    ticks: Vec<Tick>,
    chart_left: f64,
    chart_width: f64,
    respondent_link: String,
}

fn results_view(
    request: &HttpRequest,
    survey: &Survey,
    results: &SurveyResults,
) -> Result<ResultsView, AppError> {
    let rows: Vec<ResultRow> = results
        .questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let y = CHART_TOP + CHART_ROW * index as f64 + CHART_ROW / 2.0;
            let chernoff = question.intervals.chernoff;
            ResultRow {
                id: question.id,
                number: question.position + 1,
                text: question.text.clone(),
                epsilon: format!("{:.2}", question.epsilon),
                n: question.n,
                share_yes: if question.n == 0 {
                    "–".to_owned()
                } else {
                    percent(question.reported_yes.unwrap_or(0) as f64 / question.n as f64)
                },
                estimate: question
                    .estimate_clipped
                    .map_or_else(|| "–".to_owned(), percent),
                chernoff: interval_text(chernoff),
                exact: interval_text(question.intervals.exact),
                anytime: interval_text(question.intervals.anytime),
                has_data: question.estimate_clipped.is_some(),
                y: format!("{y:.1}"),
                label_y: format!("{:.1}", y + 5.0),
                estimate_x: chart_x(question.estimate_clipped.unwrap_or(0.0)),
                low_x: chart_x(chernoff.map_or(0.0, |b| b.low)),
                high_x: chart_x(chernoff.map_or(0.0, |b| b.high)),
            }
        })
        .collect();
    let respondents = results.questions.iter().map(|q| q.n).max().unwrap_or(0);
    let needed = results.respondents_needed_for_5_percent.max(1);
    let widest = results
        .questions
        .iter()
        .filter_map(|q| q.intervals.chernoff.map(|b| b.half_width))
        .fold(None, |widest: Option<f64>, h| {
            Some(widest.map_or(h, |w| w.max(h)))
        });
    let axis_bottom = CHART_TOP + CHART_ROW * rows.len() as f64;
    let confidence_percent = (results.confidence * 100.0).round() as u32;
    Ok(ResultsView {
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        status: survey.status.as_str(),
        open: survey.status == SurveyStatus::Open,
        requires_invitation: survey.requires_invitation,
        max_invitations: crate::domain::MAX_INVITATIONS_PER_REQUEST,
        min_cell: survey.min_cell.get(),
        confidence: format!("{}", results.confidence),
        confidence_percent,
        choices: CONFIDENCE_CHOICES
            .iter()
            .map(|&choice| (choice, choice == confidence_percent))
            .collect(),
        respondents,
        needed,
        progress_value: respondents.min(needed),
        widest_half_width: widest.map_or_else(|| "–".to_owned(), |h| format!("±{}", percent(h))),
        chart_height: format!("{:.0}", axis_bottom + 24.0),
        axis_bottom: format!("{axis_bottom:.1}"),
        ticks: [0.0, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|&fraction| Tick {
                x: chart_x(fraction),
                label: format!("{:.0} %", fraction * 100.0),
            })
            .collect(),
        chart_left: CHART_LEFT,
        chart_width: CHART_WIDTH,
        respondent_link: respondent_link(request, &survey.slug)?,
        rows,
    })
}

/// The absolute respondent link: the public URL's, or as the browser reached this server.
fn respondent_link(request: &HttpRequest, slug: &Slug) -> Result<String, AppError> {
    Ok(format!("{}/s/{slug}", super::origin(request)?))
}

#[derive(Deserialize)]
pub struct ConfidenceQuery {
    confidence: Option<f64>,
}

#[derive(Template)]
#[template(path = "workspace/results.html")]
struct ResultsPage {
    nav: Option<Nav>,
    csrf: String,
    view: ResultsView,
}

/// GET /surveys/{slug}/results?confidence=0.95
pub async fn results_page(
    request: HttpRequest,
    db: web::Data<Database>,
    releases: web::Data<LiveReleases>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ConfidenceQuery>,
) -> Page {
    let (survey, computed) = researcher::owned_live_results(
        &db,
        &releases,
        &slug,
        signed_in.0.researcher,
        query.confidence,
    )
    .await?;
    html(&ResultsPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        view: results_view(&request, &survey, &computed)?,
    })
}

#[derive(Deserialize)]
pub struct InvitationsForm {
    #[serde(default)]
    csrf: String,
    count: u32,
}

/// POST /surveys/{slug}/invitations: N single-use invitation links, downloaded as the
/// mail-merge CSV; the codes exist only in this response.
pub async fn download_invitations(
    request: HttpRequest,
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    form: web::Form<InvitationsForm>,
) -> Page {
    let session = signed_in.0;
    session.check_csrf(&form.csrf)?;
    let survey = owned_survey(&db, &slug, &session).await?;
    let count = InvitationCount::parse(form.count)?;
    let origin = super::origin(&request)?;
    let codes = invitations::create(&db, &survey, count).await?;
    Ok(super::researcher::invitations_download(
        &origin,
        actix_web::http::StatusCode::OK,
        &survey.slug,
        &codes,
    ))
}

/// GET /surveys/{slug}/results.json?confidence=0.95: what the live pages refresh from, the
/// results JSON released in steps of `min_cell` responses.
pub async fn live_results(
    db: web::Data<Database>,
    releases: web::Data<LiveReleases>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ConfidenceQuery>,
) -> Page {
    let (_, computed) = researcher::owned_live_results(
        &db,
        &releases,
        &slug,
        signed_in.0.researcher,
        query.confidence,
    )
    .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(computed))
}

#[derive(Template)]
#[template(path = "workspace/present.html")]
struct PresentPage {
    view: ResultsView,
    qr_svg: String,
}

/// The QR code of a link as an SVG element, rendered here (no image request, no script).
fn qr_svg(link: &str) -> Result<String, AppError> {
    use qrcode::render::svg;
    let code = qrcode::QrCode::new(link.as_bytes()).map_err(AppError::internal)?;
    let image = code
        .render::<svg::Color<'_>>()
        .min_dimensions(240, 240)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .build();
    // Drop the XML declaration: the element is inlined in HTML.
    let start = image.find("<svg").unwrap_or(0);
    Ok(image[start..].to_owned())
}

/// GET /surveys/{slug}/present: full screen for a projector, QR code and live estimates.
pub async fn present(
    request: HttpRequest,
    db: web::Data<Database>,
    releases: web::Data<LiveReleases>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ConfidenceQuery>,
) -> Page {
    let (survey, computed) = researcher::owned_live_results(
        &db,
        &releases,
        &slug,
        signed_in.0.researcher,
        query.confidence,
    )
    .await?;
    let view = results_view(&request, &survey, &computed)?;
    let qr_svg = qr_svg(&view.respondent_link)?;
    html(&PresentPage { view, qr_svg })
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
    let researcher = session.researcher;
    let tokens = db
        .read(move |connection| queries::list_tokens(connection, researcher))
        .await?;
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
    let (hash, researcher) = (token.hash(), session.researcher);
    db.write(move |connection| queries::insert_token_for(connection, researcher, &hash))
        .await?;
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
    let researcher = session.researcher;
    db.write(move |connection| queries::revoke_token(connection, researcher, &hash))
        .await?;
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
