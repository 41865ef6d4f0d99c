//! What a question asks and how its answers are randomized: its type (yes/no, choice,
//! ordinal, number) and design, parsed once from the definition JSON into the crate's
//! [`Mechanism`], and stored as the same JSON in `questions.design`.
//!
//! Skipping: every question of a response is answered. A blank would not be randomized,
//! and leaving "Have you used…?" blank says something; the device's report is deniable
//! whatever the answer, so no one needs to skip. `"required": false` is still accepted (a
//! definition written for the first release loads unchanged) and means the same: the
//! question is answered (docs/design.md, "Skipping").

use randomized_response::{
    Design, DesignError, Mechanism, NumberDesign, PrivacyLevel, MAX_OPTIONS, MIN_OPTIONS,
};
use serde::{Deserialize, Serialize};

use super::DomainError;
use super::{bounded_text, QuestionId};

/// The most characters of an option's label, once trimmed.
pub const MAX_OPTION_CHARS: usize = 200;
/// The largest magnitude of a number question's bounds.
pub const MAX_NUMBER_BOUND: f64 = 1e9;

/// A stored question with its design, in position order within its survey.
#[derive(Debug, Clone)]
pub struct Question {
    pub id: QuestionId,
    pub position: u32,
    pub text: String,
    pub design: QuestionDesign,
}

impl Question {
    /// The question's number as the respondent's form shows it: its 1-based place among
    /// all the survey's questions, grouping questions included (results, present mode, the
    /// codebook and `simulate` all use it).
    pub fn number(&self) -> u32 {
        self.position + 1
    }

    /// The question's ε (a yes/no design given by probabilities: the ε they imply).
    pub fn epsilon(&self) -> f64 {
        self.design.epsilon()
    }
}

/// A question's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionType {
    /// Yes or no: answers and reports 0 = No, 1 = Yes.
    YesNo,
    /// One of 2 to 20 unordered options: the option index.
    Choice,
    /// One of 2 to 20 ordered levels: the level index (0 = the first).
    Ordinal,
    /// A number within bounds, reported as one of the two ends: 0 = min, 1 = max.
    Number,
}

impl QuestionType {
    pub const ALL: [Self; 4] = [Self::YesNo, Self::Choice, Self::Ordinal, Self::Number];

    /// The type named `name` as the API spells it (`yes_no`, …).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::YesNo => "yes_no",
            Self::Choice => "choice",
            Self::Ordinal => "ordinal",
            Self::Number => "number",
        }
    }
}

/// A question's randomization design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DesignName {
    /// Warner's symmetric design (yes/no): the truth with e^ε / (1 + e^ε).
    Mirrored,
    /// Forced response (yes/no): R `rr`'s `forced-known`, RRreg's `FR`.
    ForcedResponse,
    /// Unrelated question with a known innocuous rate (yes/no): `rr`'s `unrelated-known`,
    /// RRreg's `UQTknown`.
    UnrelatedQuestion,
    /// k-ary randomized response (choice and ordinal).
    KAry,
    /// A number rounded at random to one of its two ends, then mirrored randomized
    /// response (Duchi, Jordan & Wainwright 2018).
    TwoEnds,
}

impl DesignName {
    /// Whether ε is a parameter of the design (mirrored, k-ary, two ends) rather than
    /// implied by its probabilities (forced response, unrelated question).
    pub fn takes_epsilon(self) -> bool {
        matches!(self, Self::Mirrored | Self::KAry | Self::TwoEnds)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mirrored => "mirrored",
            Self::ForcedResponse => "forced_response",
            Self::UnrelatedQuestion => "unrelated_question",
            Self::KAry => "k_ary",
            Self::TwoEnds => "two_ends",
        }
    }
}

