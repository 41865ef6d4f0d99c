//! Domain types: input is parsed into these once, at the edge, and trusted afterwards.

use std::collections::BTreeMap;
use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use randomized_response::PrivacyLevel;
use serde::Deserialize;

use crate::crypto::{random_bytes, sha256};

mod embedding;
mod error;
mod intro;
mod question;
mod refusal;
mod release;
mod response;
mod stopping;
mod submission;
mod token;
pub use embedding::{
    is_placeholder_name, CompletionUrl, EmbedOrigins, MAX_COMPLETION_URL_CHARS, MAX_EMBED_ORIGINS,
};
pub use error::DomainError;
pub use intro::{
    Contact, Language, SurveyIntro, MAX_CONSENT_CHARS, MAX_CONTACT_CHARS, MAX_RESEARCHER_CHARS,
};
pub use question::{
    stored_grouping, DesignFields, DesignName, GroupingDefinition, GroupingInput, GroupingQuestion,
    Question, QuestionDesign, QuestionInput, QuestionType, GROUPING_TYPE, MAX_NUMBER_BOUND,
    MAX_OPTION_CHARS,
};
pub use refusal::Refusal;
pub use release::{ReleaseReason, ReleaseSummary};
use response::is_64_lowercase_hex;
pub use response::{Receipt, RecordId, ResponseId, WithdrawalKey, WithdrawalTag};
pub use stopping::{ClosingTime, StoppingRule, MAX_TARGET_RESPONSES};
pub use submission::{StoredGrouping, StoredReport, Submission, SubmissionInput};
pub use token::{
    token_invalid, Blinded, Evaluation, EvaluationBody, InvitationKey, InvitationKeyBody,
    Redemption, RedemptionInput, SpentToken, SurveyKey, Token, TokenInput, TOKEN_INPUT_BYTES,
};

/// A survey's most questions: as many as one call of the mechanism randomizes (its
/// WebAssembly buffer's records), so every accepted survey can be answered on a device.
pub const MAX_QUESTIONS: usize = randomized_response::MAX_QUESTIONS;
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
pub const MAX_QUESTION_CHARS: usize = 1_000;
pub const MAX_PLANNED_RESPONDENTS: u64 = 1_000_000_000;
pub const DEFAULT_PLANNED_RESPONDENTS: u64 = 1_000;
pub const MIN_PASSWORD_CHARS: usize = 12;
pub const MAX_INVITATIONS_PER_REQUEST: u32 = 10_000;

/// A survey's public name in URLs: 1 to 64 of `a-z`, `0-9` and inner `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Slug(String);

