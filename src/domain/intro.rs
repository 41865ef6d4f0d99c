//! What respondents are told before the questions: who runs the survey and how to reach
//! them, the information-and-consent text they confirm (if any), and the language of the
//! form's own words.

use std::fmt;

use super::bounded_text;
use super::DomainError;

/// The most characters of the researcher's name and of the contact.
pub const MAX_RESEARCHER_CHARS: usize = 200;
pub const MAX_CONTACT_CHARS: usize = 200;
/// The most characters of the consent text (an ethics board's information sheet).
pub const MAX_CONSENT_CHARS: usize = 4_000;

/// The language of the form's own words (everything that is not the researcher's text),
/// and the page's `<html lang>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    #[default]
    En,
    De,
    Fr,
    Es,
}

impl Language {
    /// Every language the form ships, in the order error messages list them.
    pub const ALL: [Self; 4] = [Self::En, Self::De, Self::Fr, Self::Es];

    pub fn parse(text: &str) -> Result<Self, DomainError> {
        Self::ALL
            .into_iter()
            .find(|language| language.as_str() == text)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|l| l.as_str()).collect();
                DomainError::invalid(
                    "invalid_language",
                    format!("language must be one of {}, not {text:?}", known.join(", ")),
                )
            })
    }

    /// The BCP 47 tag: `en`, `de`, `fr` or `es`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::De => "de",
            Self::Fr => "fr",
            Self::Es => "es",
        }
    }

    /// The language's own name, for a choice of languages ("Deutsch").
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "English",
            Self::De => "Deutsch",
            Self::Fr => "Français",
            Self::Es => "Español",
        }
    }

    pub fn from_stored(text: &str) -> Result<Self, DomainError> {
        Self::parse(text)
            .map_err(|_| DomainError::internal(format!("unknown language {text:?} stored")))
    }

    /// The decimal separator of numbers in this language's sentences ("16,5 %").
    pub fn decimal_separator(self) -> char {
        match self {
            Self::En => '.',
            Self::De | Self::Fr | Self::Es => ',',
        }
    }

    /// The language a browser prefers among ours, from its `Accept-Language` header (RFC
    /// 9110, 12.5.4): the highest weight wins, the earlier on a tie; English otherwise.
    /// For pages of no known survey, where no survey sets the language.
    pub fn preferred_by(accept_language: &str) -> Self {
        let mut best: Option<(Self, f32)> = None;
        for range in accept_language.split(',') {
            let mut parts = range.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let primary = tag
                .split('-')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let weight = parts
                .find_map(|parameter| {
                    let (name, value) = parameter.split_once('=')?;
                    (name.trim().eq_ignore_ascii_case("q")).then(|| value.trim().parse().ok())?
                })
                .unwrap_or(1.0_f32);
            let Some(language) = Self::ALL.into_iter().find(|l| l.as_str() == primary) else {
                continue;
            };
            if weight > 0.0 && best.is_none_or(|(_, best_weight)| weight > best_weight) {
                best = Some((language, weight));
            }
        }
        best.map_or(Self::En, |(language, _)| language)
    }
}

/// As its tag (`"de"`), in the public definition.
impl serde::Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How respondents reach the researcher: an e-mail address or a web address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contact {
    Email(String),
    Web(String),
}

impl Contact {
    fn parse(text: &str) -> Result<Self, DomainError> {
        let invalid = || {
            DomainError::invalid(
                "invalid_contact",
                "contact must be an e-mail address (name@example.org) or a web address \
                 starting with https:// or http://",
            )
        };
        let text = bounded_text("contact", text, 1, MAX_CONTACT_CHARS)?;
        if text.chars().any(char::is_whitespace) {
            return Err(invalid());
        }
        if text.starts_with("https://") || text.starts_with("http://") {
            let url = url::Url::parse(&text).map_err(|_| invalid())?;
            return match url.host_str() {
                Some(host) if !host.is_empty() => Ok(Self::Web(text)),
                _ => Err(invalid()),
            };
        }
        // An address, not a `mailto:` link with parameters or a path.
        let plausible = matches!(text.split_once('@'), Some((local, domain))
            if !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@'))
            && !text.contains(['<', '>', '"', '?', '&', '/', ':', '\\']);
        if plausible {
            Ok(Self::Email(text))
        } else {
            Err(invalid())
        }
    }

    /// As the researcher wrote it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Email(text) | Self::Web(text) => text,
        }
    }

    /// The link a respondent follows: `mailto:` for an address.
    pub fn href(&self) -> String {
        match self {
            Self::Email(address) => format!("mailto:{address}"),
            Self::Web(url) => url.clone(),
        }
    }
}

/// What respondents are told before the questions. Every part may be empty for a survey
/// made before they existed (migration 0004) or defined without them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SurveyIntro {
    researcher: String,
    contact: Option<Contact>,
    consent: Option<String>,
    language: Language,
}

