//! `deniable simulate`: N simulated devices answer a survey with known truths.
//!
//! Each device does what the browser does: fetch the definition (for a fresh nonce), seed
//! ChaCha20 with its 32 bytes XOR the nonce, randomize each answer in question order with
//! the question's design (the crate's [`Mechanism::respond`], as many draws as the type
//! takes), post only the reports (for a survey that requires invitations, first redeem one
//! of the mail merge's invitations for a blind token and post it with them). It is the
//! demo, the load generator, and an end-to-end check of the estimators: every question
//! type, with truths fixed in advance, compared with the results' estimates and intervals.
//!
//! [`simulate`] answers whatever survey its plan names (the tests' load generator); the
//! command goes through [`simulate_on`], which writes only to the demo survey or to a
//! survey it creates ([`target`]).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::stream::{self, StreamExt};
use indicatif::ProgressBar;
use rand::seq::SliceRandom;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use randomized_response::{submission_rng, Answer, SEED_BYTES};
use serde::Deserialize;

pub use target::{simulate_on, SimulationTarget};

use crate::crypto::random_bytes;
use crate::domain::{DesignFields, DesignName, QuestionDesign, QuestionType};
use crate::results::{IntervalBounds, Intervals, SurveyResults};

mod target;

/// How far a list of shares may add up away from 1.
const SHARES_TOLERANCE: f64 = 1e-6;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimulationPlan {
    /// Base URL of the server, e.g. `http://127.0.0.1:8080`.
    pub base_url: String,
    pub survey: String,
    pub respondents: usize,
    /// Per question, in question order: the distribution of the true answers.
    pub truths: Vec<Truth>,
    pub concurrency: usize,
    /// Seeds the shuffle that decides which respondent holds which truth (and, with
    /// `reproducible`, the devices' coins).
    pub seed: u64,
    /// Devices draw their coins from `seed` instead of the operating system: each device's
    /// bytes are chosen so that its ChaCha20 seed (bytes XOR the server's nonce) is the
    /// respondent's seed derived from `seed`, so the same build, seed and survey give the
    /// same reports whatever the nonces. For tests and demos only: it defeats the nonce's
    /// purpose (a real device's bytes are secret and random).
    pub reproducible: bool,
    /// The confidence level of the intervals fetched with the results (e.g. 0.95).
    pub confidence: f64,
    /// An owner's token: with it, the results are fetched at the end.
    pub token: Option<String>,
    /// For a survey that requires invitations: the mail merge's invitations, one per
    /// respondent, each redeemed for a blind token before its device answers.
    pub invitations: Option<MailMerge>,
}

/// The invitations of a mail-merge CSV (`invitation,link,key_fingerprint`).
#[derive(Debug, Clone)]
pub struct MailMerge {
    pub codes: Vec<String>,
    /// The survey key every link pins: the simulation refuses a server that publishes
    /// another one, as the form does.
    pub fingerprint: String,
}

impl MailMerge {
    /// Reads the CSV `deniable invitations create` and the workspace write.
    pub fn parse(csv: &str) -> Result<Self, SimulationError> {
        let mut lines = csv.lines();
        if lines.next().map(str::trim) != Some("invitation,link,key_fingerprint") {
            return Err(fail(
                "--invitations",
                "not an invitations CSV (its header is invitation,link,key_fingerprint)",
            ));
        }
        let mut codes = Vec::new();
        let mut fingerprints = Vec::new();
        for line in lines.filter(|line| !line.trim().is_empty()) {
            let fields: Vec<&str> = line.trim().split(',').collect();
            let [code, _, fingerprint] = fields[..] else {
                return Err(fail(
                    "--invitations",
                    format_args!("a row is not code,link,key: {line:?}"),
                ));
            };
            codes.push(code.to_owned());
            if !fingerprints.contains(&fingerprint) {
                fingerprints.push(fingerprint);
            }
        }
        match fingerprints[..] {
            [fingerprint] => Ok(Self {
                codes,
                fingerprint: fingerprint.to_owned(),
            }),
            [] => Err(fail("--invitations", "the CSV holds no invitation")),
            _ => Err(fail(
                "--invitations",
                "the links pin different survey keys: someone could tell their holders apart",
            )),
        }
    }
}

/// The true answers of one question, as shares of the respondents (each share is held by
/// exactly that many respondents, rounded).
#[derive(Debug, Clone, PartialEq)]
pub enum Truth {
    /// Yes/no: the share whose true answer is yes, e.g. `0.3`.
    Yes(f64),
    /// Choice and ordinal: each option's share, in option order, adding up to 1, e.g.
    /// `0.5/0.3/0.2`.
    Options(Vec<f64>),
    /// Number: values with their shares, adding up to 1, e.g. `0:0.3/4:0.5/30:0.2`.
    Values(Vec<(f64, f64)>),
}

