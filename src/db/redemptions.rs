//! Blind invitation tokens at rest (migrations/sqlite/0005_blind_tokens.sql): each
//! survey's key pair, the used invitations with the evaluation they were answered, and the
//! spent tokens. Nothing here names a response, and no table orders its rows by arrival
//! once a compaction epoch has run (every key is a hash).

use super::sql::{params, Conn, OptionalExtension};

use crate::domain::{
    invitation_unusable, invitation_used, Blinded, Evaluation, InvitationHash, InvitationKey,
    Redemption, Refusal, SpentToken, SurveyId, SurveyKey, SurveyStatus,
};
use crate::error::AppError;

/// The survey's public key, drawing its key pair first if it has none (invitations are
/// being enabled). Runs in the caller's transaction.
pub fn ensure_key(connection: &Conn, survey_id: SurveyId) -> Result<InvitationKey, AppError> {
    if let Some(key) = public_key(connection, survey_id)? {
        return Ok(key);
    }
    let key = SurveyKey::generate()?;
    let public = key.public_key();
    connection.execute(
        "INSERT INTO invitation_keys (survey_id, public_key, private_key) VALUES (?1, ?2, ?3)",
        params![
            survey_id.get(),
            public.to_bytes().as_slice(),
            key.to_stored().as_slice()
        ],
    )?;
    Ok(public)
}

