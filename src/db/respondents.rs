//! What the respondent's side asks of storage, by meaning (docs/design.md, "Storage").
//!
//! Each method picks its own connection and durability: reads go to a reader (a blocking
//! thread, where the group arithmetic of tokens happens too), writes to the writer.
//! Handlers never choose.

use std::sync::Arc;

use super::redemptions::{self, Prepared};
use super::responses::TokenCheck;
use super::Database;
use crate::domain::{
    token_invalid, Evaluation, InvitationKey, Redemption, Submission, Survey, SurveyId,
};
use crate::error::AppError;

impl Database {
    /// The public key devices check their evaluations against, once the survey has one
    /// (it requires invitations).
    pub async fn public_invitation_key(
        &self,
        survey_id: SurveyId,
    ) -> Result<Option<InvitationKey>, AppError> {
        self.read(move |connection| redemptions::public_key(connection, survey_id))
            .await
    }

    /// Whether the survey's key issued the submission's token: checked on a reader before
    /// the write, so that the writer does no group arithmetic. A token the key did not
    /// issue is refused here.
    pub async fn check_token(
        &self,
        survey: &Survey,
        submission: &Submission,
    ) -> Result<TokenCheck, AppError> {
        let Some(token) = submission.token().cloned() else {
            return Ok(TokenCheck::NotRequired);
        };
        let survey_id = survey.id;
        self.read(
            move |connection| match redemptions::private_key(connection, survey_id)? {
                None => Ok(TokenCheck::NoKey),
                Some(key) if key.issued(&token) => Ok(TokenCheck::Issued(token.spent())),
                Some(_) => Err(token_invalid()),
            },
        )
        .await
    }

    /// Exchanges an invitation for the evaluation of its blinded element, answered only
    /// after COMMIT. The evaluation is computed on a reader; the writer only uses the
    /// invitation up, so that a retry with the same element gets the stored bytes back.
    pub async fn redeem_invitation(
        &self,
        survey_id: SurveyId,
        redemption: Redemption,
    ) -> Result<Evaluation, AppError> {
        let redemption = Arc::new(redemption);
        let read = Arc::clone(&redemption);
        let prepared = self
            .read(move |connection| redemptions::prepare(connection, survey_id, &read))
            .await?;
        match prepared {
            Prepared::Stored(evaluation) => Ok(evaluation),
            Prepared::Fresh(evaluation) => {
                self.write(move |connection| {
                    redemptions::redeem(connection, survey_id, &redemption, &evaluation)
                })
                .await
            }
        }
    }
}