impl FromStr for Truth {
    type Err = String;

    /// `0.3` (yes/no), `0.5/0.3/0.2` (choice and ordinal) or `0:0.3/4:0.5/30:0.2`
    /// (number: value:share pairs).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |part: &str| -> Result<f64, String> {
            part.trim()
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite())
                .ok_or_else(|| format!("{part:?} is not a number (in {text:?})"))
        };
        if text.contains(':') {
            let pairs = text
                .split('/')
                .map(|pair| {
                    let (value, share) = pair
                        .split_once(':')
                        .ok_or_else(|| format!("{pair:?} is not value:share (in {text:?})"))?;
                    Ok((number(value)?, number(share)?))
                })
                .collect::<Result<Vec<_>, String>>()?;
            check_shares(text, pairs.iter().map(|&(_, share)| share))?;
            Ok(Self::Values(pairs))
        } else if text.contains('/') {
            let shares = text.split('/').map(number).collect::<Result<Vec<_>, _>>()?;
            check_shares(text, shares.iter().copied())?;
            Ok(Self::Options(shares))
        } else {
            let share = number(text)?;
            if !(0.0..=1.0).contains(&share) {
                return Err(format!("a share of yes is between 0 and 1, not {text}"));
            }
            Ok(Self::Yes(share))
        }
    }
}

/// As `--truth` writes it.
impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let joined = |parts: Vec<String>| parts.join("/");
        match self {
            Self::Yes(share) => write!(f, "{share}"),
            Self::Options(shares) => f.write_str(&joined(
                shares.iter().map(|share| share.to_string()).collect(),
            )),
            Self::Values(pairs) => f.write_str(&joined(
                pairs
                    .iter()
                    .map(|(value, share)| format!("{value}:{share}"))
                    .collect(),
            )),
        }
    }
}

fn check_shares(text: &str, shares: impl Iterator<Item = f64> + Clone) -> Result<(), String> {
    if shares.clone().any(|share| !(0.0..=1.0).contains(&share)) {
        return Err(format!("every share is between 0 and 1 (in {text:?})"));
    }
    let sum: f64 = shares.sum();
    if (sum - 1.0).abs() > SHARES_TOLERANCE {
        return Err(format!("the shares add up to {sum}, not 1 (in {text:?})"));
    }
    Ok(())
}

#[derive(Debug)]
pub struct SimulationOutcome {
    pub submitted: usize,
    pub questions: Vec<SimulatedQuestion>,
    pub results: Option<SurveyResults>,
}

/// One question as simulated: its targets with their true values, exactly as assigned.
#[derive(Debug, Clone)]
pub struct SimulatedQuestion {
    pub id: i64,
    /// Its number on the form (1, 2, …), counting grouping questions: "Q2" is the second
    /// question the respondent sees.
    pub number: usize,
    pub text: String,
    pub question_type: QuestionType,
    pub design: DesignName,
    pub targets: Vec<TrueTarget>,
}

/// A quantity the results estimate, and its true value among the simulated respondents.
#[derive(Debug, Clone, PartialEq)]
pub struct TrueTarget {
    /// `yes` (yes/no), an option's label (choice and ordinal), `mean level` (ordinal, on
    /// 1…k) or `mean` (number).
    pub name: String,
    pub truth: f64,
}

/// A target's estimate and intervals from the results, next to its truth.
#[derive(Debug, Clone)]
pub struct TargetCheck {
    pub question_id: i64,
    pub target: String,
    pub truth: f64,
    pub estimate: Option<f64>,
    /// The intervals the results gave, by name (`chernoff`, `exact`, `anytime`).
    pub intervals: Vec<(&'static str, IntervalBounds)>,
}

impl TargetCheck {
    /// The names of the intervals that miss the truth.
    pub fn misses(&self) -> Vec<&'static str> {
        self.intervals
            .iter()
            .filter(|(_, bounds)| !bounds.contains(self.truth))
            .map(|(name, _)| *name)
            .collect()
    }
}