thread_local! {
    /// Whether this thread's connection erased a private key since it last asked: SQLite's
    /// writer then truncates the WAL before it answers or ends its tick.
    static ERASED_A_KEY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Erases the private key of a survey that closes: nothing can be redeemed or spent any
/// more. (`secure_delete` overwrites the old bytes in the database file once the WAL is
/// checkpointed; on SQLite the writer truncates the WAL before it answers the job or ends
/// the timer's tick that closed the survey, whichever way it closed:
/// [`take_erased_key`].) Only the close step calls it ([`super::closing::close_survey`]).
pub(super) fn erase_private_key(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    let erased = connection
        .prepare_cached(
            "UPDATE invitation_keys SET private_key = NULL
             WHERE survey_id = ?1 AND private_key IS NOT NULL",
        )?
        .execute([survey_id.get()])?;
    if erased > 0 {
        ERASED_A_KEY.with(|flag| flag.set(true));
    }
    Ok(())
}

/// Whether a private key was erased on this thread since the last call (a rolled-back
/// erasure counts too: one truncation too many is harmless).
pub(crate) fn take_erased_key() -> bool {
    ERASED_A_KEY.with(std::cell::Cell::take)
}

pub fn public_key(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<Option<InvitationKey>, AppError> {
    let bytes: Option<Vec<u8>> = connection
        .prepare_cached("SELECT public_key FROM invitation_keys WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?;
    Ok(bytes
        .as_deref()
        .map(InvitationKey::from_stored)
        .transpose()?)
}

/// The private key, while the survey can collect.
pub fn private_key(connection: &Conn, survey_id: SurveyId) -> Result<Option<SurveyKey>, AppError> {
    let bytes: Option<Option<Vec<u8>>> = connection
        .prepare_cached("SELECT private_key FROM invitation_keys WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?;
    Ok(bytes
        .flatten()
        .as_deref()
        .map(SurveyKey::from_stored)
        .transpose()?)
}

/// What a redemption's first, read-only step found.
#[derive(Debug)]
pub enum Prepared {
    /// The invitation was redeemed before with this blinded element: its stored answer.
    Stored(Evaluation),
    /// The invitation is unused: a fresh evaluation, to be stored by [`redeem`].
    Fresh(Evaluation),
}

fn survey_not_open() -> AppError {
    Refusal::RedemptionSurveyNotOpen.into()
}

fn stored_redemption(
    connection: &Conn,
    survey_id: SurveyId,
    redemption: &Redemption,
) -> Result<Option<(Blinded, Evaluation)>, AppError> {
    let found: Option<(Vec<u8>, Vec<u8>, Vec<u8>)> = connection
        .prepare_cached(
            "SELECT blinded, evaluation, proof FROM redemptions
             WHERE survey_id = ?1 AND code_hash = ?2",
        )?
        .query_row(
            params![survey_id.get(), redemption.invitation.as_bytes()],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    found
        .map(|(blinded, evaluation, proof)| {
            Ok((
                Blinded::from_stored(&blinded)?,
                Evaluation::from_stored(&evaluation, &proof)?,
            ))
        })
        .transpose()
}

/// The answer to a used invitation: its stored evaluation for the same blinded element,
/// 409 for another one, 403 when it was never an invitation of this survey.
fn answer_for_used(
    connection: &Conn,
    survey_id: SurveyId,
    redemption: &Redemption,
) -> Result<Evaluation, AppError> {
    match stored_redemption(connection, survey_id, redemption)? {
        Some((blinded, evaluation)) if blinded == redemption.blinded => Ok(evaluation),
        Some(_) => Err(invitation_used().into()),
        None => Err(invitation_unusable().into()),
    }
}

/// The read-only step of a redemption, on a reader (a blocking thread): a stored answer,
/// or the evaluation of an unused invitation, so that the writer does no group arithmetic.
/// Unknown invitations cost no evaluation.
pub fn prepare(
    connection: &Conn,
    survey_id: SurveyId,
    redemption: &Redemption,
) -> Result<Prepared, AppError> {
    let unused = connection
        .prepare_cached("SELECT 1 FROM invitations WHERE code_hash = ?1 AND survey_id = ?2")?
        .exists(params![redemption.invitation.as_bytes(), survey_id.get()])?;
    if !unused {
        return answer_for_used(connection, survey_id, redemption).map(Prepared::Stored);
    }
    let key = private_key(connection, survey_id)?.ok_or_else(survey_not_open)?;
    Ok(Prepared::Fresh(key.evaluate(&redemption.blinded)?))
}

/// The writing step: uses the invitation up and keeps `evaluation` with it, in one
/// transaction with the status check. Of concurrent redemptions of one invitation the
/// single writer lets exactly one delete it; the others get its stored answer (the same
/// blinded element) or a 409.
pub fn redeem(
    connection: &Conn,
    survey_id: SurveyId,
    redemption: &Redemption,
    evaluation: &Evaluation,
) -> Result<Evaluation, AppError> {
    if survey_status(connection, survey_id)? != SurveyStatus::Open {
        return Err(survey_not_open());
    }
    let consumed = connection
        .prepare_cached("DELETE FROM invitations WHERE code_hash = ?1 AND survey_id = ?2")?
        .execute(params![redemption.invitation.as_bytes(), survey_id.get()])?;
    if consumed != 1 {
        return answer_for_used(connection, survey_id, redemption);
    }
    connection
        .prepare_cached(
            "INSERT INTO redemptions (survey_id, code_hash, blinded, evaluation, proof)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            survey_id.get(),
            redemption.invitation.as_bytes(),
            redemption.blinded.as_bytes(),
            evaluation.evaluation.as_slice(),
            evaluation.proof.as_slice()
        ])?;
    // A consideration of releases may have waited for this redemption.
    super::releases::record_redemption(connection, survey_id)?;
    Ok(*evaluation)
}

pub fn survey_status(connection: &Conn, survey_id: SurveyId) -> Result<SurveyStatus, AppError> {
    let status: String = connection
        .prepare_cached("SELECT status FROM surveys WHERE id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    Ok(SurveyStatus::from_stored(&status)?)
}

/// Records a token as spent, in the transaction that stores its response; 409 when it was
/// spent before.
pub fn spend(connection: &Conn, survey_id: SurveyId, token: &SpentToken) -> Result<(), AppError> {
    let inserted = connection
        .prepare_cached(
            "INSERT INTO spent_tokens (survey_id, input_hash) VALUES (?1, ?2)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![survey_id.get(), token.as_bytes()])?;
    if inserted == 1 {
        Ok(())
    } else {
        Err(Refusal::TokenSpent.into())
    }
}

/// How many of a survey's invitations have been redeemed, and how many are still unused.
pub fn invitation_counts(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<InvitationCounts, AppError> {
    let count = |sql: &str| -> Result<u64, AppError> {
        let n: i64 = connection
            .prepare_cached(sql)?
            .query_row([survey_id.get()], |row| row.get(0))?;
        u64::try_from(n).map_err(|_| AppError::internal("a negative count"))
    };
    Ok(InvitationCounts {
        redeemed: count("SELECT count(*) FROM redemptions WHERE survey_id = ?1")?,
        unused: count("SELECT count(*) FROM invitations WHERE survey_id = ?1")?,
    })
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InvitationCounts {
    pub redeemed: u64,
    pub unused: u64,
}

/// Stores the hashes of new single-use invitations of a survey (never the codes).
pub fn insert_invitations(
    connection: &Conn,
    survey_id: SurveyId,
    invitations: &[InvitationHash],
) -> Result<(), AppError> {
    let insert = connection
        .prepare_cached("INSERT INTO invitations (code_hash, survey_id) VALUES (?1, ?2)")?;
    for invitation in invitations {
        insert.execute(params![invitation.as_bytes(), survey_id.get()])?;
    }
    Ok(())
}
