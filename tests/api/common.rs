//! `spawn_app()`: a real server on 127.0.0.1:0 with a fresh temporary database.
#![allow(dead_code)] // each test binary uses a different part of the harness

use std::path::PathBuf;
use std::sync::Arc;

use actix_web::dev::ServerHandle;
use deniable::crypto::PasswordHash;
use deniable::db::sql::FromValue;
use deniable::db::{Database, DbLocation};
use deniable::domain::Email;
use deniable::http::Settings;
use deniable::serve;
use deniable::services::accounts;
use serde_json::{json, Value};
use tempfile::TempDir;

/// Every test researcher's password.
pub const TEST_PASSWORD: &str = "correct horse battery staple";

/// [`TEST_PASSWORD`]'s hash, derived once per test binary and shared by every account the
/// tests create: PBKDF2 at the production's 600 000 iterations costs about a quarter of a
/// second of CPU, and the suites create hundreds of accounts. Signing in still verifies it
/// as in production, and `accounts::add_researcher` is tested where it is the subject.
pub fn test_password_hash() -> PasswordHash {
    static HASH: std::sync::OnceLock<PasswordHash> = std::sync::OnceLock::new();
    HASH.get_or_init(|| PasswordHash::derive(TEST_PASSWORD).expect("the password hashes"))
        .clone()
}

pub struct TestApp {
    pub address: String,
    /// The SQLite file (absent on the PostgreSQL pass, which uses [`TestApp::db_location`]).
    pub db_path: PathBuf,
    /// The SQLite file, or on the PostgreSQL pass the test's own schema.
    pub db_location: DbLocation,
    pub db: Database,
    pub client: reqwest::Client,
    /// `None` for a server that runs elsewhere ([`remote_app`]).
    handle: Option<ServerHandle>,
    directory: Arc<TempDir>,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(test_settings()).await
}

/// The settings of `spawn_app()`: any free port, two workers, no HSTS, no rate limit, the
/// static files built into the binary.
pub fn test_settings() -> Settings {
    let mut settings = Settings::new(2);
    settings.addr = "127.0.0.1:0".to_owned();
    settings
}

pub async fn spawn_app_with(settings: Settings) -> TestApp {
    spawn_app_in_with(
        Arc::new(tempfile::tempdir().expect("a temporary directory")),
        settings,
    )
    .await
}

/// Spawns a server on the database file in `directory` (used again after a restart).
pub async fn spawn_app_in(directory: Arc<TempDir>) -> TestApp {
    spawn_app_in_with(directory, test_settings()).await
}

pub async fn spawn_app_in_with(directory: Arc<TempDir>, settings: Settings) -> TestApp {
    spawn_app_with_epochs(directory, settings, deniable::db::DEFAULT_COMPACT_EVERY).await
}

/// A server whose compaction epochs run within `compact_every` of any write.
pub async fn spawn_app_with_epochs(
    directory: Arc<TempDir>,
    mut settings: Settings,
    compact_every: std::time::Duration,
) -> TestApp {
    let db_path = directory.path().join("deniable.db");
    let db_location = database_in(directory.path());
    settings.database = db_location.clone();
    settings.compact_every = compact_every;
    let db = serve::prepare_database_with(&settings.database, settings.compact_every)
        .await
        .expect("database opens");
    let listening = serve::listen(db.clone(), settings).expect("server binds");
    let handle = Some(listening.handle());
    let address = format!("http://{}", listening.addr);
    tokio::spawn(listening.server);
    TestApp {
        address,
        db_path,
        db_location,
        db,
        client: test_client(),
        handle,
        directory,
    }
}

