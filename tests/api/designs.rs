//! Question types and designs through the HTTP contract (issue 17): every type and design
//! accepted and echoed, infinite ε refused, reports checked per type, the first release's
//! definitions still loading, results, exports and codebook per type, and 10 000 simulated
//! devices whose every interval covers its known truth.

use std::time::Instant;

use crate::common::{error_code, spawn_app, TestApp};
use deniable::results::mean_level_estimator;
use deniable::simulate::{simulate, SimulationPlan, Truth};
use indicatif::ProgressBar;
use randomized_response::{Design, NumberDesign, PerRecordEstimator, PrivacyLevel};
use serde_json::{json, Value};

const FOUR_OPTIONS: [&str; 4] = ["Nothing", "Notes", "A phone", "A friend"];
const FIVE_LEVELS: [&str; 5] = [
    "Strongly disagree",
    "Disagree",
    "Neither",
    "Agree",
    "Strongly agree",
];

/// The survey of the server proof: forced response 0.67/0.165/0.165, a choice of 4, an
/// ordinal scale of 5 (both at ε = 2) and a number from 0 to 30 at ε = 1.
fn four_designs(planned_respondents: u64) -> Value {
    json!({
        "title": "Exam honesty, every type",
        "planned_respondents": planned_respondents,
        "questions": [
            {"text": "Have you ever cheated on an exam?", "type": "yes_no",
             "design": "forced_response", "answer_truthfully": 0.67, "forced_yes": 0.165,
             "forced_no": 0.165},
            {"text": "What did you use the last time?", "type": "choice",
             "options": FOUR_OPTIONS, "epsilon": 2.0},
            {"text": "Cheating is common in my course.", "type": "ordinal",
             "options": FIVE_LEVELS, "epsilon": 2.0},
            {"text": "How many hours did you study for your last exam?", "type": "number",
             "min": 0, "max": 30, "epsilon": 1.0},
        ]
    })
}

/// Creates and opens a survey from `definition`: (token, slug, question ids).
async fn open(app: &TestApp, definition: &Value) -> (String, String, Vec<i64>) {
    let token = app.researcher_with_token("owner@example.org").await;
    let created = app.create_survey(&token, definition).await;
    assert_eq!(created.status(), 201, "{definition}");
    let body: Value = created.json().await.unwrap();
    let slug = body["slug"].as_str().unwrap().to_owned();
    let ids = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    (token, slug, ids)
}

async fn public_definition(app: &TestApp, slug: &str) -> Value {
    let response = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).unwrap()
}

// --- the definition ---------------------------------------------------------------------

