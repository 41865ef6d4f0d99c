//! An owned survey's invitations over the API: N single-use codes as a mail-merge CSV.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};

use super::docs::{SlugPath, CSRF_REFUSED, PRIVATE, UNAUTHORIZED};
use crate::db::Database;
use crate::domain::{InvitationCount, InvitationsInput, Slug};
use crate::error::{AppError, ErrorBody};
use crate::http::extract::Owner;
use crate::services::invitations;
use crate::services::surveys::find_owned;

/// POST /api/surveys/{slug}/invitations `{"count": N}`: N single-use invitation links as a
/// CSV download for a mail merge. The codes are shown only in this response.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/invitations",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    request_body = InvitationsInput,
    responses(
        (status = 201, description = "The CSV `invitation,link,key_fingerprint` \
            (`Cache-Control: no-store`; the codes exist nowhere else). Each link is \
            `/s/{slug}#invitation=<code>&key=<fingerprint>`: the fingerprint of the survey's \
            key, the same in every row.", body = String,
            content_type = "text/csv; charset=utf-8",
            headers(("Content-Disposition" = String, description = "`attachment; \
                filename=\"{slug}-invitations.csv\"`"))),
        (status = 400, description = "`invalid_json`, `invalid_count` or `invalid_host` (the \
            links' host comes from the request without `--public-url`).", body = ErrorBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`invitations_not_required`: the survey was created \
            without `requires_invitation`; `survey_closed`: its key is erased.",
            body = ErrorBody),
    )
)]
pub async fn create_invitations(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
    body: web::Json<InvitationsInput>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    let count = InvitationCount::parse(body.count)?;
    // Before any code is made: a bad Host header must not cost invitations.
    let origin = crate::http::origin(&request)?;
    let survey = find_owned(&db, slug.as_str(), owner.researcher()).await?;
    let codes = invitations::create(&db, &survey, count).await?;
    Ok(invitations_download(
        &origin,
        StatusCode::CREATED,
        &survey.slug,
        &codes,
    ))
}

/// New invitations as the mail-merge CSV download, with links to `origin` (the API and the
/// results page alike). Never cached: the codes exist nowhere else.
pub(crate) fn invitations_download(
    origin: &str,
    status: StatusCode,
    slug: &Slug,
    codes: &invitations::NewInvitations,
) -> HttpResponse {
    let disposition = format!("attachment; filename=\"{slug}-invitations.csv\"");
    HttpResponse::build(status)
        .content_type("text/csv; charset=utf-8")
        .insert_header((header::CONTENT_DISPOSITION, disposition))
        .insert_header(PRIVATE)
        .body(invitations::csv(origin, slug, codes))
}
