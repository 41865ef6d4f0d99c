//! A builder refusal in plain words, beside the field it concerns. The API keeps its
//! machine code and field path ("questions[1].epsilon must be …"); a researcher typing in
//! the builder reads "Privacy level ε must be between 0.01 and 20; you entered 50", in
//! their browser's language, once, under the input they have to change.

use actix_web::http::header;
use actix_web::HttpRequest;
use randomized_response::PrivacyLevel;

use crate::domain::{Language, MAX_QUESTION_CHARS};
use crate::error::AppError;
use crate::i18n::{catalog, Arg};

/// The input a refusal is shown under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Text,
    Epsilon,
}

/// A refusal's sentence and the field it goes beside.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PlainRefusal {
    pub field: Field,
    pub sentence: String,
}

/// The researcher's language among the four, from `Accept-Language` (English without it).
pub(super) fn researcher_language(request: &HttpRequest) -> Language {
    request
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .map_or(Language::En, Language::preferred_by)
}

/// The plain sentence for a question's refusal, when it concerns one field the builder
/// can point at: its text's length, or its ε's range (`epsilon` as typed). Other refusals
/// keep their message.
pub(super) fn plain_refusal(
    error: &AppError,
    text: &str,
    epsilon: &str,
    language: Language,
) -> Option<PlainRefusal> {
    let AppError::Invalid { code, message } = error else {
        return None;
    };
    let words = catalog(language);
    match *code {
        "invalid_epsilon" => Some(PlainRefusal {
            field: Field::Epsilon,
            sentence: words.with(
                "builder-epsilon-range",
                &[
                    (
                        "min",
                        words.decimal(&PrivacyLevel::MIN_EPSILON.to_string()).into(),
                    ),
                    (
                        "max",
                        words.decimal(&PrivacyLevel::MAX_EPSILON.to_string()).into(),
                    ),
                    ("got", epsilon.trim().into()),
                ],
            ),
        }),
        "invalid_text" if message.contains(".text must have between") => Some(PlainRefusal {
            field: Field::Text,
            sentence: words.with(
                "builder-text-length",
                &[
                    ("min", Arg::Count(1)),
                    ("max", Arg::Count(MAX_QUESTION_CHARS as u64)),
                    ("count", Arg::Count(text.trim().chars().count() as u64)),
                ],
            ),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_epsilon_out_of_range_reads_as_a_sentence_about_the_privacy_level() {
        let error = AppError::invalid(
            "invalid_epsilon",
            "question 1.epsilon must be between 0.01 and 20 (got 50)",
        );
        let english = plain_refusal(&error, "Q?", "50", Language::En).unwrap();
        assert_eq!(english.field, Field::Epsilon);
        assert_eq!(
            english.sentence,
            "Privacy level ε must be between 0.01 and 20; you entered 50."
        );
        let german = plain_refusal(&error, "Q?", "50", Language::De).unwrap();
        assert_eq!(
            german.sentence,
            "Die Privatsphäre-Stufe ε muss zwischen 0,01 und 20 liegen; Sie haben 50 eingegeben."
        );
    }

    #[test]
    fn a_text_too_long_says_how_long_it_is() {
        let error = AppError::invalid(
            "invalid_text",
            "question 2.text must have between 1 and 1000 characters",
        );
        let text = "x".repeat(1001);
        let french = plain_refusal(&error, &text, "1", Language::Fr).unwrap();
        assert_eq!(french.field, Field::Text);
        assert!(french
            .sentence
            .contains("entre 1 et 1000 caractères ; il en compte 1001"));
    }
}
