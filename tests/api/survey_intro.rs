//! Who runs a survey, how to reach them, the consent text and the form's language (issue
//! 19): checked in the definition, stored, in the public definition and on the form, with
//! the consent required by the form's markup before anything can be sent.

use std::sync::Arc;

use deniable::domain::{Language, MAX_CONSENT_CHARS, MAX_CONTACT_CHARS, MAX_RESEARCHER_CHARS};
use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, spawn_app_in, survey_definition, TestApp};

/// A one-question definition with `fields` added.
fn definition_with(fields: Value) -> Value {
    let mut definition = survey_definition(&[1.0]);
    for (name, value) in fields.as_object().unwrap() {
        definition[name] = value.clone();
    }
    definition
}

/// Creates and opens a survey from `definition`; returns its slug.
async fn open(app: &TestApp, token: &str, definition: &Value) -> String {
    let created = app.create_survey(token, definition).await;
    assert_eq!(created.status(), 201);
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    let opened = app
        .owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    slug
}

pub(crate) async fn public_definition(app: &TestApp, slug: &str) -> Value {
    let response = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

pub(crate) async fn form_html(app: &TestApp, slug: &str) -> String {
    let response = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

const CONSENT: &str = "This study is run by the Department of Psychology.\n\
                       Taking part is voluntary; you may stop at any time.";

#[tokio::test]
async fn bad_researchers_contacts_consents_and_languages_are_400s_that_say_why() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let long = |n: usize| "x".repeat(n);
    for (fields, code, says) in [
        (
            json!({"researcher": long(MAX_RESEARCHER_CHARS + 1)}),
            "invalid_text",
            "researcher",
        ),
        (
            json!({"researcher": "Dr. A\nDr. B"}),
            "invalid_text",
            "one line",
        ),
        (
            json!({"contact": "javascript:alert(1)"}),
            "invalid_contact",
            "e-mail",
        ),
        (json!({"contact": "call me"}), "invalid_contact", "https://"),
        (
            json!({"contact": format!("{}@uni.example", long(MAX_CONTACT_CHARS))}),
            "invalid_text",
            "contact",
        ),
        (
            json!({"consent": long(MAX_CONSENT_CHARS + 1)}),
            "invalid_text",
            "consent",
        ),
        (
            json!({"language": "it"}),
            "invalid_language",
            "en, de, fr, es",
        ),
        (
            json!({"language": "DE"}),
            "invalid_language",
            "en, de, fr, es",
        ),
        (json!({"language": 7}), "invalid_json", "expected a string"),
        (
            json!({"researcher": null}),
            "invalid_json",
            "expected a string",
        ),
    ] {
        let response = app
            .create_survey(&token, &definition_with(fields.clone()))
            .await;
        assert_eq!(response.status(), 400, "{fields}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], code, "{fields}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{fields}: {message}");
    }
    // The largest accepted values.
    let fields = json!({
        "researcher": long(MAX_RESEARCHER_CHARS),
        "contact": format!("{}@uni.example", long(MAX_CONTACT_CHARS - 12)),
        "consent": long(MAX_CONSENT_CHARS),
        "language": "es",
    });
    let response = app.create_survey(&token, &definition_with(fields)).await;
    assert_eq!(response.status(), 201);
}

#[tokio::test]
async fn the_fields_are_stored_and_in_the_public_definition_across_a_restart() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    let app = spawn_app_in(Arc::clone(&directory)).await;
    let token = app.researcher_with_token("owner@example.org").await;
    let slug = open(
        &app,
        &token,
        &definition_with(json!({
            "researcher": "  Dr. Ada Lovelace, Department of Psychology ",
            "contact": "https://uni.example/ethics?study=7",
            "consent": CONSENT,
            "language": "fr",
        })),
    )
    .await;
    let plain = open(&app, &token, &survey_definition(&[1.0])).await;
    drop(app.stop().await);

    let app = spawn_app_in(directory).await;
    let definition = public_definition(&app, &slug).await;
    assert_eq!(
        definition["researcher"],
        "Dr. Ada Lovelace, Department of Psychology"
    );
    assert_eq!(definition["contact"], "https://uni.example/ethics?study=7");
    assert_eq!(definition["consent"], CONSENT);
    assert_eq!(definition["language"], "fr");
    // Without them: nobody named, no contact, no consent, English.
    let definition = public_definition(&app, &plain).await;
    assert_eq!(definition["researcher"], "");
    assert_eq!(definition["contact"], "");
    assert_eq!(definition["consent"], Value::Null);
    assert_eq!(definition["language"], "en");
}

#[tokio::test]
async fn the_form_names_the_researcher_links_the_contact_and_requires_consent() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let slug = open(
        &app,
        &token,
        &definition_with(json!({
            "researcher": "Dr. <b>Ada</b> & Co.",
            "contact": "ethics@uni.example",
            "consent": "Line <one>\nLine two",
        })),
    )
    .await;
    let html = form_html(&app, &slug).await;
    // The researcher's texts are escaped, never markup.
    assert!(html
        .contains("This survey is run by <strong>Dr. &lt;b&gt;Ada&lt;/b&gt; &amp; Co.</strong>."));
    assert!(!html.contains("<b>Ada</b>"));
    assert!(html.contains(
        "Questions about it: <a id=\"contact\" href=\"mailto:ethics@uni.example\" \
         rel=\"noopener noreferrer\">ethics@uni.example</a>."
    ));
    // The consent text, its line break kept by the style, and a box the form requires.
    assert!(
        html.contains("Line &lt;one&gt;\nLine two")
            || html.contains("Line &#60;one&#62;\nLine two")
    );
    let checkbox = element(&html, "id=\"consent-checkbox\"");
    assert!(
        checkbox.contains("type=\"checkbox\"") && checkbox.contains(" required"),
        "{checkbox}"
    );
    assert!(html.contains("I have read the information above and agree to take part."));
    let button = element(&html, "id=\"submit-button\"");
    assert!(
        button.contains("disabled") && button.contains("data-requires-consent=\"true\""),
        "{button}"
    );
    assert!(html.contains("id=\"consent-hint\""));

    // A survey without them shows neither.
    let plain = open(&app, &token, &survey_definition(&[1.0])).await;
    let html = form_html(&app, &plain).await;
    for absent in ["id=\"who\"", "id=\"consent", "data-requires-consent"] {
        assert!(!html.contains(absent), "{absent}");
    }
    // A web address is linked as given.
    let web = open(
        &app,
        &token,
        &definition_with(json!({"contact": "https://uni.example/study"})),
    )
    .await;
    assert!(form_html(&app, &web)
        .await
        .contains("href=\"https://uni.example/study\""));
}