/// A question's type and design parameters as JSON: in a definition (`POST /api/surveys`),
/// in the public definition, and as stored. Which fields apply depends on the type and
/// design; any other is refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DesignFields {
    /// `yes_no` (the default), `choice`, `ordinal` or `number`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub question_type: Option<QuestionType>,
    /// For yes/no: `mirrored` (the default), `forced_response` or `unrelated_question`;
    /// choice and ordinal questions use `k_ary` and numbers `two_ends` (both may be left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<DesignName>,
    /// ε (0.01 to 20) for mirrored, choice, ordinal and number questions; derived from the
    /// probabilities for forced response and unrelated question. Frozen once the survey opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.01, maximum = 20.0, examples(1.0986))]
    pub epsilon: Option<f64>,
    /// Forced response and unrelated question (R `rr`'s p): the probability that the device
    /// reports the true answer as such.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub answer_truthfully: Option<f64>,
    /// Forced response (`rr`'s p1): the probability of a forced "yes".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub forced_yes: Option<f64>,
    /// Forced response (`rr`'s p0): the probability of a forced "no".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub forced_no: Option<f64>,
    /// Unrelated question (`rr`'s q): the "yes" rate of the simulated innocuous question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub innocuous_yes: Option<f64>,
    /// Choice and ordinal: 2 to 20 distinct labels (1 to 200 characters), in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 2, max_items = 20)]
    pub options: Option<Vec<String>>,
    /// Number: the lower bound (finite, |min| ≤ 10⁹).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Number: the upper bound, above min (|max| ≤ 10⁹).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// A validated type and design with the mechanism it defines.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionDesign {
    question_type: QuestionType,
    design: DesignName,
    /// Canonical fields: exactly those of the type and design, as stored.
    fields: DesignFields,
    mechanism: Mechanism,
}

fn invalid_design(field: &str, error: DesignError) -> DomainError {
    DomainError::invalid("invalid_design", format!("{field}: {error}"))
}

