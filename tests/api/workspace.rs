//! A researcher's browser for the workspace tests: cookies kept by hand (so their flags can
//! be checked), redirects not followed, CSRF tokens read from the pages like a browser would.
#![allow(dead_code)] // each test binary uses a different part of the harness

use std::collections::BTreeMap;

use deniable::domain::Email;
use reqwest::header::{COOKIE, SET_COOKIE};
use reqwest::redirect::Policy;

use crate::common::TestApp;

pub const PASSWORD: &str = crate::common::TEST_PASSWORD;

pub struct Browser {
    pub base: String,
    pub client: reqwest::Client,
    pub cookies: BTreeMap<String, String>,
}

/// The value of the first `name="{field}" value="…"` in a page.
pub fn hidden_field(html: &str, field: &str) -> String {
    let marker = format!("name=\"{field}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {field} field in the page"))
        + marker.len();
    let end = html[start..].find('"').unwrap() + start;
    html[start..end].to_owned()
}

/// An attribute's value in one tag (`name="x"` → `x`), entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let marker = format!(" {name}=\"");
    let start = tag.find(&marker)? + marker.len();
    let end = tag[start..].find('"')? + start;
    Some(unescape(&tag[start..end]))
}

/// Undoes askama's HTML escaping.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// What a browser sends for the form whose `action` attribute is `action`: its named inputs
/// (checked boxes only; no buttons), textareas and selects (the selected option, else the
/// first), in page order. Inputs disabled by a script are sent here, as without script.
pub fn form_fields(html: &str, action: &str) -> Vec<(String, String)> {
    let start = html
        .find(&format!("action=\"{action}\""))
        .unwrap_or_else(|| panic!("no form posting to {action}"));
    let end = html[start..].find("</form>").unwrap() + start;
    let form = &html[start..end];
    let mut fields = Vec::new();
    let mut rest = form;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        let tag_end = rest.find('>').unwrap();
        let tag = &rest[..=tag_end];
        let element = tag[1..]
            .split(|c: char| c.is_whitespace() || c == '>')
            .next()
            .unwrap_or_default();
        let name = attribute(tag, "name");
        match (element, name) {
            ("input", Some(name)) => {
                let kind = attribute(tag, "type").unwrap_or_else(|| "text".to_owned());
                let checkable = kind == "checkbox" || kind == "radio";
                if kind != "submit" && (!checkable || tag.contains(" checked")) {
                    let value = attribute(tag, "value").unwrap_or_else(|| {
                        if checkable {
                            "on".to_owned()
                        } else {
                            String::new()
                        }
                    });
                    fields.push((name, value));
                }
            }
            ("textarea", Some(name)) => {
                let body = &rest[tag_end + 1..];
                let close = body.find("</textarea>").unwrap();
                fields.push((name, unescape(&body[..close])));
            }
            ("select", Some(name)) => {
                let body = &rest[tag_end + 1..];
                let options = &body[..body.find("</select>").unwrap()];
                let chosen = options
                    .split("<option")
                    .skip(1)
                    .find(|option| option.split('>').next().unwrap().contains(" selected"))
                    .or_else(|| options.split("<option").nth(1))
                    .map(|option| attribute(&format!("<option{option}"), "value").unwrap())
                    .unwrap_or_default();
                fields.push((name, chosen));
            }
            _ => {}
        }
        rest = &rest[tag_end + 1..];
    }
    fields
}

impl Browser {
    /// Sends the builder's one form as the page holds it, with `changes` typed over it (a
    /// field not in the page is added), the way a researcher edits and presses a button.
    pub async fn save_builder(
        &mut self,
        slug: &str,
        changes: &[(&str, &str)],
    ) -> reqwest::Response {
        let path = format!("/surveys/{slug}/edit");
        let html = self.get_html(&path).await;
        let mut fields = form_fields(&html, &path);
        for (name, value) in changes {
            match fields.iter_mut().find(|(existing, _)| existing == name) {
                Some(field) => field.1 = (*value).to_owned(),
                None => fields.push(((*name).to_owned(), (*value).to_owned())),
            }
        }
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        self.post_form(&path, &fields).await
    }

