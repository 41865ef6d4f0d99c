//! The command line against the database file a running server uses: `survey open` and
//! `survey close` show on the server at once, and each command-line error says what to do.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use serde_json::{json, Value};

use crate::common::{parse_invitations, spawn_app};
use crate::demo::researcher_add;
use crate::invitations::answers;
use crate::workspace::PASSWORD;
use deniable::services::accounts;

/// The real binary with `args`, `stdin` on its standard input.
pub fn deniable(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(args)
        .env_remove("DENIABLE_DB")
        .env_remove("DENIABLE_ADDR")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

/// `deniable ARGS --db DB`, which must succeed; its standard output.
pub fn deniable_ok(db: &Path, args: &[&str], stdin: &str) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    let output = deniable(&all, stdin);
    assert!(output.status.success(), "deniable {all:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// `deniable ARGS`, which must fail; its standard error.
pub fn deniable_fails(args: &[&str]) -> String {
    let output = deniable(args, "");
    assert!(
        !output.status.success(),
        "deniable {args:?} succeeded: {output:?}"
    );
    String::from_utf8(output.stderr).unwrap()
}

/// Stops the child server however the test ends.
pub struct Server {
    child: Child,
    pub address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The real binary serving `db` (with `args` before the rest) on a free port.
pub fn serve(db: &Path, args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(args)
        .args([
            "--addr",
            "127.0.0.1:0",
            "--submissions-per-minute",
            "0",
            "--db",
        ])
        .arg(db)
        .env_remove("DENIABLE_STATIC_DIR")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let address = crate::common::serving_address(child.stdout.take().unwrap());
    Server { child, address }
}

/// A researcher and a draft survey of one yes/no question, made with the command line.
fn draft_with_the_command_line(db: &Path, directory: &Path) -> String {
    deniable_ok(
        db,
        &["researcher", "add", "owner@example.org"],
        &format!("{PASSWORD}\n"),
    );
    let file = directory.join("survey.json");
    std::fs::write(
        &file,
        json!({"title": "Exam honesty", "description": "One question.",
               "questions": [{"text": "Did you cheat?", "epsilon": 1.0}]})
        .to_string(),
    )
    .unwrap();
    let created = deniable_ok(
        db,
        &[
            "survey",
            "create",
            "--owner",
            "owner@example.org",
            "--file",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(created.contains("deniable survey open"), "{created}");
    created
        .split_whitespace()
        .nth(3)
        .unwrap()
        .trim_end_matches(';')
        .to_owned()
}

async fn status_on_the_server(client: &reqwest::Client, server: &Server, slug: &str) -> String {
    let response = client
        .get(format!("{}/api/surveys/{slug}", server.address))
        .send()
        .await
        .unwrap();
    if response.status() == 404 {
        return "not public".to_owned();
    }
    let body: Value = response.json().await.unwrap();
    body["status"].as_str().unwrap().to_owned()
}

/// A response to the survey's one question; the status code.
async fn submit(client: &reqwest::Client, server: &Server, slug: &str, question: i64) -> u16 {
    client
        .post(format!("{}/api/surveys/{slug}/responses", server.address))
        .json(&json!({"answers": {question.to_string(): 1}}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn survey_open_and_close_on_the_command_line_show_on_the_running_server_at_once() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let server = serve(&db, &["serve"]);
    let client = reqwest::Client::new();
    let slug = {
        let (db, path) = (db.clone(), directory.path().to_owned());
        tokio::task::spawn_blocking(move || draft_with_the_command_line(&db, &path))
            .await
            .unwrap()
    };
    assert_eq!(
        status_on_the_server(&client, &server, &slug).await,
        "not public"
    );

    let opened = deniable_ok(&db, &["survey", "open", &slug], "");
    assert!(opened.contains(&format!("/s/{slug}")), "{opened}");
    assert_eq!(status_on_the_server(&client, &server, &slug).await, "open");
    let survey: Value = client
        .get(format!("{}/api/surveys/{slug}", server.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let question = survey["questions"][0]["id"].as_i64().unwrap();
    assert_eq!(submit(&client, &server, &slug, question).await, 201);

    let closed = deniable_ok(&db, &["survey", "close", &slug], "");
    assert!(closed.contains("no more responses"), "{closed}");
    assert_eq!(
        status_on_the_server(&client, &server, &slug).await,
        "closed"
    );
    assert_eq!(
        submit(&client, &server, &slug, question).await,
        409,
        "the server refuses at once, though it had the survey in memory as open"
    );

    let again = deniable_fails(&["survey", "close", &slug, "--db", db.to_str().unwrap()]);
    assert!(
        again.contains("survey exam-honesty")
            && again.contains("the survey is closed; only an open survey can become closed"),
        "{again}"
    );
    let unknown = deniable_fails(&["survey", "open", "nope", "--db", db.to_str().unwrap()]);
    assert!(
        unknown.contains("no survey nope in") && unknown.contains("deniable survey create"),
        "{unknown}"
    );
}

#[test]
fn token_and_survey_commands_refuse_a_path_with_no_database_instead_of_creating_one() {
    let directory = tempfile::tempdir().unwrap();
    let missing = directory.path().join("typo.db");
    let missing = missing.to_str().unwrap();
    let file = directory.path().join("survey.json");
    std::fs::write(
        &file,
        json!({"title": "T", "description": "D", "questions": [{"text": "Q?", "epsilon": 1.0}]})
            .to_string(),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    for args in [
        &["token", "create", "owner@example.org", "--db", missing][..],
        &[
            "survey",
            "create",
            "--owner",
            "o@example.org",
            "--file",
            file,
            "--db",
            missing,
        ],
        &["survey", "open", "demo", "--db", missing],
        &["survey", "close", "demo", "--db", missing],
        &[
            "invitations",
            "create",
            "--survey",
            "demo",
            "--count",
            "1",
            "--db",
            missing,
        ],
    ] {
        let error = deniable_fails(args);
        assert!(
            error.contains(&format!("no database at {missing}"))
                && error.contains("--db")
                && error.contains("deniable serve --db"),
            "{args:?}: {error}"
        );
        assert!(!Path::new(missing).exists(), "{args:?} created a database");
    }
}

#[tokio::test]
async fn serve_options_work_without_the_word_serve() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let server = serve(&db, &[]);
    let health = reqwest::get(format!("{}/healthz", server.address))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let help = deniable(&["--help"], "");
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("Options of serve, the default command"),
        "{help}"
    );
    assert!(help.contains("`deniable serve --addr"), "{help}");
    let mixed = deniable_fails(&["--addr", "127.0.0.1:0", "token", "create", "a@example.org"]);
    assert!(mixed.contains("cannot be used with"), "{mixed}");
}

#[test]
fn the_databases_long_explanation_is_in_the_main_help_once_and_in_no_subcommands() {
    let help = |args: &[&str]| String::from_utf8(deniable(args, "").stdout).unwrap();
    let paragraph = "On PostgreSQL privacy at rest is weaker";
    assert_eq!(help(&["--help"]).matches(paragraph).count(), 1);
    for subcommand in [
        &["serve", "--help"][..],
        &["researcher", "add", "--help"],
        &["token", "create", "--help"],
        &["survey", "create", "--help"],
        &["survey", "open", "--help"],
        &["survey", "close", "--help"],
        &["invitations", "create", "--help"],
        &["backup", "--help"],
        &["restore", "--help"],
    ] {
        let text = help(subcommand);
        assert!(!text.contains(paragraph), "{subcommand:?}: {text}");
        assert!(
            text.contains("a SQLite file path or a PostgreSQL URL"),
            "{subcommand:?}: {text}"
        );
    }
}

#[test]
fn invitations_help_names_the_three_columns_the_command_prints_and_survey_help_no_ignored_field() {
    let help = |args: &[&str]| String::from_utf8(deniable(args, "").stdout).unwrap();
    assert!(
        help(&["invitations", "create", "--help"]).contains("(invitation,link,key_fingerprint)")
    );
    assert!(!help(&["survey", "create", "--help"]).contains("\"required\""));
}

#[test]
fn an_epsilon_out_of_range_is_refused_in_one_sentence_naming_the_question() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    deniable_ok(
        &db,
        &["researcher", "add", "owner@example.org"],
        &format!("{PASSWORD}\n"),
    );
    let file = directory.path().join("survey.json");
    std::fs::write(
        &file,
        json!({"title": "T", "description": "D",
               "questions": [{"text": "Q?", "epsilon": 1.0}, {"text": "R?", "epsilon": 50}]})
        .to_string(),
    )
    .unwrap();
    let error = deniable_fails(&[
        "survey",
        "create",
        "--owner",
        "owner@example.org",
        "--file",
        file.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(
        error.contains("questions[1].epsilon must be between 0.01 and 20 (got 50)"),
        "{error}"
    );
    assert_eq!(error.matches("between").count(), 1, "{error}");
}

#[test]
fn simulate_against_no_server_asks_whether_it_is_running() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let error = deniable_fails(&["simulate", "--url", &url, "--truth", "0.3,0.2,0.1"]);
    assert!(
        error.contains(&format!(
            "connection refused — is the server running at {url}?"
        )),
        "{error}"
    );
}

#[test]
fn simulate_refuses_an_invalid_url_with_the_reason() {
    for (url, reason) in [
        (
            "localhost:8080",
            "the scheme is localhost, not http or https",
        ),
        ("127.0.0.1:8080", "must start with http:// or https://"),
        (
            "http://127.0.0.1:8080/s/demo",
            "it has a path (/s/demo); name the survey with --survey",
        ),
        ("ftp://example.org", "the scheme is ftp"),
    ] {
        let error = deniable_fails(&["simulate", "--url", url, "--truth", "0.3"]);
        assert!(
            error.contains(&format!("--url {url:?} is not a server's base URL"))
                && error.contains(reason)
                && error.contains("http://127.0.0.1:8080"),
            "{url}: {error}"
        );
    }
}

#[tokio::test]
async fn simulate_labels_this_runs_truths_against_the_surveys_cumulative_estimates() {
    let app = crate::common::spawn_app().await;
    // The first researcher owns the demo; it already holds one real response.
    let token = app.researcher_with_token("first@example.org").await;
    app.submit_ok("demo", json!({"1": 1, "2": 0, "3": 1})).await;
    let address = app.address.clone();
    let output = tokio::task::spawn_blocking(move || {
        deniable(
            &[
                "simulate",
                "--url",
                &address,
                "--respondents",
                "40",
                "--reproducible",
                "--truth",
                "0.3,0.2,0.1",
                // One argument: a token may begin with '-' (base64url).
                &format!("--token={token}"),
            ],
            "",
        )
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(
        printed.contains("Truths: this run's 40 respondents."),
        "{printed}"
    );
    assert!(
        printed.contains("the survey's results, over all the responses it holds"),
        "{printed}"
    );
    assert!(
        printed.contains("held up to 1 responses before this run"),
        "{printed}"
    );
    assert!(
        printed.contains("yes: this run's truth 0.3000, survey estimate"),
        "{printed}"
    );
    // The demo's k is 5: considerations every 5 arrivals release a cell's unreleased
    // responses once they are k + 2; after 41 the figures hold the 40 of the last one.
    assert!(printed.contains("(n = 40)"), "{printed}");
    assert!(printed.contains("cover this run's truth"), "{printed}");
}

#[tokio::test]
async fn verify_passes_against_this_binary_and_fails_against_a_changed_form_js() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let server = serve(&db, &["serve"]);
    let link = format!("{}/s/demo", server.address);
    let output = tokio::task::spawn_blocking(move || deniable(&["verify", &link], ""))
        .await
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    for file in [
        "form.js",
        "form-core.js",
        "form.css",
        "randomized_response.wasm",
    ] {
        let hash = hex_sha256(&std::fs::read(format!("static/{file}")).unwrap());
        assert!(
            printed.contains(&format!("ok         {hash}  /static/{file}")),
            "{file}: {printed}"
        );
    }
    drop(server);

    // The same server, but serving its files from a directory with a changed form.js.
    let changed = directory.path().join("static");
    std::fs::create_dir(&changed).unwrap();
    for entry in std::fs::read_dir("static").unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), changed.join(entry.file_name())).unwrap();
    }
    let mut form = std::fs::read_to_string(changed.join("form.js")).unwrap();
    form.push_str("\n// sends the true answers elsewhere\n");
    std::fs::write(changed.join("form.js"), form).unwrap();
    let server = serve(&db, &["serve", "--static-dir", changed.to_str().unwrap()]);
    let (base, address) = (server.address.clone(), server.address.clone());
    let output =
        tokio::task::spawn_blocking(move || deniable(&["verify", &base, "--survey", "demo"], ""))
            .await
            .unwrap();
    assert!(!output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(printed.contains(&format!("{address}/s/demo")), "{printed}");
    assert!(
        printed.lines().any(|line| line.starts_with("DIFFERENT")
            && line.contains("/static/form.js (this binary's copy:")),
        "{printed}"
    );
    assert!(
        printed.contains("ok         "),
        "the other files still match: {printed}"
    );
    // The page's style, icon and four scripts (the form's and the blind tokens'), and the
    // two WebAssembly modules they load.
    assert!(error.contains("1 of 10 checks differ"), "{error}");
    assert!(printed.contains("/static/blind_tokens.wasm"), "{printed}");
}

#[test]
fn verify_print_hashes_lists_every_built_in_file() {
    let output = deniable(&["verify", "--print-hashes"], "");
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    for entry in std::fs::read_dir("static").unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let hash = hex_sha256(&std::fs::read(entry.path()).unwrap());
        assert!(
            printed.contains(&format!("{hash}  {name}\n")),
            "{name}: {printed}"
        );
    }
}

fn hex_sha256(bytes: &[u8]) -> String {
    hex::encode(deniable::crypto::sha256(bytes))
}

#[tokio::test]
async fn the_first_account_made_with_the_command_line_adopts_the_demo_before_or_after_a_start() {
    // Added while the server runs: the demo exists and moves at once.
    let app = spawn_app().await;
    let db = app.db_path.clone();
    let added = tokio::task::spawn_blocking(move || researcher_add(&db, "first@example.org"))
        .await
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    let token = accounts::create_token(
        &app.db,
        deniable::domain::Email::parse("first@example.org").unwrap(),
    )
    .await
    .unwrap();
    let results = app
        .owner_get(token.expose(), "/api/surveys/demo/results")
        .await;
    assert_eq!(results.status(), 200, "the first account owns the demo");
    let second = app.researcher_with_token("second@example.org").await;
    let refused = app.owner_get(&second, "/api/surveys/demo/results").await;
    assert_eq!(refused.status(), 404, "the second one does not");

    // Added before the server ever started (no demo yet): the first start hands it over.
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    let added = researcher_add(&db, "early@example.org");
    assert!(added.status.success(), "{added:?}");
    let db = deniable::serve::prepare_database_with(&db, deniable::db::DEFAULT_COMPACT_EVERY)
        .await
        .unwrap();
    let owner: String = db
        .read(|connection| {
            Ok(connection.query_row(
                "SELECT researchers.email FROM surveys JOIN researchers
                 ON researchers.id = surveys.owner_id WHERE slug = 'demo'",
                (),
                |row| row.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(owner, "early@example.org");
    db.close().await.unwrap();
}

#[tokio::test]
async fn the_cli_prints_invitations_as_csv_that_the_server_redeems() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_invitation_survey(&[1.0, 2.0]).await;
    let output = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args([
            "invitations",
            "create",
            "--survey",
            &slug,
            "--count",
            "3",
            "--url",
            "https://survey.example.org",
        ])
        .arg("--db")
        .arg(&app.db_path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let invitations = parse_invitations(&String::from_utf8(output.stdout).unwrap(), &slug);
    assert_eq!(invitations.codes.len(), 3);
    assert_eq!(
        invitations.links[0],
        format!(
            "https://survey.example.org/s/{slug}#invitation={}&key={}",
            invitations.codes[0], invitations.fingerprint
        )
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains(&invitations.fingerprint));
    let bought = app.token_for(&slug, &invitations.codes[0]).await;
    assert_eq!(
        app.submit_with_token(&slug, answers(&ids), Some(&bought), None)
            .await
            .status(),
        201
    );
}

#[test]
fn survey_create_takes_a_completion_link_and_embed_origins_and_refuses_a_bad_one_with_its_reason() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("deniable.db");
    deniable_ok(
        &db,
        &["researcher", "add", "owner@example.org"],
        &format!("{PASSWORD}\n"),
    );
    let create = |definition: Value| {
        let file = directory.path().join("survey.json");
        std::fs::write(&file, definition.to_string()).unwrap();
        deniable(
            &[
                "survey",
                "create",
                "--owner",
                "owner@example.org",
                "--file",
                file.to_str().unwrap(),
                "--db",
                db.to_str().unwrap(),
            ],
            "",
        )
    };
    let question = json!([{"text": "Q?", "epsilon": 1.0}]);
    let created = create(json!({"title": "T", "questions": question,
        "completion_url": "https://app.prolific.com/submissions/complete?cc=C0DE",
        "embed_origins": ["https://survey.example.org"]}));
    assert!(created.status.success(), "{created:?}");
    for (field, value, reason) in [
        (
            "completion_url",
            json!("https://panel.example/{path}"),
            "in its host or path",
        ),
        (
            "embed_origins",
            json!(["https://*.example.org"]),
            "has a wildcard",
        ),
    ] {
        let refused = create(json!({"title": "T", "questions": question, field: value}));
        assert!(!refused.status.success());
        let error = String::from_utf8(refused.stderr).unwrap();
        assert!(error.contains(field) && error.contains(reason), "{error}");
    }
    let help = String::from_utf8(deniable(&["survey", "create", "--help"], "").stdout).unwrap();
    assert!(help.contains("\"completion_url\"") && help.contains("\"embed_origins\""));
}
