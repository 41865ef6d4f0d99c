//! The workspace's invitation box of a survey that requires invitations: the key's
//! fingerprint, and the invitations redeemed as of its last consideration of releases while
//! it is open (`crate::db::released`; docs/design.md, invariant 11), so that watching them
//! cannot match one redemption to one response.

use crate::db::Database;
use crate::domain::Survey;
use crate::error::AppError;

/// The workspace's invitation box: the one key fingerprint of every link, and the
/// invitations redeemed as its owner may see them.
pub struct InvitationStatus {
    pub fingerprint: Option<String>,
    pub redeemed: u64,
}

pub async fn invitation_status(
    db: &Database,
    survey: &Survey,
) -> Result<Option<InvitationStatus>, AppError> {
    if !survey.requires_invitation {
        return Ok(None);
    }
    let key = db.public_invitation_key(survey.id).await?;
    let released = db.released(survey).await?;
    Ok(Some(InvitationStatus {
        fingerprint: key.map(|key| key.fingerprint()),
        redeemed: released.redemptions(),
    }))
}
