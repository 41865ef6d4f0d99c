//! Results and present mode: per question, by type, the estimates and their intervals
//! (computed by `crate::results` with the crate), a chart per question whose geometry the
//! server computes (the page's script maps refreshed values the same way, from the chart's
//! `data-` attributes), and the JSON the live pages refresh from.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use randomized_response::Confidence;
use serde::Deserialize;

use super::breakdown::BreakdownView;
use super::builder::design_label;
use super::design::PLANNED_HALF_WIDTHS;
use super::reading::{self, percent_with, Reading, READABLE_HALF_WIDTH};
use super::{html, see_other, Nav, Page};
use crate::db::Database;
use crate::domain::{InvitationCount, QuestionType, Slug, Survey, SurveyStatus};
use crate::error::AppError;
use crate::explain::{percent, Decimals};
use crate::http::api::invitations::invitations_download;
use crate::http::extract::{CsrfForm, SignedIn};
use crate::results::{
    parse_confidence, respondents_needed_within, survey_planned_sizes, Asked, IntervalBounds,
    Intervals, MeanResults, NullTest, OneSided, OneSidedBounds, PlannedSizes, Primary,
    QuestionResults, SurveyResults, PLANNING_HALF_WIDTH,
};
use crate::services::invitations;
use crate::services::results::{owned_breakdown, owned_results};
use crate::services::surveys::{self, find_owned};

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

fn interval_text(bounds: Option<IntervalBounds>, format: &impl Fn(f64) -> String) -> String {
    match bounds.map(|b| b.range()) {
        None => "–".to_owned(),
        Some(None) => "empty".to_owned(),
        Some(Some((low, high))) => format!("{} to {}", format(low), format(high)),
    }
}

/// Whether any interval of these targets is empty: the reports lie so far from anything
/// the design can produce that no value of the target is consistent with them.
fn any_empty<'a>(intervals: impl IntoIterator<Item = &'a Intervals>) -> bool {
    intervals.into_iter().any(|intervals| {
        [intervals.chernoff, intervals.exact, intervals.anytime]
            .iter()
            .flatten()
            .any(|bounds| bounds.empty)
    })
}

/// The results page's sentence under a question with an empty interval.
fn empty_interval_note(confidence: f64) -> String {
    format!(
        "An interval below is empty: at {} confidence no true value is consistent with these \
         reports, so the reports are not consistent with the question’s design. Fake responses \
         or a faulty client are the usual causes.",
        percent_with(confidence, 1)
    )
}

/// One interval in a table row, in the order the row shows them (the primary one first).
struct IntervalCell {
    /// `chernoff`, `exact` or `anytime`: the results JSON's name (and `data-field`).
    field: &'static str,
    /// The column's heading.
    name: &'static str,
    text: String,
    primary: bool,
}

/// The three methods, the primary one first (the rest in their usual order).
fn ordered(primary: Option<Primary>) -> Vec<Primary> {
    let mut order = vec![Primary::Chernoff, Primary::Exact, Primary::Anytime];
    if let Some(primary) = primary {
        order.retain(|method| *method != primary);
        order.insert(0, primary);
    }
    order
}

fn method_field(method: Primary) -> &'static str {
    match method {
        Primary::Anytime => "anytime",
        Primary::Exact => "exact",
        Primary::Chernoff => "chernoff",
    }
}

fn method_name(method: Primary) -> &'static str {
    match method {
        Primary::Anytime => "Anytime interval",
        Primary::Exact => "Exact interval",
        Primary::Chernoff => "Chernoff interval",
    }
}

/// A table's interval headings: the method's name, the primary one marked.
struct IntervalHeading {
    name: &'static str,
    primary: bool,
}

fn headings(primary: Option<Primary>) -> Vec<IntervalHeading> {
    ordered(primary)
        .into_iter()
        .map(|method| IntervalHeading {
            name: method_name(method),
            primary: Some(method) == primary,
        })
        .collect()
}

fn interval_cells(
    intervals: &Intervals,
    primary: Option<Primary>,
    format: impl Fn(f64) -> String,
) -> Vec<IntervalCell> {
    ordered(primary)
        .into_iter()
        .map(|method| IntervalCell {
            field: method_field(method),
            name: method_name(method),
            text: interval_text(intervals.get(method), &format),
            primary: Some(method) == primary,
        })
        .collect()
}

