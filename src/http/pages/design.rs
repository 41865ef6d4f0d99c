//! A question's type and design in the builder: the form's fields (which apply to which
//! design), and what a design means in figures — ε, how often the report is the truth, what
//! an observer learns, respondents needed — computed with the crate, for the builder's
//! pages and for `GET /designs/figures` (which the builder's script asks while the
//! researcher types). The script only shows these figures; it computes none of them.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use randomized_response::{Confidence, PrivacyLevel};
use serde::{Deserialize, Serialize};

use super::reading::percent_with;
use super::refusal::{plain_refusal, researcher_language, Field};
use crate::domain::{DesignFields, DesignName, QuestionDesign, QuestionType, GROUPING_TYPE};
use crate::error::AppError;
use crate::explain::{explain, observer_bound, ObserverBound, EXPLAINED_PRIOR};
use crate::http::extract::Owner;
use crate::i18n::{catalog, Language};
use crate::results::{planning, Planning, Primary, PLANNING_HALF_WIDTH};

/// The confidence level of the builder's planner.
pub const PLANNING_CONFIDENCE: f64 = 0.95;
/// The two precisions the workspace's planners size for, as fractions of the target's
/// range: ±5 % (the results' own) and ±10 %.
pub const PLANNED_HALF_WIDTHS: [f64; 2] = [PLANNING_HALF_WIDTH, 0.10];

/// Every (type, design) pair, as the builder's page names them in `data-applies`.
const DESIGNS: [(QuestionType, DesignName); 6] = [
    (QuestionType::YesNo, DesignName::Mirrored),
    (QuestionType::YesNo, DesignName::ForcedResponse),
    (QuestionType::YesNo, DesignName::UnrelatedQuestion),
    (QuestionType::Choice, DesignName::KAry),
    (QuestionType::Ordinal, DesignName::KAry),
    (QuestionType::Number, DesignName::TwoEnds),
];

/// The form's inputs each design uses. The page hides the others (its script reads
/// `data-applies`); without the script they are shown, and ignored here.
fn uses(design: DesignName, input: &str) -> bool {
    let inputs: &[&str] = match design {
        DesignName::Mirrored => &["epsilon"],
        DesignName::ForcedResponse => &["answer_truthfully", "forced_yes", "forced_no"],
        DesignName::UnrelatedQuestion => &["answer_truthfully", "innocuous_yes"],
        DesignName::KAry => &["epsilon", "options"],
        DesignName::TwoEnds => &["epsilon", "min", "max"],
    };
    inputs.contains(&input)
}

/// A grouping question in the builder's type select: `grouping:grouping` in `data-applies`.
pub const GROUPING_APPLIES: &str = "grouping:grouping";

/// The builder's warning beside a grouping question.
pub const GROUPING_WARNING: &str = "A grouping question is not randomized: its answer is \
     sent and stored as the respondent gives it, and breakdowns by it show only groups of at \
     least min_cell respondents. It must not be sensitive (year of study, sport, faculty): \
     never ask here anything a respondent might want to deny.";

/// The `data-applies` of one of the form's inputs: the `type:design` pairs that use it
/// (`design`, the yes/no design's select, applies to every yes/no design; `grouping`, the
/// grouping question's warning, to grouping questions only, which use `options` too).
pub fn applies_to(input: &str) -> String {
    if input == "grouping" {
        return GROUPING_APPLIES.to_owned();
    }
    let randomized = DESIGNS
        .iter()
        .filter(|(question_type, design)| {
            if input == "design" {
                *question_type == QuestionType::YesNo
            } else {
                uses(*design, input)
            }
        })
        .map(|(question_type, design)| format!("{}:{}", question_type.as_str(), design.as_str()))
        .collect::<Vec<_>>()
        .join(" ");
    if input == "options" {
        format!("{randomized} {GROUPING_APPLIES}")
    } else {
        randomized
    }
}

/// A question's type and design as the builder's forms send them (and as the figures
/// route's query takes them): text as typed, so that a refused form shows it again as it was.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DesignForm {
    #[serde(default, rename = "type")]
    pub question_type: String,
    #[serde(default)]
    pub design: String,
    #[serde(default)]
    pub epsilon: String,
    #[serde(default)]
    pub answer_truthfully: String,
    #[serde(default)]
    pub forced_yes: String,
    #[serde(default)]
    pub forced_no: String,
    #[serde(default)]
    pub innocuous_yes: String,
    /// One option per line; blank lines are ignored.
    #[serde(default)]
    pub options: String,
    #[serde(default)]
    pub min: String,
    #[serde(default)]
    pub max: String,
}

