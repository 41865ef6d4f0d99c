//! The researcher's workspace in the browser, page by page: builder, preview, opening,
//! live results (HTML and the JSON API with the session cookie), exports, tokens.

use crate::common::spawn_app;
use crate::workspace::{question_ids, signed_in};
use serde_json::{json, Value};

#[tokio::test]
async fn a_researcher_builds_a_draft_previews_it_opens_it_and_watches_results() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("Habits", "First?").await;
    for text in ["Second?", "Third?"] {
        let added = researcher
            .post_with_csrf(
                &format!("/surveys/{slug}/questions"),
                &[("text", text), ("epsilon", "1.0"), ("required", "on")],
            )
            .await;
        assert_eq!(added.status(), 303);
    }
    let ids = question_ids(&app, &slug);
    assert_eq!(ids.len(), 3);

    // Reorder: the third moves up, above the second.
    let moved = researcher
        .post_with_csrf(
            &format!("/surveys/{slug}/questions/{}/move", ids[2]),
            &[("direction", "up")],
        )
        .await;
    assert_eq!(moved.status(), 303);
    assert_eq!(question_ids(&app, &slug), [ids[0], ids[2], ids[1]]);

    // Edit the first question's ε: the builder shows what ε = 2 means.
    let edited = researcher
        .post_with_csrf(
            &format!("/surveys/{slug}/questions/{}", ids[0]),
            &[("text", "First, edited?"), ("epsilon", "2")],
        )
        .await;
    assert_eq!(edited.status(), 303);
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains("First, edited?"));
    assert!(builder.contains("88.1 %"), "p = e²/(1+e²) for ε = 2");
    assert!(builder.contains(">4.00</output>"), "total ε = 2 + 1 + 1");
    assert!(builder.contains(">3455</output>"), "±5 % at 95 % for ε = 1");

    // Delete the last question; an invalid ε is refused with a clear message.
    let deleted = researcher
        .post_with_csrf(&format!("/surveys/{slug}/questions/{}/delete", ids[1]), &[])
        .await;
    assert_eq!(deleted.status(), 303);
    assert_eq!(question_ids(&app, &slug), [ids[0], ids[2]]);
    let invalid = researcher
        .post_with_csrf(
            &format!("/surveys/{slug}/questions/{}", ids[0]),
            &[("text", "Bad ε?"), ("epsilon", "50")],
        )
        .await;
    assert_eq!(invalid.status(), 400);
    assert!(invalid
        .text()
        .await
        .unwrap()
        .contains("epsilon must be between"));

    // Preview: the respondent's form, nothing can be sent.
    let preview = researcher
        .get_html(&format!("/surveys/{slug}/preview"))
        .await;
    assert!(preview.contains("Preview: this is the form as respondents will"));
    assert!(preview.contains("data-accepting=\"false\""));

    // Open, after the confirmation page.
    let confirm = researcher.get_html(&format!("/surveys/{slug}/open")).await;
    assert!(confirm.contains("is frozen"));
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);
    let frozen = researcher
        .post_with_csrf(
            &format!("/surveys/{slug}/questions/{}", ids[0]),
            &[("text", "Too late?"), ("epsilon", "0.5")],
        )
        .await;
    assert_eq!(frozen.status(), 409);

    for answer in [1, 0, 1, 1] {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): answer, ids[2].to_string(): 1 - answer }),
        )
        .await;
    }
    // Fewer than min_cell (10) responses: the page shows none of them yet.
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results?confidence=0.99"))
        .await;
    assert!(results.contains("<td data-field=\"n\">0</td>"));
    for answer in [0, 1, 0, 1, 0, 1] {
        app.submit_ok(
            &slug,
            json!({ ids[0].to_string(): answer, ids[2].to_string(): 1 - answer }),
        )
        .await;
    }
    let results = researcher
        .get_html(&format!("/surveys/{slug}/results?confidence=0.99"))
        .await;
    assert!(results.contains("<td data-field=\"n\">10</td>"));
    assert!(results.contains("option value=\"0.99\" selected"));
    assert!(results.contains("exact for this sample size"));
    assert!(results.contains("stays valid however often you look"));
    assert!(results.contains("<svg id=\"estimates-chart\""));
    assert!(results.contains(&format!("/s/{slug}")));

    // The JSON API works with the session cookie too.
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/results"));
    let json = researcher.send(request).await;
    assert_eq!(json.status(), 200);
    let json: Value = json.json().await.unwrap();
    assert_eq!(json["questions"][0]["n"], 10);
    let request = researcher.request("GET", &format!("/api/surveys/{slug}/export.csv"));
    let csv = researcher.send(request).await.text().await.unwrap();
    assert_eq!(csv.lines().count(), 1 + 10 * 2);

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
    assert!(list.contains("<td>10</td>"), "responses so far");
}

#[tokio::test]
async fn a_draft_is_deleted_only_with_its_confirmation_and_keeps_one_question() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = researcher.create_draft("To delete", "Only question?").await;
    let ids = question_ids(&app, &slug);
    let last = researcher
        .post_with_csrf(&format!("/surveys/{slug}/questions/{}/delete", ids[0]), &[])
        .await;
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
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("invitation,link"));
    let rows: Vec<(String, String)> = lines
        .map(|line| {
            let (code, link) = line.split_once(',').unwrap();
            (code.to_owned(), link.to_owned())
        })
        .collect();
    assert_eq!(rows.len(), 3);

    let ids = question_ids(&app, &slug);
    let submit = |invitation: Option<&str>| {
        let mut body = json!({ "answers": { ids[0].to_string(): 1 } });
        if let Some(code) = invitation {
            body["invitation"] = json!(code);
        }
        app.client
            .post(app.url(&format!("/api/surveys/{slug}/responses")))
            .json(&body)
            .send()
    };
    assert_eq!(submit(None).await.unwrap().status(), 403, "no invitation");
    for (code, link) in &rows {
        let expected = app.url(&format!("/s/{slug}#invitation={code}"));
        assert_eq!(link, &expected, "the link is built from the request's host");
        assert_eq!(submit(Some(code)).await.unwrap().status(), 201);
        assert_eq!(submit(Some(code)).await.unwrap().status(), 403, "used once");
    }
    let stored: i64 = app
        .inspect()
        .query_row("SELECT count(*) FROM stored_responses", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(stored, 3);
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
