//! A survey inside a larger study (issue 35): the completion link is given only to a device
//! whose response is stored, the sites that may frame the form are exactly the listed ones,
//! both are validated with their reason and frozen at open, and a query string on a
//! respondent's route is echoed nowhere.

use reqwest::Response;
use serde_json::{json, Value};

use crate::common::{error_code, receipt_and_response_id, spawn_app, TestApp};
use crate::workspace::signed_in;

const COMPLETION: &str =
    "https://app.prolific.com/submissions/complete?cc=C0DE42&pid={PROLIFIC_PID}#{return}";
const HOST: &str = "https://host.example.org";
const LOOPBACK_HOST: &str = "http://127.0.0.1:8123";

fn definition(extra: Value) -> Value {
    let mut definition = json!({
        "title": "Embedded", "questions": [{"text": "Have you?", "epsilon": 1.0}]
    });
    for (name, value) in extra.as_object().unwrap() {
        definition[name] = value.clone();
    }
    definition
}

/// An open survey with `extra` in its definition: its owner's token and its slug.
async fn open_with(app: &TestApp, extra: Value) -> (String, String) {
    let owner = format!("owner-{}@example.org", rand::random::<u32>());
    let token = app.researcher_with_token(&owner).await;
    let slug = app.open_definition(&token, &definition(extra)).await;
    (token, slug)
}

async fn refused(app: &TestApp, token: &str, extra: Value) -> (String, String) {
    let response = app.create_survey(token, &definition(extra.clone())).await;
    assert_eq!(response.status(), 400, "{extra}");
    let body: Value = response.json().await.unwrap();
    (
        body["error"]["code"].as_str().unwrap().to_owned(),
        body["error"]["message"].as_str().unwrap().to_owned(),
    )
}

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap())
}

#[tokio::test]
async fn a_completion_link_or_origin_list_that_breaks_a_rule_is_refused_with_its_reason() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let too_long = format!("https://panel.example/done?c={}", "x".repeat(2_000));
    for (completion_url, reason) in [
        ("http://panel.example/done", "https://"),
        ("https://{host}.example/done", "host or path"),
        ("https://panel.example/{where}?c=1", "host or path"),
        ("https://panel.example/done?c={invitation}", "{invitation}"),
        ("https://panel.example/done#k={key}", "{key}"),
        (too_long.as_str(), "at most 2000"),
    ] {
        let (code, message) =
            refused(&app, &token, json!({ "completion_url": completion_url })).await;
        assert_eq!(code, "invalid_completion_url", "{completion_url}");
        assert!(message.contains(reason), "{completion_url}: {message}");
    }
    let eleven: Vec<String> = (0..11)
        .map(|i| format!("https://s{i}.example.org"))
        .collect();
    for (origins, reason) in [
        (json!(["https://*.example.org"]), "wildcard"),
        (json!(["*"]), "wildcard"),
        (json!(["http://host.example.org"]), "loopback"),
        (json!(["https://host.example.org/survey"]), "not an origin"),
        (json!(eleven), "at most 10"),
    ] {
        let (code, message) = refused(&app, &token, json!({ "embed_origins": origins })).await;
        assert_eq!(code, "invalid_embed_origins", "{origins}");
        assert!(message.contains(reason), "{origins}: {message}");
    }
}

