//! Hardening at the HTTP boundary: links and cookies that forged headers cannot move, the
//! `--public-url` that fixes them, 401 before a body is read, a time limit on every body,
//! the open-file limit, `no-store` on private data, and `HEAD /healthz`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deniable::http::PublicUrl;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{error_code, serving_address, spawn_app, spawn_app_with, test_settings};
use crate::common::{survey_definition, TestApp};
use crate::workspace::{signed_in, Browser};

/// Every header a client could send to claim another host or scheme.
const FORGED: [(&str, &str); 4] = [
    ("x-forwarded-host", "evil.example"),
    ("x-forwarded-proto", "https"),
    ("x-forwarded-for", "203.0.113.9"),
    ("forwarded", "for=203.0.113.9;host=evil.example;proto=https"),
];

fn with_forged_headers(mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    for (name, value) in FORGED {
        request = request.header(name, value);
    }
    request
}

async fn spawn_app_with_public_url(url: &str) -> TestApp {
    let mut settings = test_settings();
    settings.public_url = Some(PublicUrl::parse(url).unwrap());
    spawn_app_with(settings).await
}

/// An open survey that requires invitations, owned by a new API token's researcher.
async fn invitation_survey(app: &TestApp) -> (String, String) {
    let token = app.researcher_with_token("owner@example.org").await;
    let mut definition = survey_definition(&[1.0]);
    definition["requires_invitation"] = json!(true);
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
    (token, slug)
}

/// The links of an invitation CSV requested through the API with forged headers.
async fn invitation_links(app: &TestApp, token: &str, slug: &str, host: &str) -> Vec<String> {
    let request = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(token)
        .header("host", host)
        .json(&json!({"count": 2}));
    let response = with_forged_headers(request).send().await.unwrap();
    assert_eq!(response.status(), 201);
    let csv = response.text().await.unwrap();
    csv.lines()
        .skip(1)
        .map(|line| line.split_once(',').unwrap().1.to_owned())
        .collect()
}

/// A signed-in researcher's page, requested with forged headers and this `Host`.
async fn page_with_forged_headers(
    browser: &mut Browser,
    method: &str,
    path: &str,
    host: &str,
) -> reqwest::Response {
    let csrf = match method {
        "POST" => Some(browser.csrf().await),
        _ => None,
    };
    let mut request = browser.request(method, path).header("host", host);
    if let Some(csrf) = csrf {
        request = request.form(&[("csrf", csrf)]);
    }
    let response = browser.send(with_forged_headers(request)).await;
    assert_eq!(response.status(), 200, "{method} {path}");
    response
}