fn number(field: &str, name: &str, text: &str) -> Result<Option<f64>, AppError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
        .map(Some)
        .ok_or_else(|| {
            AppError::invalid(
                "invalid_number",
                format!("{field}.{name} must be a number, got {text:?}"),
            )
        })
}

impl DesignForm {
    /// Whether the form describes a grouping question (not randomized).
    pub fn is_grouping(&self) -> bool {
        self.question_type.trim() == GROUPING_TYPE
    }

    /// A grouping question's options, one per line, blank lines dropped.
    pub fn option_lines(&self) -> Vec<String> {
        self.options
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The form of a saved grouping question.
    pub fn of_grouping(options: &[String]) -> Self {
        Self {
            question_type: GROUPING_TYPE.to_owned(),
            options: options.join("\n"),
            ..Self::default_values()
        }
    }

    fn question_type(&self, field: &str) -> Result<QuestionType, AppError> {
        match self.question_type.trim() {
            "" | "yes_no" => Ok(QuestionType::YesNo),
            "choice" => Ok(QuestionType::Choice),
            "ordinal" => Ok(QuestionType::Ordinal),
            "number" => Ok(QuestionType::Number),
            other => Err(AppError::invalid(
                "invalid_type",
                format!("{field}.type is yes_no, choice, ordinal or number, not {other:?}"),
            )),
        }
    }

    fn design(&self, field: &str, question_type: QuestionType) -> Result<DesignName, AppError> {
        match question_type {
            QuestionType::Choice | QuestionType::Ordinal => Ok(DesignName::KAry),
            QuestionType::Number => Ok(DesignName::TwoEnds),
            QuestionType::YesNo => match self.design.trim() {
                "" | "mirrored" => Ok(DesignName::Mirrored),
                "forced_response" => Ok(DesignName::ForcedResponse),
                "unrelated_question" => Ok(DesignName::UnrelatedQuestion),
                other => Err(AppError::invalid(
                    "invalid_design",
                    format!(
                        "{field}.design of a yes/no question is mirrored, forced_response or \
                         unrelated_question, not {other:?}"
                    ),
                )),
            },
        }
    }

    /// The design fields of the chosen type and design, from the inputs that design uses;
    /// the domain checks them ([`QuestionDesign::parse`]).
    pub fn to_fields(&self, field: &str) -> Result<DesignFields, AppError> {
        let question_type = self.question_type(field)?;
        let design = self.design(field, question_type)?;
        let used = |input: &str, text: &str| -> Result<Option<f64>, AppError> {
            if uses(design, input) {
                number(field, input, text)
            } else {
                Ok(None)
            }
        };
        Ok(DesignFields {
            question_type: Some(question_type),
            design: Some(design),
            epsilon: used("epsilon", &self.epsilon)?,
            answer_truthfully: used("answer_truthfully", &self.answer_truthfully)?,
            forced_yes: used("forced_yes", &self.forced_yes)?,
            forced_no: used("forced_no", &self.forced_no)?,
            innocuous_yes: used("innocuous_yes", &self.innocuous_yes)?,
            options: uses(design, "options").then(|| {
                self.options
                    .lines()
                    .map(str::trim)
                    .filter(|line| !line.is_empty())
                    .map(str::to_owned)
                    .collect()
            }),
            min: used("min", &self.min)?,
            max: used("max", &self.max)?,
        })
    }

    /// The design, checked by the domain.
    pub fn parse(&self, field: &str) -> Result<QuestionDesign, AppError> {
        Ok(QuestionDesign::parse(field, &self.to_fields(field)?)?)
    }

    /// The form of a saved design, with the builder's defaults in the inputs it does not use
    /// (so that switching the type or design starts from sensible values).
    pub fn of(design: &QuestionDesign) -> Self {
        let fields = design.fields();
        let text = |value: Option<f64>, default: &str| {
            value.map_or_else(|| default.to_owned(), |value| value.to_string())
        };
        let defaults = Self::default_values();
        Self {
            question_type: design.question_type().as_str().to_owned(),
            design: design.design_name().as_str().to_owned(),
            epsilon: text(fields.epsilon, &defaults.epsilon),
            answer_truthfully: text(fields.answer_truthfully, &defaults.answer_truthfully),
            forced_yes: text(fields.forced_yes, &defaults.forced_yes),
            forced_no: text(fields.forced_no, &defaults.forced_no),
            innocuous_yes: text(fields.innocuous_yes, &defaults.innocuous_yes),
            options: design.options().map(|o| o.join("\n")).unwrap_or_default(),
            min: text(fields.min, &defaults.min),
            max: text(fields.max, &defaults.max),
        }
    }

    /// A new question's form: yes/no, mirrored, ε = 1, and a starting point for every other
    /// design (forced response 0.7/0.15/0.15; unrelated question 0.7 with a Yes rate of 0.5;
    /// a number from 0 to 10).
    pub fn default_values() -> Self {
        Self {
            question_type: QuestionType::YesNo.as_str().to_owned(),
            design: DesignName::Mirrored.as_str().to_owned(),
            epsilon: "1".to_owned(),
            answer_truthfully: "0.7".to_owned(),
            forced_yes: "0.15".to_owned(),
            forced_no: "0.15".to_owned(),
            innocuous_yes: "0.5".to_owned(),
            options: String::new(),
            min: "0".to_owned(),
            max: "10".to_owned(),
        }
    }
}

/// What a design means, in numbers and in words. Serialized as the figures route's answer.
#[derive(Debug, Clone, Serialize)]
pub struct DesignFigures {
    #[serde(rename = "type")]
    pub question_type: QuestionType,
    pub design: DesignName,
    /// The promised ε (for forced response and unrelated question: what the probabilities
    /// imply).
    pub epsilon: f64,
    /// The largest probability that a report equals the truth.
    pub truth_probability: f64,
    /// The observer's prior belief in an answer (Yes, the first option, a number's upper
    /// end), for `posterior`.
    pub prior: f64,
    /// That belief once that answer is reported, as the respondent's form states it
    /// ([`observer_bound`]; the odds move by at most e^ε).
    pub posterior: f64,
    /// The planner's confidence level.
    pub confidence: f64,
    /// Respondents for a Chernoff half-width of ±5 % (of a share, or of a number's range).
    pub respondents_needed_5: u64,
    /// … and of ±10 %.
    pub respondents_needed_10: u64,
    /// Respondents for the primary interval of the survey's way of running (`?interval=`:
    /// `anytime`, the default, or `exact`), with Chernoff's beside it.
    pub planning: Planning,
    /// The design in one plain sentence, as the respondent's form says it.
    pub summary: String,
    /// What the planner's percentages are of.
    pub planner_target: String,
    /// The observer's sentence, with the prior and the answer it is about.
    pub observer: String,
    /// The figures as the page shows them.
    pub display: FiguresDisplay,
}

/// Figures formatted for the page, so that the script shows what the server would.
#[derive(Debug, Clone, Serialize)]
pub struct FiguresDisplay {
    pub epsilon: String,
    pub truth_probability: String,
    pub posterior: String,
    /// The primary interval's counts (`planning.for_5_points`, `for_10_points`).
    pub respondents_needed_5: String,
    pub respondents_needed_10: String,
    /// Chernoff's (`respondents_needed_5`, `_10`).
    pub chernoff_needed_5: String,
    pub chernoff_needed_10: String,
}

/// The interval a planner count is for, as the page names it.
pub fn planning_interval_name(interval: Primary) -> &'static str {
    match interval {
        Primary::Anytime => "the anytime interval (watched live)",
        Primary::Exact => "the exact interval (fixed in advance)",
        Primary::Chernoff => "Chernoff's interval",
    }
}