/// One share on a chart and in its table: a yes/no question's "Yes", or one option.
struct ShareRow {
    index: usize,
    label: String,
    reported: String,
    estimate: String,
    /// The chart's figure: the estimate, or while the question is too uncertain to read
    /// closely, its primary interval in whole percent ("5–45 %").
    headline: String,
    /// The primary method's one-sided bounds in words.
    bounds: String,
    /// The test of `?null=`, in words ("–" without one).
    test: String,
    intervals: Vec<IntervalCell>,
    has_data: bool,
    bar_width: String,
    low_x: String,
    high_x: String,
}

/// "at least L, at most U" from the primary method's one-sided bounds ("–" without).
fn bounds_text(
    bounds: Option<&OneSidedBounds>,
    primary: Option<Primary>,
    format: impl Fn(f64) -> String,
) -> String {
    let pick = |side: &OneSided| match primary? {
        Primary::Anytime => side.anytime,
        Primary::Exact => side.exact,
        Primary::Chernoff => side.chernoff,
    };
    match bounds.and_then(|b| Some((pick(&b.lower)?, pick(&b.upper)?))) {
        Some((low, high)) => format!("at least {}, at most {}", format(low), format(high)),
        None => "–".to_owned(),
    }
}

/// "p = 0.012 (anytime)" ("–" without a test).
fn test_text(test: Option<&NullTest>) -> String {
    match test.and_then(|t| Some((t.p_value?, t.test?))) {
        Some((p, test)) => format!("p = {} ({})", p_text(p), method_field(test)),
        None => "–".to_owned(),
    }
}

/// A p-value with three significant digits, or "< 0.0001".
fn p_text(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".to_owned()
    } else {
        format!("{p:.4}")
    }
}

/// One share's figures as the results give them.
struct Share<'a> {
    reported: Option<u64>,
    estimate_clipped: Option<f64>,
    intervals: &'a Intervals,
    primary: Option<Primary>,
    bounds: Option<&'a OneSidedBounds>,
    test: Option<&'a NullTest>,
    /// The question's intervals are narrow enough to read its estimates closely.
    readable: bool,
}

