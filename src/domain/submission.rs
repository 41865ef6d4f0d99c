//! A respondent's submission: the reports their device drew, checked against the survey's
//! questions before anything is stored.

use std::collections::BTreeMap;
use std::fmt;

use randomized_response::PrivacyLevel;
use serde::Deserialize;

use super::DomainError;
use super::{
    QuestionDesign, QuestionId, QuestionType, ResponseId, Survey, Token, TokenInput, Whole,
};

/// The JSON a respondent's device posts: question id → report (0/1 for yes/no, the option
/// index for choice and ordinal, 0/1 for a number's min/max end).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Submission)]
pub struct SubmissionInput {
    answers: Answers,
    /// The blind token an invitation bought (`POST …/redemptions`), when the survey
    /// requires invitations; ignored otherwise. The invitation itself never comes here.
    token: Option<TokenInput>,
    /// Hex SHA-256 of the receipt the device drew (64 lowercase hex characters):
    /// submissions are idempotent by it. Without it the server draws the receipt.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    response_id: Option<String>,
}

/// The answers map, refusing a repeated question id: which of two reports would count is
/// ambiguous, and a real device never repeats one.
#[derive(Debug)]
struct Answers(BTreeMap<String, u8>);

impl utoipa::PartialSchema for Answers {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        let report = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(19))
            .description(Some(
                "The randomized report: for yes/no 1 = yes, 0 = no; for choice and ordinal \
                 the option index (0 = the first); for a number 0 = its min end, 1 = its \
                 max end.",
            ));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "Question id (as a string) → the device's randomized report. Every question \
                 is answered, each once (\"1\" and \"01\" name the same one).",
            ))
            .property_names(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[0-9]{1,18}$")),
            ))
            .additional_properties(Some(AdditionalProperties::RefOr(report.into())))
            .min_properties(Some(1))
            .examples([serde_json::json!({"1": 1, "2": 0, "3": 1})])
            .into()
    }
}

impl utoipa::ToSchema for Answers {
    fn name() -> std::borrow::Cow<'static, str> {
        "Answers".into()
    }
}

impl<'de> Deserialize<'de> for Answers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Answers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of question ids to reports (whole numbers)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Answers, A::Error> {
                let mut answers = BTreeMap::new();
                while let Some((key, Whole(report))) = map.next_entry::<String, Whole<u8>>()? {
                    if answers.insert(key.clone(), report).is_some() {
                        return Err(serde::de::Error::custom(format_args!(
                            "question {key:?} is answered twice"
                        )));
                    }
                }
                Ok(Answers(answers))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A validated submission: one report per answered question, in question order, and the
/// answer to each grouping question.
#[derive(Debug, Clone)]
pub struct Submission {
    reports: Vec<StoredReport>,
    /// Grouping answers (not randomized), in position order.
    groupings: Vec<StoredGrouping>,
    /// Spent with the response; only its input's hash is stored, in a table of its own.
    token: Option<Token>,
    /// `None`: the device sent none, and the server draws the receipt.
    response_id: Option<ResponseId>,
}

/// One question's part of a response, as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredReport {
    pub question_id: QuestionId,
    pub level: PrivacyLevel,
    /// 0 or 1 for yes/no and number questions, the option index for choice and ordinal.
    pub report: u8,
}

/// A grouping question's answer (the option index), as sent and stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredGrouping {
    pub question_id: QuestionId,
    pub answer: u8,
}

