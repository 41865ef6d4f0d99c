//! The researcher's workspace in the browser, page by page: builder, preview, opening,
//! live results (HTML and the JSON API with the session cookie), exports, tokens.

use crate::common::{parse_invitations, spawn_app, TestApp};
use crate::workspace::{form_fields, question_ids, signed_in, Browser};
use randomized_response::{Confidence, Design, NumberDesign, PrivacyLevel};
use serde_json::{json, Value};

#[tokio::test]
async fn a_researcher_builds_a_draft_previews_it_opens_it_and_watches_results() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Habits", "First?").await;
    for text in ["Second?", "Third?"] {
        let added = researcher
            .save_builder(
                &slug,
                &[
                    ("new-text", text),
                    ("new-epsilon", "1.0"),
                    ("action", "add"),
                ],
            )
            .await;
        assert_eq!(added.status(), 303);
    }
    let ids = question_ids(&app, &slug).await;
    assert_eq!(ids.len(), 3);

    // Reorder: the third moves up, above the second.
    let up = format!("up-{}", ids[2]);
    let moved = researcher.save_builder(&slug, &[("action", &up)]).await;
    assert_eq!(moved.status(), 303);
    assert_eq!(question_ids(&app, &slug).await, [ids[0], ids[2], ids[1]]);

    // Edit the first question's ε: the builder shows what ε = 2 means.
    let edited = researcher
        .save_builder(&slug, &[("q0-text", "First, edited?"), ("q0-epsilon", "2")])
        .await;
    assert_eq!(edited.status(), 303);
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains("First, edited?"));
    assert!(builder.contains("88.1 %"), "p = e²/(1+e²) for ε = 2");
    assert!(builder.contains(">4.00</output>"), "total ε = 2 + 1 + 1");
    assert!(builder.contains(">3455</output>"), "±5 % at 95 % for ε = 1");

    // Delete the last question; an invalid ε is refused with a clear message.
    let delete = format!("delete-{}", ids[1]);
    let deleted = researcher.save_builder(&slug, &[("action", &delete)]).await;
    assert_eq!(deleted.status(), 303);
    assert_eq!(question_ids(&app, &slug).await, [ids[0], ids[2]]);
    let invalid = researcher
        .save_builder(&slug, &[("q0-text", "Bad ε?"), ("q0-epsilon", "50")])
        .await;
    assert_eq!(invalid.status(), 400);
    assert!(invalid
        .text()
        .await
        .unwrap()
        .contains("Privacy level ε must be between 0.01 and 20; you entered 50."));

    // Preview: the respondent's form, nothing can be sent.
    let preview = researcher
        .get_html(&format!("/surveys/{slug}/preview"))
        .await;
    assert!(preview.contains("Preview: this is the form as respondents will"));
    assert!(preview.contains("data-accepting=\"false\""));

    // Open, after the confirmation page; the builder's form from before is then refused.
    let edit = format!("/surveys/{slug}/edit");
    let mut stale = form_fields(&researcher.get_html(&edit).await, &edit);
    let confirm = researcher.get_html(&format!("/surveys/{slug}/open")).await;
    assert!(confirm.contains("is frozen"));
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);
    for (name, value) in &mut stale {
        if name == "q0-text" {
            *value = "Too late?".to_owned();
        }
    }
    let stale: Vec<(&str, &str)> = stale
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let frozen = researcher.post_form(&edit, &stale).await;
    assert_eq!(frozen.status(), 409);

    for answer in [1, 0, 1, 1] {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): answer, ids[2].to_string(): 1 - answer }),
        )
        .await;
    }
    // Fewer than a release needs (k + 2 = 12 new responses while open, k = 10): the page
    // shows none of them yet, and says why.
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results?confidence=0.99"))
        .await;
    assert!(results.contains("data-field=\"n\">0</span>"));
    assert!(results.contains("id=\"first-release\""), "the sentence why");
    for answer in [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1] {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): answer, ids[2].to_string(): 1 - answer }),
        )
        .await;
    }
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results?confidence=0.99"))
        .await;
    assert!(results.contains("data-field=\"n\">20</span>"));
    assert!(!results.contains("id=\"first-release\""));
    assert!(results.contains("option value=\"0.99\" selected"));
    assert!(results.contains("exact for a sample size fixed in advance"));
    assert!(results.contains("Watched live: the anytime interval is primary"));
    assert!(results.contains("Anytime interval (primary)"));
    assert!(results.contains("stays valid however often you look"));
    assert!(results.contains("<svg class=\"track\""));
    assert!(results.contains(&format!("/s/{slug}")));

    // The JSON API works with the session cookie too.
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/results"));
    let json = researcher.send(request).await;
    assert_eq!(json.status(), 200);
    let json: Value = json.json().await.unwrap();
    assert_eq!(json["questions"][0]["n"], 20);
    // The export waits for the close, like every survey's; the page says so.
    assert!(results.contains("after close"));
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/export.csv"));
    assert_eq!(researcher.send(request).await.status(), 409);

    let present = researcher
        .get_html(&format!("/surveys/{slug}/present"))
        .await;
    assert!(present.contains("<svg") && present.contains("QR code of the survey link"));

    let closed = researcher
        .post_with_csrf(&format!("/surveys/{slug}/close"), &[])
        .await;
    assert_eq!(closed.status(), 303);
    let list = researcher.get_html("/surveys").await;
    assert!(list.contains("status-closed"));
    assert!(
        list.contains(r#"<td data-label="Responses">20</td>"#),
        "responses so far"
    );
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/export.csv"));
    let csv = researcher.send(request).await.text().await.unwrap();
    assert_eq!(csv.lines().count(), 1 + 20 * 2);
}

