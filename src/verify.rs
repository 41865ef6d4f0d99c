//! `deniable verify`: anyone can check that a running survey serves the respondent's code
//! built into this binary.
//!
//! The privacy of a response rests on the code the respondent's browser runs: a server
//! could serve a modified `form.js` or WebAssembly that sends true answers. Nothing stops
//! that, but it can be detected. `verify` fetches a survey's form page, then every file the
//! page loads and every WebAssembly module those scripts load, and compares each one byte
//! for byte with this binary's copy, printing each file's SHA-256.
//!
//! Which files: the page's `<script src>` and `<link href>` (style sheet, icon), then, for
//! each script, the modules it fetches: the `/static/….wasm` addresses written in this
//! binary's copy of that script (`form.js` and `receipt.js` load
//! `randomized_response.wasm`), plus [`LOADERS`] for scripts that are handed the address
//! by their caller (`blind-tokens.js` runs `blind_tokens.wasm`). Reading the addresses from
//! our own copy is sound: a served script that differs is reported anyway.
//!
//! What it cannot prove: it checks what the server sent to this request, not what it sends
//! to others (a server can tell requests apart), nor what happens on the server after a
//! response arrives. An inline `<script>` or a script from another address in the page is
//! reported, but the page's other markup is not compared (it holds the survey's text).

use std::fmt;

use crate::crypto::sha256;
use crate::http::{built_in, built_in_names};

/// Scripts that fetch a WebAssembly module whose address their caller gives them.
pub const LOADERS: &[(&str, &str)] = &[("blind-tokens.js", "blind_tokens.wasm")];

/// One file as served, against this binary's copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    /// The address, as the page or a script names it (`/static/form.js`).
    pub path: String,
    /// SHA-256 of what the server sent (hex); `None` when nothing came.
    pub served_sha256: Option<String>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Byte for byte this binary's copy.
    Same,
    /// Not this binary's copy: its SHA-256.
    Different { built_in_sha256: String },
    /// Not one of this binary's files at all (another address, another name).
    NotBuiltIn,
    /// The server did not send it (an HTTP status, or a connection error).
    NotServed(String),
    /// Code in the page itself (an inline script): nothing to compare it with.
    Inline,
}

impl FileCheck {
    pub fn ok(&self) -> bool {
        self.verdict == Verdict::Same
    }
}

impl fmt::Display for FileCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let served = self.served_sha256.as_deref().unwrap_or("-");
        match &self.verdict {
            Verdict::Same => write!(f, "ok         {served}  {}", self.path),
            Verdict::Different { built_in_sha256 } => write!(
                f,
                "DIFFERENT  {served}  {} (this binary's copy: {built_in_sha256})",
                self.path
            ),
            Verdict::NotBuiltIn => write!(
                f,
                "DIFFERENT  {served}  {} (not a file of this binary)",
                self.path
            ),
            Verdict::NotServed(why) => write!(f, "DIFFERENT  {served}  {} ({why})", self.path),
            Verdict::Inline => write!(
                f,
                "DIFFERENT  {served}  {} (an inline script in the page)",
                self.path
            ),
        }
    }
}

#[derive(Debug)]
pub struct VerifyError(String);

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for VerifyError {}

/// Every file built into this binary with its SHA-256 (hex), by name: what a release
/// publishes (`deniable verify --print-hashes`).
pub fn built_in_hashes() -> Vec<(String, String)> {
    built_in_names()
        .into_iter()
        .filter_map(|name| {
            let bytes = built_in(&name)?;
            Some((name, hex::encode(sha256(&bytes))))
        })
        .collect()
}

