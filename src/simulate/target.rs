//! Where `deniable simulate` may write: the built-in demo survey, or a survey it creates
//! and opens itself. Simulated responses are indistinguishable from real ones once stored,
//! and the only way to remove them is to delete their survey, so any other survey is
//! refused before anything is sent.

use serde_json::{json, Value};

use super::{base_url, fail, simulate, unreachable, MailMerge, SimulationError};
use super::{SimulationOutcome, SimulationPlan};
use crate::domain::{Slug, GROUPING_TYPE};

/// The survey a simulation writes to.
#[derive(Debug, Clone, PartialEq)]
pub enum SimulationTarget {
    /// The built-in demo survey (`/s/demo`).
    Demo,
    /// A new survey created from this definition (the body `POST /api/surveys` takes),
    /// opened, and simulated; needs the owner's token.
    NewSurvey(Value),
    /// A new survey with a copy of an open or closed survey's questions (from its public
    /// definition); needs the owner's token.
    CopyOf(String),
}

impl SimulationTarget {
    /// The target of `--survey SLUG`: only the demo. Any other survey is refused with the
    /// command that simulates on a copy of its questions instead.
    pub fn existing(slug: &str) -> Result<Self, SimulationError> {
        if slug == Slug::demo().as_str() {
            return Ok(Self::Demo);
        }
        Err(SimulationError::new(format!(
            "simulate does not write to survey {slug}: its simulated responses would mix with \
             real ones, and only deleting the survey would remove them. Simulate on a new \
             survey with a copy of its questions instead:\n  deniable simulate --new-survey \
             --from-survey {slug} --token TOKEN --truth …\n(or --new-survey --definition \
             FILE, or the demo survey: --survey demo)"
        )))
    }
}

/// The survey a run writes to, ready: its slug, and the invitations it requires.
struct Prepared {
    slug: String,
    created: bool,
    invitations: Option<MailMerge>,
}

/// Runs `plan` (whose `survey` and `invitations` are ignored) against `target`: the demo,
/// or a survey created and opened first. On an error after devices started sending, the
/// error says how many responses were stored and where. Returns the slug written to.
pub async fn simulate_on(
    target: &SimulationTarget,
    plan: &SimulationPlan,
    progress: &indicatif::ProgressBar,
) -> Result<(String, SimulationOutcome), SimulationError> {
    let base = base_url(&plan.base_url)?;
    let client = reqwest::Client::new();
    let prepared = prepare(&client, &base, target, plan).await?;
    let plan = SimulationPlan {
        survey: prepared.slug.clone(),
        invitations: prepared.invitations,
        ..plan.clone()
    };
    let place = if prepared.created {
        format!(
            "survey {slug}, which this run created (delete it to remove them)",
            slug = prepared.slug
        )
    } else {
        "the demo survey".to_owned()
    };
    match simulate(&plan, progress).await {
        Ok(outcome) => Ok((prepared.slug, outcome)),
        Err(error) => Err(error.stored_in(place)),
    }
}

async fn prepare(
    client: &reqwest::Client,
    base: &str,
    target: &SimulationTarget,
    plan: &SimulationPlan,
) -> Result<Prepared, SimulationError> {
    let definition = match target {
        SimulationTarget::Demo => {
            return Ok(Prepared {
                slug: Slug::demo().as_str().to_owned(),
                created: false,
                invitations: None,
            })
        }
        SimulationTarget::NewSurvey(definition) => definition.clone(),
        SimulationTarget::CopyOf(slug) => copy_of(client, base, slug).await?,
    };
    let token = plan.token.as_deref().ok_or_else(|| {
        fail(
            "--new-survey",
            "the new survey is created with the owner's API token: give --token (or \
             DENIABLE_TOKEN)",
        )
    })?;
    let created = owner_post(client, base, token, "/api/surveys", Some(&definition)).await?;
    let slug = created["slug"]
        .as_str()
        .ok_or_else(|| fail("cannot create the survey", "the answer has no slug"))?
        .to_owned();
    let path = format!("/api/surveys/{slug}");
    owner_post(client, base, token, &format!("{path}/open"), None).await?;
    let invitations = if definition["requires_invitation"] == true {
        let count = json!({ "count": plan.respondents });
        let csv = owner_post_text(
            client,
            base,
            token,
            &format!("{path}/invitations"),
            Some(&count),
        )
        .await?;
        Some(MailMerge::parse(&csv)?)
    } else {
        None
    };
    Ok(Prepared {
        slug,
        created: true,
        invitations,
    })
}