impl Slug {
    const MAX_CHARS: usize = 64;

    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let well_formed = !text.is_empty()
            && text.len() <= Self::MAX_CHARS
            && !text.starts_with('-')
            && !text.ends_with('-')
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if well_formed {
            Ok(Self(text.to_owned()))
        } else {
            // An ill-formed slug names no survey.
            Err(DomainError::NotFound("survey"))
        }
    }

    /// A readable, unguessable slug: the title's words and a random suffix.
    pub fn generate(title: &str) -> Result<Self, DomainError> {
        let mut words = String::new();
        for c in title.chars().flat_map(char::to_lowercase) {
            if c.is_ascii_alphanumeric() {
                words.push(c);
            } else if !words.is_empty() && !words.ends_with('-') {
                words.push('-');
            }
            if words.len() >= 40 {
                break;
            }
        }
        let words = words.trim_end_matches('-');
        let suffix = hex::encode(random_bytes::<4>()?);
        let slug = if words.is_empty() {
            suffix
        } else {
            format!("{words}-{suffix}")
        };
        Self::parse(&slug)
    }

    pub fn demo() -> Self {
        Self("demo".to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A researcher's e-mail address, lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let text = text.trim().to_lowercase();
        let plausible = text.len() <= 254
            && !text.chars().any(char::is_whitespace)
            && matches!(text.split_once('@'), Some((local, domain))
                if !local.is_empty() && !domain.is_empty() && !domain.contains('@'));
        if plausible {
            Ok(Self(text))
        } else {
            Err(DomainError::invalid(
                "invalid_email",
                "an e-mail address looks like name@example.org",
            ))
        }
    }

    /// The built-in owner of the demo survey; it has no password and cannot log in.
    pub fn demo_owner() -> Self {
        Self("demo@localhost".to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A password long enough to be worth hashing.
pub struct Password(String);

impl Password {
    pub fn parse(text: String) -> Result<Self, DomainError> {
        if text.chars().count() < MIN_PASSWORD_CHARS {
            return Err(DomainError::invalid(
                "weak_password",
                format!("a password needs at least {MIN_PASSWORD_CHARS} characters"),
            ));
        }
        Ok(Self(text))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(..)")
    }
}

/// A researcher's API bearer token: 32 random bytes, base64url. Shown once, stored hashed.
pub struct ApiToken(String);

impl ApiToken {
    pub fn generate() -> Result<Self, DomainError> {
        Ok(Self(URL_SAFE_NO_PAD.encode(random_bytes::<32>()?)))
    }

    pub fn hash(&self) -> TokenHash {
        TokenHash(sha256(self.0.as_bytes()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// What the database knows of a token: its SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes whatever the client presented; an unknown token simply matches nothing.
    pub fn of_presented(token: &str) -> Self {
        Self(sha256(token.as_bytes()))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A secret in a cookie or a one-time link: 32 random bytes (256 bits), base64url.
/// Only its hash is stored.
pub struct SecretToken(String);

impl SecretToken {
    const BYTES: usize = 32;

    pub fn generate() -> Result<Self, DomainError> {
        Ok(Self(
            URL_SAFE_NO_PAD.encode(random_bytes::<{ Self::BYTES }>()?),
        ))
    }

    /// A presented token; `None` when it cannot be one of ours (it then matches nothing).
    pub fn parse(text: &str) -> Option<Self> {
        match URL_SAFE_NO_PAD.decode(text) {
            Ok(bytes) if bytes.len() == Self::BYTES => Some(Self(text.to_owned())),
            _ => None,
        }
    }

    pub fn hash(&self) -> TokenHash {
        TokenHash(sha256(self.0.as_bytes()))
    }

    /// The session's CSRF token: derived from the secret session token, so a page of
    /// another origin cannot know it, and nothing more has to be stored.
    pub fn csrf_token(&self) -> CsrfToken {
        let mut input = b"deniable csrf ".to_vec();
        input.extend_from_slice(self.0.as_bytes());
        CsrfToken(URL_SAFE_NO_PAD.encode(sha256(&input)))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Compares two secrets without an early exit (no timing hint of how much matched).
pub fn secrets_match(expected: &str, presented: &str) -> bool {
    let (expected, presented) = (expected.as_bytes(), presented.as_bytes());
    expected.len() == presented.len()
        && expected
            .iter()
            .zip(presented)
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

/// The token every state-changing form of a session carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsrfToken(String);

impl CsrfToken {
    /// Compares in constant time with what a request presented.
    pub fn matches(&self, presented: &str) -> bool {
        secrets_match(&self.0, presented)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResearcherId(i64);

impl ResearcherId {
    pub fn from_stored(id: i64) -> Self {
        Self(id)
    }

    pub fn get(self) -> i64 {
        self.0
    }
}

impl TokenHash {
    /// The stored hash as hex: how the tokens page names a token without revealing it.
    pub fn to_hex(self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(text: &str) -> Result<Self, DomainError> {
        hex::decode(text)
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .map(Self)
            .ok_or(DomainError::NotFound("token"))
    }

    pub fn from_stored(bytes: &[u8]) -> Result<Self, DomainError> {
        <[u8; 32]>::try_from(bytes)
            .map(Self)
            .map_err(|_| DomainError::internal("a stored token hash is not 32 bytes"))
    }
}

/// A single-use invitation: 32 random bytes in lowercase hex. Handed to the owner once (for
/// a mail merge); only its hash is stored, and redeeming it moves that hash from the unused
/// invitations to the redemptions. Hex, unlike base64url, never starts with `-`, so the
/// CSV cell needs no formula escape.
pub struct InvitationCode(String);

impl InvitationCode {
    pub fn generate() -> Result<Self, DomainError> {
        Ok(Self(hex::encode(random_bytes::<32>()?)))
    }

    pub fn parse(text: &str) -> Result<Self, DomainError> {
        if is_64_lowercase_hex(text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(invitation_unusable())
        }
    }

    pub fn hash(&self) -> InvitationHash {
        InvitationHash(sha256(self.0.as_bytes()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// What the database knows of an invitation: its SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvitationHash([u8; 32]);

impl InvitationHash {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// One message for unknown and malformed invitations (a used one is a 409
/// `invitation_used`, for its holder's device to tell apart from a typo).
pub fn invitation_unusable() -> DomainError {
    DomainError::refused(
        "invitation_invalid",
        "this invitation is not one of this survey's",
    )
}

/// 409 for an invitation already redeemed with another blinded element.
pub fn invitation_used() -> DomainError {
    DomainError::conflict(
        "invitation_used",
        "this invitation has already been redeemed (from another device or browser, or \
         after this one forgot it); ask the survey's owner for a new one",
    )
}

/// How many invitations to create at once.
#[derive(Debug, Clone, Copy)]
pub struct InvitationCount(u32);

impl InvitationCount {
    pub fn parse(count: u32) -> Result<Self, DomainError> {
        if (1..=MAX_INVITATIONS_PER_REQUEST).contains(&count) {
            Ok(Self(count))
        } else {
            Err(DomainError::invalid(
                "invalid_count",
                format!("count must be between 1 and {MAX_INVITATIONS_PER_REQUEST}"),
            ))
        }
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

/// The JSON an owner posts to create invitations.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = InvitationsRequest)]
pub struct InvitationsInput {
    /// How many single-use invitations to create (1 to 10 000,
    /// [`MAX_INVITATIONS_PER_REQUEST`]).
    #[serde(deserialize_with = "whole")]
    #[schema(minimum = 1, maximum = 10_000)]
    pub count: u32,
}

/// A whole number as JSON Schema counts one: `5` and `5.0` alike (Python's `json` writes
/// `5.0` for a float such as `n / 2`); nothing fractional, negative or out of `T`'s range.
pub(crate) struct Whole<T>(pub(crate) T);

impl<'de, T: TryFrom<u64>> Deserialize<'de> for Whole<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        // 2^64 as a float: the first value above u64::MAX.
        const BEYOND_U64: f64 = 18_446_744_073_709_551_616.0;
        number
            .as_u64()
            .or_else(|| {
                number
                    .as_f64()
                    .filter(|float| float.fract() == 0.0 && (0.0..BEYOND_U64).contains(float))
                    .map(|float| float as u64)
            })
            .and_then(|whole| T::try_from(whole).ok())
            .map(Whole)
            .ok_or_else(|| {
                serde::de::Error::custom(format_args!(
                    "expected a whole number in range, found {number}"
                ))
            })
    }
}

fn whole<'de, D: serde::Deserializer<'de>, T: TryFrom<u64>>(
    deserializer: D,
) -> Result<T, D::Error> {
    Whole::deserialize(deserializer).map(|Whole(value)| value)
}

fn whole_or_null<'de, D: serde::Deserializer<'de>, T: TryFrom<u64>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Option::<Whole<T>>::deserialize(deserializer).map(|value| value.map(|Whole(value)| value))
}

/// The server's half of a submission's seed: 32 fresh random bytes per definition request.
pub struct Nonce([u8; 32]);

impl Nonce {
    pub fn generate() -> Result<Self, DomainError> {
        Ok(Self(random_bytes()?))
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// As its name (`"open"`) in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SurveyStatus {
    Draft,
    Open,
    Closed,
}

impl SurveyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Open => "open",
            Self::Closed => "closed",
        }
    }

    pub fn from_stored(text: &str) -> Result<Self, DomainError> {
        match text {
            "draft" => Ok(Self::Draft),
            "open" => Ok(Self::Open),
            "closed" => Ok(Self::Closed),
            other => Err(DomainError::internal(format!(
                "unknown survey status {other:?} in the database"
            ))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QuestionId(i64);

impl QuestionId {
    pub fn from_stored(id: i64) -> Self {
        Self(id)
    }

    pub fn get(self) -> i64 {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurveyId(i64);

impl SurveyId {
    pub fn from_stored(id: i64) -> Self {
        Self(id)
    }

    pub fn get(self) -> i64 {
        self.0
    }
}

/// A stored survey with its questions in position order.
#[derive(Debug, Clone)]
pub struct Survey {
    pub id: SurveyId,
    pub slug: Slug,
    pub title: String,
    pub description: String,
    pub status: SurveyStatus,
    pub planned_respondents: u64,
    /// Responses need a single-use invitation.
    pub requires_invitation: bool,
    /// Deleted with all its data once this UTC day is over.
    pub delete_after: Option<RetentionDate>,
    pub min_cell: MinCell,
    /// No figure computed from the reports before the survey closes (frozen at open).
    pub results_after_close: bool,
    /// Who runs it, how to reach them, the consent text and the form's language.
    pub intro: SurveyIntro,
    /// Fixed in advance (a target, a closing time) or watched live (neither).
    pub stopping_rule: StoppingRule,
    /// Where "Continue" leads once a response is stored (never in the public definition).
    pub completion_url: Option<CompletionUrl>,
    /// The sites that may frame the form (in the public definition: its frame policy).
    pub embed_origins: EmbedOrigins,
    /// Set when the owner unblinded a survey fixed in advance before its rule closed it:
    /// the responses it had then. Recorded for good.
    pub unblinded_at: Option<u64>,
    /// The randomized questions, in position order.
    pub questions: Vec<Question>,
    /// The grouping questions (not randomized), in position order; their positions are
    /// among the questions'.
    pub groupings: Vec<GroupingQuestion>,
}

impl Survey {
    pub fn total_epsilon(&self) -> f64 {
        randomized_response::total_epsilon(self.questions.iter().map(|q| q.design.level()))
    }

    /// The sample size the anytime interval is tuned for: the target when there is one,
    /// else the planned respondents.
    pub fn planned_size(&self) -> u64 {
        self.stopping_rule
            .target_responses()
            .unwrap_or(self.planned_respondents)
    }

    /// Figures computed from the reports are withheld until close (`results_after_close`).
    pub fn results_withheld_until_close(&self) -> bool {
        self.results_after_close && self.status != SurveyStatus::Closed
    }

    /// A response's cell: its grouping answers, one byte each in the grouping questions'
    /// position order (empty without grouping questions). Cells are fixed when the survey
    /// opens (its grouping questions are frozen then).
    pub fn cell_of(&self, answers: &[StoredGrouping]) -> Vec<u8> {
        self.groupings
            .iter()
            .map(|grouping| {
                answers
                    .iter()
                    .find(|answer| answer.question_id == grouping.id)
                    .map_or(u8::MAX, |answer| answer.answer)
            })
            .collect()
    }

    /// Fixed in advance, not unblinded, and not closed: estimates are withheld.
    pub fn is_blinded(&self) -> bool {
        self.stopping_rule.is_fixed()
            && self.unblinded_at.is_none()
            && self.status != SurveyStatus::Closed
    }
}

/// Seconds since 1970-01-01T00:00:00Z, now.
pub(crate) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

/// A retention date, `YYYY-MM-DD` (UTC): the survey is deleted once that day is over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RetentionDate(String);

impl RetentionDate {
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let invalid = || {
            DomainError::invalid(
                "invalid_delete_after",
                format!("delete_after must be a date written YYYY-MM-DD, not {text:?}"),
            )
        };
        let bytes = text.as_bytes();
        let shaped = bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        if !shaped {
            return Err(invalid());
        }
        let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
        let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10))
        else {
            return Err(invalid());
        };
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return Err(invalid());
        }
        Ok(Self(text.to_owned()))
    }

    /// Today's UTC date, the same shape: retention compares the two as text.
    pub fn today() -> Self {
        let (year, month, day) = civil_from_days(unix_now().div_euclid(86_400));
        Self(format!("{year:04}-{month:02}-{day:02}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 to a (year, month, day): Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * shifted_month + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    })
    .unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// k: the fewest responses any figure its owner sees rests on (docs/design.md, invariant
/// 11): releases are considered every k stored responses, and a cell of responses is
/// released only with at least k new ones. The live pages of other surveys move in steps
/// of k too, so that a room watching the screen cannot tie a change to the person who just
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinCell(u32);

impl MinCell {
    /// The unreleased responses a cell needs to be released: while the survey is open
    /// k + s, with s = max(2, ⌈k/5⌉), so that a withdrawal or two leave a release at k or
    /// more; at close, k (docs/design.md, "Releases").
    pub fn release_threshold(self, open: bool) -> u64 {
        let k = u64::from(self.0);
        if open {
            k + 2.max(k.div_ceil(5))
        } else {
            k
        }
    }

    pub const DEFAULT: u32 = 10;
    /// Below 5, a release would describe too few people to hide one of them.
    pub const MIN: u32 = 5;
    pub const MAX: u32 = 10_000;

    pub fn parse(value: u32) -> Result<Self, DomainError> {
        if (Self::MIN..=Self::MAX).contains(&value) {
            Ok(Self(value))
        } else {
            Err(DomainError::invalid(
                "invalid_min_cell",
                format!(
                    "min_cell must be between {} and {} (got {value}): a release of fewer \
                     than {} responses would describe too few people to hide one of them",
                    Self::MIN,
                    Self::MAX,
                    Self::MIN
                ),
            ))
        }
    }

    /// A stored value: surveys made before the floor of 5 keep working with 5.
    pub fn from_stored(value: u32) -> Self {
        Self(value.clamp(Self::MIN, Self::MAX))
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

impl Default for MinCell {
    fn default() -> Self {
        Self(Self::DEFAULT)
    }
}

/// The JSON a researcher sends to create a survey (`POST /api/surveys`, `survey create`).
// The schema's limits are literals (utoipa takes no constants there); a test in
// src/http/openapi.rs compares them with the constants above.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SurveyDefinition)]
pub struct SurveyDefinitionInput {
    /// 1 to 200 characters once trimmed; no control characters but line breaks.
    #[schema(min_length = 1, max_length = 200, examples("Exam honesty"))]
    title: String,
    /// Up to 4 000 characters.
    #[serde(default)]
    #[schema(max_length = 4000)]
    description: String,
    /// The sample size the results page plans for (default 1 000).
    #[serde(default, deserialize_with = "whole_or_null")]
    #[schema(minimum = 1, maximum = 1_000_000_000)]
    planned_respondents: Option<u64>,
    /// Responses then need a single-use invitation (`POST …/invitations`).
    #[serde(default)]
    requires_invitation: bool,
    /// `"YYYY-MM-DD"`: the survey and all its data are deleted once this UTC day is over.
    #[schema(format = Date, examples("2027-06-30"))]
    delete_after: Option<String>,
    /// k (default 10, from 5 to 10 000): every figure the owner sees rests on releases of at
    /// least k responses (docs/design.md, invariant 11). Releases are considered every k
    /// stored responses; while open a cell of responses (a combination of grouping answers;
    /// the whole survey without grouping questions) is released with at least
    /// k + max(2, ⌈k/5⌉) new ones, at close with k; a release that withdrawals leave with
    /// fewer than k leaves every figure for good.
    #[serde(default, deserialize_with = "whole_or_null")]
    #[schema(minimum = 5, maximum = 10_000)]
    min_cell: Option<u32>,
    /// No figure computed from the reports before the survey closes (its owner sees counts
    /// only). Default: true for a survey that requires invitations or has grouping
    /// questions, false otherwise. Frozen when the survey opens.
    #[serde(default)]
    results_after_close: Option<bool>,
    /// Who runs the survey (a person or a group), shown on the form: up to 200 characters,
    /// one line.
    #[serde(default)]
    #[schema(
        max_length = 200,
        examples("Dr. Ada Lovelace, Department of Psychology")
    )]
    researcher: String,
    /// How respondents reach the researcher, shown on the form as a link: an e-mail address
    /// or an `https://`/`http://` address, up to 200 characters.
    #[serde(default)]
    #[schema(max_length = 200, examples("ethics@uni.example"))]
    contact: String,
    /// The information-and-consent statement (up to 4 000 characters). When given, the
    /// form shows it and sends nothing until the respondent ticks that they agree.
    #[serde(default)]
    #[schema(max_length = 4000)]
    consent: Option<String>,
    /// The language of the form's own words and its `<html lang>` (default `en`).
    #[serde(default)]
    #[schema(value_type = Option<SurveyLanguage>)]
    language: Option<String>,
    /// Fixed in advance: the survey closes by itself once this many responses are stored
    /// (the one that reaches it is the last accepted). Its estimates are blinded until it
    /// closes; the target also tunes the anytime interval (instead of
    /// `planned_respondents`). Frozen when the survey opens.
    #[serde(default, deserialize_with = "whole_or_null")]
    #[schema(minimum = 1, maximum = 1_000_000_000, examples(2000))]
    target_responses: Option<u64>,
    /// Fixed in advance: the survey closes by itself at this UTC instant (RFC 3339, ending
    /// in `Z`), which must lie ahead. Blinded until then, like `target_responses` (with
    /// both, whichever comes first closes it). Frozen when the survey opens.
    #[schema(format = DateTime, examples("2027-01-31T23:59:00Z"))]
    closes_at: Option<String>,
    /// Where the form's "Continue" leads once the response is stored (a panel's completion
    /// link): `https://` only, up to 2 000 characters. `{name}` placeholders in its query or
    /// fragment (never its host or path) are filled, URL-encoded, from the survey link's
    /// fragment (`#return=…`); `{invitation}` and `{key}` are refused. Not in the public
    /// definition: returned with a stored submission. Frozen when the survey opens.
    #[serde(default)]
    #[schema(
        max_length = 2000,
        examples("https://app.prolific.com/submissions/complete?cc=C1A2B3C4")
    )]
    completion_url: Option<String>,
    /// Up to 10 exact origins (`https://host[:port]`, or `http://` on a loopback host) that
    /// may show the form in a frame: its `frame-ancestors`. None by default (no site may).
    /// In the public definition. Frozen when the survey opens.
    #[serde(default)]
    #[schema(max_items = 10, examples(json!(["https://survey.example.org"])))]
    embed_origins: Vec<String>,
    /// 1 to 100 questions, in the order respondents see them: at least one randomized,
    /// and any grouping questions (`"type": "grouping"`, not randomized).
    #[schema(min_items = 1, max_items = 100)]
    questions: Vec<QuestionInput>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = QuestionDefinition)]
pub struct QuestionDefinitionInput {
    /// The question, 1 to 1 000 characters once trimmed.
    #[schema(
        min_length = 1,
        max_length = 1000,
        examples("Have you ever cheated on an exam?")
    )]
    text: String,
    /// Accepted for definitions of the first release and ignored: every question is
    /// answered (a blank would not be randomized, and would say something).
    #[serde(default = "required_by_default")]
    #[schema(default = true)]
    #[allow(dead_code)] // read only to refuse a value that is not a boolean
    required: bool,
    /// The type, design and its parameters.
    #[serde(flatten)]
    design: DesignFields,
    /// Any other field, refused by name (`deny_unknown_fields` does not work beside
    /// `flatten`).
    #[serde(flatten)]
    #[schema(ignore)]
    unknown: BTreeMap<String, serde_json::Value>,
}

fn required_by_default() -> bool {
    true
}

/// A form language (the schema of [`SurveyDefinitionInput`]'s `language`; parsed as text so
/// that another value gets a 400 that lists these).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // a schema only
pub enum SurveyLanguage {
    En,
    De,
    Fr,
    Es,
}

/// A draft's title, description and planned respondents, as edited in the builder.
#[derive(Debug, Clone)]
pub struct SurveyDetails {
    title: String,
    description: String,
    planned_respondents: u64,
}

impl SurveyDetails {
    pub fn parse(
        title: &str,
        description: &str,
        planned_respondents: Option<u64>,
    ) -> Result<Self, DomainError> {
        let planned_respondents = planned_respondents.unwrap_or(DEFAULT_PLANNED_RESPONDENTS);
        if !(1..=MAX_PLANNED_RESPONDENTS).contains(&planned_respondents) {
            return Err(DomainError::invalid(
                "invalid_planned_respondents",
                format!("planned_respondents must be between 1 and {MAX_PLANNED_RESPONDENTS}"),
            ));
        }
        Ok(Self {
            title: bounded_text("title", title, 1, MAX_TITLE_CHARS)?,
            description: bounded_text("description", description, 0, MAX_DESCRIPTION_CHARS)?,
            planned_respondents,
        })
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    pub fn planned_respondents(&self) -> u64 {
        self.planned_respondents
    }
}

/// A validated survey definition, ready to store as a draft.
#[derive(Debug, Clone)]
pub struct SurveyDefinition {
    title: String,
    description: String,
    planned_respondents: u64,
    requires_invitation: bool,
    delete_after: Option<RetentionDate>,
    min_cell: MinCell,
    results_after_close: bool,
    intro: SurveyIntro,
    stopping_rule: StoppingRule,
    completion_url: Option<CompletionUrl>,
    embed_origins: EmbedOrigins,
    questions: Vec<DefinedQuestion>,
}

/// A question of a definition, in the order respondents see them.
#[derive(Debug, Clone)]
pub enum DefinedQuestion {
    /// Boxed: a design's mechanism is large, a grouping question's options small.
    Randomized(Box<QuestionDefinition>),
    Grouping(GroupingDefinition),
}

#[derive(Debug, Clone)]
pub struct QuestionDefinition {
    text: String,
    design: QuestionDesign,
}

impl SurveyDefinition {
    pub fn parse(input: SurveyDefinitionInput) -> Result<Self, DomainError> {
        let details =
            SurveyDetails::parse(&input.title, &input.description, input.planned_respondents)?;
        if input.questions.is_empty() || input.questions.len() > MAX_QUESTIONS {
            return Err(DomainError::invalid(
                "invalid_questions",
                format!("a survey has between 1 and {MAX_QUESTIONS} questions"),
            ));
        }
        let questions: Vec<DefinedQuestion> = input
            .questions
            .into_iter()
            .enumerate()
            .map(|(index, question)| {
                let field = format!("questions[{index}]");
                Ok(match question {
                    QuestionInput::Randomized(question) => DefinedQuestion::Randomized(Box::new(
                        QuestionDefinition::parse(&field, &question)?,
                    )),
                    QuestionInput::Grouping(grouping) => {
                        DefinedQuestion::Grouping(GroupingDefinition::parse(&field, &grouping)?)
                    }
                })
            })
            .collect::<Result<_, DomainError>>()?;
        if !questions
            .iter()
            .any(|question| matches!(question, DefinedQuestion::Randomized(_)))
        {
            return Err(DomainError::invalid(
                "invalid_questions",
                "a survey asks at least one randomized question (grouping questions only \
                 describe the respondents)",
            ));
        }
        let mut definition = Self::of(details, Vec::new(), input.requires_invitation);
        definition.questions = questions;
        definition.delete_after = input
            .delete_after
            .as_deref()
            .map(RetentionDate::parse)
            .transpose()?;
        definition.min_cell = input
            .min_cell
            .map(MinCell::parse)
            .transpose()?
            .unwrap_or_default();
        // Default: no figure before close for a survey with invitations or grouping questions
        // (an owner who knows who arrived when could solve each batch's answers sent as
        // given: docs/privacy.md, "The price of live breakdowns").
        let has_groupings = definition
            .questions
            .iter()
            .any(|question| matches!(question, DefinedQuestion::Grouping(_)));
        definition.results_after_close = input
            .results_after_close
            .unwrap_or(input.requires_invitation || has_groupings);
        definition.stopping_rule = StoppingRule::parse(
            input.target_responses,
            input.closes_at.as_deref(),
            ClosingTime::now(),
        )?;
        definition.completion_url = CompletionUrl::parse(input.completion_url.as_deref())?;
        definition.embed_origins = EmbedOrigins::parse(&input.embed_origins)?;
        definition.intro = SurveyIntro::parse(
            &input.researcher,
            &input.contact,
            input.consent.as_deref().unwrap_or_default(),
            input.language.as_deref(),
        )?;
        Ok(definition)
    }

    /// The same definition with who runs it, the contact, the consent text and the
    /// language (the builder: `SurveyDefinition::of(…).with_intro(SurveyIntro::parse(…)?)`).
    pub fn with_intro(mut self, intro: SurveyIntro) -> Self {
        self.intro = intro;
        self
    }

    pub fn of(
        details: SurveyDetails,
        questions: Vec<QuestionDefinition>,
        requires_invitation: bool,
    ) -> Self {
        Self {
            title: details.title,
            description: details.description,
            planned_respondents: details.planned_respondents,
            requires_invitation,
            delete_after: None,
            min_cell: MinCell::default(),
            results_after_close: requires_invitation,
            intro: SurveyIntro::default(),
            stopping_rule: StoppingRule::NONE,
            completion_url: None,
            embed_origins: EmbedOrigins::default(),
            questions: questions
                .into_iter()
                .map(|question| DefinedQuestion::Randomized(Box::new(question)))
                .collect(),
        }
    }

    /// The demo survey created on first start.
    pub fn demo() -> Self {
        let question = |text: &str, epsilon: f64| QuestionDefinition {
            text: text.to_owned(),
            design: QuestionDesign::mirrored(
                PrivacyLevel::new(epsilon).expect("the demo's ε values are in range"),
            ),
        };
        Self {
            title: "Demo: three sensitive questions".to_owned(),
            description: "A demonstration of Deniable. Answer honestly: your device flips \
                          biased coins before anything is sent, so no single answer can be \
                          held against you."
                .to_owned(),
            planned_respondents: DEFAULT_PLANNED_RESPONDENTS,
            requires_invitation: false,
            delete_after: None,
            // The smallest k: the demo's first figures appear after a handful of answers.
            min_cell: MinCell(MinCell::MIN),
            results_after_close: false,
            intro: SurveyIntro::default(),
            stopping_rule: StoppingRule::NONE,
            completion_url: None,
            embed_origins: EmbedOrigins::default(),
            questions: [
                question(
                    "In the past year, have you used a performance-enhancing drug?",
                    0.5,
                ),
                // ε = ln 3 is Warner's classic coin protocol (p = 3/4).
                question("Have you ever cheated on an exam?", 3f64.ln()),
                question(
                    "In the past month, have you driven after drinking alcohol?",
                    2.0,
                ),
            ]
            .into_iter()
            .map(|question| DefinedQuestion::Randomized(Box::new(question)))
            .collect(),
        }
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    pub fn planned_respondents(&self) -> u64 {
        self.planned_respondents
    }

    pub fn requires_invitation(&self) -> bool {
        self.requires_invitation
    }

    pub fn delete_after(&self) -> Option<&RetentionDate> {
        self.delete_after.as_ref()
    }

    pub fn min_cell(&self) -> MinCell {
        self.min_cell
    }

    /// No report-derived figure before the survey closes.
    pub fn results_after_close(&self) -> bool {
        self.results_after_close
    }

    /// Who runs it, the contact, the consent text and the form's language.
    pub fn intro(&self) -> &SurveyIntro {
        &self.intro
    }

    pub fn stopping_rule(&self) -> StoppingRule {
        self.stopping_rule
    }

    pub fn completion_url(&self) -> Option<&CompletionUrl> {
        self.completion_url.as_ref()
    }

    pub fn embed_origins(&self) -> &EmbedOrigins {
        &self.embed_origins
    }

    /// Every question, randomized and grouping, in the order respondents see them.
    pub fn questions(&self) -> &[DefinedQuestion] {
        &self.questions
    }
}

impl QuestionDefinition {
    /// One question; `field` names it in error messages (e.g. `questions[2]`).
    pub fn parse(field: &str, input: &QuestionDefinitionInput) -> Result<Self, DomainError> {
        if let Some(name) = input.unknown.keys().next() {
            return Err(DomainError::invalid(
                "unknown_field",
                format!("{field}.{name} is not a field of a question"),
            ));
        }
        Self::of(field, &input.text, &input.design)
    }

    /// A question from its text and design fields (the builder's form).
    pub fn of(field: &str, text: &str, design: &DesignFields) -> Result<Self, DomainError> {
        Ok(Self {
            text: bounded_text(&format!("{field}.text"), text, 1, MAX_QUESTION_CHARS)?,
            design: QuestionDesign::parse(field, design)?,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn design(&self) -> &QuestionDesign {
        &self.design
    }
}

pub(crate) fn bounded_text(
    field: &str,
    text: &str,
    min: usize,
    max: usize,
) -> Result<String, DomainError> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars < min || chars > max {
        return Err(DomainError::invalid(
            "invalid_text",
            format!("{field} must have between {min} and {max} characters"),
        ));
    }
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(DomainError::invalid(
            "invalid_text",
            format!("{field} must not contain control characters"),
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_dates_are_real_calendar_days() {
        assert!(RetentionDate::parse("2027-06-30").is_ok());
        assert!(RetentionDate::parse("2028-02-29").is_ok());
        for bad in [
            "2027-02-29",
            "2027-13-01",
            "2027-00-10",
            "27-06-30",
            "2027-6-30",
            "x",
        ] {
            assert!(RetentionDate::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn days_since_1970_become_the_right_calendar_day() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(RetentionDate::today().as_str().len(), 10);
    }

    #[test]
    fn slugs_are_lowercase_words_and_dashes() {
        assert!(Slug::parse("demo").is_ok());
        assert!(Slug::parse("drug-use-2024").is_ok());
        for bad in ["", "-a", "a-", "A", "a/b", "../etc", "a b", &"x".repeat(65)] {
            assert!(Slug::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn generated_slugs_keep_the_title_words_and_add_randomness() {
        let slug = Slug::generate("Drug use, 2024!").unwrap();
        assert!(slug.as_str().starts_with("drug-use-2024-"), "{slug}");
        assert_ne!(slug, Slug::generate("Drug use, 2024!").unwrap());
    }

    #[test]
    fn whole_numbers_may_be_written_as_floats_but_nothing_else_passes() {
        let count = |json: &str| serde_json::from_str::<InvitationsInput>(json).map(|i| i.count);
        assert_eq!(count(r#"{"count": 5}"#).unwrap(), 5);
        assert_eq!(count(r#"{"count": 5.0}"#).unwrap(), 5);
        assert_eq!(count(r#"{"count": 4e3}"#).unwrap(), 4_000);
        for bad in ["5.5", "-1", "-1.0", "4294967296", "1e300", "\"5\"", "null"] {
            assert!(count(&format!(r#"{{"count": {bad}}}"#)).is_err(), "{bad}");
        }
        let report = r#"{"answers": {"1": 1.0, "2": 0}}"#;
        assert!(serde_json::from_str::<SubmissionInput>(report).is_ok());
        assert!(serde_json::from_str::<SubmissionInput>(r#"{"answers": {"1": 0.5}}"#).is_err());
    }

    #[test]
    fn passwords_need_twelve_characters() {
        assert!(Password::parse("elevenchars".to_owned()).is_err());
        assert!(Password::parse("twelve chars".to_owned()).is_ok());
    }
}
