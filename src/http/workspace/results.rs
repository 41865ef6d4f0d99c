//! Results and present mode: per question, by type, the estimates and their intervals
//! (computed by `crate::results` with the crate), a chart per question whose geometry the
//! server computes (the page's script maps refreshed values the same way, from the chart's
//! `data-` attributes), and the JSON the live pages refresh from.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use randomized_response::Confidence;
use serde::Deserialize;

use super::builder::design_label;
use super::design::PLANNED_HALF_WIDTHS;
use super::{html, owned_survey, percent, Nav, Page};
use crate::db::Database;
use crate::domain::{InvitationCount, QuestionType, Slug, Survey, SurveyStatus};
use crate::error::AppError;
use crate::http::auth::SignedIn;
use crate::http::researcher;
use crate::invitations;
use crate::live::LiveReleases;
use crate::results::{
    respondents_needed_within, IntervalBounds, Intervals, MeanResults, QuestionResults,
    SurveyResults,
};

/// The confidence levels the results page offers.
const CONFIDENCE_CHOICES: [u32; 3] = [90, 95, 99];
/// A chart's track in SVG user units: a value at the scale's lower end sits at
/// `TRACK_LEFT`, one at its upper end at `TRACK_LEFT + TRACK_WIDTH`.
const TRACK_LEFT: f64 = 0.0;
const TRACK_WIDTH: f64 = 100.0;

/// Where a value falls on a track whose scale runs from `min` to `max` (clipped).
fn track_x(value: f64, min: f64, max: f64) -> String {
    let fraction = ((value - min) / (max - min)).clamp(0.0, 1.0);
    format!("{:.2}", TRACK_LEFT + fraction * TRACK_WIDTH)
}

fn interval_text(bounds: Option<IntervalBounds>, format: impl Fn(f64) -> String) -> String {
    bounds.map_or_else(
        || "–".to_owned(),
        |b| format!("{} to {}", format(b.low), format(b.high)),
    )
}

/// One share on a chart and in its table: a yes/no question's "Yes", or one option.
struct ShareRow {
    index: usize,
    label: String,
    reported: u64,
    estimate: String,
    chernoff: String,
    exact: String,
    anytime: String,
    has_data: bool,
    bar_width: String,
    low_x: String,
    high_x: String,
}

fn share_row(
    index: usize,
    label: String,
    reported: u64,
    estimate_clipped: Option<f64>,
    intervals: &Intervals,
) -> ShareRow {
    let chernoff = intervals.chernoff;
    ShareRow {
        index,
        label,
        reported,
        estimate: estimate_clipped.map_or_else(|| "–".to_owned(), percent),
        chernoff: interval_text(chernoff, percent),
        exact: interval_text(intervals.exact, percent),
        anytime: interval_text(intervals.anytime, percent),
        has_data: estimate_clipped.is_some(),
        bar_width: track_x(estimate_clipped.unwrap_or(0.0), 0.0, 1.0),
        low_x: track_x(chernoff.map_or(0.0, |b| b.low), 0.0, 1.0),
        high_x: track_x(chernoff.map_or(0.0, |b| b.high), 0.0, 1.0),
    }
}

/// An ordinal question's mean level or a number's mean, on its scale.
struct MeanView {
    label: String,
    min: f64,
    max: f64,
    /// Decimals the page shows (the script reads them from `data-decimals`).
    decimals: usize,
    axis: [String; 3],
    estimate: String,
    chernoff: String,
    exact: String,
    anytime: String,
    has_data: bool,
    estimate_x: String,
    low_x: String,
    high_x: String,
}

/// Enough decimals to tell apart a hundredth of the scale, no more.
fn decimals(width: f64) -> usize {
    match width {
        w if w <= 10.0 => 2,
        w if w <= 1000.0 => 1,
        _ => 0,
    }
}

fn mean_view(label: String, mean: &MeanResults) -> MeanView {
    let (min, max) = (mean.min, mean.max);
    let decimals = decimals(max - min);
    let number = |value: f64| format!("{value:.decimals$}");
    let chernoff = mean.intervals.chernoff;
    MeanView {
        label,
        min,
        max,
        decimals,
        axis: [number(min), number((min + max) / 2.0), number(max)],
        estimate: mean.estimate_clipped.map_or_else(|| "–".to_owned(), number),
        chernoff: interval_text(chernoff, number),
        exact: interval_text(mean.intervals.exact, number),
        anytime: interval_text(mean.intervals.anytime, number),
        has_data: mean.estimate_clipped.is_some(),
        estimate_x: track_x(mean.estimate_clipped.unwrap_or(min), min, max),
        low_x: track_x(chernoff.map_or(min, |b| b.low), min, max),
        high_x: track_x(chernoff.map_or(min, |b| b.high), min, max),
    }
}

/// One question's results, as a card.
struct QuestionCard {
    id: i64,
    number: u32,
    text: String,
    label: String,
    epsilon: String,
    n: u64,
    yes_no: bool,
    /// Yes/no: the one share "Yes"; choice and ordinal: every option; number: none.
    shares: Vec<ShareRow>,
    mean: Option<MeanView>,
    needed_5: u64,
}

