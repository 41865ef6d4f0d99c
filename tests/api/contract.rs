//! The researcher's and respondent's paths through the HTTP API, and every error status.

use crate::common::{error_code, spawn_app, survey_definition};
use serde_json::{json, Value};

#[tokio::test]
async fn a_survey_goes_from_creation_through_responses_to_results_exports_and_codebook() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = survey_definition(&[0.5, 2.0]);
    // k = 5: the five responses below make one release when the survey closes.
    definition["min_cell"] = json!(5);
    let created: Value = app
        .create_survey(&token, &definition)
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let ids: Vec<i64> = created["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();

    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let opened: Value = opened.json().await.unwrap();
    assert_eq!(opened["status"], "open");

    let answers = [(1, 0), (1, 1), (0, 1), (1, 1), (0, 0)];
    for (first, second) in answers {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): first, ids[1].to_string(): second }),
        )
        .await;
    }
    // While open, five are fewer than a release needs (k + 2 = 7): counted, not shown; and
    // no export, whose rows would tell which responses arrived since the last one.
    let waiting = app.results(&token, &slug).await;
    assert_eq!(waiting["responses"], 5);
    assert_eq!(waiting["questions"][0]["n"], 0);
    assert_eq!(
        waiting["release"],
        json!({"considered_at": 5, "released_responses": 0, "withheld_responses": 5,
               "reason": "waiting"})
    );
    let early = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.csv"))
        .await;
    assert_eq!(early.status(), 409);
    assert_eq!(error_code(early).await, "export_withheld");
    let closed = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);

    let results = app.results(&token, &slug).await;
    let questions = results["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 2);
    assert_eq!(questions[0]["n"], 5);
    assert_eq!(questions[0]["reported_yes"], 3);
    assert_eq!(questions[1]["reported_yes"], 3);
    for question in questions {
        for interval in ["chernoff", "exact", "anytime"] {
            let bounds = &question["intervals"][interval];
            assert!(bounds["low"].as_f64().unwrap() <= bounds["high"].as_f64().unwrap());
            assert!(bounds["half_width"].as_f64().unwrap() > 0.0);
        }
        assert!(question["estimate"].is_f64());
        assert!(
            question["respondents_needed_for_5_percent"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
    assert!(
        results["respondents_needed_for_5_percent"]
            .as_u64()
            .unwrap()
            > 0
    );

    let csv = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.csv"))
        .await;
    assert_eq!(csv.status(), 200);
    assert!(csv.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = csv.text().await.unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "record_id,question_id,epsilon,truth_probability,report,unbiased_value,type,option_values"
    );
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "one row per response and question");
    let reported_yes = rows.iter().filter(|row| row[4] == "1").count();
    assert_eq!(reported_yes, 6);

    let ndjson = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.ndjson"))
        .await;
    assert_eq!(ndjson.status(), 200);
    let records: Vec<Value> = ndjson
        .text()
        .await
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 10);
    let csv_ids: Vec<&str> = rows.iter().map(|row| row[0]).collect();
    let ndjson_ids: Vec<&str> = records
        .iter()
        .map(|r| r["record_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        csv_ids, ndjson_ids,
        "both exports list the same rows in the same order"
    );

    let codebook = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await;
    assert_eq!(codebook.status(), 200);
    let codebook: Value = codebook.json().await.unwrap();
    let described: Vec<&str> = codebook["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        described.join(","),
        header,
        "the codebook describes every column"
    );
    assert_eq!(codebook["questions"][0]["r_rr"]["design"], "mirrored");
    assert_eq!(
        codebook["questions"][1]["r_rr"]["p"],
        codebook["questions"][1]["truth_probability"]
    );
    assert_eq!(codebook["questions"][1]["r_rrreg"]["model"], "Warner");
    assert_eq!(codebook["questions"][1]["type"], "yes_no");
    // A first-release survey's rows: yes/no, no option values.
    assert!(rows
        .iter()
        .all(|row| row[6] == "yes_no" && row[7].is_empty()));
}

#[tokio::test]
async fn a_fresh_database_has_an_open_demo_survey_with_three_questions_at_different_epsilons() {
    let app = spawn_app().await;
    let definition: Value = app
        .client
        .get(app.url("/api/surveys/demo"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(definition["status"], "open");
    let epsilons: Vec<f64> = definition["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["epsilon"].as_f64().unwrap())
        .collect();
    assert_eq!(epsilons.len(), 3);
    assert!(epsilons[0] < epsilons[1] && epsilons[1] < epsilons[2]);
}

#[tokio::test]
async fn every_definition_request_carries_a_fresh_64_hex_nonce() {
    let app = spawn_app().await;
    let mut nonces = Vec::new();
    for _ in 0..2 {
        let response = app
            .client
            .get(app.url("/api/surveys/demo"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["cache-control"], "no-store");
        let body: Value = response.json().await.unwrap();
        let nonce = body["nonce"].as_str().unwrap().to_owned();
        assert_eq!(nonce.len(), 64);
        assert!(nonce.bytes().all(|b| b.is_ascii_hexdigit()));
        nonces.push(nonce);
    }
    assert_ne!(nonces[0], nonces[1]);
}

#[tokio::test]
async fn healthz_answers_ok() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn the_form_page_explains_each_questions_protection() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/s/demo")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("Your device tells the truth 75 % of the time"));
    assert!(html.contains("What can someone learn from the report?"));
    assert!(html.contains("id=\"total-epsilon\""));
    assert!(html.contains("<noscript>"));
    for id in [
        "q1-yes",
        "q1-no",
        "q3-yes",
        "submit-button",
        "receipt",
        "memo-note",
        "memo-clear",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "the form has #{id}");
    }
}

// --- errors ---------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_json_is_a_400() {
    let app = spawn_app().await;
    let response = app.submit_raw("demo", "{\"answers\": {\"1\": 1,").await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "invalid_json");
}

#[tokio::test]
async fn an_unknown_question_id_is_a_400() {
    let app = spawn_app().await;
    let response = app
        .submit("demo", json!({"1": 1, "2": 1, "3": 1, "999": 1}))
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "unknown_question");
    let not_a_number = app
        .submit("demo", json!({"1": 1, "2": 1, "3": 1, "x": 1}))
        .await;
    assert_eq!(not_a_number.status(), 400);
}

#[tokio::test]
async fn a_missing_required_answer_is_a_400() {
    let app = spawn_app().await;
    let response = app.submit("demo", json!({"1": 1, "2": 0})).await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "missing_answer");
}