#[tokio::test]
async fn a_draft_is_deleted_only_with_its_confirmation_and_keeps_one_question() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("To delete", "Only question?").await;
    let ids = question_ids(&app, &slug).await;
    let delete = format!("delete-{}", ids[0]);
    let last = researcher.save_builder(&slug, &[("action", &delete)]).await;
    assert_eq!(last.status(), 409);
    let unconfirmed = researcher
        .post_with_csrf(&format!("/surveys/{slug}/delete"), &[])
        .await;
    assert_eq!(unconfirmed.status(), 400);
    let mistyped = researcher
        .post_with_csrf(&format!("/surveys/{slug}/delete"), &[("confirm", "on")])
        .await;
    assert_eq!(mistyped.status(), 400, "the survey's name must be typed");
    let deleted = researcher
        .post_with_csrf(&format!("/surveys/{slug}/delete"), &[("confirm", &slug)])
        .await;
    assert_eq!(deleted.status(), 303);
    assert_eq!(
        researcher
            .get(&format!("/surveys/{slug}/edit"))
            .await
            .status(),
        404
    );
}

#[tokio::test]
async fn an_api_token_is_shown_once_works_as_bearer_and_can_be_revoked() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Tokens", "Question?").await;
    let created = researcher.post_with_csrf("/account/tokens", &[]).await;
    assert_eq!(created.status(), 200);
    let html = created.text().await.unwrap();
    let start = html.find("<code id=\"new-token\">").unwrap() + "<code id=\"new-token\">".len();
    let token = html[start..start + 43].to_owned();
    let results = app
        .owner_get(&token, &format!("/api/surveys/{slug}/results"))
        .await;
    assert_eq!(results.status(), 200);

    let account = researcher.get_html("/account").await;
    assert!(!account.contains(&token), "shown once only");
    let revoke_start = account.find("/account/tokens/").unwrap();
    let revoke_path =
        &account[revoke_start..revoke_start + "/account/tokens/".len() + 64 + "/revoke".len()];
    let revoked = researcher.post_with_csrf(revoke_path, &[]).await;
    assert_eq!(revoked.status(), 303);
    let after = app
        .owner_get(&token, &format!("/api/surveys/{slug}/results"))
        .await;
    assert_eq!(after.status(), 401, "a revoked token is no credential");
}

