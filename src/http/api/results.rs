//! An owned survey's results over the API: overall, a breakdown by a grouping question, or
//! a cross-tabulation of two questions.

use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::docs::{SlugPath, PRIVATE, UNAUTHORIZED};
use crate::breakdown::Breakdown;
use crate::db::Database;
use crate::error::{AppError, ErrorBody};
use crate::http::extract::Owner;
use crate::services::results::{owned_breakdown, owned_joint, owned_results};
use crate::{joint, results};

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
/// Per question: n, reports of yes, the debiased estimate and three intervals. Every survey
/// computes every figure from its released responses only (`release`; docs/design.md,
/// invariant 11): releases are considered every `min_cell` responses received (with
/// invitations, also every `min_cell` redemptions) and at close; a cell (a combination of
/// grouping answers) is released once it holds `min_cell` + max(2, ⌈`min_cell`/5⌉) new
/// responses while open, `min_cell` at close; a release that withdrawals leave with fewer
/// than `min_cell` responses is withheld whole. A survey that requires invitations also
/// counts its responses as of the last consideration while open. Under
/// `results_after_close`, nothing but `responses` and `release.considered_at` before close.
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
    slug: web::Path<String>,
    owner: Owner,
    query: web::Query<ResultsQuery>,
) -> Result<HttpResponse, AppError> {
    if let Some(by) = query.by {
        let breakdown =
            owned_breakdown(&db, &slug, owner.researcher(), by, query.confidence).await?;
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
    let (_, computed) = owned_results(&db, &slug, owner.researcher(), asked).await?;
    Ok(HttpResponse::Ok().insert_header(PRIVATE).json(computed))
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
