//! Researchers' accounts: researchers, their passwords and API tokens, workspace sessions
//! and one-time sign-up links. Synchronous, parameterized, one connection argument.

use super::sql::{params, Conn, OptionalExtension};
use crate::crypto::PasswordHash;
use crate::domain::{Email, Refusal, ResearcherId, Slug, TokenHash};
use crate::error::AppError;

fn count_from_sql(count: i64) -> Result<u64, AppError> {
    u64::try_from(count).map_err(|_| AppError::internal(format!("negative count {count}")))
}

pub fn insert_researcher(
    connection: &Conn,
    email: &Email,
    password: &PasswordHash,
) -> Result<ResearcherId, AppError> {
    let id: i64 = connection
        .query_row(
            "INSERT INTO researchers (email, password_hash, password_salt) VALUES (?1, ?2, ?3)
             RETURNING id",
            params![email.as_str(), password.hash(), password.salt()],
            |row| row.get(0),
        )
        .map_err(|error| -> AppError {
            if error.is_unique_violation() {
                Refusal::ResearcherExists {
                    email: email.to_string(),
                }
                .into()
            } else {
                error.into()
            }
        })?;
    Ok(ResearcherId::from_stored(id))
}

pub fn researcher_id(connection: &Conn, email: &Email) -> Result<Option<i64>, AppError> {
    Ok(connection
        .query_row(
            "SELECT id FROM researchers WHERE email = ?1",
            [email.as_str()],
            |row| row.get(0),
        )
        .optional()?)
}

/// Who owns the survey with this slug; `None` when there is none.
pub fn survey_owner(connection: &Conn, slug: &Slug) -> Result<Option<ResearcherId>, AppError> {
    Ok(connection
        .query_row(
            "SELECT owner_id FROM surveys WHERE slug = ?1",
            [slug.as_str()],
            |row| row.get(0),
        )
        .optional()?
        .map(ResearcherId::from_stored))
}

pub fn researcher_for_token(
    connection: &Conn,
    token: &TokenHash,
) -> Result<Option<ResearcherId>, AppError> {
    Ok(connection
        .query_row(
            "SELECT researcher_id FROM api_tokens WHERE token_hash = ?1",
            [token.as_bytes()],
            |row| row.get(0).map(ResearcherId::from_stored),
        )
        .optional()?)
}

pub fn insert_token(connection: &Conn, email: &Email, token: &TokenHash) -> Result<(), AppError> {
    let inserted = connection.execute(
        "INSERT INTO api_tokens (token_hash, researcher_id)
         SELECT ?1, id FROM researchers WHERE email = ?2",
        params![token.as_bytes(), email.as_str()],
    )?;
    if inserted == 0 {
        return Err(AppError::NotFound("researcher"));
    }
    Ok(())
}

/// Whether any researcher can sign in (the demo owner, without a password, cannot).
pub fn any_researcher_can_sign_in(connection: &Conn) -> Result<bool, AppError> {
    Ok(connection.query_row(
        "SELECT EXISTS (SELECT 1 FROM researchers WHERE password_hash IS NOT NULL)",
        (),
        |row| row.get(0),
    )?)
}

/// A researcher's id and stored password hash, by e-mail; `None` for unknown addresses.
pub fn researcher_credentials(
    connection: &Conn,
    email: &Email,
) -> Result<Option<(ResearcherId, Option<PasswordHash>)>, AppError> {
    let found = connection
        .query_row(
            "SELECT id, password_salt, password_hash FROM researchers WHERE email = ?1",
            [email.as_str()],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, Option<Vec<u8>>>(1)?,
                    row.get::<_, Option<Vec<u8>>>(2)?,
                ))
            },
        )
        .optional()?;
    Ok(found.map(|(id, salt, hash)| {
        let password = salt
            .zip(hash)
            .and_then(|(salt, hash)| PasswordHash::from_stored(&salt, &hash));
        (ResearcherId::from_stored(id), password)
    }))
}

/// An account's failed sign-ins not yet forgotten.
pub struct LoginFailures {
    pub count: u64,
    /// The latest `forget_at` among them (`None` without failures).
    pub last_forget_at: Option<i64>,
}

/// Failed sign-ins of this account that are not forgotten at `now`.
pub fn recent_login_failures(
    connection: &Conn,
    researcher: ResearcherId,
    now: i64,
) -> Result<LoginFailures, AppError> {
    let (count, last_forget_at): (i64, Option<i64>) = connection.query_row(
        "SELECT count(*), max(forget_at) FROM login_failures
         WHERE researcher_id = ?1 AND forget_at > ?2",
        params![researcher.get(), now],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    Ok(LoginFailures {
        count: count_from_sql(count)?,
        last_forget_at,
    })
}

pub fn record_login_failure(
    connection: &Conn,
    researcher: ResearcherId,
    forget_at: i64,
    now: i64,
) -> Result<(), AppError> {
    connection.execute("DELETE FROM login_failures WHERE forget_at <= ?1", [now])?;
    connection.execute(
        "INSERT INTO login_failures (researcher_id, forget_at) VALUES (?1, ?2)",
        params![researcher.get(), forget_at],
    )?;
    Ok(())
}

pub fn clear_login_failures(connection: &Conn, researcher: ResearcherId) -> Result<(), AppError> {
    connection.execute(
        "DELETE FROM login_failures WHERE researcher_id = ?1",
        [researcher.get()],
    )?;
    Ok(())
}

pub fn insert_session(
    connection: &Conn,
    token: &TokenHash,
    researcher: ResearcherId,
    now: i64,
    idle_expires_at: i64,
    absolute_expires_at: i64,
) -> Result<(), AppError> {
    // Expired sessions are useless; forget them whenever someone signs in.
    connection.execute(
        "DELETE FROM sessions WHERE idle_expires_at <= ?1 OR absolute_expires_at <= ?1",
        [now],
    )?;
    connection.execute(
        "INSERT INTO sessions (token_hash, researcher_id, idle_expires_at, absolute_expires_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![
            token.as_bytes(),
            researcher.get(),
            idle_expires_at,
            absolute_expires_at
        ],
    )?;
    Ok(())
}