impl SimulationOutcome {
    /// Every target of every question against the results (empty without results).
    pub fn checks(&self) -> Vec<TargetCheck> {
        let Some(results) = &self.results else {
            return Vec::new();
        };
        let mut checks = Vec::new();
        for question in &self.questions {
            let Some(found) = results.questions.iter().find(|q| q.id == question.id) else {
                continue;
            };
            let mut estimated: Vec<(Option<f64>, &Intervals)> = Vec::new();
            match question.question_type {
                QuestionType::YesNo => estimated.push((found.estimate, &found.intervals)),
                QuestionType::Choice | QuestionType::Ordinal | QuestionType::Number => {
                    for option in found.options.iter().flatten() {
                        estimated.push((option.estimate, &option.intervals));
                    }
                    if let Some(mean) = &found.mean {
                        estimated.push((mean.estimate, &mean.intervals));
                    }
                }
            }
            for (target, (estimate, intervals)) in question.targets.iter().zip(estimated) {
                let named = [
                    ("chernoff", intervals.chernoff),
                    ("exact", intervals.exact),
                    ("anytime", intervals.anytime),
                ];
                checks.push(TargetCheck {
                    question_id: question.id,
                    target: target.name.clone(),
                    truth: target.truth,
                    estimate,
                    intervals: named
                        .into_iter()
                        .filter_map(|(name, bounds)| bounds.map(|b| (name, b)))
                        .collect(),
                });
            }
        }
        checks
    }
}

#[derive(Debug)]
pub struct SimulationError {
    message: String,
    /// Once devices started sending: how many responses the server stored, and where
    /// (e.g. "survey abc123"), so that nobody is left unaware of fake responses.
    stored: Option<(usize, String)>,
}

