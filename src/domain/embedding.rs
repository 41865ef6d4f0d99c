//! A survey inside a larger study (issue 35): where respondents go once their response is
//! stored (`completion_url`, with `{name}` placeholders the form fills from its link's
//! fragment), and which sites may show the form in a frame (`embed_origins`).
//!
//! Both are part of the definition and frozen when the survey opens. The completion link is
//! never in the public definition (a panel's completion code must not be readable without
//! answering); the origins are, because the form's frame policy is made of them.

use std::net::IpAddr;

use super::DomainError;

/// The longest completion link, in characters.
pub const MAX_COMPLETION_URL_CHARS: usize = 2_000;
/// The most sites that may frame one survey's form.
pub const MAX_EMBED_ORIGINS: usize = 10;
/// The longest placeholder name (`{PROLIFIC_PID}`), in characters.
pub const MAX_PLACEHOLDER_CHARS: usize = 64;
/// The fragment's own names: an invitation link's code and key fingerprint are never handed
/// to another site.
pub const RESERVED_PLACEHOLDERS: [&str; 2] = ["invitation", "key"];

/// Where the Sent page's "Continue" leads: an `https://` address whose query or fragment
/// may hold `{name}` placeholders. Kept exactly as written, so the form substitutes what
/// the researcher wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionUrl(String);

impl CompletionUrl {
    /// `None` for an absent or blank link.
    pub fn parse(text: Option<&str>) -> Result<Option<Self>, DomainError> {
        let text = text.unwrap_or_default().trim();
        if text.is_empty() {
            return Ok(None);
        }
        check_completion_url(text).map_err(|reason| {
            DomainError::invalid("invalid_completion_url", format!("completion_url {reason}"))
        })?;
        Ok(Some(Self(text.to_owned())))
    }

