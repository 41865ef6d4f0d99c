//! What the owner of a survey that requires invitations sees (issue 20): its results,
//! exports and invitation status, all as of the last release of at least `min_cell` new
//! redemptions and `min_cell` new responses (`crate::live`), so that watching them cannot
//! match one redemption to one response.

use crate::db::queries::QuestionCounts;
use crate::db::{redemptions, Database};
use crate::domain::Survey;
use crate::error::AppError;
use crate::live::Releases;

/// The counts the owner's views show: the current ones, or for a survey that requires
/// invitations, the released ones.
pub(super) async fn visible_counts(
    db: &Database,
    releases: &Releases,
    survey: &Survey,
    tallies: Vec<QuestionCounts>,
) -> Result<Vec<QuestionCounts>, AppError> {
    if !survey.requires_invitation {
        return Ok(tallies);
    }
    Ok(releases.with_invitations(db, survey, &tallies).await?.0)
}

/// The workspace's invitation box: the one key fingerprint of every link, and the
/// invitations redeemed as of the last release.
pub struct InvitationStatus {
    pub fingerprint: Option<String>,
    pub redeemed: u64,
}

pub(super) async fn invitation_status(
    db: &Database,
    releases: &Releases,
    survey: &Survey,
) -> Result<Option<InvitationStatus>, AppError> {
    if !survey.requires_invitation {
        return Ok(None);
    }
    let survey_id = survey.id;
    let (key, tallies) = db
        .read(move |connection| {
            Ok((
                redemptions::public_key(connection, survey_id)?,
                crate::db::queries::survey_report_counts(connection, survey_id)?,
            ))
        })
        .await?;
    let (_, release) = releases.with_invitations(db, survey, &tallies).await?;
    Ok(Some(InvitationStatus {
        fingerprint: key.map(|key| key.fingerprint()),
        redeemed: release.redemptions,
    }))
}
