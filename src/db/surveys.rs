//! What a survey's owner asks of storage about surveys, by meaning.
//!
//! Each method picks its connection and its durability itself: a handler says what it
//! wants, never how long the WAL may keep it.

use super::accounts;
use super::closing;

use super::queries::{self, SurveySummary};
use super::redemptions;
use super::released::ExportPermit;
use super::responses::{self, ExportRow};
use super::Database;
use crate::domain::{
    CompletionUrl, DefinedQuestion, EmbedOrigins, InvitationHash, InvitationKey, QuestionId,
    RecordId, Refusal, ResearcherId, Slug, StoppingRule, Survey, SurveyDefinition, SurveyDetails,
    SurveyId, SurveyIntro, SurveyStatus,
};
use crate::error::AppError;

/// Everything the builder's form changes in a draft, saved in one transaction.
pub struct DraftEdits {
    pub details: SurveyDetails,
    pub requires_invitation: bool,
    /// No figure from the reports before close (docs/design.md, "Releases").
    pub results_after_close: bool,
    pub rule: StoppingRule,
    pub intro: SurveyIntro,
    pub completion_url: Option<CompletionUrl>,
    pub embed_origins: EmbedOrigins,
    /// The existing questions as edited, by id.
    pub questions: Vec<(QuestionId, DefinedQuestion)>,
    /// A question to add at the end.
    pub new_question: Option<DefinedQuestion>,
    /// Applied after the edits, so that they are not lost.
    pub rearrangement: Option<Rearrangement>,
}

/// One question deleted, or moved one place up or down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rearrangement {
    Delete(QuestionId),
    Move { question: QuestionId, up: bool },
}

impl Database {
    /// One page of an export: up to `max_responses` rows after `after` in record-id order,
    /// of the responses in the figures of a closed survey (the permit says it is closed).
    pub async fn export_page(
        &self,
        survey_id: SurveyId,
        after: Option<RecordId>,
        max_responses: u32,
        _: ExportPermit,
    ) -> Result<Vec<ExportRow>, AppError> {
        self.read(move |connection| {
            responses::export_page(connection, survey_id, after.as_ref(), max_responses)
        })
        .await
    }

    /// Stores new invitations' hashes for a survey and returns its key (made on first use),
    /// which every invitation's link pins; 409 `survey_closed` once its key is erased.
    pub async fn add_invitations(
        &self,
        survey_id: SurveyId,
        hashes: Vec<InvitationHash>,
    ) -> Result<InvitationKey, AppError> {
        self.write(move |connection| {
            // Checked in the transaction: a closed survey's key is erased, so no link made
            // now could ever be redeemed.
            let status = redemptions::survey_status(connection, survey_id)?;
            if status == SurveyStatus::Closed {
                return Err(Refusal::SurveyClosedKeyErased.into());
            }
            let key = redemptions::ensure_key(connection, survey_id)?;
            redemptions::insert_invitations(connection, survey_id, &hashes)?;
            Ok(key)
        })
        .await
    }

    /// The survey `owner` owns under `slug`; 404 for anyone else, as if it did not exist.
    pub async fn owned_survey(&self, slug: Slug, owner: ResearcherId) -> Result<Survey, AppError> {
        self.read(move |connection| {
            queries::find_owned_survey(connection, &slug, owner)?
                .ok_or(AppError::NotFound("survey"))
        })
        .await
    }

    /// Every survey of `owner`, as the survey list shows them.
    pub async fn owned_surveys(&self, owner: ResearcherId) -> Result<Vec<SurveySummary>, AppError> {
        self.read(move |connection| queries::list_owned_surveys(connection, owner))
            .await
    }

    /// A new draft of `owner` under `slug`, read back as its owner will see it.
    pub async fn create_draft(
        &self,
        owner: ResearcherId,
        slug: Slug,
        definition: SurveyDefinition,
    ) -> Result<Survey, AppError> {
        self.write(move |connection| queries::insert_draft(connection, owner, &slug, &definition))
            .await
    }

