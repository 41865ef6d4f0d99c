//! Owner-only routes. A survey that does not exist and one that belongs to someone else
//! look the same (404): the owner check is part of every query.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};

use super::auth::Owner;
use super::openapi::{SlugPath, CSRF_REFUSED, UNAUTHORIZED};
use super::public_definition::{public_questions, PublicQuestion};
use crate::breakdown::{self, Breakdown};
use crate::codebook;
use crate::db::{responses, Database};
use crate::domain::{
    InvitationCount, InvitationsInput, ResearcherId, Slug, Survey, SurveyDefinition,
    SurveyDefinitionInput, SurveyStatus,
};
use crate::error::{AppError, ErrorBody};
use crate::export::{stream_export, ExportFormat};
use crate::live::Releases;
use crate::services::invitations;
use crate::{joint, results};

/// Results, exports and codebooks are the owner's private data: no browser or proxy may
/// keep a copy (a shared machine, a caching proxy, the back button after signing out).
const PRIVATE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-store");

/// An owned survey.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Survey)]
struct SurveyBody {
    /// The survey's name in every URL.
    #[schema(examples("exam-honesty-3f9a1c2e"))]
    slug: String,
    #[schema(value_type = SurveyStatusName)]
    status: &'static str,
    title: String,
    description: String,
    planned_respondents: u64,
    requires_invitation: bool,
    /// `YYYY-MM-DD`: everything of the survey is deleted once that UTC day is over.
    #[schema(format = Date)]
    delete_after: Option<String>,
    /// The fewest responses (and new responses) the live pages show at a time, and the
    /// smallest group a breakdown shows (k-anonymity).
    min_cell: u32,
    /// Fixed in advance: the survey closes once it holds this many responses.
    target_responses: Option<u64>,
    /// Fixed in advance: the survey closes at this UTC instant (RFC 3339).
    #[schema(format = DateTime)]
    closes_at: Option<String>,
    /// When unblinded early: the responses it had then (recorded for good).
    unblinded_at_responses: Option<u64>,
    /// Where respondents answer (a path on this server).
    #[schema(examples("/s/exam-honesty-3f9a1c2e"))]
    link: String,
    /// Who runs the survey, as the form shows it (empty when not given).
    researcher: String,
    /// How respondents reach the researcher: an e-mail or web address (empty when none).
    contact: String,
    /// The information-and-consent statement respondents confirm, if any.
    consent: Option<String>,
    /// The language of the form's own words.
    #[schema(value_type = crate::domain::SurveyLanguage)]
    language: &'static str,
    questions: Vec<PublicQuestion>,
}

/// A survey's status: `draft` (being edited; 404 to respondents), `open` (collecting; ε
/// frozen) or `closed` (for good).
#[derive(utoipa::ToSchema)]
#[schema(as = SurveyStatus, rename_all = "lowercase")]
#[allow(dead_code)] // a schema only: the status is written by `SurveyStatus::as_str`
enum SurveyStatusName {
    Draft,
    Open,
    Closed,
}

impl From<Survey> for SurveyBody {
    fn from(survey: Survey) -> Self {
        Self {
            link: format!("/s/{}", survey.slug),
            questions: public_questions(&survey),
            researcher: survey.intro.researcher().to_owned(),
            contact: survey.intro.contact_text().to_owned(),
            consent: survey.intro.consent().map(str::to_owned),
            language: survey.intro.language().as_str(),
            slug: survey.slug.to_string(),
            status: survey.status.as_str(),
            title: survey.title,
            description: survey.description,
            planned_respondents: survey.planned_respondents,
            requires_invitation: survey.requires_invitation,
            delete_after: survey
                .delete_after
                .as_ref()
                .map(|date| date.as_str().to_owned()),
            min_cell: survey.min_cell.get(),
            target_responses: survey.stopping_rule.target_responses(),
            closes_at: survey.stopping_rule.closes_at().map(|at| at.to_string()),
            unblinded_at_responses: survey.unblinded_at,
        }
    }
}

