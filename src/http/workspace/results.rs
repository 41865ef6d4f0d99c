//! Results and present mode: the estimates chart, the results table and the JSON the live
//! pages refresh from.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::{html, owned_survey, percent, Nav, Page};
use crate::db::Database;
use crate::domain::{InvitationCount, Slug, Survey, SurveyStatus};
use crate::error::AppError;
use crate::http::auth::SignedIn;
use crate::http::researcher;
use crate::invitations;
use crate::live::LiveReleases;
use crate::results::{IntervalBounds, SurveyResults};

/// The confidence levels the results page offers.
const CONFIDENCE_CHOICES: [u32; 3] = [90, 95, 99];

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
    Ok(format!("{}/s/{slug}", crate::http::origin(request)?))
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
    let origin = crate::http::origin(&request)?;
    let codes = invitations::create(&db, &survey, count).await?;
    Ok(researcher::invitations_download(
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
