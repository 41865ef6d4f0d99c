//! The committed browser module is exactly what `scripts/build-token-wasm` builds, fits its
//! budget, imports nothing and exports only its buffer, its two functions and its memory.
//!
//! The fresh build needs the wasm32-unknown-unknown target and Debian's wasm-opt at the
//! version the script names (`scripts/install-test-deps` installs both); where either is
//! missing the comparison cannot run and the test says so instead of passing silently.

use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The module's budget (issue 20): 40 KiB after `wasm-opt -Oz`.
const SIZE_LIMIT: usize = 40 * 1024;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn committed() -> Vec<u8> {
    std::fs::read(workspace_root().join("static/blind_tokens.wasm"))
        .expect("static/blind_tokens.wasm is committed")
}

/// Reads one unsigned LEB128 number at `*at`.
fn leb128(bytes: &[u8], at: &mut usize) -> usize {
    let (mut value, mut shift) = (0usize, 0);
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return value;
        }
        shift += 7;
    }
}

/// The module's sections as (id, payload), in order.
fn sections(module: &[u8]) -> Vec<(u8, &[u8])> {
    assert_eq!(&module[..8], b"\0asm\x01\0\0\0", "a WebAssembly 1.0 module");
    let mut sections = Vec::new();
    let mut at = 8;
    while at < module.len() {
        let id = module[at];
        at += 1;
        let size = leb128(module, &mut at);
        sections.push((id, &module[at..at + size]));
        at += size;
    }
    assert_eq!(at, module.len());
    sections
}

/// The names of the export section (id 7), each with its kind (0 function, 2 memory, 3 global).
fn exports(payload: &[u8]) -> Vec<(String, u8)> {
    let mut at = 0;
    let count = leb128(payload, &mut at);
    (0..count)
        .map(|_| {
            let length = leb128(payload, &mut at);
            let name = String::from_utf8(payload[at..at + length].to_vec()).unwrap();
            at += length;
            let kind = payload[at];
            at += 1;
            leb128(payload, &mut at);
            (name, kind)
        })
        .collect()
}

#[test]
fn the_module_fits_in_40_kib_imports_nothing_and_exports_its_interface() {
    let module = committed();
    assert!(
        module.len() <= SIZE_LIMIT,
        "the module is {} bytes",
        module.len()
    );
    let sections = sections(&module);
    assert!(
        sections.iter().all(|(id, _)| *id != 2),
        "the module has an import section"
    );
    let (_, payload) = sections
        .iter()
        .find(|(id, _)| *id == 7)
        .expect("an export section");
    let mut functions: Vec<String> = exports(payload)
        .into_iter()
        .filter(|(_, kind)| *kind == 0)
        .map(|(name, _)| name)
        .collect();
    functions.sort();
    assert_eq!(functions, ["bt_blind", "bt_buffer", "bt_finalize"]);
    assert!(exports(payload).contains(&("memory".to_owned(), 2)));
}

fn tool_missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must provide {what} (scripts/install-test-deps does)"
    );
    eprintln!("{what} is missing: skipping the fresh-build comparison");
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

/// The wasm-opt version the script requires, read from the script itself.
fn required_wasm_opt(script: &str) -> String {
    let line = script
        .lines()
        .find_map(|line| line.strip_prefix("wasm_opt_version="))
        .expect("the script names its wasm-opt version");
    format!("wasm-opt version {line}")
}

#[test]
fn the_committed_module_equals_a_fresh_build() {
    let root = workspace_root();
    let script = root.join("scripts/build-token-wasm");
    let wanted = required_wasm_opt(&std::fs::read_to_string(&script).unwrap());
    if !wasm_target_installed() {
        return tool_missing(&format!("the {WASM_TARGET} target"));
    }
    let found = Command::new("wasm-opt").arg("--version").output();
    match found {
        Ok(output) if String::from_utf8_lossy(&output.stdout).trim() == wanted => {}
        _ => return tool_missing(&wanted),
    }

    let fresh_path = root.join("target/wasm-check/blind_tokens.wasm");
    let status = Command::new("bash")
        .arg(&script)
        .arg(&fresh_path)
        .current_dir(&root)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        // scripts/test lints while it builds (clippy-driver as the workspace's wrapper): the
        // module is built by plain rustc, as scripts/build-wasm builds it.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .status()
        .expect("bash runs");
    assert!(status.success(), "scripts/build-token-wasm failed");
    let fresh = std::fs::read(&fresh_path).expect("the fresh build wrote a module");
    assert!(
        fresh == committed(),
        "static/blind_tokens.wasm is stale: run scripts/build-token-wasm and commit it \
         (fresh {} bytes, committed {} bytes)",
        fresh.len(),
        committed().len()
    );
}
