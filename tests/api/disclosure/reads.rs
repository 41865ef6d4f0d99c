//! Which of the owner's views the auditor reads, taken from the router: every GET route that
//! names a survey and is not public ([`crate::routes::owner_views`]) is either read after
//! every event, with every query parameter that selects a view expanded, or listed here as
//! showing no figure, with its reason. A new route or parameter fails
//! [`every_owner_view_of_the_router_is_read_by_the_auditor_or_shows_no_figure`] by name.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::common::spawn_app;

/// The routes the auditor reads after every event, and how it matches what they show.
pub const READ: &[(&str, &str)] = &[
    (
        "/api/surveys/{slug}/results",
        "recomputed from a set of responses, for every expansion of its parameters",
    ),
    (
        "/api/surveys/{slug}/export.csv",
        "its rows are a set (and each label's rows one)",
    ),
    (
        "/api/surveys/{slug}/export.ndjson",
        "its records must be the CSV's, read at the same moment",
    ),
    (
        "/surveys/{slug}/results.json",
        "recomputed from a set of responses, as the API's results",
    ),
    (
        "/surveys/{slug}/results",
        "a function of the API views read at the same moment (same views, same page)",
    ),
    (
        "/surveys/{slug}/present",
        "a function of the API views read at the same moment (same views, same page)",
    ),
];

/// Owner routes that show no figure computed from reports, nor anything that depends on
/// which responses were released.
pub const NO_FIGURE: &[(&str, &str)] = &[
    (
        "/surveys/{slug}/edit",
        "the builder of a draft: its definition; an open survey's answers 409",
    ),
    (
        "/surveys/{slug}/preview",
        "the respondent's form as respondents see it: the definition only",
    ),
    (
        "/surveys/{slug}/open",
        "the confirmation before opening a draft: the definition only",
    ),
    (
        "/surveys/{slug}/links",
        "links, snippets and the invitation key's fingerprint; no count of responses",
    ),
    (
        "/api/surveys/{slug}/codebook.json",
        "the definition, designs and release rule: no count, no report",
    ),
];

/// Query parameters of the views read, and how each is read: expanded (every value that
/// selects another view) or not, with the reason.
pub const PARAMETERS: &[(&str, &str)] = &[
    ("by", "expanded: every grouping question"),
    (
        "joint",
        "expanded: every ordered pair of randomized questions",
    ),
    ("null", "expanded: 0 and 0.5"),
    ("simultaneous", "expanded: on"),
    ("hide", "expanded: present mode with and without it"),
    (
        "confidence",
        "not expanded: a level changes every interval's width, not the set it is computed from",
    ),
];

/// Every `in: query` parameter the OpenAPI document gives each path.
fn documented_parameters(document: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let mut parameters = BTreeMap::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        let names: &mut BTreeSet<String> = parameters.entry(path.clone()).or_default();
        let Some(get) = item.get("get") else { continue };
        for parameter in get["parameters"].as_array().into_iter().flatten() {
            if parameter["in"] == "query" {
                names.insert(parameter["name"].as_str().unwrap().to_owned());
            }
        }
    }
    parameters
}

#[tokio::test]
async fn every_owner_view_of_the_router_is_read_by_the_auditor_or_shows_no_figure() {
    let views = crate::routes::owner_views();
    assert!(views.len() >= 10, "the router was read: {views:?}");
    let listed: BTreeSet<&str> = READ
        .iter()
        .chain(NO_FIGURE)
        .map(|(path, _)| *path)
        .collect();
    let unlisted: Vec<&String> = views
        .iter()
        .filter(|path| !listed.contains(path.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "owner views the auditor neither reads nor lists as showing no figure: {unlisted:?}"
    );
    let gone: Vec<&&str> = listed
        .iter()
        .filter(|path| !views.contains(**path))
        .collect();
    assert!(gone.is_empty(), "listed but no longer routed: {gone:?}");

    // The API's parameters, from the OpenAPI document; the pages', from their query type.
    let app = spawn_app().await;
    let documented = documented_parameters(&crate::openapi::document(&app).await);
    let known: BTreeSet<&str> = PARAMETERS.iter().map(|(name, _)| *name).collect();
    let mut unknown = Vec::new();
    for (path, _) in READ.iter().filter(|(path, _)| path.starts_with("/api/")) {
        for name in documented.get(*path).into_iter().flatten() {
            if !known.contains(name.as_str()) {
                unknown.push(format!("{path}?{name}"));
            }
        }
    }
    for name in deniable::http::RESULTS_PAGE_PARAMETERS {
        if !known.contains(name) {
            unknown.push(format!("/surveys/{{slug}}/results?{name}"));
        }
    }
    assert!(
        unknown.is_empty(),
        "parameters the auditor neither expands nor lists: {unknown:?}"
    );
    assert!(
        documented["/api/surveys/{slug}/results"].contains("joint"),
        "the document was read: {documented:?}"
    );
    println!(
        "{} owner views: {} read after every event, {} listed as showing no figure; {} \
         parameters ({} expanded)",
        views.len(),
        READ.len(),
        NO_FIGURE.len(),
        PARAMETERS.len(),
        PARAMETERS
            .iter()
            .filter(|(_, how)| how.starts_with("expanded"))
            .count()
    );
}

/// A page with what changes between two requests of the same state taken out: the CSP
/// nonce and the CSRF and form tokens.
pub fn normalized(page: &str) -> String {
    let mut out = page.to_owned();
    for marker in [
        "nonce=\"",
        "name=\"csrf\" value=\"",
        "name=\"form_token\" value=\"",
    ] {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(marker) {
            let start = at + marker.len();
            result.push_str(&rest[..start]);
            let end = rest[start..]
                .find('"')
                .map_or(rest.len(), |end| start + end);
            rest = &rest[end..];
        }
        result.push_str(rest);
        out = result;
    }
    out
}
