//! The analyses beyond an interval (issue 18): one-sided bounds and tests of a share, the
//! consistency of the reports with the design, Bonferroni-simultaneous intervals, and the
//! cross-tabulation of two questions — each following the survey's primary interval.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};

async fn open(app: &TestApp, token: &str, definition: Value) -> (String, Vec<i64>) {
    let created = app.create_survey(token, &definition).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let ids = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    app.owner_post(token, &format!("/api/surveys/{slug}/open"))
        .await;
    (slug, ids)
}

fn two_questions(rule: Value) -> Value {
    let mut definition = json!({"title": "t", "questions": [
        {"text": "Have you cheated?", "epsilon": 2.0},
        {"text": "How often?", "type": "choice", "epsilon": 2.0, "options": ["a", "b", "c"]}]});
    for (key, value) in rule.as_object().unwrap() {
        definition[key] = value.clone();
    }
    definition
}

async fn get(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.owner_get(token, path).await;
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn each_share_has_one_sided_bounds_and_a_test_that_follow_the_primary_interval() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(&app, &token, two_questions(json!({"target_responses": 12}))).await;
    for index in 0..12u8 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): u8::from(index % 3 == 0), ids[1].to_string(): index % 3 }),
        )
        .await;
    }
    // Closed by its target: the exact bounds and the exact binomial test lead.
    let results = get(
        &app,
        &token,
        &format!("/api/surveys/{slug}/results?null=0.5"),
    )
    .await;
    let yes_no = &results["questions"][0];
    assert_eq!(yes_no["primary"], "exact");
    let (lower, upper) = (&yes_no["bounds"]["lower"], &yes_no["bounds"]["upper"]);
    let estimate = yes_no["estimate_clipped"].as_f64().unwrap();
    for kind in ["chernoff", "exact", "anytime"] {
        let (low, high) = (lower[kind].as_f64().unwrap(), upper[kind].as_f64().unwrap());
        assert!(
            low <= estimate && estimate <= high,
            "{kind}: {low} ≤ {estimate} ≤ {high}"
        );
    }
    // A one-sided bound is tighter than its two-sided interval's end.
    assert!(
        upper["exact"].as_f64().unwrap() <= yes_no["intervals"]["exact"]["high"].as_f64().unwrap()
    );
    let test = &yes_no["test"];
    assert_eq!(test["null"], 0.5);
    assert_eq!(test["test"], "exact");
    assert_eq!(test["p_value"], test["exact_p_value"]);
    assert!(test["anytime_p_value"].as_f64().unwrap() >= test["exact_p_value"].as_f64().unwrap());
    assert!(results["questions"][1]["options"][0]["test"]["p_value"].is_f64());
    // Means have bounds, but a share's test only.
    let refused = app
        .owner_get(&token, &format!("/api/surveys/{slug}/results?null=1.5"))
        .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(error_code(refused).await, "invalid_null");
}

#[tokio::test]
async fn a_survey_watched_live_tests_with_the_anytime_p_value() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    // k = 5: ten responses are a release (k + 2) at the consideration at 10.
    let (slug, ids) = open(&app, &token, two_questions(json!({"min_cell": 5}))).await;
    for index in 0..10u8 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): 1, ids[1].to_string(): index % 3 }),
        )
        .await;
    }
    let results = get(&app, &token, &format!("/api/surveys/{slug}/results?null=0")).await;
    let test = &results["questions"][0]["test"];
    assert_eq!(test["test"], "anytime");
    assert_eq!(test["p_value"], test["anytime_p_value"]);
    // Without ?null= there is no test.
    let results = get(&app, &token, &format!("/api/surveys/{slug}/results")).await;
    assert!(results["questions"][0]["test"].is_null());
    assert_eq!(results["questions"][0]["consistency"]["flagged"], false);
}

