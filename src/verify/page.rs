//! The survey's page as a whole: read its public definition, render the page and its headers
//! from it with the server's own function ([`crate::http::form_page`]), and compare what is
//! served — once as a page, once in a frame — byte for byte and header by header.

use super::browser::{Browser, Destination, Fetched};
use super::{hex_sha256, Check, Verdict, VerifyError};
use crate::http::{form_page, FormPage, PublicDefinition};

/// Headers this binary never sends with the form and that make a browser load or go to
/// another address than the page's own: `Refresh` navigates (no policy stops it), `Link`
/// can load a style sheet (Firefox) or preload a module.
const FOREIGN_HEADERS: [&str; 2] = ["refresh", "link"];

/// The page this binary renders for the survey at `page` (`…/s/SLUG`), from the public
/// definition the server sends to a script of that page.
pub async fn expected(
    browser: &Browser,
    page: &url::Url,
    slug: &str,
) -> Result<FormPage, VerifyError> {
    let address = page
        .join(&format!("/api/surveys/{slug}"))
        .map_err(|error| VerifyError(format!("{page}: {error}")))?;
    let fetched = browser
        .fetch(&address, Destination::Fetch)
        .await
        .map_err(VerifyError)?;
    if fetched.status != reqwest::StatusCode::OK {
        return Err(VerifyError(format!(
            "the survey's public definition, {address}, {}: is {page} an open survey's link?",
            fetched.refusal()
        )));
    }
    let definition = PublicDefinition::from_json(&fetched.body).map_err(|why| {
        VerifyError(format!(
            "the survey's public definition, {address}, cannot be checked: {why}. A server of \
             another version writes another definition: check it with that version's binary"
        ))
    })?;
    if definition.slug != slug {
        return Err(VerifyError(format!(
            "{address} describes survey {:?}, not {slug:?}",
            definition.slug
        )));
    }
    form_page(&definition).map_err(|error| {
        VerifyError(format!(
            "this binary does not render the survey's public definition, {address}: {error}"
        ))
    })
}

/// The checks of one request for the page: its status, the markup against this binary's
/// rendering, and every header that confines it.
pub async fn check(
    browser: &Browser,
    page: &url::Url,
    expected: &FormPage,
    destination: Destination,
) -> Vec<Check> {
    let what = match destination {
        Destination::Frame => format!("{} in a frame (Sec-Fetch-Dest: iframe)", page.path()),
        _ => format!("{} as a page (Sec-Fetch-Dest: document)", page.path()),
    };
    let failed = |served_sha256, why| Check {
        what: what.clone(),
        served_sha256,
        verdict: Verdict::Refused(why),
    };
    let fetched = match browser.fetch(page, destination).await {
        Ok(fetched) if fetched.status == reqwest::StatusCode::OK => fetched,
        Ok(fetched) => return vec![failed(None, fetched.refusal())],
        Err(why) => return vec![failed(None, why)],
    };
    let served_sha256 = Some(hex_sha256(&fetched.body));
    let mut checks = vec![if fetched.body == expected.html.as_bytes() {
        Check {
            what: what.clone(),
            served_sha256,
            verdict: Verdict::Same,
        }
    } else {
        failed(
            served_sha256,
            format!(
                "not the page this binary renders from the survey's public definition: {}",
                difference(&fetched.body, &expected.html)
            ),
        )
    }];
    checks.extend(
        header_problems(&fetched, &expected.headers)
            .into_iter()
            .map(|why| failed(None, why)),
    );
    checks
}

