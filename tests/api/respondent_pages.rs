//! The pages respondents reach answer in HTML, in the form's style and language: an unknown
//! survey and a draft get the same "survey not found" page (404), also under any other
//! address of `/s/`; a closed survey's form says it is closed; the API keeps its JSON.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, survey_definition, TestApp};

async fn get(app: &TestApp, path: &str, accept_language: Option<&str>) -> reqwest::Response {
    let mut request = app.client.get(app.url(path));
    if let Some(languages) = accept_language {
        request = request.header("accept-language", languages);
    }
    request.send().await.unwrap()
}

/// Status, `Content-Type` and body of a "survey not found" page, checked on the way.
async fn not_found_page(response: reqwest::Response) -> String {
    let path = response.url().path().to_owned();
    assert_eq!(response.status(), 404, "{path}");
    let headers = response.headers().clone();
    assert_eq!(
        headers["content-type"], "text/html; charset=utf-8",
        "{path}"
    );
    assert!(headers.contains_key("content-security-policy"), "{path}");
    assert_eq!(headers["vary"], "Accept-Language", "{path}");
    let html = response.text().await.unwrap();
    assert!(html.contains("data-error-code=\"not_found\""), "{path}");
    assert!(
        html.contains("<link rel=\"stylesheet\" href=\"/static/form.css\">"),
        "{path}"
    );
    assert!(
        !html.contains("<script"),
        "{path}: no script on an error page"
    );
    html
}

#[tokio::test]
async fn an_unknown_survey_is_an_html_page_in_the_forms_style() {
    let app = spawn_app().await;
    for path in [
        "/s/unknown",
        "/s/unknown/receipt",
        "/s/Not%20A%20Slug",
        "/s/demo/no/such/page",
    ] {
        let html = not_found_page(get(&app, path, None).await).await;
        assert!(html.contains("<html lang=\"en\">"), "{path}");
        assert!(html.contains("<h1>Survey not found</h1>"), "{path}");
        assert!(html.contains("Check that the link you were given is complete"));
    }
    let posted = app
        .client
        .post(app.url("/s/unknown/receipt"))
        .form(&[("receipt", "x"), ("action", "view")])
        .send()
        .await
        .unwrap();
    not_found_page(posted).await;
    // The API keeps its JSON errors.
    let response = get(&app, "/api/surveys/unknown", None).await;
    assert_eq!(response.status(), 404);
    assert_eq!(error_code(response).await, "not_found");
}

#[tokio::test]
async fn a_draft_gets_exactly_the_page_of_an_unknown_survey() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = survey_definition(&[1.0]);
    definition["language"] = json!("fr");
    let created = app.create_survey(&token, &definition).await;
    let draft = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    // A French draft is not shown in French: its language would tell that it exists.
    for suffix in ["", "/receipt"] {
        let unknown =
            not_found_page(get(&app, &format!("/s/zz-unknown{suffix}"), None).await).await;
        let drafted = not_found_page(get(&app, &format!("/s/{draft}{suffix}"), None).await).await;
        assert_eq!(drafted, unknown, "{suffix}");
    }
}

#[tokio::test]
async fn without_a_survey_the_page_speaks_the_browsers_language() {
    let app = spawn_app().await;
    for (accept, lang, heading) in [
        ("de-DE,de;q=0.9,en;q=0.8", "de", "Umfrage nicht gefunden"),
        ("fr-CH, fr;q=0.9", "fr", "Enquête introuvable"),
        ("it, es;q=0.5", "es", "Encuesta no encontrada"),
        ("ja", "en", "Survey not found"),
    ] {
        let html = not_found_page(get(&app, "/s/unknown", Some(accept)).await).await;
        assert!(
            html.contains(&format!("<html lang=\"{lang}\">")),
            "{accept}"
        );
        assert!(html.contains(&format!("<h1>{heading}</h1>")), "{accept}");
    }
}

#[tokio::test]
async fn a_closed_surveys_form_says_so_in_its_language_and_its_receipt_page_works() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = survey_definition(&[1.0]);
    definition["language"] = json!("de");
    let created = app.create_survey(&token, &definition).await;
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    for step in ["open", "close"] {
        let response = app
            .owner_post(&token, &format!("/api/surveys/{slug}/{step}"))
            .await;
        assert_eq!(response.status(), 200);
    }
    // The browser prefers English; the survey's language wins.
    let response = get(&app, &format!("/s/{slug}"), Some("en")).await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("<html lang=\"de\">"));
    assert!(html.contains("Diese Umfrage ist geschlossen: Es kann nichts gesendet werden."));
    assert!(html.contains("data-accepting=\"false\""));
    let response = get(&app, &format!("/s/{slug}/receipt"), Some("en")).await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("<html lang=\"de\">"));
    assert!(html.contains("Ihre Antwort auf „Test survey“"));
}
