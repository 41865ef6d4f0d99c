//! What respondents reach of a survey: an open or closed one (a draft is a 404 to them),
//! and what is stored under a receipt.

use super::ServiceError;
use crate::db::responses::StoredAnswers;
use crate::db::Database;
use crate::domain::{RecordId, Slug, Survey};

/// A survey as respondents may see it: drafts are nobody's business but their owner's
/// (who previews them from the workspace).
pub async fn find_for_respondents(db: &Database, slug: Slug) -> Result<Survey, ServiceError> {
    db.find_survey_for_respondents(slug)
        .await?
        .ok_or(ServiceError::NotFound("survey"))
}

/// The stored reports and grouping answers a receipt names: a 404 when there are none.
pub async fn look_up_response(
    db: &Database,
    slug: Slug,
    record_id: RecordId,
) -> Result<StoredAnswers, ServiceError> {
    db.look_up_response(slug, record_id)
        .await?
        .ok_or(ServiceError::NotFound("response"))
}