fn share_row(index: usize, label: String, share: Share<'_>) -> ShareRow {
    let Share {
        reported,
        estimate_clipped,
        intervals,
        primary,
        bounds,
        test,
        readable,
    } = share;
    // The chart draws the primary interval.
    let drawn = primary
        .and_then(|method| intervals.get(method))
        .and_then(|b| b.range());
    let shown = |share: f64| percent_with(share, 1);
    let estimate = estimate_clipped.map_or_else(|| "–".to_owned(), shown);
    ShareRow {
        index,
        label,
        reported: reported.map_or_else(|| "–".to_owned(), |n| n.to_string()),
        headline: match drawn {
            Some(bounds) if !readable => reading::rough_range(bounds, true, 0),
            _ => estimate.clone(),
        },
        estimate,
        bounds: bounds_text(bounds, primary, shown),
        test: test_text(test),
        intervals: interval_cells(intervals, primary, shown),
        has_data: estimate_clipped.is_some() && drawn.is_some(),
        bar_width: track_x(estimate_clipped.unwrap_or(0.0), 0.0, 1.0),
        low_x: track_x(drawn.map_or(0.0, |(low, _)| low), 0.0, 1.0),
        high_x: track_x(drawn.map_or(0.0, |(_, high)| high), 0.0, 1.0),
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
    /// The chart's figure: the estimate, or its primary interval while the question is too
    /// uncertain to read closely.
    headline: String,
    headings: Vec<IntervalHeading>,
    intervals: Vec<IntervalCell>,
    /// The primary method's one-sided bounds in words.
    bounds: String,
    primary_name: &'static str,
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

fn mean_view(label: String, mean: &MeanResults, readable: bool) -> MeanView {
    let (min, max) = (mean.min, mean.max);
    let decimals = decimals(max - min);
    let number = |value: f64| format!("{value:.decimals$}");
    let drawn = mean
        .primary
        .and_then(|method| mean.intervals.get(method))
        .and_then(|b| b.range());
    let estimate = mean.estimate_clipped.map_or_else(|| "–".to_owned(), number);
    MeanView {
        label,
        min,
        max,
        decimals,
        axis: [number(min), number((min + max) / 2.0), number(max)],
        headline: match drawn {
            Some(bounds) if !readable => reading::rough_range(bounds, false, decimals),
            _ => estimate.clone(),
        },
        estimate,
        headings: headings(mean.primary),
        intervals: interval_cells(&mean.intervals, mean.primary, number),
        bounds: bounds_text(mean.bounds.as_ref(), mean.primary, number),
        primary_name: mean.primary.map_or("", |method| method_field(method)),
        has_data: mean.estimate_clipped.is_some() && drawn.is_some(),
        estimate_x: track_x(mean.estimate_clipped.unwrap_or(min), min, max),
        low_x: track_x(drawn.map_or(min, |(low, _)| low), min, max),
        high_x: track_x(drawn.map_or(min, |(_, high)| high), min, max),
    }
}

/// One question's results, as a card.
struct QuestionCard {
    id: i64,
    /// The form's number (grouping questions included).
    number: u32,
    text: String,
    label: String,
    epsilon: String,
    n: u64,
    yes_no: bool,
    /// Yes/no: the one share "Yes"; choice and ordinal: every option; number: none.
    shares: Vec<ShareRow>,
    /// The shares' table headings, the primary interval first.
    share_headings: Vec<IntervalHeading>,
    /// `anytime`, `exact` or `chernoff`: the shares' primary interval ("" while blinded).
    share_primary: &'static str,
    mean: Option<MeanView>,
    needed_5: u64,
    /// The reports contradict the design (the consistency e-value passed 1 000).
    flagged: bool,
    /// Why an interval of this question is empty, in words; `None` when none is.
    empty_note: Option<String>,
    /// The consistency check in words (inside the card's details).
    consistency: Option<String>,
    /// Every primary interval within ±`READABLE_HALF_WIDTH`: estimates shown as such.
    readable: bool,
    /// The card's sentence (None without an interval, or when flagged).
    reading: Option<Reading>,
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

fn question_card(survey: &Survey, question: &QuestionResults, confidence: f64) -> QuestionCard {
    let asked = survey.questions.iter().find(|q| q.id.get() == question.id);
    let design = asked.map(|q| design_label(&q.design)).unwrap_or_default();
    let readable = reading::readable(question);
    let mut shares = Vec::new();
    let mut share_primary = None;
    if question.question_type == QuestionType::YesNo {
        share_primary = question.primary;
        shares.push(share_row(
            1,
            "Yes".to_owned(),
            Share {
                reported: question.reported_yes,
                estimate_clipped: question.estimate_clipped,
                intervals: &question.intervals,
                primary: question.primary,
                bounds: question.bounds.as_ref(),
                test: question.test.as_ref(),
                readable,
            },
        ));
    }
    for (index, option) in question.options.iter().flatten().enumerate() {
        share_primary = option.primary;
        shares.push(share_row(
            index,
            option.label.clone(),
            Share {
                reported: option.reported,
                estimate_clipped: option.estimate_clipped,
                intervals: &option.intervals,
                primary: option.primary,
                bounds: option.bounds.as_ref(),
                test: option.test.as_ref(),
                readable,
            },
        ));
    }
    // Reports that contradict the design: a warning instead of a confident figure.
    let flagged = question.consistency.is_some_and(|check| check.flagged);
    if flagged {
        for share in &mut shares {
            share.estimate = "not shown".to_owned();
            share.headline = "not shown".to_owned();
            share.has_data = false;
        }
    }
    let mean = question.mean.as_ref().map(|mean| {
        let label = match (question.question_type, question.options.as_deref()) {
            (QuestionType::Ordinal, Some([first, .., last])) => format!(
                "Mean level (1 = {} … {} = {})",
                first.label,
                question.options.as_ref().map_or(0, Vec::len),
                last.label
            ),
            (QuestionType::Ordinal, _)
            | (QuestionType::YesNo | QuestionType::Choice | QuestionType::Number, _) => {
                format!("Mean (from {} to {})", mean.min, mean.max)
            }
        };
        mean_view(label, mean, readable)
    });
    let empty = any_empty(
        std::iter::once(&question.intervals)
            .chain(question.options.iter().flatten().map(|o| &o.intervals))
            .chain(question.mean.iter().map(|m| &m.intervals)),
    );
    let mean_decimals = mean.as_ref().map_or(0, |mean| mean.decimals);
    QuestionCard {
        empty_note: empty.then(|| empty_interval_note(confidence)),
        id: question.id,
        number: asked.map_or(question.position + 1, |q| q.number()),
        text: question.text.clone(),
        label: design,
        epsilon: format!("{:.2}", question.epsilon),
        n: question.n,
        yes_no: question.question_type == QuestionType::YesNo,
        shares,
        share_headings: headings(share_primary),
        share_primary: share_primary.map_or("", method_field),
        mean,
        needed_5: question.respondents_needed_for_5_percent,
        flagged,
        consistency: question.consistency.map(|check| {
            format!(
                "Consistency check: e-value {:.2} (p = {}); a warning shows above {}.",
                check.ln_e_value.exp(),
                p_text(check.p_value),
                check.threshold
            )
        }),
        readable,
        reading: if flagged {
            None
        } else {
            reading::reading(question, mean_decimals)
        },
    }
}

struct ResultsView {
    slug: String,
    title: String,
    status: &'static str,
    open: bool,
    /// Closed: the figures are final and the page stops refreshing.
    closed: bool,
    /// `READABLE_HALF_WIDTH`, for the page's script.
    readable_half_width: f64,
    /// `READABLE_HALF_WIDTH` in points, for the page's explanation.
    readable_percent: String,
    requires_invitation: bool,
    max_invitations: u32,
    /// The key fingerprint of every invitation link and the redemptions released.
    invitations: Option<crate::services::releases::InvitationStatus>,
    /// k: the live figures move in releases of at least this many responses.
    min_cell: u32,
    /// What is released and withheld (every survey).
    release: ReleaseLine,
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
    /// Fixed in advance, open, not unblinded: n only.
    blinded: bool,
    /// A stopping rule was set before opening.
    fixed: bool,
    /// The rule in words: "closes at 2 000 responses or at 2027-01-31T23:59:00Z".
    rule_text: String,
    target_responses: Option<u64>,
    target_progress: u64,
    /// `anytime`, `exact` or `chernoff` ("" while blinded).
    primary: &'static str,
    primary_reason: String,
    unblinded_at: Option<u64>,
    /// Respondents for ±5 % by each way's primary interval, and Chernoff's guarantee.
    sizes: PlannedSizes,
    /// The share tested (`?null=`) as the form shows it ("" without a test).
    null: String,
    /// Bonferroni across every target.
    simultaneous: bool,
    /// The level each target is computed at, in percent ("99.2") when simultaneous.
    per_target_percent: String,
    /// The live JSON's query: the page's confidence, test and simultaneity.
    live_query: String,
}

/// A stopping rule in words.
fn rule_text(survey: &Survey) -> String {
    let rule = survey.stopping_rule;
    match (rule.target_responses(), rule.closes_at()) {
        (Some(target), Some(at)) => {
            format!("it closes at {target} responses or at {at}, whichever comes first")
        }
        (Some(target), None) => format!("it closes at {target} responses"),
        (None, Some(at)) => format!("it closes at {at}"),
        (None, None) => String::new(),
    }
}

/// The results page's line on releases (docs/design.md, invariant 11).
struct ReleaseLine {
    /// Null while the survey withholds its results until close.
    released: Option<u64>,
    withheld: Option<u64>,
    why: String,
    /// While open and nothing is released yet: why nothing shows after the first answers.
    first_release: Option<String>,
}

impl ReleaseLine {
    fn of(release: &crate::results::ReleaseSummary, survey: &Survey) -> Self {
        use crate::results::ReleaseReason;
        let k = survey.min_cell.get();
        let first = survey.min_cell.release_threshold(true);
        let whole = if survey.groupings.is_empty() {
            "the survey's responses are shown in batches"
        } else {
            "each combination of grouping answers is shown in batches"
        };
        let why = match release.reason {
            ReleaseReason::Waiting => format!(
                "{whole} of at least {first} new responses; next considered at {}",
                release.considered_at + u64::from(k)
            ),
            ReleaseReason::ResultsAfterClose => {
                "no result, and nothing about which responses were released, is shown until \
                 the survey closes (results after close)"
                    .to_owned()
            }
            ReleaseReason::Closed => format!(
                "withheld responses are those of a combination of grouping answers that never \
                 reached {k} new ones, or of a batch that withdrawals left below {k}: they stay \
                 out of every figure and export"
            ),
        };
        let first_release = (release.reason == ReleaseReason::Waiting
            && release.released_responses == Some(0))
        .then(|| {
            format!(
                "Nothing shows yet: the first figures appear once {first} responses have \
                 arrived, so that no change on this page can be tied to one respondent."
            )
        });
        Self {
            released: release.released_responses,
            withheld: release.withheld_responses,
            why,
            first_release,
        }
    }
}

fn results_view(
    request: &HttpRequest,
    survey: &Survey,
    results: &SurveyResults,
) -> Result<ResultsView, AppError> {
    let cards = results
        .questions
        .iter()
        .map(|question| question_card(survey, question, results.per_target_confidence))
        .collect();
    // Responses received (the figures below count the released ones: the release line).
    let respondents = results.responses;
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
    let sizes = survey_planned_sizes(survey, PLANNING_HALF_WIDTH, confidence)?;
    let confidence_percent = (results.confidence * 100.0).round() as u32;
    Ok(ResultsView {
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        status: survey.status.as_str(),
        open: survey.status == SurveyStatus::Open,
        closed: survey.status == SurveyStatus::Closed,
        readable_half_width: READABLE_HALF_WIDTH,
        readable_percent: percent(READABLE_HALF_WIDTH, Decimals::Fixed(0)),
        requires_invitation: survey.requires_invitation,
        release: ReleaseLine::of(&results.release, survey),
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
        widest_half_width: widest
            .map_or_else(|| "–".to_owned(), |h| format!("±{}", percent_with(h, 1))),
        cards,
        track_left: TRACK_LEFT,
        track_width: TRACK_WIDTH,
        respondent_link: respondent_link(request, &survey.slug)?,
        blinded: results.blinded,
        fixed: survey.stopping_rule.is_fixed(),
        rule_text: rule_text(survey),
        target_responses: results.target_responses,
        target_progress: results
            .target_responses
            .map_or(0, |target| respondents.min(target)),
        primary: results.primary.map_or("", method_field),
        primary_reason: results.primary_reason.clone(),
        unblinded_at: results.unblinded_at_responses,
        sizes,
        null: results
            .null
            .map_or_else(String::new, |null| null.to_string()),
        simultaneous: results.simultaneous,
        per_target_percent: percent(results.per_target_confidence, Decimals::Fixed(2)),
        live_query: format!(
            "confidence={}{}{}",
            results.confidence,
            results
                .null
                .map_or_else(String::new, |null| format!("&null={null}")),
            if results.simultaneous {
                "&simultaneous=true"
            } else {
                ""
            }
        ),
    })
}

/// The absolute respondent link: the public URL's, or as the browser reached this server.
pub(super) fn respondent_link(request: &HttpRequest, slug: &Slug) -> Result<String, AppError> {
    Ok(format!("{}/s/{slug}", crate::http::origin(request)?))
}

/// The live pages' query: the confidence level, the share to test, and whether the
/// intervals are simultaneous (Bonferroni); the results page also takes the grouping
/// question to break the results down by (default: the first).
#[derive(Deserialize)]
pub struct ResultsPageQuery {
    confidence: Option<f64>,
    /// Blank (the page's form sends the field empty) is no test.
    #[serde(default, deserialize_with = "blank_or_number")]
    null: Option<f64>,
    /// The page's checkbox: present when on.
    simultaneous: Option<String>,
    by: Option<i64>,
    /// Present mode's switch: `1` hides the estimates until the presenter reveals them.
    hide: Option<String>,
}

fn blank_or_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<f64>, D::Error> {
    let text = Option::<String>::deserialize(deserializer)?;
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => text.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// Every parameter of [`ResultsPageQuery`] by name: the list the disclosure auditor reads
/// the live pages with (tests/api/disclosure/reads.rs). The test below fails to compile when
/// a field is added and not listed.
pub const RESULTS_PAGE_PARAMETERS: &[&str] = &["confidence", "null", "simultaneous", "by", "hide"];

impl ResultsPageQuery {
    fn asked(&self) -> Result<Asked, AppError> {
        Ok(Asked {
            confidence: parse_confidence(self.confidence)?,
            null: Asked::parse_null(self.null)?,
            simultaneous: matches!(self.simultaneous.as_deref(), Some("on" | "true")),
        })
    }
}

#[derive(Template)]
#[template(path = "workspace/results.html")]
struct ResultsPage {
    nav: Option<Nav>,
    csrf: String,
    view: ResultsView,
    /// The breakdown by a grouping question, for a survey that has one.
    breakdown: Option<BreakdownView>,
}

/// GET /surveys/{slug}/results?confidence=0.95
pub async fn results_page(
    request: HttpRequest,
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ResultsPageQuery>,
) -> Page {
    let (survey, computed) =
        owned_results(&db, &slug, signed_in.0.researcher, query.asked()?).await?;
    let mut view = results_view(&request, &survey, &computed)?;
    view.invitations = crate::services::releases::invitation_status(&db, &survey).await?;
    let by = query
        .by
        .filter(|by| survey.groupings.iter().any(|g| g.id.get() == *by))
        .or_else(|| survey.groupings.first().map(|g| g.id.get()));
    let breakdown = match by {
        Some(by) => {
            let breakdown =
                owned_breakdown(&db, &slug, signed_in.0.researcher, by, query.confidence).await?;
            Some(BreakdownView::of(
                &survey,
                &breakdown,
                view.confidence_percent,
            ))
        }
        None => None,
    };
    html(&ResultsPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        view,
        breakdown,
    })
}

/// POST /surveys/{slug}/unblind: the results page's button; recorded for good.
pub async fn unblind(
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let survey = surveys::unblind(&db, &slug, session.researcher).await?;
    Ok(see_other(&format!("/surveys/{}/results", survey.slug)))
}

#[derive(Deserialize)]
pub struct InvitationsForm {
    count: u32,
}

/// POST /surveys/{slug}/invitations: N single-use invitation links, downloaded as the
/// mail-merge CSV; the codes exist only in this response.
pub async fn download_invitations(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, form }: CsrfForm<InvitationsForm>,
) -> Page {
    let survey = find_owned(&db, &slug, session.researcher).await?;
    let count = InvitationCount::parse(form.count)?;
    let origin = crate::http::origin(&request)?;
    let codes = invitations::create(&db, &survey, count).await?;
    Ok(invitations_download(
        &origin,
        actix_web::http::StatusCode::OK,
        &survey.slug,
        &codes,
    ))
}

/// GET /surveys/{slug}/results.json?confidence=0.95: what the live pages refresh from, the
/// results JSON of the released figures (as `GET /api/surveys/{slug}/results`).
pub async fn live_results(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ResultsPageQuery>,
) -> Page {
    let (_, computed) = owned_results(&db, &slug, signed_in.0.researcher, query.asked()?).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(computed))
}

#[derive(Template)]
#[template(path = "workspace/present.html")]
struct PresentPage {
    view: ResultsView,
    qr_svg: String,
    /// The room sees the link and the count only, not the estimates (so that answers
    /// still to come are not swayed by them). Kept in the URL (`?hide=1`): it survives a
    /// reload and a refresh, needs no script and no server state, and each screen has its
    /// own; the estimates are then not in the page at all, not merely hidden by style.
    hidden: bool,
    /// The respondent link points at this machine only: phones cannot reach it.
    loopback: bool,
    /// The page's query without the switch, for the switch's form.
    null: String,
    simultaneous: bool,
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
    signed_in: SignedIn,
    slug: web::Path<String>,
    query: web::Query<ResultsPageQuery>,
) -> Page {
    let (survey, computed) =
        owned_results(&db, &slug, signed_in.0.researcher, query.asked()?).await?;
    let view = results_view(&request, &survey, &computed)?;
    let qr_svg = qr_svg(&view.respondent_link)?;
    html(&PresentPage {
        loopback: crate::http::public_url::is_loopback_link(&view.respondent_link),
        hidden: matches!(query.hide.as_deref(), Some("1" | "on" | "true")),
        null: view.null.clone(),
        simultaneous: view.simultaneous,
        qr_svg,
        view,
    })
}

#[cfg(test)]
mod parameter_tests {
    use super::*;

    #[test]
    fn the_parameter_list_names_every_field_of_the_page_query() {
        let query: ResultsPageQuery = serde_json::from_value(serde_json::json!({
            "confidence": 0.9, "null": "0.5", "simultaneous": "on", "by": 1, "hide": "1"
        }))
        .unwrap();
        // Exhaustive: a new field breaks this line until it is listed.
        let ResultsPageQuery {
            confidence,
            null,
            simultaneous,
            by,
            hide,
        } = query;
        let given = [
            ("confidence", confidence.is_some()),
            ("null", null.is_some()),
            ("simultaneous", simultaneous.is_some()),
            ("by", by.is_some()),
            ("hide", hide.is_some()),
        ];
        assert!(given.iter().all(|(_, read)| *read));
        let names: Vec<&str> = given.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, RESULTS_PAGE_PARAMETERS);
    }
}