/// A definition for a new survey with `slug`'s questions, read from its public definition
/// (so the survey must be open or closed).
async fn copy_of(
    client: &reqwest::Client,
    base: &str,
    slug: &str,
) -> Result<Value, SimulationError> {
    let context = format!("--from-survey {slug}");
    let response = client
        .get(format!("{base}/api/surveys/{slug}"))
        .send()
        .await
        .map_err(|e| unreachable(base, "cannot fetch the survey to copy", &e))?;
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Err(fail(
            &context,
            format_args!(
                "{base} has no open or closed survey {slug} (a draft's questions are not \
                 public: give them with --definition FILE)"
            ),
        ));
    }
    if !response.status().is_success() {
        return Err(fail(&context, response.status()));
    }
    let public: Value = response.json().await.map_err(|e| fail(&context, e))?;
    Ok(copied_definition(&public))
}

/// The creation body of a copy: title, language, invitations and k, and every question as
/// the form shows it (randomized ones with their design, grouping ones with their options).
fn copied_definition(public: &Value) -> Value {
    let questions: Vec<Value> = public["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|question| {
            if question["type"] == GROUPING_TYPE {
                return json!({
                    "text": question["text"],
                    "type": GROUPING_TYPE,
                    "options": question["options"],
                });
            }
            let mut copy = question.clone();
            if let Some(fields) = copy.as_object_mut() {
                for public_only in [
                    "id",
                    "position",
                    "truth_probability",
                    "required",
                    "randomized",
                ] {
                    fields.remove(public_only);
                }
                // Forced response and unrelated question imply their ε from their
                // probabilities: it is not one of their parameters.
                let derived = matches!(
                    question["design"].as_str(),
                    Some("forced_response" | "unrelated_question")
                );
                if derived {
                    fields.remove("epsilon");
                }
            }
            copy
        })
        .collect();
    let title = public["title"].as_str().unwrap_or_default();
    let title: String = format!("Simulation of {title}").chars().take(200).collect();
    json!({
        "title": title,
        "description": "Simulated responses only (deniable simulate).",
        "language": public["language"],
        "requires_invitation": public["requires_invitation"],
        "min_cell": public["min_cell"],
        "questions": questions,
    })
}

async fn owner_post(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, SimulationError> {
    let text = owner_post_text(client, base, token, path, body).await?;
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| fail(&format!("unexpected answer to {path}"), e))
}

async fn owner_post_text(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<String, SimulationError> {
    let mut request = client.post(format!("{base}{path}")).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request
        .send()
        .await
        .map_err(|e| unreachable(base, &format!("cannot POST {path}"), &e))?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(fail(
            "cannot prepare the new survey",
            format_args!("POST {path}: {status} {text}"),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_demo_is_an_existing_survey_simulate_writes_to() {
        assert_eq!(
            SimulationTarget::existing("demo").unwrap(),
            SimulationTarget::Demo
        );
        let refusal = SimulationTarget::existing("x7k2m9")
            .unwrap_err()
            .to_string();
        assert!(
            refusal.contains("--new-survey --from-survey x7k2m9"),
            "{refusal}"
        );
    }

    #[test]
    fn a_copy_keeps_the_questions_and_drops_what_only_the_form_needs() {
        let public = json!({
            "title": "Sport", "language": "en", "requires_invitation": false, "min_cell": 5,
            "questions": [
                {"id": 4, "position": 0, "text": "Club?", "type": "grouping",
                 "options": ["a", "b"], "randomized": false, "required": true},
                {"id": 5, "position": 1, "text": "Doped?", "type": "yes_no",
                 "design": "forced_response", "forced_yes": 0.1, "forced_no": 0.1,
                 "epsilon": 1.9, "truth_probability": 0.9, "required": true,
                 "randomized": true},
            ],
        });
        let copy = copied_definition(&public);
        assert_eq!(copy["title"], "Simulation of Sport");
        assert_eq!(
            copy["questions"],
            json!([
                {"text": "Club?", "type": "grouping", "options": ["a", "b"]},
                {"text": "Doped?", "type": "yes_no", "design": "forced_response",
                 "forced_yes": 0.1, "forced_no": 0.1},
            ])
        );
    }
}