#[tokio::test]
async fn a_draft_that_requires_invitations_downloads_single_use_links_from_its_results_page() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Invited only", "Asked?").await;
    let saved = researcher
        .post_with_csrf(
            &format!("/surveys/{slug}/edit"),
            &[
                ("title", "Invited only"),
                ("description", "For tests."),
                ("planned_respondents", "100"),
                ("requires_invitation", "on"),
            ],
        )
        .await;
    assert_eq!(saved.status(), 303);
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains("Require invitations (one response per invitation link)"));
    assert!(builder.contains("name=\"requires_invitation\" type=\"checkbox\" checked"));
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);

    let results = researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await;
    let action = format!("action=\"/surveys/{slug}/invitations\"");
    assert!(
        results.contains(&action),
        "the results page offers invitations"
    );
    let download = researcher
        .post_with_csrf(&format!("/surveys/{slug}/invitations"), &[("count", "3")])
        .await;
    assert_eq!(download.status(), 200);
    assert!(download.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    assert_eq!(
        download.headers()["content-disposition"],
        format!("attachment; filename=\"{slug}-invitations.csv\"").as_str()
    );
    assert_eq!(download.headers()["cache-control"], "no-store");
    let csv = download.text().await.unwrap();
    let invitations = parse_invitations(&csv, &slug);
    assert_eq!(invitations.codes.len(), 3);
    // The page shows the one fingerprint that every link carries, and the redemptions
    // released so far.
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await;
    assert!(
        results.contains(&invitations.fingerprint),
        "the results page shows the key's fingerprint"
    );
    assert!(results.contains("Invitations redeemed: <strong>0</strong>"));

    let ids = question_ids(&app, &slug).await;
    let answers = json!({ ids[0].to_string(): 1 });
    let refused = app
        .submit_with_token(&slug, answers.clone(), None, None)
        .await;
    assert_eq!(refused.status(), 403, "no token");
    for (code, link) in invitations.codes.iter().zip(&invitations.links) {
        let expected = app.url(&format!(
            "/s/{slug}#invitation={code}&key={}",
            invitations.fingerprint
        ));
        assert_eq!(link, &expected, "the link is built from the request's host");
        let bought = app.token_for(&slug, code).await;
        let spend = || app.submit_with_token(&slug, answers.clone(), Some(&bought), None);
        assert_eq!(spend().await.status(), 201);
        assert_eq!(spend().await.status(), 409, "spent once");
    }
    let stored: i64 = app.stored_value("SELECT count(*) FROM all_responses").await;
    assert_eq!(stored, 3);
    // The surveys list does not count them one by one either: it counts as of the last
    // consideration of releases, none before 10 (min_cell) responses.
    let list = researcher.get_html("/surveys").await;
    assert!(
        list.contains(r#"<td data-label="Responses">0</td>"#),
        "{list}"
    );
    assert!(researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await
        .contains("Invitations redeemed: <strong>0</strong>"));
}

#[tokio::test]
async fn a_survey_open_to_anyone_offers_no_invitations_and_refuses_to_make_them() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Open to all", "Asked?").await;
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await;
    assert!(!results.contains(&format!("/surveys/{slug}/invitations")));
    let refused = researcher
        .post_with_csrf(&format!("/surveys/{slug}/invitations"), &[("count", "3")])
        .await;
    assert_eq!(refused.status(), 409);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("without `requires_invitation`"));
}

/// Every input of a builder form's type and design, as a browser without the page's script
/// sends them (the inputs of the other designs included), with `chosen` in place.
/// A question's fields in the builder's one form (`{prefix}-text`, `{prefix}-epsilon`, …),
/// and the button pressed.
fn prefixed(
    prefix: &str,
    text: &str,
    design: &[(&str, &str)],
    action: &str,
) -> Vec<(String, String)> {
    let mut form = vec![
        (format!("{prefix}-text"), text.to_owned()),
        ("action".to_owned(), action.to_owned()),
    ];
    form.extend(
        design
            .iter()
            .map(|(name, value)| (format!("{prefix}-{name}"), (*value).to_owned())),
    );
    form
}

fn design_inputs<'a>(chosen: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut inputs = vec![
        ("type", "yes_no"),
        ("design", "mirrored"),
        ("epsilon", "1"),
        ("answer_truthfully", "0.7"),
        ("forced_yes", "0.15"),
        ("forced_no", "0.15"),
        ("innocuous_yes", "0.5"),
        ("options", ""),
        ("min", "0"),
        ("max", "10"),
    ];
    for (name, value) in chosen {
        let input = inputs
            .iter_mut()
            .find(|(input, _)| input == name)
            .unwrap_or_else(|| panic!("no input {name}"));
        input.1 = value;
    }
    inputs
}

