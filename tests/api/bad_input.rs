//! The bad-input suite: classes of hostile or broken requests against every public route.
//! Whatever arrives, the server answers: never ≥ 500, never a dropped connection (a
//! panic), every error a JSON `{"error": {"code", "message"}}` with a 4xx (on respondents'
//! pages, `/s/…`, a "not found" is an HTML page naming its code), and the security
//! headers on everything. Prints how many requests each class tried.

use std::collections::BTreeMap;

use crate::common::{spawn_app, TestApp};
use futures_util::stream::{self, StreamExt};
use reqwest::Method;
use serde_json::{json, Value};

/// Every route of the HTTP contract, as (method, pattern); `{slug}` and `{receipt}` are
/// filled in by each class.
const ROUTES: [(&str, &str); 18] = [
    ("GET", "/healthz"),
    ("GET", "/s/{slug}"),
    ("GET", "/api/surveys/{slug}"),
    ("POST", "/api/surveys"),
    ("POST", "/api/surveys/{slug}/responses"),
    ("POST", "/api/surveys/{slug}/responses/lookup"),
    ("POST", "/api/surveys/{slug}/responses/withdraw"),
    ("GET", "/s/{slug}/receipt"),
    ("POST", "/s/{slug}/receipt"),
    ("DELETE", "/api/surveys/{slug}"),
    ("POST", "/api/surveys/{slug}/open"),
    ("POST", "/api/surveys/{slug}/close"),
    ("GET", "/api/surveys/{slug}/results"),
    ("GET", "/api/surveys/{slug}/export.csv"),
    ("GET", "/api/surveys/{slug}/export.ndjson"),
    ("GET", "/api/surveys/{slug}/codebook.json"),
    ("POST", "/api/surveys/{slug}/invitations"),
    ("POST", "/api/surveys/{slug}/redemptions"),
];

/// Routes whose body is JSON.
const JSON_ROUTES: [&str; 4] = [
    "/api/surveys",
    "/api/surveys/{slug}/responses",
    "/api/surveys/{slug}/invitations",
    "/api/surveys/{slug}/redemptions",
];

const SQL: [&str; 6] = [
    "' OR '1'='1",
    "1; DROP TABLE responses; --",
    "\" OR \"\"=\"",
    "demo' --",
    "1 UNION SELECT response_id FROM responses",
    "%27%20OR%201%3D1%20--",
];

const SCRIPTS: [&str; 5] = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "javascript:alert(document.cookie)",
    "{{ 7*7 }}<svg onload=alert(1)>",
    "</title><script src=//evil.example/x.js></script>",
];

const TRAVERSALS: [&str; 9] = [
    "..",
    "../..",
    "%2e%2e",
    "%2e%2e%2f%2e%2e%2fschema.sql",
    "..%2f..%2fCargo.toml",
    "....//....//etc/passwd",
    "demo%2f..%2f..%2f",
    "%252e%252e%252f",
    "..%5c..%5cwindows",
];

struct Probe {
    class: &'static str,
    method: Method,
    path: String,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    /// Send the owner's bearer token (so owner routes get past authentication).
    as_owner: bool,
}

impl Probe {
    fn new(class: &'static str, method: Method, path: impl Into<String>) -> Self {
        Self {
            class,
            method,
            path: path.into(),
            content_type: None,
            body: Vec::new(),
            as_owner: true,
        }
    }

    fn json(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = Some("application/json");
        self.body = body.into();
        self
    }

    fn typed(mut self, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        self.content_type = Some(content_type);
        self.body = body.into();
        self
    }

    fn anonymous(mut self) -> Self {
        self.as_owner = false;
        self
    }
}

/// The surveys and secrets the probes aim at.
struct Targets {
    token: String,
    /// An open survey of the owner's with a question of each type (forced-response
    /// yes/no, choice, ordinal, number): a report of 1 is valid for each.
    open: String,
    ids: Vec<i64>,
    /// A valid receipt of a stored response to `open`.
    receipt: String,
}

fn fill(pattern: &str, slug: &str, receipt: &str) -> String {
    pattern
        .replace("{slug}", slug)
        .replace("{receipt}", receipt)
}

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).unwrap()
}

fn valid_submission(targets: &Targets) -> String {
    let answers: serde_json::Map<String, Value> = targets
        .ids
        .iter()
        .map(|id| (id.to_string(), json!(1)))
        .collect();
    json!({ "answers": answers }).to_string()
}