impl QuestionDesign {
    /// Parses the type and design of question `field` (e.g. `questions[2]`).
    pub fn parse(field: &str, input: &DesignFields) -> Result<Self, DomainError> {
        let question_type = input.question_type.unwrap_or(QuestionType::YesNo);
        let design = match (question_type, input.design) {
            (QuestionType::YesNo, None) => DesignName::Mirrored,
            (QuestionType::Choice | QuestionType::Ordinal, None) => DesignName::KAry,
            (QuestionType::Number, None) => DesignName::TwoEnds,
            (_, Some(design)) => design,
        };
        let allowed: &[DesignName] = match question_type {
            QuestionType::YesNo => &[
                DesignName::Mirrored,
                DesignName::ForcedResponse,
                DesignName::UnrelatedQuestion,
            ],
            QuestionType::Choice | QuestionType::Ordinal => &[DesignName::KAry],
            QuestionType::Number => &[DesignName::TwoEnds],
        };
        if !allowed.contains(&design) {
            let names: Vec<&str> = allowed.iter().map(|d| d.as_str()).collect();
            return Err(DomainError::invalid(
                "invalid_design",
                format!(
                    "{field}.design: a {} question's design is {}, not {}",
                    question_type.as_str(),
                    names.join(" or "),
                    design.as_str()
                ),
            ));
        }
        let expected: &[&str] = match design {
            DesignName::Mirrored => &["epsilon"],
            DesignName::ForcedResponse => &["answer_truthfully", "forced_yes", "forced_no"],
            DesignName::UnrelatedQuestion => &["answer_truthfully", "innocuous_yes"],
            DesignName::KAry => &["epsilon", "options"],
            DesignName::TwoEnds => &["epsilon", "min", "max"],
        };
        check_fields(field, question_type, design, input, expected)?;
        // One sentence naming the field; the crate's own message would repeat the range.
        let level = || -> Result<PrivacyLevel, DomainError> {
            let range = format!(
                "between {} and {}",
                PrivacyLevel::MIN_EPSILON,
                PrivacyLevel::MAX_EPSILON
            );
            // Present: `check_fields` refused a design without it.
            let epsilon = input.epsilon.unwrap_or(f64::NAN);
            PrivacyLevel::new(epsilon).map_err(|_| {
                let got = if epsilon.is_finite() {
                    format!("got {epsilon}")
                } else {
                    "got a value that is not a finite number".to_owned()
                };
                DomainError::invalid(
                    "invalid_epsilon",
                    format!("{field}.epsilon must be {range} ({got})"),
                )
            })
        };
        let probability = |value: Option<f64>| value.unwrap_or(f64::NAN);
        let mut fields = DesignFields {
            question_type: Some(question_type),
            design: Some(design),
            ..DesignFields::default()
        };
        let mechanism = match design {
            DesignName::Mirrored => {
                let level = level()?;
                fields.epsilon = Some(level.epsilon());
                Mechanism::Square(Design::mirrored(level))
            }
            DesignName::ForcedResponse => {
                let (p, p1, p0) = (
                    probability(input.answer_truthfully),
                    probability(input.forced_yes),
                    probability(input.forced_no),
                );
                let design = Design::forced_response(p, p1, p0)
                    .map_err(|error| invalid_design(field, error))?;
                (
                    fields.answer_truthfully,
                    fields.forced_yes,
                    fields.forced_no,
                ) = (Some(p), Some(p1), Some(p0));
                Mechanism::Square(design)
            }
            DesignName::UnrelatedQuestion => {
                let (p, q) = (
                    probability(input.answer_truthfully),
                    probability(input.innocuous_yes),
                );
                let design = Design::unrelated_question(p, q)
                    .map_err(|error| invalid_design(field, error))?;
                (fields.answer_truthfully, fields.innocuous_yes) = (Some(p), Some(q));
                Mechanism::Square(design)
            }
            DesignName::KAry => {
                let options = parse_options(field, input.options.as_deref().unwrap_or(&[]))?;
                let level = level()?;
                let design =
                    Design::k_ary(options.len(), level).map_err(|e| invalid_design(field, e))?;
                fields.epsilon = Some(level.epsilon());
                fields.options = Some(options);
                Mechanism::Square(design)
            }
            DesignName::TwoEnds => {
                let (min, max) = (input.min.unwrap_or(f64::NAN), input.max.unwrap_or(f64::NAN));
                if !(min.abs() <= MAX_NUMBER_BOUND && max.abs() <= MAX_NUMBER_BOUND && min < max) {
                    return Err(DomainError::invalid(
                        "invalid_bounds",
                        format!(
                            "{field}: a number's min and max must be numbers between \
                             -{MAX_NUMBER_BOUND} and {MAX_NUMBER_BOUND} with min below max"
                        ),
                    ));
                }
                let level = level()?;
                let number =
                    NumberDesign::new(min, max, level).map_err(|e| invalid_design(field, e))?;
                (fields.epsilon, fields.min, fields.max) =
                    (Some(level.epsilon()), Some(min), Some(max));
                Mechanism::Number(number)
            }
        };
        Ok(Self {
            question_type,
            design,
            fields,
            mechanism,
        })
    }

    /// A question of the first release: yes/no, mirrored, at level ε.
    pub fn mirrored(level: PrivacyLevel) -> Self {
        Self {
            question_type: QuestionType::YesNo,
            design: DesignName::Mirrored,
            fields: DesignFields {
                question_type: Some(QuestionType::YesNo),
                design: Some(DesignName::Mirrored),
                epsilon: Some(level.epsilon()),
                ..DesignFields::default()
            },
            mechanism: Mechanism::Square(Design::mirrored(level)),
        }
    }

    /// The design as stored (`questions.design`): its canonical fields as JSON.
    pub fn to_stored(&self) -> String {
        serde_json::to_string(&self.fields).unwrap_or_else(|_| unreachable!("plain data"))
    }

    /// A stored design: `None` (rows from before migration 0003) is mirrored at `epsilon`.
    pub fn from_stored(design: Option<&str>, epsilon: f64) -> Result<Self, DomainError> {
        let corrupt = |what: &dyn std::fmt::Display| {
            DomainError::internal(format!("a stored question design is invalid: {what}"))
        };
        match design {
            None => Ok(Self::mirrored(
                PrivacyLevel::new(epsilon).map_err(|e| corrupt(&e))?,
            )),
            Some(json) => {
                let fields: DesignFields = serde_json::from_str(json).map_err(|e| corrupt(&e))?;
                Self::parse("stored", &fields).map_err(|e| corrupt(&e))
            }
        }
    }

