//! The router's routes, read from its source (`src/http/mod.rs`): one helper for the tests
//! that must know every route — the OpenAPI document's completeness, the owner-only check,
//! and the disclosure auditor's list of the views it reads.

use std::collections::BTreeSet;

const ROUTER_SOURCE: &str = include_str!("../../src/http/mod.rs");

const METHODS: [&str; 7] = ["get", "head", "post", "put", "patch", "delete", "options"];

/// (METHOD, path) of every route registered in the source between `fn start` and the next
/// `fn `: each `.service(` chunk's `resource("…")` and its `.get(…)`, `.post(…)`, … calls.
pub fn routes_in(start: &str) -> BTreeSet<(String, String)> {
    let section = ROUTER_SOURCE
        .split_once(start)
        .unwrap_or_else(|| panic!("{start} is in src/http/mod.rs"))
        .1;
    let section = section.split("\nfn ").next().unwrap();
    let mut routes = BTreeSet::new();
    for chunk in section.split(".service(").skip(1) {
        let Some(path) = chunk
            .split_once("resource(\"")
            .and_then(|(_, rest)| rest.split('"').next())
        else {
            continue;
        };
        for method in METHODS {
            if chunk.contains(&format!(".{method}(")) {
                routes.insert((method.to_uppercase(), path.to_owned()));
            }
        }
    }
    routes
}

/// Every path registered anywhere in the router (API and workspace), with or without a
/// method the reader above recognises.
pub fn every_path() -> BTreeSet<String> {
    ROUTER_SOURCE
        .split("resource(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// Routes that name a survey but are public by design (the respondent's path).
pub const PUBLIC_SURVEY_ROUTES: &[&str] = &[
    "/s/{slug}",
    "/api/surveys/{slug}",
    "/api/surveys/{slug}/redemptions",
    "/api/surveys/{slug}/responses",
    "/api/surveys/{slug}/responses/lookup",
    "/api/surveys/{slug}/responses/withdraw",
    "/s/{slug}/receipt",
];

/// Every GET route that names a survey and is not public: what a survey's owner can read,
/// API and pages alike.
pub fn owner_views() -> BTreeSet<String> {
    routes_in("fn routes(")
        .into_iter()
        .chain(routes_in("fn workspace_routes("))
        .filter(|(method, path)| {
            method == "GET"
                && path.contains("{slug}")
                && !PUBLIC_SURVEY_ROUTES.contains(&path.as_str())
        })
        .map(|(_, path)| path)
        .collect()
}
