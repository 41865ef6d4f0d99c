//! Where absolute links point (respondent link, QR code, sign-up links, invitation CSV) and
//! whether browsers see a secure context (cookie `Secure` flag, `__Host-` names).
//!
//! With `--public-url` both are fixed by the operator. Without it they follow the request's
//! own `Host` header and the connection's scheme, never `Forwarded`/`X-Forwarded-Host`/
//! `X-Forwarded-Proto`: any client can send those, and a forged one would rewrite a QR code.

use std::fmt;
use std::str::FromStr;

use actix_web::http::{header, uri::Authority};
use actix_web::{web, HttpRequest};

use crate::error::AppError;

/// The validated `--public-url`: `http` or `https`, a host, an optional port, nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `scheme://host[:port]`, without a trailing slash (default ports dropped).
    origin: String,
    https: bool,
    host: String,
}

/// Why a `--public-url` was refused, in words for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidPublicUrl(String);

impl fmt::Display for InvalidPublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidPublicUrl {}

impl PublicUrl {
    pub fn parse(text: &str) -> Result<Self, InvalidPublicUrl> {
        let refuse = |why: &str| {
            Err(InvalidPublicUrl(format!(
                "{text:?} is not a public URL: {why} (e.g. https://surveys.example.org)"
            )))
        };
        let Ok(url) = url::Url::parse(text.trim()) else {
            return refuse("it must be a full address with http:// or https://");
        };
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return refuse("the scheme must be http or https"),
        };
        let Some(host) = url.host_str().filter(|host| !host.is_empty()) else {
            return refuse("it has no host");
        };
        if !url.username().is_empty() || url.password().is_some() {
            return refuse("it must not contain a user name or password");
        }
        // Links are built as origin + "/s/…": a path prefix would need every route moved.
        if url.path() != "/" {
            return refuse("it must not have a path (only an optional trailing slash)");
        }
        if url.query().is_some() || url.fragment().is_some() {
            return refuse("it must not have a query or a fragment");
        }
        Ok(Self {
            origin: url.origin().ascii_serialization(),
            https,
            host: host.to_owned(),
        })
    }

    /// `scheme://host[:port]`, to which a path such as `/s/{slug}` is appended.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Browsers treat HTTPS and loopback hosts as secure contexts.
    pub fn is_secure_context(&self) -> bool {
        self.https || is_loopback(&self.host)
    }
}

impl FromStr for PublicUrl {
    type Err = InvalidPublicUrl;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin)
    }
}

/// The app data that carries the operator's `--public-url`, if any.
#[derive(Debug, Clone)]
pub(super) struct ConfiguredPublicUrl(pub Option<PublicUrl>);

fn configured(request: &HttpRequest) -> Option<&PublicUrl> {
    request
        .app_data::<web::Data<ConfiguredPublicUrl>>()
        .and_then(|data| data.get_ref().0.as_ref())
}

/// `host[:port]` as this request names it: the request target's authority (HTTP/2, or an
/// absolute-form target), else the `Host` header. A value that is not a host is a 400.
fn request_authority(request: &HttpRequest) -> Result<Authority, AppError> {
    let named = match request.uri().authority() {
        Some(authority) => authority.as_str(),
        None => request
            .headers()
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_else(|| request.app_config().host()),
    };
    match named.parse::<Authority>() {
        Ok(authority) if !named.contains('@') && !authority.host().is_empty() => Ok(authority),
        _ => Err(AppError::invalid(
            "invalid_host",
            "the Host header does not name a host",
        )),
    }
}

/// `scheme://host[:port]` for absolute links: the public URL, else this request's own host
/// on this connection's scheme.
pub(super) fn origin(request: &HttpRequest) -> Result<String, AppError> {
    if let Some(public) = configured(request) {
        return Ok(public.origin().to_owned());
    }
    let scheme = if request.app_config().secure() {
        "https"
    } else {
        "http"
    };
    Ok(format!("{scheme}://{}", request_authority(request)?))
}

/// Whether the browser sees a secure context: from the public URL if configured, else from
/// this connection's scheme and the request's own host (loopback counts, as in browsers).
pub fn is_secure_context(request: &HttpRequest) -> bool {
    if let Some(public) = configured(request) {
        return public.is_secure_context();
    }
    request.app_config().secure()
        || request_authority(request).is_ok_and(|authority| is_loopback(authority.host()))
}

/// Whether an absolute link points at this machine only (127.0.0.0/8, ::1, localhost): a
/// phone scanning its QR code cannot reach it.
pub fn is_loopback_link(link: &str) -> bool {
    match url::Url::parse(link)
        .ok()
        .and_then(|url| url.host().map(|host| host.to_owned()))
    {
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

fn is_loopback(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_links_are_those_only_this_machine_reaches() {
        for link in [
            "http://127.0.0.1:8080/s/x",
            "http://127.8.9.10/s/x",
            "http://[::1]:8080/s/x",
            "http://localhost:8080/s/x",
            "http://LOCALHOST./s/x",
            "http://app.localhost/s/x",
        ] {
            assert!(is_loopback_link(link), "{link}");
        }
        for link in [
            "https://surveys.example.org/s/x",
            "http://192.168.1.20:8080/s/x",
            "http://[2001:db8::1]/s/x",
            "http://localhost.example.org/s/x",
            "not a link",
        ] {
            assert!(!is_loopback_link(link), "{link}");
        }
    }

    #[test]
    fn accepts_an_origin_with_or_without_a_trailing_slash_and_drops_default_ports() {
        for (text, origin, secure) in [
            (
                "https://surveys.example.org",
                "https://surveys.example.org",
                true,
            ),
            (
                "https://surveys.example.org/",
                "https://surveys.example.org",
                true,
            ),
            (
                "https://Surveys.Example.org:443/",
                "https://surveys.example.org",
                true,
            ),
            (
                "http://surveys.example.org:8080",
                "http://surveys.example.org:8080",
                false,
            ),
            ("http://localhost:8080/", "http://localhost:8080", true),
            ("http://[::1]:8080", "http://[::1]:8080", true),
        ] {
            let url = PublicUrl::parse(text).unwrap();
            assert_eq!(url.origin(), origin, "{text}");
            assert_eq!(url.is_secure_context(), secure, "{text}");
        }
    }

    #[test]
    fn refuses_anything_but_an_http_or_https_origin_with_a_clear_reason() {
        for (text, reason) in [
            ("surveys.example.org", "http:// or https://"),
            ("", "http:// or https://"),
            ("ftp://surveys.example.org", "scheme"),
            ("file:///tmp/x", "scheme"),
            ("https://surveys.example.org/deniable", "path"),
            ("https://surveys.example.org//", "path"),
            ("https://surveys.example.org/?a=1", "query"),
            ("https://surveys.example.org/?", "query"),
            ("https://surveys.example.org/#top", "fragment"),
            ("https://user:secret@surveys.example.org", "user name"),
        ] {
            let error = PublicUrl::parse(text).unwrap_err().to_string();
            assert!(error.contains(reason), "{text}: {error}");
            assert!(error.contains("e.g. https://"), "{text}: {error}");
        }
    }
}
