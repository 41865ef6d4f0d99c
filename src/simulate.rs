//! `deniable simulate`: N simulated devices answer a survey with known truths.
//!
//! Each device does what the browser does: fetch the definition (for a fresh nonce), draw 32
//! bytes from the operating system, randomize with the crate, post only the reports.
//! It is the demo, the load generator, and an end-to-end check of the estimators.

use std::fmt;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use indicatif::ProgressBar;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use randomized_response::{randomize_submission, PrivacyLevel};
use serde::Deserialize;

use crate::crypto::random_bytes;
use crate::results::SurveyResults;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimulationPlan {
    /// Base URL of the server, e.g. `http://127.0.0.1:8080`.
    pub base_url: String,
    pub survey: String,
    pub respondents: usize,
    /// Per question, in question order: the proportion of respondents whose truth is yes.
    pub truths: Vec<f64>,
    pub concurrency: usize,
    /// Seeds the shuffle that decides which respondents hold a yes.
    pub seed: u64,
    /// An owner's token: with it, the results are fetched at the end.
    pub token: Option<String>,
}

#[derive(Debug)]
pub struct SimulationOutcome {
    pub submitted: usize,
    pub questions: Vec<SimulatedQuestion>,
    pub results: Option<SurveyResults>,
}

#[derive(Debug, Clone)]
pub struct SimulatedQuestion {
    pub id: i64,
    pub text: String,
    /// Respondents whose truth was yes, and their proportion.
    pub true_yes: usize,
    pub true_proportion: f64,
}

#[derive(Debug)]
pub struct SimulationError(String);

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimulationError {}

fn fail(context: &str, cause: impl fmt::Display) -> SimulationError {
    SimulationError(format!("{context}: {cause}"))
}

#[derive(Deserialize)]
struct Definition {
    status: String,
    nonce: String,
    questions: Vec<DefinitionQuestion>,
}

#[derive(Deserialize)]
struct DefinitionQuestion {
    id: i64,
    text: String,
    epsilon: f64,
}

/// Which respondents hold a true yes, per question: exactly round(truth·N), shuffled.
fn assign_truths(truths: &[f64], respondents: usize, seed: u64) -> Vec<Vec<bool>> {
    let mut rng = StdRng::seed_from_u64(seed);
    truths
        .iter()
        .map(|&truth| {
            // Proportions are validated to [0, 1], so the product fits.
            let yes = ((truth * respondents as f64).round() as usize).min(respondents);
            let mut column: Vec<bool> = (0..respondents).map(|i| i < yes).collect();
            column.shuffle(&mut rng);
            column
        })
        .collect()
}

pub async fn simulate(
    plan: &SimulationPlan,
    progress: &ProgressBar,
) -> Result<SimulationOutcome, SimulationError> {
    if plan.truths.iter().any(|t| !(0.0..=1.0).contains(t)) {
        return Err(fail("--truth", "every proportion must be between 0 and 1"));
    }
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(plan.concurrency.max(1))
        .build()
        .map_err(|e| fail("cannot build the HTTP client", e))?;
    let base = plan.base_url.trim_end_matches('/');
    let definition_url = format!("{base}/api/surveys/{}", plan.survey);
    let responses_url = format!("{definition_url}/responses");

    let first = fetch_definition(&client, &definition_url).await?;
    if first.questions.len() != plan.truths.len() {
        return Err(fail(
            "--truth",
            format_args!(
                "the survey has {} questions but {} proportions were given",
                first.questions.len(),
                plan.truths.len()
            ),
        ));
    }
    let truths = assign_truths(&plan.truths, plan.respondents, plan.seed);

    progress.set_length(plan.respondents as u64);
    let submitted = stream::iter(0..plan.respondents)
        .map(|respondent| {
            let (client, truths) = (&client, &truths);
            let (definition_url, responses_url) = (&definition_url, &responses_url);
            async move {
                let truths_of_respondent = truths.iter().map(|column| column[respondent]);
                respond_as_device(client, definition_url, responses_url, truths_of_respondent)
                    .await?;
                progress.inc(1);
                Ok::<_, SimulationError>(())
            }
        })
        .buffer_unordered(plan.concurrency.max(1))
        .try_fold(0usize, |count, ()| async move { Ok(count + 1) })
        .await?;
    progress.finish();

    let questions = first
        .questions
        .iter()
        .zip(&truths)
        .map(|(question, column)| {
            let true_yes = column.iter().filter(|&&t| t).count();
            SimulatedQuestion {
                id: question.id,
                text: question.text.clone(),
                true_yes,
                true_proportion: true_yes as f64 / plan.respondents.max(1) as f64,
            }
        })
        .collect();
    let results = match &plan.token {
        Some(token) => Some(fetch_results(&client, base, &plan.survey, token).await?),
        None => None,
    };
    Ok(SimulationOutcome {
        submitted,
        questions,
        results,
    })
}

