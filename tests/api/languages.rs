//! The form in each of its languages: `<html lang>`, the form's own words from the
//! language's catalog (none left in English on a German form, scripts' messages included),
//! numbers with the language's decimal separator, and the receipt page alike.

use serde_json::{json, Value};

use crate::common::{spawn_app, TestApp};

/// One question of each type and yes/no design; the survey's own texts in `language`'s
/// words are the researcher's, so they are given here in German for every language (the
/// checks look at the form's words only).
fn definition(language: &str) -> Value {
    json!({
        "title": "Ehrlichkeit bei Prüfungen",
        "description": "Eine kurze Umfrage.",
        "researcher": "Dr. Erika Mustermann",
        "contact": "ethik@uni.example",
        "consent": "Die Teilnahme ist freiwillig.",
        "language": language,
        "questions": [
            {"text": "Haben Sie je bei einer Prüfung geschummelt?", "epsilon": 1.0986122886681098},
            {"text": "Haben Sie je abgeschrieben?", "design": "forced_response",
             "answer_truthfully": 0.67, "forced_yes": 0.165, "forced_no": 0.165},
            {"text": "Haben Sie je Hilfe bekommen?", "design": "unrelated_question",
             "answer_truthfully": 0.5, "innocuous_yes": 0.5},
            {"text": "Wie oft schwänzen Sie?", "type": "choice", "epsilon": 1,
             "options": ["Nie", "Selten", "Oft"]},
            {"text": "Schummeln ist üblich.", "type": "ordinal", "epsilon": 1,
             "options": ["Stimme nicht zu", "Neutral", "Stimme zu"]},
            {"text": "Wie viele Gläser pro Woche?", "type": "number", "min": 0, "max": 2.5,
             "epsilon": 1},
        ],
    })
}

async fn open_form(app: &TestApp, token: &str, language: &str) -> (String, String) {
    let created = app.create_survey(token, &definition(language)).await;
    assert_eq!(created.status(), 201, "{language}");
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    let opened = app
        .owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let html = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    (slug, html)
}

/// Key phrases of the form in each language: the button, the privacy heading, the first
/// plain line, the observer's link, a Yes, a decimal number, the total ε.
const PHRASES: [(&str, [&str; 8]); 4] = [
    (
        "en",
        [
            "Randomize and send",
            "How your answers are protected",
            "Your device tells the truth 75 % of the time",
            "What can someone learn from the report?",
            ">Yes</span>",
            "otherwise it answers Yes (16.5 %) or No (16.5 %)",
            "Your number, from 0 to 2.5",
            "<span id=\"total-epsilon\">",
        ],
    ),
    (
        "de",
        [
            "Randomisieren und senden",
            "Wie Ihre Antworten geschützt sind",
            "Ihr Gerät meldet in 75 % der Fälle die Wahrheit",
            "Was kann jemand aus der Meldung erfahren?",
            ">Ja</span>",
            "Ja (16,5 %) oder Nein (16,5 %)",
            "Ihre Zahl, von 0 bis 2,5",
            "Diese Umfrage wird durchgeführt von <strong>Dr. Erika Mustermann</strong>.",
        ],
    ),
    (
        "fr",
        [
            "Randomiser et envoyer",
            "Comment vos réponses sont protégées",
            "Votre appareil dit la vérité 75 % du temps",
            "Que peut-on apprendre de la déclaration\u{a0}?",
            ">Oui</span>",
            "il répond Oui (16,5 %) ou Non (16,5 %)",
            "Votre nombre, de 0 à 2,5",
            "Information et consentement",
        ],
    ),
    (
        "es",
        [
            "Aleatorizar y enviar",
            "Cómo se protegen sus respuestas",
            "Su dispositivo dice la verdad el 75 % de las veces",
            "¿Qué puede saber alguien a partir de la declaración?",
            ">Sí</span>",
            "responde Sí (16,5 %) o No (16,5 %)",
            "Su número, de 0 a 2,5",
            "He leído la información anterior y acepto participar.",
        ],
    ),
];

