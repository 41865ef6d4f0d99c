//! The one place a service's refusal becomes an [`AppError`], and so a status, a code and a
//! message (the API's JSON, a page's error page, the command line's sentence).

use crate::error::{AppError, PageError};
use crate::services::ServiceError;

impl From<ServiceError> for AppError {
    fn from(error: ServiceError) -> Self {
        match error {
            ServiceError::NotFound(what) => AppError::NotFound(what),
            ServiceError::Blinded { what } => AppError::conflict(
                "blinded",
                format!(
                    "this survey was fixed in advance and is blinded until it closes: {what} is \
                     withheld until then (or until its owner unblinds it, which is recorded)"
                ),
            ),
            ServiceError::ResultsAfterClose { what } => AppError::conflict(
                "results_after_close",
                format!(
                    "this survey shows no figure computed from its reports until it closes \
                     (results_after_close): {what} is withheld until then"
                ),
            ),
            // Each export would tell which responses arrived since the last: one row apiece.
            ServiceError::ExportWithheld => AppError::conflict(
                "export_withheld",
                "a survey exports once it has closed, its released responses only: while it is \
                 open, comparing two exports would show each new response's rows (close it \
                 first)",
            ),
            ServiceError::NotAGroupingQuestion { id } => AppError::invalid(
                "not_a_grouping_question",
                format!("this survey has no grouping question with id {id}"),
            ),
            ServiceError::InvitationsNotRequired => AppError::conflict(
                "invitations_not_required",
                "this survey was created without `requires_invitation`, so anyone with the link \
                 can answer; invitations would not restrict anything",
            ),
            ServiceError::Refused(error) => error,
        }
    }
}

impl From<ServiceError> for PageError {
    fn from(error: ServiceError) -> Self {
        Self(error.into())
    }
}