    pub fn question_type(&self) -> QuestionType {
        self.question_type
    }

    pub fn design_name(&self) -> DesignName {
        self.design
    }

    /// The canonical fields (type, design, parameters; `epsilon` only where it is a
    /// parameter).
    pub fn fields(&self) -> &DesignFields {
        &self.fields
    }

    pub fn mechanism(&self) -> &Mechanism {
        &self.mechanism
    }

    /// The promised ε: the parameter, or the ε the probabilities imply.
    pub fn epsilon(&self) -> f64 {
        self.mechanism.epsilon()
    }

    /// ε as a privacy level, as stored beside each report.
    pub fn level(&self) -> PrivacyLevel {
        PrivacyLevel::new(self.epsilon())
            .unwrap_or_else(|_| unreachable!("every design's ε is in the accepted range"))
    }

    /// The largest probability that a report equals the truth.
    pub fn truth_probability(&self) -> f64 {
        self.mechanism.truth_probability()
    }

    /// The option labels of a choice or ordinal question.
    pub fn options(&self) -> Option<&[String]> {
        self.fields.options.as_deref()
    }

    /// A report in words, for the respondent's receipt page: "Yes"/"No", the option's
    /// label, or the end of a number's range it names.
    pub fn report_label(&self, report: u8) -> String {
        match (self.question_type, report) {
            (QuestionType::YesNo, 0) => "No".to_owned(),
            (QuestionType::YesNo, _) => "Yes".to_owned(),
            (QuestionType::Number, 0) => {
                format!("the lower end ({})", self.fields.min.unwrap_or_default())
            }
            (QuestionType::Number, _) => {
                format!("the upper end ({})", self.fields.max.unwrap_or_default())
            }
            (QuestionType::Choice | QuestionType::Ordinal, _) => self
                .options()
                .and_then(|options| options.get(usize::from(report)))
                .cloned()
                .unwrap_or_else(|| format!("option {report}")),
        }
    }

    /// How many different reports a device may send: 0 to `reports() − 1`.
    pub fn reports(&self) -> usize {
        self.mechanism.reports()
    }
}

/// The type name of a grouping question in definitions and as stored.
pub const GROUPING_TYPE: &str = "grouping";

/// A grouping question (docs/design.md, invariant 1's one exception): a non-sensitive
/// attribute such as year of study, **not randomized**. Its answer, the option index, is
/// sent and stored as given, in the response's own row beside its reports; breakdowns by it
/// show only groups of at least `min_cell` responses (k-anonymity). It has no ε and no
/// design: the survey's total ε counts the randomized questions only.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupingQuestion {
    pub id: QuestionId,
    pub position: u32,
    pub text: String,
    /// 2 to 20 distinct one-line labels; the answer is the index of one.
    pub options: Vec<String>,
}

impl GroupingQuestion {
    /// The question's number as the respondent's form shows it (see [`Question::number`]).
    pub fn number(&self) -> u32 {
        self.position + 1
    }

    /// Whether `answer` names one of its options.
    pub fn accepts(&self, answer: u8) -> bool {
        usize::from(answer) < self.options.len()
    }

    /// An answer's label (`option {answer}` for one out of range).
    pub fn label(&self, answer: u8) -> String {
        self.options
            .get(usize::from(answer))
            .cloned()
            .unwrap_or_else(|| format!("option {answer}"))
    }
}

/// A grouping question as a definition gives it: `{"type": "grouping", "text": …,
/// "options": [...]}`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupingDefinition {
    text: String,
    options: Vec<String>,
}