#[tokio::test]
async fn every_type_and_design_is_accepted_and_echoed_in_the_public_definition() {
    let app = spawn_app().await;
    let definition = json!({
        "title": "Every design",
        "questions": [
            {"text": "Mirrored?", "type": "yes_no", "design": "mirrored", "epsilon": 1.1},
            {"text": "Forced?", "type": "yes_no", "design": "forced_response",
             "answer_truthfully": 0.67, "forced_yes": 0.165, "forced_no": 0.165},
            {"text": "Unrelated?", "type": "yes_no", "design": "unrelated_question",
             "answer_truthfully": 0.7, "innocuous_yes": 0.3},
            {"text": "Which?", "type": "choice", "options": ["a", "b", "c"], "epsilon": 1.5},
            {"text": "How much?", "type": "ordinal", "options": FIVE_LEVELS, "epsilon": 1.5},
            {"text": "How many?", "type": "number", "min": 0, "max": 30, "epsilon": 1.0},
        ]
    });
    let (_, slug, _) = open(&app, &definition).await;
    let body = public_definition(&app, &slug).await;
    let questions = body["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 6);

    let mirrored = |epsilon: f64| 1.0 / (1.0 + (-epsilon).exp());
    // Unrelated question 0.7/0.3: P[yes][yes] = 0.7 + 0.3·0.3 = 0.79, P[no][yes] = 0.09,
    // P[yes][no] = 0.21, P[no][no] = 0.91.
    let unrelated_epsilon = (0.79f64 / 0.09).ln().max((0.91f64 / 0.21).ln());
    let k_ary = |k: f64| 1.5f64.exp() / (1.5f64.exp() + k - 1.0);
    let expected = [
        ("yes_no", "mirrored", 1.1, mirrored(1.1)),
        ("yes_no", "forced_response", (0.835f64 / 0.165).ln(), 0.835),
        ("yes_no", "unrelated_question", unrelated_epsilon, 0.91),
        ("choice", "k_ary", 1.5, k_ary(3.0)),
        ("ordinal", "k_ary", 1.5, k_ary(5.0)),
        ("number", "two_ends", 1.0, mirrored(1.0)),
    ];
    for (question, (question_type, design, epsilon, truth_probability)) in
        questions.iter().zip(expected)
    {
        assert_eq!(question["type"], question_type, "{question}");
        assert_eq!(question["design"], design, "{question}");
        assert_eq!(question["required"], true, "{question}");
        let got = question["epsilon"].as_f64().unwrap();
        assert!(close(got, epsilon), "{question}: ε {got} vs {epsilon}");
        let got = question["truth_probability"].as_f64().unwrap();
        assert!(
            close(got, truth_probability),
            "{question}: truth_probability {got} vs {truth_probability}"
        );
    }
    // The parameters, as given.
    assert_eq!(questions[1]["answer_truthfully"], 0.67);
    assert_eq!(questions[1]["forced_yes"], 0.165);
    assert_eq!(questions[1]["forced_no"], 0.165);
    assert_eq!(questions[2]["answer_truthfully"], 0.7);
    assert_eq!(questions[2]["innocuous_yes"], 0.3);
    assert_eq!(questions[3]["options"], json!(["a", "b", "c"]));
    assert_eq!(questions[4]["options"], json!(FIVE_LEVELS));
    assert_eq!(questions[5]["min"].as_f64(), Some(0.0));
    assert_eq!(questions[5]["max"].as_f64(), Some(30.0));
    for (index, question) in questions.iter().enumerate() {
        let fields: Vec<&str> = question
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for parameter in [
            "answer_truthfully",
            "forced_yes",
            "forced_no",
            "innocuous_yes",
            "options",
            "min",
            "max",
        ] {
            let belongs = match parameter {
                "answer_truthfully" => index == 1 || index == 2,
                "forced_yes" | "forced_no" => index == 1,
                "innocuous_yes" => index == 2,
                "options" => index == 3 || index == 4,
                _ => index == 5,
            };
            assert_eq!(
                fields.contains(&parameter),
                belongs,
                "question {index} and {parameter}: {question}"
            );
        }
    }
    // The forced-response question's 0.835 is not its answer_truthfully.
    assert_ne!(questions[1]["truth_probability"], 0.67);
}

#[tokio::test]
async fn infinite_epsilon_designs_are_refused_with_what_a_report_would_prove() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let designs = [
        json!({"design": "forced_response", "answer_truthfully": 0.8, "forced_yes": 0.2,
               "forced_no": 0}),
        json!({"design": "forced_response", "answer_truthfully": 0.8, "forced_yes": 0,
               "forced_no": 0.2}),
        json!({"design": "forced_response", "answer_truthfully": 1, "forced_yes": 0,
               "forced_no": 0}),
        json!({"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 0}),
        json!({"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 1}),
        json!({"design": "unrelated_question", "answer_truthfully": 1, "innocuous_yes": 0.5}),
    ];
    for design in designs {
        let mut question = design.clone();
        question["text"] = json!("Q?");
        let response = app
            .create_survey(&token, &json!({"title": "T", "questions": [question]}))
            .await;
        assert_eq!(response.status(), 400, "{design}");
        let body: Value = response.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("would prove"), "{design}: {message}");
        assert!(message.contains("questions[0]"), "{design}: {message}");
    }
}

#[tokio::test]
async fn forced_response_probabilities_must_add_up_to_one_as_rs_rr_rounds_them() {
    // Issue 32: 0.67 + 0.165 + 0.1650000008 is within 1e-9 of 1, but R's rr refuses it
    // (round(p + p0 + p1, 10) != 1), so the codebook's R call would fail: refused here too.
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let question = |forced_no: f64| {
        json!({"title": "T", "questions": [{"text": "Q?", "design": "forced_response",
            "answer_truthfully": 0.67, "forced_yes": 0.165, "forced_no": forced_no}]})
    };
    let refused = app.create_survey(&token, &question(0.165_000_000_8)).await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("must add up to 1") && message.contains("1.0000000008"),
        "{message}"
    );
    assert!(message.contains("questions[0]"), "{message}");
    let accepted = app.create_survey(&token, &question(0.165)).await;
    assert_eq!(accepted.status(), 201);
}

#[tokio::test]
async fn a_report_out_of_its_types_range_is_a_400_invalid_report() {
    let app = spawn_app().await;
    let (_, slug, ids) = open(&app, &four_designs(1000)).await;
    // The largest valid report of each type, then the first invalid one.
    let largest = [1, 3, 4, 1];
    let valid = |ids: &[i64]| -> serde_json::Map<String, Value> {
        ids.iter()
            .zip(largest)
            .map(|(id, report)| (id.to_string(), json!(report)))
            .collect()
    };
    app.submit_ok(&slug, Value::Object(valid(&ids))).await;
    for (index, invalid) in [2, 4, 5, 2].into_iter().enumerate() {
        for report in [invalid, 19] {
            let mut answers = valid(&ids);
            answers.insert(ids[index].to_string(), json!(report));
            let response = app.submit(&slug, Value::Object(answers)).await;
            assert_eq!(response.status(), 400, "question {index}, report {report}");
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["code"], "invalid_report");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&ids[index].to_string()),
                "the message names the question: {message}"
            );
        }
    }
    let mut answers = valid(&ids);
    answers.insert(ids[1].to_string(), json!(256));
    let response = app.submit(&slug, Value::Object(answers)).await;
    assert_eq!(response.status(), 400, "not a u8 at all");
}

