//! The codebook: what every export column means and each question's mechanism, with the
//! arguments that reproduce its estimates in R.
//!
//! R conventions, checked against the packages' sources (CRAN mirrors on GitHub):
//!
//! * `rr` 1.4.2 (Blair, Imai & Zhou; github.com/cran/rr, `R/rr.R`):
//!   `rrreg(formula, p, p0, p1, q, design, data, …)`. Its internal `rrcd()` writes
//!   P(report yes) = c·π + d with, for `"forced-known"`, c = p and d = p1 (p "the
//!   probability of answering truthfully", p0 "of forced 'no'", p1 "of forced 'yes'",
//!   p + p0 + p1 = 1); for `"mirrored"`, c = 2p − 1 and d = 1 − p (p "the probability of
//!   receiving the sensitive question", not 0.5); for `"unrelated-known"`, c = p and
//!   d = (1 − p)·q (q "the probability of answering 'yes' to the unrelated question").
//!   The model is `π = logistic(Xβ)`: coefficients are on the logit scale.
//! * `RRreg` 0.7.5 (Heck & Moshagen; github.com/cran/RRreg, `R/RRuni_models.R`,
//!   `R/RRlin_getPW.R`, `man/RRuni.Rd`): `RRuni(response, data, model, p, …)`. `"Warner"`:
//!   p = the probability of the sensitive question; `"UQTknown"`: `p = c(p_sensitive,
//!   prevalence of yes to the unrelated question)`, π = (λ − (1 − p[1])·p[2]) / p[1];
//!   `"FR"`: p is "an m-valued vector with the probabilities of being prompted to select
//!   response categories 0, 1, …, m − 1", so for yes/no (0 = no, 1 = yes)
//!   `p = c(p0, p1)` = (forced no, forced yes), the truthful share being `1 − sum(p)`, and
//!   π_i = (λ_i − p[i]) / (1 − sum(p)). k-ary randomized response is exactly `"FR"` with
//!   m = k and every p[i] = 1/(e^ε + k − 1): then 1 − sum(p) = a − b, and RRuni's π_i is
//!   Wang et al.'s (λ_i − b)/(a − b). `RRlog` (logistic regression) coefficients are on the
//!   logit scale too.
//!
//! The arguments are the design's requested parameters; the device's sampler realizes
//! each probability within 2^-44 of them (randomized-response, `design.rs`).

use serde::Serialize;

use crate::domain::{DesignFields, DesignName, Question, QuestionType, Survey};
use crate::error::AppError;
use crate::export::{formula_safe, grouping_column, report_values, ReportValues, COLUMNS};
use crate::results::{primary_reason, Plan};

#[derive(Serialize, utoipa::ToSchema)]
pub struct Codebook {
    survey: SurveyInfo,
    mechanism: &'static str,
    /// Why every question is answered, and what the estimates cover.
    skipping: &'static str,
    row: &'static str,
    order: &'static str,
    columns: Vec<Column>,
    /// About the R arguments of every question (`r_rr`, `r_rrreg`).
    r_note: &'static str,
    questions: Vec<QuestionMechanism>,
    /// The grouping questions (not randomized), each a `group_<id>` column of the export.
    groupings: Vec<GroupingColumn>,
    /// How the `group_<id>` columns protect small groups (null without grouping questions).
    grouping_note: Option<String>,
}

