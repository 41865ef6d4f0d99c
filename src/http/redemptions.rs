//! Blind invitation tokens on the respondent's path (issue 20; docs/design.md, invariant
//! 10): `POST /api/surveys/{slug}/redemptions` exchanges an invitation for the evaluation
//! of a blinded element, and the submission path checks the token a response spends.
//!
//! Neither request carries anything of the other: the redemption names the invitation and
//! a blinded element, the response a token's input and output. Nothing here is logged.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use super::openapi::SlugPath;
use super::rate_limit::SubmissionAllowed;
use crate::db::redemptions::{self, Prepared};
use crate::db::responses::TokenCheck;
use crate::db::Database;
use crate::domain::{
    token_invalid, EvaluationBody, InvitationKeyBody, Redemption, RedemptionInput, Slug,
    Submission, Survey, SurveyStatus,
};
use crate::error::{AppError, ErrorBody};

/// The survey's public key for its anonymous definition, when it requires invitations.
pub(super) async fn invitation_key(
    db: &Database,
    survey: &Survey,
) -> Result<Option<InvitationKeyBody>, AppError> {
    if !survey.requires_invitation {
        return Ok(None);
    }
    let survey_id = survey.id;
    let key = db
        .read(move |connection| redemptions::public_key(connection, survey_id))
        .await?;
    Ok(key.map(|key| key.body()))
}

/// Whether the survey's key issued the submission's token; checked on a reader (a blocking
/// thread), before the write, so the writer does no group arithmetic.
pub(super) async fn token_check(
    db: &Database,
    survey: &Survey,
    submission: &Submission,
) -> Result<TokenCheck, AppError> {
    let Some(token) = submission.token().cloned() else {
        return Ok(TokenCheck::NotRequired);
    };
    let survey_id = survey.id;
    db.read(
        move |connection| match redemptions::private_key(connection, survey_id)? {
            None => Ok(TokenCheck::NoKey),
            Some(key) if key.issued(&token) => Ok(TokenCheck::Issued(token.spent())),
            Some(_) => Err(token_invalid()),
        },
    )
    .await
}

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
    let survey_id = survey.id;
    let redemption = std::sync::Arc::new(redemption);
    let read = std::sync::Arc::clone(&redemption);
    let prepared = db
        .read(move |connection| redemptions::prepare(connection, survey_id, &read))
        .await?;
    let evaluation = match prepared {
        Prepared::Stored(evaluation) => evaluation,
        Prepared::Fresh(evaluation) => {
            db.write(move |connection| {
                redemptions::redeem(connection, survey_id, &redemption, &evaluation)
            })
            .await?
        }
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(evaluation.body()))
}