impl SimulationError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            stored: None,
        }
    }

    /// How many responses were stored before the error, when devices had started sending.
    pub fn stored(&self) -> Option<usize> {
        self.stored.as_ref().map(|(count, _)| *count)
    }

    fn after_storing(mut self, count: usize, place: String) -> Self {
        self.stored = Some((count, place));
        self
    }

    /// Names the place the responses went to in words (e.g. "the demo survey").
    fn stored_in(mut self, place: String) -> Self {
        if let Some((_, old)) = &mut self.stored {
            *old = place;
        }
        self
    }
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some((count, place)) = &self.stored {
            let responses = if *count == 1 {
                "response was"
            } else {
                "responses were"
            };
            write!(
                f,
                "\n{count} simulated {responses} stored in {place} before this error"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for SimulationError {}

fn fail(context: &str, cause: impl fmt::Display) -> SimulationError {
    SimulationError::new(format!("{context}: {cause}"))
}

/// The server's base URL from `--url`, checked: http or https, a host, an optional port,
/// nothing after it (the routes are at the root). The reason when it is not.
fn base_url(text: &str) -> Result<String, SimulationError> {
    let refuse = |why: String| {
        Err(SimulationError::new(format!(
            "--url {text:?} is not a server's base URL: {why}; give one such as \
             http://127.0.0.1:8080"
        )))
    };
    let url = match url::Url::parse(text.trim()) {
        Ok(url) => url,
        Err(error) => {
            return refuse(format!(
                "{error}, and it must start with http:// or https://"
            ))
        }
    };
    if !matches!(url.scheme(), "http" | "https") {
        return refuse(format!("the scheme is {}, not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return refuse("it has no host".to_owned());
    }
    if url.path() != "/" {
        return refuse(format!(
            "it has a path ({}); name the survey with --survey instead",
            url.path()
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return refuse("it has a query or a fragment".to_owned());
    }
    Ok(url.origin().ascii_serialization())
}

/// A request that got no answer, in words that say what to do.
fn unreachable(base: &str, what: &str, error: &reqwest::Error) -> SimulationError {
    if error.is_connect() {
        // The innermost cause: the operating system's "connection refused", or a DNS failure.
        let mut cause: &dyn std::error::Error = error;
        let mut refused = false;
        while let Some(source) = cause.source() {
            cause = source;
            refused |= source
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        }
        let why = if refused {
            "connection refused".to_owned()
        } else {
            format!("cannot connect ({cause})")
        };
        return SimulationError::new(format!(
            "{why} — is the server running at {base}? Start it with `deniable serve`, or \
             give its address with --url"
        ));
    }
    if error.is_timeout() {
        return SimulationError::new(format!("{what}: {base} did not answer in time"));
    }
    fail(what, error)
}

#[derive(Deserialize)]
struct Definition {
    status: String,
    nonce: String,
    /// Randomized questions ([`DefinitionQuestion`]) and grouping questions (`"type":
    /// "grouping"`, not randomized), told apart by [`parse_question`].
    questions: Vec<serde_json::Value>,
    #[serde(default)]
    requires_invitation: bool,
    invitation_key: Option<crate::domain::InvitationKeyBody>,
}

impl Definition {
    fn question_ids(&self) -> Vec<Option<i64>> {
        self.questions
            .iter()
            .map(|question| question["id"].as_i64())
            .collect()
    }
}

/// The survey's key, from the definition, once its fingerprint is the one the mail merge's
/// links pin (what the form checks before it redeems).
fn pinned_key(
    definition: &Definition,
    invitations: Option<&MailMerge>,
) -> Result<Option<blind_tokens::PublicKey>, SimulationError> {
    if !definition.requires_invitation {
        return Ok(None);
    }
    let invitations = invitations.ok_or_else(|| {
        fail(
            "the survey requires invitations",
            "give the mail merge's CSV with --invitations, one invitation per respondent",
        )
    })?;
    let published = definition
        .invitation_key
        .as_ref()
        .ok_or_else(|| fail("the survey requires invitations", "but publishes no key"))?;
    let key = blind_tokens::from_base64url(&published.public_key)
        .ok()
        .and_then(|bytes| blind_tokens::PublicKey::from_bytes(&bytes).ok())
        .ok_or_else(|| fail("the survey's key", "is malformed"))?;
    let fingerprint = blind_tokens::fingerprint(&key);
    if fingerprint != published.fingerprint || fingerprint != invitations.fingerprint {
        return Err(fail(
            "the survey's key",
            format_args!(
                "its fingerprint {fingerprint} is not the one the invitations pin ({})",
                invitations.fingerprint
            ),
        ));
    }
    Ok(Some(key))
}

#[derive(Deserialize)]
struct DefinitionQuestion {
    id: i64,
    text: String,
    epsilon: f64,
    truth_probability: f64,
    /// Type, design and parameters (the public definition gives `epsilon` apart).
    #[serde(flatten)]
    design: DesignFields,
}

/// A question of the definition, parsed as the server parses it.
struct SurveyQuestion {
    id: i64,
    /// Its number on the form, from 1, counting grouping questions.
    number: usize,
    text: String,
    /// A grouping question's: a choice over its options (so its truths are assigned as a
    /// choice's), never used to randomize.
    design: QuestionDesign,
    /// A grouping question: its answer is sent as given, and it has no estimate to check.
    grouping: bool,
}

/// A question of the definition: a grouping question's options, or a randomized question.
/// `number` is its place on the form, from 1 (the definition lists the questions in the
/// form's order, grouping questions included).
fn parse_question(
    number: usize,
    question: &serde_json::Value,
) -> Result<SurveyQuestion, SimulationError> {
    if question["type"] == crate::domain::GROUPING_TYPE {
        let id = question["id"].as_i64().unwrap_or_default();
        let context = format!("grouping question Q{number} of the definition");
        let options: Vec<String> =
            serde_json::from_value(question["options"].clone()).map_err(|e| fail(&context, e))?;
        let as_choice = DesignFields {
            question_type: Some(QuestionType::Choice),
            epsilon: Some(1.0),
            options: Some(options),
            ..DesignFields::default()
        };
        return Ok(SurveyQuestion {
            id,
            number,
            text: question["text"].as_str().unwrap_or_default().to_owned(),
            design: QuestionDesign::parse(&context, &as_choice).map_err(|e| fail(&context, e))?,
            grouping: true,
        });
    }
    let question: DefinitionQuestion = serde_json::from_value(question.clone())
        .map_err(|e| fail("unexpected survey definition", e))?;
    parse_randomized(number, &question)
}

fn parse_randomized(
    number: usize,
    question: &DefinitionQuestion,
) -> Result<SurveyQuestion, SimulationError> {
    let context = format!("question Q{number} of the definition");
    let derived = matches!(
        question.design.design,
        Some(DesignName::ForcedResponse | DesignName::UnrelatedQuestion)
    );
    let fields = DesignFields {
        epsilon: (!derived).then_some(question.epsilon),
        ..question.design.clone()
    };
    let design = QuestionDesign::parse(&context, &fields).map_err(|e| fail(&context, e))?;
    if (design.truth_probability() - question.truth_probability).abs() > 1e-12 {
        return Err(fail(
            &context,
            format_args!(
                "its truth_probability {} is not its design's {}",
                question.truth_probability,
                design.truth_probability()
            ),
        ));
    }
    Ok(SurveyQuestion {
        id: question.id,
        number,
        text: question.text.clone(),
        design,
        grouping: false,
    })
}

/// Respondents per category: `⌊share·n⌋` each, the rest to the largest remainders (ties
/// to the first), so the counts add up to n.
fn apportion(shares: &[f64], respondents: usize) -> Vec<usize> {
    let exact: Vec<f64> = shares.iter().map(|s| s * respondents as f64).collect();
    // Shares are validated to [0, 1], so each product fits.
    let mut counts: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let assigned: usize = counts.iter().sum();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &index in order
        .iter()
        .cycle()
        .take(respondents.saturating_sub(assigned))
    {
        counts[index] += 1;
    }
    counts
}

/// One question's answers, one per respondent (shuffled), and its targets' true values.
fn assign_question(
    question: &SurveyQuestion,
    truth: &Truth,
    respondents: usize,
    rng: &mut ChaCha20Rng,
) -> Result<(Vec<Answer>, Vec<TrueTarget>), SimulationError> {
    let design = &question.design;
    let context = format!("--truth of Q{} ({})", question.number, question.text);
    let n = respondents.max(1) as f64;
    let (mut column, targets) = match (design.question_type(), truth) {
        (QuestionType::YesNo, Truth::Yes(share)) => {
            let yes = ((share * respondents as f64).round() as usize).min(respondents);
            let column: Vec<Answer> = (0..respondents)
                .map(|i| Answer::Index(usize::from(i < yes)))
                .collect();
            let target = TrueTarget {
                name: "yes".to_owned(),
                truth: yes as f64 / n,
            };
            (column, vec![target])
        }
        (QuestionType::Choice | QuestionType::Ordinal, Truth::Options(shares)) => {
            let labels = design.options().unwrap_or_default();
            if shares.len() != labels.len() {
                return Err(fail(
                    &context,
                    format_args!(
                        "the question has {} options but {} shares were given",
                        labels.len(),
                        shares.len()
                    ),
                ));
            }
            let counts = apportion(shares, respondents);
            let column = counts
                .iter()
                .enumerate()
                .flat_map(|(option, &count)| std::iter::repeat_n(Answer::Index(option), count))
                .collect();
            let mut targets: Vec<TrueTarget> = labels
                .iter()
                .zip(&counts)
                .map(|(label, &count)| TrueTarget {
                    name: label.clone(),
                    truth: count as f64 / n,
                })
                .collect();
            if design.question_type() == QuestionType::Ordinal {
                let levels: usize = counts.iter().enumerate().map(|(i, c)| (i + 1) * c).sum();
                targets.push(TrueTarget {
                    name: "mean level".to_owned(),
                    truth: levels as f64 / n,
                });
            }
            (column, targets)
        }
        (QuestionType::Number, Truth::Values(pairs)) => {
            let (min, max) = (
                design.fields().min.unwrap_or(f64::NAN),
                design.fields().max.unwrap_or(f64::NAN),
            );
            if let Some((value, _)) = pairs.iter().find(|(v, _)| !(min..=max).contains(v)) {
                return Err(fail(
                    &context,
                    format_args!("{value} is outside the question's bounds {min}…{max}"),
                ));
            }
            let shares: Vec<f64> = pairs.iter().map(|&(_, share)| share).collect();
            let counts = apportion(&shares, respondents);
            let column: Vec<Answer> = pairs
                .iter()
                .zip(&counts)
                .flat_map(|(&(value, _), &count)| std::iter::repeat_n(Answer::Value(value), count))
                .collect();
            let sum: f64 = pairs
                .iter()
                .zip(&counts)
                .map(|(&(value, _), &count)| value * count as f64)
                .sum();
            let target = TrueTarget {
                name: "mean".to_owned(),
                truth: sum / n,
            };
            (column, vec![target])
        }
        (question_type, _) => {
            let expected = match question_type {
                QuestionType::YesNo => "a share of yes, e.g. 0.3",
                QuestionType::Choice | QuestionType::Ordinal => {
                    "one share per option separated by '/', e.g. 0.5/0.3/0.2"
                }
                QuestionType::Number => "value:share pairs separated by '/', e.g. 0:0.3/4:0.7",
            };
            return Err(fail(
                &context,
                format_args!(
                    "a {} question's truth is {expected}, not {truth}",
                    question_type.as_str()
                ),
            ));
        }
    };
    column.shuffle(rng);
    Ok((column, targets))
}

/// Every question's answers (one column per question) and true targets, from `seed`.
fn assign_truths(
    questions: &[SurveyQuestion],
    truths: &[Truth],
    respondents: usize,
    seed: u64,
) -> Result<(Vec<Vec<Answer>>, Vec<SimulatedQuestion>), SimulationError> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut columns = Vec::with_capacity(questions.len());
    let mut simulated = Vec::with_capacity(questions.len());
    for (question, truth) in questions.iter().zip(truths) {
        let (column, targets) = assign_question(question, truth, respondents, &mut rng)?;
        columns.push(column);
        if question.grouping {
            // Not randomized, not estimated: nothing to check.
            continue;
        }
        simulated.push(SimulatedQuestion {
            id: question.id,
            number: question.number,
            text: question.text.clone(),
            question_type: question.design.question_type(),
            design: question.design.design_name(),
            targets,
        });
    }
    Ok((columns, simulated))
}

/// The ChaCha20 seed of each device when the run is reproducible.
fn device_seeds(seed: u64, respondents: usize) -> Vec<[u8; SEED_BYTES]> {
    // A stream apart from the shuffle's: the coins do not depend on how truths were drawn.
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x636f_696e_7300_0000);
    (0..respondents)
        .map(|_| {
            let mut bytes = [0u8; SEED_BYTES];
            rng.fill_bytes(&mut bytes);
            bytes
        })
        .collect()
}

pub async fn simulate(
    plan: &SimulationPlan,
    progress: &ProgressBar,
) -> Result<SimulationOutcome, SimulationError> {
    if !(plan.confidence > 0.0 && plan.confidence < 1.0) {
        return Err(fail(
            "--confidence",
            "the confidence level is strictly between 0 and 1",
        ));
    }
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(plan.concurrency.max(1))
        .build()
        .map_err(|e| fail("cannot build the HTTP client", e))?;
    let base = &base_url(&plan.base_url)?;
    let definition_url = format!("{base}/api/surveys/{}", plan.survey);
    let responses_url = format!("{definition_url}/responses");

    let first = fetch_definition(&client, base, &plan.survey, &definition_url).await?;
    if first.questions.len() != plan.truths.len() {
        return Err(fail(
            "--truth",
            format_args!(
                "the survey has {} questions but {} truths were given",
                first.questions.len(),
                plan.truths.len()
            ),
        ));
    }
    let questions = first
        .questions
        .iter()
        .enumerate()
        .map(|(index, question)| parse_question(index + 1, question))
        .collect::<Result<Vec<_>, _>>()?;
    let (columns, simulated) =
        assign_truths(&questions, &plan.truths, plan.respondents, plan.seed)?;
    let seeds = plan
        .reproducible
        .then(|| device_seeds(plan.seed, plan.respondents));
    let key = pinned_key(&first, plan.invitations.as_ref())?;
    let codes: &[String] = match (&key, &plan.invitations) {
        (Some(_), Some(invitations)) => {
            if invitations.codes.len() < plan.respondents {
                return Err(fail(
                    "--invitations",
                    format_args!(
                        "{} invitations for {} respondents: one each",
                        invitations.codes.len(),
                        plan.respondents
                    ),
                ));
            }
            &invitations.codes
        }
        _ => &[],
    };
    let redemptions_url = format!("{definition_url}/redemptions");

    progress.set_length(plan.respondents as u64);
    // After the first error no device starts, and those already sending finish, so that the
    // count of stored responses is exact.
    let stopped = AtomicBool::new(false);
    let (submitted, error) = stream::iter(0..plan.respondents)
        .map(|respondent| {
            let (client, columns, questions) = (&client, &columns, &questions);
            let (definition_url, responses_url) = (&definition_url, &responses_url);
            let invitation = key
                .as_ref()
                .map(|key| (key, redemptions_url.as_str(), codes[respondent].as_str()));
            let seed = seeds.as_ref().map(|seeds| seeds[respondent]);
            let stopped = &stopped;
            async move {
                if stopped.load(Ordering::Relaxed) {
                    return Ok(false);
                }
                let answers: Vec<Answer> =
                    columns.iter().map(|column| column[respondent]).collect();
                let device = Device {
                    client,
                    base,
                    survey: &plan.survey,
                    definition_url,
                    responses_url,
                    questions,
                    invitation,
                };
                let stored = device.respond(&answers, seed).await;
                if stored.is_err() {
                    stopped.store(true, Ordering::Relaxed);
                } else {
                    progress.inc(1);
                }
                stored.map(|()| true)
            }
        })
        .buffer_unordered(plan.concurrency.max(1))
        .fold((0usize, None), |(count, first_error), stored| async move {
            match stored {
                Ok(stored) => (count + usize::from(stored), first_error),
                Err(error) => (count, first_error.or(Some(error))),
            }
        })
        .await;
    if let Some(error) = error {
        progress.abandon();
        return Err(error.after_storing(submitted, format!("survey {}", plan.survey)));
    }
    progress.finish();

    let results = match &plan.token {
        Some(token) => Some(
            fetch_results(&client, base, &plan.survey, token, plan.confidence)
                .await
                .map_err(|e| e.after_storing(submitted, format!("survey {}", plan.survey)))?,
        ),
        None => None,
    };
    Ok(SimulationOutcome {
        submitted,
        questions: simulated,
        results,
    })
}

async fn fetch_definition(
    client: &reqwest::Client,
    base: &str,
    survey: &str,
    url: &str,
) -> Result<Definition, SimulationError> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| unreachable(base, "cannot fetch the survey", &e))?;
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Err(SimulationError::new(format!(
            "{base} has no open survey {survey:?} (404): check --survey, and open the survey \
             with `deniable survey open {survey}`"
        )));
    }
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

/// One simulated device.
struct Device<'a> {
    client: &'a reqwest::Client,
    base: &'a str,
    survey: &'a str,
    definition_url: &'a str,
    responses_url: &'a str,
    /// The designs, parsed once from the first definition (they are frozen while open).
    questions: &'a [SurveyQuestion],
    /// A survey that requires invitations: its pinned key, the redemptions URL and this
    /// device's invitation.
    invitation: Option<(&'a blind_tokens::PublicKey, &'a str, &'a str)>,
}

impl Device<'_> {
    /// Fresh definition and nonce, the device's bytes (the OS's, or `seed` XOR the nonce),
    /// each answer randomized in question order by its design, POST.
    async fn respond(
        &self,
        answers: &[Answer],
        seed: Option<[u8; SEED_BYTES]>,
    ) -> Result<(), SimulationError> {
        let definition =
            fetch_definition(self.client, self.base, self.survey, self.definition_url).await?;
        let same_questions = definition.questions.len() == self.questions.len()
            && definition
                .question_ids()
                .iter()
                .zip(self.questions)
                .all(|(fetched, known)| *fetched == Some(known.id));
        if !same_questions {
            return Err(fail(
                "the survey changed",
                "its questions differ from those the simulation started with",
            ));
        }
        let nonce: [u8; SEED_BYTES] = hex::decode(&definition.nonce)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| fail("bad nonce", &definition.nonce))?;
        let device_bytes = match seed {
            Some(mut seed) => {
                // seed XOR nonce, so that the generator's seed (bytes XOR nonce) is `seed`.
                for (byte, nonce) in seed.iter_mut().zip(nonce) {
                    *byte ^= nonce;
                }
                seed
            }
            None => random_bytes::<SEED_BYTES>().map_err(|e| fail("randomness", e))?,
        };
        let mut rng = submission_rng(&device_bytes, &nonce);
        let mut reports = serde_json::Map::new();
        for (question, &answer) in self.questions.iter().zip(answers) {
            if let (true, Answer::Index(option)) = (question.grouping, answer) {
                // A grouping answer is sent as given: no draw.
                reports.insert(question.id.to_string(), option.into());
                continue;
            }
            let report = question
                .design
                .mechanism()
                .respond(answer, &mut rng)
                .map_err(|e| fail("cannot randomize an answer", e))?;
            reports.insert(question.id.to_string(), report.into());
        }
        let mut body = serde_json::json!({ "answers": reports });
        if let Some((key, redemptions_url, code)) = self.invitation {
            body["token"] = self.redeem(key, redemptions_url, code).await?;
        }
        let response = self
            .client
            .post(self.responses_url)
            .json(&body)
            .send()
            .await
            .map_err(|e| unreachable(self.base, "cannot submit", &e))?;
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
}

impl Device<'_> {
    /// The first of the two steps (issue 20): the invitation buys a blind token, whose
    /// proof is checked against the pinned key; the token goes with the answers.
    async fn redeem(
        &self,
        key: &blind_tokens::PublicKey,
        redemptions_url: &str,
        code: &str,
    ) -> Result<serde_json::Value, SimulationError> {
        let mut rng = rand_chacha::ChaCha20Rng::from_seed(
            random_bytes::<32>().map_err(|e| fail("randomness", e))?,
        );
        let mut input = [0u8; crate::domain::TOKEN_INPUT_BYTES];
        rng.fill_bytes(&mut input);
        let (state, blinded) =
            blind_tokens::blind(&input, &mut rng).map_err(|e| fail("cannot blind", e))?;
        let response = self
            .client
            .post(redemptions_url)
            .json(&serde_json::json!({
                "invitation": code,
                "blinded": blind_tokens::to_base64url(&blinded),
            }))
            .send()
            .await
            .map_err(|e| fail("cannot redeem an invitation", e))?;
        if response.status() != reqwest::StatusCode::OK {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            return Err(fail(
                "the server refused a redemption",
                format_args!("{status} {body}"),
            ));
        }
        let answer: crate::domain::EvaluationBody = response
            .json()
            .await
            .map_err(|e| fail("unexpected redemption", e))?;
        let bytes = |text: &str| {
            blind_tokens::from_base64url(text).map_err(|e| fail("unexpected redemption", e))
        };
        let output = blind_tokens::finalize(
            &state,
            &bytes(&answer.evaluation)?,
            &bytes(&answer.proof)?,
            key,
        )
        .map_err(|e| {
            fail(
                "the redemption's proof does not hold for the survey's key",
                e,
            )
        })?;
        Ok(serde_json::json!({
            "input": blind_tokens::to_base64url(&input),
            "output": blind_tokens::to_base64url(&output),
        }))
    }
}