/// The JSON of a grouping question in a definition.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = GroupingQuestionDefinition)]
pub struct GroupingInput {
    /// Always `grouping`.
    #[serde(rename = "type")]
    #[schema(value_type = String, pattern = "^grouping$", examples("grouping"))]
    #[allow(dead_code)] // read only to tell the kinds apart
    kind: String,
    /// The question, 1 to 1 000 characters once trimmed: a non-sensitive attribute.
    #[schema(min_length = 1, max_length = 1000, examples("Year of study"))]
    text: String,
    /// 2 to 20 distinct labels (1 to 200 characters, one line each), in order.
    #[schema(min_items = 2, max_items = 20, examples(json!(["First", "Second", "Later"])))]
    options: Vec<String>,
    /// Accepted and ignored, as for randomized questions: every question is answered.
    #[serde(default)]
    #[allow(dead_code)]
    required: Option<bool>,
}

impl GroupingDefinition {
    pub fn parse(field: &str, input: &GroupingInput) -> Result<Self, DomainError> {
        Self::of(field, &input.text, &input.options)
    }

    pub fn of(field: &str, text: &str, options: &[String]) -> Result<Self, DomainError> {
        Ok(Self {
            text: bounded_text(&format!("{field}.text"), text, 1, super::MAX_QUESTION_CHARS)?,
            options: parse_options(field, options)?,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// As stored in `questions.design`: `{"type": "grouping", "options": [...]}`.
    pub fn to_stored(&self) -> String {
        serde_json::json!({"type": GROUPING_TYPE, "options": self.options}).to_string()
    }
}

/// A stored question's grouping options, when its stored design is a grouping question's.
pub fn stored_grouping(design: Option<&str>) -> Result<Option<Vec<String>>, DomainError> {
    let Some(json) = design else {
        return Ok(None);
    };
    let corrupt = |what: &dyn std::fmt::Display| {
        DomainError::internal(format!("a stored grouping question is invalid: {what}"))
    };
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| corrupt(&e))?;
    if value.get("type").and_then(serde_json::Value::as_str) != Some(GROUPING_TYPE) {
        return Ok(None);
    }
    let options: Vec<String> =
        serde_json::from_value(value["options"].clone()).map_err(|e| corrupt(&e))?;
    Ok(Some(options))
}

/// One question of a definition: randomized (any type but grouping) or grouping.
#[derive(Debug)]
pub enum QuestionInput {
    Randomized(super::QuestionDefinitionInput),
    Grouping(GroupingInput),
}

impl<'de> Deserialize<'de> for QuestionInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        if value.get("type").and_then(serde_json::Value::as_str) == Some(GROUPING_TYPE) {
            for randomized_only in ["epsilon", "design"] {
                if value.get(randomized_only).is_some() {
                    return Err(D::Error::custom(format_args!(
                        "a grouping question is not randomized: it has no {randomized_only}"
                    )));
                }
            }
            serde_json::from_value(value)
                .map(Self::Grouping)
                .map_err(D::Error::custom)
        } else {
            if let Some(unknown) = value
                .get("type")
                .and_then(serde_json::Value::as_str)
                .filter(|name| QuestionType::from_name(name).is_none())
            {
                // serde's own message would list the randomized types only.
                let known: Vec<String> = QuestionType::ALL
                    .iter()
                    .map(|kind| format!("`{}`", kind.as_str()))
                    .chain([format!("`{GROUPING_TYPE}`")])
                    .collect();
                return Err(D::Error::custom(format_args!(
                    "unknown question type `{unknown}`, expected one of {}",
                    known.join(", ")
                )));
            }
            serde_json::from_value(value)
                .map(Self::Randomized)
                .map_err(D::Error::custom)
        }
    }
}

impl utoipa::PartialSchema for QuestionInput {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::OneOfBuilder;
        use utoipa::openapi::Ref;
        OneOfBuilder::new()
            .item(Ref::from_schema_name("QuestionDefinition"))
            .item(Ref::from_schema_name("GroupingQuestionDefinition"))
            .description(Some(
                "A randomized question (yes/no, choice, ordinal, number), or a grouping \
                 question (`\"type\": \"grouping\"`): a non-sensitive attribute that is not \
                 randomized.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for QuestionInput {
    fn name() -> std::borrow::Cow<'static, str> {
        "DefinitionQuestion".into()
    }

    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::{PartialSchema, ToSchema};
        schemas.push((
            "QuestionDefinition".to_owned(),
            <super::QuestionDefinitionInput as PartialSchema>::schema(),
        ));
        <super::QuestionDefinitionInput as ToSchema>::schemas(schemas);
        schemas.push((
            "GroupingQuestionDefinition".to_owned(),
            <GroupingInput as PartialSchema>::schema(),
        ));
        <GroupingInput as ToSchema>::schemas(schemas);
    }
}

