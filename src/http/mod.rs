//! The HTTP layer: routes, middleware and extractor error handling.
//! Handlers extract, parse into domain types, call the database, render.

mod api;
pub mod auth;
mod body_deadline;
pub mod extract;
pub mod openapi;
mod pages;

pub use pages::RESULTS_PAGE_PARAMETERS;
mod public_definition;
pub use public_definition::{PublicDefinition, PublicQuestion};
pub mod public_url;
mod rate_limit;
mod service_error;
mod static_files;
pub use pages::form::{form_headers, form_page, FormPage};
pub use static_files::{built_in, built_in_names};

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{AppService, HttpServiceFactory, Server, Service};
use actix_web::http::{header, Method};
use actix_web::{
    error, web, App, FromRequest, Handler, HttpRequest, HttpResponse, HttpServer, Resource,
    Responder,
};
use futures_util::future::{ready, Either};

pub use crate::config::Settings;
use crate::db::Database;
use crate::error::AppError;
use public_url::{origin, ConfiguredPublicUrl};
pub use public_url::{InvalidPublicUrl, PublicUrl};
use rate_limit::{AddressLimiter, RateLimits};
use static_files::StaticFiles;

/// Submissions are tiny (≤ 100 question ids and bits, an invitation code); anything bigger
/// is refused early.
pub const SUBMISSION_LIMIT_BYTES: usize = 16 * 1024;
/// A definition of 100 questions of 1 000 characters (4 bytes each at worst) fits.
pub const DEFINITION_LIMIT_BYTES: usize = 512 * 1024;
/// `{"count": N}`, `{"receipt": "..."}` and the like.
pub const SMALL_LIMIT_BYTES: usize = 1024;
/// Routes that take no body refuse any declared body.
pub const NO_BODY: usize = 0;

/// The builder's largest form: a question of 1 000 characters, percent-encoded.
pub const FORM_LIMIT_BYTES: usize = 64 * 1024;

/// Only the origin, and WebAssembly compilation for the mechanism; no inline script or style;
/// no site may frame the page.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; object-src 'none'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

/// [`CONTENT_SECURITY_POLICY`] with other `frame-ancestors` (a survey's embed origins).
pub fn content_security_policy(frame_ancestors: &str) -> String {
    let everywhere = CONTENT_SECURITY_POLICY
        .strip_suffix("'none'")
        .expect("the policy ends with its frame-ancestors");
    format!("{everywhere}{frame_ancestors}")
}

/// The headers that confine every response, pages and files alike: the policy above,
/// no type sniffing, no referrer, no framing. The form's own are [`form_headers`], which
/// `deniable verify` requires of a survey's page.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
];

/// A request body must arrive in full within this long after the request's head (10 s is
/// 51 KB/s for the largest body, a 512 KiB definition; submissions are at most 16 KiB).
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's head must arrive within this long after the connection opens (actix's
/// default, stated here because the body's limit above builds on it).
pub const HEAD_READ_TIMEOUT: Duration = Duration::from_secs(5);
/// After a response that leaves a body unread, the connection lingers this long, then closes.
pub const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Two years, the preload lists' minimum; sent only when the operator says HTTPS is in front.
pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=63072000; includeSubDomains";

/// Builds the server on an already bound listener (tests bind port 0).
pub fn server(listener: TcpListener, db: Database, settings: Settings) -> std::io::Result<Server> {
    let db = web::Data::new(db);
    let workers = settings.workers;
    let public_url = web::Data::new(ConfiguredPublicUrl(settings.public_url.clone()));
    let body_read_timeout = settings.body_read_timeout;
    // One set of limiters for all workers, so an address cannot multiply its allowance.
    let limits = web::Data::new(RateLimits {
        submissions: AddressLimiter::new(
            "submissions",
            settings.submissions_per_minute,
            settings.trust_forwarded_for,
        ),
        logins: AddressLimiter::new(
            "sign-in attempts",
            settings.logins_per_minute,
            settings.trust_forwarded_for,
        ),
    });
    let server = HttpServer::new(move || {
        let hsts = settings.hsts;
        App::new()
            .app_data(db.clone())
            .app_data(limits.clone())
            .app_data(public_url.clone())
            .app_data(web::PathConfig::default().error_handler(path_error))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .app_data(
                web::FormConfig::default()
                    .limit(FORM_LIMIT_BYTES)
                    .error_handler(form_error),
            )
            .configure(|config| routes(config, settings.static_dir.clone()))
            .default_service(web::to(not_found))
            // Every body's time limit (body_deadline.rs); inside the request log, so the
            // log records the 408.
            .wrap_fn(move |mut request, service| {
                let watch = body_deadline::watch(&mut request, body_read_timeout);
                let response = service.call(request);
                async move { Ok(body_deadline::answer(response.await?, watch)) }
            })
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
            // Outermost, so that every response, errors included, carries the headers.
            .wrap_fn(move |request, service| {
                let response = service.call(request);
                async move {
                    let mut response = response.await?;
                    add_security_headers(response.headers_mut(), hsts);
                    Ok(response)
                }
            })
    })
    .workers(workers)
    .client_request_timeout(HEAD_READ_TIMEOUT)
    .client_disconnect_timeout(DISCONNECT_TIMEOUT)
    // The CLI decides what a signal means (a graceful stop, then draining the writer);
    // actix would stop abruptly on Ctrl-C.
    .disable_signals()
    .listen(listener)?
    .run();
    Ok(server)
}

