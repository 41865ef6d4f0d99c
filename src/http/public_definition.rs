//! A survey's public definition (`GET /api/surveys/{slug}`): what respondents may know of a
//! survey, and everything its form page and the page's headers are made of.
//!
//! The server renders the form from the value it would serve (`pages::form::form_page`),
//! and `deniable verify` renders it from the JSON it fetched, through the same function
//! (src/verify/): so the page a server sends can be checked byte for byte against this
//! binary's rendering. That holds only while every input of the page is a field here: the
//! page function takes nothing else, and a field this binary does not write is refused when
//! the JSON is read ([`PublicDefinition::from_json`]). A new field — a survey's `embed_origins`
//! for its `frame-ancestors`, say — is added here, filled in [`PublicDefinition::of`], and
//! reaches the server's page, the definition and `verify` alike.
//!
//! Per request, only the `nonce` differs (the server's half of each seed); the page does not
//! show it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::Database;
use crate::domain::{
    DesignFields, EmbedOrigins, InvitationKeyBody, Language, Nonce, QuestionDesign, Survey,
    SurveyIntro, SurveyStatus, GROUPING_TYPE,
};
use crate::error::AppError;

/// A survey as respondents see it, with a fresh nonce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PublicDefinition {
    pub slug: String,
    pub title: String,
    pub description: String,
    /// `open` or `closed` (drafts are 404).
    #[schema(value_type = String, examples("open"))]
    pub status: SurveyStatus,
    /// The form then redeems the code from its invitation link's fragment for a blind token
    /// (`POST …/redemptions`) and sends the token with the response.
    pub requires_invitation: bool,
    /// Only when invitations are required: the survey's key. The same for everyone (this
    /// definition is anonymous); every invitation link carries its fingerprint, and the
    /// form redeems only when the two are equal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation_key: Option<InvitationKeyBody>,
    /// Who runs the survey (empty when not given).
    pub researcher: String,
    /// An e-mail or web address to reach the researcher (empty when not given).
    pub contact: String,
    /// The information-and-consent text the form asks respondents to agree to before it
    /// sends anything; `null` when the survey has none.
    pub consent: Option<String>,
    /// The language of the form's own words: `en`, `de`, `fr` or `es`.
    #[schema(value_type = crate::domain::SurveyLanguage)]
    pub language: Language,
    /// k: the fewest responses that stayed any figure its owner sees rests on
    /// (docs/design.md, invariant 11). The form says so.
    #[schema(minimum = 5, maximum = 10_000)]
    pub min_cell: u32,
    /// Its owner sees no figure computed from the reports before it closes.
    pub results_after_close: bool,
    /// The sites that may show the form in a frame (its `frame-ancestors`; empty: none).
    /// A framed form tells these origins, and no other, when a response is stored.
    #[schema(max_items = 10, examples(json!(["https://survey.example.org"])))]
    pub embed_origins: Vec<String>,
    /// The sum of the randomized questions' ε: the privacy loss of one whole response
    /// (grouping questions are not randomized and not counted).
    pub total_epsilon: f64,
    /// 64 hex characters: the server's half of the seed, fresh for every request.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub nonce: String,
    pub questions: Vec<PublicQuestion>,
}

/// One question of the form: randomized, with its mechanism, or a grouping question (not
/// randomized: its answer is sent as given).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum PublicQuestion {
    Randomized(RandomizedQuestion),
    Grouping(PublicGrouping),
}

/// A grouping question: `"type": "grouping"`, `"randomized": false`, no ε.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PublicGrouping {
    /// The key of its answer in a submission's `answers`: the option's index, as given.
    pub id: i64,
    /// 0-based order on the form.
    pub position: u32,
    pub text: String,
    /// Always `grouping`.
    #[serde(rename = "type")]
    #[schema(examples("grouping"))]
    pub kind: String,
    pub options: Vec<String>,
    /// Always false: the answer is sent as the respondent gives it.
    pub randomized: bool,
    /// Always true: every question is answered.
    pub required: bool,
}

/// One randomized question and its mechanism.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RandomizedQuestion {
    /// The key of its report in a submission's `answers`.
    pub id: i64,
    /// 0-based order on the form.
    pub position: u32,
    pub text: String,
    /// The type, design and parameters (`epsilon` here only where it is a parameter).
    #[serde(flatten)]
    pub design: DesignFields,
    /// The question's ε (for forced response and unrelated question, the ε its
    /// probabilities imply).
    pub epsilon: f64,
    /// The largest probability that a report equals the truth (for a number, that its
    /// binary report equals the end the value was rounded to).
    pub truth_probability: f64,
    /// Always true: every question is answered (a blank would not be randomized).
    pub required: bool,
    /// Always true: the device randomizes the answer before sending it.
    pub randomized: bool,
}

/// A question of the form as the page shows it: a randomized one with its design read back
/// into this binary's mechanism, or a grouping question.
pub(super) enum FormQuestion<'a> {
    Randomized {
        question: &'a RandomizedQuestion,
        // Boxed: a design holds its mechanism's thresholds (kilobytes).
        design: Box<QuestionDesign>,
    },
    Grouping(&'a PublicGrouping),
}