/// The PostgreSQL server of the suite's PostgreSQL pass (`scripts/test` sets it to a URL
/// of the throwaway cluster's `postgres` database); unset, every test uses SQLite files.
pub fn test_postgres() -> Option<String> {
    std::env::var("DENIABLE_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
}

/// The database of a test directory: its SQLite file, or on the PostgreSQL pass a fresh
/// schema of its own, named in a file of the directory so that a restarted server finds it
/// again. (A schema costs far less than a database: hundreds of tests make one each.)
pub fn database_in(directory: &std::path::Path) -> DbLocation {
    let Some(server) = test_postgres() else {
        return DbLocation::Sqlite(directory.join("deniable.db"));
    };
    if let Ok(url) = std::fs::read_to_string(directory.join("postgres-database")) {
        return DbLocation::Postgres(url);
    }
    let marker = directory.join("postgres-schema");
    let schema = std::fs::read_to_string(&marker).unwrap_or_else(|_| {
        let schema = fresh_schema(&server);
        std::fs::write(&marker, &schema).expect("the schema's name is written");
        schema
    });
    DbLocation::Postgres(with_search_path(&server, &schema))
}

/// On the PostgreSQL pass, makes the database of `directory` a fresh database of its own
/// rather than a schema: group transactions take an advisory lock, which is per database,
/// so servers of different tests that write a lot do not wait for each other.
pub fn own_database_in(directory: &std::path::Path) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let Some(server) = test_postgres() else {
        return;
    };
    let name = format!(
        "d_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let (admin, created) = (server.clone(), name.clone());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&admin, postgres::NoTls)
            .expect("the test PostgreSQL server answers");
        client
            .batch_execute(&format!("CREATE DATABASE {created}"))
            .expect("a database is created");
    })
    .join()
    .expect("the database is created");
    let url = server.replacen("/postgres?", &format!("/{name}?"), 1);
    assert_ne!(
        url, server,
        "the test server's URL names its postgres database: {server}"
    );
    std::fs::write(directory.join("postgres-database"), url).expect("the URL is written");
}

/// A new, empty schema on the test server; its name.
pub fn fresh_schema(server: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let schema = format!(
        "t_{}_{}_{}",
        std::process::id(),
        nanos,
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let (server, name) = (server.to_owned(), schema.clone());
    // The blocking client runs a runtime of its own: not on the test's async runtime.
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&server, postgres::NoTls)
            .expect("the test PostgreSQL server answers");
        client
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .expect("a schema is created");
    })
    .join()
    .expect("the schema is created");
    schema
}

/// The server's URL with `search_path` set to `schema` (the connection's option).
pub fn with_search_path(server: &str, schema: &str) -> String {
    let separator = if server.contains('?') { '&' } else { '?' };
    format!("{server}{separator}options=-c%20search_path%3D{schema}")
}

/// A server that runs elsewhere at `address` (a child process of a multi-node test), with
/// this process's own handle on its database for the library's shortcuts
/// ([`TestApp::researcher_with_token`]).
pub async fn remote_app(address: String, location: DbLocation) -> TestApp {
    let db = Database::open(&location).expect("the database opens");
    TestApp {
        address,
        db_path: PathBuf::new(),
        db_location: location,
        db,
        client: test_client(),
        handle: None,
        directory: Arc::new(tempfile::tempdir().expect("a temporary directory")),
    }
}

/// The tests' HTTP client: it drops idle connections well before the server's keep-alive
/// (5 s) closes them, so a request is never sent on a connection the server is closing.
pub fn test_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

