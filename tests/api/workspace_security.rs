//! The workspace's security: ownership on every route, CSRF, sign-in throttling, cookie
//! flags, session expiry, one-time links, and hostile text rendered inert on every page.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{spawn_app, spawn_app_in};
use crate::workspace::{add_researcher, question_ids, signed_in, Browser, PASSWORD};
use deniable::db::accounts as stored_accounts;
use deniable::db::DbLocation;
use deniable::domain::{ResearcherId, SecretToken};
use deniable::services::accounts::{self, now_unix};

/// Every route that names a survey and belongs to its owner: pages, actions, exports and
/// the API. A new owner-only route must be added here (the test below checks the router).
const OWNER_ROUTES: &[(&str, &str)] = &[
    ("GET", "/surveys/{slug}/edit"),
    ("POST", "/surveys/{slug}/edit"),
    ("GET", "/surveys/{slug}/preview"),
    ("GET", "/surveys/{slug}/open"),
    ("POST", "/surveys/{slug}/open"),
    ("POST", "/surveys/{slug}/close"),
    ("POST", "/surveys/{slug}/unblind"),
    ("POST", "/surveys/{slug}/delete"),
    ("GET", "/surveys/{slug}/results"),
    ("GET", "/surveys/{slug}/results.json"),
    ("GET", "/surveys/{slug}/present"),
    ("GET", "/surveys/{slug}/links"),
    ("POST", "/surveys/{slug}/invitations"),
    ("GET", "/api/surveys/{slug}/results"),
    ("GET", "/api/surveys/{slug}/export.csv"),
    ("GET", "/api/surveys/{slug}/export.ndjson"),
    ("GET", "/api/surveys/{slug}/codebook.json"),
    ("POST", "/api/surveys/{slug}/open"),
    ("POST", "/api/surveys/{slug}/close"),
    ("POST", "/api/surveys/{slug}/unblind"),
    ("POST", "/api/surveys/{slug}/invitations"),
    ("DELETE", "/api/surveys/{slug}"),
];

use crate::routes::PUBLIC_SURVEY_ROUTES;

#[test]
fn every_survey_route_of_the_router_is_in_the_owner_list_or_public_by_design() {
    let registered: Vec<String> = crate::routes::every_path()
        .into_iter()
        .filter(|path| path.contains("{slug}"))
        .collect();
    assert!(registered.len() > 15, "the router was read: {registered:?}");
    for path in registered {
        assert!(
            PUBLIC_SURVEY_ROUTES.contains(&path.as_str())
                || OWNER_ROUTES.iter().any(|(_, route)| *route == path),
            "{path} names a survey: add it to OWNER_ROUTES (or to the public list)"
        );
    }
}

#[tokio::test]
async fn a_second_researcher_gets_404_on_every_route_of_the_first_researchers_surveys() {
    let app = spawn_app().await;
    let mut owner = signed_in(&app, "owner@example.org").await;
    let draft = owner
        .create_draft("Owner's draft", "Owner's question?")
        .await;
    let opened = owner.create_draft("Owner's open survey", "Asked?").await;
    let response = owner
        .post_with_csrf(&format!("/surveys/{opened}/open"), &[])
        .await;
    assert_eq!(response.status(), 303);

    let mut stranger = signed_in(&app, "stranger@example.org").await;
    let csrf = stranger.csrf().await;
    for slug in [&draft, &opened] {
        let question = question_ids(&app, slug).await[0].to_string();
        for (method, route) in OWNER_ROUTES {
            let path = route.replace("{slug}", slug).replace("{id}", &question);
            let mut request = stranger.request(method, &path);
            if (*method == "POST" || *method == "DELETE") && route.starts_with("/api/") {
                // The API takes JSON (or no body at all); only the invitations route has one.
                request = request.header("x-csrf-token", &csrf);
                if route.ends_with("/invitations") {
                    request = request.json(&serde_json::json!({"count": 1}));
                }
            } else if *method == "POST" {
                // A complete, valid form with the stranger's own CSRF token: only the
                // ownership can refuse it.
                request = request.header("x-csrf-token", &csrf).form(&[
                    ("csrf", csrf.as_str()),
                    ("title", "Taken over"),
                    ("description", "x"),
                    ("planned_respondents", "10"),
                    ("text", "Taken over?"),
                    ("epsilon", "1.0"),
                    ("required", "on"),
                    ("direction", "down"),
                    ("confirm", "on"),
                    ("count", "1"),
                ]);
            }
            let response = stranger.send(request).await;
            assert_eq!(response.status(), 404, "{method} {path}");
            let body = response.text().await.unwrap();
            assert!(
                !body.contains("Owner&#39;s"),
                "{method} {path} leaks the title"
            );
            assert!(!body.contains("Owner's"), "{method} {path} leaks the title");
        }
    }
    // Nothing changed, and the stranger's own list is empty.
    let list = owner.get_html("/surveys").await;
    assert!(list.contains("Owner&#39;s draft") || list.contains("Owner&#x27;s draft"));
    assert!(!list.contains("Taken over"));
    assert_eq!(question_ids(&app, &draft).await.len(), 1);
    let stranger_list = stranger.get_html("/surveys").await;
    assert!(stranger_list.contains("You have no survey yet"));
}