impl PublicDefinition {
    /// The definition of `survey` with the server's half of a seed.
    pub fn of(survey: &Survey, invitation_key: Option<InvitationKeyBody>, nonce: &Nonce) -> Self {
        Self {
            invitation_key,
            nonce: nonce.to_hex(),
            questions: public_questions(survey),
            total_epsilon: survey.total_epsilon(),
            status: survey.status,
            requires_invitation: survey.requires_invitation,
            researcher: survey.intro.researcher().to_owned(),
            contact: survey.intro.contact_text().to_owned(),
            consent: survey.intro.consent().map(str::to_owned),
            language: survey.intro.language(),
            min_cell: survey.min_cell.get(),
            results_after_close: survey.results_after_close,
            embed_origins: survey.embed_origins.as_slice().to_vec(),
            slug: survey.slug.to_string(),
            title: survey.title.clone(),
            description: survey.description.clone(),
        }
    }

    /// Reads a definition as a server sent it, refusing one that this binary would not have
    /// written: not JSON, a field it does not know or lacks, a value of another form. What
    /// is accepted is then exactly what the page is rendered from.
    pub fn from_json(bytes: &[u8]) -> Result<Self, String> {
        let sent: Value =
            serde_json::from_slice(bytes).map_err(|error| format!("it is not JSON: {error}"))?;
        let definition: Self = serde_json::from_value(sent.clone())
            .map_err(|error| format!("it is not a definition this binary reads: {error}"))?;
        let written = serde_json::to_value(&definition)
            .map_err(|error| format!("it cannot be written again: {error}"))?;
        match first_difference(&sent, &written, "") {
            None => Ok(definition),
            Some(difference) => Err(format!(
                "it is not a definition this binary would write: {difference}"
            )),
        }
    }

    /// The researcher, contact, consent and language, checked as the survey's were (a
    /// contact is an e-mail or web address, never a `javascript:` link).
    pub(super) fn intro(&self) -> Result<SurveyIntro, AppError> {
        SurveyIntro::from_stored(
            self.researcher.clone(),
            &self.contact,
            self.consent.clone(),
            self.language.as_str(),
        )
        .map_err(|_| invalid(format!("contact {:?} is not a valid contact", self.contact)))
    }

    /// The sites that may frame the form, checked as a survey's are (a server cannot widen
    /// the frame policy with a wildcard or a second directive).
    pub(super) fn frame_ancestors(&self) -> Result<EmbedOrigins, AppError> {
        let origins = EmbedOrigins::parse(&self.embed_origins)
            .map_err(|error| invalid(format!("embed_origins: {}", error.message())))?;
        if origins.as_slice() != self.embed_origins.as_slice() {
            return Err(invalid(
                "embed_origins are not written as this binary writes them".to_owned(),
            ));
        }
        Ok(origins)
    }

    /// The questions in the definition's order, each randomized one's design read back and
    /// checked against its stated ε and truth probability, and the total ε against the sum.
    pub(super) fn form_questions(&self) -> Result<Vec<FormQuestion<'_>>, AppError> {
        let mut levels = Vec::new();
        let mut questions = Vec::with_capacity(self.questions.len());
        for (index, question) in self.questions.iter().enumerate() {
            let field = format!("questions[{index}]");
            questions.push(match question {
                PublicQuestion::Randomized(question) => {
                    let design = Box::new(question.read_design(&field)?);
                    levels.push(design.level());
                    FormQuestion::Randomized { question, design }
                }
                PublicQuestion::Grouping(grouping) => {
                    if grouping.kind != GROUPING_TYPE || grouping.randomized || !grouping.required {
                        return Err(invalid(format!(
                            "{field} is neither a randomized nor a grouping question"
                        )));
                    }
                    FormQuestion::Grouping(grouping)
                }
            });
        }
        let total = randomized_response::total_epsilon(levels);
        if total.to_bits() != self.total_epsilon.to_bits() {
            return Err(invalid(format!(
                "total_epsilon is {}, but its questions add up to {total}",
                self.total_epsilon
            )));
        }
        Ok(questions)
    }
}

impl RandomizedQuestion {
    /// The design, parsed as a survey's is, with the figures it implies checked against the
    /// ones stated.
    fn read_design(&self, field: &str) -> Result<QuestionDesign, AppError> {
        let takes_epsilon = self.design.design.is_some_and(|name| name.takes_epsilon());
        let fields = DesignFields {
            epsilon: takes_epsilon.then_some(self.epsilon),
            ..self.design.clone()
        };
        let design = QuestionDesign::parse(field, &fields)?;
        let canonical = DesignFields {
            epsilon: None,
            ..design.fields().clone()
        };
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
        if canonical != self.design
            || !same(design.epsilon(), self.epsilon)
            || !same(design.truth_probability(), self.truth_probability)
            || !self.required
            || !self.randomized
        {
            return Err(invalid(format!(
                "{field}: its ε, truth probability or flags are not what its design implies"
            )));
        }
        Ok(design)
    }
}