/// A number as the page shows a bound or parameter: as typed, without trailing zeros.
fn plain(value: f64) -> String {
    format!("{value}")
}

fn planner_target(design: &QuestionDesign) -> String {
    let fields = design.fields();
    match design.question_type() {
        QuestionType::YesNo => "of the share answering Yes".to_owned(),
        QuestionType::Choice | QuestionType::Ordinal => "of every option's share".to_owned(),
        QuestionType::Number => format!(
            "of the range from {} to {}, for the mean",
            plain(fields.min.unwrap_or_default()),
            plain(fields.max.unwrap_or_default())
        ),
    }
}

/// The observer's sentence: the same answer and figure as the respondent's form
/// ([`observer_bound`]), in the researcher's words.
fn observer(design: &QuestionDesign, bound: ObserverBound) -> String {
    let fields = design.fields();
    let (about, seen) = match design.question_type() {
        QuestionType::YesNo => (
            "a respondent's true answer is Yes".to_owned(),
            "a Yes report".to_owned(),
        ),
        QuestionType::Choice | QuestionType::Ordinal => (
            format!(
                "a respondent's true option is “{}”",
                design.report_label(bound.answer as u8)
            ),
            "that option reported".to_owned(),
        ),
        QuestionType::Number => {
            let (min, max) = (
                plain(fields.min.unwrap_or_default()),
                plain(fields.max.unwrap_or_default()),
            );
            (
                format!("a respondent's number is {max} rather than {min}"),
                format!("a report of {max}"),
            )
        }
    };
    format!(
        "An observer who thought there was a {} chance that {about} would, after seeing \
         {seen}, think it at most {}.",
        percent_with(EXPLAINED_PRIOR, 1),
        percent_with(bound.belief, 1)
    )
}