/// Adds each of [`SECURITY_HEADERS`] that the handler did not set. A handler that set its own
/// Content-Security-Policy (the form, with a survey's `frame-ancestors`) also decided the
/// frame policy: `X-Frame-Options` is then added only if it set one.
fn add_security_headers(headers: &mut header::HeaderMap, hsts: bool) {
    let own_policy = headers.contains_key(header::CONTENT_SECURITY_POLICY);
    for (name, value) in SECURITY_HEADERS {
        let name = header::HeaderName::from_static(name);
        if headers.contains_key(&name) || (own_policy && name == header::X_FRAME_OPTIONS) {
            continue;
        }
        headers.insert(name, header::HeaderValue::from_static(value));
    }
    if hsts && !headers.contains_key(header::STRICT_TRANSPORT_SECURITY) {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            header::HeaderValue::from_static(STRICT_TRANSPORT_SECURITY),
        );
    }
}

fn routes(config: &mut web::ServiceConfig, static_dir: Option<PathBuf>) {
    config
        .service(limited(
            resource("/healthz").get(healthz).head(healthz_head),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/openapi.json").get(openapi::openapi_json),
            NO_BODY,
        ))
        .service(limited(
            resource("/s/{slug}").get(pages::form::form),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys").post(api::surveys::create_survey),
            DEFINITION_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/api/surveys/{slug}")
                .get(api::responses::definition)
                .delete(api::surveys::delete_survey),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/responses").post(api::responses::submit),
            SUBMISSION_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/redemptions").post(api::redemptions::redeem),
            SMALL_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/responses/lookup").post(api::responses::lookup_response),
            SMALL_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/responses/withdraw")
                .post(api::responses::withdraw_response),
            SMALL_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/s/{slug}/receipt")
                .get(pages::receipt::receipt_page)
                .post(pages::receipt::receipt_action),
            SMALL_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/open").post(api::surveys::open),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/close").post(api::surveys::close),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/unblind").post(api::surveys::unblind),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/results").get(api::results::results),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/export.csv").get(api::exports::export_csv),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/export.ndjson").get(api::exports::export_ndjson),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/codebook.json").get(api::exports::codebook),
            NO_BODY,
        ))
        .service(limited(
            resource("/api/surveys/{slug}/invitations").post(api::invitations::create_invitations),
            SMALL_LIMIT_BYTES,
        ))
        .service(limited(
            resource("/static/{file}")
                .app_data(web::Data::new(StaticFiles(static_dir)))
                .get(static_files::static_file),
            NO_BODY,
        ))
        .configure(workspace_routes);
}

/// The researcher's workspace in the browser (HTML pages and their forms).
fn workspace_routes(config: &mut web::ServiceConfig) {
    use pages as w;
    config
        .service(resource("/").get(w::home))
        .service(resource("/login").get(w::login_form).post(w::login))
        .service(resource("/logout").post(w::logout))
        .service(resource("/setup/{token}").get(w::setup_form).post(w::setup))
        .service(resource("/surveys").get(w::surveys).post(w::create_survey))
        .service(
            resource("/surveys/{slug}/edit")
                .get(w::builder)
                .post(w::save_draft),
        )
        .service(resource("/surveys/{slug}/preview").get(w::preview))
        .service(
            resource("/surveys/{slug}/open")
                .get(w::confirm_open)
                .post(w::open),
        )
        .service(resource("/surveys/{slug}/close").post(w::close))
        .service(resource("/surveys/{slug}/unblind").post(w::unblind))
        .service(resource("/surveys/{slug}/delete").post(w::delete_survey))
        .service(resource("/surveys/{slug}/results").get(w::results_page))
        .service(resource("/surveys/{slug}/results.json").get(w::live_results))
        .service(resource("/surveys/{slug}/present").get(w::present))
        .service(resource("/surveys/{slug}/links").get(w::links_page))
        .service(resource("/surveys/{slug}/invitations").post(w::download_invitations))
        .service(resource("/designs/figures").get(w::design_figures))
        .service(resource("/account").get(w::account))
        .service(resource("/account/tokens").post(w::create_token))
        .service(resource("/account/tokens/{hash}/revoke").post(w::revoke_token))
        .service(resource("/account/signup-links").post(w::create_signup_link))
        .service(resource("/account/invitations").post(w::signup_links_moved));
}