#[tokio::test]
async fn without_a_public_url_links_follow_the_requests_own_host_never_forwarded_headers() {
    let app = spawn_app().await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let (token, slug) = invitation_survey(&app).await;
    for link in invitation_links(&app, &token, &slug, &host).await {
        assert!(
            link.starts_with(&format!("http://{host}/s/{slug}#invitation=")),
            "{link}"
        );
    }
    // The Host header is the client's own name for this server, so it is used as given.
    for link in invitation_links(&app, &token, &slug, "deniable.example.org:8443").await {
        assert!(
            link.starts_with("http://deniable.example.org:8443/s/"),
            "{link}"
        );
    }

    let mut browser = signed_in(&app, "researcher@example.org").await;
    let draft = browser.create_draft("Links", "Question?").await;
    let present = page_with_forged_headers(
        &mut browser,
        "GET",
        &format!("/surveys/{draft}/present"),
        &host,
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(present.contains(&format!("http://{host}/s/{draft}")));
    let account = page_with_forged_headers(&mut browser, "POST", "/account/signup-links", &host)
        .await
        .text()
        .await
        .unwrap();
    assert!(account.contains(&format!("http://{host}/setup/")));
    for page in [&present, &account] {
        assert!(!page.contains("evil.example") && !page.contains("https://"));
    }

    // A Host header that names no host is refused before any invitation is made.
    let bad_host = app
        .client
        .post(app.url(&format!("/api/surveys/{slug}/invitations")))
        .bearer_auth(&token)
        .header("host", "evil.example/<script>")
        .json(&json!({"count": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad_host.status(), 400);
    assert_eq!(error_code(bad_host).await, "invalid_host");
}

#[tokio::test]
async fn a_public_url_fixes_links_qr_codes_and_the_secure_cookie_names_whatever_the_request_says() {
    let app = spawn_app_with_public_url("https://surveys.example.org/").await;
    let (token, slug) = invitation_survey(&app).await;
    for host in ["127.0.0.1", "other.example:8080"] {
        for link in invitation_links(&app, &token, &slug, host).await {
            assert!(
                link.starts_with(&format!("https://surveys.example.org/s/{slug}#invitation=")),
                "{link}"
            );
        }
    }

    // The plain host and no forwarded header: still the __Host- name, Secure.
    let login = app
        .client
        .get(app.url("/login"))
        .header("host", "deniable.internal:8080")
        .send()
        .await
        .unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.starts_with("__Host-deniable-form=") && cookie.contains("Secure"),
        "{cookie}"
    );

    let mut browser = signed_in(&app, "researcher@example.org").await;
    assert!(browser.cookies.contains_key("__Host-deniable-session"));
    let draft = browser.create_draft("Links", "Question?").await;
    let present_path = format!("/surveys/{draft}/present");
    let mut pages = Vec::new();
    for host in ["127.0.0.1", "other.example:8080"] {
        let page = page_with_forged_headers(&mut browser, "GET", &present_path, host).await;
        pages.push(page.text().await.unwrap());
    }
    assert!(pages[0].contains(&format!("https://surveys.example.org/s/{draft}")));
    assert_eq!(
        pages[0], pages[1],
        "the link and its QR code do not follow the request"
    );
    let account = page_with_forged_headers(&mut browser, "POST", "/account/signup-links", "x.org")
        .await
        .text()
        .await
        .unwrap();
    assert!(account.contains("https://surveys.example.org/setup/"));
}

#[tokio::test]
async fn a_plain_http_public_url_keeps_plain_cookies_even_when_a_header_claims_https() {
    let app = spawn_app_with_public_url("http://surveys.example.org").await;
    let request = app.client.get(app.url("/login"));
    let login = with_forged_headers(request).send().await.unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.starts_with("deniable-form=") && !cookie.contains("Secure"),
        "{cookie}"
    );
}

#[test]
fn the_binary_refuses_a_public_url_with_a_path_and_says_why() {
    let output = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            "/nonexistent/x.db",
        ])
        .env(
            "DENIABLE_PUBLIC_URL",
            "https://surveys.example.org/deniable",
        )
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("must not have a path"),
        "the operator is told why: {stderr}"
    );
}

#[tokio::test]
async fn in_a_secure_context_only_the_host_prefixed_cookie_names_are_accepted() {
    // 127.0.0.1 is a secure context (loopback), so the server sets the __Host- names.
    let app = spawn_app().await;
    let mut browser = signed_in(&app, "researcher@example.org").await;
    let session = browser.cookies["__Host-deniable-session"].clone();
    assert_eq!(browser.get("/surveys").await.status(), 200);

    // The same session under the plain name, as a sibling host or plain HTTP could plant it.
    browser.cookies.clear();
    browser
        .cookies
        .insert("deniable-session".to_owned(), session.clone());
    let planted = browser.get("/surveys").await;
    assert_eq!(planted.status(), 303);
    assert_eq!(planted.headers()["location"], "/login");
    let request = browser.request("GET", "/api/surveys/demo/results");
    assert_eq!(browser.send(request).await.status(), 401);

    // The sign-in form's double-submit cookie likewise.
    let mut visitor = Browser::new(&app);
    let page = visitor.get_html("/login").await;
    let form_token = crate::workspace::hidden_field(&page, "form_token");
    let value = visitor.cookies.remove("__Host-deniable-form").unwrap();
    visitor.cookies.insert("deniable-form".to_owned(), value);
    let refused = visitor
        .post_form(
            "/login",
            &[
                ("form_token", &form_token),
                ("email", "researcher@example.org"),
                ("password", crate::workspace::PASSWORD),
            ],
        )
        .await;
    assert_eq!(refused.status(), 403);
}

/// What a raw HTTP/1.1 client saw: the response bytes, when they came, when the server
/// closed the connection (within the time given).
struct RawExchange {
    response: String,
    answered_after: Option<Duration>,
    closed_after: Option<Duration>,
}

impl RawExchange {
    fn status(&self) -> &str {
        self.response
            .split_whitespace()
            .nth(1)
            .unwrap_or("(no response)")
    }

    fn json_body(&self) -> Value {
        let (_, body) = self.response.split_once("\r\n\r\n").unwrap();
        serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON body: {body}"))
    }
}