impl Submission {
    pub fn parse(input: SubmissionInput, survey: &Survey) -> Result<Self, DomainError> {
        // A token sent to a survey that needs none is ignored, not stored (but a malformed
        // one is a 400 whatever the survey: the body does not match its schema).
        let token = input.token.as_ref().map(Token::parse).transpose()?;
        let token = match (survey.requires_invitation, token) {
            (false, _) => None,
            (true, Some(token)) => Some(token),
            (true, None) => {
                return Err(DomainError::refused(
                    "invitation_required",
                    "this survey accepts responses only with a token bought by a personal \
                     invitation (POST …/redemptions, then the token here)",
                ))
            }
        };
        let response_id = input
            .response_id
            .as_deref()
            .map(ResponseId::parse)
            .transpose()?;
        let mut reports_by_id = BTreeMap::new();
        let mut groupings_by_id = BTreeMap::new();
        for (key, value) in input.answers.0 {
            let grouping = key
                .parse::<i64>()
                .ok()
                .and_then(|id| survey.groupings.iter().find(|g| g.id.get() == id));
            if let Some(grouping) = grouping {
                if !grouping.accepts(value) {
                    return Err(DomainError::invalid(
                        "invalid_report",
                        format!(
                            "the answer to grouping question {key} is {value}; it is an option \
                             index from 0 to {}",
                            grouping.options.len() - 1
                        ),
                    ));
                }
                if groupings_by_id.insert(grouping.id, value).is_some() {
                    return Err(DomainError::invalid(
                        "duplicate_answer",
                        format!("question {} is answered twice", grouping.id.get()),
                    ));
                }
                continue;
            }
            let question = key
                .parse::<i64>()
                .ok()
                .and_then(|id| survey.questions.iter().find(|q| q.id.get() == id))
                .ok_or_else(|| {
                    DomainError::invalid(
                        "unknown_question",
                        format!("this survey has no question with id {key:?}"),
                    )
                })?;
            if !question
                .design
                .mechanism()
                .accepts_report(usize::from(value))
            {
                return Err(DomainError::invalid(
                    "invalid_report",
                    format!(
                        "the report for question {key} is {value}; {}",
                        report_rule(&question.design)
                    ),
                ));
            }
            let report = value;
            // "1", "+1" and "01" name the same question: which report counts would be
            // ambiguous.
            if reports_by_id.insert(question.id, report).is_some() {
                return Err(DomainError::invalid(
                    "duplicate_answer",
                    format!("question {} is answered twice", question.id.get()),
                ));
            }
        }
        // Every question is answered: a blank would not be randomized (docs/design.md,
        // "Skipping").
        let mut reports = Vec::with_capacity(reports_by_id.len());
        for question in &survey.questions {
            let report = reports_by_id.get(&question.id).ok_or_else(|| {
                DomainError::invalid(
                    "missing_answer",
                    format!(
                        "question {} is not answered; every question is (its report is \
                         randomized, so no answer can be held against the respondent)",
                        question.id.get()
                    ),
                )
            })?;
            reports.push(StoredReport {
                question_id: question.id,
                level: question.design.level(),
                report: *report,
            });
        }
        let groupings = survey
            .groupings
            .iter()
            .map(|grouping| {
                let answer = groupings_by_id.get(&grouping.id).ok_or_else(|| {
                    DomainError::invalid(
                        "missing_answer",
                        format!(
                            "grouping question {} is not answered; every question is",
                            grouping.id.get()
                        ),
                    )
                })?;
                Ok(StoredGrouping {
                    question_id: grouping.id,
                    answer: *answer,
                })
            })
            .collect::<Result<Vec<_>, DomainError>>()?;
        Ok(Self {
            reports,
            groupings,
            token,
            response_id,
        })
    }

    pub fn reports(&self) -> &[StoredReport] {
        &self.reports
    }

    /// The grouping answers, as sent (not randomized).
    pub fn groupings(&self) -> &[StoredGrouping] {
        &self.groupings
    }

    pub fn response_id(&self) -> Option<&ResponseId> {
        self.response_id.as_ref()
    }

    pub fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }
}

/// What a valid report of this question is, for error messages.
fn report_rule(design: &QuestionDesign) -> String {
    match design.question_type() {
        QuestionType::YesNo => "a report is 0 (no) or 1 (yes)".to_owned(),
        QuestionType::Number => {
            "a number's report is 0 (its min end) or 1 (its max end)".to_owned()
        }
        QuestionType::Choice | QuestionType::Ordinal => format!(
            "a report is an option index from 0 to {}",
            design.reports() - 1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_answered_twice_is_refused() {
        let twice = serde_json::from_str::<SubmissionInput>(r#"{"answers": {"1": 1, "1": 0}}"#);
        assert!(twice.unwrap_err().to_string().contains("answered twice"));
        assert!(
            serde_json::from_str::<SubmissionInput>(r#"{"answers": {"1": 1, "2": 0}}"#).is_ok()
        );
    }
}
