//! The business rules a request can break against stored state (the survey's life cycle, a
//! response's identity, a spent token), by meaning. Storage checks them inside its
//! transactions, where the state is, and returns one of these; the words a client sees are
//! here, beside the meaning, and src/error.rs gives each its status in one place.

use std::fmt;

use super::{ClosingTime, SurveyStatus, MAX_QUESTIONS};

/// A rule of the stored state that a request breaks (a 409, or a 410 for a withdrawn
/// response).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A new survey's slug is another survey's.
    SlugTaken { slug: String },
    /// A researcher's e-mail address is another researcher's.
    ResearcherExists { email: String },
    /// Questions and ε change only while the survey is a draft.
    NotADraft { status: String },
    /// A survey holds at most [`MAX_QUESTIONS`] questions.
    TooManyQuestions,
    /// Deleting or ungrouping a survey's last randomized question.
    LastRandomizedQuestion,
    /// Deleting a survey's last question.
    LastQuestion,
    /// Opening a survey whose closing time has passed.
    ClosesAtPassed { closes_at: ClosingTime },
    /// A status change that does not start from the status it names.
    InvalidStatusChange {
        status: SurveyStatus,
        from: SurveyStatus,
        to: SurveyStatus,
    },
    /// Unblinding a survey watched live: nothing is blinded.
    NothingBlinded,
    /// Unblinding a draft.
    UnblindDraft,
    /// Unblinding a closed survey: its estimates are shown already.
    UnblindClosed,
    /// A response to a survey that is not open.
    SurveyNotOpen { status: SurveyStatus },
    /// Redeeming an invitation of a survey that is not open.
    RedemptionSurveyNotOpen,
    /// Invitations for a closed survey, whose key is erased.
    SurveyClosedKeyErased,
    /// A token that already bought a different response.
    TokenSpent,
    /// A different response under a response id already stored.
    ResponseIdConflict,
    /// A response id whose response was withdrawn.
    ResponseWithdrawn,
}

impl Refusal {
    /// The stable machine-readable code of the HTTP contract.
    pub fn code(&self) -> &'static str {
        match self {
            Self::SlugTaken { .. } => "slug_taken",
            Self::ResearcherExists { .. } => "researcher_exists",
            Self::NotADraft { .. } => "not_a_draft",
            Self::TooManyQuestions => "too_many_questions",
            Self::LastRandomizedQuestion | Self::LastQuestion => "last_question",
            Self::ClosesAtPassed { .. } => "closes_at_passed",
            Self::InvalidStatusChange { .. } => "invalid_status_change",
            Self::NothingBlinded | Self::UnblindClosed => "not_blinded",
            Self::UnblindDraft => "not_open",
            Self::SurveyNotOpen { .. } | Self::RedemptionSurveyNotOpen => "survey_not_open",
            Self::SurveyClosedKeyErased => "survey_closed",
            Self::TokenSpent => "token_spent",
            Self::ResponseIdConflict => "response_id_conflict",
            Self::ResponseWithdrawn => "response_withdrawn",
        }
    }

    /// The thing is gone for good (410), rather than in a state that forbids the request
    /// (409).
    pub fn is_gone(&self) -> bool {
        matches!(self, Self::ResponseWithdrawn)
    }
}

/// The message meant for people.
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SlugTaken { slug } => write!(f, "the slug {slug} is taken"),
            Self::ResearcherExists { email } => {
                write!(f, "a researcher with e-mail {email} already exists")
            }
            Self::NotADraft { status } => write!(
                f,
                "this survey is {status}: its questions and ε can no longer change"
            ),
            Self::TooManyQuestions => write!(f, "a survey has at most {MAX_QUESTIONS} questions"),
            Self::LastRandomizedQuestion => f.write_str(
                "a survey keeps at least one randomized question; grouping questions only \
                 describe the respondents",
            ),
            Self::LastQuestion => f.write_str(
                "a survey keeps at least one question; add another before deleting this one",
            ),
            Self::ClosesAtPassed { closes_at } => write!(
                f,
                "the survey's closing time ({closes_at}) has passed: set a later one in the \
                 builder before opening it"
            ),
            Self::InvalidStatusChange { status, from, to } => write!(
                f,
                "the survey is {}; only {} {} survey can become {}",
                status.as_str(),
                if *from == SurveyStatus::Open {
                    "an"
                } else {
                    "a"
                },
                from.as_str(),
                to.as_str()
            ),
            Self::NothingBlinded => f.write_str(
                "this survey is watched live (it has no stopping rule): nothing is blinded",
            ),
            Self::UnblindDraft => f.write_str("a draft has no responses to unblind; open it first"),
            Self::UnblindClosed => {
                f.write_str("this survey has closed: its estimates are shown already")
            }
            Self::SurveyNotOpen { status } => write!(
                f,
                "this survey is {} and does not accept responses",
                status.as_str()
            ),
            Self::RedemptionSurveyNotOpen => {
                f.write_str("this survey is not open: no invitation can be redeemed")
            }
            Self::SurveyClosedKeyErased => f.write_str(
                "this survey is closed: its key is erased, so no invitation could be redeemed",
            ),
            Self::TokenSpent => f.write_str(
                "this token has already bought a response; a device re-sends exactly the \
                 response it was spent with",
            ),
            Self::ResponseIdConflict => f.write_str(
                "a different response is stored under this response_id; a device sends one \
                 response per receipt and re-sends exactly that one",
            ),
            Self::ResponseWithdrawn => {
                f.write_str("this response was withdrawn and cannot be sent again")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_withdrawn_response_is_gone() {
        assert!(Refusal::ResponseWithdrawn.is_gone());
        assert!(!Refusal::ResponseIdConflict.is_gone());
        assert!(!Refusal::TokenSpent.is_gone());
    }

    #[test]
    fn a_status_change_says_what_the_survey_is_and_what_it_may_become() {
        let refusal = Refusal::InvalidStatusChange {
            status: SurveyStatus::Closed,
            from: SurveyStatus::Open,
            to: SurveyStatus::Closed,
        };
        assert_eq!(refusal.code(), "invalid_status_change");
        assert_eq!(
            refusal.to_string(),
            "the survey is closed; only an open survey can become closed"
        );
    }
}
