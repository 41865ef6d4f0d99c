//! The files the page loads, each against this binary's copy, with its SHA-256.
//!
//! Which files: the `<script src>` and `<link href>` of this binary's own rendering of the
//! page — the served page has been compared with it byte for byte, so they are the ones the
//! browser loads, and no pattern is run over markup a server chose — then, for each script,
//! the modules it fetches: the `/static/….wasm` addresses written in this binary's copy of
//! that script (`form.js` and `receipt.js` load `randomized_response.wasm`), plus
//! [`LOADERS`] for scripts that are handed the address by their caller (`blind-tokens.js`
//! runs `blind_tokens.wasm`). Reading the addresses from our own copy is sound: a served
//! script that differs is reported anyway.

use super::browser::{Browser, Destination};
use super::{hex_sha256, Check, Verdict};
use crate::http::built_in;

/// Scripts that fetch a WebAssembly module whose address their caller gives them.
pub const LOADERS: &[(&str, &str)] = &[("blind-tokens.js", "blind_tokens.wasm")];

/// Every file the page loads, with how the browser asks for it, in page order, then the
/// modules of its scripts.
pub fn loaded(page: &url::Url, html: &str) -> Vec<(url::Url, Destination)> {
    let mut files: Vec<(url::Url, Destination)> = loaded_by_page(html)
        .into_iter()
        .filter_map(|(address, destination)| Some((page.join(&address).ok()?, destination)))
        .collect();
    let scripts: Vec<String> = files
        .iter()
        .filter(|(_, destination)| *destination == Destination::Script)
        .filter_map(|(address, _)| static_name(page, address).map(str::to_owned))
        .collect();
    for script in scripts {
        for module in modules_of(&script) {
            if let Ok(address) = page.join(&module) {
                if !files.iter().any(|(known, _)| *known == address) {
                    files.push((address, Destination::Fetch));
                }
            }
        }
    }
    files
}

/// The `src` of `<script>` and the `href` of `<link>` tags in our own page, in page order,
/// with the destination the browser asks for them as.
fn loaded_by_page(html: &str) -> Vec<(String, Destination)> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = lower[at..].find('<').map(|i| at + i) {
        let rest = &lower[start + 1..];
        let (is_script, is_link) = (rest.starts_with("script"), rest.starts_with("link"));
        let end = lower[start..].find('>').map_or(lower.len(), |i| start + i);
        at = end.max(start + 1);
        let tag = &html[start..end];
        if is_script {
            if let Some(src) = attribute_value(tag, "src") {
                found.push((src, Destination::Script));
            }
        } else if is_link {
            let rel = attribute_value(tag, "rel").unwrap_or_default();
            let destination = if rel.contains("stylesheet") {
                Destination::Style
            } else if rel.contains("icon") {
                Destination::Image
            } else {
                Destination::Fetch
            };
            if let Some(href) = attribute_value(tag, "href") {
                found.push((href, destination));
            }
        }
    }
    found
}

/// A double- or single-quoted attribute's value in a tag, as our templates write them.
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

/// One file as served, against this binary's copy.
pub async fn check(
    browser: &Browser,
    page: &url::Url,
    address: &url::Url,
    destination: Destination,
) -> Check {
    let what = if address.origin() == page.origin() {
        address.path().to_owned()
    } else {
        address.to_string()
    };
    let not_served = |why| Check {
        what: what.clone(),
        served_sha256: None,
        verdict: Verdict::NotServed(why),
    };
    let served = match browser.fetch(address, destination).await {
        Ok(fetched) if fetched.status == reqwest::StatusCode::OK => fetched.body,
        Ok(fetched) => return not_served(fetched.refusal()),
        Err(why) => return not_served(why),
    };
    let verdict = match static_name(page, address).and_then(built_in) {
        None => Verdict::NotBuiltIn,
        Some(ours) if ours.as_ref() == served.as_slice() => Verdict::Same,
        Some(ours) => Verdict::Different {
            built_in_sha256: hex_sha256(&ours),
        },
    };
    Check {
        what,
        served_sha256: Some(hex_sha256(&served)),
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::built_in_names;

    #[test]
    fn scripts_styles_and_icons_are_found_with_their_destinations() {
        let html = r#"<head><link rel="icon" href="/static/favicon.svg">
            <LINK rel=stylesheet href='/static/form.css'>
            <script src="/static/form-core.js" defer></script>
            <script>alert(1)</script><p data-src="x">"#;
        assert_eq!(
            loaded_by_page(html),
            [
                ("/static/favicon.svg".to_owned(), Destination::Image),
                ("/static/form.css".to_owned(), Destination::Style),
                ("/static/form-core.js".to_owned(), Destination::Script),
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
}