/// DELETE /api/surveys/{slug}: deletes an owned survey, whatever its status, with all its
/// responses and invitations (as ethics boards require once a study ends). They are gone
/// from every file, rebuilt by a compaction epoch, before the 204.
#[utoipa::path(
    delete,
    path = "/api/surveys/{slug}",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted, and gone from every file."),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
    )
)]
pub async fn delete_survey(
    owner: Owner,
    db: web::Data<Database>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(&slug)?;
    db.delete_survey(slug, owner.researcher()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// POST /api/surveys: creates a draft from a JSON definition.
#[utoipa::path(
    post,
    path = "/api/surveys",
    tag = "owner",
    security(("bearer" = [])),
    request_body(content = SurveyDefinitionInput, description = "The definition (at most \
        512 KiB), as `deniable survey create --file` takes it."),
    responses(
        (status = 201, description = "The draft.", body = SurveyBody,
            headers(("Location" = String, description = "`/api/surveys/{slug}`: the survey's \
                resource (its GET, the public definition, is a 404 until the survey opens)."))),
        (status = 400, description = "`invalid_json`, `invalid_text`, `invalid_questions`, \
            `invalid_epsilon`, `invalid_planned_respondents`, `invalid_delete_after`, \
            `invalid_min_cell`, `invalid_contact` (neither an e-mail nor an http(s) address) or \
            `invalid_language` (not en, de, fr or es).", body = ErrorBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
    )
)]
pub async fn create_survey(
    db: web::Data<Database>,
    owner: Owner,
    body: web::Json<SurveyDefinitionInput>,
) -> Result<HttpResponse, AppError> {
    let definition = SurveyDefinition::parse(body.into_inner())?;
    let slug = Slug::generate(definition.title())?;
    let survey = db
        .create_draft(owner.researcher(), slug, definition)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/surveys/{}", survey.slug)))
        .json(SurveyBody::from(survey)))
}

async fn change_status(
    db: &Database,
    slug: &str,
    owner: &Owner,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Result<HttpResponse, AppError> {
    let slug = Slug::parse(slug)?;
    let survey = db.change_status(slug, owner.researcher(), from, to).await?;
    Ok(HttpResponse::Ok().json(SurveyBody::from(survey)))
}

/// POST /api/surveys/{slug}/open: starts collection; ε can no longer change.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/open",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The survey, now open.", body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`invalid_status_change`: only a draft can open; \
            `closes_at_passed`: its closing time has passed.", body = ErrorBody),
    )
)]
pub async fn open(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    change_status(&db, &slug, &owner, SurveyStatus::Draft, SurveyStatus::Open).await
}

/// POST /api/surveys/{slug}/close: stops collection for good.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/close",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The survey, now closed.", body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`invalid_status_change`: only an open survey can \
            close.", body = ErrorBody),
    )
)]
pub async fn close(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    change_status(&db, &slug, &owner, SurveyStatus::Open, SurveyStatus::Closed).await
}

/// POST /api/surveys/{slug}/unblind: shows an open survey's estimates before its stopping
/// rule closes it.
#[utoipa::path(
    post,
    path = "/api/surveys/{slug}/unblind",
    tag = "owner",
    params(SlugPath),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Unblinded, recorded for good (again: unchanged). The \
            results then show every figure, and the anytime interval is primary for good.",
            body = SurveyBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 403, description = CSRF_REFUSED, body = ErrorBody),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`not_blinded` (watched live, or closed) or `not_open` \
            (a draft).", body = ErrorBody),
    )
)]
pub async fn unblind(
    db: web::Data<Database>,
    slug: web::Path<String>,
    owner: Owner,
) -> Result<HttpResponse, AppError> {
    let survey = db.unblind(Slug::parse(&slug)?, owner.researcher()).await?;
    Ok(HttpResponse::Ok().json(SurveyBody::from(survey)))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ResultsQuery {
    /// The intervals' confidence level, strictly between 0 and 1 (default 0.95).
    #[param(exclusive_minimum = 0, exclusive_maximum = 1, example = 0.95)]
    confidence: Option<f64>,
    /// A grouping question's id: the breakdown by its groups (`Breakdown`) instead of the
    /// overall results: each group the sum of the released cells that gave its answer.
    by: Option<i64>,
    /// Two randomized questions' ids, `q1,q2` (yes/no, choice or ordinal): their
    /// cross-tabulation (`JointResults`) instead of the overall results. 409 `blinded` while
    /// a survey fixed in advance is blinded.
    joint: Option<String>,
    /// A share from 0 to 1: every share (yes/no, and each option) is tested against it
    /// (`test`: the anytime-valid p-value while watched live, the exact binomial test once
    /// a survey fixed in advance has closed).
    #[param(minimum = 0, maximum = 1, example = 0.1)]
    null: Option<f64>,
    /// `true`: Bonferroni across every target of the survey, so that all its intervals and
    /// bounds hold at once with probability ≥ `confidence`.
    simultaneous: Option<bool>,
}

/// GET /api/surveys/{slug}/results?confidence=0.95
///
/// Per question: n, reports of yes, the debiased estimate and three intervals. A survey with
/// grouping questions or invitations computes every figure from its released responses only
/// (`release`; docs/design.md, invariant 11): releases are considered every `min_cell`
/// responses received (with invitations, also every `min_cell` redemptions) and at close,
/// and each cell (a combination of grouping answers) is released whole once it holds at
/// least `min_cell` new responses; a survey that requires invitations also counts its
/// responses as of the last consideration while open.
#[utoipa::path(
    get,
    path = "/api/surveys/{slug}/results",
    tag = "owner",
    params(SlugPath, ResultsQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The results (`Cache-Control: no-store`): \
            `SurveyResults`; with `by` a `Breakdown`; with `joint` a `JointResults`.",
            body = ResultsBody),
        (status = 400, description = "`invalid_confidence`, `invalid_null`, \
            `invalid_query` (an unknown parameter), `not_a_grouping_question` (`by` names \
            none of this survey's) or `invalid_joint` (`joint` does not name two of its \
            yes/no, choice or ordinal questions).", body = ErrorBody),
        (status = 401, description = UNAUTHORIZED, body = ErrorBody,
            headers(("WWW-Authenticate" = String, description = "`Bearer`"))),
        (status = 404, description = "`not_found`: no such survey of yours.", body = ErrorBody),
        (status = 409, description = "`blinded`: `joint` while a survey fixed in advance is \
            blinded; `results_after_close`: `joint` before a survey defined with \
            `results_after_close` closes.", body = ErrorBody),
    )
)]
pub async fn results(
    db: web::Data<Database>,
    releases: web::Data<Releases>,
    slug: web::Path<String>,
    owner: Owner,
    query: web::Query<ResultsQuery>,
) -> Result<HttpResponse, AppError> {
    if let Some(by) = query.by {
        let breakdown = owned_breakdown(
            &db,
            &releases,
            &slug,
            owner.researcher(),
            by,
            query.confidence,
        )
        .await?;
        return Ok(HttpResponse::Ok().insert_header(PRIVATE).json(breakdown));
    }
    if let Some(pair) = &query.joint {
        let joint = owned_joint(&db, &slug, owner.researcher(), pair, query.confidence).await?;
        return Ok(HttpResponse::Ok().insert_header(PRIVATE).json(joint));
    }
    let asked = results::Asked {
        confidence: results::parse_confidence(query.confidence)?,
        null: results::Asked::parse_null(query.null)?,
        simultaneous: query.simultaneous.unwrap_or(false),
    };
    let (_, computed) = owned_results(&db, &releases, &slug, owner.researcher(), asked).await?;
    Ok(HttpResponse::Ok().insert_header(PRIVATE).json(computed))
}

