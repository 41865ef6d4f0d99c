//! GET /surveys/{slug}/links: what a researcher needs to run a survey inside a larger study
//! (issue 35): the `<iframe>` snippet for a host page, the survey link as each panel or
//! survey tool wants it, and the completion link. docs/embedding.md explains each. A page of
//! its own, linked from the results page's actions, so that the results page still leads
//! with the answer.

use actix_web::{web, HttpRequest};
use askama::Template;

use super::{html, Nav, Page};
use crate::db::Database;
use crate::domain::Survey;
use crate::http::extract::SignedIn;
use crate::i18n::escape;
use crate::services::surveys::find_owned;

#[derive(Template)]
#[template(path = "workspace/links.html")]
struct LinksPage {
    nav: Option<Nav>,
    slug: String,
    title: String,
    respondent_link: String,
    study: StudyLinks,
}

/// GET /surveys/{slug}/links: the owner's panel links, iframe snippet and completion link,
/// for a survey of any status (a draft's links set up the panel before it opens).
pub async fn links_page(
    request: HttpRequest,
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = find_owned(&db, &slug, signed_in.0.researcher).await?;
    let respondent_link = super::results::respondent_link(&request, &survey.slug)?;
    html(&LinksPage {
        nav: Some(Nav::of(&signed_in.0)),
        slug: survey.slug.to_string(),
        title: survey.title.clone(),
        study: StudyLinks::of(&survey, &respondent_link),
        respondent_link,
    })
}

/// One tool's survey link: the respondent link with the fragment its piping fills.
pub struct ToolLink {
    pub tool: &'static str,
    pub link: String,
    /// Where the tool takes it.
    pub field: &'static str,
}

pub struct StudyLinks {
    /// Empty when no site may frame the form (no `embed_origins`).
    pub iframe: String,
    pub embed_origins: String,
    pub tools: Vec<ToolLink>,
    pub completion_url: String,
    /// The placeholders the completion link uses, for the sentence that names them.
    pub placeholders: String,
}

/// How a tool writes "this participant's value of NAME" in a link it fills, if it can.
type Pipe = fn(&str) -> Option<String>;

/// How each tool pipes a value into a link, and where its survey link goes. Prolific has
/// only its three identifiers; MTurk's survey-link layout pipes nothing.
const TOOLS: [(&str, &str, Pipe); 5] = [
    ("Prolific", "the study's URL", |name| {
        matches!(name, "PROLIFIC_PID" | "STUDY_ID" | "SESSION_ID")
            .then(|| format!("{{{{%{name}%}}}}"))
    }),
    ("Qualtrics", "End of Survey → Redirect to a URL", |name| {
        Some(format!("${{e://Field/{name}}}"))
    }),
    ("LimeSurvey", "End URL", |name| Some(format!("{{{name}}}"))),
    (
        "REDCap",
        "Survey Termination Options → Redirect to a URL",
        |name| Some(format!("[{name}]")),
    ),
    ("MTurk", "the Survey Link layout's link", |_| None),
];

impl StudyLinks {
    pub fn of(survey: &Survey, respondent_link: &str) -> Self {
        let placeholders = survey
            .completion_url
            .as_ref()
            .map(|link| link.placeholders())
            .unwrap_or_default();
        let tools = TOOLS
            .iter()
            .map(|(tool, field, pipe)| {
                let pairs: Vec<String> = placeholders
                    .iter()
                    .filter_map(|name| pipe(name).map(|value| format!("{name}={value}")))
                    .collect();
                ToolLink {
                    tool,
                    field,
                    link: if pairs.is_empty() {
                        respondent_link.to_owned()
                    } else {
                        format!("{respondent_link}#{}", pairs.join("&"))
                    },
                }
            })
            .collect();
        let iframe = if survey.embed_origins.is_empty() {
            String::new()
        } else {
            format!(
                "<iframe src=\"{respondent_link}\" referrerpolicy=\"no-referrer\" \
                 title=\"{}\" width=\"100%\" height=\"900\" style=\"border: 0\"></iframe>",
                escape(&survey.title)
            )
        };
        Self {
            iframe,
            embed_origins: survey.embed_origins.as_slice().join(" "),
            tools,
            completion_url: survey
                .completion_url
                .as_ref()
                .map_or_else(String::new, |link| link.as_str().to_owned()),
            placeholders: placeholders
                .iter()
                .map(|name| format!("{{{name}}}"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_pipes_the_placeholders_its_completion_link_uses() {
        let links: Vec<String> = TOOLS
            .iter()
            .map(|(_, _, pipe)| {
                ["PROLIFIC_PID", "return"]
                    .iter()
                    .filter_map(|name| pipe(name))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            links,
            [
                "{{%PROLIFIC_PID%}}",
                "${e://Field/PROLIFIC_PID} ${e://Field/return}",
                "{PROLIFIC_PID} {return}",
                "[PROLIFIC_PID] [return]",
                "",
            ]
        );
    }
}
