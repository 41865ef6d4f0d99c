//! What several operations of the API share in their documentation and headers: the `{slug}`
//! parameter, the 401 and 403 descriptions, and `no-store` for the owner's private data.
//! Here, not in src/http/openapi.rs, so that handlers and the document import in one
//! direction only.

use actix_web::http::header;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::Required;
use utoipa::IntoParams;

/// The 401 of every owner route.
pub const UNAUTHORIZED: &str = "`unauthorized`: no `Authorization: Bearer <token>` \
     with a valid API token (nor a signed-in session). Answered before any body is read.";

/// The 403 of every owner route that changes something.
pub const CSRF_REFUSED: &str = "`csrf_token_missing`: only with a browser's session \
     cookie instead of a token, when the `X-CSRF-Token` header is missing or wrong.";

/// Results, exports and codebooks are the owner's private data: no browser or proxy may
/// keep a copy (a shared machine, a caching proxy, the back button after signing out).
pub const PRIVATE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-store");

/// The `{slug}` of every survey route.
pub struct SlugPath;

impl IntoParams for SlugPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let slug = ObjectBuilder::new()
            .schema_type(Type::String)
            .examples(["demo"]);
        vec![ParameterBuilder::new()
            .name("slug")
            .parameter_in(ParameterIn::Path)
            .required(Required::True)
            .description(Some(
                "The survey's slug: 1 to 64 of `a-z`, `0-9` and inner `-` (anything else names \
                 no survey: 404). Every fresh database has the open survey `demo`.",
            ))
            .schema(Some(slug))
            .build()]
    }
}
