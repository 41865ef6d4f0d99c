//! GET /s/{slug}: the respondent's form, one view per question type. The page holds the
//! questions; form.js reads the design from the public definition and randomizes there.
//!
//! The page is rendered from the survey's public definition alone ([`form_page`]), the value
//! `GET /api/surveys/{slug}` serves: `deniable verify` renders it from the JSON with the same
//! function and compares the served page byte for byte (src/verify/).

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use super::respondent_error::{find_survey_page, RespondentPageError};
use crate::db::Database;
use crate::domain::{EmbedOrigins, QuestionDesign, QuestionType, SurveyStatus};
use crate::error::AppError;
use crate::explain::{explain_in, report_label};
use crate::http::api::docs::SlugPath;
use crate::http::public_definition::{served, FormQuestion, PublicDefinition, PublicGrouping};
use crate::i18n::{catalog, escape, Arg, Catalog};

#[derive(Template)]
#[template(path = "survey.html")]
struct SurveyPage {
    /// The form's own words, in the survey's language.
    t: &'static Catalog,
    /// The owner's preview: a banner, and nothing can be sent.
    preview: bool,
    slug: String,
    title: String,
    description: String,
    /// "This survey is run by …" (HTML), when the survey names its researcher.
    run_by: Option<String>,
    /// "Questions about it: <a>…</a>." (HTML), when it gives a contact.
    contact: Option<String>,
    /// The information-and-consent text the respondent confirms before anything is sent.
    consent: Option<String>,
    status_note: Option<String>,
    accepting: bool,
    /// The privacy paragraph with the survey's total ε (HTML).
    privacy_sent: String,
    /// Who sees what (docs/design.md, invariant 11): the researcher, someone who runs the
    /// server or fabricates responses; beside the total ε.
    privacy_owner: String,
    /// "View or withdraw your response with this receipt." with its link (HTML).
    receipt_link: String,
    /// The scripts' messages (JSON), for `data-messages`.
    messages: String,
    questions: Vec<QuestionView>,
    /// The grouping questions' texts, listed beside the total ε ("" without any).
    unrandomized: String,
    /// The most answers the mechanism randomizes at once, for `data-max-questions`: the
    /// script checks it before writing records into the module's buffer.
    max_questions: usize,
}

/// One question as the form shows it.
struct QuestionView {
    id: i64,
    number: u32,
    text: String,
    /// `yes_no`, `choice`, `ordinal` or `number`: the input the page shows.
    kind: &'static str,
    /// Radio buttons (yes/no, choice, ordinal).
    choices: Vec<ChoiceView>,
    /// A number's bounds and input step.
    bounds: Option<NumberBounds>,
    /// Each report in words, by report value, for the lists of sent reports (JSON).
    report_labels: String,
    /// One line on what the device does.
    plain: String,
    /// What an observer of the report learns (one tap away).
    observer: String,
}

/// One radio button: the value given to the mechanism, its element id suffix and label.
struct ChoiceView {
    value: usize,
    suffix: String,
    label: String,
}

struct NumberBounds {
    /// For the inputs' attributes (English notation, as HTML wants).
    min: String,
    max: String,
    /// "1" for whole-number bounds (counts), "any" otherwise.
    step: &'static str,
    /// The bounds as sentences write them ("0,5" in German), for the label and the script.
    min_text: String,
    max_text: String,
    /// "Your number, from 0 to 30", and the same for the slider.
    label: String,
    slider_label: String,
}

