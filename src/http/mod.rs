//! The HTTP layer: routes, middleware and extractor error handling.
//! Handlers extract, parse into domain types, call the database, render.

pub mod auth;
mod researcher;
mod respondent;
mod workspace;

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Instant;

use actix_web::dev::{Server, Service};
use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::{error, web, App, HttpRequest, HttpResponse, HttpServer, Resource};

use crate::db::Database;
use crate::error::AppError;

/// Submissions are tiny (≤ 100 question ids and bits); anything bigger is refused early.
pub const SUBMISSION_LIMIT_BYTES: usize = 16 * 1024;
/// A definition of 100 questions of 1 000 characters (4 bytes each at worst) fits.
pub const DEFINITION_LIMIT_BYTES: usize = 512 * 1024;

/// The builder's largest form: a question of 1 000 characters, percent-encoded.
pub const FORM_LIMIT_BYTES: usize = 64 * 1024;

/// Only the origin, and WebAssembly compilation for the mechanism; no inline script or style.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

/// Builds the server on an already bound listener (tests bind port 0).
pub fn server(
    listener: TcpListener,
    db: Database,
    static_dir: PathBuf,
    workers: usize,
) -> std::io::Result<Server> {
    let db = web::Data::new(db);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(db.clone())
            .app_data(web::PathConfig::default().error_handler(path_error))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .app_data(
                web::FormConfig::default()
                    .limit(FORM_LIMIT_BYTES)
                    .error_handler(form_error),
            )
            .configure(|config| routes(config, static_dir.clone()))
            .default_service(web::to(not_found))
            .wrap_fn(|request, service| {
                let method = request.method().clone();
                let started = Instant::now();
                let response = service.call(request);
                async move {
                    let response = response.await?;
                    // The route *pattern* only: a receipt in a path is a secret, and neither
                    // the peer address nor the user agent is ever logged.
                    let route = response
                        .request()
                        .match_pattern()
                        .unwrap_or_else(|| "(unmatched)".to_owned());
                    tracing::info!(
                        %method,
                        route,
                        status = response.status().as_u16(),
                        duration_ms = started.elapsed().as_secs_f64() * 1e3,
                        "request"
                    );
                    Ok(response)
                }
            })
            .wrap(
                DefaultHeaders::new()
                    .add((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
                    .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                    .add((header::REFERRER_POLICY, "no-referrer"))
                    .add((header::X_FRAME_OPTIONS, "DENY")),
            )
    })
    .workers(workers)
    .listen(listener)?
    .run();
    Ok(server)
}

fn routes(config: &mut web::ServiceConfig, static_dir: PathBuf) {
    config
        .service(resource("/healthz").route(web::get().to(healthz)))
        .service(resource("/s/{slug}").route(web::get().to(respondent::form)))
        .service(
            resource("/api/surveys")
                .app_data(json_config(DEFINITION_LIMIT_BYTES))
                .route(web::post().to(researcher::create_survey)),
        )
        .service(resource("/api/surveys/{slug}").route(web::get().to(respondent::definition)))
        .service(
            resource("/api/surveys/{slug}/responses")
                .app_data(json_config(SUBMISSION_LIMIT_BYTES))
                .route(web::post().to(respondent::submit)),
        )
        .service(
            resource("/api/surveys/{slug}/responses/{receipt}")
                .route(web::get().to(respondent::view_response))
                .route(web::delete().to(respondent::withdraw_response)),
        )
        .service(resource("/api/surveys/{slug}/open").route(web::post().to(researcher::open)))
        .service(resource("/api/surveys/{slug}/close").route(web::post().to(researcher::close)))
        .service(resource("/api/surveys/{slug}/results").route(web::get().to(researcher::results)))
        .service(
            resource("/api/surveys/{slug}/export.csv").route(web::get().to(researcher::export_csv)),
        )
        .service(
            resource("/api/surveys/{slug}/export.ndjson")
                .route(web::get().to(researcher::export_ndjson)),
        )
        .service(
            resource("/api/surveys/{slug}/codebook.json")
                .route(web::get().to(researcher::codebook)),
        )
        .configure(workspace_routes)
        .service(
            actix_files::Files::new("/static", static_dir)
                .prefer_utf8(true)
                .default_handler(web::to(not_found)),
        );
}