/// An owned survey and its results, for the API: every response's, or for a survey with
/// grouping questions or invitations its released responses' (docs/design.md, invariant
/// 11).
async fn owned_results(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    asked: results::Asked,
) -> Result<(Survey, results::SurveyResults), AppError> {
    let (survey, tallies) = db
        .owned_survey_with_counts(Slug::parse(slug)?, researcher)
        .await?;
    if survey.shows_released_only() {
        let released = releases.released(db, &survey).await?;
        let computed = results::compute_released(&survey, &released, asked)?;
        return Ok((survey, computed));
    }
    let computed = results::compute_asked(&survey, &tallies, asked)?;
    Ok((survey, computed))
}

/// 409 `results_after_close`: a survey defined with `results_after_close` shows nothing
/// computed from its reports until it closes.
fn refuse_until_close(survey: &Survey, what: &str) -> Result<(), AppError> {
    if survey.results_withheld_until_close() {
        return Err(AppError::conflict(
            "results_after_close",
            format!(
                "this survey shows no figure computed from its reports until it closes \
                 (results_after_close): {what} is withheld until then"
            ),
        ));
    }
    Ok(())
}

/// The responses a read of an owned survey covers: its released ones for a survey with
/// grouping questions or invitations, every stored one otherwise.
fn covering(survey: &Survey) -> responses::Covering {
    if survey.shows_released_only() {
        responses::Covering::Released
    } else {
        responses::Covering::Stored
    }
}

/// An owned survey's cross-tabulation of two of its questions (`?joint=q1,q2`); of a survey
/// with grouping questions or invitations, of its released responses only.
async fn owned_joint(
    db: &Database,
    slug: &str,
    researcher: ResearcherId,
    pair: &str,
    confidence: Option<f64>,
) -> Result<joint::JointResults, AppError> {
    let confidence = results::parse_confidence(confidence)?;
    let (first, second) = joint::parse_pair(pair)?;
    let slug = Slug::parse(slug)?;
    let survey = db.owned_survey(slug, researcher).await?;
    refuse_while_blinded(&survey, "a cross-tabulation")?;
    refuse_until_close(&survey, "a cross-tabulation")?;
    let (one, two) = joint::questions(&survey, first, second)?;
    let (survey_id, ids, covering) = (survey.id, (one.id, two.id), covering(&survey));
    let sizes = (one.design.reports(), two.design.reports());
    let table = db.report_pairs(survey_id, ids, sizes, covering).await?;
    joint::compute(&survey, &one, &two, &table, confidence)
}