fn valid_definition() -> String {
    json!({
        "title": "T",
        "description": "D",
        "planned_respondents": 10,
        "questions": [{"text": "Q?", "epsilon": 1.0, "required": true}]
    })
    .to_string()
}

/// The valid body of each JSON route, the starting point of most mutations.
fn valid_body(route: &str, targets: &Targets) -> String {
    match route {
        "/api/surveys" => valid_definition(),
        "/api/surveys/{slug}/responses" => valid_submission(targets),
        _ => json!({"count": 1}).to_string(),
    }
}

fn probes(targets: &Targets) -> Vec<Probe> {
    let t = targets;
    let mut probes = Vec::new();

    // 1. malformed JSON
    let malformed = [
        "",
        "{",
        "}",
        "[",
        "nul",
        "{\"answers\"",
        "{\"answers\":}",
        "{answers: {}}",
        "{'answers': {}}",
        "{\"answers\": {1: 1}}",
        "{\"answers\": {},}",
        "{\"a\":1}{\"b\":2}",
        "{\"answers\": {}} trailing",
        "\u{feff}{\"answers\": {}}",
        "[]",
        "\"text\"",
        "0",
        "null",
        "{\"answers\": {\"1\": 01}}",
        "{\"answers\": {\"1\": 1e}}",
        "{\"x\": \"\\uD800\"}",
        "{\"x\": \"\\q\"}",
        "/* comment */ {}",
    ];
    for route in JSON_ROUTES {
        for body in malformed {
            probes.push(
                Probe::new("malformed JSON", Method::POST, fill(route, &t.open, "")).json(body),
            );
        }
    }

    // 2. truncated JSON: every prefix of each valid body
    for route in JSON_ROUTES {
        let body = valid_body(route, t);
        for length in 0..body.len() {
            probes.push(
                Probe::new("truncated JSON", Method::POST, fill(route, &t.open, ""))
                    .json(&body.as_bytes()[..length]),
            );
        }
    }

    // 3. invalid UTF-8, in bodies, paths and queries
    let bad_bytes: [&[u8]; 5] = [
        b"\xff\xfe",
        b"\xc0\xaf",
        b"\xed\xa0\x80",
        b"\x80",
        b"\xf8\x88\x80\x80\x80",
    ];
    for route in JSON_ROUTES {
        for bytes in bad_bytes {
            let mut body = b"{\"title\": \"".to_vec();
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\"}");
            probes.push(
                Probe::new("invalid UTF-8", Method::POST, fill(route, &t.open, "")).json(body),
            );
            let mut key = b"{\"answers\": {\"".to_vec();
            key.extend_from_slice(bytes);
            key.extend_from_slice(b"\": 1}}");
            probes.push(
                Probe::new("invalid UTF-8", Method::POST, fill(route, &t.open, "")).json(key),
            );
            probes.push(
                Probe::new("invalid UTF-8", Method::POST, fill(route, &t.open, "")).json(bytes),
            );
        }
    }
    for (verb, pattern) in ROUTES {
        for encoded in ["%FF", "%C0%AF", "%ED%A0%80", "demo%FF", "%00"] {
            probes.push(Probe::new(
                "invalid UTF-8",
                method(verb),
                fill(pattern, encoded, encoded),
            ));
        }
    }
    for encoded in ["%FF", "0.9%FF", "%00", "%C0%AF"] {
        probes.push(Probe::new(
            "invalid UTF-8",
            Method::GET,
            format!("/api/surveys/{}/results?confidence={encoded}", t.open),
        ));
    }

    // 4. huge bodies: over each route's limit, declared, and big values inside JSON
    for (verb, pattern) in ROUTES {
        for size in [17 * 1024, 600 * 1024, 2 * 1024 * 1024] {
            probes.push(
                Probe::new(
                    "huge bodies",
                    method(verb),
                    fill(pattern, &t.open, &t.receipt),
                )
                .json(vec![b'{'; size]),
            );
        }
    }
    let long_text = "x".repeat(100_000);
    probes.push(
        Probe::new("huge bodies", Method::POST, "/api/surveys").json(
            json!({"title": long_text, "questions": [{"text": "Q?", "epsilon": 1.0}]}).to_string(),
        ),
    );
    let many_questions: Vec<Value> = (0..5000)
        .map(|_| json!({"text": "Q", "epsilon": 1.0}))
        .collect();
    probes.push(
        Probe::new("huge bodies", Method::POST, "/api/surveys")
            .json(json!({"title": "T", "questions": many_questions}).to_string()),
    );
    let many_answers: serde_json::Map<String, Value> =
        (0..1500).map(|i| (i.to_string(), json!(1))).collect();
    probes.push(
        Probe::new(
            "huge bodies",
            Method::POST,
            format!("/api/surveys/{}/responses", t.open),
        )
        .json(json!({"answers": many_answers}).to_string()),
    );
    probes.push(Probe::new(
        "huge bodies",
        Method::GET,
        format!("/s/{}", "a".repeat(8000)),
    ));
    probes.push(Probe::new(
        "huge bodies",
        Method::GET,
        format!(
            "/api/surveys/{}/results?confidence={}",
            t.open,
            "9".repeat(6000)
        ),
    ));

    // 5. deep nesting
    for route in JSON_ROUTES {
        for depth in [129, 1_000, 5_000] {
            let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            let inside = format!("{{\"answers\": {{\"{}\": {arrays}}}}}", t.ids[0]);
            for body in [arrays, objects, inside] {
                probes.push(
                    Probe::new("deep nesting", Method::POST, fill(route, &t.open, "")).json(body),
                );
            }
        }
    }

    // 6. wrong types
    let id = t.ids[0];
    let submissions = [
        json!({"answers": []}),
        json!({"answers": "1"}),
        json!({"answers": 1}),
        json!({"answers": null}),
        json!({"answers": {id.to_string(): "1"}}),
        json!({"answers": {id.to_string(): true}}),
        json!({"answers": {id.to_string(): 1.0}}),
        json!({"answers": {id.to_string(): [1]}}),
        json!({"answers": {id.to_string(): {"report": 1}}}),
        json!({"answers": {id.to_string(): null}}),
        json!({"answers": {}, "token": 5}),
        json!({"answers": {}, "token": ["x"]}),
        json!({"answers": {}, "token": {"input": 5, "output": "x"}}),
        json!([1, 2]),
    ];
    for body in submissions {
        probes.push(
            Probe::new(
                "wrong types",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(body.to_string()),
        );
    }
    let definitions = [
        json!({"title": 1, "questions": [{"text": "Q", "epsilon": 1}]}),
        json!({"title": "T", "questions": {"text": "Q", "epsilon": 1}}),
        json!({"title": "T", "questions": [{"text": "Q", "epsilon": "1"}]}),
        json!({"title": "T", "questions": [{"text": "Q", "epsilon": 1, "required": "yes"}]}),
        json!({"title": "T", "questions": [{"text": ["Q"], "epsilon": 1}]}),
        json!({"title": "T", "description": null, "questions": [{"text": "Q", "epsilon": 1}]}),
        json!({"title": "T", "planned_respondents": "10", "questions": [{"text": "Q", "epsilon": 1}]}),
        json!({"title": "T", "planned_respondents": 1.5, "questions": [{"text": "Q", "epsilon": 1}]}),
        json!({"title": "T", "requires_invitation": "yes", "questions": [{"text": "Q", "epsilon": 1}]}),
        json!({"title": "T", "questions": ["Q"]}),
    ];
    for body in definitions {
        probes.push(Probe::new("wrong types", Method::POST, "/api/surveys").json(body.to_string()));
    }
    for body in [
        json!({"count": "5"}),
        json!({"count": 1.5}),
        json!({"count": null}),
        json!({"count": [5]}),
        json!(5),
    ] {
        probes.push(
            Probe::new(
                "wrong types",
                Method::POST,
                format!("/api/surveys/{}/invitations", t.open),
            )
            .json(body.to_string()),
        );
    }
    for confidence in ["high", "true", "[0.9]", "0.9,0.95", "{}"] {
        probes.push(Probe::new(
            "wrong types",
            Method::GET,
            format!("/api/surveys/{}/results?confidence={confidence}", t.open),
        ));
    }

    // 7. unknown ids: surveys, questions, receipts, and survey of someone else
    let unknown_receipt = "B".repeat(43);
    for (verb, pattern) in ROUTES {
        for slug in ["nope", "demo-0000", "a", &"z".repeat(64)] {
            let path = fill(pattern, slug, &unknown_receipt);
            probes.push(
                Probe::new("unknown ids", method(verb), path.clone()).json(valid_body(pattern, t)),
            );
        }
        // The demo belongs to the built-in owner: the token owns nothing there.
        probes.push(
            Probe::new(
                "unknown ids",
                method(verb),
                fill(pattern, "demo", &unknown_receipt),
            )
            .json(valid_body(pattern, t)),
        );
    }
    for receipt in [
        "short",
        &"A".repeat(42),
        &"A".repeat(44),
        &"=".repeat(43),
        "AAAA%2FAAAA",
    ] {
        for action in ["lookup", "withdraw"] {
            probes.push(
                Probe::new(
                    "unknown ids",
                    Method::POST,
                    format!("/api/surveys/{}/responses/{action}", t.open),
                )
                .json(json!({ "receipt": receipt }).to_string()),
            );
        }
    }
    for key in [
        "0",
        "-1",
        "999999999",
        "9223372036854775807",
        "9223372036854775808",
        "abc",
        "",
        " 1",
        "1.0",
        "0x1",
    ] {
        let mut answers: serde_json::Map<String, Value> =
            t.ids.iter().map(|id| (id.to_string(), json!(0))).collect();
        answers.insert(key.to_owned(), json!(1));
        probes.push(
            Probe::new(
                "unknown ids",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(json!({"answers": answers}).to_string()),
        );
    }

    // 8. SQL-looking strings in every path segment, parameter, key and text field
    for text in SQL {
        let encoded = urlencode(text);
        for (verb, pattern) in ROUTES {
            probes.push(Probe::new(
                "SQL-looking strings",
                method(verb),
                fill(pattern, &encoded, &encoded),
            ));
            probes.push(Probe::new(
                "SQL-looking strings",
                method(verb),
                fill(pattern, &t.open, &encoded),
            ));
        }
        probes.push(Probe::new(
            "SQL-looking strings",
            Method::GET,
            format!("/api/surveys/{}/results?confidence={encoded}", t.open),
        ));
        probes.push(Probe::new(
            "SQL-looking strings",
            Method::GET,
            format!("/api/surveys/{}/results?{encoded}=1", t.open),
        ));
        probes.push(
            Probe::new(
                "SQL-looking strings",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(json!({"answers": {text: 1}}).to_string()),
        );
        probes.push(
            Probe::new(
                "SQL-looking strings",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(
                json!({"answers": {id.to_string(): 1}, "token": {"input": text, "output": text}})
                    .to_string(),
            ),
        );
        probes.push(
            Probe::new("SQL-looking strings", Method::POST, "/api/surveys").json(
                json!({"title": text, "description": text, "questions": [{"text": text, "epsilon": 1}]})
                    .to_string(),
            ),
        );
    }

    // 9. path traversal in slugs, receipts and static files
    for traversal in TRAVERSALS {
        for (verb, pattern) in ROUTES {
            probes.push(Probe::new(
                "path traversal",
                method(verb),
                fill(pattern, traversal, traversal),
            ));
        }
        probes.push(Probe::new(
            "path traversal",
            Method::GET,
            format!("/static/{traversal}"),
        ));
        probes.push(Probe::new(
            "path traversal",
            Method::GET,
            format!("/static/{traversal}/schema.sql"),
        ));
        probes.push(Probe::new(
            "path traversal",
            Method::GET,
            format!("/static/..%2f{traversal}"),
        ));
    }

    // 10. script payloads in every text field, path segment, key and parameter
    for script in SCRIPTS {
        let encoded = urlencode(script);
        probes.push(
            Probe::new("script payloads", Method::POST, "/api/surveys").json(
                json!({"title": script, "description": script, "questions": [{"text": script, "epsilon": 1}]})
                    .to_string(),
            ),
        );
        for (verb, pattern) in ROUTES {
            probes.push(Probe::new(
                "script payloads",
                method(verb),
                fill(pattern, &encoded, &encoded),
            ));
        }
        probes.push(
            Probe::new(
                "script payloads",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(
                json!({"answers": {script: 1}, "token": {"input": script, "output": script}})
                    .to_string(),
            ),
        );
        probes.push(Probe::new(
            "script payloads",
            Method::GET,
            format!("/api/surveys/{}/results?confidence={encoded}", t.open),
        ));
    }

    // 11. oversized and negative numbers
    let numbers = [
        "-1",
        "0",
        "-0",
        "1e308",
        "1e400",
        "-1e400",
        "18446744073709551616",
        "9223372036854775808",
        "-9223372036854775809",
        "1e-400",
        "4.9e-324",
        "0.0000001",
        "100",
        "1000",
        "1e20",
        "-0.5",
    ];
    for number in numbers {
        let epsilon = format!(
            "{{\"title\": \"T\", \"questions\": [{{\"text\": \"Q\", \"epsilon\": {number}}}]}}"
        );
        let planned = format!(
            "{{\"title\": \"T\", \"planned_respondents\": {number}, \"questions\": [{{\"text\": \"Q\", \"epsilon\": 1}}]}}"
        );
        let report = format!("{{\"answers\": {{\"{id}\": {number}}}}}");
        let count = format!("{{\"count\": {number}}}");
        probes.push(
            Probe::new(
                "oversized and negative numbers",
                Method::POST,
                "/api/surveys",
            )
            .json(epsilon),
        );
        probes.push(
            Probe::new(
                "oversized and negative numbers",
                Method::POST,
                "/api/surveys",
            )
            .json(planned),
        );
        probes.push(
            Probe::new(
                "oversized and negative numbers",
                Method::POST,
                format!("/api/surveys/{}/responses", t.open),
            )
            .json(report),
        );
        probes.push(
            Probe::new(
                "oversized and negative numbers",
                Method::POST,
                format!("/api/surveys/{}/invitations", t.open),
            )
            .json(count),
        );
    }
    for confidence in [
        "-1",
        "0",
        "1",
        "2",
        "1e400",
        "-1e400",
        "NaN",
        "inf",
        "-inf",
        "0.99999999999999999",
        "1e-300",
        "0.9999999999",
        "0.0000000001",
        "",
    ] {
        probes.push(Probe::new(
            "oversized and negative numbers",
            Method::GET,
            format!("/api/surveys/{}/results?confidence={confidence}", t.open),
        ));
    }

    // 12. repeated and missing fields
    let first = t.ids[0].to_string();
    let repeated = [
        format!("{{\"answers\": {{\"{first}\": 1}}, \"answers\": {{\"{first}\": 0}}}}"),
        format!("{{\"answers\": {{\"{first}\": 1, \"{first}\": 0}}}}"),
        format!(
            "{{\"answers\": {{\"{first}\": 1}}, \"invitation\": \"a\", \"invitation\": \"b\"}}"
        ),
        "{\"title\": \"T\", \"title\": \"U\", \"questions\": [{\"text\": \"Q\", \"epsilon\": 1}]}"
            .to_owned(),
        "{\"title\": \"T\", \"questions\": [{\"text\": \"Q\", \"text\": \"R\", \"epsilon\": 1}]}"
            .to_owned(),
        "{\"count\": 1, \"count\": 2}".to_owned(),
        "{}".to_owned(),
        "{\"answers\": {}}".to_owned(),
        "{\"title\": \"T\"}".to_owned(),
        "{\"questions\": [{\"text\": \"Q\", \"epsilon\": 1}]}".to_owned(),
        "{\"title\": \"T\", \"questions\": []}".to_owned(),
        "{\"title\": \"T\", \"questions\": [{\"text\": \"Q\"}]}".to_owned(),
        "{\"title\": \"T\", \"questions\": [{\"epsilon\": 1}]}".to_owned(),
        "{\"answers\": {\"1\": 1}, \"truth\": {\"1\": 1}}".to_owned(),
    ];
    for route in JSON_ROUTES {
        for body in &repeated {
            probes.push(
                Probe::new(
                    "repeated and missing fields",
                    Method::POST,
                    fill(route, &t.open, ""),
                )
                .json(body.clone()),
            );
        }
    }
    probes.push(Probe::new(
        "repeated and missing fields",
        Method::GET,
        format!(
            "/api/surveys/{}/results?confidence=0.9&confidence=0.95",
            t.open
        ),
    ));
    probes.push(Probe::new(
        "repeated and missing fields",
        Method::GET,
        format!("/api/surveys/{}/results?confidence", t.open),
    ));
    for (verb, pattern) in ROUTES {
        probes.push(
            Probe::new(
                "repeated and missing fields",
                method(verb),
                fill(pattern, &t.open, &t.receipt),
            )
            .anonymous(),
        );
        probes.push(Probe::new(
            "repeated and missing fields",
            method(verb),
            fill(pattern, "", ""),
        ));
    }

    // 13. wrong methods and content types
    let verbs = [
        "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "HEAD",
    ];
    for (allowed, pattern) in ROUTES {
        for verb in verbs
            .iter()
            .filter(|&&v| v != allowed && !(v == "HEAD" && allowed == "GET"))
        {
            probes.push(Probe::new(
                "wrong methods and content types",
                method(verb),
                fill(pattern, &t.open, &t.receipt),
            ));
        }
    }
    let content_types = [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/jsonx",
        "json",
        "",
        "application/json; charset=utf-16",
        "text/html",
        "*/*",
    ];
    for route in JSON_ROUTES {
        for content_type in content_types {
            probes.push(
                Probe::new(
                    "wrong methods and content types",
                    Method::POST,
                    fill(route, &t.open, ""),
                )
                .typed(content_type, valid_body(route, t)),
            );
        }
        let mut no_type = Probe::new(
            "wrong methods and content types",
            Method::POST,
            fill(route, &t.open, ""),
        );
        no_type.body = valid_body(route, t).into_bytes();
        probes.push(no_type);
    }

    // 14. question designs: every type's fields with wrong types, out of range, mixed up
    let question = |fields: Value| {
        let mut question = json!({"text": "Q?"});
        for (key, value) in fields.as_object().unwrap() {
            question[key] = value.clone();
        }
        json!({"title": "T", "questions": [question]}).to_string()
    };
    let many_options: Vec<String> = (0..10_000).map(|i| format!("o{i}")).collect();
    let designs = [
        json!({"type": "maybe", "epsilon": 1}),
        json!({"type": 1, "epsilon": 1}),
        json!({"type": null, "epsilon": 1}), // null is absent: a yes/no question, 201
        json!({"type": ["choice"], "epsilon": 1, "options": ["a", "b"]}),
        json!({"type": "yes_no", "design": "k_ary", "epsilon": 1}),
        json!({"type": "choice", "design": "forced_response", "epsilon": 1, "options": ["a", "b"]}),
        json!({"type": "number", "design": "mirrored", "epsilon": 1, "min": 0, "max": 1}),
        json!({"design": "two_ends", "epsilon": 1}),
        json!({"type": "choice", "epsilon": 1}),
        json!({"type": "choice", "epsilon": 1, "options": "a,b"}),
        json!({"type": "choice", "epsilon": 1, "options": []}),
        json!({"type": "choice", "epsilon": 1, "options": ["only"]}),
        json!({"type": "choice", "epsilon": 1, "options": ["a", "a"]}),
        json!({"type": "choice", "epsilon": 1, "options": ["a", ""]}),
        json!({"type": "choice", "epsilon": 1, "options": ["a", 2]}),
        json!({"type": "choice", "epsilon": 1, "options": [["a"], ["b"]]}),
        json!({"type": "choice", "epsilon": 1, "options": ["a", null]}),
        json!({"type": "choice", "epsilon": 1, "options": ["a", "x".repeat(201)]}),
        json!({"type": "ordinal", "epsilon": 1, "options": many_options}),
        json!({"type": "ordinal", "epsilon": 25, "options": ["a", "b"]}),
        json!({"type": "ordinal", "options": ["a", "b"]}),
        json!({"type": "number", "epsilon": 1, "min": 0}),
        json!({"type": "number", "epsilon": 1, "min": 5, "max": 5}),
        json!({"type": "number", "epsilon": 1, "min": 5, "max": -5}),
        json!({"type": "number", "epsilon": 1, "min": "0", "max": "30"}),
        json!({"type": "number", "epsilon": 1, "min": -1e300, "max": 1e300}),
        json!({"type": "number", "epsilon": 1, "min": 0, "max": 30, "options": ["a", "b"]}),
        json!({"design": "forced_response", "answer_truthfully": 0.5, "forced_yes": 0.5}),
        json!({"design": "forced_response", "answer_truthfully": 0.5, "forced_yes": 0.3,
               "forced_no": 0.3}),
        json!({"design": "forced_response", "answer_truthfully": 1.5, "forced_yes": -0.25,
               "forced_no": -0.25}),
        json!({"design": "forced_response", "answer_truthfully": "0.67", "forced_yes": 0.165,
               "forced_no": 0.165}),
        json!({"design": "forced_response", "answer_truthfully": 0.67, "forced_yes": 0.165,
               "forced_no": 0.165, "epsilon": 1}),
        json!({"design": "forced_response", "answer_truthfully": 0.8, "forced_yes": 0.2,
               "forced_no": 0}),
        json!({"design": "forced_response", "answer_truthfully": 0, "forced_yes": 0.5,
               "forced_no": 0.5}),
        json!({"design": "forced_response", "answer_truthfully": 0.999999999999,
               "forced_yes": 5e-13, "forced_no": 5e-13}),
        json!({"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": 1}),
        json!({"design": "unrelated_question", "answer_truthfully": 0.7}),
        json!({"design": "unrelated_question", "answer_truthfully": 0.7, "innocuous_yes": true}),
        json!({"design": "unrelated_question", "answer_truthfully": 1e-300, "innocuous_yes": 0.5}),
    ];
    for design in designs {
        probes.push(
            Probe::new("question designs", Method::POST, "/api/surveys").json(question(design)),
        );
    }
    for raw in [
        r#"{"title": "T", "questions": [{"text": "Q", "type": "number", "epsilon": 1, "min": 0, "max": 1e400}]}"#,
        r#"{"title": "T", "questions": [{"text": "Q", "type": "number", "epsilon": 1, "min": NaN, "max": 1}]}"#,
        r#"{"title": "T", "questions": [{"text": "Q", "design": "forced_response", "answer_truthfully": 0.67, "answer_truthfully": 0.5, "forced_yes": 0.165, "forced_no": 0.165}]}"#,
        r#"{"title": "T", "questions": [{"text": "Q", "type": "choice", "type": "number", "epsilon": 1, "options": ["a", "b"]}]}"#,
    ] {
        probes.push(Probe::new("question designs", Method::POST, "/api/surveys").json(raw));
    }
    // Every question's report from 0 to 255, the others valid.
    for id in &t.ids {
        for report in [2, 3, 4, 19, 20, 255] {
            let answers: serde_json::Map<String, Value> = t
                .ids
                .iter()
                .map(|other| {
                    let value = if other == id { report } else { 1 };
                    (other.to_string(), json!(value))
                })
                .collect();
            probes.push(
                Probe::new(
                    "question designs",
                    Method::POST,
                    format!("/api/surveys/{}/responses", t.open),
                )
                .json(json!({ "answers": answers }).to_string()),
            );
        }
    }
    probes
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

struct Outcome {
    class: &'static str,
    what: String,
    status: u16,
    problem: Option<String>,
}

async fn send(app: &TestApp, token: &str, probe: Probe) -> Outcome {
    let what = format!(
        "{} {} {} ({} body bytes)",
        probe.class,
        probe.method,
        probe.path.chars().take(120).collect::<String>(),
        probe.body.len()
    );
    let is_head = probe.method == Method::HEAD;
    let probe_path = probe.path.clone();
    let mut request = app.client.request(probe.method, app.url(&probe.path));
    if probe.as_owner {
        request = request.bearer_auth(token);
    }
    if let Some(content_type) = probe.content_type {
        request = request.header("content-type", content_type);
    }
    if !probe.body.is_empty() {
        request = request.body(probe.body);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) => {
            return Outcome {
                class: probe.class,
                what,
                status: 0,
                problem: Some(format!(
                    "no answer (a panic or a dropped connection?): {error}"
                )),
            }
        }
    };
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap_or_default();
    let problem = if status >= 500 {
        Some(format!(
            "status {status}: {}",
            String::from_utf8_lossy(&body)
        ))
    } else if !headers.contains_key("content-security-policy")
        || headers
            .get("x-content-type-options")
            .is_none_or(|v| v != "nosniff")
    {
        Some(format!("status {status} without the security headers"))
    } else if status >= 400 && !is_head && is_respondent_error_page(&probe_path, &headers, &body) {
        None
    } else if status >= 400 && !is_head {
        match serde_json::from_slice::<Value>(&body) {
            Ok(json)
                if json["error"]["code"]
                    .as_str()
                    .is_some_and(|c| !c.is_empty())
                    && json["error"]["message"]
                        .as_str()
                        .is_some_and(|m| !m.is_empty()) =>
            {
                None
            }
            _ => Some(format!(
                "status {status} is not a JSON error: {}",
                String::from_utf8_lossy(&body)
                    .chars()
                    .take(200)
                    .collect::<String>()
            )),
        }
    } else {
        None
    };
    Outcome {
        class: probe.class,
        what,
        status,
        problem,
    }
}

/// Respondents' pages (`/s/…`) answer "not found" and failures with an HTML page in the
/// form's style that names the error's code (`data-error-code`), not with JSON.
fn is_respondent_error_page(path: &str, headers: &reqwest::header::HeaderMap, body: &[u8]) -> bool {
    let html = headers
        .get("content-type")
        .is_some_and(|value| value.as_bytes().starts_with(b"text/html"));
    let body = String::from_utf8_lossy(body);
    path.starts_with("/s/")
        && html
        && body
            .split_once("data-error-code=\"")
            .is_some_and(|(_, rest)| !rest.starts_with('"'))
}

async fn targets(app: &TestApp) -> Targets {
    let token = app.researcher_with_token("owner@example.org").await;
    let definition = json!({"title": "Targets", "questions": [
        {"text": "Yes?", "design": "forced_response", "answer_truthfully": 0.67,
         "forced_yes": 0.165, "forced_no": 0.165},
        {"text": "Which?", "type": "choice", "options": ["a", "b", "c"], "epsilon": 1},
        {"text": "How much?", "type": "ordinal", "options": ["low", "mid", "high"], "epsilon": 2},
        {"text": "How many?", "type": "number", "min": 0, "max": 30, "epsilon": 1},
    ]});
    let created = app.create_survey(&token, &definition).await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    let open = created["slug"].as_str().unwrap().to_owned();
    let ids: Vec<i64> = created["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{open}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let answers: serde_json::Map<String, Value> =
        ids.iter().map(|id| (id.to_string(), json!(1))).collect();
    let receipt = app.submit_ok(&open, Value::Object(answers)).await;
    Targets {
        token,
        open,
        ids,
        receipt,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_bad_input_gets_a_server_error_or_a_non_json_error_on_any_route() {
    let app = spawn_app().await;
    let targets = targets(&app).await;
    let probes = probes(&targets);
    let outcomes: Vec<Outcome> = stream::iter(probes)
        .map(|probe| send(&app, &targets.token, probe))
        .buffer_unordered(16)
        .collect()
        .await;

    let mut per_class: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for outcome in &outcomes {
        let entry = per_class.entry(outcome.class).or_default();
        entry.0 += 1;
        if (400..500).contains(&outcome.status) {
            entry.1 += 1;
        }
        if outcome.status >= 500 || outcome.status == 0 {
            entry.2 += 1;
        }
    }
    eprintln!(
        "{:<34} {:>8} {:>6} {:>6}",
        "class", "requests", "4xx", "≥500"
    );
    for (class, (tried, client_errors, server_errors)) in &per_class {
        eprintln!("{class:<34} {tried:>8} {client_errors:>6} {server_errors:>6}");
    }
    eprintln!(
        "{:<34} {:>8} routes: {}",
        "total",
        outcomes.len(),
        ROUTES.len()
    );

    let problems: Vec<String> = outcomes
        .iter()
        .filter_map(|o| o.problem.as_ref().map(|p| format!("{}: {p}", o.what)))
        .collect();
    assert!(per_class.len() >= 10, "at least 10 classes");
    assert!(
        problems.is_empty(),
        "{} problems, e.g.:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );

    // The server is still healthy and its data intact after all that.
    let healthz = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(healthz.status(), 200);
    // The responses' tables survived the SQL-looking strings (reading a dropped one fails).
    let _: i64 = app.stored_value("SELECT count(*) FROM all_responses").await;
}

#[tokio::test]
async fn script_payloads_in_a_survey_are_escaped_on_the_form() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let script = "<script>alert(1)</script>\"><img src=x onerror=alert(1)>";
    let created = app
        .create_survey(
            &token,
            &json!({"title": script, "description": script, "questions": [{"text": script, "epsilon": 1}]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let slug = created.json::<Value>().await.unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    // Drafts are 404 to respondents: open it.
    let opened = app
        .owner_post(&token, &format!("/api/surveys/{slug}/open"))
        .await;
    assert_eq!(opened.status(), 200);
    let page = app
        .client
        .get(app.url(&format!("/s/{slug}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("<script>alert"), "the script tag is escaped");
    assert!(!page.contains("<img src=x"), "the img tag is escaped");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") || page.contains("&#60;script"));
}

#[tokio::test]
async fn a_repeated_question_or_field_is_a_400_not_a_silent_choice() {
    let app = spawn_app().await;
    let (_, slug, ids) = app.open_survey(&[1.0]).await;
    let id = ids[0];
    for body in [
        format!("{{\"answers\": {{\"{id}\": 1, \"{id}\": 0}}}}"),
        format!("{{\"answers\": {{\"{id}\": 1}}, \"answers\": {{\"{id}\": 0}}}}"),
    ] {
        let response = app.submit_raw(&slug, body).await;
        assert_eq!(response.status(), 400);
        assert_eq!(crate::common::error_code(response).await, "invalid_json");
    }
}
