//! GET /s/{slug}: the respondent's form, one view per question type. The page holds the
//! questions; form.js reads the design from the public definition and randomizes there.

use actix_web::{web, HttpResponse};
use askama::Template;

use super::openapi::SlugPath;
use super::respondent::find_survey;
use crate::db::Database;
use crate::domain::{QuestionType, Slug, Survey, SurveyStatus};
use crate::error::{AppError, ErrorBody};
use crate::explain::explain;

#[derive(Template)]
#[template(path = "survey.html")]
struct SurveyPage {
    /// The owner's preview: a banner, and nothing can be sent.
    preview: bool,
    slug: String,
    title: String,
    description: String,
    status_note: Option<&'static str>,
    accepting: bool,
    total_epsilon: String,
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
    min: String,
    max: String,
    /// "1" for whole-number bounds (counts), "any" otherwise.
    step: &'static str,
}

impl SurveyPage {
    fn of(survey: Survey, preview: bool) -> Result<Self, AppError> {
        let questions = survey
            .questions
            .iter()
            .map(|question| {
                let design = &question.design;
                let explained = explain(design)?;
                let choices = match design.question_type() {
                    // Yes first, as the first release showed it.
                    QuestionType::YesNo => vec![
                        ChoiceView {
                            value: 1,
                            suffix: "yes".to_owned(),
                            label: "Yes".to_owned(),
                        },
                        ChoiceView {
                            value: 0,
                            suffix: "no".to_owned(),
                            label: "No".to_owned(),
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
                    (Some(min), Some(max)) => Some(NumberBounds {
                        min: format!("{min}"),
                        max: format!("{max}"),
                        step: if min.fract() == 0.0 && max.fract() == 0.0 {
                            "1"
                        } else {
                            "any"
                        },
                    }),
                    _ => None,
                };
                let labels: Vec<String> = (0..design.reports())
                    .map(|report| design.report_label(report as u8))
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
        let (questions, unrandomized) = with_groupings(&survey, questions)?;
        Ok(Self {
            unrandomized,
            preview,
            slug: survey.slug.to_string(),
            total_epsilon: format!("{:.2}", survey.total_epsilon()),
            status_note: match survey.status {
                SurveyStatus::Draft => Some("This survey is not open yet: nothing can be sent."),
                SurveyStatus::Open => None,
                SurveyStatus::Closed => Some("This survey is closed: nothing can be sent."),
            },
            accepting: !preview && survey.status == SurveyStatus::Open,
            title: survey.title,
            description: survey.description,
            questions,
        })
    }
}

// --- grouping questions (issue 18): not randomized, shown like a choice -------------------

/// What the form says under a grouping question (docs/design.md, invariant 1's exception).
pub const GROUPING_PLAIN: &str = "This answer is sent as you give it — it is not randomized.";

/// The randomized questions' views with the grouping questions' added in position order
/// (a grouping question renders like a choice: kind `grouping`), and the grouping
/// questions' texts for the line beside the total ε.
fn with_groupings(
    survey: &Survey,
    mut questions: Vec<QuestionView>,
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
            plain: GROUPING_PLAIN.to_owned(),
            observer: format!(
                "The server and the researcher see this answer as you give it. Results show \
                 it only for groups of at least {} respondents.",
                survey.min_cell.get()
            ),
        });
    }
    questions.sort_by_key(|question| question.number);
    let texts: Vec<&str> = survey.groupings.iter().map(|g| g.text.as_str()).collect();
    Ok((questions, texts.join("; ")))
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
        (status = 404, description = "`not_found`: no such survey, or a draft.", body = ErrorBody),
    )
)]
pub async fn form(
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let survey = find_survey(&db, slug).await?;
    let html = SurveyPage::of(survey, false)?.render()?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(html))
}

/// The form exactly as respondents see it, with a preview banner and sending disabled.
pub(super) fn preview_html(survey: Survey) -> Result<String, AppError> {
    Ok(SurveyPage::of(survey, true)?.render()?)
}