#[tokio::test]
async fn a_definition_of_the_first_release_is_a_mirrored_yes_no_question() {
    let app = spawn_app().await;
    let definition = json!({"title": "Old", "min_cell": 5, "questions": [
        {"text": "Old style?", "epsilon": 1.0986, "required": true}
    ]});
    let (token, slug, ids) = open(&app, &definition).await;
    let body = public_definition(&app, &slug).await;
    let question = &body["questions"][0];
    assert_eq!(question["type"], "yes_no");
    assert_eq!(question["design"], "mirrored");
    assert_eq!(question["epsilon"], 1.0986);
    for _ in 0..5 {
        app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    }
    app.close(&token, &slug).await;
    let results = app.results(&token, &slug).await;
    assert_eq!(results["questions"][0]["reported_yes"], 5);
    assert!(results["questions"][0]["estimate"].is_f64());
}

#[tokio::test]
async fn required_false_loads_and_the_question_must_still_be_answered() {
    let app = spawn_app().await;
    let definition = json!({"title": "Optional?", "questions": [
        {"text": "First?", "epsilon": 1.0},
        {"text": "Optional in the first release?", "epsilon": 1.0, "required": false},
    ]});
    let (_, slug, ids) = open(&app, &definition).await;
    let body = public_definition(&app, &slug).await;
    assert_eq!(body["questions"][1]["required"], true);
    let response = app.submit(&slug, json!({ ids[0].to_string(): 1 })).await;
    assert_eq!(response.status(), 400);
    assert_eq!(error_code(response).await, "missing_answer");
    app.submit_ok(
        &slug,
        json!({ ids[0].to_string(): 1, ids[1].to_string(): 0 }),
    )
    .await;
}

// --- results, export, codebook ------------------------------------------------------------

/// One report's `(unbiased_value, option_values)`.
type Values = (Option<f64>, Option<Vec<f64>>);

