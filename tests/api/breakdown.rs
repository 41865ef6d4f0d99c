//! Breakdowns by a grouping question (`?by=`) under k-anonymity (k = `min_cell`): a group
//! below k is absent from the results and from every export row, and no difference of
//! published figures gives it back; the breakdown moves only in releases of k × groups new
//! responses, never on one response.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};
use crate::grouping::open_grouped;

const K: u64 = 3;

fn definition(rule: Value) -> Value {
    let mut definition = json!({
        "title": "Sport and doping",
        "min_cell": K,
        "questions": [
            {"type": "grouping", "text": "Sport", "options": ["Rowing", "Judo", "Chess"]},
            {"text": "Have you used a performance-enhancing drug?", "epsilon": 1.0},
        ],
    });
    for (key, value) in rule.as_object().unwrap() {
        definition[key] = value.clone();
    }
    definition
}

async fn send(app: &TestApp, slug: &str, grouping: i64, question: i64, group: u8, yes: u8) {
    app.submit_ok(
        slug,
        json!({ grouping.to_string(): group, question.to_string(): yes }),
    )
    .await;
}

/// The reported yes a published (n, estimate) of a mirrored ε = 1 question implies.
fn implied_yes(n: u64, estimate: f64) -> f64 {
    let p = 1f64.exp() / (1.0 + 1f64.exp());
    n as f64 * (1.0 - p + (2.0 * p - 1.0) * estimate)
}

#[tokio::test]
async fn a_group_of_k_minus_one_is_absent_from_results_exports_and_every_subtraction() {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) = open_grouped(&app, &definition(json!({}))).await;
    // Rowing: 2 (= k − 1), with 2 reported yes; Judo: 4; Chess: 6.
    let members: [(u8, &[u8]); 3] = [(0, &[1, 1]), (1, &[0, 1, 0, 0]), (2, &[1, 0, 1, 0, 0, 1])];
    for (group, reports) in members {
        for &yes in reports {
            send(&app, &slug, grouping, ids[0], group, yes).await;
        }
    }
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;

    let by = app.breakdown(&token, &slug, grouping).await;
    let groups = by["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 4, "three options and \"other\": {by}");
    // Rowing is hidden, and so is the smallest other group (Judo): together they are
    // "other", of at least k.
    for hidden in [0, 1] {
        assert_eq!(groups[hidden]["suppressed"], true);
        assert!(groups[hidden]["n"].is_null());
        assert_eq!(groups[hidden]["questions"], json!([]));
    }
    assert_eq!(groups[1]["label"], "Judo");
    assert_eq!(groups[2]["n"], 6);
    assert_eq!(groups[3]["label"], "other");
    assert_eq!(groups[3]["members"], json!([0, 1]));
    assert_eq!(groups[3]["n"], 6);

    // Every published (n, reported yes) — overall, each group shown, other — and every
    // difference of them: none is Rowing's (2, 2).
    let overall = app.results(&token, &slug).await;
    let whole = (
        overall["responses"].as_u64().unwrap(),
        overall["questions"][0]["reported_yes"].as_f64().unwrap(),
    );
    let published: Vec<(u64, f64)> = groups
        .iter()
        .filter(|group| group["suppressed"] == false)
        .map(|group| {
            let n = group["n"].as_u64().unwrap();
            (
                n,
                implied_yes(n, group["questions"][0]["estimate"].as_f64().unwrap()),
            )
        })
        .collect();
    for subset in 0..(1 << published.len()) {
        let (mut n, mut yes) = whole;
        for (index, (group_n, group_yes)) in published.iter().enumerate() {
            if subset & (1 << index) != 0 {
                n -= group_n;
                yes -= group_yes;
            }
        }
        assert!(
            !(n == 2 && (yes - 2.0).abs() < 1e-6),
            "subtracting {subset:b} gives Rowing back"
        );
    }
    for (n, _) in &published {
        assert!(*n >= K, "a published group of {n}");
    }

    // The export: Rowing's label appears in no row; "(other)" holds at least k responses.
    let csv = app.export_csv(&token, &slug).await;
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(&format!(",group_{grouping}")), "{header}");
    let cells: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|line| line.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(cells.len(), 12, "one row per response and question");
    assert!(!cells.contains(&"Rowing"));
    assert!(
        !cells.contains(&"Judo"),
        "folded with Rowing, as in the breakdown"
    );
    assert_eq!(cells.iter().filter(|c| **c == "(other)").count(), 6);
    assert_eq!(cells.iter().filter(|c| **c == "Chess").count(), 6);
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    assert!(codebook["grouping_note"]
        .as_str()
        .unwrap()
        .contains("k = 3"));
    assert_eq!(
        codebook["groupings"][0]["column"],
        format!("group_{grouping}")
    );
}