impl SurveyIntro {
    /// Checks the four fields as the definition JSON and the builder give them: the
    /// researcher's name (at most 200 characters, one line), the contact (an e-mail or web
    /// address, at most 200), the consent text (at most 4 000; empty for none) and the
    /// language (`en` when `None`).
    pub fn parse(
        researcher: &str,
        contact: &str,
        consent: &str,
        language: Option<&str>,
    ) -> Result<Self, DomainError> {
        let researcher = bounded_text("researcher", researcher, 0, MAX_RESEARCHER_CHARS)?;
        if researcher.contains('\n') {
            return Err(DomainError::invalid(
                "invalid_text",
                "researcher must be one line",
            ));
        }
        let contact = if contact.trim().is_empty() {
            None
        } else {
            Some(Contact::parse(contact)?)
        };
        let consent = bounded_text("consent", consent, 0, MAX_CONSENT_CHARS)?;
        Ok(Self {
            researcher,
            contact,
            consent: (!consent.is_empty()).then_some(consent),
            language: language
                .map(Language::parse)
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// Reads back what [`SurveyIntro::parse`] accepted and the database stored.
    pub fn from_stored(
        researcher: String,
        contact: &str,
        consent: Option<String>,
        language: &str,
    ) -> Result<Self, DomainError> {
        let contact = if contact.is_empty() {
            None
        } else {
            Some(
                Contact::parse(contact)
                    .map_err(|_| DomainError::internal("a stored contact is malformed"))?,
            )
        };
        Ok(Self {
            researcher,
            contact,
            consent,
            language: Language::from_stored(language)?,
        })
    }

    /// The researcher's or group's name; empty when not given.
    pub fn researcher(&self) -> &str {
        &self.researcher
    }

    pub fn contact(&self) -> Option<&Contact> {
        self.contact.as_ref()
    }

    /// The contact as stored: empty when there is none.
    pub fn contact_text(&self) -> &str {
        self.contact.as_ref().map_or("", Contact::as_str)
    }

    /// The text respondents confirm before answering, if the survey has one.
    pub fn consent(&self) -> Option<&str> {
        self.consent.as_deref()
    }

    pub fn language(&self) -> Language {
        self.language
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_the_four_shipped_and_nothing_else() {
        assert_eq!(Language::parse("de").unwrap(), Language::De);
        for bad in ["", "EN", "de-DE", "it", " en"] {
            let error = Language::parse(bad).unwrap_err().to_string();
            assert!(error.contains("en, de, fr, es"), "{error}");
        }
    }

    #[test]
    fn the_browser_preference_picks_the_heaviest_language_we_have() {
        assert_eq!(Language::preferred_by(""), Language::En);
        assert_eq!(Language::preferred_by("de-CH, en;q=0.5"), Language::De);
        assert_eq!(
            Language::preferred_by("it, fr;q=0.4, es;q=0.8"),
            Language::Es
        );
        assert_eq!(Language::preferred_by("fr;q=0, de;q=0.1"), Language::De);
        assert_eq!(Language::preferred_by("*"), Language::En);
        assert_eq!(Language::preferred_by("FR-be;Q=0.9"), Language::Fr);
    }

    #[test]
    fn a_contact_is_an_email_or_a_web_address() {
        let parse = |text: &str| SurveyIntro::parse("R", text, "", None);
        assert_eq!(
            parse("ethics@uni.example")
                .unwrap()
                .contact()
                .unwrap()
                .href(),
            "mailto:ethics@uni.example"
        );
        assert_eq!(
            parse("https://uni.example/study")
                .unwrap()
                .contact()
                .unwrap()
                .href(),
            "https://uni.example/study"
        );
        assert!(parse("").unwrap().contact().is_none());
        for bad in [
            "javascript:alert(1)",
            "mailto:a@b.example",
            "a@b.example?subject=x",
            "nobody",
            "a@localhost",
            "https://",
            "ftp://uni.example",
            "a b@c.example",
            "<a@b.example>",
        ] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(error.starts_with("invalid_contact"), "{bad}: {error}");
        }
        let long = format!("{}@uni.example", "a".repeat(MAX_CONTACT_CHARS));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn the_researcher_is_one_line_and_an_empty_consent_is_none() {
        assert!(SurveyIntro::parse("A\nB", "", "", None).is_err());
        assert!(SurveyIntro::parse(&"r".repeat(201), "", "", None).is_err());
        let intro = SurveyIntro::parse(" Dr. A ", "", "  ", Some("fr")).unwrap();
        assert_eq!(intro.researcher(), "Dr. A");
        assert_eq!(intro.consent(), None);
        assert_eq!(intro.language(), Language::Fr);
        assert!(SurveyIntro::parse("", "", &"c".repeat(4_001), None).is_err());
        let consent = SurveyIntro::parse("", "", "Line one\nLine two", None).unwrap();
        assert_eq!(consent.consent(), Some("Line one\nLine two"));
    }
}
