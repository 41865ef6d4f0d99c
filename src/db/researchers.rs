//! What accounts, sessions and tokens ask of storage, by meaning.

use super::accounts::{self, LiveSession};
use super::Database;
use crate::domain::{Email, ResearcherId, TokenHash};
use crate::error::AppError;

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
}