#[tokio::test]
async fn simultaneous_intervals_divide_beta_among_every_target_of_the_survey() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    // k = 5: ten responses are a release (k + 2) at the consideration at 10.
    let (slug, ids) = open(&app, &token, two_questions(json!({"min_cell": 5}))).await;
    for index in 0..10u8 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): index % 2, ids[1].to_string(): index % 3 }),
        )
        .await;
    }
    let single = get(&app, &token, &format!("/api/surveys/{slug}/results")).await;
    let together = get(
        &app,
        &token,
        &format!("/api/surveys/{slug}/results?simultaneous=true"),
    )
    .await;
    assert_eq!(together["simultaneous"], true);
    assert_eq!(together["confidence"], 0.95);
    // One yes/no share and three options: β = 0.05 shared by 4.
    let per_target = together["per_target_confidence"].as_f64().unwrap();
    assert!((per_target - (1.0 - 0.05 / 4.0)).abs() < 1e-12);
    let width = |results: &Value| {
        results["questions"][0]["intervals"]["chernoff"]["half_width"]
            .as_f64()
            .unwrap()
    };
    assert!(width(&together) > width(&single));
}

#[tokio::test]
async fn reports_that_contradict_the_design_are_flagged_instead_of_read_as_a_confident_zero() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(
        &app,
        &token,
        json!({"title": "t", "questions": [{"text": "q", "epsilon": 0.1}]}),
    )
    .await;
    // A faulty client: 40 reports of "no" when ε = 0.1 sends "yes" at least 47.5 % of the time.
    for _ in 0..40 {
        app.submit_ok(&slug, json!({ ids[0].to_string(): 0 })).await;
    }
    let results = get(&app, &token, &format!("/api/surveys/{slug}/results")).await;
    let check = &results["questions"][0]["consistency"];
    assert_eq!(check["flagged"], true, "{check}");
    assert_eq!(check["threshold"], 1000.0);
    assert!(check["p_value"].as_f64().unwrap() <= 0.001);
}

#[tokio::test]
async fn a_cross_tabulation_estimates_the_joint_shares_and_the_conditional_proportions() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(&app, &token, two_questions(json!({}))).await;
    for index in 0..30u8 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): index % 2, ids[1].to_string(): (index / 2) % 3 }),
        )
        .await;
    }
    let joint = get(
        &app,
        &token,
        &format!("/api/surveys/{slug}/results?joint={},{}", ids[0], ids[1]),
    )
    .await;
    assert_eq!(joint["questions"], json!([ids[0], ids[1]]));
    // From the released figures, as every view: the first 20 made a release at the
    // consideration at 20; the last ten are fewer than a release needs (k + 2 = 12).
    assert_eq!(joint["n"], 20);
    let results = get(&app, &token, &format!("/api/surveys/{slug}/results")).await;
    assert_eq!(results["release"]["released_responses"], 20);
    assert_eq!(joint["rows"], json!(["No", "Yes"]));
    assert_eq!(joint["columns"], json!(["a", "b", "c"]));
    assert_eq!(joint["primary"], "anytime");
    let cells = joint["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    let total: f64 = cells.iter().map(|c| c["estimate"].as_f64().unwrap()).sum();
    assert!(
        (total - 1.0).abs() < 1e-9,
        "the joint shares add up to 1: {total}"
    );
    assert!(
        cells[0]["intervals"]["exact"].is_null(),
        "a cell has no exact interval"
    );
    // Both directions: 2 × 3 given the first, 3 × 2 given the second.
    let conditionals = joint["conditionals"].as_array().unwrap();
    assert_eq!(conditionals.len(), 12);
    assert_eq!(conditionals[0]["given_question"], ids[0]);
    assert_eq!(conditionals[11]["given_question"], ids[1]);

    for bad in [
        format!("{}", ids[0]),
        format!("{0},{0}", ids[0]),
        "x,y".to_owned(),
    ] {
        let refused = app
            .owner_get(&token, &format!("/api/surveys/{slug}/results?joint={bad}"))
            .await;
        assert_eq!(refused.status(), 400, "{bad}");
        assert_eq!(error_code(refused).await, "invalid_joint");
    }
}

