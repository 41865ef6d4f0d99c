//! Breakdowns by a grouping question (`?by=`) under the release model (docs/design.md,
//! invariant 11; k = `min_cell`): each group is the sum of the released cells that gave its
//! answer, a cell is released whole once it holds k + 2 new responses at a consideration
//! (every k responses received; k at close), and what never made k stays out of every
//! figure, every export and every subtraction.

use serde_json::{json, Value};

use crate::common::{error_code, spawn_app, TestApp};
use crate::grouping::open_grouped;

const K: u64 = 5;

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
    // Judo: 5, released at close (k); Chess: 7, released at the consideration at 15 (k + 2
    // while open); Rowing: 4 (= k − 1), with 4 reported yes, never released.
    let members: [(u8, &[u8]); 3] = [
        (1, &[0, 1, 0, 0, 1]),
        (2, &[1, 0, 1, 0, 0, 1, 1]),
        (0, &[1, 1, 1, 1]),
    ];
    for (group, reports) in members {
        for &yes in reports {
            send(&app, &slug, grouping, ids[0], group, yes).await;
        }
    }
    app.owner_post(&token, &format!("/api/surveys/{slug}/close"))
        .await;

    let by = app.breakdown(&token, &slug, grouping).await;
    let groups = by["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3, "the three options, no \"other\": {by}");
    assert_eq!(groups[0]["label"], "Rowing");
    assert_eq!(groups[0]["suppressed"], true);
    assert!(groups[0]["n"].is_null());
    assert_eq!(groups[0]["questions"], json!([]));
    assert_eq!(groups[1]["n"], 5, "Judo at close");
    assert_eq!(groups[2]["n"], 7, "Chess at the consideration at 15");

    // Every published (n, reported yes) — overall and each group shown — and every
    // difference of them: none is Rowing's (4, 4), nor any part of it.
    let overall = app.results(&token, &slug).await;
    assert_eq!(overall["release"]["withheld_responses"], 4);
    let whole = (
        overall["questions"][0]["n"].as_u64().unwrap(),
        overall["questions"][0]["reported_yes"].as_f64().unwrap(),
    );
    assert_eq!(whole.0, 12);
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
            n == 0 || n >= K,
            "subtracting {subset:b} leaves {n} responses ({yes})"
        );
    }

    // The export: released responses only, each with its own label.
    let csv = app.export_csv(&token, &slug).await;
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(&format!(",group_{grouping}")), "{header}");
    let cells: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|line| line.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(
        cells.len(),
        12,
        "one row per released response and question"
    );
    assert!(!cells.contains(&"Rowing"));
    assert_eq!(cells.iter().filter(|c| **c == "Judo").count(), 5);
    assert_eq!(cells.iter().filter(|c| **c == "Chess").count(), 7);
    let codebook: Value = app
        .owner_get(&token, &format!("/api/surveys/{slug}/codebook.json"))
        .await
        .json()
        .await
        .unwrap();
    assert!(codebook["grouping_note"]
        .as_str()
        .unwrap()
        .contains("see release_rule"));
    let rule = codebook["survey"]["release_rule"].as_str().unwrap();
    assert!(rule.contains("at least 7 new responses"), "{rule}");
    assert!(rule.contains("at close, one holding at least 5"), "{rule}");
    assert_eq!(codebook["survey"]["min_cell"], 5);
    assert_eq!(
        codebook["groupings"][0]["column"],
        format!("group_{grouping}")
    );
}

