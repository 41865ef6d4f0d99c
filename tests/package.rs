//! The download that `scripts/package` builds (issue 32, item 1): one statically linked
//! binary with every page, script, WebAssembly module and translation inside, in a `.tar.gz`
//! with its licences, a "run me" text and SHA-256 sums. Copied alone into an empty directory
//! and started with an empty environment (`env -i`), it serves the demo, stores a scripted
//! client's response and stops cleanly on SIGTERM; as root, the same inside that directory as
//! a chroot, where no other file exists to be read.
//!
//! The archive is `scripts/package`'s (scripts/test runs it just before these tests), or the
//! one `DENIABLE_PACKAGE` names. Without it every test here fails, saying how to build it:
//! none passes on a package that is not there.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};

const TRIPLE: &str = "x86_64-unknown-linux-musl";

/// What the archive holds, inside its one directory.
const FILES: [&str; 6] = [
    "LICENSE-APACHE",
    "LICENSE-MIT",
    "README.txt",
    "SHA256SUMS",
    "THIRD-PARTY-LICENSES.txt",
    "deniable",
];

fn name() -> String {
    format!("deniable-{}-{TRIPLE}", env!("CARGO_PKG_VERSION"))
}

/// `DENIABLE_PACKAGE`, or `scripts/package`'s archive in this build's target directory.
fn archive() -> PathBuf {
    let archive = std::env::var_os("DENIABLE_PACKAGE").map_or_else(
        || {
            // CARGO_TARGET_TMPDIR is `<target directory>/tmp`, wherever CARGO_TARGET_DIR
            // puts it.
            Path::new(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .expect("the target directory")
                .join("dist")
                .join(format!("{}.tar.gz", name()))
        },
        PathBuf::from,
    );
    assert!(
        archive.is_file(),
        "no package at {}: build it with scripts/package (scripts/test does, before the \
         Rust tests), or name one with DENIABLE_PACKAGE",
        archive.display()
    );
    archive
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref())
}

/// Held while this process copies the binary and while it starts any program. A child
/// forked while another thread still writes the copy would hold that file open for writing
/// until its own exec, and starting the copy would then fail with ETXTBSY ("text file
/// busy"): `cargo test` runs these tests as threads of one process (nextest does not).
static COPYING_OR_STARTING: Mutex<()> = Mutex::new(());

fn spawn(command: &mut Command) -> std::io::Result<Child> {
    let _alone = COPYING_OR_STARTING
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    command.spawn()
}

/// The packaged binary copied alone into a new empty directory.
fn copied_alone(unpacked: &Path) -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    let _alone = COPYING_OR_STARTING
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    std::fs::copy(unpacked.join("deniable"), directory.path().join("deniable")).unwrap();
    directory
}

