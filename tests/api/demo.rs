//! The demo is visible: the first researcher account, made with the one-time setup link or
//! with `deniable researcher add`, adopts the demo survey and sees it with its results;
//! later accounts do not.

use std::process::{Command, Stdio};

use deniable::services::accounts;
use serde_json::json;

use crate::common::spawn_app;
use crate::workspace::{signed_in, Browser, PASSWORD};

#[tokio::test]
async fn the_first_account_made_with_the_setup_link_finds_the_demo_and_its_results() {
    let app = spawn_app().await;
    app.submit_ok("demo", json!({"1": 1, "2": 0, "3": 1})).await;
    let link = accounts::prepare_setup_link(&app.db)
        .await
        .unwrap()
        .expect("no account yet: a setup link");
    let path = format!("/setup/{}", link.expose());
    let mut first = Browser::new(&app);
    let page = first.get_html(&path).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let created = first
        .post_form(
            &path,
            &[
                ("form_token", &form_token),
                ("email", "first@example.org"),
                ("password", PASSWORD),
                ("password_again", PASSWORD),
            ],
        )
        .await;
    assert_eq!(created.status(), 303);

    let list = first.get_html("/surveys").await;
    assert!(
        list.contains("/surveys/demo/"),
        "the demo is listed: {list}"
    );
    assert!(!list.contains("You have no survey yet"));
    assert_eq!(first.get("/surveys/demo/results").await.status(), 200);

    // A colleague made later does not get it.
    let mut colleague = signed_in(&app, "colleague@example.org").await;
    assert!(colleague
        .get_html("/surveys")
        .await
        .contains("You have no survey yet"));
    assert_eq!(colleague.get("/surveys/demo/results").await.status(), 404);
}

pub(crate) fn researcher_add(db: &std::path::Path, email: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(["researcher", "add", email, "--db"])
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{PASSWORD}\n").as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// The form gives its script the crate's question limit (the records the mechanism's buffer
/// holds); the scripts write no number of their own.
#[tokio::test]
async fn the_form_gives_its_script_the_crates_question_limit() {
    let app = spawn_app().await;
    let page = app
        .client
        .get(format!("{}/s/demo", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let limit = randomized_response::MAX_QUESTIONS;
    assert!(
        page.contains(&format!("data-max-questions=\"{limit}\"")),
        "{page}"
    );
    assert_eq!(deniable::domain::MAX_QUESTIONS, limit);
    for script in [
        include_str!("../../static/form-core.js"),
        include_str!("../../static/form.js"),
    ] {
        let literal = regex::Regex::new(&format!(r"\b{limit}\b")).unwrap();
        assert!(!literal.is_match(script), "a literal {limit} in a script");
    }
}