/// A grouping question: its answer is exported as given, under k-anonymity.
#[derive(Serialize, utoipa::ToSchema)]
struct GroupingColumn {
    id: i64,
    position: u32,
    /// The question's number on the respondent's form (1-based, grouping questions
    /// included): the number the results page and present mode show.
    number: u32,
    text: String,
    /// The export's column: `group_<id>`.
    column: String,
    /// The labels the column holds.
    options: Vec<String>,
    /// Always false: the answer is the respondent's own, sent as given.
    randomized: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
struct SurveyInfo {
    slug: String,
    title: String,
    description: String,
    status: &'static str,
    /// How the survey was run: `watched_live` or `fixed_in_advance`.
    plan: Plan,
    /// Fixed in advance: the target number of responses.
    target_responses: Option<u64>,
    /// Fixed in advance: the closing time (RFC 3339, UTC).
    #[schema(format = DateTime)]
    closes_at: Option<String>,
    /// When a survey fixed in advance was unblinded early: the responses it had then.
    unblinded_at_responses: Option<u64>,
    /// Which interval leads and why, as the results say it: anytime for a survey watched
    /// live or unblinded early, exact (Chernoff where there is none) for one fixed in
    /// advance and closed.
    primary_interval: String,
    /// k: the fewest responses any released cell holds (docs/design.md, invariant 11).
    min_cell: u32,
    /// No figure computed from the reports was shown before the survey closed.
    results_after_close: bool,
    /// Which responses its figures and its export hold (every survey's, since every survey
    /// releases in batches; kept nullable for readers of earlier codebooks).
    release_rule: Option<String>,
    /// Where the form's "Continue" led once a response was stored, as defined (its
    /// `{name}` placeholders filled on the device from the link's fragment); null if none.
    completion_url: Option<String>,
    /// The sites that could show the form in a frame (empty: none could).
    embed_origins: Vec<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
struct Column {
    name: &'static str,
    r#type: &'static str,
    description: &'static str,
}

#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = CodebookQuestion)]
struct QuestionMechanism {
    id: i64,
    position: u32,
    /// The question's number on the respondent's form (1-based, grouping questions
    /// included): the number the results page and present mode show.
    number: u32,
    text: String,
    /// Always true: every question is answered (see `skipping`).
    required: bool,
    #[serde(rename = "type")]
    question_type: QuestionType,
    design: DesignName,
    /// The type, design and parameters as a survey definition takes them.
    parameters: DesignFields,
    /// The promised ε (for forced response and unrelated question, the ε the probabilities
    /// imply): `max_r ln( max_t P[t][r] / min_t P[t][r] )`.
    epsilon: f64,
    /// The ε of the device's integer sampler, never above `epsilon`.
    realized_epsilon: f64,
    /// The largest probability that a report equals the truth (`max_t P[t][t]`).
    truth_probability: f64,
    /// `1 − truth_probability`.
    lie_probability: f64,
    /// Choice and ordinal: the option labels; report i is `options[i]`.
    options: Option<Vec<String>>,
    /// Number: the lower bound (report 0 is this end).
    min: Option<f64>,
    /// Number: the upper bound (report 1 is this end).
    max: Option<f64>,
    /// Every report the device can send, with its meaning.
    reports: Vec<ReportCode>,
    /// What the mean of `unbiased_value` over this question's rows estimates (null for
    /// choice: see `option_values`).
    unbiased_value_estimates: Option<&'static str>,
    matrix: DesignMatrix,
    /// The export's per-record values of each report.
    per_record_values: Vec<ReportValues>,
    /// The R package `rr`'s `rrreg` arguments (yes/no designs and numbers; null for
    /// choice and ordinal, which `rr` does not have).
    r_rr: Option<RrArguments>,
    /// The R package `RRreg`'s `RRuni` (and `RRlog`) arguments.
    r_rrreg: RRregArguments,
}

#[derive(Serialize, utoipa::ToSchema)]
struct ReportCode {
    report: u8,
    label: String,
}

/// The design as a row-stochastic matrix, with the requested probabilities.
#[derive(Serialize, utoipa::ToSchema)]
struct DesignMatrix {
    /// What the rows are.
    rows: &'static str,
    /// `p[t][r]`: the probability that row t is reported as r (each row adds up to 1).
    p: Vec<Vec<f64>>,
}

/// How to analyse the question with the R package `rr` (Blair, Imai & Zhou):
/// `rrreg(report ~ 1, data, p, p0, p1, q, design)`.
#[derive(Serialize, utoipa::ToSchema)]
struct RrArguments {
    /// `"mirrored"`, `"forced-known"` or `"unrelated-known"`.
    design: &'static str,
    /// mirrored: the probability of the sensitive question (the truth); forced-known and
    /// unrelated-known: the probability of answering truthfully.
    p: f64,
    /// forced-known: the probability of a forced "no".
    p0: Option<f64>,
    /// forced-known: the probability of a forced "yes".
    p1: Option<f64>,
    /// unrelated-known: the "yes" rate of the unrelated question.
    q: Option<f64>,
    example: String,
}

/// How to analyse the question with the R package `RRreg` (Heck & Moshagen):
/// `RRuni(response, model, p)`.
#[derive(Serialize, utoipa::ToSchema)]
struct RRregArguments {
    /// `"Warner"`, `"FR"` or `"UQTknown"`.
    model: &'static str,
    /// Warner: `c(p)`; FR: the forced probability of each report 0…m−1 (yes/no:
    /// `c(p0, p1)`); UQTknown: `c(p, q)`.
    p: Vec<f64>,
    example: String,
}

const COLUMN_DESCRIPTIONS: [(&str, &str, &str); 8] = [
    ("record_id", "string",
     "Hex SHA-256 of the response id (itself the SHA-256 of the respondent's secret receipt). Groups the rows of one response; cannot be linked to a person, and cannot be used to submit the response again. A respondent finds their own row through the receipt page."),
    ("question_id", "integer", "The question (see `questions`)."),
    ("epsilon", "number", "Privacy level ε of the question when the report was made (for forced response and unrelated question, the ε its probabilities imply)."),
    ("truth_probability", "number",
     "The question's largest probability that a report equals the truth, max_t P[t][t] (mirrored: e^ε / (1 + e^ε); forced response 0.67/0.165/0.165: 0.835; k options: e^ε / (e^ε + k − 1); a number: that of its binary report)."),
    ("report", "integer",
     "The randomized report: yes/no 1 = yes, 0 = no; choice and ordinal the option index (0 = the first option); number 0 = its min end, 1 = its max end. The true answer is never sent to the server."),
    ("unbiased_value", "number or empty",
     "The per-record unbiased value of the report: its mean over a question's rows is the results' unbiased estimate of the true yes share (yes/no, (P⁻¹)[report][yes]: mirrored (report − (1 − p)) / (2p − 1), forced response and unrelated question (report − P[no][yes]) / (P[yes][yes] − P[no][yes])), of the mean level on the scale 1…k (ordinal), or of the mean (number: min + (max − min)(report − q)/(p − q)). Empty (NDJSON: null) for choice. One row's value can lie outside the target's range."),
    ("type", "string", "The question's type: yes_no, choice, ordinal or number."),
    ("option_values", "numbers joined by ';', or empty",
     "Choice and ordinal: one per-record unbiased value per option, in option order, (P⁻¹)[report][i] = (1[report = i] − b)/(a − b) with a = e^ε/(e^ε + k − 1), b = 1/(e^ε + k − 1); the mean of the i-th value over a question's rows is the unbiased estimate of option i's share. Empty (NDJSON: null; otherwise an array) for yes/no and number."),
];

/// Researchers paste codebooks into spreadsheets, so its free text is made formula-safe
/// like every CSV text cell.
pub fn describe(survey: &Survey) -> Result<Codebook, AppError> {
    debug_assert_eq!(COLUMN_DESCRIPTIONS.map(|(name, ..)| name), COLUMNS);
    Ok(Codebook {
        survey: SurveyInfo {
            slug: survey.slug.to_string(),
            title: formula_safe(&survey.title).into_owned(),
            description: formula_safe(&survey.description).into_owned(),
            status: survey.status.as_str(),
            plan: Plan::of(survey),
            target_responses: survey.stopping_rule.target_responses(),
            closes_at: survey.stopping_rule.closes_at().map(|at| at.to_string()),
            unblinded_at_responses: survey.unblinded_at,
            primary_interval: match survey.unblinded_at {
                Some(responses) => format!(
                    "{} Unblinded at {responses} responses, before the stopping rule closed \
                     the survey.",
                    primary_reason(survey)
                ),
                None => primary_reason(survey).to_owned(),
            },
            min_cell: survey.min_cell.get(),
            results_after_close: survey.results_after_close,
            completion_url: survey
                .completion_url
                .as_ref()
                .map(|link| link.as_str().to_owned()),
            embed_origins: survey.embed_origins.as_slice().to_vec(),
            release_rule: Some(format!(
                "Released responses only: each combination of grouping answers (one cell \
                 without grouping questions) is released in batches: when releases are \
                 considered, every {k} responses received{invitations}, a cell holding at \
                 least {open} new responses becomes a release; at close, one holding at least \
                 {k}. A release that withdrawals leave with fewer than {k} responses leaves \
                 every figure and export for good. Responses of a cell that never made a \
                 release, and of releases withheld so, are withheld: stored, in no figure and \
                 in no export.",
                k = survey.min_cell.get(),
                open = survey.min_cell.release_threshold(true),
                invitations = if survey.requires_invitation {
                    format!(
                        " (and every {} invitations redeemed)",
                        survey.min_cell.get()
                    )
                } else {
                    String::new()
                }
            )),
        },
        mechanism: "Randomized response on the respondent's device: each question's design \
                    is a row-stochastic matrix P, P[t][r] the probability that the true \
                    answer t is reported as r (see each question's `matrix`); the device \
                    samples its row exactly and sends only the report. ε-locally \
                    differentially private with ε = max_r ln(max_t P[t][r] / min_t P[t][r]). \
                    Yes/no: mirrored (Warner 1965: the truth with p = e^ε/(1 + e^ε), else \
                    its opposite), forced response, or unrelated question; choice and \
                    ordinal: k-ary randomized response; number: rounded at random to one of \
                    its two ends (the max end with probability (value − min)/(max − min)), \
                    then mirrored randomized response on that end (Duchi, Jordan & \
                    Wainwright 2018).",
        skipping: "Every question of a response is answered: a blank would not be \
                   randomized, and skipping a sensitive question says something. So each \
                   estimate covers everyone who responded (n), not a self-selected subset. \
                   Rows of surveys of the first release, where an optional question could \
                   be left out, cover those who answered it.",
        row: "One row per (response, question).",
        order:
            "Rows are ordered by record_id, then question position; arrival order is not stored.",
        columns: COLUMN_DESCRIPTIONS
            .iter()
            .map(|&(name, r#type, description)| Column {
                name,
                r#type,
                description,
            })
            .collect(),
        r_note: "d <- read.csv(\"<slug>.csv\") is the export. rr's rrreg and RRreg's RRlog \
                 fit a logistic model: their coefficients are on the logit scale, and an \
                 intercept-only fit's share is plogis(coef(fit)[[1]]). RRreg's RRuni gives \
                 the share (pi) directly, by moments as the results do (by maximum likelihood \
                 only when the moment estimate falls outside [0, 1]). A number's report is \
                 mirrored randomized response on the end its value was rounded to, so both \
                 packages estimate (mean − min)/(max − min). The arguments are the requested \
                 probabilities; the sampler realizes each within 2^-44.",
        questions: survey
            .questions
            .iter()
            .map(describe_question)
            .collect::<Result<_, AppError>>()?,
        groupings: survey
            .groupings
            .iter()
            .map(|grouping| GroupingColumn {
                id: grouping.id.get(),
                position: grouping.position,
                number: grouping.number(),
                text: formula_safe(&grouping.text).into_owned(),
                column: grouping_column(grouping.id),
                options: grouping
                    .options
                    .iter()
                    .map(|label| formula_safe(label).into_owned())
                    .collect(),
                randomized: false,
            })
            .collect(),
        grouping_note: (!survey.groupings.is_empty()).then(|| {
            String::from(
                "Grouping questions are not randomized: each group_<id> column holds the \
                 respondent's answer (its label) on every row of the response. The export \
                 holds released responses only (docs/design.md, invariant 11; see \
                 release_rule): each combination of grouping answers is a cell, and the \
                 export is refused while the survey is open.",
            )
        }),
    })
}

fn describe_question(question: &Question) -> Result<QuestionMechanism, AppError> {
    let design = &question.design;
    let mechanism = design.mechanism();
    let matrix = mechanism.matrix();
    let fields = design.fields();
    let safe_options = design.options().map(|options| {
        options
            .iter()
            .map(|label| formula_safe(label).into_owned())
            .collect::<Vec<_>>()
    });
    let truth_probability = design.truth_probability();
    let size = matrix.answers();
    let rows = match design.question_type() {
        QuestionType::Number => {
            "the end the value was rounded to (0 = min, 1 = max; the max end with probability \
             (value − min)/(max − min)); columns: the report"
        }
        QuestionType::YesNo | QuestionType::Choice | QuestionType::Ordinal => {
            "the true answer, coded as the report is; columns: the report"
        }
    };
    let (r_rr, r_rrreg) = r_arguments(question)?;
    Ok(QuestionMechanism {
        id: question.id.get(),
        position: question.position,
        number: question.number(),
        text: formula_safe(&question.text).into_owned(),
        required: true,
        question_type: design.question_type(),
        design: design.design_name(),
        parameters: DesignFields {
            options: safe_options.clone(),
            ..fields.clone()
        },
        epsilon: design.epsilon(),
        realized_epsilon: mechanism.realized_epsilon(),
        truth_probability,
        lie_probability: 1.0 - truth_probability,
        options: safe_options,
        min: fields.min,
        max: fields.max,
        reports: (0..mechanism.reports())
            .map(|report| {
                let report = u8::try_from(report).map_err(AppError::internal)?;
                Ok(ReportCode {
                    report,
                    label: formula_safe(&design.report_label(report)).into_owned(),
                })
            })
            .collect::<Result<_, AppError>>()?,
        unbiased_value_estimates: match design.question_type() {
            QuestionType::YesNo => Some("the share whose true answer is yes"),
            QuestionType::Ordinal => Some("the mean level, on the scale 1 (first option) … k"),
            QuestionType::Number => Some("the mean of the number"),
            QuestionType::Choice => None,
        },
        matrix: DesignMatrix {
            rows,
            p: (0..size)
                .map(|truth| {
                    (0..size)
                        .map(|report| matrix.requested_probability(truth, report))
                        .collect()
                })
                .collect(),
        },
        per_record_values: report_values(design)?,
        r_rr,
        r_rrreg,
    })
}

/// The R arguments of a question, and an example line for each package.
fn r_arguments(question: &Question) -> Result<(Option<RrArguments>, RRregArguments), AppError> {
    let design = &question.design;
    let fields = design.fields();
    let data = format!("subset(d, question_id == {})", question.id.get());
    let missing = |name: &str| {
        AppError::internal(format!(
            "a stored {} design without {name}",
            design.design_name().as_str()
        ))
    };
    let p = design.truth_probability();
    let mirrored = |after: &str| RrArguments {
        design: "mirrored",
        p,
        p0: None,
        p1: None,
        q: None,
        example: format!(
            "fit <- rr::rrreg(report ~ 1, data = {data}, p = {p}, design = \"mirrored\"){after}"
        ),
    };
    let warner = |after: &str| RRregArguments {
        model: "Warner",
        p: vec![p],
        example: format!("RRreg::RRuni({data}$report, model = \"Warner\", p = {p}){after}"),
    };
    Ok(match (design.question_type(), design.design_name()) {
        (QuestionType::YesNo, DesignName::ForcedResponse) => {
            let truthful = fields
                .answer_truthfully
                .ok_or_else(|| missing("answer_truthfully"))?;
            let p0 = fields.forced_no.ok_or_else(|| missing("forced_no"))?;
            let p1 = fields.forced_yes.ok_or_else(|| missing("forced_yes"))?;
            (
                Some(RrArguments {
                    design: "forced-known",
                    p: truthful,
                    p0: Some(p0),
                    p1: Some(p1),
                    q: None,
                    example: format!(
                        "fit <- rr::rrreg(report ~ 1, data = {data}, p = {truthful}, p0 = {p0}, \
                         p1 = {p1}, design = \"forced-known\"); plogis(coef(fit)[[1]])"
                    ),
                }),
                RRregArguments {
                    model: "FR",
                    p: vec![p0, p1],
                    example: format!(
                        "RRreg::RRuni({data}$report, model = \"FR\", p = c({p0}, {p1}))  # pi[2]: the yes share"
                    ),
                },
            )
        }
        (QuestionType::YesNo, DesignName::UnrelatedQuestion) => {
            let truthful = fields
                .answer_truthfully
                .ok_or_else(|| missing("answer_truthfully"))?;
            let q = fields
                .innocuous_yes
                .ok_or_else(|| missing("innocuous_yes"))?;
            (
                Some(RrArguments {
                    design: "unrelated-known",
                    p: truthful,
                    p0: None,
                    p1: None,
                    q: Some(q),
                    example: format!(
                        "fit <- rr::rrreg(report ~ 1, data = {data}, p = {truthful}, q = {q}, \
                         design = \"unrelated-known\"); plogis(coef(fit)[[1]])"
                    ),
                }),
                RRregArguments {
                    model: "UQTknown",
                    p: vec![truthful, q],
                    example: format!(
                        "RRreg::RRuni({data}$report, model = \"UQTknown\", p = c({truthful}, {q}))"
                    ),
                },
            )
        }
        (QuestionType::YesNo, _) => (Some(mirrored("; plogis(coef(fit)[[1]])")), warner("")),
        (QuestionType::Number, _) => {
            let min = fields.min.ok_or_else(|| missing("min"))?;
            let max = fields.max.ok_or_else(|| missing("max"))?;
            let width = max - min;
            (
                Some(mirrored(&format!(
                    "; {min} + {width} * plogis(coef(fit)[[1]])  # the mean"
                ))),
                warner(&format!(
                    "  # pi estimates (mean − {min}) / {width}: the mean is {min} + {width} * pi"
                )),
            )
        }
        (QuestionType::Choice | QuestionType::Ordinal, _) => {
            // k-ary randomized response is RRreg's forced response with m = k categories,
            // each forced with b = P[t][r] for t ≠ r (see the module's documentation).
            let matrix = design.mechanism().matrix();
            let forced: Vec<f64> = (0..matrix.answers())
                .map(|option| matrix.requested_probability((option + 1) % matrix.answers(), option))
                .collect();
            let vector = forced
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            (
                None,
                RRregArguments {
                    model: "FR",
                    p: forced,
                    example: format!(
                        "RRreg::RRuni({data}$report, model = \"FR\", p = c({vector}))  # pi[i + 1]: the share of option i"
                    ),
                },
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{QuestionDesign, QuestionId};

    fn question(json: &str) -> Question {
        let fields: DesignFields = serde_json::from_str(json).unwrap();
        Question {
            id: QuestionId::from_stored(7),
            position: 0,
            text: "Q?".to_owned(),
            design: QuestionDesign::parse("q", &fields).unwrap(),
        }
    }

    #[test]
    fn forced_response_gives_rr_p_p0_p1_and_rrreg_p0_then_p1() {
        let q = question(
            r#"{"design": "forced_response", "answer_truthfully": 0.67,
                "forced_yes": 0.2, "forced_no": 0.13}"#,
        );
        let (rr, rrreg) = r_arguments(&q).unwrap();
        let rr = rr.unwrap();
        assert_eq!(
            (rr.design, rr.p, rr.p0, rr.p1),
            ("forced-known", 0.67, Some(0.13), Some(0.2))
        );
        assert!(rr.example.contains("p = 0.67, p0 = 0.13, p1 = 0.2"));
        assert_eq!((rrreg.model, rrreg.p), ("FR", vec![0.13, 0.2]));
        assert!(rrreg.example.contains("p = c(0.13, 0.2)"));
    }

    #[test]
    fn unrelated_question_gives_rr_p_q_and_rrreg_p_then_q() {
        let q = question(
            r#"{"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 0.3}"#,
        );
        let (rr, rrreg) = r_arguments(&q).unwrap();
        let rr = rr.unwrap();
        assert_eq!((rr.design, rr.p, rr.q), ("unrelated-known", 0.7, Some(0.3)));
        assert_eq!((rrreg.model, rrreg.p), ("UQTknown", vec![0.7, 0.3]));
    }

    #[test]
    fn mirrored_gives_p_as_the_truth_probability() {
        let q = question(r#"{"epsilon": 1.0986}"#);
        let (rr, rrreg) = r_arguments(&q).unwrap();
        let p = 1.0 / (1.0 + (-1.0986f64).exp());
        assert_eq!(rr.unwrap().design, "mirrored");
        assert!((rrreg.p[0] - p).abs() < 1e-15);
        assert_eq!(rrreg.model, "Warner");
    }

    #[test]
    fn k_ary_is_rrregs_forced_response_with_every_category_forced_equally() {
        let q = question(r#"{"type": "choice", "epsilon": 1.5, "options": ["a", "b", "c"]}"#);
        let (rr, rrreg) = r_arguments(&q).unwrap();
        assert!(rr.is_none());
        let b = 1.0 / (1.5f64.exp() + 2.0);
        assert_eq!(rrreg.model, "FR");
        assert_eq!(rrreg.p.len(), 3);
        for forced in &rrreg.p {
            assert!((forced - b).abs() < 1e-15);
        }
        // RRreg's FR matrix, PW[i][i] = 1 − Σ_{j≠i} p[j] and PW[i][j] = p[i], is the design's.
        let matrix = q.design.mechanism().matrix();
        let sum: f64 = rrreg.p.iter().sum();
        for truth in 0..3 {
            for report in 0..3 {
                let rrreg_cell = if truth == report {
                    1.0 - (sum - rrreg.p[report])
                } else {
                    rrreg.p[report]
                };
                let ours = matrix.requested_probability(truth, report);
                assert!((rrreg_cell - ours).abs() < 1e-12, "{truth}, {report}");
            }
        }
    }

    #[test]
    fn a_number_is_mirrored_on_its_end_with_the_mean_rescaled() {
        let q = question(r#"{"type": "number", "epsilon": 1, "min": 0, "max": 30}"#);
        let (rr, rrreg) = r_arguments(&q).unwrap();
        let rr = rr.unwrap();
        assert_eq!(rr.design, "mirrored");
        assert!(rr.example.contains("0 + 30 * plogis"));
        assert_eq!(rrreg.model, "Warner");
        assert!(rrreg.example.contains("0 + 30 * pi"));
    }
}