#[tokio::test]
async fn a_form_post_without_its_csrf_token_is_refused() {
    let app = spawn_app().await;
    let mut owner = signed_in(&app, "owner@example.org").await;
    let slug = owner.create_draft("Original title", "Question?").await;
    let edit = [
        ("title", "Changed by a forged form"),
        ("description", ""),
        ("planned_respondents", "10"),
    ];
    let without = owner
        .post_form(&format!("/surveys/{slug}/edit"), &edit)
        .await;
    assert_eq!(without.status(), 403);
    let mut wrong = vec![("csrf", "not-the-token")];
    wrong.extend_from_slice(&edit);
    let wrong = owner
        .post_form(&format!("/surveys/{slug}/edit"), &wrong)
        .await;
    assert_eq!(wrong.status(), 403);
    let create = owner
        .post_form(
            "/surveys",
            &[
                ("title", "Forged"),
                ("question", "Forged?"),
                ("epsilon", "1"),
            ],
        )
        .await;
    assert_eq!(create.status(), 403);
    let logout = owner.post_form("/logout", &[]).await;
    assert_eq!(logout.status(), 403);
    // The JSON API with only a session cookie needs the token in a header.
    let request = owner.request("POST", &format!("/api/surveys/{slug}/open"));
    assert_eq!(owner.send(request).await.status(), 403);

    let builder = owner.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains("Original title"));
    assert!(!builder.contains("Changed by a forged form"));
    assert!(!owner.get_html("/surveys").await.contains("Forged"));

    // The sign-in form has its own token (double-submit cookie): without it, refused.
    add_researcher(&app, "second@example.org").await;
    let mut browser = Browser::new(&app);
    let response = browser
        .post_form(
            "/login",
            &[("email", "second@example.org"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(response.status(), 403);
}

/// The sign-in page's refusal: status, `Retry-After` in seconds, and the page's text.
async fn sign_in_attempt(browser: &mut Browser, password: &str) -> (u16, Option<u64>, String) {
    let response = browser.try_sign_in("owner@example.org", password).await;
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().parse().unwrap());
    (
        response.status().as_u16(),
        retry_after,
        response.text().await.unwrap(),
    )
}

#[tokio::test]
async fn sign_in_slows_down_after_five_failures_and_never_says_whether_the_password_was_right() {
    let app = spawn_app().await;
    add_researcher(&app, "owner@example.org").await;
    let mut browser = Browser::new(&app);
    for attempt in 1..=5 {
        let (status, _, page) = sign_in_attempt(&mut browser, "wrong password, again").await;
        assert_eq!(status, 400, "attempt {attempt} is free");
        assert!(page.contains("e-mail address or the password is wrong"));
    }
    // After 5 failures the next attempt waits 1 s after the last one (counted from the end
    // of its second): right and wrong passwords are refused alike, unchecked.
    let (right, wrong) = (
        sign_in_attempt(&mut browser, PASSWORD).await,
        sign_in_attempt(&mut browser, "wrong password, again").await,
    );
    for (status, retry_after, page) in [&right, &wrong] {
        assert_eq!(*status, 429);
        assert!(matches!(retry_after, Some(1 | 2)), "{retry_after:?}");
        assert!(page.contains("try again in"), "{page}");
        assert!(page.contains("up to 15 minutes"), "{page}");
    }
    let message = |page: &str| {
        let start = page.find("id=\"form-error\">").expect("an error message");
        let end = start + page[start..].find("</p>").unwrap();
        // The wait may be 1 s for one attempt and 2 s for the next: compare without the
        // number and its plural.
        page[start..end]
            .replace(|c: char| c.is_ascii_digit(), "")
            .replace("seconds", "second")
    };
    assert_eq!(
        message(&right.2),
        message(&wrong.2),
        "the refusal says the same for the right password"
    );
    assert!(!browser.cookies.keys().any(|name| name.contains("session")));

    // Once the wait has passed a wrong password is checked again (failure 6); the next
    // wait is 2 s.
    tokio::time::sleep(Duration::from_secs(right.1.unwrap())).await;
    let (status, _, _) = sign_in_attempt(&mut browser, "wrong password, again").await;
    assert_eq!(status, 400);
    let (status, retry_after, _) = sign_in_attempt(&mut browser, PASSWORD).await;
    assert_eq!(status, 429);
    assert!(matches!(retry_after, Some(2 | 3)), "{retry_after:?}");

    // Another account is not affected.
    let other = signed_in(&app, "other@example.org").await;
    assert!(other.cookies.keys().any(|name| name.contains("session")));

    // The real owner gets in after seconds, not an hour, and starts afresh.
    tokio::time::sleep(Duration::from_secs(retry_after.unwrap())).await;
    let signed_in = browser.try_sign_in("owner@example.org", PASSWORD).await;
    assert_eq!(signed_in.status(), 303);
    let (status, _, _) = sign_in_attempt(&mut Browser::new(&app), "wrong password").await;
    assert_eq!(
        status, 400,
        "failures were forgotten at the successful sign-in"
    );
}

#[tokio::test]
async fn session_cookies_are_http_only_same_site_strict_and_secure_with_the_host_prefix() {
    let app = spawn_app().await;
    add_researcher(&app, "owner@example.org").await;
    let mut browser = Browser::new(&app);
    let response = browser.try_sign_in("owner@example.org", PASSWORD).await;
    assert_eq!(response.status(), 303);
    let session = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .find(|cookie| cookie.starts_with("__Host-deniable-session="))
        .expect("a __Host- session cookie on 127.0.0.1");
    for flag in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/"] {
        assert!(session.contains(flag), "{flag} missing in {session}");
    }
    assert!(!session.contains("Domain"), "{session}");
    let token = session
        .split(';')
        .next()
        .unwrap()
        .split_once('=')
        .unwrap()
        .1;
    assert_eq!(token.len(), 43, "256 random bits, base64url");
    // The database holds only its hash.
    let stored: Vec<u8> = app.stored_value("SELECT token_hash FROM sessions").await;
    assert_eq!(stored, SecretToken::parse(token).unwrap().hash().as_bytes());

    // Served by another name over plain HTTP, Secure (and so the prefix) cannot be used,
    // whatever a client's X-Forwarded-Proto claims (only --public-url https://… can say
    // HTTPS is in front: tests/api/hardening.rs).
    let login = |host: &'static str, proto: Option<&'static str>| {
        let app_client = &browser.client;
        let mut request = app_client
            .get(format!("{}/login", browser.base))
            .header("host", host);
        if let Some(proto) = proto {
            request = request.header("x-forwarded-proto", proto);
        }
        request.send()
    };
    for proto in [None, Some("https")] {
        let plain = login("deniable.example.org", proto).await.unwrap();
        let cookie = plain.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.starts_with("deniable-form="), "{cookie}");
        assert!(
            !cookie.contains("Secure")
                && cookie.contains("HttpOnly")
                && cookie.contains("SameSite=Strict")
        );
    }
}

