//! GET /s/{slug}: the respondent's form, one view per question type. The page holds the
//! questions; form.js reads the design from the public definition and randomizes there.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use super::openapi::SlugPath;
use super::respondent::{find_survey_page, RespondentPageError};
use crate::db::Database;
use crate::domain::{QuestionType, Survey, SurveyStatus};
use crate::error::AppError;
use crate::explain::{explain_in, report_label};
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
    fn of(survey: Survey, preview: bool) -> Result<Self, AppError> {
        let t = catalog(survey.intro.language());
        let questions = survey
            .questions
            .iter()
            .map(|question| {
                let design = &question.design;
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
                    QuestionType::Choice | QuestionType::Ordinal => design
                        .options()
                        .unwrap_or_default()
                        .iter()
                        .enumerate()
                        .map(|(value, label)| ChoiceView {
                            value,
                            suffix: value.to_string(),
                            label: label.clone(),
                        })
                        .collect(),
                    QuestionType::Number => Vec::new(),
                };
                let bounds = match (design.fields().min, design.fields().max) {
                    (Some(min), Some(max)) => {
                        let (min_text, max_text) =
                            (t.decimal(&format!("{min}")), t.decimal(&format!("{max}")));
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
                    id: question.id.get(),
                    number: question.position + 1,
                    text: question.text.clone(),
                    kind: design.question_type().as_str(),
                    choices,
                    bounds,
                    report_labels: serde_json::to_string(&labels).map_err(AppError::internal)?,
                    plain: explained.plain,
                    observer: explained.observer,
                })
            })
            .collect::<Result<Vec<_>, AppError>>()?;
        let (questions, unrandomized) = with_groupings(&survey, questions, t)?;
        let intro = &survey.intro;
        let total_epsilon = t.decimal(&format!("{:.2}", survey.total_epsilon()));
        Ok(Self {
            unrandomized,
            t,
            preview,
            slug: survey.slug.to_string(),
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
            privacy_owner: if survey.shows_released_only() {
                t.with(
                    "privacy-owner-totals",
                    &[
                        ("k", Arg::Count(u64::from(survey.min_cell.get()))),
                        (
                            "after",
                            if survey.results_after_close {
                                "yes"
                            } else {
                                "no"
                            }
                            .into(),
                        ),
                    ],
                )
            } else {
                t.text("privacy-owner-reports")
            },
            receipt_link: t.markup(
                "receipt-link",
                &[(
                    "link",
                    format!(
                        "<a id=\"receipt-link\" href=\"/s/{}/receipt\">{}</a>",
                        escape(survey.slug.as_str()),
                        escape(&t.text("receipt-link-text"))
                    ),
                )],
            ),
            messages: t.script_messages(),
            status_note: match survey.status {
                SurveyStatus::Draft => Some(t.text("status-draft")),
                SurveyStatus::Open => None,
                SurveyStatus::Closed => Some(t.text("status-closed")),
            },
            accepting: !preview && survey.status == SurveyStatus::Open,
            title: survey.title,
            description: survey.description,
            questions,
        })
    }
}

// --- grouping questions (issue 18): not randomized, shown like a choice -------------------

/// The randomized questions' views with the grouping questions' added in position order
/// (a grouping question renders like a choice: kind `grouping`, with its plain line "This
/// answer is sent as you give it — it is not randomized"), and the sentence beside the total
/// ε that lists them ("" without any).
fn with_groupings(
    survey: &Survey,
    mut questions: Vec<QuestionView>,
    t: &Catalog,
) -> Result<(Vec<QuestionView>, String), AppError> {
    for grouping in &survey.groupings {
        let labels = &grouping.options;
        questions.push(QuestionView {
            id: grouping.id.get(),
            number: grouping.position + 1,
            text: grouping.text.clone(),
            kind: "grouping",
            choices: labels
                .iter()
                .enumerate()
                .map(|(value, label)| ChoiceView {
                    value,
                    suffix: value.to_string(),
                    label: label.clone(),
                })
                .collect(),
            bounds: None,
            report_labels: serde_json::to_string(labels).map_err(AppError::internal)?,
            plain: t.text("grouping-plain"),
            observer: t.with(
                "grouping-observer",
                &[("k", Arg::Count(u64::from(survey.min_cell.get())))],
            ),
        });
    }
    questions.sort_by_key(|question| question.number);
    if survey.groupings.is_empty() {
        return Ok((questions, String::new()));
    }
    let texts: Vec<&str> = survey.groupings.iter().map(|g| g.text.as_str()).collect();
    let unrandomized = t.with(
        "grouping-unrandomized",
        &[("questions", texts.join("; ").as_str().into())],
    );
    Ok((questions, unrandomized))
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
    let html = SurveyPage::of(survey, false)
        .and_then(|page| Ok(page.render()?))
        .map_err(|error| RespondentPageError { error, language })?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(html))
}

/// The form exactly as respondents see it, with a preview banner and sending disabled.
pub(super) fn preview_html(survey: Survey) -> Result<String, AppError> {
    Ok(SurveyPage::of(survey, true)?.render()?)
}
