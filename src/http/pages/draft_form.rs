//! The builder's one form: a draft's details, what respondents are told first (researcher,
//! contact, consent, language), its stopping rule and every question, sent and saved
//! together, so that an edit in one question is never lost when another is saved. The
//! questions' fields are named by their index on the page (`q0-text`, `q0-epsilon`, …), the
//! add-a-question fields `new-…`; the button pressed says what else to do (`action`).

use std::collections::HashMap;

use super::design::DesignForm;
use crate::db::{DraftEdits, Rearrangement};
use crate::domain::{
    ClosingTime, CompletionUrl, DefinedQuestion, EmbedOrigins, GroupingDefinition,
    QuestionDefinition, QuestionId, StoppingRule, SurveyDetails, SurveyIntro,
};
use crate::error::AppError;

/// The most questions one form may carry (randomized and grouping).
const MAX_FORM_QUESTIONS: usize = crate::domain::MAX_QUESTIONS * 2;

/// What the pressed button asks for besides saving everything typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftAction {
    Save,
    /// Add the `new-…` question at the end.
    Add,
    Delete(QuestionId),
    Move(QuestionId, bool),
}

impl DraftAction {
    /// `save`, `add`, `delete-{id}`, `up-{id}` or `down-{id}`; absent is `save`.
    fn parse(text: Option<&str>) -> Result<Self, AppError> {
        let invalid = || AppError::invalid("invalid_action", "unknown builder action");
        let Some(text) = text else {
            return Ok(Self::Save);
        };
        let question = |id: &str| {
            id.parse::<i64>()
                .map(QuestionId::from_stored)
                .map_err(|_| invalid())
        };
        match text.split_once('-') {
            None if text == "save" => Ok(Self::Save),
            None if text == "add" => Ok(Self::Add),
            Some(("delete", id)) => Ok(Self::Delete(question(id)?)),
            Some(("up", id)) => Ok(Self::Move(question(id)?, true)),
            Some(("down", id)) => Ok(Self::Move(question(id)?, false)),
            _ => Err(invalid()),
        }
    }

    /// What the action does to the questions' list besides the edits.
    fn rearrangement(self) -> Option<Rearrangement> {
        match self {
            Self::Save | Self::Add => None,
            Self::Delete(question) => Some(Rearrangement::Delete(question)),
            Self::Move(question, up) => Some(Rearrangement::Move { question, up }),
        }
    }

    /// The page's anchor to come back to.
    pub fn anchor(self) -> String {
        match self {
            Self::Save => String::new(),
            Self::Add => "#add-question".to_owned(),
            Self::Delete(_) => "#questions-heading".to_owned(),
            Self::Move(id, _) => format!("#question-{}", id.get()),
        }
    }
}

/// One question as typed.
#[derive(Debug, Clone)]
pub struct TypedQuestion {
    pub id: QuestionId,
    pub text: String,
    pub design: DesignForm,
}

impl TypedQuestion {
    fn parse(&self, number: usize) -> Result<DefinedQuestion, AppError> {
        let field = format!("question {number}");
        if self.design.is_grouping() {
            return Ok(DefinedQuestion::Grouping(GroupingDefinition::of(
                &field,
                &self.text,
                &self.design.option_lines(),
            )?));
        }
        Ok(DefinedQuestion::Randomized(Box::new(
            QuestionDefinition::of(&field, &self.text, &self.design.to_fields(&field)?)?,
        )))
    }
}

/// The whole form as typed, to save or to show again with its refusal.
#[derive(Debug, Clone)]
pub struct TypedDraft {
    pub title: String,
    pub description: String,
    pub planned_respondents: String,
    pub requires_invitation: bool,
    pub results_after_close: bool,
    pub target_responses: String,
    pub closes_at: String,
    pub researcher: String,
    pub contact: String,
    pub consent: String,
    pub language: String,
    pub completion_url: String,
    /// One origin per line.
    pub embed_origins: String,
    pub questions: Vec<TypedQuestion>,
    pub new_text: String,
    pub new_design: DesignForm,
    pub action: DraftAction,
}

/// Where a refusal is shown on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Details,
    Intro,
    /// The completion link and the sites that may frame the form.
    Study,
    Question(QuestionId),
    New,
}

