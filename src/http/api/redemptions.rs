//! Blind invitation tokens on the respondent's path (issue 20; docs/design.md, invariant
//! 10): `POST /api/surveys/{slug}/redemptions` exchanges an invitation for the evaluation
//! of a blinded element; the submission path has storage check the token a response
//! spends ([`Database::check_token`]).
//!
//! Neither request carries anything of the other: the redemption names the invitation and
//! a blinded element, the response a token's input and output. Nothing here is logged.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use super::docs::SlugPath;
use crate::db::Database;
use crate::domain::{EvaluationBody, Redemption, RedemptionInput, Slug, SurveyStatus};
use crate::error::{AppError, ErrorBody};
use crate::http::rate_limit::SubmissionAllowed;

/// POST /api/surveys/{slug}/redemptions: an invitation buys the evaluation of a blinded
/// element (RFC 9497, VOPRF, ristretto255-SHA512), answered only after COMMIT.
///
/// The invitation is used up; the same blinded element again gets the same bytes (a
/// device's retry), another one a 409. The rate limit is the submissions' one.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/redemptions",
    tag = "respondent",
    params(SlugPath),
    request_body(content = RedemptionInput, description = "The invitation's code and the \
        device's blinded element (bodies of at most 1 KiB)."),
    responses(
        (status = 200, description = "The evaluation and its proof, checked by the device \
            against the definition's `invitation_key` (`Cache-Control: no-store`). The same \
            bytes for a retry with the same blinded element.", body = EvaluationBody),
        (status = 400, description = "`invalid_json` or `invalid_blinded` (not a ristretto255 \
            element in base64url).", body = ErrorBody),
        (status = 403, description = "`invitation_invalid`: not an invitation of this \
            survey.", body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey, or a draft.", body = ErrorBody),
        (status = 409, description = "`invitation_used` (redeemed before with another blinded \
            element), `survey_not_open` (closed) or `invitations_not_required` (the survey \
            does not use invitations).", body = ErrorBody),
        (status = 429, description = "`too_many_requests`: too many submissions from this \
            network address.", body = ErrorBody, headers(
            ("Retry-After" = u64, description = "Seconds to wait before trying again."))),
    )
)]
pub async fn redeem(
    _: SubmissionAllowed,
    db: web::Data<Database>,
    slug: web::Path<String>,
    body: web::Json<RedemptionInput>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let redemption = Redemption::parse(body.into_inner())?;
    let survey = db
        .find_survey_for_submission(slug)
        .await?
        .filter(|survey| survey.status != SurveyStatus::Draft)
        .ok_or(AppError::NotFound("survey"))?;
    if !survey.requires_invitation {
        return Err(AppError::conflict(
            "invitations_not_required",
            "anyone with the link can answer this survey: it has no invitations to redeem",
        ));
    }
    if survey.status != SurveyStatus::Open {
        return Err(AppError::conflict(
            "survey_not_open",
            "this survey is closed: no invitation can be redeemed",
        ));
    }
    let evaluation = db.redeem_invitation(survey.id, redemption).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(evaluation.body()))
}
