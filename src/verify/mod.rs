//! `deniable verify`: anyone can check that a running survey serves the respondent's page
//! and code built into this binary — what a browser would run, not what a pattern finds.
//!
//! The privacy of a response rests on the code the respondent's browser runs: a server
//! could serve a modified `form.js` or WebAssembly that sends true answers, or a page that
//! loads other code. Nothing stops that, but it can be detected. `verify`
//!
//! 1. reads the survey's public definition (`GET /api/surveys/{slug}`, as the page's script
//!    does) and renders the form page and its headers from it with the server's own function
//!    (`crate::http::form_page`; src/http/public_definition.rs says why that is the page's
//!    whole input);
//! 2. fetches the page as Chrome does ([`browser`]), once as a page opened from a link and
//!    once as another site's frame, and requires it byte for byte, with the headers that
//!    confine it (Content-Security-Policy, `X-Content-Type-Options`, `Referrer-Policy`,
//!    `X-Frame-Options`, the content type) exactly as this binary sends them, and no
//!    `Refresh` or `Link` header ([`page`]);
//! 3. fetches every file that page loads and every WebAssembly module those scripts load,
//!    each as the browser asks for it, and compares each with this binary's copy, printing
//!    its SHA-256 ([`files`]).
//!
//! It speaks HTTPS with the usual web roots, and a private authority's certificate given
//! with `--ca-file`.
//!
//! What it cannot prove: it checks what the server sent to these requests, not what it sends
//! to others (a server can tell requests apart by address or time, and a front end can tell
//! this client from a browser by its TLS handshake), nor what happens on the server after a
//! response arrives.

use std::fmt;

use std::path::Path;

use crate::crypto::sha256;
use crate::domain::Slug;
use crate::http::{built_in, built_in_names};
use browser::{Browser, Destination};

mod browser;
mod files;
mod page;

pub use browser::{user_agent, CHROME_MAJOR};
pub use files::LOADERS;

/// One check: a file, or the page in one context, against this binary's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What was checked: an address as the page names it (`/static/form.js`), or the page
    /// and how it was asked for (`/s/demo in a frame (Sec-Fetch-Dest: iframe)`).
    pub what: String,
    /// SHA-256 of what the server sent (hex); `None` when nothing came, or for a header.
    pub served_sha256: Option<String>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Byte for byte this binary's.
    Same,
    /// Not this binary's copy: its SHA-256.
    Different { built_in_sha256: String },
    /// Not one of this binary's files at all (another address, another name).
    NotBuiltIn,
    /// The server did not send it (an HTTP status, or a connection error).
    NotServed(String),
    /// The page, or one of its headers, is not what this binary sends: why.
    Refused(String),
}

impl Check {
    pub fn ok(&self) -> bool {
        self.verdict == Verdict::Same
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let served = self.served_sha256.as_deref().unwrap_or("-");
        let what = &self.what;
        match &self.verdict {
            Verdict::Same => write!(f, "ok         {served}  {what}"),
            Verdict::Different { built_in_sha256 } => write!(
                f,
                "DIFFERENT  {served}  {what} (this binary's copy: {built_in_sha256})"
            ),
            Verdict::NotBuiltIn => {
                write!(f, "DIFFERENT  {served}  {what} (not a file of this binary)")
            }
            Verdict::NotServed(why) => write!(f, "DIFFERENT  {served}  {what} ({why})"),
            Verdict::Refused(why) => write!(f, "DIFFERENT  {served}  {what}: {why}"),
        }
    }
}

/// Every check of one run.
#[derive(Debug)]
pub struct Report {
    pub checks: Vec<Check>,
    /// How many of them are files (the rest are the page, as a page and in a frame).
    pub files: usize,
}

#[derive(Debug)]
pub struct VerifyError(pub(crate) String);

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
            Some((name, hex_sha256(&bytes)))
        })
        .collect()
}

fn hex_sha256(bytes: &[u8]) -> String {
    hex::encode(sha256(bytes))
}

/// The form page's address and the survey's slug: `url` itself when it is a survey link
/// (`…/s/SLUG`), else `url`'s origin and `/s/SURVEY`.
pub fn form_page(url: &str, survey: Option<&str>) -> Result<(url::Url, Slug), VerifyError> {
    let refuse = |why: &str| {
        Err(VerifyError(format!(
            "{url:?}: {why}; give a survey link such as https://surveys.example.org/s/demo, or \
             a base URL and --survey SLUG"
        )))
    };
    let Ok(parsed) = url::Url::parse(url.trim()) else {
        return refuse("not a URL (it must start with https:// or http://)");
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return refuse("the scheme must be https or http");
    }
    let page = match survey {
        Some(slug) => parsed
            .join(&format!("/s/{slug}"))
            .map_err(|e| VerifyError(format!("--survey {slug:?}: {e}")))?,
        None => parsed,
    };
    let Some(slug) = page.path().strip_prefix("/s/") else {
        return refuse("it is not a survey link");
    };
    match Slug::parse(slug) {
        Ok(slug) => Ok((page.clone(), slug)),
        Err(_) => refuse("it is not a survey link"),
    }
}

/// Checks the survey at `page` (its form's address) against this binary: its page, as a
/// page and in a frame, with its headers, and every file it loads. `ca_file`: PEM
/// certificates of a private authority, trusted besides the usual web roots.
pub async fn verify(
    page: &url::Url,
    slug: &Slug,
    ca_file: Option<&Path>,
) -> Result<Report, VerifyError> {
    let browser = Browser::new(ca_file)?;
    let expected = page::expected(&browser, page, slug.as_str()).await?;
    let mut checks = Vec::new();
    for destination in [Destination::Document, Destination::Frame] {
        checks.extend(page::check(&browser, page, &expected, destination).await);
    }
    let files = files::loaded(page, &expected.html);
    for (address, destination) in &files {
        checks.push(files::check(&browser, page, address, *destination).await);
    }
    Ok(Report {
        checks,
        files: files.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_link_or_a_base_and_a_slug_name_the_form_page() {
        let (page, slug) = form_page("http://127.0.0.1:8080/s/demo", None).unwrap();
        assert_eq!(page.as_str(), "http://127.0.0.1:8080/s/demo");
        assert_eq!(slug.as_str(), "demo");
        let (page, _) = form_page("http://127.0.0.1:8080", Some("exam-1")).unwrap();
        assert_eq!(page.as_str(), "http://127.0.0.1:8080/s/exam-1");
        let (page, _) = form_page("https://surveys.example.org/s/demo", None).unwrap();
        assert_eq!(page.as_str(), "https://surveys.example.org/s/demo");
        for not_a_survey in [
            "http://127.0.0.1:8080",
            "http://127.0.0.1:8080/s/demo/receipt",
            "http://127.0.0.1:8080/s/",
        ] {
            let error = form_page(not_a_survey, None).unwrap_err();
            assert!(error.to_string().contains("--survey SLUG"), "{error}");
        }
        let error = form_page("ftp://example.org/s/demo", None).unwrap_err();
        assert!(error.to_string().contains("https or http"), "{error}");
    }
}