fn design_form(fields: &HashMap<String, String>, prefix: &str) -> DesignForm {
    // Inputs of the designs not chosen are disabled by the page's script and not sent:
    // they come back with the defaults, as a fresh editor shows them.
    let defaults = DesignForm::default_values();
    let get = |name: &str, default: String| {
        fields
            .get(&format!("{prefix}-{name}"))
            .cloned()
            .unwrap_or(default)
    };
    DesignForm {
        question_type: get("type", defaults.question_type),
        design: get("design", defaults.design),
        epsilon: get("epsilon", defaults.epsilon),
        answer_truthfully: get("answer_truthfully", defaults.answer_truthfully),
        forced_yes: get("forced_yes", defaults.forced_yes),
        forced_no: get("forced_no", defaults.forced_no),
        innocuous_yes: get("innocuous_yes", defaults.innocuous_yes),
        options: get("options", defaults.options),
        min: get("min", defaults.min),
        max: get("max", defaults.max),
    }
}

impl TypedDraft {
    /// Reads the form's fields (as `application/x-www-form-urlencoded` pairs). Only the
    /// action itself can be malformed here; the values are checked by [`TypedDraft::check`].
    pub fn read(pairs: Vec<(String, String)>) -> Result<Self, AppError> {
        let fields: HashMap<String, String> = pairs.into_iter().collect();
        let text = |name: &str| fields.get(name).cloned().unwrap_or_default();
        let mut questions = Vec::new();
        for index in 0..MAX_FORM_QUESTIONS {
            let Some(id) = fields.get(&format!("q{index}-id")) else {
                break;
            };
            let id = id.trim().parse::<i64>().map_err(|_| {
                AppError::invalid("invalid_question", format!("q{index}-id is not a question"))
            })?;
            questions.push(TypedQuestion {
                id: QuestionId::from_stored(id),
                text: text(&format!("q{index}-text")),
                design: design_form(&fields, &format!("q{index}")),
            });
        }
        Ok(Self {
            title: text("title"),
            description: text("description"),
            planned_respondents: text("planned_respondents"),
            requires_invitation: fields.contains_key("requires_invitation"),
            results_after_close: fields.contains_key("results_after_close"),
            target_responses: text("target_responses"),
            closes_at: text("closes_at"),
            researcher: text("researcher"),
            contact: text("contact"),
            consent: text("consent"),
            language: text("language"),
            completion_url: text("completion_url"),
            embed_origins: text("embed_origins"),
            questions,
            new_text: text("new-text"),
            new_design: design_form(&fields, "new"),
            action: DraftAction::parse(fields.get("action").map(String::as_str))?,
        })
    }

    /// Every field checked — what one transaction writes — or the first refusal and where
    /// the page shows it.
    pub fn check(&self) -> Result<DraftEdits, (Place, AppError)> {
        fn at<E: Into<AppError>>(place: Place) -> impl FnOnce(E) -> (Place, AppError) {
            move |error| (place, error.into())
        }
        let planned = self.planned_respondents.trim();
        let planned = if planned.is_empty() {
            None
        } else {
            Some(planned.parse::<u64>().map_err(|_| {
                (
                    Place::Details,
                    AppError::invalid(
                        "invalid_planned_respondents",
                        format!("planned respondents must be a whole number, not {planned:?}"),
                    ),
                )
            })?)
        };
        let details = SurveyDetails::parse(&self.title, &self.description, planned)
            .map_err(at(Place::Details))?;
        let rule = self.stopping_rule().map_err(at(Place::Details))?;
        let language = self.language.trim();
        let intro = SurveyIntro::parse(
            &self.researcher,
            &self.contact,
            &self.consent,
            (!language.is_empty()).then_some(language),
        )
        .map_err(at(Place::Intro))?;
        let completion_url =
            CompletionUrl::parse(Some(&self.completion_url)).map_err(at(Place::Study))?;
        let origins: Vec<&str> = self.embed_origins.lines().collect();
        let embed_origins = EmbedOrigins::parse(&origins).map_err(at(Place::Study))?;
        let mut questions = Vec::with_capacity(self.questions.len());
        for (index, question) in self.questions.iter().enumerate() {
            // A question being deleted is not checked: its edits go with it.
            if self.action == DraftAction::Delete(question.id) {
                continue;
            }
            let defined = question
                .parse(index + 1)
                .map_err(at(Place::Question(question.id)))?;
            questions.push((question.id, defined));
        }
        // Typed into the add form and then "Save": added too, rather than lost.
        let new_question = if self.action == DraftAction::Add || !self.new_text.trim().is_empty() {
            let question = TypedQuestion {
                id: QuestionId::from_stored(0),
                text: self.new_text.clone(),
                design: self.new_design.clone(),
            };
            Some(
                question
                    .parse(self.questions.len() + 1)
                    .map_err(at(Place::New))?,
            )
        } else {
            None
        };
        // The first grouping question turns "results after close" on, the default with
        // grouping questions (docs/privacy.md, "The price of live breakdowns"); the owner may
        // turn it off again before opening.
        let first_grouping = matches!(new_question, Some(DefinedQuestion::Grouping(_)))
            && !questions
                .iter()
                .any(|(_, question)| matches!(question, DefinedQuestion::Grouping(_)));
        Ok(DraftEdits {
            details,
            requires_invitation: self.requires_invitation,
            results_after_close: self.results_after_close || first_grouping,
            rule,
            intro,
            completion_url,
            embed_origins,
            questions,
            new_question,
            rearrangement: self.action.rearrangement(),
        })
    }