    /// Saves the builder's edits of a draft, then its rearrangement, all or nothing: a
    /// failure anywhere leaves the draft as it was.
    pub async fn save_draft(
        &self,
        slug: Slug,
        owner: ResearcherId,
        edits: DraftEdits,
    ) -> Result<(), AppError> {
        self.write(move |connection| {
            queries::update_survey_details(
                connection,
                &slug,
                owner,
                &edits.details,
                edits.requires_invitation,
                edits.results_after_close,
            )?;
            queries::update_stopping_rule(connection, &slug, owner, edits.rule)?;
            queries::update_survey_intro(connection, &slug, owner, &edits.intro)?;
            queries::update_survey_study_links(
                connection,
                &slug,
                owner,
                edits.completion_url.as_ref(),
                &edits.embed_origins,
            )?;
            for (id, question) in &edits.questions {
                queries::update_question(connection, &slug, owner, *id, question)?;
            }
            if let Some(question) = &edits.new_question {
                queries::add_question(connection, &slug, owner, question)?;
            }
            match edits.rearrangement {
                Some(Rearrangement::Delete(id)) => {
                    queries::delete_question(connection, &slug, owner, id)
                }
                Some(Rearrangement::Move { question, up }) => {
                    queries::move_question(connection, &slug, owner, question, up)
                }
                None => Ok(()),
            }
        })
        .await
    }

    /// Moves an owned survey from `from` to `to` and returns it as it now is.
    ///
    /// Closing erases the survey's private key (invitations): the WAL is truncated before
    /// this resolves, so the key is gone from every file, as after any deletion.
    pub async fn change_status(
        &self,
        slug: Slug,
        owner: ResearcherId,
        from: SurveyStatus,
        to: SurveyStatus,
    ) -> Result<Survey, AppError> {
        self.write_then_truncate_wal(move |connection| {
            closing::change_status(connection, &slug, owner, from, to)?;
            queries::find_survey(connection, &slug)?.ok_or(AppError::NotFound("survey"))
        })
        .await
    }

    /// [`Database::change_status`] for whoever can write the database itself (the command
    /// line acts for the survey's owner, whoever that is).
    pub async fn change_status_as_owner(
        &self,
        slug: Slug,
        from: SurveyStatus,
        to: SurveyStatus,
    ) -> Result<Survey, AppError> {
        self.write_then_truncate_wal(move |connection| {
            let owner =
                accounts::survey_owner(connection, &slug)?.ok_or(AppError::NotFound("survey"))?;
            closing::change_status(connection, &slug, owner, from, to)?;
            queries::find_survey(connection, &slug)?.ok_or(AppError::NotFound("survey"))
        })
        .await
    }

    /// Unblinds an open survey fixed in advance before its rule closes it, and returns it
    /// as it now is.
    pub async fn unblind(&self, slug: Slug, owner: ResearcherId) -> Result<Survey, AppError> {
        self.write(move |connection| {
            let responses = queries::unblind(connection, &slug, owner)?;
            tracing::info!(responses, "a survey fixed in advance was unblinded early");
            queries::find_survey(connection, &slug)?.ok_or(AppError::NotFound("survey"))
        })
        .await
    }

    /// Deletes an owned survey and every response to it, and returns its id.
    ///
    /// A whole compaction epoch runs before this resolves: the survey's pages are rebuilt
    /// away, not just emptied; the submission path forgets it too.
    pub async fn delete_survey(
        &self,
        slug: Slug,
        owner: ResearcherId,
    ) -> Result<SurveyId, AppError> {
        let target = slug.clone();
        let survey_id = self
            .write_then_compact(move |connection| {
                responses::delete_survey(connection, &target, owner)
            })
            .await?;
        self.forget_survey(&slug);
        self.live.forget(survey_id);
        Ok(survey_id)
    }
}