#[tokio::test]
async fn a_session_ends_after_two_idle_hours_or_twelve_hours_in_all_and_at_sign_out() {
    let app = spawn_app().await;
    add_researcher(&app, "owner@example.org").await;
    let id: i64 = app
        .stored_value("SELECT id FROM researchers WHERE email = 'owner@example.org'")
        .await;
    let researcher = ResearcherId::from_stored(id);
    let now = now_unix();
    let idle = SecretToken::generate().unwrap();
    let old = SecretToken::generate().unwrap();
    let fresh = SecretToken::generate().unwrap();
    let (idle_hash, old_hash, fresh_hash) = (idle.hash(), old.hash(), fresh.hash());
    app.db
        .write(move |connection| {
            // Last used 2 h 1 min ago, signed in 3 h ago.
            stored_accounts::insert_session(
                connection,
                &idle_hash,
                researcher,
                now,
                now - 60,
                now + 9 * 3600,
            )?;
            // Used a minute ago, but signed in 12 h 1 min ago.
            stored_accounts::insert_session(
                connection,
                &old_hash,
                researcher,
                now,
                now + 7140,
                now - 60,
            )?;
            stored_accounts::insert_session(
                connection,
                &fresh_hash,
                researcher,
                now,
                now + 7200,
                now + 43200,
            )
        })
        .await
        .unwrap();
    let status_with = |token: &SecretToken| {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        client
            .get(app.url("/surveys"))
            .header(
                "cookie",
                format!("__Host-deniable-session={}", token.expose()),
            )
            .send()
    };
    let to_login = status_with(&idle).await.unwrap();
    assert_eq!(to_login.status(), 303);
    assert_eq!(to_login.headers()["location"], "/login");
    assert_eq!(status_with(&old).await.unwrap().status(), 303);
    assert_eq!(status_with(&fresh).await.unwrap().status(), 200);

    let mut browser = signed_in(&app, "second@example.org").await;
    assert_eq!(browser.get("/surveys").await.status(), 200);
    let session_cookie = browser.cookies.clone();
    let out = browser.post_with_csrf("/logout", &[]).await;
    assert_eq!(out.status(), 303);
    browser.cookies = session_cookie; // a copy of the old cookie no longer works
    assert_eq!(browser.get("/surveys").await.status(), 303);
}