/// The crate's per-record values of each question of [`four_designs`], by report.
fn expected_values() -> Vec<Vec<Values>> {
    let forced = Design::forced_response(0.67, 0.165, 0.165).unwrap();
    let yes = forced.option_estimator(Design::YES).unwrap();
    let choice = Design::k_ary(4, level(2.0)).unwrap();
    let ordinal = Design::k_ary(5, level(2.0)).unwrap();
    let mean_level = mean_level_estimator(&ordinal);
    let number = NumberDesign::new(0.0, 30.0, level(1.0))
        .unwrap()
        .mean_estimator();
    let options = |design: &Design, report: usize| -> Vec<f64> {
        (0..design.answers())
            .map(|option| design.option_estimator(option).unwrap().values()[report])
            .collect()
    };
    let scalar = |estimator: &PerRecordEstimator, reports: usize| -> Vec<_> {
        (0..reports)
            .map(|r| (Some(estimator.values()[r]), None))
            .collect()
    };
    vec![
        scalar(&yes, 2),
        (0..4).map(|r| (None, Some(options(&choice, r)))).collect(),
        (0..5)
            .map(|r| (Some(mean_level.values()[r]), Some(options(&ordinal, r))))
            .collect(),
        scalar(&number, 2),
    ]
}

fn assert_values(what: &str, got: Values, expected: &Values) {
    match (got.0, expected.0) {
        (Some(a), Some(b)) => assert!(close(a, b), "{what}: unbiased_value {a} vs {b}"),
        (a, b) => assert_eq!(a, b, "{what}: unbiased_value"),
    }
    match (&got.1, &expected.1) {
        (Some(a), Some(b)) => {
            assert_eq!(a.len(), b.len(), "{what}");
            for (x, y) in a.iter().zip(b) {
                assert!(close(*x, *y), "{what}: option_values {a:?} vs {b:?}");
            }
        }
        (a, b) => assert_eq!(a, b, "{what}: option_values"),
    }
}

fn json_values(value: &Value) -> Values {
    (
        value["unbiased_value"].as_f64(),
        value["option_values"]
            .as_array()
            .map(|values| values.iter().map(|v| v.as_f64().unwrap()).collect()),
    )
}