fn invalid(message: String) -> AppError {
    AppError::invalid("invalid_definition", message)
}

/// The definition the server sends for `survey` now: its key when it requires invitations,
/// and a fresh nonce.
pub(super) async fn served(db: &Database, survey: &Survey) -> Result<PublicDefinition, AppError> {
    let invitation_key = if survey.requires_invitation {
        db.public_invitation_key(survey.id)
            .await?
            .map(|key| key.body())
    } else {
        None
    };
    Ok(PublicDefinition::of(
        survey,
        invitation_key,
        &Nonce::generate()?,
    ))
}

pub(super) fn public_questions(survey: &Survey) -> Vec<PublicQuestion> {
    let mut questions: Vec<(u32, PublicQuestion)> = survey
        .groupings
        .iter()
        .map(|grouping| {
            (
                grouping.position,
                PublicQuestion::Grouping(PublicGrouping {
                    id: grouping.id.get(),
                    position: grouping.position,
                    text: grouping.text.clone(),
                    kind: GROUPING_TYPE.to_owned(),
                    options: grouping.options.clone(),
                    randomized: false,
                    required: true,
                }),
            )
        })
        .collect();
    questions.extend(survey.questions.iter().map(|question| {
        (
            question.position,
            PublicQuestion::Randomized(RandomizedQuestion {
                id: question.id.get(),
                position: question.position,
                text: question.text.clone(),
                design: DesignFields {
                    epsilon: None,
                    ..question.design.fields().clone()
                },
                epsilon: question.design.epsilon(),
                truth_probability: question.design.truth_probability(),
                required: true,
                randomized: true,
            }),
        )
    }));
    questions.sort_by_key(|(position, _)| *position);
    questions
        .into_iter()
        .map(|(_, question)| question)
        .collect()
}

/// Where two JSON values first differ (`questions[2].epsilon: 1.5 against 1.25`), if they do.
fn first_difference(sent: &Value, written: &Value, at: &str) -> Option<String> {
    let name = |at: &str| if at.is_empty() { "the whole" } else { at }.to_owned();
    match (sent, written) {
        (Value::Object(sent), Value::Object(written)) => {
            if let Some(key) = sent.keys().find(|key| !written.contains_key(*key)) {
                return Some(format!("{at}.{key} is not a field this binary knows"));
            }
            if let Some(key) = written.keys().find(|key| !sent.contains_key(*key)) {
                return Some(format!("{at}.{key} is missing"));
            }
            sent.iter().find_map(|(key, value)| {
                first_difference(value, &written[key], &format!("{at}.{key}"))
            })
        }
        (Value::Array(sent), Value::Array(written)) if sent.len() == written.len() => sent
            .iter()
            .zip(written)
            .enumerate()
            .find_map(|(i, (sent, written))| {
                first_difference(sent, written, &format!("{at}[{i}]"))
            }),
        _ if sent == written => None,
        _ => Some(format!(
            "{} is {sent}, which this binary writes {written}",
            name(at)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_this_binary_does_not_write_is_refused_when_read() {
        let extra = br#"{"slug": "s", "title": "T", "description": "", "status": "open",
            "requires_invitation": false, "researcher": "", "contact": "", "consent": null,
            "language": "en", "min_cell": 10, "results_after_close": false, "embed_origins": [], "total_epsilon": 1.0, "nonce": "00",
            "questions": [], "script": "/static/evil.js"}"#;
        let error = PublicDefinition::from_json(extra).unwrap_err();
        assert!(error.contains(".script is not a field"), "{error}");
        let written_otherwise = br#"{"slug": "s", "title": "T", "description": "",
            "status": "open", "requires_invitation": false, "researcher": "", "contact": "",
            "consent": null, "language": "en", "min_cell": 10, "results_after_close": false, "embed_origins": [], "total_epsilon": 0,
            "nonce": "00", "questions": []}"#;
        let error = PublicDefinition::from_json(written_otherwise).unwrap_err();
        assert!(
            error.contains(".total_epsilon is 0, which this binary writes 0.0"),
            "{error}"
        );
        let unread = br#"{"slug": "s", "title": "T", "description": "", "status": "draft",
            "requires_invitation": false, "researcher": "", "contact": "", "consent": null,
            "language": "it", "min_cell": 10, "results_after_close": false, "embed_origins": [], "total_epsilon": 0.0, "nonce": "00",
            "questions": []}"#;
        let error = PublicDefinition::from_json(unread).unwrap_err();
        assert!(
            error.contains("not a definition this binary reads"),
            "{error}"
        );
        let fine = br#"{"slug": "s", "title": "T", "description": "", "status": "open",
            "requires_invitation": false, "researcher": "", "contact": "", "consent": null,
            "language": "en", "min_cell": 10, "results_after_close": false, "embed_origins": [], "total_epsilon": 0.0, "nonce": "00",
            "questions": []}"#;
        assert!(PublicDefinition::from_json(fine).is_ok());
    }
}