#[tokio::test]
async fn a_report_of_2_is_a_400() {
    let app = spawn_app().await;
    let response = app.submit("demo", json!({"1": 2, "2": 0, "3": 0})).await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "invalid_report");
}

#[tokio::test]
async fn a_report_of_the_wrong_type_is_a_400() {
    let app = spawn_app().await;
    for report in [
        json!("yes"),
        json!(true),
        json!(-1),
        json!(0.5),
        json!(null),
        json!(256),
    ] {
        let response = app
            .submit("demo", json!({"1": report, "2": 0, "3": 0}))
            .await;
        assert_eq!(response.status(), 400, "report {report}");
        assert_eq!(error_code(response).await, "invalid_json");
    }
}

#[tokio::test]
async fn an_unknown_field_is_a_400() {
    let app = spawn_app().await;
    let body = json!({"answers": {"1": 1, "2": 0, "3": 0}, "truth": {"1": 1}});
    let response = app.submit_raw("demo", body.to_string()).await;
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_415() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/api/surveys/demo/responses"))
        .header("content-type", "text/plain")
        .body("answers=1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    assert_eq!(error_code(response).await, "unsupported_media_type");
}

#[tokio::test]
async fn an_unknown_survey_is_a_404() {
    let app = spawn_app().await;
    for path in ["/api/surveys/nope", "/api/surveys/Not%20A%20Slug"] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response).await, "not_found");
    }
    // A respondent following a link gets a page, not JSON (tests/api/respondent_pages.rs).
    let response = app.client.get(app.url("/s/nope")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    assert!(response
        .text()
        .await
        .unwrap()
        .contains("data-error-code=\"not_found\""));
    let response = app.submit("nope", json!({"1": 1})).await;
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn a_draft_survey_is_a_404_on_every_respondent_route() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = app.draft_survey(&token, &[1.0]).await;
    let response = app.submit(&slug, json!({ ids[0].to_string(): 1 })).await;
    assert_eq!(response.status(), 404);
    assert_eq!(error_code(response).await, "not_found");
    for path in [format!("/s/{slug}"), format!("/api/surveys/{slug}")] {
        let response = app.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
    }
    // Its owner still previews it from the workspace, and it opens normally.
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let response = app.submit(&slug, json!({ ids[0].to_string(): 1 })).await;
    assert_eq!(response.status(), 201);
}