    pub fn new(app: &TestApp) -> Self {
        Self {
            base: app.address.clone(),
            client: reqwest::Client::builder()
                .redirect(Policy::none())
                .build()
                .unwrap(),
            cookies: BTreeMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep_cookies(&mut self, response: &reqwest::Response) {
        for header in response.headers().get_all(SET_COOKIE) {
            let text = header.to_str().unwrap();
            let pair = text.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || text.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    pub fn request(&self, method: &str, path: &str) -> reqwest::RequestBuilder {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .client
            .request(method, format!("{}{}", self.base, path));
        if !self.cookies.is_empty() {
            request = request.header(COOKIE, self.cookie_header());
        }
        request
    }

    pub async fn send(&mut self, request: reqwest::RequestBuilder) -> reqwest::Response {
        let response = request.send().await.unwrap();
        self.keep_cookies(&response);
        response
    }

    pub async fn get(&mut self, path: &str) -> reqwest::Response {
        let request = self.request("GET", path);
        self.send(request).await
    }

    pub async fn get_html(&mut self, path: &str) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.text().await.unwrap()
    }

    pub async fn post_form(&mut self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let request = self.request("POST", path).form(form);
        self.send(request).await
    }

    /// This session's CSRF token, read from a page's forms.
    pub async fn csrf(&mut self) -> String {
        let html = self.get_html("/surveys").await;
        hidden_field(&html, "csrf")
    }

    /// Posts a form with this session's CSRF token added.
    pub async fn post_with_csrf(&mut self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let csrf = self.csrf().await;
        let mut fields = vec![("csrf", csrf.as_str())];
        fields.extend_from_slice(form);
        self.post_form(path, &fields).await
    }

    /// Signs in through the sign-in page; returns the POST's response.
    pub async fn try_sign_in(&mut self, email: &str, password: &str) -> reqwest::Response {
        let html = self.get_html("/login").await;
        let form_token = hidden_field(&html, "form_token");
        self.post_form(
            "/login",
            &[
                ("form_token", &form_token),
                ("email", email),
                ("password", password),
            ],
        )
        .await
    }

    /// Creates a new draft through the surveys page; returns its slug.
    pub async fn create_draft(&mut self, title: &str, question: &str) -> String {
        let response = self
            .post_with_csrf(
                "/surveys",
                &[
                    ("title", title),
                    ("description", "For tests."),
                    ("question", question),
                    ("epsilon", "1.0"),
                ],
            )
            .await;
        assert_eq!(response.status(), 303);
        let location = response.headers()["location"].to_str().unwrap();
        location
            .strip_prefix("/surveys/")
            .and_then(|rest| rest.strip_suffix("/edit"))
            .unwrap()
            .to_owned()
    }
}

/// A researcher whose password is [`PASSWORD`] (its hash derived once per test binary).
pub async fn add_researcher(app: &TestApp, email: &str) {
    app.add_researcher(Email::parse(email).unwrap()).await;
}

/// A new researcher, signed in through the sign-in page.
pub async fn signed_in(app: &TestApp, email: &str) -> Browser {
    add_researcher(app, email).await;
    let mut browser = Browser::new(app);
    let response = browser.try_sign_in(email, PASSWORD).await;
    assert_eq!(response.status(), 303, "sign-in succeeds");
    browser
}

/// The ids of a survey's questions, in order, read from the database file.
pub async fn question_ids(app: &TestApp, slug: &str) -> Vec<i64> {
    // Through the server's own storage handle, so it reads either engine.
    let slug = slug.to_owned();
    app.db
        .read(move |connection| {
            let ids = connection
                .prepare(
                    "SELECT questions.id FROM questions JOIN surveys ON surveys.id = questions.survey_id
                     WHERE surveys.slug = ?1 ORDER BY position",
                )?
                .query_map([slug.as_str()], |row| row.get(0))?
                .collect::<Result<Vec<i64>, _>>()?;
            Ok(ids)
        })
        .await
        .expect("the question ids are read")
}
