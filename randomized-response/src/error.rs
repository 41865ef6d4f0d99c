use core::fmt;

/// Why an input to the mechanism or an estimator was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MechanismError {
    /// ε was NaN or infinite.
    EpsilonNotFinite,
    /// ε was finite but outside [`crate::PrivacyLevel::MIN_EPSILON`, `MAX_EPSILON`].
    EpsilonOutOfRange(f64),
    /// A truth probability outside the range that maps to an accepted ε.
    TruthProbabilityOutOfRange(f64),
    /// A confidence level outside the open interval (0, 1).
    ConfidenceOutOfRange(f64),
    /// A prior belief outside [0, 1].
    PriorOutOfRange(f64),
    /// A target half-width outside (0, 1].
    HalfWidthOutOfRange(f64),
    /// More reported yes than reports.
    YesExceedsCount {
        /// Reports in the tally.
        n: u64,
        /// Reported yes in the tally.
        reported_yes: u64,
    },
}

impl fmt::Display for MechanismError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::PrivacyLevel;
        match self {
            Self::EpsilonNotFinite => write!(f, "epsilon must be a finite number"),
            Self::EpsilonOutOfRange(epsilon) => write!(
                f,
                "epsilon must be between {} and {}, got {epsilon}",
                PrivacyLevel::MIN_EPSILON,
                PrivacyLevel::MAX_EPSILON
            ),
            Self::TruthProbabilityOutOfRange(p) => write!(
                f,
                "the truth probability must be above 1/2 and below 1 (within the accepted epsilon range), got {p}"
            ),
            Self::ConfidenceOutOfRange(level) => {
                write!(f, "the confidence level must be strictly between 0 and 1, got {level}")
            }
            Self::PriorOutOfRange(prior) => {
                write!(f, "a prior probability must be between 0 and 1, got {prior}")
            }
            Self::HalfWidthOutOfRange(width) => {
                write!(f, "the half-width must be above 0 and at most 1, got {width}")
            }
            Self::YesExceedsCount { n, reported_yes } => write!(
                f,
                "a tally cannot hold {reported_yes} reported yes out of {n} reports"
            ),
        }
    }
}

impl core::error::Error for MechanismError {}