/// The researcher's workspace in the browser (HTML pages and their forms).
fn workspace_routes(config: &mut web::ServiceConfig) {
    use workspace as w;
    config
        .service(resource("/").route(web::get().to(w::home)))
        .service(
            resource("/login")
                .route(web::get().to(w::login_form))
                .route(web::post().to(w::login)),
        )
        .service(resource("/logout").route(web::post().to(w::logout)))
        .service(
            resource("/setup/{token}")
                .route(web::get().to(w::setup_form))
                .route(web::post().to(w::setup)),
        )
        .service(
            resource("/surveys")
                .route(web::get().to(w::surveys))
                .route(web::post().to(w::create_survey)),
        )
        .service(
            resource("/surveys/{slug}/edit")
                .route(web::get().to(w::builder))
                .route(web::post().to(w::update_details)),
        )
        .service(resource("/surveys/{slug}/questions").route(web::post().to(w::add_question)))
        .service(
            resource("/surveys/{slug}/questions/{id}").route(web::post().to(w::update_question)),
        )
        .service(
            resource("/surveys/{slug}/questions/{id}/move").route(web::post().to(w::move_question)),
        )
        .service(
            resource("/surveys/{slug}/questions/{id}/delete")
                .route(web::post().to(w::delete_question)),
        )
        .service(resource("/surveys/{slug}/preview").route(web::get().to(w::preview)))
        .service(
            resource("/surveys/{slug}/open")
                .route(web::get().to(w::confirm_open))
                .route(web::post().to(w::open)),
        )
        .service(resource("/surveys/{slug}/close").route(web::post().to(w::close)))
        .service(resource("/surveys/{slug}/delete").route(web::post().to(w::delete_draft)))
        .service(resource("/surveys/{slug}/results").route(web::get().to(w::results_page)))
        .service(resource("/surveys/{slug}/present").route(web::get().to(w::present)))
        .service(resource("/account").route(web::get().to(w::account)))
        .service(resource("/account/tokens").route(web::post().to(w::create_token)))
        .service(resource("/account/tokens/{hash}/revoke").route(web::post().to(w::revoke_token)))
        .service(resource("/account/invitations").route(web::post().to(w::create_invitation)));
}

/// A resource whose unsupported methods get a JSON 405.
fn resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

fn json_config(limit_bytes: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit_bytes)
        .error_handler(json_error)
}

fn json_error(error: error::JsonPayloadError, request: &HttpRequest) -> actix_web::Error {
    use error::JsonPayloadError as Json;
    let app_error = match error {
        Json::OverflowKnownLength { limit, .. } | Json::Overflow { limit } => {
            AppError::PayloadTooLarge { limit_bytes: limit }
        }
        // The decoder's own overflow does not say which limit; the route does.
        Json::Payload(error::PayloadError::Overflow) => AppError::PayloadTooLarge {
            limit_bytes: if request.path().ends_with("/responses") {
                SUBMISSION_LIMIT_BYTES
            } else {
                DEFINITION_LIMIT_BYTES
            },
        },
        Json::ContentType => AppError::UnsupportedMediaType,
        Json::Deserialize(cause) => AppError::invalid(
            "invalid_json",
            format!("the body is not the JSON this route expects: {cause}"),
        ),
        other => AppError::invalid("invalid_body", format!("cannot read the body: {other}")),
    };
    app_error.into()
}

fn form_error(error: error::UrlencodedError, _: &HttpRequest) -> actix_web::Error {
    let app_error = match error {
        error::UrlencodedError::Overflow { limit, .. } => {
            AppError::PayloadTooLarge { limit_bytes: limit }
        }
        other => AppError::invalid("invalid_form", format!("the form is incomplete: {other}")),
    };
    app_error.into()
}

fn path_error(error: error::PathError, _: &HttpRequest) -> actix_web::Error {
    AppError::invalid("invalid_path", error.to_string()).into()
}

fn query_error(error: error::QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    AppError::invalid(
        "invalid_query",
        format!("invalid query parameters: {error}"),
    )
    .into()
}

async fn not_found() -> Result<HttpResponse, AppError> {
    Err(AppError::NotFound("page"))
}

async fn method_not_allowed() -> Result<HttpResponse, AppError> {
    Err(AppError::MethodNotAllowed)
}

/// Liveness only: touches no database, so it measures the bare HTTP stack.
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}
