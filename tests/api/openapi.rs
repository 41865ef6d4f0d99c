//! GET /api/openapi.json: public, complete (the router's routes and the document's
//! operations are the same set), and honest about authentication and the body limits.
//! (Its validity as OpenAPI 3.1 and every response's conformance are checked by
//! scripts/fuzz-api, with openapi-spec-validator and Schemathesis.)

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common::{spawn_app, TestApp};

use crate::routes::routes_in;

const METHODS: [&str; 7] = ["get", "head", "post", "put", "patch", "delete", "options"];

/// The OpenAPI document the server serves (also read by the disclosure auditor's list).
pub async fn document(app: &TestApp) -> Value {
    let response = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// (METHOD, path) → operation, for every operation of the document.
fn operations(document: &Value) -> Vec<((String, String), Value)> {
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if METHODS.contains(&method.as_str()) {
                operations.push(((method.to_uppercase(), path.clone()), operation.clone()));
            }
        }
    }
    operations
}

#[tokio::test]
async fn the_document_is_public_json_with_the_security_headers() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "application/json");
    for name in [
        "content-security-policy",
        "x-content-type-options",
        "referrer-policy",
        "x-frame-options",
    ] {
        assert!(headers.contains_key(name), "{name} is missing");
    }
    let document: Value = response.json().await.unwrap();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1."));
    let bearer = &document["components"]["securitySchemes"]["bearer"];
    assert_eq!(
        (&bearer["type"], &bearer["scheme"]),
        (&json!("http"), &json!("bearer"))
    );
    // A body is refused here as on every route without one.
    let with_body = app
        .client
        .get(app.url("/api/openapi.json"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(with_body.status(), 413);
}

#[tokio::test]
async fn every_route_of_the_router_is_documented_and_every_documented_operation_is_routed() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let documented: BTreeSet<(String, String)> = operations(&document)
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    let routed = routes_in("fn routes(");
    assert!(routed.len() >= 20, "the router was read: {routed:?}");
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routed but not in the OpenAPI document (annotate the handler with #[utoipa::path] \
         and list it in src/http/openapi.rs): {undocumented:?}"
    );
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        unrouted.is_empty(),
        "in the OpenAPI document but not routed: {unrouted:?}"
    );

    // The workspace's pages are left out, and the document says so.
    let description = document["info"]["description"].as_str().unwrap();
    let workspace = routes_in("fn workspace_routes(");
    assert!(
        workspace.len() >= 20,
        "the workspace was read: {workspace:?}"
    );
    for (method, path) in workspace {
        assert!(
            !document["paths"]
                .as_object()
                .unwrap()
                .contains_key(path.as_str()),
            "{method} {path} is a workspace page"
        );
        let first_segment = format!("/{}", path.split('/').nth(1).unwrap());
        assert!(
            description.contains(&format!("`{first_segment}"))
                || description.contains(&format!("`{first_segment}`")),
            "the description does not say that {path} is left out"
        );
    }
}

#[tokio::test]
async fn every_operation_documents_the_statuses_of_the_body_limits_and_the_error_shape() {
    let app = spawn_app().await;
    let document = document(&app).await;
    for ((method, path), operation) in operations(&document) {
        let responses = operation["responses"].as_object().unwrap();
        let has = |status: &str| responses.contains_key(status);
        assert!(has("413"), "{method} {path}: 413");
        assert!(has("500"), "{method} {path}: 500");
        if let Some(body) = operation.get("requestBody") {
            assert!(has("408"), "{method} {path}: 408");
            if body["content"].get("application/json").is_some() {
                assert!(has("415"), "{method} {path}: 415");
            }
        }
        if operation.get("security").is_some() {
            assert!(has("401"), "{method} {path}: 401");
        }
        for (status, response) in responses {
            // A respondent following a link to no survey gets the form's HTML page.
            if path.starts_with("/s/") && status == "404" {
                assert!(
                    response["content"]["text/html; charset=utf-8"].is_object(),
                    "{method} {path}: 404 is the respondents' page"
                );
                continue;
            }
            if status.starts_with('4') || status.starts_with('5') {
                assert_eq!(
                    response["content"]["application/json"]["schema"]["$ref"],
                    "#/components/schemas/ErrorBody",
                    "{method} {path}: {status} is the JSON error"
                );
            }
        }
    }
    let submit = &document["paths"]["/api/surveys/{slug}/responses"]["post"];
    assert!(submit["responses"]["429"]["headers"]["Retry-After"].is_object());
}

