//! The storage seam holds (issue 33, docs/contributing.md "Where code goes"): storage modules
//! import one another in one direction only, nothing outside the engine folders branches on
//! the engine, and handlers ask storage by meaning instead of holding a connection; the
//! HTTP layer's modules, too, import in one direction only (issue 34). Read from the
//! source, so a change that breaks the seam fails here with the file that did.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

fn rust_files(directory: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The code of a file without its comments (doc links name modules without importing them).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A path of the repository as a message shows it (`src/http/mod.rs`).
fn shown(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn source(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The modules of a folder of `src/` (`src/db`: `sqlite/writer`, `queries`, …) and the
/// sibling modules each one names, through `super::…` or `crate::{folder}::…`. A folder's
/// `mod.rs` only declares and re-exports, so it is no module of its own here: a name
/// re-exported there counts as the folder.
fn imports_within(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = source(&format!("src/{folder}"));
    let modules: BTreeMap<String, PathBuf> = rust_files(&root)
        .into_iter()
        .filter(|path| path.file_name().unwrap() != "mod.rs")
        .map(|path| {
            let module = path
                .strip_prefix(&root)
                .unwrap()
                .with_extension("")
                .to_string_lossy()
                .into_owned();
            (module, path)
        })
        .collect();
    // `super::…::{a, b}` or `super::…::name`: every path it names, as segments.
    let relative = Regex::new(r"\b((?:super::)+)((?:[a-z_]+::)*)(\{[^}]*\}|[a-z_]+)").unwrap();
    let absolute = Regex::new(&format!(r"crate::{folder}::([a-z_]+)(?:::([a-z_]+))?")).unwrap();
    let mut imports = BTreeMap::new();
    for (module, path) in &modules {
        let code = code(path);
        let parts: Vec<&str> = module.split('/').collect();
        let mut named = BTreeSet::new();
        let mut name = |candidates: Vec<String>| {
            if let Some(found) = candidates.into_iter().find(|c| modules.contains_key(c)) {
                if &found != module {
                    named.insert(found);
                }
            }
        };
        for capture in relative.captures_iter(&code) {
            let ups = capture[1].matches("super").count();
            let base: Vec<&str> = parts[..parts.len().saturating_sub(ups)].to_vec();
            let prefix: Vec<&str> = capture[2].split("::").filter(|s| !s.is_empty()).collect();
            let items: Vec<&str> = if capture[3].starts_with('{') {
                capture[3]
                    .trim_matches(|c| c == '{' || c == '}')
                    .split(',')
                    .map(str::trim)
                    .collect()
            } else {
                vec![&capture[3]]
            };
            for item in items {
                let mut segments = base.clone();
                segments.extend(&prefix);
                segments.extend(item.split("::").filter(|s| *s != "self"));
                // The longest path that is a module: `form::preview_html` names `form`.
                let candidates = (base.len() + 1..=segments.len())
                    .rev()
                    .map(|end| segments[..end].join("/"))
                    .collect();
                name(candidates);
            }
        }
        for capture in absolute.captures_iter(&code) {
            let first = capture[1].to_owned();
            let nested = capture.get(2).map(|m| format!("{first}/{}", m.as_str()));
            name(nested.into_iter().chain([first]).collect());
        }
        imports.insert(module.clone(), named);
    }
    imports
}

/// A module that can reach itself through the imports, with the path that does.
fn circle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        at: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut found = path[start..].to_vec();
            found.push(at.to_owned());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in imports.get(at).into_iter().flatten() {
            if let Some(found) = walk(next, imports, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|module| walk(module, imports, &mut Vec::new(), &mut done))
}

#[test]
fn storage_modules_import_one_another_in_one_direction_only() {
    let imports = imports_within("db");
    assert!(imports.contains_key("queries") && imports.contains_key("sqlite/writer"));
    assert!(
        imports["closing"].contains("releases"),
        "the reading of imports found the close step's: {:?}",
        imports["closing"]
    );
    assert_eq!(circle(&imports), None, "an import circle in src/db/");
}

/// Handlers, extractors and the OpenAPI document import in one direction only: the
/// document names the handlers, the handlers name what they share (`api/docs`, `extract`),
/// never the document.
#[test]
fn http_modules_import_one_another_in_one_direction_only() {
    let imports = imports_within("http");
    assert!(
        imports["openapi"].contains("api/surveys") && imports["pages/results"].contains("extract"),
        "the reading of imports found the document's and a page's: {:?}",
        imports["openapi"]
    );
    assert_eq!(circle(&imports), None, "an import circle in src/http/");
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let imports: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(m, n)| (m.to_owned(), n.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(circle(&imports).unwrap(), ["a", "b", "c", "a"]);
}

/// Lines of `src/` outside the engine folders that ask which engine they run on. The
/// connection itself (`src/db/sql.rs`, which wraps both clients) and the start-up that picks
/// the engine (`src/db/mod.rs`, `src/db/readers.rs`, `src/db/location.rs`) may.
#[test]
fn nothing_outside_the_engine_folders_branches_on_the_engine() {
    let branch = Regex::new(r"is_postgres\(\)|Engine::(Sqlite|Postgres)|\.engine\(\)").unwrap();
    let allowed = [
        "src/db/sqlite/",
        "src/db/postgres/",
        "src/db/sql.rs",
        "src/db/mod.rs",
        "src/db/readers.rs",
        "src/db/location.rs",
    ];
    let mut branches = Vec::new();
    for path in rust_files(&source("src")) {
        let shown = shown(&path);
        if allowed.iter().any(|a| shown.starts_with(a)) {
            continue;
        }
        for line in code(&path).lines() {
            if branch.is_match(line) {
                branches.push(format!("{shown}: {}", line.trim()));
            }
        }
    }
    assert!(branches.is_empty(), "engine branches: {branches:#?}");
}

/// Every line of code outside `src/db/` (handlers, services, the command line, exports:
/// everything but storage itself) that `pattern` finds, with its file.
fn lines_outside_storage(pattern: &Regex) -> Vec<String> {
    let mut found = Vec::new();
    let outside_storage = rust_files(&source("src"))
        .into_iter()
        .filter(|path| !path.starts_with(source("src/db")));
    for path in outside_storage {
        let shown = shown(&path);
        for line in code(&path).lines() {
            if pattern.is_match(line) {
                found.push(format!("{shown}: {}", line.trim()));
            }
        }
    }
    found
}

/// Handlers extract, parse, ask storage by meaning and render: no closure over a connection
/// and no query function of `src/db` is called from `src/http/`.
#[test]
fn handlers_ask_storage_by_meaning_and_hold_no_connection() {
    let storage_call = Regex::new(
        r"\|connection\||&Conn\b|\.read\(move|\.write\(move|write_then_|(crate::db::|[^:\w])(queries|responses|releases|redemptions|closing|counts)::[a-z_]+\(",
    )
    .unwrap();
    let calls = lines_outside_storage(&storage_call);
    assert!(
        calls.is_empty(),
        "storage reached around the seam: {calls:#?}"
    );
}

/// Report-derived figures reach services and handlers only as `Released`, which the release
/// module alone builds from a snapshot: nothing outside `src/db/` names the stored counts
/// (`report_counts`, the stored responses, the release tables), imports the release module
/// (`db::releases`, whose `Figures` are a snapshot's) or builds a `Released` itself (issue
/// 41). A view that would read unreleased data has no function to call.
#[test]
fn services_and_handlers_reach_report_figures_only_through_released() {
    let around = Regex::new(
        r"report_counts|stored_responses|arriving_responses|cell_releases|release_members|released_pairs|\bdb::releases\b|\bFiguresAsOf\b|PairTables|ReleasedCell|Released::for_audit|Released\s*\{",
    )
    .unwrap();
    let found = lines_outside_storage(&around);
    assert!(
        found.is_empty(),
        "stored counts reached around Released: {found:#?}"
    );
    // Inside storage, one function hands a `Released` out: `Database::released`.
    let released = code(&source("src/db/released.rs"));
    let handed_out =
        Regex::new(r"pub (async )?fn \w+\([^)]*\)\s*->\s*(Self|Released|Result<Released)\b")
            .unwrap();
    let constructors: Vec<&str> = handed_out
        .find_iter(&released)
        .map(|found| found.as_str())
        .collect();
    assert_eq!(
        constructors.len(),
        2,
        "Database::released and the auditor's for_audit only: {constructors:#?}"
    );
    assert!(constructors.iter().any(|c| c.contains("fn released(")));
    assert!(constructors.iter().any(|c| c.contains("fn for_audit(")));
    // The test itself can fail: the pattern finds a stored-count read where one would be.
    assert!(around.is_match("use crate::db::releases::Figures;"));
}

/// The domain parses and refuses without knowing HTTP: it returns its own `DomainError`,
/// which `src/error.rs` maps to a status in one place (issue 34).
#[test]
fn the_domain_knows_no_http() {
    let http =
        Regex::new(r"\bactix|crate::error\b|crate::http\b|\bAppError\b|\bResponseError\b").unwrap();
    let mut uses = Vec::new();
    for path in rust_files(&source("src/domain")) {
        let shown = shown(&path);
        for line in code(&path).lines() {
            if http.is_match(line) {
                uses.push(format!("{shown}: {}", line.trim()));
            }
        }
    }
    assert!(uses.is_empty(), "the domain reaches HTTP: {uses:#?}");
}

/// A business rule broken against stored state is a typed `Refusal` (src/domain/refusal.rs),
/// whose words and status live in one place; storage names the rule, never the words. The
/// backup of SQLite's files is the operator's command, whose refusals are about files.
#[test]
fn storage_names_the_rules_it_refuses_by_and_writes_no_words_for_clients() {
    let worded = Regex::new(r"AppError::(conflict|gone|Conflict|Gone)\b").unwrap();
    let mut found = Vec::new();
    for path in rust_files(&source("src/db")) {
        if path.ends_with("sqlite/backup.rs") {
            continue;
        }
        let shown = shown(&path);
        for line in code(&path).lines() {
            if worded.is_match(line) {
                found.push(format!("{shown}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "storage words a refusal itself: {found:#?}"
    );
}