/// The form page's address: `url` itself when it is a survey link (`…/s/SLUG`), else `url`'s
/// origin and `/s/SURVEY`.
pub fn form_page(url: &str, survey: Option<&str>) -> Result<url::Url, VerifyError> {
    let refuse = |why: &str| {
        Err(VerifyError(format!(
            "{url:?}: {why}; give a survey link such as http://127.0.0.1:8080/s/demo, or a \
             base URL and --survey SLUG"
        )))
    };
    let Ok(parsed) = url::Url::parse(url.trim()) else {
        return refuse("not a URL (it must start with http:// or https://)");
    };
    match parsed.scheme() {
        "http" => {}
        "https" => {
            return Err(VerifyError(format!(
                "{url:?}: this binary speaks plain HTTP only. For an https server, download \
                 each file with a browser or `curl -s URL | sha256sum` and compare with \
                 `deniable verify --print-hashes` (README, \"Checking the served code\")"
            )))
        }
        _ => return refuse("the scheme must be http"),
    }
    match survey {
        Some(slug) => Ok(parsed
            .join(&format!("/s/{slug}"))
            .map_err(|e| VerifyError(format!("--survey {slug:?}: {e}")))?),
        None if parsed.path().starts_with("/s/") && parsed.path().len() > 3 => Ok(parsed),
        None => refuse("it is not a survey link"),
    }
}

/// The `src` and `href` of the page's `<script>` and `<link>` tags, and a mark for each
/// inline script, in page order.
fn loaded_by_page(html: &str) -> Vec<Result<String, ()>> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = lower[at..].find('<').map(|i| at + i) {
        let rest = &lower[start + 1..];
        let (is_script, is_link) = (rest.starts_with("script"), rest.starts_with("link"));
        let end = lower[start..].find('>').map_or(lower.len(), |i| start + i);
        at = end.max(start + 1);
        if !is_script && !is_link {
            continue;
        }
        let tag = &html[start..end];
        let attribute = if is_script { "src" } else { "href" };
        match attribute_value(tag, attribute) {
            Some(value) => found.push(Ok(value)),
            None if is_script => found.push(Err(())),
            None => {}
        }
    }
    found
}

/// A double- or single-quoted attribute's value in a tag (as our templates write them).
fn attribute_value(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name).map(|i| from + i) {
        from = i + name.len();
        let before = lower[..i].chars().last();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let after = lower[from..].trim_start();
        let Some(after) = after.strip_prefix('=') else {
            continue;
        };
        let after = after.trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            return after.split_whitespace().next().map(str::to_owned);
        }
        let offset = tag.len() - after.len() + 1;
        let value = &tag[offset..];
        return value.find(quote).map(|end| value[..end].to_owned());
    }
    None
}

/// The WebAssembly modules this binary's copy of `script` fetches.
fn modules_of(script: &str) -> Vec<String> {
    let mut modules: Vec<String> = LOADERS
        .iter()
        .filter(|(loader, _)| *loader == script)
        .map(|(_, module)| format!("/static/{module}"))
        .collect();
    if let Some(bytes) = built_in(script) {
        let text = String::from_utf8_lossy(&bytes);
        for (i, _) in text.match_indices(".wasm") {
            let start = text[..i].rfind(['"', '\'', '`']).map_or(i, |q| q + 1);
            let address = &text[start..i + ".wasm".len()];
            if address.starts_with("/static/") && !address.contains(char::is_whitespace) {
                modules.push(address.to_owned());
            }
        }
    }
    modules.dedup();
    modules
}

/// The file name of a same-origin `/static/NAME` address, if that is what it is.
fn static_name<'a>(page: &url::Url, address: &'a url::Url) -> Option<&'a str> {
    (address.origin() == page.origin())
        .then(|| address.path().strip_prefix("/static/"))
        .flatten()
}