async fn fetch_definition(
    client: &reqwest::Client,
    url: &str,
) -> Result<Definition, SimulationError> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| fail("cannot fetch the survey", e))?;
    if !response.status().is_success() {
        return Err(fail("cannot fetch the survey", response.status()));
    }
    let definition: Definition = response
        .json()
        .await
        .map_err(|e| fail("unexpected survey definition", e))?;
    if definition.status != "open" {
        return Err(fail("the survey is not open", &definition.status));
    }
    Ok(definition)
}

/// One device: fresh definition and nonce, OS randomness, the crate's mechanism, POST.
async fn respond_as_device(
    client: &reqwest::Client,
    definition_url: &str,
    responses_url: &str,
    truths: impl Iterator<Item = bool>,
) -> Result<(), SimulationError> {
    let definition = fetch_definition(client, definition_url).await?;
    let nonce: [u8; 32] = hex::decode(&definition.nonce)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| fail("bad nonce", &definition.nonce))?;
    let device_bytes = random_bytes::<32>().map_err(|e| fail("randomness", e))?;
    let levels = definition
        .questions
        .iter()
        .map(|q| PrivacyLevel::new(q.epsilon).map_err(|e| fail("bad ε", e)))
        .collect::<Result<Vec<_>, _>>()?;
    let reports = randomize_submission(&device_bytes, &nonce, truths.zip(levels));
    let answers: serde_json::Map<String, serde_json::Value> = definition
        .questions
        .iter()
        .zip(reports)
        .map(|(question, report)| (question.id.to_string(), u8::from(report).into()))
        .collect();
    let response = client
        .post(responses_url)
        .json(&serde_json::json!({ "answers": answers }))
        .send()
        .await
        .map_err(|e| fail("cannot submit", e))?;
    if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
        return Err(fail(
            "the server rate-limits submissions per address",
            "start it with --submissions-per-minute 0 (or DENIABLE_SUBMISSIONS_PER_MINUTE=0) \
             for a simulation",
        ));
    }
    if response.status() != reqwest::StatusCode::CREATED {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        return Err(fail(
            "the server refused a submission",
            format_args!("{status} {body}"),
        ));
    }
    Ok(())
}

async fn fetch_results(
    client: &reqwest::Client,
    base: &str,
    survey: &str,
    token: &str,
) -> Result<SurveyResults, SimulationError> {
    let response = client
        .get(format!("{base}/api/surveys/{survey}/results"))
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| fail("cannot fetch the results", e))?;
    if !response.status().is_success() {
        return Err(fail("cannot fetch the results", response.status()));
    }
    response
        .json()
        .await
        .map_err(|e| fail("unexpected results", e))
}

#[cfg(test)]
mod tests {
    use super::assign_truths;

    #[test]
    fn exactly_the_rounded_share_of_respondents_holds_a_yes() {
        let columns = assign_truths(&[0.3, 0.0, 1.0, 0.25], 10, 7);
        let yes: Vec<usize> = columns
            .iter()
            .map(|c| c.iter().filter(|&&t| t).count())
            .collect();
        assert_eq!(yes, [3, 0, 10, 3]);
        assert_eq!(columns, assign_truths(&[0.3, 0.0, 1.0, 0.25], 10, 7));
    }
}