/// A live session: its researcher, their e-mail and when it would go idle.
pub struct LiveSession {
    pub researcher: ResearcherId,
    pub email: String,
    pub idle_expires_at: i64,
}

pub fn find_session(
    connection: &Conn,
    token: &TokenHash,
    now: i64,
) -> Result<Option<LiveSession>, AppError> {
    Ok(connection
        .query_row(
            "SELECT sessions.researcher_id, researchers.email, sessions.idle_expires_at
             FROM sessions JOIN researchers ON researchers.id = sessions.researcher_id
             WHERE sessions.token_hash = ?1
               AND sessions.idle_expires_at > ?2 AND sessions.absolute_expires_at > ?2",
            params![token.as_bytes(), now],
            |row| {
                Ok(LiveSession {
                    researcher: ResearcherId::from_stored(row.get(0)?),
                    email: row.get(1)?,
                    idle_expires_at: row.get(2)?,
                })
            },
        )
        .optional()?)
}

/// Moves a session's idle expiry on (never past its absolute expiry, which stays).
pub fn touch_session(
    connection: &Conn,
    token: &TokenHash,
    idle_expires_at: i64,
) -> Result<(), AppError> {
    connection.execute(
        "UPDATE sessions SET idle_expires_at = ?2 WHERE token_hash = ?1",
        params![token.as_bytes(), idle_expires_at],
    )?;
    Ok(())
}

pub fn delete_session(connection: &Conn, token: &TokenHash) -> Result<(), AppError> {
    connection.execute(
        "DELETE FROM sessions WHERE token_hash = ?1",
        [token.as_bytes()],
    )?;
    Ok(())
}

/// Replaces any earlier first-account link by this one.
pub fn replace_setup_link(
    connection: &Conn,
    token: &TokenHash,
    expires_at: i64,
) -> Result<(), AppError> {
    connection.rules().startup_lock(connection)?;
    connection.execute("DELETE FROM signup_links WHERE issued_by IS NULL", ())?;
    connection.execute(
        "INSERT INTO signup_links (token_hash, issued_by, expires_at) VALUES (?1, NULL, ?2)",
        params![token.as_bytes(), expires_at],
    )?;
    Ok(())
}

/// A colleague's sign-up link, made by a signed-in researcher.
pub fn insert_signup_link(
    connection: &Conn,
    token: &TokenHash,
    issued_by: ResearcherId,
    expires_at: i64,
) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO signup_links (token_hash, issued_by, expires_at) VALUES (?1, ?2, ?3)",
        params![token.as_bytes(), issued_by.get(), expires_at],
    )?;
    Ok(())
}

pub fn signup_link_is_valid(
    connection: &Conn,
    token: &TokenHash,
    now: i64,
) -> Result<bool, AppError> {
    Ok(connection.query_row(
        "SELECT EXISTS (SELECT 1 FROM signup_links WHERE token_hash = ?1 AND expires_at > ?2)",
        params![token.as_bytes(), now],
        |row| row.get(0),
    )?)
}

/// Uses up a one-time link; 404 when it is unknown, used or expired.
pub fn consume_signup_link(connection: &Conn, token: &TokenHash, now: i64) -> Result<(), AppError> {
    let deleted = connection.execute(
        "DELETE FROM signup_links WHERE token_hash = ?1 AND expires_at > ?2",
        params![token.as_bytes(), now],
    )?;
    if deleted == 1 {
        Ok(())
    } else {
        Err(AppError::NotFound("sign-up link"))
    }
}

pub fn insert_token_for(
    connection: &Conn,
    researcher: ResearcherId,
    token: &TokenHash,
) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO api_tokens (token_hash, researcher_id) VALUES (?1, ?2)",
        params![token.as_bytes(), researcher.get()],
    )?;
    Ok(())
}

/// The researcher's API tokens (their hashes), in hash order.
pub fn list_tokens(
    connection: &Conn,
    researcher: ResearcherId,
) -> Result<Vec<TokenHash>, AppError> {
    let statement = connection.prepare(
        "SELECT token_hash FROM api_tokens WHERE researcher_id = ?1 ORDER BY token_hash",
    )?;
    let hashes = statement
        .query_map([researcher.get()], |row| row.get::<_, Vec<u8>>(0))?
        .map(|row| Ok(TokenHash::from_stored(&row?)?))
        .collect::<Result<Vec<_>, AppError>>()?;
    Ok(hashes)
}

pub fn revoke_token(
    connection: &Conn,
    researcher: ResearcherId,
    token: &TokenHash,
) -> Result<(), AppError> {
    let deleted = connection.execute(
        "DELETE FROM api_tokens WHERE token_hash = ?1 AND researcher_id = ?2",
        params![token.as_bytes(), researcher.get()],
    )?;
    if deleted == 1 {
        Ok(())
    } else {
        Err(AppError::NotFound("token"))
    }
}