#[tokio::test]
async fn a_blinded_survey_refuses_a_cross_tabulation() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(&app, &token, two_questions(json!({"target_responses": 50}))).await;
    let refused = app
        .owner_get(
            &token,
            &format!("/api/surveys/{slug}/results?joint={},{}", ids[0], ids[1]),
        )
        .await;
    assert_eq!(refused.status(), 409);
    assert_eq!(error_code(refused).await, "blinded");
    // And blinded results carry no bounds, test or consistency either.
    let results = get(
        &app,
        &token,
        &format!("/api/surveys/{slug}/results?null=0.2"),
    )
    .await;
    for field in ["bounds", "test", "consistency"] {
        assert!(results["questions"][0][field].is_null(), "{field}");
    }
}

#[tokio::test]
async fn the_results_page_shows_bounds_tests_and_a_warning_instead_of_a_contradicted_estimate() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(
        &app,
        &token,
        json!({"title": "t", "questions": [
            {"text": "Faulty?", "epsilon": 0.1},
            {"text": "Honest?", "epsilon": 2.0}]}),
    )
    .await;
    for index in 0..40u8 {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): 0, ids[1].to_string(): index % 2 }),
        )
        .await;
    }
    let mut browser = crate::workspace::Browser::new(&app);
    browser
        .try_sign_in("owner@example.org", crate::workspace::PASSWORD)
        .await;
    let page = browser
        .get_html(&format!(
            "/surveys/{slug}/results?confidence=0.95&null=0.5&simultaneous=on"
        ))
        .await;
    let card = |id: i64| {
        let start = page.find(&format!("id=\"result-{id}\"")).unwrap();
        page[start..start + page[start..].find("</table>").unwrap()].to_owned()
    };
    let faulty = card(ids[0]);
    assert!(faulty.contains("data-flagged=\"true\""));
    assert!(faulty.contains("These reports contradict the question’s design"));
    assert!(faulty.contains("data-field=\"estimate\">not shown</td>"));
    let honest = card(ids[1]);
    assert!(honest.contains("data-flagged=\"false\""));
    assert!(honest.contains("One-sided bounds (anytime)"));
    assert!(honest.contains("data-field=\"bounds\">at least "));
    assert!(honest.contains("Test of share = 0.5"));
    assert!(honest.contains("data-field=\"test\">p = "));
    let note = &page[page.find("id=\"simultaneous-note\"").expect("the note")..];
    assert!(
        note[..300].contains("97.50 %"),
        "two targets share β: {}",
        &note[..300]
    );
    let live = &page[page.find("data-results-url=").unwrap()..][..120];
    assert!(
        live.contains("null=0.5") && live.contains("simultaneous=true"),
        "{live}"
    );
}

