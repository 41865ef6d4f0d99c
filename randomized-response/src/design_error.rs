use core::fmt;

use crate::{MechanismError, PrivacyLevel};

/// Why a design, an answer, a report, a prior or a set of counts was refused.
///
/// Every message is meant for the person who typed the parameters: it says what is wrong
/// and, where a design has no finite ε, what a report would give away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DesignError {
    /// The ε of a design given by its ε (mirrored, k-ary, number) was refused.
    Epsilon(MechanismError),
    /// A parameter that must be a probability is not a number in [0, 1].
    NotAProbability {
        /// The parameter's name in the survey definition.
        parameter: &'static str,
        /// Its value.
        value: f64,
    },
    /// `answer_truthfully + forced_yes + forced_no`, rounded to 10 decimal places, is not 1
    /// (R's `rr` refuses the design then).
    ForcedResponseSum {
        /// The sum.
        sum: f64,
    },
    /// One report can only come from one true answer: the design's ε is infinite.
    ReportProvesAnswer {
        /// The report (and the true answer it proves): `"Yes"` or `"No"`.
        answer: &'static str,
        /// The parameter that makes it so.
        parameter: &'static str,
        /// Its value (0 or 1).
        value: f64,
    },
    /// `answer_truthfully = 1`: nothing is randomized, every report is the true answer.
    NoRandomization,
    /// `answer_truthfully = 0`: the report does not depend on the true answer, so the
    /// design's matrix is singular and nothing can be estimated.
    ReportsIgnoreTruth,
    /// The ε a design's parameters imply is outside the accepted range.
    DesignEpsilonOutOfRange {
        /// The implied ε.
        epsilon: f64,
    },
    /// After rounding to the sampler's resolution of 2^-64, a report would no longer be more
    /// likely under its own true answer than under the other (parameters within about 1e-13
    /// of a degenerate design).
    BelowResolution,
    /// A choice or ordinal question needs 2 to 20 options.
    OptionCount {
        /// The number of options given.
        options: usize,
    },
    /// A number's bounds must be finite with min < max.
    NumberBounds {
        /// The lower bound given.
        min: f64,
        /// The upper bound given.
        max: f64,
    },
    /// A number outside its question's bounds (or not a number).
    ValueOutOfBounds {
        /// The value.
        value: f64,
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
    /// A true answer's index is not one of the design's answers.
    AnswerOutOfRange {
        /// The index given.
        answer: usize,
        /// How many answers the design has.
        answers: usize,
    },
    /// A report's index is not one of the design's reports.
    ReportOutOfRange {
        /// The index given.
        report: usize,
        /// How many reports the design has.
        reports: usize,
    },
    /// A prior must give each answer a probability in [0, 1], summing to 1 (within 1e-9).
    Prior,
    /// Report counts must have one entry per report of the design.
    CountsLength {
        /// The design's number of reports.
        expected: usize,
        /// The number of counts given.
        got: usize,
    },
    /// The counts add up to more than 2^64 − 1 reports.
    CountOverflow,
    /// A submission's reports need one place per question.
    ReportsLength {
        /// The number of questions.
        questions: usize,
        /// The number of places for reports.
        reports: usize,
    },
    /// A planned half-width must be a positive finite number.
    HalfWidth(f64),
    /// A hypothesised value of a target must lie in the target's range.
    NullValue {
        /// The value given.
        value: f64,
        /// The lower end of the target's range.
        low: f64,
        /// The upper end of the target's range.
        high: f64,
    },
}

impl fmt::Display for DesignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Epsilon(error) => error.fmt(f),
            Self::NotAProbability { parameter, value } => write!(
                f,
                "{parameter} must be a probability between 0 and 1, got {value}"
            ),
            Self::ForcedResponseSum { sum } => write!(
                f,
                "answer_truthfully, forced_yes and forced_no must add up to 1 (to 10 decimal \
                 places, as R's rr requires), but they add up to {sum}"
            ),
            Self::ReportProvesAnswer {
                answer,
                parameter,
                value,
            } => write!(
                f,
                "a report of {answer} would prove the true answer is {answer}: with \
                 {parameter} = {value} only a true {answer} is ever reported as {answer}, so \
                 no epsilon bounds what a report reveals"
            ),
            Self::NoRandomization => write!(
                f,
                "answer_truthfully = 1 sends every true answer as it is: every report would \
                 prove the true answer"
            ),
            Self::ReportsIgnoreTruth => write!(
                f,
                "answer_truthfully = 0 makes the report independent of the true answer: \
                 nothing could be estimated from the reports"
            ),
            Self::DesignEpsilonOutOfRange { epsilon } => write!(
                f,
                "these parameters give epsilon = {epsilon}; a design's epsilon must be \
                 between {} and {} (below, the reports carry almost no signal; above, a \
                 report reveals almost everything)",
                PrivacyLevel::MIN_EPSILON,
                PrivacyLevel::MAX_EPSILON
            ),
            Self::BelowResolution => write!(
                f,
                "these probabilities are too close to a design whose reports say nothing \
                 about the truth for the sampler's resolution (2^-64); increase \
                 answer_truthfully"
            ),
            Self::OptionCount { options } => write!(
                f,
                "a choice or ordinal question needs between {} and {} options, got {options}",
                crate::MIN_OPTIONS,
                crate::MAX_OPTIONS
            ),
            Self::NumberBounds { min, max } => write!(
                f,
                "a number's bounds must be finite with min below max, got min = {min}, \
                 max = {max}"
            ),
            Self::ValueOutOfBounds { value, min, max } => write!(
                f,
                "the answer must be a number between {min} and {max}, got {value}"
            ),
            Self::AnswerOutOfRange { answer, answers } => write!(
                f,
                "the true answer must be one of the {answers} answers 0 to {}, got {answer}",
                answers.saturating_sub(1)
            ),
            Self::ReportOutOfRange { report, reports } => write!(
                f,
                "a report must be one of the {reports} reports 0 to {}, got {report}",
                reports.saturating_sub(1)
            ),
            Self::Prior => write!(
                f,
                "a prior must give each answer a probability between 0 and 1, adding up to 1"
            ),
            Self::CountsLength { expected, got } => write!(
                f,
                "expected one count for each of the {expected} reports, got {got} counts"
            ),
            Self::CountOverflow => write!(f, "the report counts add up to more than 2^64 − 1"),
            Self::ReportsLength { questions, reports } => write!(
                f,
                "expected one place for a report per question: {questions} questions, \
                 {reports} places"
            ),
            Self::HalfWidth(width) => {
                write!(f, "the half-width must be a positive number, got {width}")
            }
            Self::NullValue { value, low, high } => write!(
                f,
                "the hypothesised value must lie between {low} and {high}, got {value}"
            ),
        }
    }
}

impl core::error::Error for DesignError {}

impl From<MechanismError> for DesignError {
    fn from(error: MechanismError) -> Self {
        Self::Epsilon(error)
    }
}
