//! The catalogs are complete: every language has exactly English's messages with the same
//! variables, every message the pages and scripts use exists, and none is left unused.

use super::*;

/// Every file that asks for a message by name, with how it asks.
const USERS: [(&str, &str); 11] = [
    (
        "templates/survey.html",
        include_str!("../../templates/survey.html"),
    ),
    (
        "templates/receipt.html",
        include_str!("../../templates/receipt.html"),
    ),
    (
        "templates/respondent_error.html",
        include_str!("../../templates/respondent_error.html"),
    ),
    ("static/form.js", include_str!("../../static/form.js")),
    (
        "static/form-tokens.js",
        include_str!("../../static/form-tokens.js"),
    ),
    ("static/receipt.js", include_str!("../../static/receipt.js")),
    (
        "src/http/pages/form.rs",
        include_str!("../http/pages/form.rs"),
    ),
    (
        "src/http/pages/receipt.rs",
        include_str!("../http/pages/receipt.rs"),
    ),
    (
        "src/http/pages/respondent_error.rs",
        include_str!("../http/pages/respondent_error.rs"),
    ),
    ("src/explain.rs", include_str!("../explain.rs")),
    (
        "src/http/pages/refusal.rs",
        include_str!("../http/pages/refusal.rs"),
    ),
];

/// The ways a message is asked for: templates and Rust (`t.text("…")`, `.with("…"`,
/// `.markup("…"`) and scripts (`message("…"`).
const CALLS: [&str; 4] = [".text(\"", ".with(\"", ".markup(\"", "message(\""];

fn used_ids() -> BTreeSet<(&'static str, &'static str)> {
    let mut used = BTreeSet::new();
    for (file, text) in USERS {
        for call in CALLS {
            for (at, _) in text.match_indices(call) {
                let rest = &text[at + call.len()..];
                let id = &rest[..rest.find('"').expect("a closing quote")];
                used.insert((file, id));
            }
        }
        // A script's message name may also be chosen before the call
        // (`message(copied ? "js-copied" : "js-selected")`).
        for (at, _) in text.match_indices(&format!("\"{SCRIPT_PREFIX}")) {
            let rest = &text[at + 1..];
            let id = &rest[..rest.find('"').expect("a closing quote")];
            used.insert((file, id));
        }
    }
    used
}

#[test]
fn every_catalog_parses_and_defines_each_message_once() {
    for language in Language::ALL {
        let catalog = catalog(language);
        assert_eq!(catalog.problems(), &[] as &[String], "{language}");
        assert!(catalog.ids().count() > 90, "{language} was read");
    }
}

#[test]
fn every_catalog_has_every_message_with_the_same_variables_and_no_other() {
    let english = catalog(Language::En);
    for language in Language::ALL {
        let other = catalog(language);
        let missing: Vec<&str> = english
            .ids()
            .filter(|id| other.variables(id).is_none())
            .collect();
        let extra: Vec<&str> = other
            .ids()
            .filter(|id| english.variables(id).is_none())
            .collect();
        assert!(missing.is_empty(), "{language} lacks {missing:?}");
        assert!(extra.is_empty(), "{language} has extra {extra:?}");
        for id in english.ids() {
            assert_eq!(
                other.variables(id),
                english.variables(id),
                "{language}: the variables of {id}"
            );
            assert!(
                !other.text(id).trim().is_empty(),
                "{language}: {id} is empty"
            );
        }
    }
}

#[test]
fn every_message_used_by_a_page_or_script_exists_and_every_message_is_used() {
    let english = catalog(Language::En);
    let used = used_ids();
    assert!(used.len() > 80, "the files were read: {}", used.len());
    for (file, id) in &used {
        assert!(
            english.variables(id).is_some(),
            "{file} uses {id}, which no catalog has"
        );
        if file.starts_with("static/") {
            assert!(
                id.starts_with(SCRIPT_PREFIX),
                "{file} uses {id}: not given to scripts"
            );
        }
    }
    for id in english.ids() {
        let quoted = format!("\"{id}\"");
        assert!(
            USERS.iter().any(|(_, text)| text.contains(&quoted)),
            "{id} is in the catalogs but nothing uses it"
        );
    }
}

#[test]
fn the_translations_are_not_english_left_behind() {
    // Messages that read the same in English and another language.
    let same_allowed = [(Language::Es, "answer-no")];
    let english = catalog(Language::En);
    for language in [Language::De, Language::Fr, Language::Es] {
        let other = catalog(language);
        let same: Vec<&str> = english
            .ids()
            .filter(|id| {
                !same_allowed.contains(&(language, id)) && other.text(id) == english.text(id)
            })
            .collect();
        assert!(
            same.is_empty(),
            "{language} still says in English: {same:?}"
        );
    }
}

#[test]
fn the_scripts_messages_carry_placeholders_and_no_variants() {
    for language in Language::ALL {
        let catalog = catalog(language);
        let messages: BTreeMap<String, String> =
            serde_json::from_str(&catalog.script_messages()).unwrap();
        assert!(messages.keys().all(|id| id.starts_with(SCRIPT_PREFIX)));
        assert_eq!(
            messages.len(),
            catalog
                .ids()
                .filter(|id| id.starts_with(SCRIPT_PREFIX))
                .count()
        );
        for (id, text) in &messages {
            for name in catalog.variables(id).unwrap() {
                assert!(
                    text.contains(&format!("{{${name}}}")),
                    "{language} {id}: {text}"
                );
            }
        }
        // A script cannot choose a variant: its messages have none.
        for source in sources(language) {
            let resource = fluent_syntax::parser::parse(source).unwrap();
            for entry in resource.body {
                if let ast::Entry::Message(message) = entry {
                    if message.id.name.starts_with(SCRIPT_PREFIX) {
                        let has_select = message.value.iter().any(|pattern| {
                            pattern.elements.iter().any(|element| {
                                matches!(
                                    element,
                                    ast::PatternElement::Placeable {
                                        expression: ast::Expression::Select { .. }
                                    }
                                )
                            })
                        });
                        assert!(!has_select, "{language} {}", message.id.name);
                    }
                }
            }
        }
    }
}

#[test]
fn markup_escapes_the_text_and_keeps_the_callers_html() {
    let english = catalog(Language::En);
    let html = english.markup("intro-run-by", &[("researcher", "<b>Dr. &</b>".to_owned())]);
    assert_eq!(html, "This survey is run by <b>Dr. &</b>.");
    let text = english.with("intro-run-by", &[("researcher", "<b>Dr. &</b>".into())]);
    assert_eq!(text, "This survey is run by <b>Dr. &</b>.");
    assert_eq!(
        escape("<a href=\"x\">'&'</a>"),
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
    );
}

#[test]
fn numbers_use_the_languages_decimal_separator() {
    assert_eq!(catalog(Language::En).decimal("16.5"), "16.5");
    for language in [Language::De, Language::Fr, Language::Es] {
        assert_eq!(catalog(language).decimal("16.5"), "16,5");
    }
}

#[test]
fn a_message_written_over_several_lines_is_one_line() {
    let text = catalog(Language::En).text("privacy-coins");
    assert!(!text.contains('\n'));
    assert!(text.contains("it flips biased coins: for each question it sends"));
}