impl DesignFigures {
    /// The figures of `design`, its planner sized for `interval` (the survey's primary).
    pub fn of(design: &QuestionDesign, interval: Primary) -> Result<Self, AppError> {
        let confidence = Confidence::new(PLANNING_CONFIDENCE).map_err(AppError::internal)?;
        let planning = planning(design, interval, confidence)?;
        let (five, ten) = (
            planning.chernoff_for_5_points,
            planning.chernoff_for_10_points,
        );
        let bound = observer_bound(design)?;
        Ok(Self {
            question_type: design.question_type(),
            design: design.design_name(),
            epsilon: design.epsilon(),
            truth_probability: design.truth_probability(),
            prior: EXPLAINED_PRIOR,
            posterior: bound.belief,
            confidence: PLANNING_CONFIDENCE,
            respondents_needed_5: five,
            respondents_needed_10: ten,
            planning,
            summary: explain(design)?.plain,
            planner_target: planner_target(design),
            observer: observer(design, bound),
            display: FiguresDisplay {
                epsilon: format!("{:.2}", design.epsilon()),
                truth_probability: percent_with(design.truth_probability(), 1),
                posterior: percent_with(bound.belief, 1),
                respondents_needed_5: planning.for_5_points.to_string(),
                respondents_needed_10: planning.for_10_points.to_string(),
                chernoff_needed_5: five.to_string(),
                chernoff_needed_10: ten.to_string(),
            },
        })
    }
}

/// A design's figures as the builder shows them: every text, "–" where there is none (a
/// refused design, whose reason is then `refusal`).
pub struct FiguresText {
    pub summary: String,
    pub epsilon: String,
    /// ε as a plain number for the script's total, empty when refused.
    pub epsilon_value: String,
    pub truth: String,
    pub observer: String,
    pub confidence: String,
    /// The primary interval's counts, and the interval named.
    pub needed_5: String,
    pub needed_10: String,
    pub interval_name: &'static str,
    /// Chernoff's counts.
    pub chernoff_5: String,
    pub chernoff_10: String,
    pub planner_target: String,
    pub refusal: String,
}

impl FiguresText {
    pub fn of(figures: &DesignFigures) -> Self {
        Self {
            summary: figures.summary.clone(),
            epsilon: figures.display.epsilon.clone(),
            epsilon_value: figures.epsilon.to_string(),
            truth: figures.display.truth_probability.clone(),
            observer: figures.observer.clone(),
            confidence: percent_with(figures.confidence, 0),
            needed_5: figures.display.respondents_needed_5.clone(),
            needed_10: figures.display.respondents_needed_10.clone(),
            interval_name: planning_interval_name(figures.planning.interval),
            chernoff_5: figures.display.chernoff_needed_5.clone(),
            chernoff_10: figures.display.chernoff_needed_10.clone(),
            planner_target: figures.planner_target.clone(),
            refusal: String::new(),
        }
    }

    /// No figures: the design was refused for `reason`.
    pub fn refused(reason: String, interval: Primary) -> Self {
        let none = || "–".to_owned();
        Self {
            summary: String::new(),
            epsilon: none(),
            epsilon_value: String::new(),
            truth: none(),
            observer: String::new(),
            confidence: percent_with(PLANNING_CONFIDENCE, 0),
            needed_5: none(),
            needed_10: none(),
            interval_name: planning_interval_name(interval),
            chernoff_5: none(),
            chernoff_10: none(),
            planner_target: String::new(),
            refusal: reason,
        }
    }

