//! One question's mechanism, whatever its type: a square [`Design`] (yes/no, choice,
//! ordinal) or a [`NumberDesign`] (a bounded number), behind one interface for sampling,
//! privacy and estimation.

use rand_core::RngCore;

use crate::{Design, DesignError, NumberDesign, PerRecordEstimator};

/// A question's mechanism.
#[derive(Clone, Debug, PartialEq)]
pub enum Mechanism {
    /// A square design: yes/no (answers 0 = No, 1 = Yes), choice or ordinal (option index).
    Square(Design),
    /// A bounded number, reported as one of its two ends (0 = min, 1 = max).
    Number(NumberDesign),
}

/// A respondent's true answer, as its mechanism takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// The answer's index: 0 = No and 1 = Yes for yes/no, the option for choice and ordinal.
    Index(usize),
    /// A number within its question's bounds.
    Value(f64),
}

impl Mechanism {
    /// Uniform 64-bit draws one answer takes: [`Design::DRAWS`] or [`NumberDesign::DRAWS`].
    pub fn draws(&self) -> usize {
        match self {
            Self::Square(_) => Design::DRAWS,
            Self::Number(_) => NumberDesign::DRAWS,
        }
    }

    /// How many different reports the mechanism sends (reports are `0..reports()`).
    pub fn reports(&self) -> usize {
        match self {
            Self::Square(design) => design.answers(),
            Self::Number(_) => 2,
        }
    }

    /// The promised ε.
    pub fn epsilon(&self) -> f64 {
        match self {
            Self::Square(design) => design.epsilon(),
            Self::Number(number) => number.epsilon(),
        }
    }

    /// The realized ε of the integer sampler, never above [`Self::epsilon`].
    pub fn realized_epsilon(&self) -> f64 {
        match self {
            Self::Square(design) => design.realized_epsilon(),
            Self::Number(number) => number.realized_epsilon(),
        }
    }

    /// The largest probability that a report equals the truth (for a number, that its
    /// binary report equals the end it was rounded to).
    pub fn truth_probability(&self) -> f64 {
        match self {
            Self::Square(design) => design.truth_probability(),
            Self::Number(number) => number.truth_probability(),
        }
    }

    /// The matrix P of the codebook: the design's own, or for a number the mirrored matrix
    /// applied to the rounded end.
    pub fn matrix(&self) -> &Design {
        match self {
            Self::Square(design) => design,
            Self::Number(number) => number.ends(),
        }
    }

    /// Checks a true answer without drawing anything: an index below [`Self::reports`] for
    /// a square design, a value in `[min, max]` for a number. An answer of the other kind is
    /// refused as out of range ([`DesignError::AnswerOutOfRange`] with `usize::MAX`, or
    /// [`DesignError::ValueOutOfBounds`] with NaN).
    pub fn check_answer(&self, answer: Answer) -> Result<(), DesignError> {
        match (self, answer) {
            (Self::Square(design), Answer::Index(index)) => design.check_answer(index),
            (Self::Number(number), Answer::Value(value)) => number.position(value).map(|_| ()),
            _ => Err(self.other_kind()),
        }
    }

    /// Randomizes one true answer with exactly [`Self::draws`] draws from `rng`. An answer
    /// of the wrong kind or out of range is refused, as [`Self::check_answer`] refuses it,
    /// before anything is drawn.
    pub fn respond<R: RngCore + ?Sized>(
        &self,
        answer: Answer,
        rng: &mut R,
    ) -> Result<usize, DesignError> {
        match (self, answer) {
            (Self::Square(design), Answer::Index(index)) => design.respond(index, rng),
            (Self::Number(number), Answer::Value(value)) => number.respond(value, rng),
            _ => Err(self.other_kind()),
        }
    }

    /// The refusal of an answer of the other kind (a value for a square design, an index
    /// for a number).
    fn other_kind(&self) -> DesignError {
        match self {
            Self::Square(design) => DesignError::AnswerOutOfRange {
                answer: usize::MAX,
                answers: design.answers(),
            },
            Self::Number(number) => DesignError::ValueOutOfBounds {
                value: f64::NAN,
                min: number.min(),
                max: number.max(),
            },
        }
    }

    /// Whether `report` is one this mechanism can send.
    pub fn accepts_report(&self, report: usize) -> bool {
        report < self.reports()
    }

    /// The estimator of a number's mean, or of an ordinal question's mean level; `None`
    /// for a square design used for shares only (ask [`Design::option_estimator`]).
    pub fn mean_estimator(&self, ordinal: bool) -> Option<PerRecordEstimator> {
        match self {
            Self::Number(number) => Some(number.mean_estimator()),
            Self::Square(design) if ordinal => Some(design.mean_level_estimator()),
            Self::Square(_) => None,
        }
    }
}