#[tokio::test]
async fn each_language_renders_the_form_in_its_own_words() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    for (language, phrases) in PHRASES {
        let (_, html) = open_form(&app, &token, language).await;
        assert!(
            html.contains(&format!("<html lang=\"{language}\">")),
            "{language}"
        );
        for phrase in phrases {
            assert!(
                html.contains(phrase),
                "{language}: {phrase:?} is on the form"
            );
        }
        // The total ε, 1.10 + 0.70… written as the language writes numbers.
        let total = html
            .split("<span id=\"total-epsilon\">")
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .unwrap();
        let separator = if language == "en" { '.' } else { ',' };
        assert!(
            total.contains(separator) && total.len() == 4,
            "{language}: {total}"
        );
        // The number's bounds stay machine-readable for the input.
        assert!(
            html.contains("min=\"0\" max=\"2.5\" step=\"any\""),
            "{language}"
        );
    }
}

/// English words that the form's own text would contain if a sentence were left
/// untranslated; matched as whole words.
const ENGLISH: [&str; 24] = [
    "the",
    "your",
    "you",
    "and",
    "of",
    "is",
    "to",
    "with",
    "this",
    "that",
    "answer",
    "answers",
    "device",
    "survey",
    "question",
    "questions",
    "report",
    "reports",
    "Yes",
    "No",
    "send",
    "sent",
    "receipt",
    "Randomize",
];

/// The words of a text (letters only), for the check above.
fn english_words_in(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|word| ENGLISH.contains(word) || ENGLISH.contains(&word.to_lowercase().as_str()))
        .map(str::to_owned)
        .collect()
}

/// The text a reader sees: tags dropped, the common entities read.
fn visible_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            other if !in_tag => text.push(other),
            _ => {}
        }
    }
    unescape(&text)
}

fn unescape(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// An attribute's value on the page, unescaped.
fn attribute(html: &str, name: &str) -> String {
    let start = html.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
    unescape(&html[start..start + html[start..].find('"').unwrap()])
}

#[tokio::test]
async fn a_german_form_has_no_english_words_left_and_neither_have_its_scripts_messages() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, html) = open_form(&app, &token, "de").await;
    // The head's <title> ends in the product's name, which is not a sentence.
    let body = html.split("<body>").nth(1).unwrap();
    let leftovers = english_words_in(&visible_text(body));
    assert!(
        leftovers.is_empty(),
        "English on the German form: {leftovers:?}"
    );
    // Every label of a sent report, and every message of form.js.
    let messages: Value = serde_json::from_str(&attribute(&html, "data-messages")).unwrap();
    assert!(messages.as_object().unwrap().len() > 30);
    for (id, text) in messages.as_object().unwrap() {
        let text = text.as_str().unwrap();
        // Placeholders ("{$question}") are names, not words shown.
        let shown: String = text
            .split("{$")
            .map(|part| part.split_once('}').map_or(part, |(_, rest)| rest))
            .collect();
        let leftovers = english_words_in(&shown);
        assert!(leftovers.is_empty(), "{id}: {text}");
    }
    assert_eq!(messages["js-list-and"], "{$items} und {$last}");
    for labels in html.split("data-report-labels=\"").skip(1) {
        let labels = unescape(&labels[..labels.find('"').unwrap()]);
        assert!(english_words_in(&labels).is_empty(), "{labels}");
    }
    // The receipt page too.
    let receipt = app
        .client
        .get(app.url(&format!("/s/{slug}/receipt")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let body = receipt.split("<body>").nth(1).unwrap();
    let leftovers = english_words_in(&visible_text(body));
    assert!(
        leftovers.is_empty(),
        "English on the German receipt page: {leftovers:?}"
    );
    assert!(receipt.contains("Meine Antwort zurückziehen"));
}

#[tokio::test]
async fn stored_reports_are_named_in_the_surveys_language_on_the_receipt_page() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, _) = open_form(&app, &token, "es").await;
    let definition: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answers: serde_json::Map<String, Value> = definition["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|question| (question["id"].to_string(), json!(1)))
        .collect();
    let receipt = app.submit_ok(&slug, Value::Object(answers)).await;
    let page = app
        .client
        .post(app.url(&format!("/s/{slug}/receipt")))
        .form(&[("receipt", receipt.as_str()), ("action", "view")])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("<html lang=\"es\">"));
    assert!(page.contains("— declaración: <strong>Sí</strong>"));
    assert!(page.contains("— declaración: <strong>el extremo superior (2,5)</strong>"));
    assert!(page.contains("— declaración: <strong>Selten</strong>"));
    assert!(page.contains(
        "Su fila en la exportación del equipo investigador se llama <code id=\"record-id\">"
    ));
}
