//! Single-use invitations: created in bulk for a mail merge, shared by the API and the CLI.

use super::ServiceError;
use crate::db::Database;
use crate::domain::{InvitationCode, InvitationCount, Slug, Survey};
use crate::export::spreadsheet_safe;

/// New invitations, and the fingerprint of the survey key that every one of their links
/// pins (issue 20, key consistency: the same for all, so anyone can compare).
pub struct NewInvitations {
    pub codes: Vec<InvitationCode>,
    pub fingerprint: String,
}

/// Creates `count` invitations for a survey that requires them; returns the codes, which
/// exist nowhere else from now on (only their hashes are stored).
pub async fn create(
    db: &Database,
    survey: &Survey,
    count: InvitationCount,
) -> Result<NewInvitations, ServiceError> {
    if !survey.requires_invitation {
        return Err(ServiceError::InvitationsNotRequired);
    }
    let codes = (0..count.get())
        .map(|_| InvitationCode::generate())
        .collect::<Result<Vec<_>, _>>()?;
    let hashes: Vec<_> = codes.iter().map(InvitationCode::hash).collect();
    let key = db.add_invitations(survey.id, hashes).await?;
    Ok(NewInvitations {
        codes,
        fingerprint: key.fingerprint(),
    })
}

/// The mail-merge CSV: one invitation, its personal link and the survey key's fingerprint
/// per row. The code travels in the link's fragment, which browsers never send to a server
/// (nor to its logs); so does the fingerprint (`key`), which the form compares with the
/// key the server publishes before it redeems anything.
pub fn csv(base_url: &str, slug: &Slug, invitations: &NewInvitations) -> String {
    let base_url = base_url.trim_end_matches('/');
    let fingerprint = &invitations.fingerprint;
    let mut out = String::from("invitation,link,key_fingerprint\n");
    for code in &invitations.codes {
        let link = format!(
            "{base_url}/s/{slug}#invitation={}&key={fingerprint}",
            code.expose()
        );
        out.push_str(&spreadsheet_safe(code.expose()));
        out.push(',');
        out.push_str(&spreadsheet_safe(&link));
        out.push(',');
        out.push_str(&spreadsheet_safe(fingerprint));
        out.push('\n');
    }
    out
}
