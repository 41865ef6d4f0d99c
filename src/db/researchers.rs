//! What accounts, sessions and tokens ask of storage, by meaning.

use super::accounts::{self, LiveSession, LoginFailures};
use super::{queries, Database};
use crate::crypto::PasswordHash;
use crate::domain::{Email, ResearcherId, TokenHash};
use crate::error::AppError;

/// A session to store: its token's hash, whose it is, and when it ends (idle, absolute).
pub struct NewSession {
    pub token: TokenHash,
    pub started_at: i64,
    pub idle_expires_at: i64,
    pub absolute_expires_at: i64,
}

impl NewSession {
    fn store(
        &self,
        connection: &super::sql::Conn,
        researcher: ResearcherId,
    ) -> Result<(), AppError> {
        accounts::insert_session(
            connection,
            &self.token,
            researcher,
            self.started_at,
            self.idle_expires_at,
            self.absolute_expires_at,
        )
    }
}

impl Database {
    /// The session of this cookie's token, if it is live at `now`.
    pub async fn session(
        &self,
        token: TokenHash,
        now: i64,
    ) -> Result<Option<LiveSession>, AppError> {
        self.read(move |connection| accounts::find_session(connection, &token, now))
            .await
    }

    /// Moves a session's idle expiry on (never past its absolute expiry).
    pub async fn touch_session(
        &self,
        token: TokenHash,
        idle_expires_at: i64,
    ) -> Result<(), AppError> {
        self.write(move |connection| accounts::touch_session(connection, &token, idle_expires_at))
            .await
    }

    /// Ends a session (signing out): its token no longer opens anything.
    pub async fn end_session(&self, token: TokenHash) -> Result<(), AppError> {
        self.write(move |connection| accounts::delete_session(connection, &token))
            .await
    }

    /// The researcher an API token belongs to, if it is one of theirs.
    pub async fn researcher_for_token(
        &self,
        token: TokenHash,
    ) -> Result<Option<ResearcherId>, AppError> {
        self.read(move |connection| accounts::researcher_for_token(connection, &token))
            .await
    }

    /// The hashes of a researcher's API tokens, in hash order (the tokens themselves are
    /// never stored).
    pub async fn api_tokens(&self, researcher: ResearcherId) -> Result<Vec<TokenHash>, AppError> {
        self.read(move |connection| accounts::list_tokens(connection, researcher))
            .await
    }

    /// Stores a new API token's hash for a researcher.
    pub async fn add_api_token(
        &self,
        researcher: ResearcherId,
        token: TokenHash,
    ) -> Result<(), AppError> {
        self.write(move |connection| accounts::insert_token_for(connection, researcher, &token))
            .await
    }

    /// Revokes one of a researcher's API tokens: 404 when it is not one of theirs.
    pub async fn revoke_api_token(
        &self,
        researcher: ResearcherId,
        token: TokenHash,
    ) -> Result<(), AppError> {
        self.write(move |connection| accounts::revoke_token(connection, researcher, &token))
            .await
    }

    /// The researcher with this e-mail, if there is one.
    pub async fn researcher_by_email(
        &self,
        email: Email,
    ) -> Result<Option<ResearcherId>, AppError> {
        self.read(move |connection| {
            Ok(accounts::researcher_id(connection, &email)?.map(ResearcherId::from_stored))
        })
        .await
    }

    /// Adds a researcher with a password; the first account adopts the demo survey.
    pub async fn add_researcher(
        &self,
        email: Email,
        password: PasswordHash,
    ) -> Result<(), AppError> {
        self.write(move |connection| {
            accounts::insert_researcher(connection, &email, &password)?;
            // The first account adopts the demo survey (nothing happens for later ones).
            queries::adopt_demo_survey(connection)
        })
        .await?;
        Ok(())
    }

    /// Stores a new API token's hash for the researcher with this e-mail: 404 without one.
    pub async fn add_api_token_by_email(
        &self,
        email: Email,
        token: TokenHash,
    ) -> Result<(), AppError> {
        self.write(move |connection| accounts::insert_token(connection, &email, &token))
            .await
    }

    /// While nobody can sign in, stores the one setup link (replacing any earlier one) and
    /// answers true; once an account can sign in, stores nothing and answers false.
    pub async fn replace_setup_link_while_nobody_signs_in(
        &self,
        link: TokenHash,
        expires_at: i64,
    ) -> Result<bool, AppError> {
        self.write(move |connection| {
            if accounts::any_researcher_can_sign_in(connection)? {
                return Ok(false);
            }
            accounts::replace_setup_link(connection, &link, expires_at)?;
            Ok(true)
        })
        .await
    }

    /// Stores a colleague's one-time sign-up link, issued by a researcher.
    pub async fn add_signup_link(
        &self,
        link: TokenHash,
        issued_by: ResearcherId,
        expires_at: i64,
    ) -> Result<(), AppError> {
        self.write(move |connection| {
            accounts::insert_signup_link(connection, &link, issued_by, expires_at)
        })
        .await
    }

    /// Whether a sign-up link is stored and unexpired at `now`.
    pub async fn signup_link_is_valid(&self, link: TokenHash, now: i64) -> Result<bool, AppError> {
        self.read(move |connection| accounts::signup_link_is_valid(connection, &link, now))
            .await
    }

    /// Uses up a sign-up link to create an account (the first adopts the demo survey) and
    /// its first session, in one transaction: 404 when the link is used or expired.
    pub async fn sign_up(
        &self,
        link: TokenHash,
        email: Email,
        password: PasswordHash,
        session: NewSession,
    ) -> Result<(), AppError> {
        self.write(move |connection| {
            accounts::consume_signup_link(connection, &link, session.started_at)?;
            let researcher = accounts::insert_researcher(connection, &email, &password)?;
            queries::adopt_demo_survey(connection)?;
            session.store(connection, researcher)
        })
        .await
    }

    /// The researcher with this e-mail and their password (`None` for the demo owner, who
    /// can never sign in).
    pub async fn researcher_credentials(
        &self,
        email: Email,
    ) -> Result<Option<(ResearcherId, Option<PasswordHash>)>, AppError> {
        self.read(move |connection| accounts::researcher_credentials(connection, &email))
            .await
    }

    /// Counts a sign-in attempt as a failure until it proves right, in one transaction with
    /// the check of the wait: `wait` turns the account's recent failures into the seconds it
    /// must still wait; a positive wait records nothing. Parallel guesses cannot all slip in
    /// before their failures are written.
    pub async fn begin_sign_in_attempt(
        &self,
        researcher: ResearcherId,
        now: i64,
        forget_at: i64,
        wait: fn(&LoginFailures, i64) -> i64,
    ) -> Result<i64, AppError> {
        self.write(move |connection| {
            let failures = accounts::recent_login_failures(connection, researcher, now)?;
            let wait_seconds = wait(&failures, now);
            if wait_seconds == 0 {
                accounts::record_login_failure(connection, researcher, forget_at, now)?;
            }
            Ok(wait_seconds)
        })
        .await
    }

    /// A right password: the account's failures are forgotten and its session starts.
    pub async fn start_session(
        &self,
        researcher: ResearcherId,
        session: NewSession,
    ) -> Result<(), AppError> {
        self.write(move |connection| {
            accounts::clear_login_failures(connection, researcher)?;
            session.store(connection, researcher)
        })
        .await
    }
}
