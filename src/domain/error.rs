//! What the domain refuses, and why, without knowing HTTP: src/error.rs maps each kind to
//! a status, in one place.

use std::error::Error;
use std::fmt;

use crate::crypto::RandomnessFailed;

/// A value the domain will not build, or could not.
///
/// The refusals carry a stable machine-readable `code` and a message meant for people;
/// `Internal` keeps its cause for the log.
#[derive(Debug)]
pub enum DomainError {
    /// The input breaks a rule (a 400).
    Invalid { code: &'static str, message: String },
    /// Well-formed but not allowed: an invitation or a token that is not this survey's, a
    /// response without the token its survey requires (a 403).
    Refused { code: &'static str, message: String },
    /// The identifier names nothing, e.g. an ill-formed slug names no survey (a 404).
    NotFound(&'static str),
    /// Allowed once and done already: an invitation redeemed before (a 409).
    Conflict { code: &'static str, message: String },
    /// Not the client's doing: stored data that no longer parses, or the operating
    /// system's random generator failing (a 500; the cause goes to the log).
    Internal(Box<dyn Error + Send + Sync + 'static>),
}

impl DomainError {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            code,
            message: message.into(),
        }
    }

    pub fn refused(code: &'static str, message: impl Into<String>) -> Self {
        Self::Refused {
            code,
            message: message.into(),
        }
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            message: message.into(),
        }
    }

    /// An error kept as it is, or a message (`&str`, `String`) for a failure no error
    /// type describes.
    pub fn internal(cause: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        Self::Internal(cause.into())
    }

    /// The stable code clients see (`internal` for [`DomainError::Internal`]).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid { code, .. }
            | Self::Refused { code, .. }
            | Self::Conflict { code, .. } => code,
            Self::NotFound(_) => "not_found",
            Self::Internal(_) => "internal",
        }
    }

    /// What is wrong, for people; for `Internal`, the cause, which is for the log only
    /// (clients are told that an internal error happened, nothing more).
    pub fn message(&self) -> String {
        match self {
            Self::Invalid { message, .. }
            | Self::Refused { message, .. }
            | Self::Conflict { message, .. } => message.clone(),
            Self::NotFound(what) => format!("{what} not found"),
            Self::Internal(cause) => cause.to_string(),
        }
    }
}

impl fmt::Display for DomainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Internal(cause) => write!(f, "internal error: {cause}"),
            other => write!(f, "{}: {}", other.code(), other.message()),
        }
    }
}

impl Error for DomainError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Internal(cause) => Some(cause.as_ref()),
            _ => None,
        }
    }
}

impl From<RandomnessFailed> for DomainError {
    fn from(error: RandomnessFailed) -> Self {
        Self::internal(error)
    }
}