#[tokio::test]
async fn the_completion_link_is_given_only_to_a_device_whose_response_is_stored() {
    let app = spawn_app().await;
    let (_, slug) = open_with(
        &app,
        json!({"completion_url": COMPLETION, "embed_origins": [HOST, LOOPBACK_HOST]}),
    )
    .await;
    let public = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!public.contains("completion"), "{public}");
    assert!(!public.contains("C0DE42"), "{public}");
    let public: Value = serde_json::from_str(&public).unwrap();
    assert_eq!(public["embed_origins"], json!([HOST, LOOPBACK_HOST]));

    let question = public["questions"][0]["id"].to_string();
    let (_, response_id) = receipt_and_response_id();
    let answers = json!({ question: 1 });
    let stored = app
        .submit_with_token(&slug, answers.clone(), None, Some(&response_id))
        .await;
    assert_eq!(stored.status(), 201);
    let stored: Value = stored.json().await.unwrap();
    assert_eq!(stored["completion_url"], COMPLETION);
    // The device's retry of the same body: 200, and the link again.
    let again = app
        .submit_with_token(&slug, answers, None, Some(&response_id))
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(
        again.json::<Value>().await.unwrap()["completion_url"],
        COMPLETION
    );

    // A survey without one answers without the field.
    let (_, plain) = open_with(&app, json!({})).await;
    let public: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{plain}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(public["embed_origins"], json!([]));
    let question = public["questions"][0]["id"].to_string();
    let stored: Value = app
        .submit(&plain, json!({ question: 0 }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(stored["status"], "stored");
    assert!(stored.get("completion_url").is_none(), "{stored}");
}

#[tokio::test]
async fn only_the_listed_origins_may_frame_that_survey_s_form_and_no_site_any_other_page() {
    let app = spawn_app().await;
    let (_, slug) = open_with(&app, json!({"embed_origins": [HOST, LOOPBACK_HOST]})).await;
    let form = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 200);
    let policy = header(&form, "content-security-policy").unwrap();
    assert!(
        policy.ends_with(&format!("; frame-ancestors {HOST} {LOOPBACK_HOST}")),
        "{policy}"
    );
    assert!(policy.contains("default-src 'self'"), "{policy}");
    assert_eq!(header(&form, "x-frame-options"), None);
    assert_eq!(header(&form, "referrer-policy"), Some("no-referrer"));

    for path in [
        "/s/demo".to_owned(),
        format!("/s/{slug}/receipt"),
        format!("/api/surveys/{slug}"),
        "/s/no-such-survey".to_owned(),
        "/static/form.js".to_owned(),
        "/login".to_owned(),
    ] {
        let response = app.client.get(app.url(&path)).send().await.unwrap();
        let policy = header(&response, "content-security-policy").unwrap();
        assert!(
            policy.ends_with("frame-ancestors 'none'"),
            "{path}: {policy}"
        );
        assert_eq!(header(&response, "x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(
            header(&response, "referrer-policy"),
            Some("no-referrer"),
            "{path}"
        );
    }
    // No policy asks the browser to report (a report would carry the page's address).
    for path in [format!("/s/{slug}"), "/s/demo".to_owned()] {
        let response = app.client.get(app.url(&path)).send().await.unwrap();
        let policy = header(&response, "content-security-policy").unwrap();
        assert!(!policy.contains("report-"), "{path}: {policy}");
        assert!(header(&response, "reporting-endpoints").is_none());
        assert!(header(&response, "report-to").is_none());
    }
}

#[tokio::test]
async fn a_query_string_on_a_respondent_route_is_echoed_nowhere() {
    let app = spawn_app().await;
    let (_, slug) = open_with(&app, json!({"completion_url": COMPLETION})).await;
    for path in [
        format!("/s/{slug}"),
        format!("/s/{slug}/receipt"),
        "/s/no-such-survey".to_owned(),
        format!("/api/surveys/{slug}"),
    ] {
        let response = app
            .client
            .get(app.url(&format!(
                "{path}?PROLIFIC_PID=EchoPid77&STUDY_ID=EchoStudy77"
            )))
            .send()
            .await
            .unwrap();
        let headers = format!("{:?}", response.headers());
        let body = response.text().await.unwrap();
        for value in ["EchoPid77", "EchoStudy77"] {
            assert!(!body.contains(value), "{path} echoes {value}");
            assert!(
                !headers.contains(value),
                "{path} echoes {value} in a header"
            );
        }
    }
}

#[tokio::test]
async fn the_completion_link_and_the_origins_are_frozen_once_the_survey_opens() {
    let app = spawn_app().await;
    let (_, slug) = open_with(
        &app,
        json!({"completion_url": COMPLETION, "embed_origins": [HOST]}),
    )
    .await;
    for change in [
        "completion_url = 'https://elsewhere.example/'",
        "completion_url = NULL",
        "embed_origins = '*'",
        "embed_origins = ''",
    ] {
        let error = app
            .execute_sql(format!("UPDATE surveys SET {change} WHERE slug = '{slug}'"))
            .await
            .unwrap_err();
        assert!(error.contains("cannot change"), "{change}: {error}");
    }
}

#[tokio::test]
async fn the_builder_saves_both_fields_refuses_a_bad_one_beside_them_and_the_links_page_offers_them(
) {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Embedded", "Have you?").await;
    let saved = researcher
        .save_builder(
            &slug,
            &[
                ("completion_url", COMPLETION),
                ("embed_origins", &format!("{HOST}\n{LOOPBACK_HOST}\n")),
            ],
        )
        .await;
    assert!(saved.status().is_redirection(), "{}", saved.status());
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(
        builder.contains("pid={PROLIFIC_PID}#{return}"),
        "the builder shows the saved link"
    );
    assert!(builder.contains(&format!("{HOST}\n{LOOPBACK_HOST}</textarea>")));

    let refused = researcher
        .save_builder(
            &slug,
            &[
                ("completion_url", "https://panel.example/{path}"),
                ("title", "Typed but refused"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    assert!(
        page.contains(r#"id="error-study""#),
        "the refusal is beside the fields"
    );
    assert!(page.contains("host or path"));
    assert!(page.contains("Typed but refused"), "what was typed is kept");

    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert!(opened.status().is_redirection(), "{}", opened.status());
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await;
    assert!(
        results.contains(&format!(r#"href="/surveys/{slug}/links""#)),
        "the results page's actions lead to the links"
    );
    let links = unescaped(&researcher.get_html(&format!("/surveys/{slug}/links")).await);
    let link = format!("{}/s/{slug}", app.address);
    assert!(
        links.contains(&format!(
            r#"<iframe src="{link}" referrerpolicy="no-referrer" title="Embedded""#
        )),
        "the snippet for the host page"
    );
    // Prolific pipes its own identifiers, Qualtrics any embedded data field.
    assert!(links.contains(&format!("{link}#PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}<")));
    assert!(links.contains(&format!(
        "{link}#PROLIFIC_PID=${{e://Field/PROLIFIC_PID}}&return=${{e://Field/return}}<"
    )));
    assert!(
        links.contains("C0DE42"),
        "the owner sees the completion link"
    );
    // Another researcher sees nothing of it.
    let mut other = signed_in(&app, "other@example.org").await;
    let response = other.get(&format!("/surveys/{slug}/links")).await;
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn the_codebook_and_the_openapi_document_describe_both_fields() {
    let app = spawn_app().await;
    let (token, slug) = open_with(
        &app,
        json!({"completion_url": COMPLETION, "embed_origins": [HOST]}),
    )
    .await;
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(codebook["survey"]["completion_url"], COMPLETION);
    assert_eq!(codebook["survey"]["embed_origins"], json!([HOST]));

    let document: Value = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schema = |name: &str| document["components"]["schemas"][name]["properties"].clone();
    let definition = schema("SurveyDefinition");
    assert_eq!(definition["completion_url"]["maxLength"], 2000);
    assert_eq!(definition["embed_origins"]["maxItems"], 10);
    assert!(schema("PublicDefinition")["embed_origins"].is_object());
    assert!(schema("PublicDefinition")["completion_url"].is_null());
    assert!(schema("StoredBody")["completion_url"].is_object());
    assert!(
        error_code_documented(&document, "/api/surveys", "post", "400"),
        "the 400 names both codes"
    );
}

/// The page's text as a browser shows it (askama escapes `<`, `"`, `&` and `'`).
fn unescaped(html: &str) -> String {
    html.replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#38;", "&")
}

fn error_code_documented(document: &Value, path: &str, method: &str, status: &str) -> bool {
    let description = document["paths"][path][method]["responses"][status]["description"]
        .as_str()
        .unwrap_or_default();
    description.contains("invalid_completion_url") && description.contains("invalid_embed_origins")
}

#[tokio::test]
async fn an_unknown_field_beside_them_is_still_refused() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let response = app
        .create_survey(&token, &definition(json!({"completion_urls": COMPLETION})))
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "invalid_json");
}
