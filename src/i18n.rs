//! The respondent's pages in the survey's language: the form's own words (everything that
//! is not the researcher's text) come from the Fluent catalogs in `locales/{en,de,fr,es}/`,
//! built into the binary. Templates ask a [`Catalog`] by message name
//! (`t.text("send-button")`); the form's scripts get the messages whose names start with
//! `js-` through the page ([`Catalog::script_messages`]), so no script holds a sentence.
//!
//! Numbers in sentences are written by the caller with the language's decimal separator
//! ([`Catalog::decimal`]): Fluent's own number formatting knows no locale.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use fluent_syntax::ast;

pub use crate::domain::Language;

/// The files of every language's folder, in load order.
pub const FILES: [&str; 4] = ["form.ftl", "explain.ftl", "receipt.ftl", "error.ftl"];

/// Messages that the scripts use start with this.
pub const SCRIPT_PREFIX: &str = "js-";

macro_rules! sources_of {
    ($language:literal) => {
        [
            include_str!(concat!("../locales/", $language, "/form.ftl")),
            include_str!(concat!("../locales/", $language, "/explain.ftl")),
            include_str!(concat!("../locales/", $language, "/receipt.ftl")),
            include_str!(concat!("../locales/", $language, "/error.ftl")),
        ]
    };
}

/// The catalogs' text, as built into the binary.
pub fn sources(language: Language) -> [&'static str; FILES.len()] {
    match language {
        Language::En => sources_of!("en"),
        Language::De => sources_of!("de"),
        Language::Fr => sources_of!("fr"),
        Language::Es => sources_of!("es"),
    }
}

/// One language's messages.
pub struct Catalog {
    language: Language,
    bundle: FluentBundle<FluentResource>,
    /// Each message's variables, by message name.
    variables: BTreeMap<String, BTreeSet<String>>,
    /// What the catalog's text did not say well: syntax errors, messages defined twice.
    problems: Vec<String>,
}

static CATALOGS: LazyLock<Vec<Catalog>> =
    LazyLock::new(|| Language::ALL.into_iter().map(Catalog::load).collect());

/// The catalog of a language (loaded once, on first use).
pub fn catalog(language: Language) -> &'static Catalog {
    CATALOGS
        .iter()
        .find(|catalog| catalog.language == language)
        .expect("a catalog is loaded for every language")
}

/// A value given to a message: text (already written for its language), or a count (which
/// may select a plural form).
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Text(Cow<'a, str>),
    Count(u64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(text: &'a str) -> Self {
        Self::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Arg<'_> {
    fn from(text: String) -> Self {
        Self::Text(Cow::Owned(text))
    }
}

impl From<u32> for Arg<'_> {
    fn from(count: u32) -> Self {
        Self::Count(u64::from(count))
    }
}

impl From<u64> for Arg<'_> {
    fn from(count: u64) -> Self {
        Self::Count(count)
    }
}

impl Catalog {
    fn load(language: Language) -> Self {
        let tag = language
            .as_str()
            .parse()
            .expect("the four language tags are well-formed");
        let mut bundle = FluentBundle::new_concurrent(vec![tag]);
        // No Unicode isolation marks around values: the pages set `lang` and the scripts
        // compare texts.
        bundle.set_use_isolating(false);
        let mut variables = BTreeMap::new();
        let mut problems = Vec::new();
        for (file, source) in FILES.iter().zip(sources(language)) {
            let resource = match FluentResource::try_new(source.to_owned()) {
                Ok(resource) => resource,
                Err((resource, errors)) => {
                    problems.extend(
                        errors
                            .iter()
                            .map(|error| format!("{language}/{file}: {error:?}")),
                    );
                    resource
                }
            };
            for entry in resource.entries() {
                if let ast::Entry::Message(message) = entry {
                    let mut names = BTreeSet::new();
                    if let Some(pattern) = &message.value {
                        variables_in(pattern, &mut names);
                    }
                    variables.insert(message.id.name.to_owned(), names);
                }
            }
            if let Err(errors) = bundle.add_resource(resource) {
                problems.extend(
                    errors
                        .iter()
                        .map(|error| format!("{language}/{file}: {error}")),
                );
            }
        }
        for problem in &problems {
            tracing::error!(%problem, "a message catalog has a problem");
        }
        Self {
            language,
            bundle,
            variables,
            problems,
        }
    }

    pub fn language(&self) -> Language {
        self.language
    }