/// A resource's routes, one method each; any other method is a JSON 405 whose `Allow`
/// header lists the methods there are (RFC 9110, 15.5.6).
struct Routes {
    resource: Resource,
    allowed: Vec<Method>,
}

fn resource(path: &str) -> Routes {
    Routes {
        resource: web::resource(path),
        allowed: Vec::new(),
    }
}

impl Routes {
    fn to<F, Args>(mut self, method: Method, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.resource = self.resource.route(web::method(method.clone()).to(handler));
        self.allowed.push(method);
        self
    }

    fn get<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.to(Method::GET, handler)
    }

    fn head<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.to(Method::HEAD, handler)
    }

    fn post<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.to(Method::POST, handler)
    }

    fn delete<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.to(Method::DELETE, handler)
    }

    fn app_data<T: 'static>(mut self, data: T) -> Self {
        self.resource = self.resource.app_data(data);
        self
    }

    fn finish(self) -> Resource {
        let allow = self
            .allowed
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        self.resource.default_service(web::to(move || {
            let allow = allow.clone();
            async move { Err::<HttpResponse, _>(AppError::MethodNotAllowed { allow }) }
        }))
    }
}

impl HttpServiceFactory for Routes {
    fn register(self, config: &mut AppService) {
        self.finish().register(config);
    }
}

/// Gives a resource its body limit: a declared `Content-Length` above it is refused before
/// any handler runs, and the JSON extractor stops reading a streamed body at the same size.
fn limited(resource: Routes, limit_bytes: usize) -> impl HttpServiceFactory {
    resource
        .finish()
        .app_data(json_config(limit_bytes))
        .wrap_fn(move |request, service| {
            let declared = request
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<u64>().ok());
            if declared.is_some_and(|length| length > limit_bytes as u64) {
                let refused = request
                    .error_response(AppError::PayloadTooLarge { limit_bytes })
                    .map_into_boxed_body();
                Either::Left(ready(Ok(refused)))
            } else {
                let response = service.call(request);
                Either::Right(async move { Ok(response.await?.map_body(|_, body| body.boxed())) })
            }
        })
}

fn json_config(limit_bytes: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit_bytes)
        .error_handler(move |error, request| json_error(error, request, limit_bytes))
}

fn json_error(
    error: error::JsonPayloadError,
    _: &HttpRequest,
    limit_bytes: usize,
) -> actix_web::Error {
    use error::JsonPayloadError as Json;
    let app_error = match error {
        Json::OverflowKnownLength { limit, .. } | Json::Overflow { limit } => {
            AppError::PayloadTooLarge { limit_bytes: limit }
        }
        // The decoder's own overflow does not say which limit; the route does.
        Json::Payload(error::PayloadError::Overflow) => AppError::PayloadTooLarge { limit_bytes },
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

/// No route: a JSON 404, but under `/s/` (where respondents follow links) the form's HTML
/// "survey not found" page.
async fn not_found(request: HttpRequest) -> Result<HttpResponse, AppError> {
    if request.path().starts_with("/s/") {
        return Ok(pages::respondent_error::unknown_page(&request));
    }
    Err(AppError::NotFound("page"))
}

/// GET /healthz: liveness only; touches no database, so it measures the bare HTTP stack.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "service",
    responses((status = 200, description = "`ok`", body = String, content_type = "text/plain")),
)]
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// HEAD /healthz: the same without the body, for load balancers.
#[utoipa::path(
    head,
    path = "/healthz",
    tag = "service",
    operation_id = "healthz_head",
    responses((status = 200, description = "Alive (no body).", content_type = "text/plain")),
)]
async fn healthz_head() -> HttpResponse {
    healthz().await
}
