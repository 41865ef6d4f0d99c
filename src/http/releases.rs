//! What the owner of a survey that requires invitations sees (issue 20): its results,
//! exports and invitation status, all as of the last release of at least `min_cell` new
//! redemptions and `min_cell` new responses (`crate::live`), so that watching them cannot
//! match one redemption to one response.

use std::sync::Arc;

use crate::db::queries::QuestionCounts;
use crate::db::{redemptions, Database};
use crate::domain::Survey;
use crate::error::AppError;
use crate::live::{responses_counted, InvitationRelease, LiveReleases};

/// The counts and invitation release the owner of `survey` (which requires invitations)
/// may see now, releasing the current state first if a release is due. `tallies`: the
/// counts just read, for the cheap check; a due release reads everything again together.
pub(super) async fn released(
    db: &Database,
    releases: &LiveReleases,
    survey: &Survey,
    tallies: &[QuestionCounts],
) -> Result<(Vec<QuestionCounts>, InvitationRelease), AppError> {
    let survey_id = survey.id;
    let redeemed = db
        .read(move |connection| redemptions::invitation_counts(connection, survey_id))
        .await?
        .redeemed;
    if !releases.invitation_release_due(survey, responses_counted(tallies), redeemed) {
        return Ok(releases.released_with_invitations(survey));
    }
    let snapshot = db
        .read(move |connection| redemptions::release_snapshot(connection, survey_id))
        .await?;
    Ok(releases.release_with_invitations(
        survey,
        snapshot.counts,
        InvitationRelease {
            redemptions: snapshot.redeemed,
            records: Arc::new(snapshot.records),
        },
    ))
}

/// The counts the owner's views show: the current ones, or for a survey that requires
/// invitations, the released ones.
pub(super) async fn visible_counts(
    db: &Database,
    releases: &LiveReleases,
    survey: &Survey,
    tallies: Vec<QuestionCounts>,
) -> Result<Vec<QuestionCounts>, AppError> {
    if !survey.requires_invitation {
        return Ok(tallies);
    }
    Ok(released(db, releases, survey, &tallies).await?.0)
}

/// The workspace's invitation box: the one key fingerprint of every link, and the
/// invitations redeemed as of the last release.
pub struct InvitationStatus {
    pub fingerprint: Option<String>,
    pub redeemed: u64,
}

pub(super) async fn invitation_status(
    db: &Database,
    releases: &LiveReleases,
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
    let (_, release) = released(db, releases, survey, &tallies).await?;
    Ok(Some(InvitationStatus {
        fingerprint: key.map(|key| key.fingerprint()),
        redeemed: release.redemptions,
    }))
}