    /// A grouping question's: no ε (it adds none to the total), no planner; the warning.
    pub fn grouping() -> Self {
        let none = || "–".to_owned();
        Self {
            // What the (English) form says under it.
            summary: catalog(Language::En).text("grouping-plain"),
            epsilon: "none (not randomized)".to_owned(),
            epsilon_value: "0".to_owned(),
            truth: "100 %".to_owned(),
            observer: GROUPING_WARNING.to_owned(),
            confidence: percent_with(PLANNING_CONFIDENCE, 0),
            needed_5: none(),
            needed_10: none(),
            interval_name: planning_interval_name(Primary::Anytime),
            chernoff_5: none(),
            chernoff_10: none(),
            planner_target: String::new(),
            refusal: String::new(),
        }
    }

    /// The figures of the design a form describes, its planner sized for `interval`, or
    /// why it is refused.
    pub fn of_form(form: &DesignForm, interval: Primary) -> Result<Self, AppError> {
        if form.is_grouping() {
            return Ok(Self::grouping());
        }
        match form.parse("question") {
            Ok(design) => Ok(Self::of(&DesignFigures::of(&design, interval)?)),
            Err(error @ AppError::Invalid { .. }) => {
                Ok(Self::refused(error.public_message(), interval))
            }
            Err(error) => Err(error),
        }
    }
}

/// A builder form's type and design inputs with what they mean.
pub struct DesignEditor {
    /// Makes the inputs' ids unique on the page: `q12`, `new`, `first`.
    pub prefix: String,
    /// Prefixes the inputs' names where one form holds several questions (`q0-`, `new-`);
    /// empty where the form has one question.
    pub name_prefix: String,
    pub form: DesignForm,
    pub figures: FiguresText,
    pub figures_url: &'static str,
    /// The interval the planner sizes (the figures route's `interval`): the survey's.
    pub interval: &'static str,
    pub min_epsilon: f64,
    pub max_epsilon: f64,
    pub grouping_warning: &'static str,
    /// Why the last save refused this ε, in plain words, shown under its input (then not
    /// again in the figures).
    pub epsilon_error: Option<String>,
}

impl DesignEditor {
    /// The inputs as typed (a saved design, or a refused form shown again), the planner
    /// sized for a survey watched live (the default way of running).
    pub fn new(prefix: String, form: DesignForm) -> Result<Self, AppError> {
        Self::sized_for(prefix, form, Primary::Anytime)
    }

    /// The inputs as typed, the planner sized for `interval` (the survey's primary).
    pub fn sized_for(
        prefix: String,
        form: DesignForm,
        interval: Primary,
    ) -> Result<Self, AppError> {
        Ok(Self {
            prefix,
            name_prefix: String::new(),
            figures: FiguresText::of_form(&form, interval)?,
            form,
            figures_url: FIGURES_PATH,
            interval: interval_field(interval),
            min_epsilon: PrivacyLevel::MIN_EPSILON,
            max_epsilon: PrivacyLevel::MAX_EPSILON,
            grouping_warning: GROUPING_WARNING,
            epsilon_error: None,
        })
    }

    /// Shows `sentence` under the ε input, and leaves out the figures' own copy of the
    /// refusal.
    pub fn refuse_epsilon(&mut self, sentence: String) {
        self.figures.refusal.clear();
        self.epsilon_error = Some(sentence);
    }

    /// A saved question's design, the planner sized for `interval`.
    pub fn of(
        prefix: String,
        design: &QuestionDesign,
        interval: Primary,
    ) -> Result<Self, AppError> {
        Self::sized_for(prefix, DesignForm::of(design), interval)
    }

    /// A new question's: the defaults.
    pub fn blank(prefix: &str) -> Result<Self, AppError> {
        Self::new(prefix.to_owned(), DesignForm::default_values())
    }

    /// The same editor with its inputs named `{prefix}-type`, `{prefix}-epsilon`, … (the
    /// builder's one form).
    pub fn named(mut self) -> Self {
        self.name_prefix = format!("{}-", self.prefix);
        self
    }

    /// The `data-applies` of one input (see [`applies_to`]).
    pub fn applies(&self, input: &str) -> String {
        applies_to(input)
    }
}

/// The figures route's path, for the builder's script.
pub const FIGURES_PATH: &str = "/designs/figures";

/// The figures route's `interval` as the query says it.
fn interval_field(interval: Primary) -> &'static str {
    match interval {
        Primary::Anytime => "anytime",
        Primary::Exact => "exact",
        Primary::Chernoff => "chernoff",
    }
}

