//! An owned survey's export and codebook, with the rules of when an export may be made.

use actix_web::web::Bytes;
use futures_util::stream::Stream;

use super::results::refuse_while_blinded;
use super::surveys::find_owned;
use super::ServiceError;
use crate::codebook::{self, Codebook};
use crate::db::Database;
use crate::domain::{ResearcherId, Survey};
use crate::error::AppError;
use crate::export::{stream_export, ExportFormat};

/// An owned survey and its export's rows (its responses in the figures), streamed; refused
/// while the survey is blinded, and while it is open.
pub async fn owned_export(
    db: &Database,
    slug: &str,
    owner: ResearcherId,
    format: ExportFormat,
) -> Result<(Survey, impl Stream<Item = Result<Bytes, AppError>>), ServiceError> {
    let survey = find_owned(db, slug, owner).await?;
    refuse_while_blinded(&survey, "its export")?;
    let released = db.released(&survey).await?;
    // While open, each export would tell which responses arrived since the last: one row
    // apiece.
    let permit = released
        .export_permit(&survey)
        .ok_or(ServiceError::ExportWithheld)?;
    let rows = stream_export(db.clone(), &survey, format, permit)?;
    Ok((survey, rows))
}

/// An owned survey's codebook.
pub async fn owned_codebook(
    db: &Database,
    slug: &str,
    owner: ResearcherId,
) -> Result<Codebook, ServiceError> {
    let survey = find_owned(db, slug, owner).await?;
    Ok(codebook::describe(&survey)?)
}