#[tokio::test]
async fn refreshing_after_each_new_response_shows_no_change_between_considerations() {
    let app = spawn_app().await;
    // Live breakdowns, turned on by the owner (the default for a grouped survey is results
    // after close).
    let (token, slug, grouping, ids) =
        open_grouped(&app, &definition(json!({"results_after_close": false}))).await;
    let before = app.breakdown(&token, &slug, grouping).await;
    assert!(before["released_responses"].is_null());
    assert_eq!(before["next_release_at"], 5);
    let mut last = before;
    let mut moves = Vec::new();
    for index in 0..30u8 {
        // Mostly Rowing, now and then Judo or Chess.
        let group = [0, 0, 1, 0, 2, 0][usize::from(index % 6)];
        send(&app, &slug, grouping, ids[0], group, index % 2).await;
        let now = app.breakdown(&token, &slug, grouping).await;
        if now["groups"] != last["groups"] {
            moves.push(index + 1);
            assert_eq!(
                u64::from(index + 1) % K,
                0,
                "moved after response {}",
                index + 1
            );
        }
        last = now;
    }
    // Rowing (4 in every 6) first reaches k + 2 = 7 new ones at the consideration at 10,
    // then again at 20; the six since wait, as Judo's and Chess's five each do.
    assert_eq!(moves.first(), Some(&10), "{moves:?}");
    assert_eq!(last["groups"][0]["n"], 14);
    assert_eq!(last["groups"][1]["suppressed"], true);
}

#[tokio::test]
async fn two_groups_shown_give_their_difference_with_an_interval_and_a_test() {
    let app = spawn_app().await;
    let two = json!({"title": "t", "min_cell": 5, "questions": [
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
    let (token, slug, grouping, ids) = open_grouped(
        &app,
        &definition(json!({"target_responses": 100, "results_after_close": false})),
    )
    .await;
    app.breakdown(&token, &slug, grouping).await;
    // Seven of groups 0 and 1 by the consideration at 20: released.
    for index in 0..21u8 {
        send(&app, &slug, grouping, ids[0], index % 3, 1).await;
    }
    let by = app.breakdown(&token, &slug, grouping).await;
    assert_eq!(by["blinded"], true);
    assert_eq!(by["groups"][1]["n"], 7);
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
async fn the_results_page_shows_the_released_groups_and_the_difference_in_words() {
    let app = spawn_app().await;
    let (token, slug, grouping, ids) = open_grouped(&app, &definition(json!({}))).await;
    // Judo 5 and Chess 6 (released at close), Rowing 2 (withheld).
    for (group, count) in [(1u8, 5), (2, 6), (0, 2)] {
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
    assert!(
        section.contains("the breakdown holds its 11 released responses"),
        "{section}"
    );
    assert!(section.contains("Nothing released yet: Rowing."));
    assert!(section.contains("<th scope=\"row\">Judo</th>"));
    assert!(section.contains("<th scope=\"row\">Chess</th>"));
    assert!(!section.contains("<th scope=\"row\">Rowing</th>"));
    assert!(section.contains("Judo minus Chess: "), "{section}");
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
    // Every response arrived with its group as given: the released ones are in their
    // groups, and what is withheld (fewer than k of a group since its last release) makes
    // up the rest of the plan's 30, 18 and 12.
    let by = app.breakdown(&token, &slug, grouping).await;
    let sizes: Vec<u64> = by["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| group["n"].as_u64().unwrap_or(0))
        .collect();
    let withheld = app.results(&token, &slug).await["release"]["withheld_responses"]
        .as_u64()
        .unwrap();
    for (size, planned) in sizes.iter().zip([30, 18, 12]) {
        assert!(*size <= planned && planned - size < K, "{sizes:?}");
    }
    assert_eq!(sizes.iter().sum::<u64>() + withheld, 60);
}

#[tokio::test]
async fn a_survey_that_requires_invitations_breaks_down_and_exports_its_released_responses() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "t", "min_cell": 5, "requires_invitation": true,
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
    let invitations = app.invitations(&token, &slug, 10).await;
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
    assert_eq!(by["groups"][0]["n"], 5);
    assert_eq!(by["groups"][1]["n"], 5);
    let csv = app.export_csv(&token, &slug).await;
    assert_eq!(
        csv.lines().count(),
        11,
        "a header and the ten released rows"
    );
    assert_eq!(csv.lines().filter(|line| line.ends_with(",Red")).count(), 5);
}