/// What is wrong with the served headers: each expected one must come once, exactly as this
/// binary sends it, and none of [`FOREIGN_HEADERS`] may come.
fn header_problems(fetched: &Fetched, expected: &[(&str, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, value) in expected {
        let title = title_case(name);
        match fetched.values(name).as_slice() {
            [] => problems.push(format!(
                "no {title} header; this binary sends `{title}: {value}`"
            )),
            [served] if served == value => {}
            [served] => problems.push(format!(
                "{title} is `{served}`; this binary sends `{value}`"
            )),
            served => problems.push(format!(
                "{title} comes {} times (`{}`); this binary sends it once: `{value}`",
                served.len(),
                served.join("`, `")
            )),
        }
    }
    for name in FOREIGN_HEADERS {
        for value in fetched.values(name) {
            problems.push(format!(
                "a {} header (`{value}`), which this binary never sends: it makes the browser \
                 load or open another address",
                title_case(name)
            ));
        }
    }
    problems
}

/// `content-security-policy` → `Content-Security-Policy`.
fn title_case(name: &str) -> String {
    name.split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Where the served page first departs from this binary's, in words: the line, and both
/// versions of it (cut around the difference when long).
fn difference(served: &[u8], expected: &str) -> String {
    let expected = expected.as_bytes();
    let at = served
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(served.len().min(expected.len()));
    let line = expected[..at].iter().filter(|&&byte| byte == b'\n').count() + 1;
    match (at < served.len(), at < expected.len()) {
        (true, true) => format!(
            "line {line} is `{}`; this binary renders `{}`",
            excerpt(served, at),
            excerpt(expected, at)
        ),
        (false, true) => format!(
            "the served page stops at line {line}, where this binary renders `{}`",
            excerpt(expected, at)
        ),
        (true, false) => format!(
            "the served page goes on after this binary's ends: `{}`",
            excerpt(served, at)
        ),
        (false, false) => "none".to_owned(),
    }
}

/// The line of `bytes` that holds offset `at`, trimmed, at most about 160 characters of it
/// around `at`.
fn excerpt(bytes: &[u8], at: usize) -> String {
    const AROUND: usize = 80;
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    let before = String::from_utf8_lossy(&bytes[start..at]);
    let after = String::from_utf8_lossy(&bytes[at..end]);
    let before = before.trim_start();
    // The line's indentation, wherever the difference starts.
    let after = if before.is_empty() {
        after.trim()
    } else {
        after.trim_end()
    };
    let (before, after): (Vec<char>, Vec<char>) =
        (before.chars().collect(), after.chars().collect());
    let mut text = String::new();
    if before.len() > AROUND {
        text.push('…');
    }
    text.extend(&before[before.len().saturating_sub(AROUND)..]);
    text.extend(after.iter().take(AROUND));
    if after.len() > AROUND {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_names_its_line_and_both_versions() {
        let ours = "<head>\n  <script src=\"/static/form.js\" defer></script>\n</head>\n";
        let served = "<head>\n  <script data-x=\" src='/static/form.js'\" src=\"/static/evil.js\" defer></script>\n</head>\n";
        assert_eq!(
            difference(served.as_bytes(), ours),
            "line 2 is `<script data-x=\" src='/static/form.js'\" src=\"/static/evil.js\" \
             defer></script>`; this binary renders `<script src=\"/static/form.js\" defer></script>`"
        );
        assert_eq!(
            difference(b"<head>\n", ours),
            "the served page stops at line 2, where this binary renders \
             `<script src=\"/static/form.js\" defer></script>`"
        );
        let longer = format!("{ours}<script src=/static/evil.js></script>");
        assert!(difference(longer.as_bytes(), ours).contains("goes on after"));
        let long_line = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let long_ours = format!("{}Y{}", "a".repeat(500), "b".repeat(500));
        let said = difference(long_line.as_bytes(), &long_ours);
        assert!(
            said.len() < 450
                && said.contains("`…aaa")
                && said.contains("aaaXbbb")
                && said.contains("aaaYbbb"),
            "{said}"
        );
    }

    #[test]
    fn every_confining_header_must_come_once_and_exactly_as_ours() {
        let expected = vec![
            ("content-security-policy", "default-src 'self'".to_owned()),
            ("x-frame-options", "DENY".to_owned()),
            ("referrer-policy", "no-referrer".to_owned()),
        ];
        let served = |headers: &[(&str, &str)]| Fetched {
            status: reqwest::StatusCode::OK,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: Vec::new(),
        };
        let all = served(&[
            ("content-security-policy", "default-src 'self'"),
            ("x-frame-options", "DENY"),
            ("referrer-policy", "no-referrer"),
            ("server", "nginx"),
        ]);
        assert!(header_problems(&all, &expected).is_empty());
        let wrong = served(&[
            ("x-frame-options", "SAMEORIGIN"),
            ("referrer-policy", "no-referrer"),
            ("referrer-policy", "unsafe-url"),
            ("refresh", "0; url=https://elsewhere.example/"),
        ]);
        assert_eq!(
            header_problems(&wrong, &expected),
            [
                "no Content-Security-Policy header; this binary sends \
                 `Content-Security-Policy: default-src 'self'`",
                "X-Frame-Options is `SAMEORIGIN`; this binary sends `DENY`",
                "Referrer-Policy comes 2 times (`no-referrer`, `unsafe-url`); this binary sends \
                 it once: `no-referrer`",
                "a Refresh header (`0; url=https://elsewhere.example/`), which this binary never \
                 sends: it makes the browser load or open another address",
            ]
        );
    }
}
