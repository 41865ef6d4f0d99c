//! An owned survey's downloads over the API: the export (CSV or NDJSON) and its codebook.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use super::docs::{SlugPath, PRIVATE, UNAUTHORIZED};
use crate::codebook;
use crate::db::Database;
use crate::error::{AppError, ErrorBody};
use crate::export::ExportFormat;
use crate::http::extract::Owner;
use crate::services::exports::{owned_codebook, owned_export};

async fn export(
    db: web::Data<Database>,
    slug: &str,
    owner: &Owner,
    format: ExportFormat,
) -> Result<HttpResponse, AppError> {
    let (survey, rows) = owned_export(&db, slug, owner.researcher(), format).await?;
    let disposition = format!(
        "attachment; filename=\"{}\"",
        format.file_name(survey.slug.as_str())
    );
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((header::CONTENT_DISPOSITION, disposition))
        .insert_header(PRIVATE)
        .streaming(rows))
}

/// GET /api/surveys/{slug}/export.csv
///
/// One row per (response, question), ordered by record id, streamed. The columns are
/// `record_id,question_id,epsilon,truth_probability,report,unbiased_value,type,option_values`
/// (the first six as in the first release): the report as an integer, and the per-record
/// unbiased values of the question's design, whose means over a question's rows are the
/// results' estimates (`unbiased_value`: yes share, ordinal mean level on 1…k, number mean,
/// empty for choice; `option_values`: choice and ordinal, one value per option joined by
/// `;`). The codebook says what each means. Every survey exports once closed, its released
/// responses only (see the results): while open, two exports would differ by each new
/// response's rows.
#[utoipa::path(
    get,
    path = "/api/surveys/{slug}/export.csv",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The CSV download (`Cache-Control: no-store`).",
            body = String, content_type = "text/csv; charset=utf-8",
            headers(("Content-Disposition" = String, description = "`attachment; \
                filename=\"{slug}.csv\"`"))),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`blinded`: fixed in advance and still open; \
            `export_withheld`: the survey is still open (every survey exports once closed).",
            body = ErrorBody),
    )
)]
pub async fn export_csv(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    export(db, &slug, &owner, ExportFormat::Csv).await
}

/// GET /api/surveys/{slug}/export.ndjson
///
/// The same rows as the CSV, one JSON object (`ExportRecord`) per line: an empty CSV cell
/// is a null, and `option_values` is an array.
#[utoipa::path(
    get,
    path = "/api/surveys/{slug}/export.ndjson",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The NDJSON download (`Cache-Control: no-store`), one \
            `ExportRecord` per line.", body = String, content_type = "application/x-ndjson",
            headers(("Content-Disposition" = String, description = "`attachment; \
                filename=\"{slug}.ndjson\"`"))),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`blinded`: fixed in advance and still open; \
            `export_withheld`: the survey is still open (every survey exports once closed).",
            body = ErrorBody),
    )
)]
pub async fn export_ndjson(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    export(db, &slug, &owner, ExportFormat::Ndjson).await
}

/// GET /api/surveys/{slug}/codebook.json
///
/// Every export column, and each question's mechanism: type, design and parameters, ε
/// (promised and realized), truth_probability, the report codes with their labels, the
/// matrix P, the per-record values of each report, and the arguments of the R packages `rr`
/// (`rrreg`) and `RRreg` (`RRuni`) with an example line.
#[utoipa::path(
    get,
    path = "/api/surveys/{slug}/codebook.json",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The codebook (`Cache-Control: no-store`).",
            body = codebook::Codebook),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
    )
)]
pub async fn codebook(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    let codebook = owned_codebook(&db, &slug, owner.researcher()).await?;
    Ok(HttpResponse::Ok().insert_header(PRIVATE).json(codebook))
}
