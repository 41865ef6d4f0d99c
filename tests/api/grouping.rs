//! The grouping question (docs/design.md, invariant 1's one exception): a non-sensitive
//! attribute, not randomized, marked so everywhere — the public definition, the form, the
//! survey's total ε, the builder — and stored like the reports, in the response's own row.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};

pub fn definition_with_grouping() -> Value {
    json!({
        "title": "Sport and doping",
        "questions": [
            {"type": "grouping", "text": "Year of study", "options": ["First", "Second", "Later"]},
            {"text": "Have you used a performance-enhancing drug?", "epsilon": 1.0},
            {"text": "Have you ever cheated on an exam?", "epsilon": 0.5},
        ],
    })
}

/// An open survey with a grouping question first: (token, slug, grouping id, question ids).
pub async fn open_grouped(app: &TestApp, definition: &Value) -> (String, String, i64, Vec<i64>) {
    let token = app.researcher_with_token("owner@example.org").await;
    let created = app.create_survey(&token, definition).await;
    assert_eq!(created.status(), 201);
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let questions = body["questions"].as_array().unwrap();
    let grouping = questions[0]["id"].as_i64().unwrap();
    let ids = questions[1..]
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (token, slug, grouping, ids)
}

#[tokio::test]
async fn a_grouping_question_is_marked_not_randomized_and_left_out_of_the_total_epsilon() {
    let app = spawn_app().await;
    let (_, slug, grouping, ids) = open_grouped(&app, &definition_with_grouping()).await;
    let definition: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let questions = definition["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 3);
    let first = &questions[0];
    assert_eq!(first["id"], grouping);
    assert_eq!(first["type"], "grouping");
    assert_eq!(first["randomized"], false);
    assert_eq!(first["options"], json!(["First", "Second", "Later"]));
    assert!(first.get("epsilon").is_none(), "no ε: {first}");
    assert!(first.get("truth_probability").is_none());
    for (question, id) in questions[1..].iter().zip(&ids) {
        assert_eq!(question["id"], *id);
        assert_eq!(question["randomized"], true);
    }
    let total = definition["total_epsilon"].as_f64().unwrap();
    assert!(
        (total - 1.5).abs() < 1e-12,
        "the randomized questions' ε only: {total}"
    );

    // The form says so in plain words, under the question and beside the total ε.
    let form = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(form.contains("This answer is sent as you give it — it is not randomized."));
    assert!(form.contains("Not randomized, sent as you give them: Year of study."));
    assert!(form.contains("data-kind=\"grouping\""));
    assert!(form.contains(&format!(
        "id=\"q{grouping}-2\" name=\"q{grouping}\" value=\"2\""
    )));
}

#[tokio::test]
async fn a_grouping_answer_is_checked_required_and_stored_beside_the_reports() {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) = open_grouped(&app, &definition_with_grouping()).await;
    let answers = |group: u8| json!({ grouping.to_string(): group, ids[0].to_string(): 1, ids[1].to_string(): 0 });
    for (bad, code) in [
        (
            json!({ grouping.to_string(): 3, ids[0].to_string(): 1, ids[1].to_string(): 0 }),
            "invalid_report",
        ),
        (
            json!({ ids[0].to_string(): 1, ids[1].to_string(): 0 }),
            "missing_answer",
        ),
    ] {
        let refused = app.submit(&slug, bad).await;
        assert_eq!(refused.status(), 400);
        assert_eq!(error_code(refused).await, code);
    }
    let receipt = app.submit_ok(&slug, answers(2)).await;

    // A retry of the same body is the same response; another group under its id is not.
    let response_id = hex::encode(deniable::crypto::sha256(receipt.as_bytes()));
    let again = |group: u8| {
        let mut body = json!({ "answers": answers(group) });
        body["response_id"] = json!(response_id);
        app.client
            .post(app.url(&format!("/api/surveys/{slug}/responses")))
            .json(&body)
            .send()
    };
    assert_eq!(again(2).await.unwrap().status(), 200);
    assert_eq!(again(1).await.unwrap().status(), 409);

    // Stored in the response's one row (format 2), nowhere else.
    let stored: Vec<u8> = app.stored_value("SELECT reports FROM all_responses").await;
    assert_eq!(stored[0], 2, "format 2: reports, then grouping answers");
    assert_eq!(*stored.last().unwrap(), 2, "the answer as given");

    // The results name the grouping question for ?by= and leave it out of the questions.
    let results = app.results(&token, &slug).await;
    assert_eq!(results["questions"].as_array().unwrap().len(), 2);
    assert_eq!(results["groupings"][0]["id"], grouping);
    assert_eq!(results["groupings"][0]["options"][2], "Later");

    // The respondent sees everything stored of the response: the grouping answer too,
    // marked as sent as given.
    let stored: Value = app.lookup(&slug, &receipt).await.json().await.unwrap();
    assert_eq!(
        stored["groupings"],
        json!([{"question_id": grouping, "answer": 2, "label": "Later"}])
    );
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
    assert!(
        page.contains("1. Year of study — <strong>Later</strong> (sent as given, not randomized)"),
        "{page}"
    );

    // Withdrawing takes the answer with the reports, and its mark of not yet released.
    assert_eq!(app.withdraw(&slug, &receipt).await.status(), 204);
    let left: i64 = app
        .stored_value(
            "SELECT (SELECT count(*) FROM all_responses)
                    + (SELECT count(*) FROM unreleased_responses)",
        )
        .await;
    assert_eq!(left, 0);
}