#[tokio::test]
async fn the_documented_limits_are_the_domains() {
    let app = spawn_app().await;
    let document: Value = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schemas = &document["components"]["schemas"];
    let properties = &schemas["SurveyDefinition"]["properties"];
    assert_eq!(properties["researcher"]["maxLength"], MAX_RESEARCHER_CHARS);
    assert_eq!(properties["contact"]["maxLength"], MAX_CONTACT_CHARS);
    assert_eq!(properties["consent"]["maxLength"], MAX_CONSENT_CHARS);
    let languages: Vec<&str> = schemas["SurveyLanguage"]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", schemas["SurveyLanguage"]))
        .iter()
        .map(|value| value.as_str().unwrap())
        .collect();
    let ours: Vec<&str> = Language::ALL.iter().map(|l| l.as_str()).collect();
    assert_eq!(languages, ours);
}

#[tokio::test]
async fn an_unknown_field_is_still_refused() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let response = app
        .create_survey(&token, &definition_with(json!({"consent_text": "x"})))
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "invalid_json");
}

/// The start tag of the element carrying `attribute`.
pub fn element<'a>(html: &'a str, attribute: &str) -> &'a str {
    let at = html
        .find(attribute)
        .unwrap_or_else(|| panic!("{attribute} is on the page"));
    let start = html[..at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap();
    &html[start..=end]
}

#[tokio::test]
async fn the_created_survey_answers_with_its_researcher_contact_consent_and_language() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = definition_with(json!({
        "researcher": "Dr. Ada Lovelace",
        "contact": "https://uni.example/ethics",
        "consent": CONSENT,
        "language": "fr",
    }));
    let created = app.create_survey(&token, &definition).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    assert_eq!(body["researcher"], "Dr. Ada Lovelace");
    assert_eq!(body["contact"], "https://uni.example/ethics");
    assert_eq!(body["consent"], CONSENT);
    assert_eq!(body["language"], "fr");

    // Without them: the defaults, said as such.
    let plain = app.create_survey(&token, &survey_definition(&[1.0])).await;
    let body: Value = plain.json().await.unwrap();
    assert_eq!(
        (
            &body["researcher"],
            &body["contact"],
            &body["consent"],
            &body["language"]
        ),
        (&json!(""), &json!(""), &Value::Null, &json!("en"))
    );
}