#[tokio::test]
async fn the_one_time_link_creates_the_first_account_once_and_sign_up_links_create_more() {
    let app = spawn_app().await;
    let link = accounts::prepare_setup_link(&app.db)
        .await
        .unwrap()
        .expect("no account yet: a setup link");
    let path = format!("/setup/{}", link.expose());
    let mut browser = Browser::new(&app);
    let page = browser.get_html(&path).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let short = browser
        .post_form(
            &path,
            &[
                ("form_token", &form_token),
                ("email", "first@example.org"),
                ("password", "too short"),
                ("password_again", "too short"),
            ],
        )
        .await;
    assert_eq!(short.status(), 400);
    assert!(short
        .text()
        .await
        .unwrap()
        .contains("at least 12 characters"));
    let page = browser.get_html(&path).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let created = browser
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
    assert_eq!(browser.get("/surveys").await.status(), 200, "signed in");
    assert_eq!(Browser::new(&app).get(&path).await.status(), 404, "used up");
    assert!(accounts::prepare_setup_link(&app.db)
        .await
        .unwrap()
        .is_none());

    let page = browser.get_html("/account").await;
    assert!(page.contains("Create a sign-up link for a colleague"));
    // The page states the links' lifetime from the constant that enforces it.
    let days = accounts::SIGNUP_LINK_SECONDS / (24 * 60 * 60);
    assert!(page.contains(&format!("valid for {days} days")), "{page}");
    let form = crate::workspace::form_fields(&page, "/account/signup-links");
    let account = browser
        .post_form("/account/signup-links", &pairs(&form))
        .await;
    assert_eq!(account.status(), 200);
    let html = account.text().await.unwrap();
    let start = html.find("/setup/").unwrap();
    let signup_link = &html[start..start + "/setup/".len() + 43];
    let mut colleague = Browser::new(&app);
    let page = colleague.get_html(signup_link).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let joined = colleague
        .post_form(
            signup_link,
            &[
                ("form_token", &form_token),
                ("email", "colleague@example.org"),
                ("password", PASSWORD),
                ("password_again", PASSWORD),
            ],
        )
        .await;
    assert_eq!(joined.status(), 303);
    assert_eq!(colleague.get("/surveys").await.status(), 200);
}