/// The widest Chernoff half-width among the targets the planner sizes, as a fraction of
/// each target's range: the "yes" share, every option's share, a number's mean.
fn widest_half_width(question: &QuestionResults) -> Option<f64> {
    let mut widths: Vec<f64> = question
        .intervals
        .chernoff
        .iter()
        .map(|b| b.half_width)
        .collect();
    for option in question.options.iter().flatten() {
        widths.extend(option.intervals.chernoff.map(|b| b.half_width));
    }
    if question.question_type == QuestionType::Number {
        if let Some(mean) = &question.mean {
            widths.extend(
                mean.intervals
                    .chernoff
                    .map(|b| b.half_width / (mean.max - mean.min)),
            );
        }
    }
    widths.into_iter().reduce(f64::max)
}

fn question_card(survey: &Survey, question: &QuestionResults) -> QuestionCard {
    let design = survey
        .questions
        .iter()
        .find(|q| q.id.get() == question.id)
        .map(|q| design_label(&q.design))
        .unwrap_or_default();
    let mut shares = Vec::new();
    if question.question_type == QuestionType::YesNo {
        shares.push(share_row(
            1,
            "Yes".to_owned(),
            question.reported_yes.unwrap_or(0),
            question.estimate_clipped,
            &question.intervals,
        ));
    }
    for (index, option) in question.options.iter().flatten().enumerate() {
        shares.push(share_row(
            index,
            option.label.clone(),
            option.reported,
            option.estimate_clipped,
            &option.intervals,
        ));
    }
    let mean = question.mean.as_ref().map(|mean| {
        let label = match (question.question_type, question.options.as_deref()) {
            (QuestionType::Ordinal, Some([first, .., last])) => format!(
                "Mean level (1 = {} … {} = {})",
                first.label,
                question.options.as_ref().map_or(0, Vec::len),
                last.label
            ),
            _ => format!("Mean (from {} to {})", mean.min, mean.max),
        };
        mean_view(label, mean)
    });
    QuestionCard {
        id: question.id,
        number: question.position + 1,
        text: question.text.clone(),
        label: design,
        epsilon: format!("{:.2}", question.epsilon),
        n: question.n,
        yes_no: question.question_type == QuestionType::YesNo,
        shares,
        mean,
        needed_5: question.respondents_needed_for_5_percent,
    }
}

struct ResultsView {
    slug: String,
    title: String,
    status: &'static str,
    open: bool,
    requires_invitation: bool,
    max_invitations: u32,
    /// The key fingerprint of every invitation link and the redemptions released.
    invitations: Option<crate::http::releases::InvitationStatus>,
    /// The live figures move in steps of at least this many responses.
    min_cell: u32,
    confidence: String,
    confidence_percent: u32,
    choices: Vec<(u32, bool)>,
    respondents: u64,
    needed: u64,
    needed_10: u64,
    progress_value: u64,
    widest_half_width: String,
    cards: Vec<QuestionCard>,
    track_left: f64,
    track_width: f64,
    respondent_link: String,
}

fn results_view(
    request: &HttpRequest,
    survey: &Survey,
    results: &SurveyResults,
) -> Result<ResultsView, AppError> {
    let cards = results
        .questions
        .iter()
        .map(|question| question_card(survey, question))
        .collect();
    let respondents = results.questions.iter().map(|q| q.n).max().unwrap_or(0);
    let needed = results.respondents_needed_for_5_percent.max(1);
    let confidence = Confidence::new(results.confidence).map_err(AppError::internal)?;
    let needed_10 = survey
        .questions
        .iter()
        .map(|q| respondents_needed_within(&q.design, PLANNED_HALF_WIDTHS[1], confidence))
        .try_fold(0, |most, needed| Ok::<_, AppError>(most.max(needed?)))?;
    let widest = results
        .questions
        .iter()
        .filter_map(widest_half_width)
        .reduce(f64::max);
    let confidence_percent = (results.confidence * 100.0).round() as u32;
    Ok(ResultsView {
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        status: survey.status.as_str(),
        open: survey.status == SurveyStatus::Open,
        requires_invitation: survey.requires_invitation,
        max_invitations: crate::domain::MAX_INVITATIONS_PER_REQUEST,
        invitations: None,
        min_cell: survey.min_cell.get(),
        confidence: format!("{}", results.confidence),
        confidence_percent,
        choices: CONFIDENCE_CHOICES
            .iter()
            .map(|&choice| (choice, choice == confidence_percent))
            .collect(),
        respondents,
        needed,
        needed_10,
        progress_value: respondents.min(needed),
        widest_half_width: widest.map_or_else(|| "–".to_owned(), |h| format!("±{}", percent(h))),
        cards,
        track_left: TRACK_LEFT,
        track_width: TRACK_WIDTH,
        respondent_link: respondent_link(request, &survey.slug)?,
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
    let mut view = results_view(&request, &survey, &computed)?;
    view.invitations = crate::http::releases::invitation_status(&db, &releases, &survey).await?;
    html(&ResultsPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        view,
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
