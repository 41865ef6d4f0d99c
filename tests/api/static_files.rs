//! One binary: the static files are built in. A server started from a directory with no
//! `static/` beside it still serves the form's script, style and WebAssembly, with their
//! content types, an ETag and `Cache-Control: no-cache` for cheap revalidation.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{error_code, spawn_app};

/// Stops the child server however the test ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_binary_serves_its_static_files_from_a_directory_without_any_of_them() {
    let elsewhere = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_deniable"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", "deniable.db"])
        .current_dir(elsewhere.path())
        .env_remove("DENIABLE_STATIC_DIR")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let address = crate::common::serving_address(stdout);
    assert!(!elsewhere.path().join("static").exists());

    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    for (file, content_type, bytes) in [
        (
            "form.js",
            "text/javascript; charset=utf-8",
            &include_bytes!("../../static/form.js")[..],
        ),
        (
            "form-core.js",
            "text/javascript; charset=utf-8",
            &include_bytes!("../../static/form-core.js")[..],
        ),
        (
            "form-tokens.js",
            "text/javascript; charset=utf-8",
            &include_bytes!("../../static/form-tokens.js")[..],
        ),
        (
            "blind_tokens.wasm",
            "application/wasm",
            &include_bytes!("../../static/blind_tokens.wasm")[..],
        ),
        (
            "third-party-notices.txt",
            "text/plain; charset=utf-8",
            &include_bytes!("../../static/third-party-notices.txt")[..],
        ),
        (
            "receipt.js",
            "text/javascript; charset=utf-8",
            &include_bytes!("../../static/receipt.js")[..],
        ),
        (
            "form.css",
            "text/css; charset=utf-8",
            &include_bytes!("../../static/form.css")[..],
        ),
        (
            "randomized_response.wasm",
            "application/wasm",
            &include_bytes!("../../static/randomized_response.wasm")[..],
        ),
    ] {
        let response = client
            .get(format!("{address}/static/{file}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{file}");
        assert_eq!(response.headers()["content-type"], content_type, "{file}");
        assert_eq!(response.bytes().await.unwrap(), bytes, "{file}");
    }
    drop(server);
}

#[tokio::test]
async fn a_static_file_carries_an_etag_and_revalidates_with_a_bodiless_304() {
    let app = spawn_app().await;
    let first = app
        .client
        .get(app.url("/static/workspace.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "no-cache");
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.len() == 34, "{etag}");
    let again = app
        .client
        .get(app.url("/static/workspace.js"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"], etag.as_str());
    assert!(again.bytes().await.unwrap().is_empty());
    let other = app
        .client
        .get(app.url("/static/workspace.css"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200, "another file's tag does not match");
}

#[tokio::test]
async fn unknown_static_files_and_paths_are_json_404s() {
    let app = spawn_app().await;
    for path in [
        "/static/missing.js",
        "/static/..%2FCargo.toml",
        "/static/.hidden",
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response).await, "not_found", "{path}");
    }
}

#[tokio::test]
async fn a_development_static_dir_overrides_the_built_in_files() {
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(directory.path().join("form.js"), "// edited\n").unwrap();
    let mut settings = crate::common::test_settings();
    settings.static_dir = Some(directory.path().to_owned());
    let app = crate::common::spawn_app_with(settings).await;
    let response = app
        .client
        .get(app.url("/static/form.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "// edited\n");
    let missing = app
        .client
        .get(app.url("/static/form.css"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404, "only that directory is served");
}