/// Sends `head` and `first`, then `trickle` every 200 ms (none if empty), and reads until
/// the server closes the connection or `give_up` has passed.
async fn raw_exchange(
    app: &TestApp,
    head: &str,
    first: &[u8],
    trickle: &'static [u8],
    give_up: Duration,
) -> RawExchange {
    let stream = TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .unwrap();
    let (mut reader, mut writer) = stream.into_split();
    writer.write_all(head.as_bytes()).await.unwrap();
    writer.write_all(first).await.unwrap();
    let started = Instant::now();
    let slow_writer = tokio::spawn(async move {
        while !trickle.is_empty() {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(trickle).await.is_err() {
                break;
            }
        }
        std::future::pending::<()>().await; // keeps the write half open
    });
    let mut exchange = RawExchange {
        response: String::new(),
        answered_after: None,
        closed_after: None,
    };
    let mut buffer = [0_u8; 4096];
    while let Some(left) = give_up.checked_sub(started.elapsed()) {
        match tokio::time::timeout(left, reader.read(&mut buffer)).await {
            Err(_) => break,
            Ok(Ok(0)) | Ok(Err(_)) => {
                exchange.closed_after = Some(started.elapsed());
                break;
            }
            Ok(Ok(read)) => {
                exchange.answered_after.get_or_insert(started.elapsed());
                exchange
                    .response
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        }
    }
    slow_writer.abort();
    exchange
}

fn post_head(path: &str, authorization: Option<&str>, content_length: usize) -> String {
    let authorization = authorization
        .map(|value| format!("Authorization: {value}\r\n"))
        .unwrap_or_default();
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{authorization}\
         Content-Type: application/json\r\nContent-Length: {content_length}\r\n\r\n"
    )
}

