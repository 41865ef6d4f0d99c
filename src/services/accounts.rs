//! Researchers, sign-in, sessions, one-time links and API tokens: shared
//! by the CLI, the API, the browser pages and the tests.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::crypto::PasswordHash;
use crate::db::{Database, LoginFailures, NewSession};
use crate::domain::{ApiToken, Email, Password, ResearcherId, SecretToken};
use crate::error::AppError;

/// A session ends after this long without a request…
pub const SESSION_IDLE_SECONDS: i64 = 2 * 60 * 60;
/// …and in any case this long after signing in.
pub const SESSION_ABSOLUTE_SECONDS: i64 = 12 * 60 * 60;
/// The idle expiry is only moved on when it has advanced by this much (fewer writes).
pub const SESSION_TOUCH_SECONDS: i64 = 60;
/// An account's failed sign-ins count for the slow-down this long (no address is stored).
pub const LOGIN_FAILURE_WINDOW_SECONDS: i64 = 60 * 60;
/// This many failures within the window cost no wait: typos are free.
pub const FREE_LOGIN_FAILURES: u64 = 5;
/// The longest wait between attempts, however many failures: the owner is never locked out
/// for longer than this.
pub const MAX_LOGIN_DELAY_SECONDS: i64 = 15 * 60;
/// How long a one-time sign-up link (the first account's or a colleague's) stays usable.
pub const SIGNUP_LINK_SECONDS: i64 = 7 * 24 * 60 * 60;

/// Unix seconds now; only ever used for researchers' sessions and links.
pub fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

async fn derive_password(password: Password) -> Result<PasswordHash, AppError> {
    // PBKDF2 is deliberately slow: derive it off the async executor and the writer.
    tokio::task::spawn_blocking(move || PasswordHash::derive(password.expose()))
        .await
        .map_err(AppError::internal)?
}

/// Adds a researcher with a password (`deniable researcher add`); the first account adopts
/// the demo survey.
pub async fn add_researcher(
    db: &Database,
    email: Email,
    password: Password,
) -> Result<(), AppError> {
    let hash = derive_password(password).await?;
    db.add_researcher(email, hash).await
}

/// Creates a new API token for a researcher; the token is returned once, only its hash kept.
pub async fn create_token(db: &Database, email: Email) -> Result<ApiToken, AppError> {
    let token = ApiToken::generate()?;
    db.add_api_token_by_email(email, token.hash()).await?;
    Ok(token)
}

/// When nobody can sign in yet, a fresh one-time link (replacing any earlier one) that
/// creates the first account; `None` once an account exists.
pub async fn prepare_setup_link(db: &Database) -> Result<Option<SecretToken>, AppError> {
    let token = SecretToken::generate()?;
    let expires_at = now_unix() + SIGNUP_LINK_SECONDS;
    let created = db
        .replace_setup_link_while_nobody_signs_in(token.hash(), expires_at)
        .await?;
    Ok(created.then_some(token))
}

/// A one-time sign-up link with which a colleague creates their own account.
pub async fn create_signup_link(
    db: &Database,
    issued_by: ResearcherId,
) -> Result<SecretToken, AppError> {
    let token = SecretToken::generate()?;
    let expires_at = now_unix() + SIGNUP_LINK_SECONDS;
    db.add_signup_link(token.hash(), issued_by, expires_at)
        .await?;
    Ok(token)
}

pub async fn signup_link_is_valid(db: &Database, link: &SecretToken) -> Result<bool, AppError> {
    db.signup_link_is_valid(link.hash(), now_unix()).await
}

/// Uses up a one-time link to create an account, and signs it in: the new session.
pub async fn sign_up(
    db: &Database,
    link: SecretToken,
    email: Email,
    password: Password,
) -> Result<SecretToken, AppError> {
    let now = now_unix();
    if !signup_link_is_valid(db, &link).await? {
        return Err(AppError::NotFound("sign-up link"));
    }
    let hash = derive_password(password).await?;
    let session = SecretToken::generate()?;
    db.sign_up(link.hash(), email, hash, new_session(&session, now))
        .await?;
    Ok(session)
}

/// How long after the last failure the next attempt must wait, after `failures` failures
/// within the window: nothing for the first [`FREE_LOGIN_FAILURES`], then 1 s, doubling
/// with each failure, at most [`MAX_LOGIN_DELAY_SECONDS`]:
/// `min(2^(failures - 5), 900)` s, so 1, 2, 4, … 512, then 900.
///
/// A guesser on one account gets 5 tries, then 10 more in the next 17 minutes (1 + 2 + … +
/// 512 s), then one per 15 minutes; at the steady state about 13 an hour (k tries an hour
/// need k · 2^(k-5) ≤ 3 600 s), as the per-address limit also applies.
pub fn login_delay_seconds(failures: u64) -> i64 {
    match failures.checked_sub(FREE_LOGIN_FAILURES) {
        None => 0,
        Some(doublings) if doublings < 10 => (1_i64 << doublings).min(MAX_LOGIN_DELAY_SECONDS),
        Some(_) => MAX_LOGIN_DELAY_SECONDS,
    }
}

