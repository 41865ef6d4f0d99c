//! What the API, the pages and the command line share: operations over storage that carry
//! a rule of their own (who owns a survey, when results may be shown, what an export or an
//! invitation needs). Handlers parse and render; these decide.

pub mod accounts;
pub mod exports;
pub mod invitations;
pub mod releases;
pub mod responses;
pub mod results;
pub mod surveys;

use crate::error::AppError;

/// What a service refuses, by meaning; src/http/service_error.rs gives each its status,
/// code and message. What storage or the domain refused passes through as they said it.
#[derive(Debug)]
pub enum ServiceError {
    /// No such thing, or not the caller's: a survey, a response, a researcher.
    NotFound(&'static str),
    /// A survey fixed in advance is blinded while open: `what` is withheld.
    Blinded { what: &'static str },
    /// A survey defined with `results_after_close` shows nothing computed until it closes.
    ResultsAfterClose { what: &'static str },
    /// A survey that shows released responses only exports once it has closed.
    ExportWithheld,
    /// A breakdown asked by a question that is none of the survey's grouping questions.
    NotAGroupingQuestion { id: i64 },
    /// Invitations for a survey created without `requires_invitation`.
    InvitationsNotRequired,
    /// Storage's or the domain's refusal, unchanged.
    Refused(AppError),
}

impl From<AppError> for ServiceError {
    fn from(error: AppError) -> Self {
        Self::Refused(error)
    }
}

impl From<crate::domain::DomainError> for ServiceError {
    fn from(error: crate::domain::DomainError) -> Self {
        Self::Refused(error.into())
    }
}
