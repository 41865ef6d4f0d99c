//! A question's design in plain words, for the respondent's form (and anyone explaining
//! it): one line on what the device does, and what an observer of the report can learn, in
//! the survey's language (the sentences are in `locales/*/explain.ftl`). The figures come
//! from the crate's matrix, never re-derived here.

use randomized_response::{Design, Mechanism, NumberDesign};

use crate::domain::{DesignFields, DesignName, Language, QuestionDesign, QuestionType};
use crate::error::AppError;
use crate::i18n::{catalog, Catalog};

/// The prior an observer is assumed to hold in the explanation: "someone who thought there
/// was a 10 % chance…".
pub const EXPLAINED_PRIOR: f64 = 0.10;

/// A design explained.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// What the device does, in one line.
    pub plain: String,
    /// What someone who sees the report learns, from a 10 % prior, rounded up.
    pub observer: String,
}

/// How many decimals a percentage shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decimals {
    /// Always this many, as a column of figures reads best ("83.5", "85.0").
    Fixed(usize),
    /// For a sentence: at most one decimal ("67", "16.5", "73.1"), and more only where
    /// rounding would show 0 or 100 for what is neither (99.9998 % is not "100 %").
    AsNeeded,
}

/// A fraction as a percentage, the number only (the sentence or the page puts the sign):
/// every percentage of the pages and the form is written here.
pub fn percent(fraction: f64, decimals: Decimals) -> String {
    let value = fraction * 100.0;
    match decimals {
        Decimals::Fixed(decimals) => format!("{value:.decimals$}"),
        Decimals::AsNeeded => {
            let written = |decimals: usize| {
                let text = format!("{value:.decimals$}");
                match text.strip_suffix(".0") {
                    Some(whole) if decimals == 1 => whole.to_owned(),
                    _ => text,
                }
            };
            let misleading = |text: &str| {
                let shown: f64 = text.parse().unwrap_or(value);
                (shown == 100.0 && value < 100.0) || (shown == 0.0 && value > 0.0)
            };
            (1..=6)
                .map(written)
                .find(|text| !misleading(text))
                .unwrap_or_else(|| written(6))
        }
    }
}

/// A bound shown as "at most": rounding must not make it look smaller than it is. (The
/// tiny allowance keeps an exact 25 % from showing as 26 % through float noise.)
pub fn percent_rounded_up(fraction: f64) -> String {
    // `+ 0.0` turns the -0 that ceil gives just below zero into 0.
    format!("{:.0}", (fraction * 100.0 - 1e-9).ceil().max(0.0) + 0.0)
}

/// A number as a respondent reads it: no trailing ".0", the language's decimal separator.
fn number(value: f64, t: &Catalog) -> String {
    t.decimal(&format!("{value}"))
}

/// Explains a question's design in English (the workspace's words).
pub fn explain(design: &QuestionDesign) -> Result<Explanation, AppError> {
    explain_in(design, catalog(Language::En))
}

/// The answer an explanation's observer is about, and their belief in it once it is
/// reported, from [`EXPLAINED_PRIOR`]: the figure the form and the builder both show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObserverBound {
    /// Yes (for two answers), the first option, or a number's upper end.
    pub answer: usize,
    /// The crate's [`randomized_response::Design::observer_belief`].
    pub belief: f64,
}

/// [`ObserverBound`] of a design: the prior on one answer (Yes, or the first option, or a
/// number's upper end), the rest spread evenly, and the belief after that answer's report.
pub fn observer_bound(design: &QuestionDesign) -> Result<ObserverBound, AppError> {
    let answer = match design.mechanism() {
        Mechanism::Square(matrix) if matrix.answers() == 2 => Design::YES,
        Mechanism::Square(_) => 0,
        Mechanism::Number(_) => NumberDesign::MAX_END,
    };
    let belief = design
        .mechanism()
        .matrix()
        .observer_belief(EXPLAINED_PRIOR, answer)
        .map_err(AppError::internal)?;
    Ok(ObserverBound { answer, belief })
}

