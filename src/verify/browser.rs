//! Requests as a current desktop Chrome sends them, so that a front end that serves other
//! code to browsers only (by `User-Agent`, `Accept` or `Sec-Fetch-*`) serves it to `verify`
//! too.
//!
//! Each kind of request carries what Chrome sends for it: a page opened from a link
//! (`Sec-Fetch-Dest: document`), the same page in another site's frame (`iframe`), a script,
//! a style sheet, an icon, and the `fetch()` of the scripts (the definition, WebAssembly:
//! `empty`). The `Sec-Fetch-*` and `Sec-CH-UA*` headers go, as in Chrome, to potentially
//! trustworthy origins only (HTTPS, `localhost`, loopback addresses); Chrome sends none of
//! them over plain HTTP to other hosts. No cookie, no `Referer` (the page's policy is
//! `no-referrer`). Redirects are not followed: a survey's page and files are answered
//! directly, and an answer that sends elsewhere is reported.
//!
//! What headers cannot hide: a front end can still tell this client from Chrome by how it
//! speaks TLS and HTTP (the order of its headers, its TLS handshake). HTTP/2 and the
//! encodings a browser accepts are spoken (reqwest's features).

use std::error::Error as _;
use std::path::Path;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::VerifyError;

/// Chrome's major version in the headers below (the stable release of October 2025);
/// raise it with Chrome's releases, so that `verify` looks current.
pub const CHROME_MAJOR: u32 = 142;

/// Chrome's reduced User-Agent on 64-bit Windows, the most common desktop browser.
pub fn user_agent() -> String {
    format!(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
         Chrome/{CHROME_MAJOR}.0.0.0 Safari/537.36"
    )
}

/// What a request is for, as `Sec-Fetch-Dest` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// A page opened from a link in an e-mail or typed in (`document`, `Sec-Fetch-Site: none`).
    Document,
    /// The page in another site's `<iframe>` (`iframe`, `Sec-Fetch-Site: cross-site`).
    Frame,
    /// `<script src>`.
    Script,
    /// `<link rel="stylesheet">`.
    Style,
    /// `<link rel="icon">`.
    Image,
    /// A script's `fetch()` (`empty`): the definition, a WebAssembly module.
    Fetch,
}

impl Destination {
    /// The value of `Sec-Fetch-Dest`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Document => "document",
            Self::Frame => "iframe",
            Self::Script => "script",
            Self::Style => "style",
            Self::Image => "image",
            Self::Fetch => "empty",
        }
    }

    fn navigates(self) -> bool {
        matches!(self, Self::Document | Self::Frame)
    }

    fn accept(self) -> &'static str {
        match self {
            Self::Document | Self::Frame => {
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,\
                 image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
            }
            Self::Style => "text/css,*/*;q=0.1",
            Self::Image => "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
            Self::Script | Self::Fetch => "*/*",
        }
    }

    /// Chrome's request headers for this destination at `url`, in Chrome's order.
    pub fn headers(self, url: &url::Url) -> Vec<(&'static str, String)> {
        let secure = potentially_trustworthy(url);
        let mut headers = Vec::new();
        if secure {
            headers.extend([
                (
                    "sec-ch-ua",
                    format!(
                        "\"Chromium\";v=\"{CHROME_MAJOR}\", \"Google Chrome\";v=\"{CHROME_MAJOR}\", \
                         \"Not_A Brand\";v=\"99\""
                    ),
                ),
                ("sec-ch-ua-mobile", "?0".to_owned()),
                ("sec-ch-ua-platform", "\"Windows\"".to_owned()),
            ]);
        }
        if self.navigates() {
            headers.push(("upgrade-insecure-requests", "1".to_owned()));
        }
        headers.push(("user-agent", user_agent()));
        headers.push(("accept", self.accept().to_owned()));
        if secure {
            let site = match self {
                Self::Document => "none",
                Self::Frame => "cross-site",
                _ => "same-origin",
            };
            let mode = match self {
                Self::Document | Self::Frame => "navigate",
                Self::Fetch => "cors",
                Self::Script | Self::Style | Self::Image => "no-cors",
            };
            headers.push(("sec-fetch-site", site.to_owned()));
            headers.push(("sec-fetch-mode", mode.to_owned()));
            if self == Self::Document {
                headers.push(("sec-fetch-user", "?1".to_owned()));
            }
            headers.push(("sec-fetch-dest", self.name().to_owned()));
        }
        headers.push(("accept-encoding", "gzip, deflate, br, zstd".to_owned()));
        headers.push(("accept-language", "en-US,en;q=0.9".to_owned()));
        headers
    }
}

/// Whether Chrome treats `url`'s origin as secure, and so sends it `Sec-Fetch-*`: HTTPS, or a
/// loopback host (W3C Secure Contexts, 3.1).
pub fn potentially_trustworthy(url: &url::Url) -> bool {
    if url.scheme() == "https" {
        return true;
    }
    match url.host() {
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        None => false,
    }
}

/// One answer: its status, headers (lower-case names, in order) and decoded body.
pub struct Fetched {
    pub status: reqwest::StatusCode,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Fetched {
    /// Every value of header `name` (lower case).
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(served, _)| served == name)
            .map(|(_, value)| value.as_str())
            .collect()
    }

    /// "answered 302 Found (to /elsewhere)": what a status other than 200 means here.
    pub fn refusal(&self) -> String {
        match self.values("location").first() {
            Some(location) => format!("answered {} (to {location})", self.status),
            None => format!("answered {}", self.status),
        }
    }
}