fn check_fields(
    field: &str,
    question_type: QuestionType,
    design: DesignName,
    input: &DesignFields,
    expected: &[&str],
) -> Result<(), DomainError> {
    let given = [
        ("epsilon", input.epsilon.is_some()),
        ("answer_truthfully", input.answer_truthfully.is_some()),
        ("forced_yes", input.forced_yes.is_some()),
        ("forced_no", input.forced_no.is_some()),
        ("innocuous_yes", input.innocuous_yes.is_some()),
        ("options", input.options.is_some()),
        ("min", input.min.is_some()),
        ("max", input.max.is_some()),
    ];
    let described = || {
        if question_type == QuestionType::YesNo {
            format!("a yes/no question with the {} design", design.as_str())
        } else {
            format!("a {} question", question_type.as_str())
        }
    };
    for (name, present) in given {
        let wanted = expected.contains(&name);
        if present && !wanted {
            let why = if name == "epsilon" {
                " (its ε follows from its probabilities)"
            } else {
                ""
            };
            return Err(DomainError::invalid(
                "unexpected_field",
                format!("{field}.{name} does not belong to {}{why}", described()),
            ));
        }
        if wanted && !present {
            return Err(DomainError::invalid(
                "missing_field",
                format!("{field}.{name} is required for {}", described()),
            ));
        }
    }
    Ok(())
}