#[tokio::test]
async fn results_exports_and_codebook_follow_each_questions_type_and_design() {
    let app = spawn_app().await;
    let (token, slug, ids) = open(&app, &four_designs(1000)).await;
    // 20 responses covering every report of every question.
    for i in 0..20_usize {
        let answers = json!({
            ids[0].to_string(): i % 2,
            ids[1].to_string(): i % 4,
            ids[2].to_string(): (i * 3) % 5,
            ids[3].to_string(): usize::from(i % 3 == 0),
        });
        app.submit_ok(&slug, answers).await;
    }
    let expected = expected_values();

    // Results: each type's shape.
    let results = app.results(&token, &slug).await;
    let questions = results["questions"].as_array().unwrap();
    let intervals = |value: &Value, exact: bool| {
        for name in ["chernoff", "anytime"] {
            assert!(value["intervals"][name]["half_width"].as_f64().unwrap() > 0.0);
        }
        assert_eq!(value["intervals"]["exact"].is_object(), exact, "{value}");
    };
    let yes_no = &questions[0];
    assert_eq!(
        (&yes_no["type"], &yes_no["design"]),
        (&json!("yes_no"), &json!("forced_response"))
    );
    assert_eq!(yes_no["n"], 20);
    assert_eq!(yes_no["reported_yes"], 10);
    assert!(yes_no["estimate"].is_f64());
    assert!(yes_no["options"].is_null() && yes_no["mean"].is_null());
    intervals(yes_no, true);
    for (question, labels) in [
        (&questions[1], &FOUR_OPTIONS[..]),
        (&questions[2], &FIVE_LEVELS),
    ] {
        assert!(question["estimate"].is_null() && question["reported_yes"].is_null());
        let options = question["options"].as_array().unwrap();
        assert_eq!(options.len(), labels.len());
        for (option, label) in options.iter().zip(labels) {
            assert_eq!(option["label"], *label);
            assert!(option["estimate"].is_f64() && option["estimate_clipped"].is_f64());
            intervals(option, true);
        }
        let reported: u64 = options
            .iter()
            .map(|o| o["reported"].as_u64().unwrap())
            .sum();
        assert_eq!(reported, 20);
    }
    assert!(questions[1]["mean"].is_null());
    let mean_level = &questions[2]["mean"];
    assert_eq!(
        (mean_level["min"].as_f64(), mean_level["max"].as_f64()),
        (Some(1.0), Some(5.0))
    );
    intervals(mean_level, false);
    let number = &questions[3];
    assert!(number["options"].is_null() && number["estimate"].is_null());
    assert_eq!(
        (
            number["mean"]["min"].as_f64(),
            number["mean"]["max"].as_f64()
        ),
        (Some(0.0), Some(30.0))
    );
    intervals(&number["mean"], true);

    // The CSV export: the header, each row's values are the crate's, and each question's
    // means of them are the results' estimates.
    app.close(&token, &slug).await;
    let csv = app.export_csv(&token, &slug).await;
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "record_id,question_id,epsilon,truth_probability,report,unbiased_value,type,option_values"
    );
    let types = ["yes_no", "choice", "ordinal", "number"];
    let mut sums = vec![(0.0, vec![0.0; 5]); 4];
    let mut rows = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 8, "{line}");
        let question = ids
            .iter()
            .position(|id| id.to_string() == cells[1])
            .unwrap();
        let report: usize = cells[4].parse().unwrap();
        assert_eq!(cells[6], types[question]);
        let got = (
            (!cells[5].is_empty()).then(|| cells[5].parse::<f64>().unwrap()),
            (!cells[7].is_empty()).then(|| {
                cells[7]
                    .split(';')
                    .map(|v| v.parse::<f64>().unwrap())
                    .collect::<Vec<_>>()
            }),
        );
        assert_values(line, got.clone(), &expected[question][report]);
        let truth_probability: f64 = cells[3].parse().unwrap();
        assert!(close(
            truth_probability,
            questions[question]["truth_probability"].as_f64().unwrap()
        ));
        sums[question].0 += got.0.unwrap_or(0.0);
        for (sum, value) in sums[question].1.iter_mut().zip(got.1.unwrap_or_default()) {
            *sum += value;
        }
        rows += 1;
    }
    assert_eq!(rows, 80, "one row per response and question");
    let mean = |sum: f64| sum / 20.0;
    let near = |a: f64, b: &Value| (a - b.as_f64().unwrap()).abs() < 1e-9;
    assert!(near(mean(sums[0].0), &yes_no["estimate"]));
    assert!(near(mean(sums[2].0), &mean_level["estimate"]));
    assert!(near(mean(sums[3].0), &number["mean"]["estimate"]));
    for question in [1, 2] {
        for (option, value) in questions[question]["options"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert!(near(mean(sums[question].1[option]), &value["estimate"]));
        }
    }

    // The NDJSON export: the same rows, nulls and arrays.
    let ndjson = app
        .owner_get(&token, &format!("/api/surveys/{slug}/export.ndjson"))
        .await
        .text()
        .await
        .unwrap();
    let records: Vec<Value> = ndjson
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 80);
    for record in &records {
        let question = ids
            .iter()
            .position(|id| Some(*id) == record["question_id"].as_i64())
            .unwrap();
        let report = record["report"].as_u64().unwrap() as usize;
        assert_eq!(record["type"], types[question]);
        assert_values(
            &record.to_string(),
            json_values(record),
            &expected[question][report],
        );
        if question == 1 {
            assert!(record["unbiased_value"].is_null(), "choice: {record}");
        }
        if question == 0 || question == 3 {
            assert!(record["option_values"].is_null(), "{record}");
        }
    }

    // The codebook.
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    let columns: Vec<&str> = codebook["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns.join(","), csv.lines().next().unwrap());
    let described = codebook["questions"].as_array().unwrap();
    for (question, (described, expected)) in described.iter().zip(&expected).enumerate() {
        assert_eq!(described["type"], types[question]);
        assert_eq!(described["required"], true);
        let epsilon = described["epsilon"].as_f64().unwrap();
        let realized = described["realized_epsilon"].as_f64().unwrap();
        assert!(
            realized <= epsilon && realized > epsilon - 1e-9,
            "{described}"
        );
        let values = described["per_record_values"].as_array().unwrap();
        assert_eq!(values.len(), expected.len());
        for (report, (value, expected)) in values.iter().zip(expected).enumerate() {
            assert_eq!(value["report"], report);
            assert_values(&value.to_string(), json_values(value), expected);
        }
        let reports = described["reports"].as_array().unwrap();
        assert_eq!(reports.len(), expected.len());
        let matrix = described["matrix"]["p"].as_array().unwrap();
        for row in matrix {
            let sum: f64 = row
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_f64().unwrap())
                .sum();
            assert!((sum - 1.0).abs() < 1e-12, "{row}");
        }
    }
    let forced = &described[0];
    assert!(close(forced["truth_probability"].as_f64().unwrap(), 0.835));
    assert_eq!(forced["parameters"]["answer_truthfully"], 0.67);
    for (truth, row) in forced["matrix"]["p"].as_array().unwrap().iter().enumerate() {
        for (report, cell) in row.as_array().unwrap().iter().enumerate() {
            let expected = if truth == report { 0.835 } else { 0.165 };
            assert!(close(cell.as_f64().unwrap(), expected), "{row}");
        }
    }
    assert_eq!(forced["r_rr"]["design"], "forced-known");
    assert_eq!(
        (
            &forced["r_rr"]["p"],
            &forced["r_rr"]["p0"],
            &forced["r_rr"]["p1"]
        ),
        (&json!(0.67), &json!(0.165), &json!(0.165))
    );
    assert_eq!(forced["r_rrreg"]["model"], "FR");
    assert_eq!(forced["r_rrreg"]["p"], json!([0.165, 0.165]));
    assert!(forced["r_rr"]["example"]
        .as_str()
        .unwrap()
        .contains("design = \"forced-known\""));
    assert_eq!(forced["reports"][1]["label"], "Yes");
    let choice = &described[1];
    assert!(choice["r_rr"].is_null());
    assert_eq!(choice["options"], json!(FOUR_OPTIONS));
    assert_eq!(choice["reports"][2]["label"], FOUR_OPTIONS[2]);
    let b = 1.0 / (2f64.exp() + 3.0);
    for forced_option in choice["r_rrreg"]["p"].as_array().unwrap() {
        assert!(close(forced_option.as_f64().unwrap(), b));
    }
    assert!(choice["unbiased_value_estimates"].is_null());
    let ordinal = &described[2];
    assert_eq!(ordinal["matrix"]["p"].as_array().unwrap().len(), 5);
    let number = &described[3];
    assert_eq!(
        (number["min"].as_f64(), number["max"].as_f64()),
        (Some(0.0), Some(30.0))
    );
    assert_eq!(number["r_rr"]["design"], "mirrored");
    assert!(close(
        number["r_rr"]["p"].as_f64().unwrap(),
        1.0 / (1.0 + (-1.0f64).exp())
    ));
    assert_eq!(number["r_rrreg"]["model"], "Warner");
    assert!(codebook["r_note"].as_str().unwrap().contains("logit scale"));
    assert!(codebook["skipping"]
        .as_str()
        .unwrap()
        .contains("Every question"));
}