#[tokio::test]
async fn an_interval_wholly_outside_zero_to_one_is_empty_and_agrees_with_the_test() {
    // Issue 32: mirrored ε = 0.5, 50 reported yes of 200. The design reports yes at least
    // 37.8 % of the time whatever the truth, so every interval lies below 0: each is empty
    // (never the point [0, 0]), and the anytime test of a share of 0 rejects it.
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let (slug, ids) = open(
        &app,
        &token,
        json!({"title": "t", "questions": [{"text": "q", "epsilon": 0.5}]}),
    )
    .await;
    for index in 0..200u16 {
        app.submit_ok(&slug, json!({ ids[0].to_string(): u8::from(index < 50) }))
            .await;
    }
    let results = get(&app, &token, &format!("/api/surveys/{slug}/results?null=0")).await;
    let question = &results["questions"][0];
    assert_eq!(question["n"], 200);
    for kind in ["chernoff", "exact", "anytime"] {
        let interval = &question["intervals"][kind];
        assert_eq!(interval["low"], Value::Null, "{kind}: {interval}");
        assert_eq!(interval["high"], Value::Null, "{kind}: {interval}");
        assert_eq!(interval["empty"], true, "{kind}: {interval}");
        assert!(interval["half_width"].as_f64().unwrap() > 0.0);
        // The upper one-sided bound ("at most") lies below 0 as well.
        assert!(question["bounds"]["upper"]["empty"]
            .as_array()
            .unwrap()
            .contains(&json!(kind)));
        assert_eq!(question["bounds"]["upper"][kind], Value::Null);
    }
    let test = &question["test"];
    assert_eq!(test["test"], "anytime");
    let p = test["p_value"].as_f64().unwrap();
    assert!(
        p < 0.05,
        "the test rejects a share of 0 as the interval does: p = {p}"
    );
    // Honest reports keep their intervals, marked not empty.
    let (other, other_ids) = open(
        &app,
        &token,
        json!({"title": "t", "questions": [{"text": "q", "epsilon": 0.5}]}),
    )
    .await;
    for index in 0..20u8 {
        app.submit_ok(&other, json!({ other_ids[0].to_string(): index % 2 }))
            .await;
    }
    let honest = get(&app, &token, &format!("/api/surveys/{other}/results")).await;
    let anytime = &honest["questions"][0]["intervals"]["anytime"];
    assert_eq!(anytime["empty"], false, "{anytime}");
    assert!(anytime["low"].is_f64() && anytime["high"].is_f64());
    assert_eq!(
        honest["questions"][0]["bounds"]["upper"]["empty"],
        json!([])
    );
    // The results page says so in words, under the question.
    let mut browser = crate::workspace::Browser::new(&app);
    browser
        .try_sign_in("owner@example.org", crate::workspace::PASSWORD)
        .await;
    let page = browser
        .get_html(&format!("/surveys/{slug}/results?confidence=0.95"))
        .await;
    let note_at = page
        .find(&format!("id=\"empty-interval-note-{}\"", ids[0]))
        .expect("the empty interval's note");
    let note = &page[note_at..][..400];
    assert!(
        note.contains("no true value is consistent with these reports")
            && note.contains("Fake responses or a faulty client"),
        "{note}"
    );
    assert!(page.contains("data-field=\"anytime\">empty</td>"));
    let honest_page = browser
        .get_html(&format!("/surveys/{other}/results?confidence=0.95"))
        .await;
    assert!(!honest_page.contains("empty-interval-note"));
}

#[tokio::test]
async fn each_question_plans_for_the_primary_interval_of_the_surveys_way_of_running() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let confidence = randomized_response::Confidence::new(0.95).unwrap();
    let yes =
        randomized_response::Design::mirrored(randomized_response::PrivacyLevel::new(2.0).unwrap())
            .option_estimator(randomized_response::Design::YES)
            .unwrap();
    for (rule, interval) in [
        (json!({}), "anytime"),
        (json!({"target_responses": 50}), "exact"),
    ] {
        let (slug, _) = open(&app, &token, two_questions(rule)).await;
        let results = get(&app, &token, &format!("/api/surveys/{slug}/results")).await;
        let planning = &results["questions"][0]["planning"];
        let [five, ten] = [0.05, 0.10].map(|fraction| {
            if interval == "exact" {
                yes.exact_respondents_needed(fraction, confidence)
                    .unwrap()
                    .unwrap()
            } else {
                yes.anytime_respondents_needed(fraction, confidence)
                    .unwrap()
            }
        });
        let chernoff = [0.05, 0.10].map(|f| yes.respondents_needed(f, confidence).unwrap());
        assert_eq!(
            planning,
            &json!({"interval": interval, "for_5_points": five, "for_10_points": ten,
                    "chernoff_for_5_points": chernoff[0], "chernoff_for_10_points": chernoff[1]}),
        );
        // The old field is Chernoff's, unchanged.
        assert_eq!(
            results["questions"][0]["respondents_needed_for_5_percent"],
            json!(chernoff[0])
        );
        // A choice question plans every option's share.
        assert_eq!(results["questions"][1]["planning"]["interval"], interval);
    }
}