#[tokio::test]
async fn a_closed_survey_refuses_responses_with_409() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    let closed = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed.status(), 200);
    let response = app.submit(&slug, json!({ ids[0].to_string(): 1 })).await;
    assert_eq!(response.status(), 409);
}

#[tokio::test]
async fn a_survey_opens_only_from_draft_and_closes_only_when_open() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_survey(&[1.0]).await;
    let reopened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(reopened.status(), 409);
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let closed_again = app
        .owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    assert_eq!(closed_again.status(), 409);
    let opened_again = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened_again.status(), 409);
}

#[tokio::test]
async fn an_oversized_body_is_a_413() {
    let app = spawn_app().await;
    let padding = " ".repeat(64 * 1024);
    let response = app
        .submit_raw("demo", format!("{{\"answers\": {{\"1\": 1}}{padding}}}"))
        .await;
    assert_eq!(response.status(), 413);
    assert_eq!(error_code(response).await, "payload_too_large");
}

#[tokio::test]
async fn a_non_owner_gets_404_on_every_owner_route() {
    let app = spawn_app().await;
    let (_, slug, _) = app.open_survey(&[1.0]).await;
    let stranger = app.researcher_with_token("stranger@example.org").await;
    for path in ["results", "export.csv", "export.ndjson", "codebook.json"] {
        let response = app
            .owner_get(&stranger, &format!("/api/surveys/{slug}/{path}"))
            .await;
        assert_eq!(response.status(), 404, "GET {path}");
        assert_eq!(error_code(response).await, "not_found");
    }
    for path in ["open", "close"] {
        let response = app
            .owner_post(&stranger, &format!("/api/surveys/{slug}/{path}"))
            .await;
        assert_eq!(response.status(), 404, "POST {path}");
    }
    // A token that belongs to nobody is not a non-owner but no credential at all.
    let unknown_token = app
        .owner_get("not-a-real-token", &format!("/api/surveys/{slug}/results"))
        .await;
    assert_eq!(unknown_token.status(), 401);
}

#[tokio::test]
async fn owner_routes_without_a_token_are_401() {
    let app = spawn_app().await;
    let results = app
        .client
        .get(app.url("/api/surveys/demo/results"))
        .send()
        .await
        .unwrap();
    assert_eq!(results.status(), 401);
    assert_eq!(error_code(results).await, "unauthorized");
    let create = app
        .client
        .post(app.url("/api/surveys"))
        .json(&survey_definition(&[1.0]))
        .send()
        .await
        .unwrap();
    assert_eq!(create.status(), 401);
    let unknown_token = app
        .create_survey("not-a-real-token", &survey_definition(&[1.0]))
        .await;
    assert_eq!(unknown_token.status(), 401);
}

#[tokio::test]
async fn a_bad_confidence_level_is_a_400() {
    let app = spawn_app().await;
    let (token, slug, _) = app.open_survey(&[1.0]).await;
    // 5e-324 is positive, but 1 − 5e-324 is exactly 1 in floating point (found by
    // Schemathesis: the anytime interval came back as an object of nulls).
    for confidence in ["1.5", "0", "1", "-0.2", "NaN", "abc", "5e-324", "1e-17"] {
        let path = format!("/api/surveys/{slug}/results?confidence={confidence}");
        let response = app.owner_get(&token, &path).await;
        assert_eq!(response.status(), 400, "confidence={confidence}");
    }
    let fine = app
        .owner_get(
            &token,
            &format!("/api/surveys/{slug}/results?confidence=0.9"),
        )
        .await;
    assert_eq!(fine.status(), 200);
    let body: Value = fine.json().await.unwrap();
    assert_eq!(body["confidence"], 0.9);
    assert!(
        body["questions"][0]["estimate"].is_null(),
        "no data yet, no estimate"
    );
}