impl SurveyPage {
    /// The page for a public definition: its only input (besides `preview`), so that the
    /// server and `deniable verify` render the same bytes from the same definition. A
    /// definition this binary would not have written (a design whose figures do not match,
    /// a contact that is not one) is refused, never rendered.
    fn of(definition: &PublicDefinition, preview: bool) -> Result<Self, AppError> {
        let intro = definition.intro()?;
        let t = catalog(intro.language());
        let mut questions = Vec::with_capacity(definition.questions.len());
        let mut groupings = Vec::new();
        for question in definition.form_questions()? {
            questions.push(match question {
                FormQuestion::Randomized { question, design } => {
                    randomized_view(question.id, question.position, &question.text, &design, t)?
                }
                FormQuestion::Grouping(grouping) => {
                    groupings.push(grouping.text.as_str());
                    grouping_view(grouping, definition.min_cell, t)?
                }
            });
        }
        let unrandomized = if groupings.is_empty() {
            String::new()
        } else {
            let sentence = t.with(
                "grouping-unrandomized",
                &[("questions", groupings.join("; ").as_str().into())],
            );
            // The last question's own ? or . ends the sentence ("compete in?", not "in?.").
            if sentence.ends_with(['.', '?', '!', ':', '。', '？']) {
                sentence
            } else {
                sentence + "."
            }
        };
        let total_epsilon = t.decimal(&format!("{:.2}", definition.total_epsilon));
        let slug = &definition.slug;
        Ok(Self {
            unrandomized,
            max_questions: crate::domain::MAX_QUESTIONS,
            t,
            preview,
            slug: slug.clone(),
            run_by: (!intro.researcher().is_empty()).then(|| {
                t.markup(
                    "intro-run-by",
                    &[(
                        "researcher",
                        format!("<strong>{}</strong>", escape(intro.researcher())),
                    )],
                )
            }),
            contact: intro.contact().map(|contact| {
                t.markup(
                    "intro-contact",
                    &[(
                        "contact",
                        format!(
                            "<a id=\"contact\" href=\"{}\" rel=\"noopener noreferrer\">{}</a>",
                            escape(&contact.href()),
                            escape(contact.as_str())
                        ),
                    )],
                )
            }),
            consent: intro.consent().map(str::to_owned),
            privacy_sent: t.markup(
                "privacy-sent",
                &[
                    (
                        "reports",
                        format!("<em>{}</em>", escape(&t.text("privacy-reports-term"))),
                    ),
                    (
                        "epsilon",
                        format!(
                            "<strong>ε = <span id=\"total-epsilon\">{}</span></strong>",
                            escape(&total_epsilon)
                        ),
                    ),
                ],
            ),
            // Every survey shows its owner totals of released responses only (docs/design.md,
            // invariant 11).
            privacy_owner: t.with(
                "privacy-owner-totals",
                &[
                    ("k", Arg::Count(u64::from(definition.min_cell))),
                    (
                        "after",
                        if definition.results_after_close {
                            "yes"
                        } else {
                            "no"
                        }
                        .into(),
                    ),
                ],
            ),
            receipt_link: t.markup(
                "receipt-link",
                &[(
                    "link",
                    format!(
                        // A new tab: the receipt page refuses every frame, and a framed
                        // form's link would otherwise open inside the frame.
                        "<a id=\"receipt-link\" href=\"/s/{}/receipt\" target=\"_blank\" \
                         rel=\"noopener\">{}</a>",
                        escape(slug),
                        escape(&t.text("receipt-link-text"))
                    ),
                )],
            ),
            messages: t.script_messages(),
            status_note: match definition.status {
                SurveyStatus::Draft => Some(t.text("status-draft")),
                SurveyStatus::Open => None,
                SurveyStatus::Closed => Some(t.text("status-closed")),
            },
            accepting: !preview && definition.status == SurveyStatus::Open,
            title: definition.title.clone(),
            description: definition.description.clone(),
            questions,
        })
    }
}

/// A randomized question as the form shows it.
fn randomized_view(
    id: i64,
    position: u32,
    text: &str,
    design: &QuestionDesign,
    t: &Catalog,
) -> Result<QuestionView, AppError> {
    let explained = explain_in(design, t)?;
    let choices = match design.question_type() {
        // Yes first, as the first release showed it.
        QuestionType::YesNo => vec![
            ChoiceView {
                value: 1,
                suffix: "yes".to_owned(),
                label: t.text("answer-yes"),
            },
            ChoiceView {
                value: 0,
                suffix: "no".to_owned(),
                label: t.text("answer-no"),
            },
        ],
        QuestionType::Choice | QuestionType::Ordinal => {
            choice_views(design.options().unwrap_or_default())
        }
        QuestionType::Number => Vec::new(),
    };
    let bounds = match (design.fields().min, design.fields().max) {
        (Some(min), Some(max)) => {
            let (min_text, max_text) = (t.decimal(&format!("{min}")), t.decimal(&format!("{max}")));
            let range = [
                ("min", min_text.as_str().into()),
                ("max", max_text.as_str().into()),
            ];
            Some(NumberBounds {
                min: format!("{min}"),
                max: format!("{max}"),
                step: if min.fract() == 0.0 && max.fract() == 0.0 {
                    "1"
                } else {
                    "any"
                },
                label: t.with("number-label", &range),
                slider_label: t.with("number-slider", &range),
                min_text: min_text.clone(),
                max_text: max_text.clone(),
            })
        }
        _ => None,
    };
    let labels: Vec<String> = (0..design.reports())
        .map(|report| report_label(design, report as u8, t))
        .collect();
    Ok(QuestionView {
        id,
        number: position + 1,
        text: text.to_owned(),
        kind: design.question_type().as_str(),
        choices,
        bounds,
        report_labels: serde_json::to_string(&labels).map_err(AppError::internal)?,
        plain: explained.plain,
        observer: explained.observer,
    })
}