/// One question of each type and yes/no design, as the builder's forms take them.
const EVERY_TYPE: [(&str, &[(&str, &str)]); 6] = [
    (
        "How often do you gamble?",
        &[
            ("type", "choice"),
            ("epsilon", "1.5"),
            ("options", "Never\r\nMonthly\r\nWeekly\r\nDaily\r\n"),
        ],
    ),
    (
        "Have you used a study drug?",
        &[
            ("design", "forced_response"),
            ("answer_truthfully", "0.67"),
            ("forced_yes", "0.165"),
            ("forced_no", "0.165"),
        ],
    ),
    (
        "Have you cheated on an exam?",
        &[
            ("design", "unrelated_question"),
            ("answer_truthfully", "0.7"),
            ("innocuous_yes", "0.5"),
        ],
    ),
    (
        "Cheating is common here.",
        &[
            ("type", "ordinal"),
            ("epsilon", "2"),
            (
                "options",
                "Strongly disagree\nDisagree\nNeutral\nAgree\nStrongly agree",
            ),
        ],
    ),
    (
        "How many drinks did you have last week?",
        &[
            ("type", "number"),
            ("epsilon", "1"),
            ("min", "0"),
            ("max", "30"),
        ],
    ),
    (
        "Have you ever shoplifted?",
        &[("design", "mirrored"), ("epsilon", "1.1")],
    ),
];

/// A draft with one question of each type and design, built through the surveys page and
/// the builder's add form; its slug.
async fn build_every_type(researcher: &mut Browser) -> String {
    let (first, chosen) = EVERY_TYPE[0];
    let mut form = vec![
        ("title", "Campus life"),
        ("description", "Every type."),
        ("question", first),
    ];
    form.extend(design_inputs(chosen));
    let created = researcher.post_with_csrf("/surveys", &form).await;
    assert_eq!(created.status(), 303, "{}", created.text().await.unwrap());
    let location = created.headers()["location"].to_str().unwrap().to_owned();
    let slug = location
        .strip_prefix("/surveys/")
        .and_then(|rest| rest.strip_suffix("/edit"))
        .unwrap()
        .to_owned();
    for (text, chosen) in &EVERY_TYPE[1..] {
        let form = prefixed("new", text, &design_inputs(chosen), "add");
        let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let added = researcher.save_builder(&slug, &form).await;
        assert_eq!(
            added.status(),
            303,
            "{text}: {}",
            added.text().await.unwrap()
        );
    }
    slug
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

#[tokio::test]
async fn a_researcher_builds_a_survey_of_every_type_and_design_through_the_builders_forms() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = build_every_type(&mut researcher).await;

    // The builder shows each saved design as chosen, with what it means.
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains("<option value=\"forced_response\" selected>"));
    assert!(builder.contains("<option value=\"number\" data-design=\"two_ends\" selected>"));
    assert!(
        builder.contains(">83.5 %</output>"),
        "forced response 0.67/0.165/0.165 reports the truth 83.5 % of the time"
    );
    assert!(
        builder.contains("otherwise it answers Yes (16.5 %) or No (16.5 %) whatever your answer"),
        "the respondent's own explanation"
    );
    assert!(builder.contains("of the range from 0 to 30, for the mean"));
    assert!(builder.contains("Never\nMonthly\nWeekly\nDaily</textarea>"));
    assert!(!builder.contains("Required"), "every question is answered");

    // A saved question changes type: the mirrored yes/no question becomes a number.
    let ids = question_ids(&app, &slug).await;
    let form = prefixed(
        "q5",
        "How many times have you shoplifted?",
        &design_inputs(&[
            ("type", "number"),
            ("epsilon", "0.5"),
            ("min", "0"),
            ("max", "5"),
        ]),
        "save",
    );
    assert_eq!(ids.len(), 6);
    let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let changed = researcher.save_builder(&slug, &form).await;
    assert_eq!(changed.status(), 303);

    // Opened, the public definition holds every type and design as typed.
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);
    let definition = public_definition(&app, &slug).await;
    let questions = definition["questions"].as_array().unwrap();
    assert_eq!(questions.len(), EVERY_TYPE.len());
    let kinds: Vec<(&str, &str)> = questions
        .iter()
        .map(|q| (q["type"].as_str().unwrap(), q["design"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("choice", "k_ary"),
            ("yes_no", "forced_response"),
            ("yes_no", "unrelated_question"),
            ("ordinal", "k_ary"),
            ("number", "two_ends"),
            ("number", "two_ends"),
        ]
    );
    assert_eq!(
        questions[0]["options"],
        json!(["Never", "Monthly", "Weekly", "Daily"]),
        "one option per line, blank lines dropped"
    );
    assert_eq!(questions[1]["forced_no"], json!(0.165));
    assert_eq!(
        questions[1].get("min"),
        None,
        "the inputs of other designs are ignored"
    );
    assert_eq!(questions[3]["options"].as_array().unwrap().len(), 5);
    assert_eq!(
        (questions[4]["min"].clone(), questions[4]["max"].clone()),
        (json!(0.0), json!(30.0))
    );
    let last = &questions[5];
    assert_eq!(last["text"], "How many times have you shoplifted?");
    assert_eq!(last["max"], json!(5.0));
    assert_eq!(last["epsilon"], json!(0.5));
}