async fn fetch_results(
    client: &reqwest::Client,
    base: &str,
    survey: &str,
    token: &str,
    confidence: f64,
) -> Result<SurveyResults, SimulationError> {
    let response = client
        .get(format!("{base}/api/surveys/{survey}/results"))
        .query(&[("confidence", confidence)])
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| unreachable(base, "cannot fetch the results", &e))?;
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
    use super::*;

    fn question(id: i64, json: &str) -> SurveyQuestion {
        let fields: DesignFields = serde_json::from_str(json).unwrap();
        SurveyQuestion {
            id,
            number: id as usize,
            text: format!("Q{id}"),
            design: QuestionDesign::parse("q", &fields).unwrap(),
            grouping: false,
        }
    }

    #[test]
    fn truths_parse_by_their_shape() {
        assert_eq!("0.3".parse::<Truth>(), Ok(Truth::Yes(0.3)));
        assert_eq!(
            "0.5/0.3/0.2".parse::<Truth>(),
            Ok(Truth::Options(vec![0.5, 0.3, 0.2]))
        );
        assert_eq!(
            "0:0.25/7.5:0.75".parse::<Truth>(),
            Ok(Truth::Values(vec![(0.0, 0.25), (7.5, 0.75)]))
        );
        for bad in [
            "1.5",
            "x",
            "0.5/0.6",
            "0.5/-0.5/1",
            "3:0.5",
            "3:0.5/x:0.5",
            "",
            "NaN",
        ] {
            assert!(bad.parse::<Truth>().is_err(), "{bad}");
        }
    }

    #[test]
    fn truths_print_as_they_are_written() {
        for text in ["0.3", "0.5/0.3/0.2", "0:0.25/7.5:0.75"] {
            assert_eq!(text.parse::<Truth>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn apportioned_counts_add_up_and_follow_the_largest_remainders() {
        assert_eq!(apportion(&[0.5, 0.3, 0.2], 10), [5, 3, 2]);
        assert_eq!(apportion(&[1.0 / 3.0; 3], 10), [4, 3, 3]);
        assert_eq!(apportion(&[0.125, 0.875], 4), [1, 3]);
        assert_eq!(apportion(&[0.0, 1.0], 0), [0, 0]);
    }

    #[test]
    fn exactly_the_rounded_shares_hold_each_truth_and_the_targets_say_so() {
        let questions = [
            question(1, r#"{"epsilon": 1}"#),
            question(
                2,
                r#"{"type": "ordinal", "epsilon": 1, "options": ["a", "b", "c"]}"#,
            ),
            question(
                3,
                r#"{"type": "number", "epsilon": 1, "min": 0, "max": 30}"#,
            ),
        ];
        let truths = [
            Truth::Yes(0.25),
            Truth::Options(vec![0.5, 0.3, 0.2]),
            Truth::Values(vec![(0.0, 0.5), (30.0, 0.25), (10.0, 0.25)]),
        ];
        let (columns, simulated) = assign_truths(&questions, &truths, 12, 7).unwrap();
        let yes = columns[0]
            .iter()
            .filter(|&&a| a == Answer::Index(1))
            .count();
        assert_eq!(yes, 3);
        assert_eq!(simulated[0].targets[0].truth, 0.25);
        let names: Vec<&str> = simulated[1]
            .targets
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["a", "b", "c", "mean level"]);
        // 6 × 1 + 4 × 2 + 2 × 3 (0.3 · 12 = 3.6 and 0.2 · 12 = 2.4: b gets the spare one).
        assert_eq!(simulated[1].targets[3].truth, 20.0 / 12.0);
        assert_eq!(
            simulated[2].targets[0].truth,
            (30.0 * 3.0 + 10.0 * 3.0) / 12.0
        );
        let (again, _) = assign_truths(&questions, &truths, 12, 7).unwrap();
        assert_eq!(columns, again, "the same seed assigns the same truths");
    }

    #[test]
    fn a_truth_of_the_wrong_shape_or_out_of_bounds_is_refused_by_question() {
        let number = [question(
            4,
            r#"{"type": "number", "epsilon": 1, "min": 0, "max": 30}"#,
        )];
        let error = assign_truths(&number, &[Truth::Yes(0.5)], 10, 1).unwrap_err();
        assert!(error.to_string().contains("value:share"), "{error}");
        let error = assign_truths(&number, &[Truth::Values(vec![(31.0, 1.0)])], 10, 1).unwrap_err();
        assert!(error.to_string().contains("outside"), "{error}");
        let choice = [question(
            5,
            r#"{"type": "choice", "epsilon": 1, "options": ["a", "b", "c"]}"#,
        )];
        let error = assign_truths(&choice, &[Truth::Options(vec![0.5, 0.5])], 10, 1).unwrap_err();
        assert!(error.to_string().contains("3 options"), "{error}");
    }

    #[test]
    fn reproducible_devices_get_fixed_distinct_seeds() {
        let seeds = device_seeds(42, 3);
        assert_eq!(seeds, device_seeds(42, 3));
        assert_ne!(seeds[0], seeds[1]);
        assert_ne!(seeds, device_seeds(43, 3));
    }
}
