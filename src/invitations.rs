//! Single-use invitations: created in bulk for a mail merge, shared by the API and the CLI.

use crate::db::{queries, Database};
use crate::domain::{InvitationCode, InvitationCount, Slug, Survey};
use crate::error::AppError;
use crate::export::spreadsheet_safe;

/// Creates `count` invitations for a survey that requires them; returns the codes, which
/// exist nowhere else from now on (only their hashes are stored).
pub async fn create(
    db: &Database,
    survey: &Survey,
    count: InvitationCount,
) -> Result<Vec<InvitationCode>, AppError> {
    if !survey.requires_invitation {
        return Err(AppError::conflict(
            "invitations_not_required",
            "this survey was created without `requires_invitation`, so anyone with the link \
             can answer; invitations would not restrict anything",
        ));
    }
    let codes = (0..count.get())
        .map(|_| InvitationCode::generate())
        .collect::<Result<Vec<_>, AppError>>()?;
    let hashes: Vec<_> = codes.iter().map(InvitationCode::hash).collect();
    let survey_id = survey.id;
    db.write(move |connection| queries::insert_invitations(connection, survey_id, &hashes))
        .await?;
    Ok(codes)
}

/// The mail-merge CSV: one invitation and its personal link per row. The code travels in
/// the link's fragment, which browsers never send to a server (nor to its logs).
pub fn csv(base_url: &str, slug: &Slug, codes: &[InvitationCode]) -> String {
    let base_url = base_url.trim_end_matches('/');
    let mut out = String::from("invitation,link\n");
    for code in codes {
        let link = format!("{base_url}/s/{slug}#invitation={}", code.expose());
        out.push_str(&spreadsheet_safe(code.expose()));
        out.push(',');
        out.push_str(&spreadsheet_safe(&link));
        out.push('\n');
    }
    out
}