fn parse_options(field: &str, options: &[String]) -> Result<Vec<String>, DomainError> {
    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options.len()) {
        return Err(DomainError::invalid(
            "invalid_options",
            format!(
                "{field}.options: a choice or ordinal question has between {MIN_OPTIONS} and \
                 {MAX_OPTIONS} options, got {}",
                options.len()
            ),
        ));
    }
    let mut labels: Vec<String> = Vec::with_capacity(options.len());
    for (index, option) in options.iter().enumerate() {
        let label = bounded_text(
            &format!("{field}.options[{index}]"),
            option,
            1,
            MAX_OPTION_CHARS,
        )?;
        if label.contains('\n') {
            return Err(DomainError::invalid(
                "invalid_options",
                format!("{field}.options[{index}] must be one line"),
            ));
        }
        if labels.contains(&label) {
            return Err(DomainError::invalid(
                "invalid_options",
                format!("{field}.options[{index}] repeats the option {label:?}"),
            ));
        }
        labels.push(label);
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<QuestionDesign, DomainError> {
        QuestionDesign::parse("q", &serde_json::from_str(json).unwrap())
    }

    fn message(json: &str) -> String {
        parse(json).unwrap_err().to_string()
    }

    #[test]
    fn an_unknown_type_is_refused_with_every_type_a_question_may_have_grouping_included() {
        let error = serde_json::from_str::<QuestionInput>(r#"{"text": "Q", "type": "essay"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "unknown question type `essay`, expected one of `yes_no`, `choice`, \
                 `ordinal`, `number`, `grouping`"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_definition_with_only_epsilon_is_a_mirrored_yes_no_question() {
        let design = parse(r#"{"epsilon": 1.1}"#).unwrap();
        assert_eq!(design.question_type(), QuestionType::YesNo);
        assert_eq!(design.design_name(), DesignName::Mirrored);
        assert_eq!(
            design,
            QuestionDesign::mirrored(PrivacyLevel::new(1.1).unwrap())
        );
    }

    #[test]
    fn an_epsilon_out_of_range_is_one_sentence_naming_the_field() {
        let text = message(r#"{"epsilon": 50}"#);
        assert_eq!(
            text,
            "invalid_epsilon: q.epsilon must be between 0.01 and 20 (got 50)"
        );
    }

    #[test]
    fn forced_response_reports_its_derived_epsilon_and_truth_probability() {
        let design = parse(
            r#"{"type": "yes_no", "design": "forced_response",
                "answer_truthfully": 0.67, "forced_yes": 0.165, "forced_no": 0.165}"#,
        )
        .unwrap();
        assert!((design.truth_probability() - 0.835).abs() < 1e-12);
        assert!((design.epsilon() - (0.835f64 / 0.165).ln()).abs() < 1e-12);
        assert_eq!(
            design.fields().epsilon,
            None,
            "ε is derived, not a parameter"
        );
    }

    #[test]
    fn an_infinite_epsilon_design_is_refused_with_what_a_report_would_prove() {
        let text = message(
            r#"{"design": "forced_response", "answer_truthfully": 0.8, "forced_yes": 0.2,
                "forced_no": 0}"#,
        );
        assert!(
            text.contains("a report of No would prove the true answer is No"),
            "{text}"
        );
        let text = message(
            r#"{"design": "unrelated_question", "answer_truthfully": 0.5, "innocuous_yes": 0}"#,
        );
        assert!(text.contains("would prove"), "{text}");
    }

    #[test]
    fn fields_of_another_design_are_refused_by_name() {
        assert!(message(r#"{"epsilon": 1, "options": ["a", "b"]}"#).contains("q.options"));
        assert!(message(
            r#"{"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 0.5, "epsilon": 1}"#
        )
        .contains("follows from its probabilities"));
        assert!(message(r#"{"type": "number", "epsilon": 1, "min": 0}"#).contains("q.max"));
        assert!(message(
            r#"{"type": "choice", "design": "mirrored", "epsilon": 1, "options": ["a", "b"]}"#
        )
        .contains("k_ary"));
    }

    #[test]
    fn options_are_two_to_twenty_distinct_one_line_labels() {
        assert!(parse(r#"{"type": "choice", "epsilon": 1, "options": ["a", "b"]}"#).is_ok());
        let twenty: Vec<String> = (0..20).map(|i| format!("o{i}")).collect();
        let json = serde_json::json!({"type": "ordinal", "epsilon": 1, "options": twenty});
        assert!(parse(&json.to_string()).is_ok());
        for bad in [
            r#"["a"]"#,
            r#"["a", " a "]"#,
            r#"["a", ""]"#,
            r#"["a", "b\nc"]"#,
        ] {
            let json = format!(r#"{{"type": "choice", "epsilon": 1, "options": {bad}}}"#);
            assert!(parse(&json).is_err(), "{bad}");
        }
    }

    #[test]
    fn number_bounds_are_finite_and_ordered() {
        let design = parse(r#"{"type": "number", "epsilon": 1, "min": 0, "max": 30}"#).unwrap();
        assert_eq!(design.reports(), 2);
        for (min, max) in [("5", "5"), ("3", "1"), ("0", "1e10")] {
            let json = format!(r#"{{"type": "number", "epsilon": 1, "min": {min}, "max": {max}}}"#);
            assert!(parse(&json).is_err(), "{min}..{max}");
        }
    }

    #[test]
    fn a_stored_design_reads_back_as_the_same_design() {
        for json in [
            r#"{"epsilon": 0.5}"#,
            r#"{"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 0.5}"#,
            r#"{"type": "ordinal", "epsilon": 2, "options": ["low", "mid", "high"]}"#,
            r#"{"type": "number", "epsilon": 1, "min": -2.5, "max": 30}"#,
        ] {
            let design = parse(json).unwrap();
            let stored = design.to_stored();
            assert_eq!(
                QuestionDesign::from_stored(Some(&stored), 0.0).unwrap(),
                design
            );
        }
        let legacy = QuestionDesign::from_stored(None, 2.0).unwrap();
        assert_eq!(legacy.design_name(), DesignName::Mirrored);
        assert_eq!(legacy.epsilon(), 2.0);
    }
}
