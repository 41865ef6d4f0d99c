//! The committed WebAssembly module is small, and exactly what the source builds to.
//!
//! The fresh build needs the wasm32-unknown-unknown target (`scripts/test` installs it);
//! where it is missing the comparison cannot run and the test says so instead of passing
//! silently. It is a build of its own, so `./scripts/test` runs it with `--long` only
//! (its name says `fresh_build`); it shares `target/wasm` with `scripts/build-wasm` and the
//! blind-token module's build.

use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const SIZE_LIMIT: usize = 20 * 1024;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn wasm_target_installed() -> bool {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output();
    match sysroot {
        Ok(output) => {
            let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_string();
            Path::new(&sysroot)
                .join("lib/rustlib")
                .join(WASM_TARGET)
                .exists()
        }
        Err(_) => false,
    }
}

fn committed() -> Vec<u8> {
    std::fs::read(workspace_root().join("static/randomized_response.wasm"))
        .expect("static/randomized_response.wasm is committed")
}

#[test]
fn the_committed_wasm_is_a_module_that_fits_in_20_kib() {
    let committed = committed();
    assert!(
        committed.len() <= SIZE_LIMIT,
        "the module is {} bytes",
        committed.len()
    );
    assert_eq!(
        &committed[..4],
        b"\0asm",
        "the committed file is a WebAssembly module"
    );
}

#[test]
fn the_committed_wasm_equals_a_fresh_build() {
    let root = workspace_root();
    let committed = committed();
    if !wasm_target_installed() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install the {WASM_TARGET} target (scripts/test does)"
        );
        eprintln!("{WASM_TARGET} is not installed: skipping the fresh-build comparison");
        return;
    }
    let target_dir = root.join("target/wasm");
    let status = Command::new(env!("CARGO"))
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "-p",
            "randomized-response",
            "--target",
            WASM_TARGET,
        ])
        .args(["--profile", "wasm", "--target-dir"])
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        // scripts/test lints while it builds (clippy-driver as the workspace's wrapper): the
        // module is built by plain rustc, as scripts/build-wasm builds it.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the wasm build failed");
    let fresh = std::fs::read(
        target_dir
            .join(WASM_TARGET)
            .join("wasm/randomized_response.wasm"),
    )
    .expect("the fresh build wrote a module");
    assert!(
        fresh == committed,
        "static/randomized_response.wasm is stale: run scripts/build-wasm and commit it \
         (fresh {} bytes, committed {} bytes)",
        fresh.len(),
        committed.len()
    );
}
