//! The committed WebAssembly module is exactly what the source builds to, and small.
//!
//! Needs the wasm32-unknown-unknown target (`scripts/test` installs it); where it is
//! missing the comparison cannot run and the test says so instead of passing silently.

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

#[test]
fn the_committed_wasm_equals_a_fresh_build_and_fits_in_20_kib() {
    let root = workspace_root();
    let committed = std::fs::read(root.join("static/randomized_response.wasm"))
        .expect("static/randomized_response.wasm is committed");
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

    if !wasm_target_installed() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install the {WASM_TARGET} target (scripts/test does)"
        );
        eprintln!("{WASM_TARGET} is not installed: skipping the fresh-build comparison");
        return;
    }
    let target_dir = root.join("target/wasm-check");
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