#[tokio::test]
async fn refreshing_after_each_new_response_shows_no_change_until_a_whole_release() {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) = open_grouped(&app, &definition(json!({}))).await;
    // Nothing is released before k × 3 = 9 responses.
    let before = app.breakdown(&token, &slug, grouping).await;
    assert!(before["released_responses"].is_null());
    assert_eq!(before["next_release_at"], 9);
    for index in 0..9u8 {
        send(&app, &slug, grouping, ids[0], index % 3, index % 2).await;
    }
    let released = app.breakdown(&token, &slug, grouping).await;
    assert_eq!(released["released_responses"], 9);
    assert_eq!(released["groups"][0]["n"], 3);
    // Each of the next 8 responses (more than k − 1), one at a time, changes nothing, even
    // though they all join one group.
    for _ in 0..8 {
        send(&app, &slug, grouping, ids[0], 0, 1).await;
        assert_eq!(app.breakdown(&token, &slug, grouping).await, released);
    }
    // The ninth completes a release: every group moves together.
    send(&app, &slug, grouping, ids[0], 0, 1).await;
    let next = app.breakdown(&token, &slug, grouping).await;
    assert_eq!(next["released_responses"], 18);
    assert_eq!(next["groups"][0]["n"], 12);
}

#[tokio::test]
async fn two_groups_shown_give_their_difference_with_an_interval_and_a_test() {
    let app = spawn_app().await;
    let two = json!({"title": "t", "min_cell": 2, "questions": [
        {"type": "grouping", "text": "Faculty", "options": ["Arts", "Science"]},
        {"text": "Have you?", "epsilon": 2.0}]});
    let (token, slug, grouping, ids) = open_grouped(&app, &two).await;
    for index in 0..20u8 {
        send(
            &app,
            &slug,
            grouping,
            ids[0],
            index % 2,
            u8::from(index % 2 == 0 || index < 4),
        )
        .await;
    }
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let by = app.breakdown(&token, &slug, grouping).await;
    let differences = by["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 1);
    let difference = &differences[0];
    assert_eq!(difference["groups"], json!([0, 1]));
    assert_eq!(difference["question"], ids[0]);
    assert_eq!(difference["primary"], "anytime", "watched live");
    assert_eq!(difference["p_value_test"], "anytime");
    let (a, b) = (
        by["groups"][0]["questions"][0]["estimate"]
            .as_f64()
            .unwrap(),
        by["groups"][1]["questions"][0]["estimate"]
            .as_f64()
            .unwrap(),
    );
    let estimate = difference["estimate"].as_f64().unwrap();
    assert!((estimate - (a - b)).abs() < 1e-12);
    // The interval lies within the difference's range, [−1, 1] for two shares.
    let anytime = &difference["intervals"]["anytime"];
    let clipped = estimate.clamp(-1.0, 1.0);
    assert!(
        anytime["low"].as_f64().unwrap() <= clipped && clipped <= anytime["high"].as_f64().unwrap()
    );
    let p = difference["p_value"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
}

#[tokio::test]
async fn a_blinded_breakdown_gives_group_counts_only() {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) =
        open_grouped(&app, &definition(json!({"target_responses": 100}))).await;
    app.breakdown(&token, &slug, grouping).await;
    for index in 0..9u8 {
        send(&app, &slug, grouping, ids[0], index % 3, 1).await;
    }
    let by = app.breakdown(&token, &slug, grouping).await;
    assert_eq!(by["blinded"], true);
    assert_eq!(by["groups"][1]["n"], 3);
    let question = &by["groups"][1]["questions"][0];
    assert!(question["estimate"].is_null() && question["primary"].is_null());
    assert!(question["intervals"]["anytime"].is_null());
    assert_eq!(by["differences"], json!([]));
}

#[tokio::test]
async fn by_must_name_one_of_the_surveys_grouping_questions() {
    let app = spawn_app().await;
    let (token, slug, _, ids) = open_grouped(&app, &definition(json!({}))).await;
    let refused = app
        .owner_get(
            &token,
            &format!("/api/surveys/{slug}/results?by={}", ids[0]),
        )
        .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(error_code(refused).await, "not_a_grouping_question");
}

#[tokio::test]
async fn the_results_page_shows_the_breakdown_with_the_small_group_folded_and_the_difference_in_words(
) {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) = open_grouped(&app, &definition(json!({}))).await;
    for (group, count) in [(0u8, 2), (1, 5), (2, 6)] {
        for index in 0..count {
            send(
                &app,
                &slug,
                grouping,
                ids[0],
                group,
                u8::from(index % 2 == 0),
            )
            .await;
        }
    }
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let mut browser = crate::workspace::Browser::new(&app);
    let signed = browser
        .try_sign_in("owner@example.org", crate::workspace::PASSWORD)
        .await;
    assert_eq!(signed.status(), 303);
    let page = browser.get_html(&format!("/surveys/{slug}/results")).await;
    let section = &page[page.find("id=\"breakdown\"").expect("a breakdown section")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("Breakdown by Sport"));
    assert!(section.contains("every response is in the breakdown"));
    assert!(section
        .contains("Fewer than 3 respondents, or folded to protect such a group: Rowing, Judo."));
    assert!(section.contains("<th scope=\"row\">other (Rowing, Judo)</th>"));
    assert!(section.contains("<th scope=\"row\">Chess</th>"));
    assert!(!section.contains("<th scope=\"row\">Rowing</th>"));
    // One group shown beside "other": it against everyone else, in words.
    assert!(section.contains("Chess minus everyone else: "), "{section}");
    assert!(section.contains("% anytime interval"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulated_devices_send_their_grouping_answers_as_given() {
    use deniable::simulate::{simulate, SimulationPlan, Truth};
    let app = spawn_app().await;
    let (token, slug, grouping, _) = open_grouped(&app, &definition(json!({}))).await;
    let plan = SimulationPlan {
        base_url: app.address.clone(),
        survey: slug.clone(),
        respondents: 60,
        truths: vec![Truth::Options(vec![0.5, 0.3, 0.2]), Truth::Yes(0.3)],
        concurrency: 4,
        seed: 7,
        reproducible: true,
        confidence: 0.95,
        token: None,
        invitations: None,
    };
    let outcome = simulate(&plan, &indicatif::ProgressBar::hidden())
        .await
        .expect("the simulation runs");
    assert_eq!(outcome.submitted, 60);
    assert_eq!(
        outcome.questions.len(),
        1,
        "only the randomized question is checked"
    );
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let by = app.breakdown(&token, &slug, grouping).await;
    let sizes: Vec<u64> = by["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| group["n"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [30, 18, 12]);
}

#[tokio::test]
async fn a_survey_that_requires_invitations_breaks_down_and_exports_its_released_responses() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "t", "min_cell": 1, "requires_invitation": true,
        "questions": [
            {"type": "grouping", "text": "Team", "options": ["Red", "Blue"]},
            {"text": "Have you?", "epsilon": 1.0}]});
    let created: Value = app
        .create_survey(&token, &definition)
        .await
        .json()
        .await
        .unwrap();
    let slug = created["slug"].as_str().unwrap().to_owned();
    let (grouping, question) = (
        created["questions"][0]["id"].as_i64().unwrap(),
        created["questions"][1]["id"].as_i64().unwrap(),
    );
    app.owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    let invitations = app.invitations(&token, &slug, 4).await;
    for (index, code) in invitations.codes.iter().enumerate() {
        let spendable = app.token_for(&slug, code).await;
        let answers = json!({ grouping.to_string(): index % 2, question.to_string(): 1 });
        let sent = app
            .submit_with_token(&slug, answers, Some(&spendable), None)
            .await;
        assert_eq!(sent.status(), 201);
    }
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;
    let by = app.breakdown(&token, &slug, grouping).await;
    assert_eq!(by["groups"][0]["n"], 2);
    assert_eq!(by["groups"][1]["n"], 2);
    let csv = app.export_csv(&token, &slug).await;
    assert_eq!(
        csv.lines().count(),
        5,
        "a header and the four released rows"
    );
    assert_eq!(csv.lines().filter(|line| line.ends_with(",Red")).count(), 2);
}