fn choice_views(labels: &[String]) -> Vec<ChoiceView> {
    labels
        .iter()
        .enumerate()
        .map(|(value, label)| ChoiceView {
            value,
            suffix: value.to_string(),
            label: label.clone(),
        })
        .collect()
}

// --- grouping questions (issue 18): not randomized, shown like a choice -------------------

/// A grouping question renders like a choice (kind `grouping`), with its plain line "This
/// answer is sent as you give it — it is not randomized"; the sentence beside the total ε
/// lists the grouping questions.
fn grouping_view(
    grouping: &PublicGrouping,
    min_cell: u32,
    t: &Catalog,
) -> Result<QuestionView, AppError> {
    Ok(QuestionView {
        id: grouping.id,
        number: grouping.position + 1,
        text: grouping.text.clone(),
        kind: "grouping",
        choices: choice_views(&grouping.options),
        bounds: None,
        report_labels: serde_json::to_string(&grouping.options).map_err(AppError::internal)?,
        plain: t.text("grouping-plain"),
        observer: t.with(
            "grouping-observer",
            &[("k", Arg::Count(u64::from(min_cell)))],
        ),
    })
}

/// The respondent's form and the headers it is served with.
pub struct FormPage {
    pub html: String,
    /// Lower-case names and values: the content type and every header that confines the page
    /// (see [`form_headers`]).
    pub headers: Vec<(&'static str, String)>,
}

/// The respondent's form for a public definition, and its headers: the one function behind
/// both GET /s/{slug} and `deniable verify`.
pub fn form_page(definition: &PublicDefinition) -> Result<FormPage, AppError> {
    Ok(FormPage {
        html: SurveyPage::of(definition, false)?.render()?,
        headers: form_headers(&definition.frame_ancestors()?),
    })
}

/// The headers of a survey's form: its content type (a page read in another type or
/// character set would run other code) and the ones that confine it — the
/// Content-Security-Policy, `X-Content-Type-Options`, `Referrer-Policy` and the frame policy
/// ([`super::SECURITY_HEADERS`]). The frame policy is the survey's: `frame-ancestors`
/// names the origins that may embed it, and `X-Frame-Options` (which can name no origin)
/// is left out for such a survey; without any, `'none'` and `DENY` as on every page. No
/// `report-uri`: a report would send the page's address to a server.
pub fn form_headers(embed_origins: &EmbedOrigins) -> Vec<(&'static str, String)> {
    let mut headers = vec![("content-type", "text/html; charset=utf-8".to_owned())];
    for (name, value) in crate::http::SECURITY_HEADERS {
        match name {
            "content-security-policy" if !embed_origins.is_empty() => headers.push((
                name,
                crate::http::content_security_policy(&embed_origins.as_slice().join(" ")),
            )),
            "x-frame-options" if !embed_origins.is_empty() => {}
            _ => headers.push((name, value.to_owned())),
        }
    }
    headers
}

/// GET /s/{slug}: the form.
///
/// The respondent's page (HTML): its script fetches the definition, draws the reports on
/// the device and posts them. Drafts are 404 here as on every public route.
#[utoipa::path(
    get,
    path = "/s/{slug}",
    tag = "respondent",
    params(SlugPath),
    responses(
        (status = 200, description = "The survey's form.", body = String,
            content_type = "text/html; charset=utf-8"),
        (status = 404, description = "No such survey, or a draft: an HTML page in the form's \
            style, in the language the browser prefers.", body = String,
            content_type = "text/html; charset=utf-8"),
    )
)]
pub async fn form(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, RespondentPageError> {
    let survey = find_survey_page(&request, &db, &slug).await?;
    let language = survey.intro.language();
    let on_page = |error| RespondentPageError { error, language };
    let definition = served(&db, &survey).await.map_err(on_page)?;
    let page = form_page(&definition).map_err(on_page)?;
    let mut response = HttpResponse::Ok();
    for header in page.headers {
        response.insert_header(header);
    }
    Ok(response.body(page.html))
}

/// The form exactly as respondents see it, with a preview banner and sending disabled.
pub(super) fn preview_html(definition: &PublicDefinition) -> Result<String, AppError> {
    Ok(SurveyPage::of(definition, true)?.render()?)
}
