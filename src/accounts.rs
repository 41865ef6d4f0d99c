//! Researchers, sign-in, sessions, one-time links, API tokens and survey creation: shared
//! by the CLI, the API, the browser pages and the tests.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

use crate::crypto::PasswordHash;
use crate::db::{queries, Database};
use crate::domain::{
    ApiToken, Email, Password, ResearcherId, SecretToken, Slug, Survey, SurveyDefinition, TokenHash,
};
use crate::error::AppError;

/// A session ends after this long without a request…
pub const SESSION_IDLE_SECONDS: i64 = 2 * 60 * 60;
/// …and in any case this long after signing in.
pub const SESSION_ABSOLUTE_SECONDS: i64 = 12 * 60 * 60;
/// The idle expiry is only moved on when it has advanced by this much (fewer writes).
pub const SESSION_TOUCH_SECONDS: i64 = 60;
/// After this many failed sign-ins within [`LOGIN_FAILURE_WINDOW_SECONDS`], refuse.
pub const MAX_LOGIN_FAILURES: u64 = 10;
pub const LOGIN_FAILURE_WINDOW_SECONDS: i64 = 60 * 60;
/// How long a one-time sign-up link (first account or invitation) stays usable.
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

pub async fn add_researcher(
    db: &Database,
    email: Email,
    password: Password,
) -> Result<(), AppError> {
    let hash = derive_password(password).await?;
    db.write(move |connection| queries::insert_researcher(connection, &email, &hash))
        .await?;
    Ok(())
}

/// Creates a new API token for a researcher; the token is returned once, only its hash kept.
pub async fn create_token(db: &Database, email: Email) -> Result<ApiToken, AppError> {
    let token = ApiToken::generate()?;
    let hash = token.hash();
    db.write(move |connection| queries::insert_token(connection, &email, &hash))
        .await?;
    Ok(token)
}

/// Creates a draft survey owned by the researcher with this e-mail.
pub async fn create_survey(
    db: &Database,
    owner: Email,
    definition: SurveyDefinition,
) -> Result<Survey, AppError> {
    let slug = Slug::generate(definition.title())?;
    db.write(move |connection| {
        let owner_id = queries::researcher_id(connection, &owner)?
            .map(ResearcherId::from_stored)
            .ok_or(AppError::NotFound("researcher"))?;
        queries::insert_draft(connection, owner_id, &slug, &definition)
    })
    .await
}

/// When nobody can sign in yet, a fresh one-time link (replacing any earlier one) that
/// creates the first account; `None` once an account exists.
pub async fn prepare_setup_link(db: &Database) -> Result<Option<SecretToken>, AppError> {
    let token = SecretToken::generate()?;
    let hash = token.hash();
    let expires_at = now_unix() + SIGNUP_LINK_SECONDS;
    let created = db
        .write(move |connection| {
            if queries::any_researcher_can_sign_in(connection)? {
                return Ok(false);
            }
            queries::replace_setup_link(connection, &hash, expires_at)?;
            Ok(true)
        })
        .await?;
    Ok(created.then_some(token))
}

/// A one-time link for a colleague to create their own account.
pub async fn create_invitation(
    db: &Database,
    invited_by: ResearcherId,
) -> Result<SecretToken, AppError> {
    let token = SecretToken::generate()?;
    let hash = token.hash();
    let expires_at = now_unix() + SIGNUP_LINK_SECONDS;
    db.write(move |connection| {
        queries::insert_invitation(connection, &hash, invited_by, expires_at)
    })
    .await?;
    Ok(token)
}

pub async fn signup_link_is_valid(db: &Database, link: &SecretToken) -> Result<bool, AppError> {
    let hash = link.hash();
    let now = now_unix();
    db.read(move |connection| queries::signup_link_is_valid(connection, &hash, now))
        .await
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
    let session_hash = session.hash();
    let (link_hash, session_secret) = (link.hash(), session);
    db.write(move |connection| {
        queries::consume_signup_link(connection, &link_hash, now)?;
        let researcher = queries::insert_researcher(connection, &email, &hash)?;
        start_session(connection, &session_hash, researcher, now)
    })
    .await?;
    Ok(session_secret)
}

fn wrong_credentials() -> AppError {
    AppError::invalid(
        "wrong_credentials",
        "the e-mail address or the password is wrong",
    )
}

/// Checks a password and starts a session. After [`MAX_LOGIN_FAILURES`] failures within
/// an hour the account refuses every attempt, right or wrong, until the hour has passed.
pub async fn sign_in(
    db: &Database,
    email: Email,
    password: String,
) -> Result<SecretToken, AppError> {
    let now = now_unix();
    let lookup = email.clone();
    let found = db
        .read(move |connection| {
            let Some((researcher, hash)) = queries::researcher_credentials(connection, &lookup)?
            else {
                return Ok(None);
            };
            let failures = queries::recent_login_failures(connection, researcher, now)?;
            Ok(Some((researcher, hash, failures)))
        })
        .await?;
    let Some((researcher, stored, failures)) = found else {
        // Spend the same time as a real check, so timing does not reveal who has an account.
        let _ = derive_password(Password::parse("x".repeat(16))?).await?;
        return Err(wrong_credentials());
    };
    if failures >= MAX_LOGIN_FAILURES {
        return Err(AppError::TooManyRequests {
            code: "too_many_failed_sign_ins",
            message: format!(
                "this account had {MAX_LOGIN_FAILURES} failed sign-ins within the last hour, so \
                 sign-in is refused for now; try again in an hour"
            ),
            retry_after_secs: None,
        });
    }
    let verified = match stored {
        Some(stored) => tokio::task::spawn_blocking(move || stored.verify(&password))
            .await
            .map_err(AppError::internal)?,
        None => false, // the demo owner can never sign in
    };
    if !verified {
        db.write(move |connection| {
            queries::record_login_failure(
                connection,
                researcher,
                now + LOGIN_FAILURE_WINDOW_SECONDS,
                now,
            )
        })
        .await?;
        return Err(wrong_credentials());
    }
    let session = SecretToken::generate()?;
    let session_hash = session.hash();
    db.write(move |connection| {
        queries::clear_login_failures(connection, researcher)?;
        start_session(connection, &session_hash, researcher, now)
    })
    .await?;
    Ok(session)
}

/// Stores a new session that ends after the idle or the absolute limit, whichever is first.
fn start_session(
    connection: &Connection,
    session: &TokenHash,
    researcher: ResearcherId,
    now: i64,
) -> Result<(), AppError> {
    queries::insert_session(
        connection,
        session,
        researcher,
        now,
        now + SESSION_IDLE_SECONDS,
        now + SESSION_ABSOLUTE_SECONDS,
    )
}
