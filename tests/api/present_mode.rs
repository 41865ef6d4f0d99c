//! Present mode (issue 19): a switch that hides the estimates until the presenter reveals
//! them (kept in the URL; the estimates are then absent from the page), the interval as
//! large as the estimate, no caption about a table that is not there, and a warning when
//! the respondent link is a loopback address that phones cannot reach.

use serde_json::json;

use crate::common::{spawn_app, spawn_app_with, test_settings, TestApp};
use crate::workspace::{question_ids, signed_in, Browser};
use deniable::http::PublicUrl;

/// An open one-question survey with 20 responses: released at the consideration at 20
/// (k + 2 = 12 new ones), so estimates are shown.
async fn open_survey_with_responses(app: &TestApp, researcher: &mut Browser) -> String {
    let slug = researcher
        .create_draft("Live vote", "Have you ever cheated?")
        .await;
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);
    let id = question_ids(app, &slug).await[0];
    for answer in [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1] {
        app.submit_ok(&slug, json!({ id.to_string(): answer }))
            .await;
    }
    slug
}

#[tokio::test]
async fn the_switch_hides_the_estimates_until_revealed_and_the_interval_is_as_large_as_the_estimate(
) {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = open_survey_with_responses(&app, &mut researcher).await;

    let shown = researcher
        .get_html(&format!("/surveys/{slug}/present"))
        .await;
    assert!(shown.contains("data-field=\"estimate\""));
    assert!(shown.contains("id=\"hide-results\""));
    assert!(shown.contains("<input type=\"hidden\" name=\"hide\" value=\"1\">"));
    // Estimate and interval in paragraphs of the same class: the same size and weight.
    assert!(shown
        .contains("<p class=\"big range\"><span class=\"label\">95 % anytime interval:</span>"));
    assert!(
        !shown.contains("table"),
        "no table, and no caption pointing to one"
    );

    let hidden = researcher
        .get_html(&format!("/surveys/{slug}/present?confidence=0.95&hide=1"))
        .await;
    assert!(hidden.contains("id=\"results-hidden\""));
    assert!(hidden.contains("id=\"reveal\""));
    assert!(
        !hidden.contains("data-field=\"estimate\""),
        "not in the page at all"
    );
    assert!(!hidden.contains("data-field=\"anytime\""));
    assert!(hidden.contains("<span data-field=\"respondents\">20</span> responses"));
    // Revealing keeps the page's confidence level.
    let revealed = researcher
        .get_html(&format!("/surveys/{slug}/present?confidence=0.99"))
        .await;
    assert!(revealed.contains("99 % anytime interval"));
    assert!(revealed.contains("name=\"confidence\" value=\"0.99\""));
}

#[tokio::test]
async fn a_loopback_respondent_link_is_warned_about_and_a_public_one_is_not() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let slug = open_survey_with_responses(&app, &mut researcher).await;
    let page = researcher
        .get_html(&format!("/surveys/{slug}/present"))
        .await;
    assert!(
        page.contains("id=\"loopback-warning\""),
        "127.0.0.1 is this machine only"
    );
    assert!(page.contains("--public-url"));

    let mut settings = test_settings();
    settings.public_url = Some(PublicUrl::parse("https://surveys.example.org").unwrap());
    let public = spawn_app_with(settings).await;
    let mut researcher = signed_in(&public, "owner@example.org").await;
    let slug = open_survey_with_responses(&public, &mut researcher).await;
    let page = researcher
        .get_html(&format!("/surveys/{slug}/present"))
        .await;
    assert!(page.contains("https://surveys.example.org/s/"));
    assert!(!page.contains("loopback-warning"));
}