#[tokio::test]
async fn invalid_survey_definitions_are_400() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let too_many: Vec<f64> = vec![1.0; 101];
    let definitions = [
        survey_definition(&[0.0]),
        survey_definition(&[25.0]),
        survey_definition(&[]),
        survey_definition(&too_many),
        json!({"title": "", "questions": [{"text": "Q?", "epsilon": 1.0}]}),
        json!({"title": "T", "questions": [{"text": "", "epsilon": 1.0}]}),
        json!({"title": "x".repeat(201), "questions": [{"text": "Q?", "epsilon": 1.0}]}),
        json!({"title": "T", "questions": [{"text": "Q?", "epsilon": 1.0, "colour": "red"}]}),
        json!({"title": "T", "planned_respondents": 0, "questions": [{"text": "Q?", "epsilon": 1.0}]}),
        json!({"title": "T", "questions": [{"text": "Q?", "epsilon": "high"}]}),
    ];
    for definition in definitions {
        let response = app.create_survey(&token, &definition).await;
        assert_eq!(response.status(), 400, "{definition}");
    }
    // Types and designs: each refusal has its code and names the field.
    let question = |fields: Value| {
        let mut question = json!({"text": "Q?"});
        for (key, value) in fields.as_object().unwrap() {
            question[key] = value.clone();
        }
        json!({"title": "T", "questions": [question]})
    };
    let designs = [
        (
            json!({"type": "choice", "epsilon": 1}),
            "missing_field",
            "questions[0].options",
        ),
        (
            json!({"type": "choice", "epsilon": 1, "options": ["a"]}),
            "invalid_options",
            "questions[0].options",
        ),
        (
            json!({"type": "ordinal", "epsilon": 1, "options": ["a", "a"]}),
            "invalid_options",
            "repeats",
        ),
        (
            json!({"type": "number", "epsilon": 1, "min": 3, "max": 1}),
            "invalid_bounds",
            "min below max",
        ),
        (
            json!({"type": "number", "epsilon": 1, "min": 0}),
            "missing_field",
            "questions[0].max",
        ),
        (
            json!({"type": "yes_no", "design": "k_ary", "epsilon": 1}),
            "invalid_design",
            "mirrored",
        ),
        (
            json!({"design": "forced_response", "answer_truthfully": 0.5, "forced_yes": 0.3,
                "forced_no": 0.3}),
            "invalid_design",
            "add up to 1",
        ),
        (
            json!({"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 0.5,
                "epsilon": 1}),
            "unexpected_field",
            "follows from its probabilities",
        ),
        (
            json!({"type": "number", "epsilon": 1, "min": 0, "max": 30, "options": ["a", "b"]}),
            "unexpected_field",
            "questions[0].options",
        ),
    ];
    for (fields, code, words) in designs {
        let response = app.create_survey(&token, &question(fields.clone())).await;
        assert_eq!(response.status(), 400, "{fields}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], code, "{fields}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{fields}: {message}");
    }
}

#[tokio::test]
async fn unknown_routes_and_methods_are_json_errors() {
    let app = spawn_app().await;
    let missing = app
        .client
        .get(app.url("/no/such/page"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(error_code(missing).await, "not_found");
    let missing_static = app
        .client
        .get(app.url("/static/nothing.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing_static.status(), 404);
    let wrong_method = app
        .client
        .put(app.url("/api/surveys/demo"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(error_code(wrong_method).await, "method_not_allowed");
}

#[tokio::test]
async fn the_webassembly_is_served_as_application_wasm() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/static/randomized_response.wasm"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/wasm");
}