#[tokio::test]
async fn an_unknown_token_or_no_credentials_is_a_401_before_the_body_is_read() {
    let app = spawn_app().await;
    let (token, slug) = invitation_survey(&app).await;
    let cases = [
        ("/api/surveys", Some("Bearer not-a-real-token"), 400_000),
        ("/api/surveys", None, 400_000),
        (
            &*format!("/api/surveys/{slug}/invitations"),
            Some("Bearer not-a-real-token"),
            1000,
        ),
    ];
    for (path, authorization, content_length) in cases {
        // Headers promise a body; only its first bytes ever come.
        let head = post_head(path, authorization, content_length);
        let exchange =
            raw_exchange(&app, &head, b"{\"title\": \"", b"", Duration::from_secs(5)).await;
        assert_eq!(exchange.status(), "401", "{path}: {}", exchange.response);
        assert_eq!(exchange.json_body()["error"]["code"], "unauthorized");
        let answered = exchange.answered_after.unwrap();
        assert!(answered < Duration::from_secs(2), "{path}: {answered:?}");
    }

    // An unknown token is refused on every owner route, not only where it would create.
    let unknown = app
        .owner_get("not-a-real-token", &format!("/api/surveys/{slug}/results"))
        .await;
    assert_eq!(unknown.status(), 401);
    assert_eq!(error_code(unknown).await, "unauthorized");
    let known = app
        .owner_get(&token, &format!("/api/surveys/{slug}/results"))
        .await;
    assert_eq!(known.status(), 200);
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_a_408_and_the_connection_closes() {
    let mut settings = test_settings();
    settings.body_read_timeout = Duration::from_secs(1);
    let app = spawn_app_with(settings).await;
    let give_up = Duration::from_secs(6);

    // A declared length, one byte every 200 ms: it would need 100 s.
    let head = post_head("/api/surveys/demo/responses", None, 500);
    let exchange = raw_exchange(&app, &head, b"{\"answers\": ", b" ", give_up).await;
    assert_eq!(exchange.status(), "408", "{}", exchange.response);
    assert_eq!(exchange.json_body()["error"]["code"], "request_timeout");
    let answered = exchange.answered_after.unwrap();
    assert!(
        (Duration::from_millis(900)..Duration::from_secs(3)).contains(&answered),
        "{answered:?}"
    );
    let closed = exchange
        .closed_after
        .expect("the server closes the connection");
    assert!(closed - answered < Duration::from_secs(3), "{closed:?}");

    // A chunked body that never ends, the same.
    let head = "POST /api/surveys/demo/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    let exchange = raw_exchange(&app, head, b"1\r\n{\r\n", b"1\r\n \r\n", give_up).await;
    assert_eq!(exchange.status(), "408", "{}", exchange.response);
    assert!(exchange.closed_after.is_some(), "closed, not drained");

    // A route that never reads its body answers at once; the endless body does not keep
    // the connection open afterwards.
    let head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    let exchange = raw_exchange(&app, head, b"1\r\na\r\n", b"1\r\na\r\n", give_up).await;
    assert_eq!(exchange.status(), "200", "{}", exchange.response);
    assert!(exchange.answered_after.unwrap() < Duration::from_secs(1));
    assert!(exchange.closed_after.is_some(), "closed, not drained");

    // A body that arrives in time is served as usual.
    let demo: Value = app
        .client
        .get(app.url("/api/surveys/demo"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answers: serde_json::Map<String, Value> = demo["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|question| (question["id"].to_string(), json!(1)))
        .collect();
    app.submit_ok("demo", Value::Object(answers)).await;
}

#[cfg(target_os = "linux")]
#[test]
fn the_server_raises_its_open_file_soft_limit_to_the_hard_limit() {
    let directory = tempfile::tempdir().unwrap();
    let hard = soft_and_hard_open_file_limits(std::process::id()).1;
    assert!(
        hard > 256,
        "this test needs a hard limit above 256, not {hard}"
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -S -n 256 && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_deniable"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(directory.path().join("deniable.db"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    serving_address(child.stdout.take().unwrap());
    let limits = soft_and_hard_open_file_limits(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(limits, (hard, hard), "(soft, hard) of the serving process");
}

#[cfg(target_os = "linux")]
fn soft_and_hard_open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[tokio::test]
async fn results_exports_and_the_codebook_are_never_stored_by_a_browser_or_proxy() {
    let app = spawn_app().await;
    let (token, slug, ids) = app.open_survey(&[1.0]).await;
    app.submit_ok(&slug, json!({ ids[0].to_string(): 1 })).await;
    app.close(&token, &slug).await;
    for path in ["results", "export.csv", "export.ndjson", "codebook.json"] {
        let response = app
            .owner_get(&token, &format!("/api/surveys/{slug}/{path}"))
            .await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{path}");
    }

    let mut browser = signed_in(&app, "researcher@example.org").await;
    let draft = browser.create_draft("Private", "Question?").await;
    for page in ["results", "present"] {
        let response = browser.get(&format!("/surveys/{draft}/{page}")).await;
        assert_eq!(response.status(), 200, "{page}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{page}");
    }
}

#[tokio::test]
async fn head_healthz_answers_200_without_a_body() {
    let app = spawn_app().await;
    let response = app.client.head(app.url("/healthz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.bytes().await.unwrap().is_empty());
}

/// `cargo tree` lines `name vX.Y.Z features`, one per package and feature set.
fn cargo_tree(args: &[&str]) -> Vec<String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("tree")
        .args(args)
        .args(["--prefix", "none", "--format", "{p} {f}"])
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo tree {args:?}");
    let mut lines: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| line.trim_end_matches(" (*)").trim_end().to_owned())
        .filter(|line| !line.is_empty())
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

/// The mechanism crate is a path cdylib, so its files in target/ carry no hash: if
/// `cargo build` and the workspace's tests (dev-dependencies included) resolved its
/// dependencies with different features, each would rebuild it, and the server above it,
/// every time `scripts/test` runs.
#[test]
fn the_mechanisms_dependencies_have_the_same_features_in_cargo_build_and_in_the_tests() {
    let mechanism_dependencies: Vec<String> =
        cargo_tree(&["-p", "randomized-response", "-e", "normal"])
            .iter()
            .map(|line| line.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .filter(|package| !package.starts_with("randomized-response "))
            .collect();
    assert!(mechanism_dependencies
        .iter()
        .any(|package| package.starts_with("rand_chacha ")));
    let build = cargo_tree(&["-p", "deniable", "-e", "normal,build"]);
    let tests = cargo_tree(&["--workspace", "-e", "normal,build,dev"]);
    for package in mechanism_dependencies {
        let features = |tree: &[String]| -> Vec<String> {
            tree.iter()
                .filter(|line| line.starts_with(&format!("{package} ")) || **line == package)
                .cloned()
                .collect()
        };
        assert_eq!(features(&build), features(&tests), "{package}");
    }
}