#[tokio::test]
async fn option_labels_are_formula_safe_in_the_codebook() {
    let app = spawn_app().await;
    let definition = json!({"title": "T", "questions": [
        {"text": "Q?", "type": "choice", "options": ["=1+1", "@SUM(A1)", "fine"], "epsilon": 1}
    ]});
    let (token, slug, _) = open(&app, &definition).await;
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    let question = &codebook["questions"][0];
    assert_eq!(question["options"], json!(["'=1+1", "'@SUM(A1)", "fine"]));
    assert_eq!(question["parameters"]["options"], question["options"]);
    assert_eq!(question["reports"][0]["label"], "'=1+1");
}

// --- the server proof ---------------------------------------------------------------------

/// The 12 targets of [`four_designs`]: the yes share, 4 + 5 option shares, the mean level
/// and the mean.
const TARGETS: usize = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulated_devices_answer_every_type_and_every_interval_covers_its_truth() {
    // 10 000 devices with ./scripts/test --long, 3 000 in its default mode.
    let devices: usize = crate::sweep::sized(3_000, 10_000);
    let app = spawn_app().await;
    let (token, slug, _) = open(&app, &four_designs(devices as u64)).await;
    // Bonferroni over the 12 targets: each method's 12 intervals hold at once with
    // probability at least 0.95 (each alone at 1 − 0.05/12). The devices' coins come from
    // the seed, so the run is the same every time.
    let confidence = 1.0 - 0.05 / TARGETS as f64;
    let plan = SimulationPlan {
        base_url: app.address.clone(),
        survey: slug.clone(),
        respondents: devices,
        truths: vec![
            Truth::Yes(0.3),
            Truth::Options(vec![0.4, 0.3, 0.2, 0.1]),
            Truth::Options(vec![0.1, 0.2, 0.3, 0.25, 0.15]),
            Truth::Values(vec![(0.0, 0.3), (5.0, 0.4), (12.5, 0.2), (30.0, 0.1)]),
        ],
        concurrency: 32,
        seed: 2026,
        reproducible: true,
        confidence,
        token: Some(token.clone()),
        invitations: None,
    };
    let started = Instant::now();
    let outcome = simulate(&plan, &ProgressBar::hidden())
        .await
        .expect("the simulation runs");
    eprintln!(
        "{devices} devices, 4 questions, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(outcome.submitted, devices);

    // The truths are exactly the planned shares.
    let truths: Vec<Vec<f64>> = outcome
        .questions
        .iter()
        .map(|q| q.targets.iter().map(|t| t.truth).collect())
        .collect();
    assert_eq!(truths[0], [0.3]);
    assert_eq!(truths[1], [0.4, 0.3, 0.2, 0.1]);
    assert_eq!(truths[2], [0.1, 0.2, 0.3, 0.25, 0.15, 3.15]);
    assert_eq!(truths[3], [7.5]);

    let checks = outcome.checks();
    assert_eq!(checks.len(), TARGETS);
    let results = outcome.results.as_ref().unwrap();
    assert!(results.questions.iter().all(|q| q.n == devices as u64));
    let mut misses = Vec::new();
    eprintln!(
        "{:<20} {:>8} {:>9}  half-widths at {confidence:.5}: chernoff / exact / anytime",
        "target", "truth", "estimate"
    );
    for check in &checks {
        let names: Vec<&str> = check.intervals.iter().map(|(name, _)| *name).collect();
        let expected: &[&str] = if check.target == "mean level" {
            &["chernoff", "anytime"]
        } else {
            &["chernoff", "exact", "anytime"]
        };
        assert_eq!(names, expected, "{}", check.target);
        let widths: Vec<String> = check
            .intervals
            .iter()
            .map(|(_, b)| format!("{:.4}", b.half_width))
            .collect();
        eprintln!(
            "{:<20} {:>8.4} {:>9.4}  {}",
            check.target,
            check.truth,
            check.estimate.unwrap(),
            widths.join(" / ")
        );
        for name in check.misses() {
            misses.push(format!("{} {name}", check.target));
        }
    }
    assert!(
        misses.is_empty(),
        "intervals missing their truth: {misses:?}"
    );

    // For the record: the same reports at 0.95 for each interval alone.
    let at_95: Value = app
        .owner_get(
            &token,
            &format!("/api/surveys/{slug}/results?confidence=0.95"),
        )
        .await
        .json()
        .await
        .unwrap();
    let outcome_95 = deniable::simulate::SimulationOutcome {
        submitted: outcome.submitted,
        questions: outcome.questions.clone(),
        results: Some(serde_json::from_value(at_95).unwrap()),
    };
    let checks_95 = outcome_95.checks();
    let total: usize = checks_95.iter().map(|c| c.intervals.len()).sum();
    let missed: usize = checks_95.iter().map(|c| c.misses().len()).sum();
    eprintln!(
        "at 0.95 each: {} of {total} intervals cover",
        total - missed
    );
}