fn run(program: &str, args: &[&str]) -> Output {
    let output = spawn(
        Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .and_then(Child::wait_with_output)
    .unwrap_or_else(|error| panic!("{program} does not start: {error}"));
    assert!(output.status.success(), "{program} {args:?}: {output:?}");
    output
}

/// The archive unpacked into a fresh directory: the directory (kept until dropped) and the
/// archive's own directory inside it.
fn unpack() -> (tempfile::TempDir, PathBuf) {
    let directory = tempfile::tempdir().unwrap();
    let archive = archive();
    run(
        "tar",
        &[
            "-xzf",
            archive.to_str().unwrap(),
            "-C",
            directory.path().to_str().unwrap(),
        ],
    );
    let unpacked = directory.path().join(name());
    (directory, unpacked)
}

fn entries(directory: &Path) -> BTreeSet<String> {
    std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect()
}

#[test]
fn the_archive_holds_the_binary_its_licences_a_run_me_text_and_sums_that_match() {
    let archive = archive();
    let bytes = std::fs::read(&archive).unwrap();
    let published = std::fs::read_to_string(format!("{}.sha256", archive.display()))
        .expect("a .sha256 file beside the archive");
    assert_eq!(
        published,
        format!("{}  {}.tar.gz\n", sha256_hex(&bytes), name()),
        "the archive's .sha256 (sha256sum -c reads it)"
    );

    let (_directory, unpacked) = unpack();
    assert_eq!(entries(&unpacked), FILES.map(String::from).into());
    let sums = std::fs::read_to_string(unpacked.join("SHA256SUMS")).unwrap();
    let summed: BTreeSet<String> = sums
        .lines()
        .map(|line| {
            let (hash, file) = line.split_once("  ").expect("sha256sum's format");
            let contents = std::fs::read(unpacked.join(file)).unwrap();
            assert_eq!(hash, sha256_hex(&contents), "{file}");
            file.to_owned()
        })
        .collect();
    let mut others = FILES.map(String::from).to_vec();
    others.retain(|file| file != "SHA256SUMS");
    assert_eq!(summed, others.into_iter().collect());

    let binary = unpacked.join("deniable");
    let mode = std::os::unix::fs::PermissionsExt::mode(&binary.metadata().unwrap().permissions());
    assert_eq!(mode & 0o755, 0o755, "executable by everyone");
    let run_me = std::fs::read_to_string(unpacked.join("README.txt")).unwrap();
    assert!(run_me.contains("\n    ./deniable\n"), "{run_me}");
    let notices = std::fs::read_to_string(unpacked.join("THIRD-PARTY-LICENSES.txt")).unwrap();
    for linked in ["\nactix-web ", "\nring ", "\nlibsqlite3-sys ", "\nmusl "] {
        assert!(
            notices.contains(linked),
            "{linked:?} in THIRD-PARTY-LICENSES.txt"
        );
    }
    eprintln!(
        "{}: {} bytes; the binary {} bytes",
        archive.display(),
        bytes.len(),
        binary.metadata().unwrap().len()
    );
}

#[test]
fn the_binary_is_statically_linked_with_no_needed_library_and_no_interpreter() {
    let (_directory, unpacked) = unpack();
    let binary = unpacked.join("deniable");
    let binary = binary.to_str().unwrap();
    let dynamic = String::from_utf8(run("readelf", &["-d", binary]).stdout).unwrap();
    assert!(!dynamic.contains("(NEEDED)"), "readelf -d:\n{dynamic}");
    let headers = String::from_utf8(run("readelf", &["-lW", binary]).stdout).unwrap();
    assert!(
        headers.contains("LOAD") && !headers.contains("INTERP"),
        "readelf -l:\n{headers}"
    );
    let header = String::from_utf8(run("readelf", &["-h", binary]).stdout).unwrap();
    assert!(header.contains("X86-64"), "readelf -h:\n{header}");
}

#[tokio::test]
async fn alone_in_an_empty_directory_with_an_empty_environment_it_serves_stores_and_stops() {
    let (_unpacked, from) = unpack();
    let directory = copied_alone(&from);

    let mut command = Command::new(directory.path().join("deniable"));
    command.current_dir(directory.path());
    let (stdout, log) = serve_store_and_stop(command, directory.path()).await;
    eprintln!(
        "`env -i ./deniable --addr 127.0.0.1:0` in an empty directory printed\n\
         on standard output:\n{stdout}on standard error (requests left out):\n{log}"
    );
}

#[tokio::test]
async fn as_root_it_does_the_same_inside_that_directory_as_a_chroot() {
    let (_unpacked, from) = unpack();
    let user = String::from_utf8(run("id", &["-u"]).stdout).unwrap();
    if user.trim() != "0" {
        eprintln!(
            "Not run inside a chroot: this test runs as user {} and only root may chroot \
             (CI runs as root); the empty-directory test above ran the same checks.",
            user.trim()
        );
        return;
    }
    let chroot = ["/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot"]
        .into_iter()
        .find(|path| Path::new(path).is_file())
        .expect("coreutils' chroot, as root");
    let directory = copied_alone(&from);

    // Inside, `/` is the directory that holds the binary alone: no /dev, /etc, /proc or
    // /tmp, no source tree; chroot(1) starts it in `/`, where it makes deniable.db.
    let mut command = Command::new(chroot);
    command.arg(directory.path()).arg("/deniable");
    let (stdout, _) = serve_store_and_stop(command, directory.path()).await;
    eprintln!(
        "Inside a chroot of {}, it printed on standard output:\n{stdout}",
        directory.path().display()
    );
}

/// Starts `command` (the packaged binary, with `--addr 127.0.0.1:0` added) with an empty
/// environment; checks the pages, files and translations it serves, stores a response as
/// a device would, stops it with SIGTERM and checks it exits 0, its database file in
/// `directory` holding the response on its own. Returns what it printed on standard output,
/// and its log (standard error) without the requests.
async fn serve_store_and_stop(mut command: Command, directory: &Path) -> (String, String) {
    let mut server = KillOnDrop(
        spawn(
            command
                .args(["--addr", "127.0.0.1:0"])
                .env_clear()
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .expect("the packaged binary starts"),
    );
    let stderr = collect(server.0.stderr.take().unwrap());
    let (lines, stdout) = lines_of(server.0.stdout.take().unwrap());
    let first = lines
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_default();
    let Some(address) = first.strip_prefix("Deniable is serving on ") else {
        drop(server);
        panic!(
            "the first line is {first:?}, not \"Deniable is serving on …\"; standard error:\n{}",
            stderr.join().unwrap()
        );
    };
    let address = address.to_owned();

    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client");
    serves_every_page_file_and_translation(&client, &address).await;
    let record_id = stores_a_response_as_a_device_would(&client, &address).await;

    run("kill", &["-TERM", &server.0.id().to_string()]);
    let status = wait_for_exit(&mut server.0).await;
    let stdout = stdout.join().unwrap();
    let stderr = stderr.join().unwrap();
    // Its log, but for one line per request the client made.
    let log: String = stderr
        .lines()
        .filter(|line| !line.contains(" deniable::http: request "))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(
        status.code(),
        Some(0),
        "{status}; it printed:\n{stdout}{log}"
    );
    assert!(
        stdout.contains("\nDeniable stopped; every acknowledged response is committed"),
        "{stdout}{log}"
    );

    // The directory holds the binary and its database; SQLite may leave an empty -wal and
    // its -shm (tests/api/lifecycle.rs): the database file alone holds everything.
    let left: BTreeSet<String> = entries(directory);
    assert!(left.contains("deniable.db"), "{left:?}");
    assert!(
        left.iter().all(|file| [
            "deniable",
            "deniable.db",
            "deniable.db-wal",
            "deniable.db-shm"
        ]
        .contains(&file.as_str())),
        "{left:?}"
    );
    let wal = directory.join("deniable.db-wal");
    assert!(
        !wal.exists() || wal.metadata().unwrap().len() == 0,
        "no WAL content after a graceful stop"
    );
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(directory.join("deniable.db"), alone.path().join("copy.db")).unwrap();
    let database = rusqlite::Connection::open(alone.path().join("copy.db")).unwrap();
    let stored: i64 = database
        .query_row(
            "SELECT count(*) FROM all_responses WHERE record_id = ?1",
            [hex::decode(&record_id).unwrap()],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(stored, 1, "the response is committed in deniable.db alone");
    (stdout, log)
}

/// The respondent's pages, the researchers' sign-in, every file of `static/` byte for byte,
/// and the "survey not found" page in each language of `locales/`: none of it is read from
/// a working directory, so all of it must be inside the binary.
async fn serves_every_page_file_and_translation(client: &reqwest::Client, address: &str) {
    let definition: Value = get(client, &format!("{address}/api/surveys/demo"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(definition["status"], "open", "{definition}");
    let title = definition["title"].as_str().unwrap();
    let form = get(client, &format!("{address}/s/demo"))
        .await
        .text()
        .await
        .unwrap();
    assert!(form.contains(title), "the demo's form:\n{form}");
    for page in ["/s/demo/receipt", "/login", "/api/openapi.json"] {
        get(client, &format!("{address}{page}")).await;
    }

    let sources = Path::new(env!("CARGO_MANIFEST_DIR"));
    let static_files = entries(&sources.join("static"));
    assert!(static_files.contains("randomized_response.wasm"));
    for file in &static_files {
        let served = get(client, &format!("{address}/static/{file}"))
            .await
            .bytes()
            .await
            .unwrap();
        let source = std::fs::read(sources.join("static").join(file)).unwrap();
        assert!(
            served == source,
            "/static/{file} differs from static/{file}: a package older than the sources? \
             (scripts/package builds a new one)"
        );
    }

    let languages = entries(&sources.join("locales"));
    assert_eq!(languages.len(), 4, "{languages:?}");
    for language in &languages {
        let catalog =
            std::fs::read_to_string(sources.join("locales").join(language).join("error.ftl"))
                .unwrap();
        let title = catalog
            .lines()
            .find_map(|line| line.strip_prefix("not-found-title = "))
            .expect("the catalog's not-found-title");
        let response = client
            .get(format!("{address}/s/no-such-survey"))
            .header("accept-language", language.as_str())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        let page = response.text().await.unwrap();
        assert!(
            page.contains(&format!("<html lang=\"{language}\">"))
                && page.contains(&format!("<h1>{title}</h1>")),
            "locales/{language}: {page}"
        );
    }
}

/// A device's submission to the demo (tests/api/submissions.rs): a receipt of 32 random bytes
/// as 43 base64url characters, its hex SHA-256 as the `response_id`, and a report per
/// question of the public definition. Checks the receipt then finds the reports; returns the
/// record id.
async fn stores_a_response_as_a_device_would(client: &reqwest::Client, address: &str) -> String {
    let definition: Value = get(client, &format!("{address}/api/surveys/demo"))
        .await
        .json()
        .await
        .unwrap();
    let mut answers = serde_json::Map::new();
    for question in definition["questions"].as_array().unwrap() {
        // Yes/no reports alternate 1, 0, 1; anything else reports its first option or end.
        let report = match question["type"].as_str() {
            Some("yes_no") => 1 - question["position"].as_u64().unwrap() % 2,
            _ => 0,
        };
        answers.insert(question["id"].to_string(), json!(report));
    }
    let mut secret = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut secret).unwrap();
    let receipt = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret);
    assert_eq!(receipt.len(), 43);
    let response_id = sha256_hex(receipt.as_bytes());

    let sent = client
        .post(format!("{address}/api/surveys/demo/responses"))
        .json(&json!({"answers": answers, "response_id": response_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 201);
    let sent: Value = sent.json().await.unwrap();
    assert_eq!(sent["status"], "stored", "{sent}");
    let record_id = sent["record_id"].as_str().unwrap().to_owned();
    assert_eq!(record_id, sha256_hex(response_id.as_bytes()));

    let found = client
        .post(format!("{address}/api/surveys/demo/responses/lookup"))
        .json(&json!({ "receipt": receipt }))
        .send()
        .await
        .unwrap();
    assert_eq!(found.status(), 200);
    let found: Value = found.json().await.unwrap();
    let reports: serde_json::Map<String, Value> = found["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|report| (report["question_id"].to_string(), report["report"].clone()))
        .collect();
    assert_eq!(reports, answers, "the receipt finds the reports sent");
    record_id
}

/// A GET that must answer 200.
async fn get(client: &reqwest::Client, url: &str) -> reqwest::Response {
    let response = client.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200, "GET {url}");
    response
}

/// The lines of the server's standard output as they come, and all of it once it closes.
fn lines_of(
    stdout: std::process::ChildStdout,
) -> (mpsc::Receiver<String>, std::thread::JoinHandle<String>) {
    let (sender, receiver) = mpsc::channel();
    let all = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            all.push_str(&line);
            all.push('\n');
            let _ = sender.send(line);
        }
        all
    });
    (receiver, all)
}

/// Everything the server writes to standard error, once it closes (so it never blocks on a
/// full pipe).
fn collect(stderr: std::process::ChildStderr) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut all = String::new();
        BufReader::new(stderr).read_to_string(&mut all).unwrap();
        all
    })
}

/// The server, killed if a check fails before it is stopped (else it would outlive the test).
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

async fn wait_for_exit(server: &mut Child) -> std::process::ExitStatus {
    for _ in 0..600 {
        if let Some(status) = server.try_wait().unwrap() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not stop within 30 s of SIGTERM");
}