pub fn survey_definition(epsilons: &[f64]) -> Value {
    let questions: Vec<Value> = epsilons
        .iter()
        .enumerate()
        .map(|(i, epsilon)| json!({"text": format!("Sensitive question {}?", i + 1), "epsilon": epsilon}))
        .collect();
    json!({"title": "Test survey", "description": "For tests.", "questions": questions})
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// Stops the server gracefully and hands back its directory, database file included.
    pub async fn stop(self) -> Arc<TempDir> {
        if let Some(handle) = self.handle {
            handle.stop(true).await;
        }
        self.directory
    }

    /// A researcher created through the storage (with [`test_password_hash`]), and a fresh
    /// API token for them.
    pub async fn researcher_with_token(&self, email: &str) -> String {
        let email = Email::parse(email).unwrap();
        self.add_researcher(email.clone()).await;
        accounts::create_token(&self.db, email)
            .await
            .expect("token created")
            .expose()
            .to_owned()
    }

    /// Adds a researcher whose password is [`TEST_PASSWORD`], hashed once per test binary.
    pub async fn add_researcher(&self, email: Email) {
        self.db
            .add_researcher(email, test_password_hash())
            .await
            .expect("researcher added");
    }

    pub async fn create_survey(&self, token: &str, definition: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/surveys"))
            .bearer_auth(token)
            .json(definition)
            .send()
            .await
            .unwrap()
    }

    /// Creates a survey from `definition` (201) and opens it (200); its slug.
    pub async fn open_definition(&self, token: &str, definition: &Value) -> String {
        let created = self.create_survey(token, definition).await;
        assert_eq!(created.status(), 201);
        let slug = created.json::<Value>().await.unwrap()["slug"]
            .as_str()
            .unwrap()
            .to_owned();
        let opened = self
            .owner_post(token, &format!("/api/surveys/{slug}/open"))
            .await;
        assert_eq!(opened.status(), 200);
        slug
    }

    /// Creates a draft survey and returns its slug and question ids.
    pub async fn draft_survey(&self, token: &str, epsilons: &[f64]) -> (String, Vec<i64>) {
        let response = self
            .create_survey(token, &survey_definition(epsilons))
            .await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.unwrap();
        let ids = body["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["id"].as_i64().unwrap())
            .collect();
        (body["slug"].as_str().unwrap().to_owned(), ids)
    }

    pub async fn owner_post(&self, token: &str, path: &str) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    pub async fn owner_get(&self, token: &str, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    /// The survey's CSV export, as its owner downloads it.
    pub async fn export_csv(&self, token: &str, slug: &str) -> String {
        let response = self
            .owner_get(token, &format!("/api/surveys/{slug}/export.csv"))
            .await;
        assert_eq!(response.status(), 200);
        response.text().await.unwrap()
    }

    /// A researcher, a token and an open survey with one question per ε.
    /// Closes an open survey (`POST …/close`), so that its releases are considered a last
    /// time and its export may be made.
    pub async fn close(&self, token: &str, slug: &str) {
        let closed = self
            .owner_post(token, &format!("/api/surveys/{slug}/close"))
            .await;
        assert_eq!(closed.status(), 200, "{slug} closes");
    }

    pub async fn open_survey(&self, epsilons: &[f64]) -> (String, String, Vec<i64>) {
        let token = self.researcher_with_token("owner@example.org").await;
        let (slug, ids) = self.draft_survey(&token, epsilons).await;
        let opened = self
            .owner_post(&token, &format!("/api/surveys/{slug}/open"))
            .await;
        assert_eq!(opened.status(), 200);
        (token, slug, ids)
    }

    pub async fn submit(&self, slug: &str, answers: Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/responses")))
            .json(&json!({ "answers": answers }))
            .send()
            .await
            .unwrap()
    }

    pub async fn submit_raw(
        &self,
        slug: &str,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/responses")))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// Submits and returns the receipt.
    pub async fn submit_ok(&self, slug: &str, answers: Value) -> String {
        let response = self.submit(slug, answers).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.unwrap();
        body["receipt"].as_str().unwrap().to_owned()
    }

    pub async fn results(&self, token: &str, slug: &str) -> Value {
        let response = self
            .owner_get(token, &format!("/api/surveys/{slug}/results"))
            .await;
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    /// The owner's breakdown by a grouping question: `GET …/results?by=<id>`.
    pub async fn breakdown(&self, token: &str, slug: &str, grouping: i64) -> Value {
        let response = self
            .owner_get(token, &format!("/api/surveys/{slug}/results?by={grouping}"))
            .await;
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    /// What the server holds for a receipt: `POST …/responses/lookup` (receipts travel in
    /// bodies, never in a URL).
    pub async fn lookup(&self, slug: &str, receipt: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/responses/lookup")))
            .json(&json!({ "receipt": receipt }))
            .send()
            .await
            .unwrap()
    }

    /// `POST …/responses/withdraw` with the receipt in the body.
    pub async fn withdraw(&self, slug: &str, receipt: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/responses/withdraw")))
            .json(&json!({ "receipt": receipt }))
            .send()
            .await
            .unwrap()
    }

    /// The first column of the first row of `sql`, read through the storage seam
    /// ([`Database::read`]) on whichever engine the test runs: a test that checks what is
    /// stored reads it this way, not from the SQLite file.
    pub async fn stored_value<T: FromValue + Send + 'static>(&self, sql: impl Into<String>) -> T {
        let sql = sql.into();
        let shown = sql.clone();
        self.db
            .read(move |connection| Ok(connection.query_row(&sql, (), |row| row.get::<_, T>(0))?))
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"))
    }

    /// Runs one statement as the writer would, through the storage seam, on either engine:
    /// what someone holding the database's credentials could try. The error is the
    /// engine's text (its triggers' refusals).
    pub async fn execute_sql(&self, sql: impl Into<String>) -> Result<usize, String> {
        let sql = sql.into();
        self.db
            .write(move |connection| Ok(connection.execute(&sql, ())?))
            .await
            .map_err(|error| error.to_string())
    }

    /// The first column of every row of `sql`, as [`TestApp::stored_value`] reads it.
    pub async fn stored_column<T: FromValue + Send + 'static>(
        &self,
        sql: impl Into<String>,
    ) -> Vec<T> {
        let sql = sql.into();
        let shown = sql.clone();
        self.db
            .read(move |connection| {
                Ok(connection
                    .prepare(&sql)?
                    .query_map((), |row| row.get::<_, T>(0))?
                    .collect::<Result<Vec<T>, _>>()?)
            })
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"))
    }

    /// Reads the database file directly (read-only), as an auditor would.
    pub fn inspect(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(
            &self.db_path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap()
    }
}

/// The `error.code` of a JSON error response, checking its shape on the way.
pub async fn error_code(response: reqwest::Response) -> String {
    let body: Value = response.json().await.expect("errors are JSON");
    assert!(body["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    body["error"]["code"]
        .as_str()
        .expect("an error code")
        .to_owned()
}

/// Reads the real binary's first line, "Deniable is serving on ADDRESS", and returns
/// ADDRESS; the rest of its output is drained so the server never blocks on a full pipe.
pub fn serving_address(stdout: std::process::ChildStdout) -> String {
    use std::io::{BufRead, BufReader};
    let mut stdout = BufReader::new(stdout);
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let address = line
        .trim()
        .strip_prefix("Deniable is serving on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    std::thread::spawn(move || for _ in stdout.lines() {});
    address
}

/// A device's side of a blind token (what `static/form-tokens.js` does in the browser):
/// a random input, blinded; once the server answers, the token.
pub struct TokenDevice {
    pub input: [u8; 32],
    pub state: blind_tokens::ClientState,
    pub blinded: String,
}

impl TokenDevice {
    pub fn new() -> Self {
        let mut rng = rand::rng();
        let mut input = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rng, &mut input);
        let (state, blinded) = blind_tokens::blind(&input, &mut rng).expect("blinds");
        Self {
            input,
            state,
            blinded: blind_tokens::to_base64url(&blinded),
        }
    }

    /// The token from the server's answer, its proof checked against `public_key`
    /// (base64url, as the definition gives it).
    pub fn finalize(&self, answer: &Value, public_key: &str) -> Value {
        let bytes =
            |field: &str| blind_tokens::from_base64url(answer[field].as_str().unwrap()).unwrap();
        let key =
            blind_tokens::PublicKey::from_bytes(&blind_tokens::from_base64url(public_key).unwrap())
                .unwrap();
        let output =
            blind_tokens::finalize(&self.state, &bytes("evaluation"), &bytes("proof"), &key)
                .expect("the proof holds for the survey's key");
        json!({
            "input": blind_tokens::to_base64url(&self.input),
            "output": blind_tokens::to_base64url(&output),
        })
    }
}

/// A mail merge's invitations: the codes, in the CSV's order, and the key fingerprint that
/// every link carries.
pub struct Invitations {
    pub codes: Vec<String>,
    pub links: Vec<String>,
    pub fingerprint: String,
}

/// Parses the CSV `invitation,link,key_fingerprint`, checking every row's link.
pub fn parse_invitations(csv: &str, slug: &str) -> Invitations {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("invitation,link,key_fingerprint"));
    let (mut codes, mut links, mut fingerprints) = (Vec::new(), Vec::new(), Vec::new());
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(
            fields[1].ends_with(&format!(
                "/s/{slug}#invitation={}&key={}",
                fields[0], fields[2]
            )),
            "{line}"
        );
        codes.push(fields[0].to_owned());
        links.push(fields[1].to_owned());
        fingerprints.push(fields[2].to_owned());
    }
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 1, "one fingerprint for every link");
    Invitations {
        codes,
        links,
        fingerprint: fingerprints.remove(0),
    }
}

impl TestApp {
    /// An open survey that requires invitations, with one question per ε; returns (token,
    /// slug, question ids). `min_cell` 5, the least there is, and `results_after_close`
    /// false: the owner's views show released figures while it is open.
    pub async fn open_invitation_survey(&self, epsilons: &[f64]) -> (String, String, Vec<i64>) {
        let token = self.researcher_with_token("owner@example.org").await;
        let mut definition = survey_definition(epsilons);
        definition["requires_invitation"] = json!(true);
        definition["min_cell"] = json!(5);
        definition["results_after_close"] = json!(false);
        let created = self.create_survey(&token, &definition).await;
        assert_eq!(created.status(), 201);
        let body: Value = created.json().await.unwrap();
        assert_eq!(body["requires_invitation"], true);
        let slug = body["slug"].as_str().unwrap().to_owned();
        let ids = body["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["id"].as_i64().unwrap())
            .collect();
        let opened = self
            .owner_post(&token, &format!("/api/surveys/{slug}/open"))
            .await;
        assert_eq!(opened.status(), 200);
        (token, slug, ids)
    }

    pub async fn request_invitations(
        &self,
        token: &str,
        slug: &str,
        count: Value,
    ) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/invitations")))
            .bearer_auth(token)
            .json(&json!({ "count": count }))
            .send()
            .await
            .unwrap()
    }

    /// Creates invitations through the API and parses the CSV.
    pub async fn invitations(&self, token: &str, slug: &str, count: u32) -> Invitations {
        let response = self.request_invitations(token, slug, json!(count)).await;
        assert_eq!(response.status(), 201);
        parse_invitations(&response.text().await.unwrap(), slug)
    }

    /// The anonymous definition's `invitation_key.public_key`.
    pub async fn public_key(&self, slug: &str) -> String {
        let definition: Value = self
            .client
            .get(self.url(&format!("/api/surveys/{slug}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        definition["invitation_key"]["public_key"]
            .as_str()
            .expect("an invitation survey publishes its key")
            .to_owned()
    }

    pub async fn redeem(&self, slug: &str, invitation: &str, blinded: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/redemptions")))
            .json(&json!({ "invitation": invitation, "blinded": blinded }))
            .send()
            .await
            .unwrap()
    }

    /// An invitation exchanged for a token, as a device does it.
    pub async fn token_for(&self, slug: &str, invitation: &str) -> Value {
        let device = TokenDevice::new();
        let response = self.redeem(slug, invitation, &device.blinded).await;
        assert_eq!(response.status(), 200, "the invitation is redeemed");
        let answer: Value = response.json().await.unwrap();
        device.finalize(&answer, &self.public_key(slug).await)
    }

    /// POSTs a response with a token (and a response id when given).
    pub async fn submit_with_token(
        &self,
        slug: &str,
        answers: Value,
        token: Option<&Value>,
        response_id: Option<&str>,
    ) -> reqwest::Response {
        let mut body = json!({ "answers": answers });
        if let Some(token) = token {
            body["token"] = token.clone();
        }
        if let Some(response_id) = response_id {
            body["response_id"] = json!(response_id);
        }
        self.client
            .post(self.url(&format!("/api/surveys/{slug}/responses")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

/// A fresh receipt (43 base64url characters) and its response id (hex SHA-256).
pub fn receipt_and_response_id() -> (String, String) {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut bytes);
    let receipt = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let digest = ring::digest::digest(&ring::digest::SHA256, receipt.as_bytes());
    (receipt, hex::encode(digest.as_ref()))
}