/// Seconds until this account may try again (0: now). Times are whole seconds, so the
/// last failure counts from the end of its second: the wait is never shorter than stated.
fn login_wait_seconds(failures: &LoginFailures, now: i64) -> i64 {
    let delay = login_delay_seconds(failures.count);
    let Some(last_forget_at) = failures.last_forget_at.filter(|_| delay > 0) else {
        return 0;
    };
    let last_failure_at = last_forget_at - LOGIN_FAILURE_WINDOW_SECONDS;
    let may_try_at = last_failure_at + 1 + delay;
    (may_try_at - now).max(0)
}

fn wait_in_words(seconds: i64) -> String {
    match seconds {
        1 => "1 second".to_owned(),
        2..60 => format!("{seconds} seconds"),
        _ => format!("{} minutes", (seconds + 59) / 60),
    }
}

fn sign_in_slowed_down(wait_seconds: i64) -> AppError {
    AppError::TooManyRequests {
        code: "sign_in_slowed_down",
        message: format!(
            "there were several wrong passwords for this account recently, so sign-in waits \
             between attempts: try again in {}. Each further wrong password doubles the \
             wait, up to 15 minutes.",
            wait_in_words(wait_seconds)
        ),
        retry_after_secs: Some(wait_seconds.unsigned_abs()),
    }
}

fn wrong_credentials() -> AppError {
    AppError::invalid(
        "wrong_credentials",
        "the e-mail address or the password is wrong",
    )
}

/// Checks a password and starts a session. After failures the account slows down
/// ([`login_delay_seconds`]): an attempt before its time is refused (429) without looking
/// at the password, so the refusal says nothing about it.
pub async fn sign_in(
    db: &Database,
    email: Email,
    password: String,
) -> Result<SecretToken, AppError> {
    let now = now_unix();
    let found = db.researcher_credentials(email).await?;
    let Some((researcher, stored)) = found else {
        // Spend the same time as a real check, so timing does not reveal who has an account.
        let _ = derive_password(Password::parse("x".repeat(16))?).await?;
        return Err(wrong_credentials());
    };
    // The attempt counts as a failure from before the password is checked until it proves
    // right, in one transaction with the check of the wait: parallel guesses cannot all
    // slip in before their failures are written.
    let wait_seconds = db
        .begin_sign_in_attempt(
            researcher,
            now,
            now + LOGIN_FAILURE_WINDOW_SECONDS,
            login_wait_seconds,
        )
        .await?;
    if wait_seconds > 0 {
        return Err(sign_in_slowed_down(wait_seconds));
    }
    let verified = match stored {
        Some(stored) => tokio::task::spawn_blocking(move || stored.verify(&password))
            .await
            .map_err(AppError::internal)?,
        None => false, // the demo owner can never sign in
    };
    if !verified {
        return Err(wrong_credentials());
    }
    let session = SecretToken::generate()?;
    db.start_session(researcher, new_session(&session, now))
        .await?;
    Ok(session)
}

/// A new session that ends after the idle or the absolute limit, whichever is first.
fn new_session(session: &SecretToken, now: i64) -> NewSession {
    NewSession {
        token: session.hash(),
        started_at: now,
        idle_expires_at: now + SESSION_IDLE_SECONDS,
        absolute_expires_at: now + SESSION_ABSOLUTE_SECONDS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_are_free_then_the_wait_doubles_from_one_second_up_to_fifteen_minutes() {
        let waits: Vec<i64> = (0..=16).map(login_delay_seconds).collect();
        assert_eq!(
            waits,
            [0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]
        );
        assert_eq!(login_delay_seconds(u64::MAX), MAX_LOGIN_DELAY_SECONDS);
    }

    #[test]
    fn the_wait_counts_from_the_end_of_the_last_failures_second() {
        let failed_at = 1_000_000;
        let failures = |count| LoginFailures {
            count,
            last_forget_at: Some(failed_at + LOGIN_FAILURE_WINDOW_SECONDS),
        };
        assert_eq!(login_wait_seconds(&failures(4), failed_at), 0);
        assert_eq!(login_wait_seconds(&failures(5), failed_at), 2);
        assert_eq!(login_wait_seconds(&failures(5), failed_at + 1), 1);
        assert_eq!(login_wait_seconds(&failures(5), failed_at + 2), 0);
        assert_eq!(login_wait_seconds(&failures(20), failed_at), 901);
        let none = LoginFailures {
            count: 0,
            last_forget_at: None,
        };
        assert_eq!(login_wait_seconds(&none, failed_at), 0);
    }
}
