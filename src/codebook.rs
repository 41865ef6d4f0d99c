//! The codebook: what every export column means and each question's mechanism.

use serde::Serialize;

use crate::domain::Survey;
use crate::export::formula_safe;

#[derive(Serialize, utoipa::ToSchema)]
pub struct Codebook {
    survey: SurveyInfo,
    mechanism: &'static str,
    row: &'static str,
    order: &'static str,
    columns: Vec<Column>,
    questions: Vec<QuestionMechanism>,
}

#[derive(Serialize, utoipa::ToSchema)]
struct SurveyInfo {
    slug: String,
    title: String,
    description: String,
    status: &'static str,
}

#[derive(Serialize, utoipa::ToSchema)]
struct Column {
    name: &'static str,
    r#type: &'static str,
    description: &'static str,
}

#[derive(Serialize, utoipa::ToSchema)]
struct QuestionMechanism {
    id: i64,
    position: u32,
    text: String,
    required: bool,
    epsilon: f64,
    truth_probability: f64,
    lie_probability: f64,
    r_rr: RPackageEquivalent,
}

/// How to analyse the question with the R package `rr` (Blair, Imai & Zhou).
#[derive(Serialize, utoipa::ToSchema)]
struct RPackageEquivalent {
    design: &'static str,
    p: f64,
    example: String,
}

const COLUMNS: [(&str, &str, &str); 6] = [
    ("record_id", "string",
     "Hex SHA-256 of the response id (itself the SHA-256 of the respondent's secret receipt). Groups the rows of one response; cannot be linked to a person, and cannot be used to submit the response again. A respondent finds their own row through the receipt page."),
    ("question_id", "integer", "The question (see `questions`)."),
    ("epsilon", "number", "Privacy level ε of the question when the report was made."),
    ("truth_probability", "number",
     "p = e^ε / (1 + e^ε): probability that the device reported the true answer."),
    ("report", "integer",
     "The randomized report: 1 = yes, 0 = no. The true answer is never sent to the server."),
    ("unbiased_value", "number",
     "(report − (1 − p)) / (2p − 1): its mean over respondents is an unbiased estimate of the true yes proportion. Can be negative or above 1 for one row."),
];

/// Researchers paste codebooks into spreadsheets, so its free text is made formula-safe
/// like every CSV text cell.
pub fn describe(survey: &Survey) -> Codebook {
    Codebook {
        survey: SurveyInfo {
            slug: survey.slug.to_string(),
            title: formula_safe(&survey.title).into_owned(),
            description: formula_safe(&survey.description).into_owned(),
            status: survey.status.as_str(),
        },
        mechanism: "Randomized response on the respondent's device: with probability p the \
                    device reports the true answer, otherwise its opposite (Warner 1965; \
                    ε-locally differentially private). This is the 'mirrored question' design.",
        row: "One row per (response, answered question).",
        order: "Rows are ordered by record_id, then question position; arrival order is not stored.",
        columns: COLUMNS
            .iter()
            .map(|&(name, r#type, description)| Column {
                name,
                r#type,
                description,
            })
            .collect(),
        questions: survey
            .questions
            .iter()
            .map(|question| {
                let p = question.design.truth_probability();
                QuestionMechanism {
                    id: question.id.get(),
                    position: question.position,
                    text: formula_safe(&question.text).into_owned(),
                    required: true,
                    epsilon: question.design.epsilon(),
                    truth_probability: p,
                    lie_probability: 1.0 - p,
                    r_rr: RPackageEquivalent {
                        design: "mirrored",
                        p,
                        example: format!(
                            "rr::rrreg(report ~ 1, data = subset(d, question_id == {}), p = {p}, design = \"mirrored\")",
                            question.id.get()
                        ),
                    },
                }
            })
            .collect(),
    }
}