/// Fetches the form page at `page`, every file it loads and every module those load, and
/// checks each against this binary's copy.
pub async fn verify(page: &url::Url) -> Result<Vec<FileCheck>, VerifyError> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| VerifyError(format!("cannot build the HTTP client: {e}")))?;
    let response = client.get(page.clone()).send().await.map_err(|e| {
        VerifyError(if e.is_connect() {
            format!("cannot connect to {page} — is the server running there?")
        } else {
            format!("cannot fetch {page}: {e}")
        })
    })?;
    if !response.status().is_success() {
        return Err(VerifyError(format!(
            "{page} answered {}: is it an open survey's link?",
            response.status()
        )));
    }
    let html = response
        .text()
        .await
        .map_err(|e| VerifyError(format!("cannot read {page}: {e}")))?;

    let mut addresses: Vec<url::Url> = Vec::new();
    let mut checks = Vec::new();
    for (index, loaded) in loaded_by_page(&html).into_iter().enumerate() {
        match loaded.map(|src| page.join(&src)) {
            Ok(Ok(address)) => addresses.push(address),
            Ok(Err(_)) | Err(()) => checks.push(FileCheck {
                path: format!("{page} (script {})", index + 1),
                served_sha256: None,
                verdict: Verdict::Inline,
            }),
        }
    }
    let mut i = 0;
    while i < addresses.len() {
        if let Some(name) = static_name(page, &addresses[i]).filter(|n| n.ends_with(".js")) {
            for module in modules_of(name) {
                if let Ok(address) = page.join(&module) {
                    if !addresses.contains(&address) {
                        addresses.push(address);
                    }
                }
            }
        }
        i += 1;
    }
    for address in addresses {
        checks.push(check(&client, page, &address).await);
    }
    Ok(checks)
}

async fn check(client: &reqwest::Client, page: &url::Url, address: &url::Url) -> FileCheck {
    let path = if address.origin() == page.origin() {
        address.path().to_owned()
    } else {
        address.to_string()
    };
    let served = match client.get(address.clone()).send().await {
        Ok(response) if response.status().is_success() => response.bytes().await.ok(),
        Ok(response) => {
            return FileCheck {
                path,
                served_sha256: None,
                verdict: Verdict::NotServed(format!("answered {}", response.status())),
            }
        }
        Err(error) => {
            return FileCheck {
                path,
                served_sha256: None,
                verdict: Verdict::NotServed(error.to_string()),
            }
        }
    };
    let Some(served) = served else {
        return FileCheck {
            path,
            served_sha256: None,
            verdict: Verdict::NotServed("the body did not arrive".to_owned()),
        };
    };
    let served_sha256 = Some(hex::encode(sha256(&served)));
    let verdict = match static_name(page, address).and_then(built_in) {
        None => Verdict::NotBuiltIn,
        Some(ours) if ours.as_ref() == served.as_ref() => Verdict::Same,
        Some(ours) => Verdict::Different {
            built_in_sha256: hex::encode(sha256(&ours)),
        },
    };
    FileCheck {
        path,
        served_sha256,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_s_scripts_styles_and_inline_scripts_are_found() {
        let html = r#"<head><link rel="icon" href="/static/favicon.svg">
            <LINK rel=stylesheet href='/static/form.css'>
            <script src="/static/form-core.js" defer></script>
            <script>alert(1)</script><p data-src="x">"#;
        assert_eq!(
            loaded_by_page(html),
            [
                Ok("/static/favicon.svg".to_owned()),
                Ok("/static/form.css".to_owned()),
                Ok("/static/form-core.js".to_owned()),
                Err(()),
            ]
        );
    }

    #[test]
    fn every_module_a_built_in_script_names_is_found_and_built_in() {
        assert_eq!(modules_of("form.js"), ["/static/randomized_response.wasm"]);
        assert_eq!(modules_of("blind-tokens.js"), ["/static/blind_tokens.wasm"]);
        for name in built_in_names().iter().filter(|n| n.ends_with(".js")) {
            for module in modules_of(name) {
                let file = module.strip_prefix("/static/").unwrap();
                assert!(built_in(file).is_some(), "{name} loads {module}");
            }
        }
    }

    #[test]
    fn a_survey_link_or_a_base_and_a_slug_name_the_form_page() {
        let page = form_page("http://127.0.0.1:8080/s/demo", None).unwrap();
        assert_eq!(page.as_str(), "http://127.0.0.1:8080/s/demo");
        let page = form_page("http://127.0.0.1:8080", Some("exam-1")).unwrap();
        assert_eq!(page.as_str(), "http://127.0.0.1:8080/s/exam-1");
        let error = form_page("http://127.0.0.1:8080", None).unwrap_err();
        assert!(error.to_string().contains("--survey SLUG"), "{error}");
        let error = form_page("https://example.org/s/demo", None).unwrap_err();
        assert!(error.to_string().contains("--print-hashes"), "{error}");
    }
}