    /// The `lang` attribute of the page.
    pub fn lang(&self) -> &'static str {
        self.language.as_str()
    }

    /// Every message's name, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.variables.keys().map(String::as_str)
    }

    /// The variables a message uses (`$name` without the `$`).
    pub fn variables(&self, id: &str) -> Option<&BTreeSet<String>> {
        self.variables.get(id)
    }

    /// Syntax errors and messages defined twice (none, as a test checks).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// A message without variables.
    pub fn text(&self, id: &str) -> String {
        self.with(id, &[])
    }

    /// A message with its variables. A missing message (a test makes sure there is none)
    /// shows its name and is logged.
    pub fn with(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        let mut fluent_args = FluentArgs::with_capacity(args.len());
        for (name, value) in args {
            match value {
                Arg::Text(text) => fluent_args.set(*name, FluentValue::from(text.as_ref())),
                Arg::Count(count) => fluent_args.set(*name, FluentValue::from(*count)),
            }
        }
        self.format(id, &fluent_args)
    }

    fn format(&self, id: &str, args: &FluentArgs<'_>) -> String {
        let Some(pattern) = self.bundle.get_message(id).and_then(|m| m.value()) else {
            tracing::error!(id, language = %self.language, "no such message");
            return id.to_owned();
        };
        let mut errors = Vec::new();
        let text = self.bundle.format_pattern(pattern, Some(args), &mut errors);
        if !errors.is_empty() {
            tracing::error!(id, language = %self.language, ?errors, "a message failed");
        }
        // A value written over several lines of a catalog is one line of text.
        one_line(&text)
    }

    /// A message as HTML: its text escaped, and each variable replaced by a piece of HTML
    /// that the caller built (escaping whatever text it holds, e.g. with [`escape`]).
    pub fn markup(&self, id: &str, html_args: &[(&str, String)]) -> String {
        // Each variable becomes a marker of private-use characters that no catalog text
        // holds, so the text around them can be escaped before the HTML goes in.
        let markers: Vec<String> = (0..html_args.len())
            .map(|index| format!("\u{E000}{index}\u{E001}"))
            .collect();
        let args: Vec<(&str, Arg<'_>)> = html_args
            .iter()
            .zip(&markers)
            .map(|((name, _), marker)| (*name, Arg::from(marker.as_str())))
            .collect();
        let mut html = escape(&self.with(id, &args));
        for ((_, fragment), marker) in html_args.iter().zip(&markers) {
            html = html.replace(marker.as_str(), fragment);
        }
        html
    }

    /// A number written in English form ("16.5") with this language's decimal separator.
    pub fn decimal(&self, english: &str) -> String {
        english.replace('.', &self.language.decimal_separator().to_string())
    }

    /// The scripts' messages as a JSON object, name → text, each variable written
    /// `{$name}` for the script to fill in. For a `data-messages` attribute.
    pub fn script_messages(&self) -> String {
        let messages: BTreeMap<&str, String> = self
            .variables
            .iter()
            .filter(|(id, _)| id.starts_with(SCRIPT_PREFIX))
            .map(|(id, names)| {
                let placeholders: Vec<String> =
                    names.iter().map(|name| format!("{{${name}}}")).collect();
                let mut args = FluentArgs::with_capacity(names.len());
                for (name, placeholder) in names.iter().zip(&placeholders) {
                    args.set(name.as_str(), FluentValue::from(placeholder.as_str()));
                }
                (id.as_str(), self.format(id, &args))
            })
            .collect();
        serde_json::to_string(&messages).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// Escapes text for HTML (element content and quoted attribute values).
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

fn one_line(text: &str) -> String {
    text.split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

fn variables_in(pattern: &ast::Pattern<&str>, names: &mut BTreeSet<String>) {
    for element in &pattern.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            variables_of_expression(expression, names);
        }
    }
}

fn variables_of_expression(expression: &ast::Expression<&str>, names: &mut BTreeSet<String>) {
    match expression {
        ast::Expression::Inline(inline) => variables_of_inline(inline, names),
        ast::Expression::Select { selector, variants } => {
            variables_of_inline(selector, names);
            for variant in variants {
                variables_in(&variant.value, names);
            }
        }
    }
}

fn variables_of_inline(inline: &ast::InlineExpression<&str>, names: &mut BTreeSet<String>) {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            names.insert(id.name.to_owned());
        }
        ast::InlineExpression::Placeable { expression } => {
            variables_of_expression(expression, names);
        }
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for argument in &arguments.positional {
                variables_of_inline(argument, names);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