/// What the document says about the token is what the server does: every operation that
/// names the bearer scheme answers 401 without a token, and no other one does.
#[tokio::test]
async fn exactly_the_operations_that_name_the_bearer_scheme_need_a_token() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, _) = app.draft_survey(&token, &[1.0]).await;
    let document = document(&app).await;
    for ((method, path), operation) in operations(&document) {
        let secured = operation.get("security").is_some();
        if secured {
            assert_eq!(
                operation["security"],
                json!([{"bearer": []}]),
                "{method} {path}"
            );
        }
        let url = app.url(&path.replace("{slug}", &slug).replace("{file}", "form.js"));
        let mut request = app
            .client
            .request(method.parse().unwrap(), url)
            .header("content-type", "application/json");
        if operation.get("requestBody").is_some() {
            request = request.body("{}");
        }
        let status = request.send().await.unwrap().status();
        assert_eq!(
            status == 401,
            secured,
            "{method} {path} without a token: {status}"
        );
    }
    // Nothing was changed by the requests without a token.
    let results = app.results(&token, &slug).await;
    assert_eq!(results["status"], "draft");
}

/// RFC 9110: a 405 says which methods the route has.
#[tokio::test]
async fn a_method_a_route_lacks_is_a_405_with_the_allowed_methods() {
    let app = spawn_app().await;
    for (method, path, allow) in [
        ("PUT", "/healthz", "GET, HEAD"),
        ("TRACE", "/api/surveys/demo", "GET, DELETE"),
        ("GET", "/api/surveys/demo/responses", "POST"),
        ("DELETE", "/s/demo/receipt", "GET, POST"),
        ("PATCH", "/surveys", "GET, POST"),
    ] {
        let response = app
            .client
            .request(method.parse().unwrap(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 405, "{method} {path}");
        assert_eq!(response.headers()["allow"], allow, "{method} {path}");
        assert_eq!(
            crate::common::error_code(response).await,
            "method_not_allowed"
        );
    }
}

/// What Schemathesis found, kept found: JSON Schema counts `5.0` as an integer (and
/// Python's `json` writes it for a float), and a bad action on the receipt page is a 400
/// whatever the receipt.
#[tokio::test]
async fn whole_numbers_written_as_floats_are_integers_and_a_bad_receipt_action_is_a_400() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = crate::common::survey_definition(&[1.0]);
    definition["planned_respondents"] = json!(500.0);
    definition["min_cell"] = json!(5.0);
    definition["requires_invitation"] = json!(true);
    let created = app.create_survey(&token, &definition).await;
    assert_eq!(created.status(), 201);
    let survey: Value = created.json().await.unwrap();
    assert_eq!(survey["planned_respondents"], 500);
    assert_eq!(survey["min_cell"], 5);
    let slug = survey["slug"].as_str().unwrap();
    let invitations = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(&token)
        .json(&json!({"count": 2.0}))
        .send()
        .await
        .unwrap();
    assert_eq!(invitations.status(), 201);
    let fractional = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(&token)
        .json(&json!({"count": 2.5}))
        .send()
        .await
        .unwrap();
    assert_eq!(crate::common::error_code(fractional).await, "invalid_json");

    for receipt in ["", "not a receipt", &"A".repeat(43)] {
        let response = app
            .client
            .post(app.url("/s/demo/receipt"))
            .form(&[("receipt", receipt), ("action", "__not_in_enum__")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{receipt:?}");
        assert_eq!(crate::common::error_code(response).await, "invalid_action");
    }
}

#[tokio::test]
async fn the_survey_schema_and_its_creation_document_the_introduction_and_its_400_codes() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let create = &document["paths"]["/api/surveys"]["post"];
    let refused = create["responses"]["400"]["description"].as_str().unwrap();
    for code in ["invalid_contact", "invalid_language"] {
        assert!(refused.contains(code), "POST /api/surveys documents {code}");
    }
    let schemas = &document["components"]["schemas"];
    for field in ["researcher", "contact", "consent", "language"] {
        assert!(
            schemas["SurveyDefinition"]["properties"]
                .get(field)
                .is_some(),
            "the definition takes {field}"
        );
        assert!(
            schemas["Survey"]["properties"].get(field).is_some(),
            "the survey answers with {field}"
        );
    }
}