/// The figures route's own query parameter beside the design's inputs.
#[derive(Debug, Deserialize)]
pub struct PlanningQuery {
    /// The interval the planner sizes: `anytime` (a survey watched live, the default) or
    /// `exact` (fixed in advance).
    #[serde(default)]
    pub interval: Option<Primary>,
}

/// GET /designs/figures?type=…&design=…&epsilon=…&interval=…: what a design means, for
/// the builder's script while the researcher types; its planner sized for `interval`
/// (`anytime`, the default, or `exact`: the survey's way of running). The query takes the builder form's design inputs;
/// a design the domain refuses (an infinite ε, a sum that is not 1, too few options) is a
/// 400 whose message says why. Signed-in researchers (or API tokens) only; never cached.
pub async fn figures(
    _: Owner,
    request: HttpRequest,
    query: web::Query<DesignForm>,
    planning: web::Query<PlanningQuery>,
) -> Result<HttpResponse, AppError> {
    if query.is_grouping() {
        // Not randomized: the same keys the script reads, with ε 0 for the survey's total.
        let text = FiguresText::grouping();
        return Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(serde_json::json!({
                "type": GROUPING_TYPE,
                "randomized": false,
                "epsilon": 0,
                "summary": text.summary,
                "observer": text.observer,
                "planner_target": text.planner_target,
                "display": {
                    "epsilon": text.epsilon,
                    "truth_probability": text.truth,
                    "respondents_needed_5": text.needed_5,
                    "respondents_needed_10": text.needed_10,
                    "chernoff_needed_5": text.chernoff_5,
                    "chernoff_needed_10": text.chernoff_10,
                },
            })));
    }
    let interval = planning.interval.unwrap_or(Primary::Anytime);
    // A refused ε reads as the builder shows it once saved: a plain sentence in the
    // researcher's language, not the API's field path.
    let design = query.parse("question").map_err(|error| {
        let language = researcher_language(&request);
        match (&error, plain_refusal(&error, "", &query.epsilon, language)) {
            (AppError::Invalid { code, .. }, Some(plain)) if plain.field == Field::Epsilon => {
                AppError::invalid(code, plain.sentence)
            }
            _ => error,
        }
    })?;
    let figures = DesignFigures::of(&design, interval)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(figures))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> DesignForm {
        let query: String = pairs
            .iter()
            .map(|(name, value)| format!("{name}={value}&"))
            .collect();
        web::Query::<DesignForm>::from_query(&query)
            .unwrap()
            .into_inner()
    }

    #[test]
    fn inputs_of_other_designs_are_ignored_and_blank_lines_of_options_dropped() {
        let fields = form(&[
            ("type", "choice"),
            ("design", "forced_response"),
            ("epsilon", "1.5"),
            ("forced_no", "0"),
            ("options", "Never%0A%0AOnce%0AOften%0A"),
            ("min", "3"),
        ])
        .to_fields("q")
        .unwrap();
        assert_eq!(fields.design, Some(DesignName::KAry));
        assert_eq!(fields.epsilon, Some(1.5));
        assert_eq!(fields.forced_no, None);
        assert_eq!(fields.min, None);
        assert_eq!(
            fields.options.unwrap(),
            ["Never", "Once", "Often"].map(String::from)
        );
    }

    #[test]
    fn a_word_where_a_number_belongs_is_refused_by_name() {
        let error = form(&[("epsilon", "lots")]).to_fields("q").unwrap_err();
        assert!(error.to_string().contains("q.epsilon must be a number"));
    }

    #[test]
    fn the_mirrored_observer_bound_is_warners_posterior_after_a_yes() {
        let design = form(&[("epsilon", "1")]).parse("q").unwrap();
        let p = 1f64.exp() / (1.0 + 1f64.exp());
        let expected = 0.1 * p / (0.1 * p + 0.9 * (1.0 - p));
        let bound = observer_bound(&design).unwrap();
        assert_eq!(bound.answer, randomized_response::Design::YES);
        assert!((bound.belief - expected).abs() < 1e-12);
    }

    #[test]
    fn every_input_applies_to_the_designs_that_use_it() {
        assert_eq!(
            applies_to("epsilon"),
            "yes_no:mirrored choice:k_ary ordinal:k_ary number:two_ends"
        );
        assert_eq!(
            applies_to("answer_truthfully"),
            "yes_no:forced_response yes_no:unrelated_question"
        );
        assert_eq!(
            applies_to("design"),
            "yes_no:mirrored yes_no:forced_response yes_no:unrelated_question"
        );
    }
}