    /// A stored link, checked again (a malformed row is an internal error, not a redirect).
    pub fn from_stored(text: Option<String>) -> Result<Option<Self>, DomainError> {
        Self::parse(text.as_deref())
            .map_err(|_| DomainError::internal("a stored completion_url is malformed"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The placeholders' names, in order of appearance.
    pub fn placeholders(&self) -> Vec<&str> {
        let (_, tail) = split_at_query(&self.0);
        placeholders(tail).unwrap_or_default()
    }
}

/// Why a completion link is refused, as the end of "completion_url …".
fn check_completion_url(text: &str) -> Result<(), String> {
    let chars = text.chars().count();
    if chars > MAX_COMPLETION_URL_CHARS {
        return Err(format!(
            "has {chars} characters; at most {MAX_COMPLETION_URL_CHARS}"
        ));
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("contains a space or a control character".to_owned());
    }
    let (head, tail) = split_at_query(text);
    if head.contains(['{', '}']) {
        return Err(
            "has a placeholder in its host or path: {name} is allowed only in the query \
             (after ?) or the fragment (after #), so that nobody can choose where it leads"
                .to_owned(),
        );
    }
    let names = placeholders(tail)?;
    if let Some(name) = names
        .iter()
        .find(|name| RESERVED_PLACEHOLDERS.contains(name))
    {
        return Err(format!(
            "uses {{{name}}}: an invitation's code and key are never passed to another site"
        ));
    }
    let url = url::Url::parse(text).map_err(|error| format!("is not a web address: {error}"))?;
    if url.scheme() != "https" {
        return Err(format!(
            "must start with https:// (not {}:), so the way back is encrypted",
            url.scheme()
        ));
    }
    if url.host().is_none() {
        return Err("has no host".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("carries a user name or password".to_owned());
    }
    Ok(())
}

/// The address before its query and fragment, and the rest (from the first `?` or `#`).
fn split_at_query(text: &str) -> (&str, &str) {
    text.split_at(text.find(['?', '#']).unwrap_or(text.len()))
}

/// The `{name}` placeholders of a query and fragment, refusing a brace that opens none.
fn placeholders(tail: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = tail;
    while let Some(start) = rest.find(['{', '}']) {
        if rest[start..].starts_with('}') {
            return Err("has a `}` that closes no placeholder".to_owned());
        }
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| "has a `{` that opens no placeholder".to_owned())?;
        let name = &after[..end];
        if !is_placeholder_name(name) {
            return Err(format!(
                "has the placeholder {{{name}}}: a name is a letter or _ and then up to {} \
                 letters, digits or _",
                MAX_PLACEHOLDER_CHARS - 1
            ));
        }
        names.push(name);
        rest = &after[end + 1..];
    }
    Ok(names)
}

/// `[A-Za-z_][A-Za-z0-9_]{0,63}`: the names a link's fragment may carry (form-core.js reads
/// the same grammar).
pub fn is_placeholder_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= MAX_PLACEHOLDER_CHARS
}

/// The sites that may show the form in a frame: exact origins, `https://`, or `http://`
/// on a loopback host (so tests can run). Empty: no site may.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedOrigins(Vec<String>);

impl EmbedOrigins {
    pub fn parse<S: AsRef<str>>(origins: &[S]) -> Result<Self, DomainError> {
        let invalid = |reason: String| DomainError::invalid("invalid_embed_origins", reason);
        let origins: Vec<&str> = origins
            .iter()
            .map(|origin| origin.as_ref().trim())
            .filter(|origin| !origin.is_empty())
            .collect();
        if origins.len() > MAX_EMBED_ORIGINS {
            return Err(invalid(format!(
                "embed_origins lists {} origins; at most {MAX_EMBED_ORIGINS}",
                origins.len()
            )));
        }
        let mut parsed: Vec<String> = Vec::with_capacity(origins.len());
        for origin in origins {
            let origin = parse_origin(origin)
                .map_err(|reason| invalid(format!("embed_origins: {origin:?} {reason}")))?;
            if !parsed.contains(&origin) {
                parsed.push(origin);
            }
        }
        Ok(Self(parsed))
    }

    /// The stored form: the origins separated by single spaces (none contains one).
    pub fn from_stored(text: &str) -> Result<Self, DomainError> {
        let origins: Vec<&str> = text.split(' ').collect();
        Self::parse(&origins)
            .map_err(|_| DomainError::internal("stored embed_origins are malformed"))
    }

    pub fn to_stored(&self) -> String {
        self.0.join(" ")
    }

    /// Each origin as browsers serialize it (`https://study.example.org`, no slash).
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One origin as a browser serializes it, or why it is refused.
fn parse_origin(text: &str) -> Result<String, String> {
    if text.contains('*') {
        return Err("has a wildcard: list each site's exact origin".to_owned());
    }
    let url = url::Url::parse(text)
        .map_err(|error| format!("is not an origin (https://host[:port]): {error}"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost",
        Some(url::Host::Ipv4(address)) => IpAddr::V4(address).is_loopback(),
        Some(url::Host::Ipv6(address)) => IpAddr::V6(address).is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(
                "uses http://, which is allowed only for a loopback host (localhost, \
                 127.0.0.1): a site framing the form must be served over https"
                    .to_owned(),
            )
        }
        scheme => return Err(format!("has the scheme {scheme}:, not https:")),
    }
    let origin = url.origin().ascii_serialization();
    let bare = text.strip_suffix('/').unwrap_or(text);
    if url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
        || !bare.eq_ignore_ascii_case(&origin)
    {
        return Err(format!(
            "is not an origin: write only the scheme, host and port, as {origin}"
        ));
    }
    Ok(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        match CompletionUrl::parse(Some(text)) {
            Err(DomainError::Invalid { code, message }) => {
                assert_eq!(code, "invalid_completion_url");
                message
            }
            other => panic!("{text} was not refused: {other:?}"),
        }
    }

    #[test]
    fn a_completion_link_keeps_its_placeholders_in_the_query_and_fragment() {
        let link = CompletionUrl::parse(Some(
            " https://app.prolific.com/submissions/complete?cc=C0DE&p={PROLIFIC_PID}#{return} ",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(
            link.as_str(),
            "https://app.prolific.com/submissions/complete?cc=C0DE&p={PROLIFIC_PID}#{return}"
        );
        assert_eq!(link.placeholders(), ["PROLIFIC_PID", "return"]);
        assert_eq!(CompletionUrl::parse(Some("  ")).unwrap(), None);
        assert_eq!(CompletionUrl::parse(None).unwrap(), None);
    }

    #[test]
    fn a_completion_link_refuses_what_would_redirect_elsewhere_or_leak() {
        assert!(refusal("http://panel.example/done").contains("https://"));
        assert!(refusal("javascript:alert(1)").contains("https://"));
        assert!(refusal("https://{host}.example/done").contains("host or path"));
        assert!(refusal("https://panel.example/{path}?x=1").contains("host or path"));
        assert!(refusal("https://panel.example/done?c={invitation}").contains("invitation"));
        assert!(refusal("https://panel.example/done#{key}").contains("{key}"));
        assert!(refusal("https://panel.example/done?c={a-b}").contains("placeholder"));
        assert!(refusal("https://panel.example/done?c={open").contains("opens no"));
        assert!(refusal("https://panel.example/done?c=x}").contains("closes no"));
        assert!(refusal("https://user:pw@panel.example/done").contains("password"));
        assert!(refusal("https://panel.example/a b").contains("space"));
        let long = format!("https://panel.example/?c={}", "x".repeat(2_000));
        assert!(refusal(&long).contains("at most 2000"));
        let longest = format!("https://panel.example/?c={}", "x".repeat(2_000 - 25));
        assert!(CompletionUrl::parse(Some(&longest)).is_ok());
    }

    #[test]
    fn embed_origins_are_exact_https_origins_or_loopback_http() {
        let origins = EmbedOrigins::parse(&[
            "https://Study.Example.org/",
            "http://127.0.0.1:8123",
            "http://localhost:9000",
            "http://[::1]:1",
            "https://study.example.org",
        ])
        .unwrap();
        assert_eq!(
            origins.as_slice(),
            [
                "https://study.example.org",
                "http://127.0.0.1:8123",
                "http://localhost:9000",
                "http://[::1]:1"
            ]
        );
        assert_eq!(
            EmbedOrigins::from_stored(&origins.to_stored()).unwrap(),
            origins
        );
        assert!(EmbedOrigins::from_stored("").unwrap().is_empty());
        for bad in [
            "https://*.example.org",
            "http://study.example.org",
            "https://study.example.org/path",
            "https://study.example.org?x=1",
            "ftp://study.example.org",
            "'self'",
            "study.example.org",
        ] {
            let error = EmbedOrigins::parse(&[bad]).unwrap_err();
            assert_eq!(error.code(), "invalid_embed_origins", "{bad}");
        }
        let eleven: Vec<String> = (0..11)
            .map(|i| format!("https://s{i}.example.org"))
            .collect();
        assert!(EmbedOrigins::parse(&eleven[..10]).is_ok());
        assert!(EmbedOrigins::parse(&eleven)
            .unwrap_err()
            .message()
            .contains("at most 10"));
    }
}