/// Explains a question's design in a catalog's language.
pub fn explain_in(design: &QuestionDesign, t: &Catalog) -> Result<Explanation, AppError> {
    let fields: &DesignFields = design.fields();
    let p = |value: f64| t.decimal(&percent(value, Decimals::AsNeeded));
    let given = |value: Option<f64>| p(value.unwrap_or_default());
    let mismatch = || {
        AppError::internal(format!(
            "a {:?} question with the {:?} design",
            design.question_type(),
            design.design_name()
        ))
    };
    let plain = match (design.question_type(), design.mechanism()) {
        (QuestionType::YesNo, Mechanism::Square(matrix)) => match design.design_name() {
            DesignName::ForcedResponse => t.with(
                "plain-forced",
                &[
                    ("truth", given(fields.answer_truthfully).into()),
                    ("yes", given(fields.forced_yes).into()),
                    ("no", given(fields.forced_no).into()),
                ],
            ),
            DesignName::UnrelatedQuestion => t.with(
                "plain-unrelated",
                &[
                    ("truth", given(fields.answer_truthfully).into()),
                    ("yes", given(fields.innocuous_yes).into()),
                ],
            ),
            DesignName::Mirrored => t.with(
                "plain-mirrored",
                &[(
                    "truth",
                    p(matrix.requested_probability(Design::YES, Design::YES)).into(),
                )],
            ),
            DesignName::KAry | DesignName::TwoEnds => return Err(mismatch()),
        },
        (QuestionType::Choice | QuestionType::Ordinal, Mechanism::Square(matrix)) => t.with(
            "plain-options",
            &[
                ("chosen", p(matrix.requested_probability(0, 0)).into()),
                ("other", p(matrix.requested_probability(0, 1)).into()),
            ],
        ),
        (QuestionType::Number, Mechanism::Number(number_design)) => t.with(
            "plain-number",
            &[
                ("min", number(number_design.min(), t).into()),
                ("max", number(number_design.max(), t).into()),
                ("truth", p(number_design.truth_probability()).into()),
            ],
        ),
        (
            QuestionType::YesNo | QuestionType::Choice | QuestionType::Ordinal,
            Mechanism::Number(_),
        )
        | (QuestionType::Number, Mechanism::Square(_)) => return Err(mismatch()),
    };
    let prior = p(EXPLAINED_PRIOR);
    let epsilon = t.decimal(&format!("{:.2}", design.epsilon()));
    let bound = observer_bound(design)?;
    let posterior = t.decimal(&percent_rounded_up(bound.belief));
    let observer = match design.question_type() {
        QuestionType::YesNo => t.with(
            "observer-yes-no",
            &[
                ("prior", prior.into()),
                ("posterior", posterior.into()),
                ("epsilon", epsilon.into()),
            ],
        ),
        QuestionType::Choice | QuestionType::Ordinal => t.with(
            "observer-option",
            &[
                ("prior", prior.into()),
                ("option", design.report_label(bound.answer as u8).into()),
                ("posterior", posterior.into()),
                ("epsilon", epsilon.into()),
            ],
        ),
        QuestionType::Number => t.with(
            "observer-number",
            &[
                ("prior", prior.into()),
                ("max", number(fields.max.unwrap_or_default(), t).into()),
                ("min", number(fields.min.unwrap_or_default(), t).into()),
                ("posterior", posterior.into()),
                ("epsilon", epsilon.into()),
            ],
        ),
    };
    Ok(Explanation { plain, observer })
}