/// An owned survey's breakdown by one of its grouping questions, from its released cells
/// (the API and the workspace alike).
pub(super) async fn owned_breakdown(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    by: i64,
    confidence: Option<f64>,
) -> Result<Breakdown, AppError> {
    let confidence = results::parse_confidence(confidence)?;
    let slug = Slug::parse(slug)?;
    let survey = db.owned_survey(slug, researcher).await?;
    let grouping = survey
        .groupings
        .iter()
        .find(|grouping| grouping.id.get() == by)
        .cloned()
        .ok_or_else(|| {
            AppError::invalid(
                "not_a_grouping_question",
                format!("this survey has no grouping question with id {by}"),
            )
        })?;
    let released = releases.released(db, &survey).await?;
    breakdown::compute(&survey, &grouping, &released, confidence)
}

/// [`owned_results`] as the live pages show them: released responses for a survey with
/// grouping questions or invitations (as the API), steps of `min_cell` for the others.
pub(super) async fn owned_live_results(
    db: &Database,
    releases: &Releases,
    slug: &str,
    researcher: ResearcherId,
    asked: &AskedQuery,
) -> Result<(Survey, results::SurveyResults), AppError> {
    let asked = asked.parse()?;
    let (survey, tallies) = db
        .owned_survey_with_counts(Slug::parse(slug)?, researcher)
        .await?;
    if survey.shows_released_only() {
        let released = releases.released(db, &survey).await?;
        let computed = results::compute_released(&survey, &released, asked)?;
        return Ok((survey, computed));
    }
    let visible = releases.live_counts(db, &survey, tallies).await?;
    let computed = results::compute_asked(&survey, &visible, asked)?;
    Ok((survey, computed))
}

/// The results' options as a page's query gives them: confidence, the share to test and
/// whether intervals are simultaneous.
#[derive(Debug, Default, Deserialize)]
pub struct AskedQuery {
    pub confidence: Option<f64>,
    pub null: Option<f64>,
    pub simultaneous: Option<bool>,
}

impl AskedQuery {
    pub fn parse(&self) -> Result<results::Asked, AppError> {
        Ok(results::Asked {
            confidence: results::parse_confidence(self.confidence)?,
            null: results::Asked::parse_null(self.null)?,
            simultaneous: self.simultaneous.unwrap_or(false),
        })
    }
}

/// 409 `blinded`: a survey fixed in advance shows nothing computed from its reports while
/// it is open (docs/design.md, "Which interval is primary").
pub(super) fn refuse_while_blinded(survey: &Survey, what: &str) -> Result<(), AppError> {
    if survey.is_blinded() {
        return Err(AppError::conflict(
            "blinded",
            format!(
                "this survey was fixed in advance and is blinded until it closes: {what} is \
                 withheld until then (or until its owner unblinds it, which is recorded)"
            ),
        ));
    }
    Ok(())
}

async fn export(
    db: web::Data<Database>,
    slug: &str,
    owner: &Owner,
    format: ExportFormat,
) -> Result<HttpResponse, AppError> {
    let survey = db
        .owned_survey(Slug::parse(slug)?, owner.researcher())
        .await?;
    refuse_while_blinded(&survey, "its export")?;
    if survey.shows_released_only() && survey.status != SurveyStatus::Closed {
        // Each export would tell which responses arrived since the last: one row apiece.
        return Err(AppError::conflict(
            "export_withheld",
            "a survey with grouping questions or invitations exports once it has closed, its \
             released responses only: while it is open, comparing two exports would show \
             each new response's rows",
        ));
    }
    let rows = stream_export(db.get_ref().clone(), &survey, format, covering(&survey))?;
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
/// `;`). The codebook says what each means. A survey with grouping questions or invitations
/// exports once closed, its released responses only (see the results).
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
            `export_withheld`: a survey with grouping questions or invitations, still open.",
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
            `export_withheld`: a survey with grouping questions or invitations, still open.",
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
    let survey = db
        .owned_survey(Slug::parse(&slug)?, owner.researcher())
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(PRIVATE)
        .json(codebook::describe(&survey)?))
}

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
    let origin = super::origin(&request)?;
    let survey = db.owned_survey(slug, owner.researcher()).await?;
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
pub(super) fn invitations_download(
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

/// The three shapes of `GET …/results`, for the OpenAPI document only: one media type
/// holds one schema, so they are one `oneOf` (three `content` entries of one media type
/// would keep only the last).
#[derive(utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // never built: it documents the handler's three bodies
enum ResultsBody {
    Survey(results::SurveyResults),
    Breakdown(Breakdown),
    Joint(joint::JointResults),
}