/// Migration 0010 renamed the column that names who issued a sign-up link: a colleague's link
/// handed out before the upgrade still creates its account after it. The database goes
/// back to version 9 by the exact inverse of that step (it only renames) and of 0011's and
/// 0012's, on either engine.
#[tokio::test]
async fn a_sign_up_link_handed_out_before_migration_0010_still_creates_its_account_after_it() {
    let directory = Arc::new(tempfile::tempdir().unwrap());
    let app = spawn_app_in(Arc::clone(&directory)).await;
    let mut owner = signed_in(&app, "owner@example.org").await;
    let account = owner.post_with_csrf("/account/signup-links", &[]).await;
    assert_eq!(account.status(), 200);
    let html = account.text().await.unwrap();
    let start = html.find("/setup/").unwrap();
    let signup_link = html[start..start + "/setup/".len() + 43].to_owned();
    // Migration 0012's and 0011's inverses first (0012's tables; 0011's columns and the
    // frozen-rule trigger of 0009).
    let version_9 = match &app.db_location {
        DbLocation::Sqlite(_) => vec![
            "DROP TABLE cell_releases",
            "DROP TABLE release_members",
            "DROP TABLE released_pairs",
            "DROP TRIGGER surveys_rule_frozen_once_open",
            "ALTER TABLE surveys DROP COLUMN completion_url",
            "ALTER TABLE surveys DROP COLUMN embed_origins",
            "CREATE TRIGGER surveys_rule_frozen_once_open BEFORE UPDATE OF target_responses, \
             closes_at, min_cell, results_after_close ON surveys WHEN OLD.status <> 'draft' \
             BEGIN SELECT RAISE(ABORT, 'frozen'); END",
            "ALTER TABLE signup_links RENAME COLUMN issued_by TO invited_by",
            "PRAGMA user_version = 9",
        ],
        DbLocation::Postgres(_) => vec![
            "DROP TABLE cell_releases",
            "DROP TABLE release_members",
            "DROP TABLE released_pairs",
            "DROP TABLE considered_pairs",
            "CREATE TABLE releases (survey_id bigint NOT NULL REFERENCES surveys (id) \
             ON DELETE CASCADE, view bigint NOT NULL, responses bigint NOT NULL, \
             redemptions bigint NOT NULL, counts text, PRIMARY KEY (survey_id, view))",
            "ALTER TABLE surveys DROP COLUMN completion_url, DROP COLUMN embed_origins",
            "ALTER TABLE signup_links RENAME COLUMN issued_by TO invited_by",
            "ALTER TABLE signup_links RENAME CONSTRAINT signup_links_issued_by_fkey \
             TO signup_links_invited_by_fkey",
            "UPDATE schema_version SET version = 9",
        ],
    };
    for statement in version_9 {
        app.execute_sql(statement).await.unwrap();
    }
    assert_eq!(
        app.stored_value::<i64>("SELECT count(*) FROM signup_links WHERE invited_by IS NOT NULL")
            .await,
        1,
        "the colleague's link, unused, in the schema of version 9"
    );
    drop(app.stop().await);

    let app = spawn_app_in(directory).await;
    assert_eq!(
        app.stored_value::<i64>("SELECT count(*) FROM signup_links WHERE issued_by IS NOT NULL")
            .await,
        1,
        "migrated: the row kept, its column renamed"
    );
    let mut colleague = Browser::new(&app);
    let page = colleague.get_html(&signup_link).await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let joined = colleague
        .post_form(
            &signup_link,
            &[
                ("form_token", &form_token),
                ("email", "colleague@example.org"),
                ("password", PASSWORD),
                ("password_again", PASSWORD),
            ],
        )
        .await;
    assert_eq!(joined.status(), 303);
    assert_eq!(colleague.get("/surveys").await.status(), 200, "signed in");
    assert_eq!(
        Browser::new(&app).get(&signup_link).await.status(),
        404,
        "used up"
    );
}

fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect()
}

/// An account page loaded before sign-up links had their own route posts to the old one:
/// it is sent on, method and form kept, to the new route, which checks the CSRF token.
#[tokio::test]
async fn the_old_invitations_route_of_the_account_sends_its_form_on_to_the_sign_up_links() {
    let app = spawn_app().await;
    let mut browser = signed_in(&app, "owner@example.org").await;
    let issued_by_colleagues = "SELECT count(*) FROM signup_links WHERE issued_by IS NOT NULL";

    let csrf = browser.csrf().await;
    let moved = browser
        .post_form("/account/invitations", &[("csrf", &csrf)])
        .await;
    assert_eq!(moved.status(), 308, "the method and the form are kept");
    assert_eq!(moved.headers()["location"], "/account/signup-links");
    assert_eq!(app.stored_value::<i64>(issued_by_colleagues).await, 0);

    // A client that follows the redirect, as browsers do: the new route checks the token.
    browser.client = reqwest::Client::new();
    let forged = browser
        .post_form("/account/invitations", &[("csrf", "not-the-token")])
        .await;
    assert_eq!(forged.status(), 403);
    assert_eq!(forged.url().path(), "/account/signup-links");
    assert_eq!(app.stored_value::<i64>(issued_by_colleagues).await, 0);
    let followed = browser
        .post_form("/account/invitations", &[("csrf", &csrf)])
        .await;
    assert_eq!(followed.status(), 200);
    assert_eq!(followed.url().path(), "/account/signup-links");
    assert!(followed.text().await.unwrap().contains("/setup/"));
    assert_eq!(app.stored_value::<i64>(issued_by_colleagues).await, 1);
}

const PAYLOADS: [&str; 3] = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "javascript:alert(1)",
];

fn assert_inert(page: &str, html: &str) {
    for raw in [
        "<script>alert",
        "<img src=x",
        "\"><img",
        "onerror=alert(1)>",
        "href=\"javascript:",
        "src=\"javascript:",
        "action=\"javascript:",
    ] {
        assert!(
            !html.contains(raw),
            "{page} contains the raw payload {raw:?}: {html}"
        );
    }
    assert!(
        html.contains("&#60;script&#62;alert(1)") || html.contains("&lt;script&gt;alert(1)"),
        "{page} shows the title escaped: {html}"
    );
}

#[tokio::test]
async fn hostile_titles_and_question_texts_render_inert_on_every_page_including_present_mode() {
    let app = spawn_app().await;
    let mut owner = signed_in(&app, "owner@example.org").await;
    let title = PAYLOADS.join(" ");
    let slug = owner.create_draft(&title, PAYLOADS[0]).await;
    for payload in &PAYLOADS[1..] {
        let added = owner
            .save_builder(
                &slug,
                &[
                    ("new-text", payload),
                    ("new-epsilon", "1.5"),
                    ("action", "add"),
                ],
            )
            .await;
        assert_eq!(added.status(), 303);
    }
    let described = owner
        .save_builder(
            &slug,
            &[
                ("title", &title),
                ("description", &title),
                ("planned_respondents", "100"),
                ("researcher", &title),
                ("consent", &title),
            ],
        )
        .await;
    assert_eq!(described.status(), 303);
    for page in [
        "/surveys".to_owned(),
        format!("/surveys/{slug}/edit"),
        format!("/surveys/{slug}/preview"),
        format!("/surveys/{slug}/open"),
    ] {
        let html = owner.get_html(&page).await;
        assert_inert(&page, &html);
    }
    assert_eq!(
        owner
            .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
            .await
            .status(),
        303
    );
    for page in [
        "/surveys".to_owned(),
        format!("/surveys/{slug}/edit"),
        format!("/surveys/{slug}/results"),
        format!("/surveys/{slug}/present"),
        format!("/s/{slug}"),
    ] {
        let html = owner.get_html(&page).await;
        assert_inert(&page, &html);
    }
}