/// A report in a catalog's words: Yes or No, the option's label (the researcher's text), or
/// the end of a number's range it stands for.
pub fn report_label(design: &QuestionDesign, report: u8, t: &Catalog) -> String {
    let fields = design.fields();
    match (design.question_type(), report) {
        (QuestionType::YesNo, 0) => t.text("answer-no"),
        (QuestionType::YesNo, _) => t.text("answer-yes"),
        (QuestionType::Number, 0) => t.with(
            "report-lower-end",
            &[("value", number(fields.min.unwrap_or_default(), t).into())],
        ),
        (QuestionType::Number, _) => t.with(
            "report-upper-end",
            &[("value", number(fields.max.unwrap_or_default(), t).into())],
        ),
        (QuestionType::Choice | QuestionType::Ordinal, _) => design.report_label(report),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design(json: &str) -> QuestionDesign {
        QuestionDesign::parse("q", &serde_json::from_str(json).unwrap()).unwrap()
    }

    #[test]
    fn an_at_most_figure_is_rounded_up_but_an_exact_percent_stays() {
        assert_eq!(percent_rounded_up(0.2401), "25");
        assert_eq!(percent_rounded_up(0.25), "25");
        assert_eq!(percent_rounded_up(0.250_000_000_000_1), "25");
        assert_eq!(percent_rounded_up(0.2500001), "26");
        assert_eq!(percent_rounded_up(0.0), "0");
    }

    #[test]
    fn percentages_keep_a_decimal_only_where_it_matters() {
        assert_eq!(percent(0.67, Decimals::AsNeeded), "67");
        assert_eq!(percent(0.165, Decimals::AsNeeded), "16.5");
        assert_eq!(percent(0.05, Decimals::AsNeeded), "5");
        assert_eq!(percent(0.015, Decimals::AsNeeded), "1.5");
        assert_eq!(percent(0.731_058_578_6, Decimals::AsNeeded), "73.1");
        assert_eq!(percent(0.999_998, Decimals::AsNeeded), "99.9998");
        assert_eq!(percent(0.000_002, Decimals::AsNeeded), "0.0002");
        assert_eq!(percent(1.0, Decimals::AsNeeded), "100");
    }

    #[test]
    fn forced_response_is_explained_with_its_own_probabilities() {
        let explained = explain(&design(
            r#"{"design": "forced_response", "answer_truthfully": 0.67, "forced_yes": 0.165,
                "forced_no": 0.165}"#,
        ))
        .unwrap();
        assert_eq!(
            explained.plain,
            "Your device tells the truth 67 % of the time; otherwise it answers Yes (16.5 %) \
             or No (16.5 %) whatever your answer."
        );
        // P(yes | yes) = 0.835, P(yes | no) = 0.165: 0.1·0.835 / (0.1·0.835 + 0.9·0.165).
        let posterior: f64 = 0.1 * 0.835 / (0.1 * 0.835 + 0.9 * 0.165);
        let expected = format!("think it at most {} %", (posterior * 100.0).ceil());
        assert!(
            explained.observer.contains(&expected),
            "{}",
            explained.observer
        );
    }

    #[test]
    fn the_mirrored_explanation_is_the_first_releases_figure() {
        let explained = explain(&design(r#"{"epsilon": 1.0986122886681098}"#)).unwrap();
        assert!(explained.plain.contains("tells the truth 75 % of the time"));
        // 0.1·0.75 / (0.1·0.75 + 0.9·0.25) = 0.25 exactly: "at most 25 %", not 26.
        assert!(
            explained.observer.contains("at most 25 %"),
            "{}",
            explained.observer
        );
    }

    #[test]
    fn choices_and_numbers_are_explained_by_their_own_terms() {
        let choice = explain(&design(
            r#"{"type": "choice", "epsilon": 1.0986122886681098, "options": ["Never", "Once", "Often"]}"#,
        ))
        .unwrap();
        // e^ε = 3: the chosen option 3/5 = 60 %, each other 1/5 = 20 %.
        assert!(choice
            .plain
            .contains("60 % of the time, and each other option 20 %"));
        assert!(
            choice.observer.contains("your answer is “Never”"),
            "{}",
            choice.observer
        );
        let number = explain(&design(
            r#"{"type": "number", "epsilon": 1, "min": 0, "max": 30}"#,
        ))
        .unwrap();
        assert!(number.plain.contains("to 0 or 30"), "{}", number.plain);
        assert!(number.observer.contains("your number is 30 rather than 0"));
    }
}