    /// The stopping rule as typed: blank fields are no rule.
    fn stopping_rule(&self) -> Result<StoppingRule, AppError> {
        let target = self.target_responses.trim();
        let target = if target.is_empty() {
            None
        } else {
            Some(target.parse::<u64>().map_err(|_| {
                AppError::invalid(
                    "invalid_target_responses",
                    format!("the target must be a whole number of responses, not {target:?}"),
                )
            })?)
        };
        let closes_at = utc_input(self.closes_at.trim());
        Ok(StoppingRule::parse(
            target,
            closes_at.as_deref(),
            ClosingTime::now(),
        )?)
    }
}

/// A `datetime-local` value read as UTC (`2027-01-31T23:59` → `2027-01-31T23:59:00Z`);
/// anything else is passed on as typed, to be parsed as RFC 3339. `None` when blank.
fn utc_input(text: &str) -> Option<String> {
    match text.len() {
        0 => None,
        16 if text.as_bytes()[10] == b'T' => Some(format!("{text}:00Z")),
        19 if text.as_bytes()[10] == b'T' => Some(format!("{text}Z")),
        _ => Some(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn actions_name_a_question_or_are_refused() {
        assert_eq!(DraftAction::parse(None).unwrap(), DraftAction::Save);
        assert_eq!(DraftAction::parse(Some("add")).unwrap(), DraftAction::Add);
        assert_eq!(
            DraftAction::parse(Some("up-7")).unwrap(),
            DraftAction::Move(QuestionId::from_stored(7), true)
        );
        assert_eq!(
            DraftAction::parse(Some("delete-3")).unwrap(),
            DraftAction::Delete(QuestionId::from_stored(3))
        );
        for bad in ["", "delete", "delete-x", "sideways-1", "save-1"] {
            assert!(DraftAction::parse(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_question_of_the_form_is_read_by_index_and_checked() {
        let draft = TypedDraft::read(pairs(&[
            ("title", "T"),
            ("planned_respondents", "100"),
            ("q0-id", "11"),
            ("q0-text", "First?"),
            ("q0-epsilon", "1"),
            ("q1-id", "12"),
            ("q1-text", "Second?"),
            ("q1-type", "choice"),
            ("q1-options", "A\nB\nC"),
            ("contact", "ethics@uni.example"),
            ("language", "de"),
        ]))
        .unwrap();
        let changes = draft.check().map_err(|(_, error)| error).unwrap();
        assert_eq!(changes.questions.len(), 2);
        assert_eq!(changes.questions[1].0, QuestionId::from_stored(12));
        assert_eq!(changes.intro.language().as_str(), "de");
        assert!(changes.new_question.is_none());

        let bad = TypedDraft::read(pairs(&[
            ("title", "T"),
            ("q0-id", "11"),
            ("q0-text", "First?"),
            ("contact", "not a contact"),
        ]))
        .unwrap();
        let (place, error) = bad.check().err().unwrap();
        assert_eq!(place, Place::Intro);
        assert!(matches!(
            error,
            AppError::Invalid {
                code: "invalid_contact",
                ..
            }
        ));
    }
}