/// The `<input …>` or `<textarea …>…</textarea>` whose id is `id`.
fn element<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id}"));
    let start = html[..start].rfind('<').unwrap();
    let end = start + html[start..].find('>').unwrap();
    &html[start..=end]
}

#[tokio::test]
async fn an_infinite_epsilon_design_is_refused_with_its_reason_and_everything_typed_is_kept() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Refusals", "First?").await;

    // Forced response without a forced "no": a reported No would prove a true No.
    let form = prefixed(
        "new",
        "Have you driven after drinking?",
        &design_inputs(&[
            ("design", "forced_response"),
            ("answer_truthfully", "0.8"),
            ("forced_yes", "0.2"),
            ("forced_no", "0"),
        ]),
        "add",
    );
    let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let refused = researcher.save_builder(&slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    let alert = element(&page, "error-new");
    assert!(alert.contains("role=\"alert\""), "{alert}");
    assert!(page.contains("a report of No would prove the true answer is No"));
    assert!(page.contains(">Have you driven after drinking?</textarea>"));
    assert!(page.contains("<option value=\"forced_response\" selected>"));
    for (id, value) in [
        ("new-answer_truthfully", "0.8"),
        ("new-forced_yes", "0.2"),
        ("new-forced_no", "0"),
    ] {
        assert!(
            element(&page, id).contains(&format!("value=\"{value}\"")),
            "{id} keeps {value}"
        );
    }
    assert_eq!(
        question_ids(&app, &slug).await.len(),
        1,
        "nothing was added"
    );

    // The same on a saved question: an unrelated question that is always Yes.
    let form = prefixed(
        "q0",
        "First, changed?",
        &design_inputs(&[
            ("design", "unrelated_question"),
            ("answer_truthfully", "0.6"),
            ("innocuous_yes", "1"),
        ]),
        "save",
    );
    let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let refused = researcher.save_builder(&slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    // The builder's one form names a question's fields by its place on the page.
    assert!(element(&page, "error-q0").contains("role=\"alert\""));
    assert!(page.contains("a report of No would prove the true answer is No"));
    assert!(page.contains(">First, changed?</textarea>"));
    assert!(element(&page, "q0-innocuous_yes").contains("value=\"1\""));
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(
        builder.contains(">First?</textarea>"),
        "the saved question is unchanged"
    );

    // And a new survey whose first question has one option only keeps its title.
    let mut form = vec![
        ("title", "Kept title"),
        ("description", ""),
        ("question", "Which one?"),
    ];
    form.extend(design_inputs(&[("type", "choice"), ("options", "Only")]));
    let refused = researcher.post_with_csrf("/surveys", &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    assert!(page.contains("between 2 and 20 options"), "{page}");
    assert!(element(&page, "new-title").contains("value=\"Kept title\""));
    assert!(page.contains(">Only</textarea>"));
}

/// A figures query, the crate's design it describes (for a number, the matrix of its
/// ends), and the crate's respondents for ±5 % and ±10 %.
type FiguresCase = (Vec<(&'static str, &'static str)>, Design, [u64; 2]);

/// What an observer's belief in the answer the form names (Yes, the first option, a
/// number's upper end), 10 % beforehand and the rest spread evenly, becomes once that answer
/// is reported (Bayes' rule with the crate's realized matrix).
fn observer_bound(design: &Design) -> f64 {
    let answers = design.answers();
    let answer = if answers == 2 { Design::YES } else { 0 };
    let prior: Vec<f64> = (0..answers)
        .map(|t| {
            if t == answer {
                0.1
            } else {
                0.9 / (answers - 1) as f64
            }
        })
        .collect();
    design.posterior(&prior, answer).unwrap().as_slice()[answer]
}

#[tokio::test]
async fn the_figures_route_gives_the_crates_numbers_for_every_design() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let confidence = Confidence::new(0.95).unwrap();
    let level = |epsilon: f64| PrivacyLevel::new(epsilon).unwrap();
    let shares = |design: &Design, options: &[usize], fraction: f64| {
        options
            .iter()
            .map(|&option| {
                design
                    .option_estimator(option)
                    .unwrap()
                    .respondents_needed(fraction, confidence)
                    .unwrap()
            })
            .max()
            .unwrap()
    };
    let number = NumberDesign::new(0.0, 30.0, level(1.0)).unwrap();
    let cases: Vec<FiguresCase> = vec![
        {
            let design = Design::mirrored(level(1.1));
            let needed = [0.05, 0.10].map(|f| shares(&design, &[Design::YES], f));
            (vec![("epsilon", "1.1")], design, needed)
        },
        {
            let design = Design::forced_response(0.67, 0.165, 0.165).unwrap();
            let needed = [0.05, 0.10].map(|f| shares(&design, &[Design::YES], f));
            (
                vec![
                    ("design", "forced_response"),
                    ("answer_truthfully", "0.67"),
                    ("forced_yes", "0.165"),
                    ("forced_no", "0.165"),
                ],
                design,
                needed,
            )
        },
        {
            // Asymmetric: the form's figure is the belief after a Yes (20 %), not after a No
            // from a 10 % prior on No (40 %).
            let design = Design::forced_response(0.5, 0.4, 0.1).unwrap();
            let needed = [0.05, 0.10].map(|f| shares(&design, &[Design::YES], f));
            (
                vec![
                    ("design", "forced_response"),
                    ("answer_truthfully", "0.5"),
                    ("forced_yes", "0.4"),
                    ("forced_no", "0.1"),
                ],
                design,
                needed,
            )
        },
        {
            let design = Design::unrelated_question(0.7, 0.5).unwrap();
            let needed = [0.05, 0.10].map(|f| shares(&design, &[Design::YES], f));
            (
                vec![
                    ("design", "unrelated_question"),
                    ("answer_truthfully", "0.7"),
                    ("innocuous_yes", "0.5"),
                ],
                design,
                needed,
            )
        },
        {
            let design = Design::k_ary(4, level(1.5)).unwrap();
            let needed = [0.05, 0.10].map(|f| shares(&design, &[0, 1, 2, 3], f));
            (
                vec![
                    ("type", "choice"),
                    ("epsilon", "1.5"),
                    ("options", "a\nb\nc\nd"),
                ],
                design,
                needed,
            )
        },
        {
            let design = Design::k_ary(5, level(2.0)).unwrap();
            let needed = [0.05, 0.10].map(|f| shares(&design, &[0, 1, 2, 3, 4], f));
            (
                vec![
                    ("type", "ordinal"),
                    ("epsilon", "2"),
                    ("options", "1\n2\n3\n4\n5"),
                ],
                design,
                needed,
            )
        },
        {
            let mean = number.mean_estimator();
            let needed =
                [0.05, 0.10].map(|f| mean.respondents_needed(f * 30.0, confidence).unwrap());
            (
                vec![
                    ("type", "number"),
                    ("epsilon", "1"),
                    ("min", "0"),
                    ("max", "30"),
                ],
                number.ends().clone(),
                needed,
            )
        },
    ];
    for (query, design, [five, ten]) in cases {
        let request = researcher.request("GET", "/designs/figures").query(&query);
        let response = researcher.send(request).await;
        assert_eq!(response.status(), 200, "{query:?}");
        assert_eq!(response.headers()["cache-control"], "no-store");
        let figures: Value = response.json().await.unwrap();
        assert_eq!(figures["epsilon"], json!(design.epsilon()), "{query:?}");
        assert_eq!(
            figures["truth_probability"],
            json!(design.truth_probability()),
            "{query:?}"
        );
        assert_eq!(figures["respondents_needed_5"], json!(five), "{query:?}");
        assert_eq!(figures["respondents_needed_10"], json!(ten), "{query:?}");
        let posterior = figures["posterior"].as_f64().unwrap();
        assert!(
            (posterior - observer_bound(&design)).abs() < 1e-12,
            "{query:?}: {posterior}"
        );
        assert!(!figures["summary"].as_str().unwrap().is_empty());
    }
    // The mirrored planner is the crate's closed form, N ≥ ln(2/β) / (2 α² r²).
    let request = researcher
        .request("GET", "/designs/figures")
        .query(&[("epsilon", "1")]);
    let figures: Value = researcher.send(request).await.json().await.unwrap();
    assert_eq!(
        figures["respondents_needed_5"],
        json!(randomized_response::respondents_needed(0.05, level(1.0), confidence).unwrap())
    );

    // An infinite ε is refused with what a report would prove.
    let request = researcher.request("GET", "/designs/figures").query(&[
        ("design", "forced_response"),
        ("answer_truthfully", "0.8"),
        ("forced_yes", "0.2"),
        ("forced_no", "0"),
    ]);
    let refused = researcher.send(request).await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_design");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("a report of No would prove the true answer is No"));

    // An ε out of range, typed in the builder, reads as it will once saved: plain words in
    // the researcher's language, not the API's field path.
    for (language, sentence) in [
        (
            "en",
            "Privacy level ε must be between 0.01 and 20; you entered 50.",
        ),
        ("de-DE,de;q=0.9", "Die Privatsphäre-Stufe ε muss zwischen"),
    ] {
        let request = researcher
            .request("GET", "/designs/figures")
            .header("Accept-Language", language)
            .query(&[("epsilon", "50")]);
        let refused = researcher.send(request).await;
        assert_eq!(refused.status(), 400);
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_epsilon");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(sentence), "{language}: {message}");
        assert!(message.contains("50"), "{language}: {message}");
        assert!(
            !message.contains("question.epsilon"),
            "{language}: {message}"
        );
    }

    // Only for the signed in.
    let stranger = app
        .client
        .get(app.url("/designs/figures?epsilon=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 401);
}

/// The part of the results page about one question.
fn result_card(html: &str, id: i64) -> &str {
    let start = html
        .find(&format!("id=\"result-{id}\""))
        .unwrap_or_else(|| panic!("no card for question {id}"));
    let end = html[start + 1..]
        .find("class=\"card result\"")
        .map_or(html.len(), |end| start + 1 + end);
    &html[start..end]
}

fn percent(fraction: &Value) -> String {
    format!("{:.1} %", fraction.as_f64().unwrap() * 100.0)
}

#[tokio::test]
async fn the_results_page_shows_every_options_share_and_the_means_with_their_intervals() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = build_every_type(&mut researcher).await;
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);
    let ids = question_ids(&app, &slug).await;
    for respondent in 0..20u64 {
        let answers: serde_json::Map<String, Value> = ids
            .iter()
            .zip([4, 2, 2, 5, 2, 2])
            .map(|(id, reports)| (id.to_string(), json!(respondent % reports)))
            .collect();
        app.submit_ok(&slug, Value::Object(answers)).await;
    }
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/results"));
    let results: Value = researcher.send(request).await.json().await.unwrap();
    let page = researcher
        .get_html(&format!("/surveys/{slug}/results"))
        .await;
    assert!(page.contains(
        "Every response answers every question, so each estimate covers everyone who has \
         responded."
    ));

    // Choice: each option's reports, estimate and three intervals, in its row.
    let choice = result_card(&page, ids[0]);
    assert!(choice.contains("data-field=\"n\">20</span>"));
    for (index, option) in results["questions"][0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let start = choice
            .find(&format!("<tr data-option=\"{index}\">"))
            .unwrap();
        let row = &choice[start..start + choice[start..].find("</tr>").unwrap()];
        let label = option["label"].as_str().unwrap();
        assert!(
            row.contains(&format!("<th scope=\"row\">{label}</th>")),
            "{row}"
        );
        assert!(row.contains(&format!(
            "data-field=\"reported\">{}</td>",
            option["reported"]
        )));
        assert!(row.contains(&format!(
            "data-field=\"estimate\">{}</td>",
            percent(&option["estimate_clipped"])
        )));
        for kind in ["chernoff", "exact", "anytime"] {
            let bounds = &option["intervals"][kind];
            assert!(
                row.contains(&format!(
                    "data-field=\"{kind}\">{} to {}</td>",
                    percent(&bounds["low"]),
                    percent(&bounds["high"])
                )),
                "{kind}: {row}"
            );
        }
        // Its bar on the chart.
        assert!(choice.contains(&format!("<li class=\"bar-row\" data-option=\"{index}\">")));
    }

    // Ordinal: the options and the mean level on 1…5.
    let ordinal = result_card(&page, ids[3]);
    let mean = &results["questions"][3]["mean"];
    assert!(ordinal.contains("Mean level (1 = Strongly disagree … 5 = Strongly agree)"));
    assert!(ordinal.contains(&format!(
        "data-field=\"estimate\">{:.2}</td>",
        mean["estimate_clipped"].as_f64().unwrap()
    )));
    assert!(ordinal.contains("data-min=\"1\" data-max=\"5\""));
    assert!(ordinal.contains("<tr data-option=\"4\">"));

    // Number: the mean on its [min, max] scale, with its intervals.
    let number = result_card(&page, ids[4]);
    let mean = &results["questions"][4]["mean"];
    let chernoff = &mean["intervals"]["chernoff"];
    assert!(number.contains("Mean (from 0 to 30)"));
    assert!(number.contains(&format!(
        "data-field=\"chernoff\">{:.1} to {:.1}</td>",
        chernoff["low"].as_f64().unwrap(),
        chernoff["high"].as_f64().unwrap()
    )));
    assert!(number.contains("data-min=\"0\" data-max=\"30\""));
    assert!(!number.contains("data-option"), "a number has no options");

    // Yes/no keeps its share of "yes".
    let forced = result_card(&page, ids[1]);
    assert!(forced.contains("Yes/no, forced response"));
    assert!(forced.contains(&format!(
        "data-field=\"estimate\">{}</td>",
        percent(&results["questions"][1]["estimate_clipped"])
    )));

    // The planner sizes every type; present mode shows the means too.
    assert!(page.contains(&format!(
        "<strong id=\"needed-5\">{}</strong>",
        results["respondents_needed_for_5_percent"]
    )));
    let present = researcher
        .get_html(&format!("/surveys/{slug}/present"))
        .await;
    assert!(present.contains("Mean (from 0 to 30)"));
    assert!(present.contains("<li class=\"bar-row\" data-option=\"3\">"));
}

#[tokio::test]
async fn the_figures_route_sizes_the_primary_interval_and_names_it_beside_chernoffs_count() {
    // Issue 32: the builder's count was Chernoff's without saying so.
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let mut researcher = Browser::new(&app);
    researcher
        .try_sign_in("owner@example.org", crate::workspace::PASSWORD)
        .await;
    let confidence = Confidence::new(0.95).unwrap();
    let yes = Design::mirrored(PrivacyLevel::new(1.0).unwrap())
        .option_estimator(Design::YES)
        .unwrap();
    let chernoff = [0.05, 0.10].map(|f| yes.respondents_needed(f, confidence).unwrap());
    let anytime = [0.05, 0.10].map(|f| yes.anytime_respondents_needed(f, confidence).unwrap());
    let exact = [0.05, 0.10].map(|f| {
        yes.exact_respondents_needed(f, confidence)
            .unwrap()
            .unwrap()
    });
    for (interval, primary) in [
        (None, anytime),
        (Some("anytime"), anytime),
        (Some("exact"), exact),
    ] {
        let mut query = vec![("epsilon", "1")];
        query.extend(interval.map(|interval| ("interval", interval)));
        let request = researcher.request("GET", "/designs/figures").query(&query);
        let figures: Value = researcher.send(request).await.json().await.unwrap();
        let planning = &figures["planning"];
        assert_eq!(
            planning,
            &json!({
                "interval": interval.unwrap_or("anytime"),
                "for_5_points": primary[0],
                "for_10_points": primary[1],
                "chernoff_for_5_points": chernoff[0],
                "chernoff_for_10_points": chernoff[1],
            }),
            "{query:?}"
        );
        // The old field stays Chernoff's; the page shows the primary count first.
        assert_eq!(figures["respondents_needed_5"], json!(chernoff[0]));
        assert_eq!(
            figures["display"]["respondents_needed_5"],
            json!(primary[0].to_string())
        );
        assert_eq!(
            figures["display"]["chernoff_needed_5"],
            json!(chernoff[0].to_string())
        );
    }
    // The builder of a survey fixed in advance names the exact interval, Chernoff beside it.
    let created = app
        .create_survey(
            &token,
            &json!({"title": "t", "target_responses": 500,
                    "questions": [{"text": "q", "epsilon": 1.0}]}),
        )
        .await;
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(
        page.contains("with the exact interval (fixed in advance)"),
        "the builder names the interval"
    );
    assert!(page.contains(&format!("data-figure=\"needed-5\">{}</output>", exact[0])));
    assert!(page.contains(&format!(
        "data-figure=\"chernoff-5\">{}</output>",
        chernoff[0]
    )));
    assert!(page.contains("data-design-input=\"interval\" value=\"exact\""));
}