/// An HTTP client that asks as Chrome does.
pub struct Browser {
    client: reqwest::Client,
}

impl Browser {
    /// With the usual web roots, and the certificates of `ca_file` (PEM) besides, for a
    /// server whose certificate a private authority signed.
    pub fn new(ca_file: Option<&Path>) -> Result<Self, VerifyError> {
        let mut builder = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .http1_title_case_headers();
        if let Some(path) = ca_file {
            let pem = std::fs::read(path).map_err(|error| {
                VerifyError(format!(
                    "--ca-file {}: cannot read it: {error}",
                    path.display()
                ))
            })?;
            let certificates = reqwest::Certificate::from_pem_bundle(&pem).map_err(|error| {
                VerifyError(format!(
                    "--ca-file {}: not PEM certificates: {error}",
                    path.display()
                ))
            })?;
            if certificates.is_empty() {
                return Err(VerifyError(format!(
                    "--ca-file {}: no certificate in it (a PEM file has \
                     -----BEGIN CERTIFICATE----- blocks)",
                    path.display()
                )));
            }
            for certificate in certificates {
                builder = builder.add_root_certificate(certificate);
            }
        }
        let client = builder
            .build()
            .map_err(|error| VerifyError(format!("cannot build the HTTP client: {error}")))?;
        Ok(Self { client })
    }

    /// GET `url` as Chrome would for `destination`; the decoded body.
    pub async fn fetch(&self, url: &url::Url, destination: Destination) -> Result<Fetched, String> {
        let mut headers = HeaderMap::new();
        for (name, value) in destination.headers(url) {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        }
        if destination == Destination::Fetch {
            // The scripts fetch the definition with `cache: "no-store"`.
            headers.insert("cache-control", HeaderValue::from_static("no-cache"));
            headers.insert("pragma", HeaderValue::from_static("no-cache"));
        }
        let response = self
            .client
            .get(url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|error| explain(url, &error))?;
        let status = response.status();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = response
            .bytes()
            .await
            .map_err(|error| format!("the body did not arrive: {}", chain(&error)))?;
        Ok(Fetched {
            status,
            headers,
            body: body.to_vec(),
        })
    }
}

/// An error and every cause under it, `: `-separated.
fn chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Why a request failed, in words that say what to do.
fn explain(url: &url::Url, error: &reqwest::Error) -> String {
    let causes = chain(error);
    if causes.contains("certificate") || causes.contains("UnknownIssuer") {
        format!(
            "the TLS certificate of {} is not one this check trusts ({causes}). If a private \
             certificate authority signed it, give that authority's certificate with \
             --ca-file PATH",
            url.host_str().unwrap_or_default()
        )
    } else if error.is_connect() {
        format!("cannot connect to {url} — is the server running there? ({causes})")
    } else {
        format!("cannot fetch {url}: {causes}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(headers: &'a [(&str, String)], name: &str) -> Option<&'a str> {
        headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_page_and_a_frame_are_asked_for_as_chrome_asks_for_them() {
        let url = url::Url::parse("https://surveys.example.org/s/demo").unwrap();
        let page = Destination::Document.headers(&url);
        assert!(header(&page, "user-agent").unwrap().contains("Chrome/"));
        assert!(header(&page, "accept").unwrap().starts_with("text/html,"));
        assert_eq!(header(&page, "sec-fetch-dest"), Some("document"));
        assert_eq!(header(&page, "sec-fetch-mode"), Some("navigate"));
        assert_eq!(header(&page, "sec-fetch-site"), Some("none"));
        assert_eq!(header(&page, "sec-fetch-user"), Some("?1"));
        let frame = Destination::Frame.headers(&url);
        assert_eq!(header(&frame, "sec-fetch-dest"), Some("iframe"));
        assert_eq!(header(&frame, "sec-fetch-site"), Some("cross-site"));
        assert_eq!(header(&frame, "sec-fetch-user"), None);
        let module = Destination::Fetch.headers(&url);
        assert_eq!(header(&module, "sec-fetch-dest"), Some("empty"));
        assert_eq!(header(&module, "sec-fetch-mode"), Some("cors"));
        assert_eq!(header(&module, "upgrade-insecure-requests"), None);
    }

    #[test]
    fn fetch_metadata_goes_only_to_secure_origins_as_in_chrome() {
        for secure in [
            "https://example.org/s/a",
            "http://127.0.0.1:8080/s/a",
            "http://localhost/s/a",
            "http://[::1]/s/a",
        ] {
            let url = url::Url::parse(secure).unwrap();
            assert!(potentially_trustworthy(&url), "{secure}");
            let headers = Destination::Script.headers(&url);
            assert_eq!(
                header(&headers, "sec-fetch-dest"),
                Some("script"),
                "{secure}"
            );
        }
        let plain = url::Url::parse("http://surveys.example.org/s/a").unwrap();
        assert!(!potentially_trustworthy(&plain));
        let headers = Destination::Document.headers(&plain);
        assert_eq!(header(&headers, "sec-fetch-dest"), None);
        assert!(header(&headers, "user-agent").is_some());
    }
}
