//! What the respondent's side asks of storage, by meaning (docs/design.md, "Storage").
//!
//! Each method picks its own connection and durability: reads go to a reader (a blocking
//! thread, where the group arithmetic of tokens happens too), writes to the writer, and a
//! withdrawal truncates the WAL before it answers. Handlers never choose.

use std::sync::Arc;

use super::redemptions::{self, Prepared};
use super::responses::{self, Stored, StoredAnswers, TokenCheck};
use super::{queries, Database};
use crate::domain::{
    token_invalid, Evaluation, InvitationKey, Receipt, RecordId, Redemption, ResponseId, Slug,
    Submission, Survey, SurveyId, SurveyStatus,
};
use crate::error::AppError;

impl Database {
    /// A survey as respondents may see it: `None` for a draft as for an unknown slug, since
    /// drafts are nobody's business but their owner's.
    pub async fn find_survey_for_respondents(
        &self,
        slug: Slug,
    ) -> Result<Option<Survey>, AppError> {
        let survey = self.find_survey(slug).await?;
        Ok(survey.filter(|survey| survey.status != SurveyStatus::Draft))
    }

    /// A survey by its slug, whatever its status (the operator's command line).
    pub async fn find_survey(&self, slug: Slug) -> Result<Option<Survey>, AppError> {
        self.read(move |connection| queries::find_survey(connection, &slug))
            .await
    }

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
                Some(_) => Err(token_invalid().into()),
            },
        )
        .await
    }

    /// Stores a submission under `response_id`, spending its checked token; resolves after
    /// COMMIT. Only the record id and the withdrawal tag of the id reach the database.
    pub async fn store_response(
        &self,
        survey: &Survey,
        response_id: &ResponseId,
        submission: Submission,
        token: TokenCheck,
    ) -> Result<Stored, AppError> {
        let record_id = response_id.record_id();
        let tag = self.withdrawal_key().tag(response_id);
        let survey_id = survey.id;
        self.write(move |connection| {
            responses::store_response(connection, survey_id, &record_id, &tag, &submission, token)
        })
        .await
    }

    /// Everything stored of one response (its reports and grouping answers), or `None`:
    /// withdrawn, never sent, or not a response of this survey.
    pub async fn look_up_response(
        &self,
        slug: Slug,
        record_id: RecordId,
    ) -> Result<Option<StoredAnswers>, AppError> {
        self.read(move |connection| responses::find_response(connection, &slug, &record_id))
            .await
    }

    /// Withdraws what a receipt names, and truncates the WAL before resolving: once
    /// answered, the reports survive in no file of the database.
    pub async fn withdraw_response(&self, slug: Slug, receipt: &Receipt) -> Result<(), AppError> {
        let response_id = receipt.response_id();
        let (record_id, tag) = (
            response_id.record_id(),
            self.withdrawal_key().tag(&response_id),
        );
        self.write_then_truncate_wal(move |connection| {
            responses::withdraw_response(connection, &slug, &record_id, &tag)
        })
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