#[tokio::test]
async fn a_survey_needs_a_randomized_question_and_a_grouping_question_takes_no_epsilon() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let only_grouping = json!({"title": "t", "questions": [
        {"type": "grouping", "text": "Year", "options": ["a", "b"]}]});
    let refused = app.create_survey(&token, &only_grouping).await;
    assert_eq!(refused.status(), 400);
    assert_eq!(error_code(refused).await, "invalid_questions");
    let with_epsilon = json!({"title": "t", "questions": [
        {"type": "grouping", "text": "Year", "options": ["a", "b"], "epsilon": 1},
        {"text": "q", "epsilon": 1}]});
    let refused = app.create_survey(&token, &with_epsilon).await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not randomized: it has no epsilon"),
        "{body}"
    );
    let one_option = json!({"title": "t", "questions": [
        {"type": "grouping", "text": "Year", "options": ["a"]}, {"text": "q", "epsilon": 1}]});
    assert_eq!(app.create_survey(&token, &one_option).await.status(), 400);
}

#[tokio::test]
async fn the_builder_adds_a_grouping_question_with_its_warning_and_no_epsilon() {
    let app = spawn_app().await;
    let mut browser = crate::workspace::signed_in(&app, "builder@example.org").await;
    let slug = browser
        .create_draft("Sport survey", "Have you doped?")
        .await;
    let added = browser
        .save_builder(
            &slug,
            &[
                ("new-text", "Which sport?"),
                ("new-type", "grouping"),
                ("new-options", "Rowing\nJudo\n\nChess"),
                ("new-epsilon", "1"),
                ("action", "add"),
            ],
        )
        .await;
    assert_eq!(added.status(), 303);
    let page = browser.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(
        page.contains("It must not be sensitive"),
        "the builder warns"
    );
    assert!(page.contains("<option value=\"grouping\" data-design=\"grouping\" selected>"));
    assert!(page.contains(">1.00</output>"), "the total ε leaves it out");
    // The first grouping question turns "results after close" on, and says why; the owner
    // may turn it off again before opening.
    let after_close =
        "id=\"results-after-close\" name=\"results_after_close\" type=\"checkbox\" checked";
    assert!(page.contains(after_close), "on with a grouping question");
    assert!(page.contains("which people make up each release"));
    let path = format!("/surveys/{slug}/edit");
    let fields = crate::workspace::form_fields(&page, &path);
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .filter(|(name, _)| name != "results_after_close")
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    assert_eq!(browser.post_form(&path, &fields).await.status(), 303);
    let page = browser.get_html(&path).await;
    assert!(!page.contains(after_close), "turned off by its owner");
    // The only randomized question cannot become a grouping one, nor be deleted.
    let first = crate::workspace::question_ids(&app, &slug).await[0];
    let refused = browser
        .save_builder(
            &slug,
            &[
                ("q0-text", "Year?"),
                ("q0-type", "grouping"),
                ("q0-options", "a\nb"),
            ],
        )
        .await;
    assert_eq!(refused.status(), 409);
    let delete = format!("delete-{first}");
    let refused = browser.save_builder(&slug, &[("action", &delete)]).await;
    assert_eq!(refused.status(), 409);
}
