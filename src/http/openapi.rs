//! GET /api/openapi.json: the HTTP API described for machines (OpenAPI 3.1), generated
//! from the annotations on the handlers and the body types. Public: it describes the API,
//! not anyone's data.
//!
//! The annotations are written by hand, so two things keep them honest: a test compares
//! the document's operations with the router (tests/api/openapi.rs), and Schemathesis
//! checks every response against the document (scripts/fuzz-api).

use std::sync::LazyLock;

use actix_web::HttpResponse;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Content, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use super::api::{exports, invitations, redemptions, responses, results, surveys};
use super::pages::{form, receipt};
use super::static_files;

const DESCRIPTION: &str = "\
Surveys on sensitive yes/no questions with randomized response on the respondent's device: \
the server only ever receives randomized reports, and owners get debiased estimates with \
confidence intervals.

**Errors** are always JSON, `{\"error\": {\"code\": \"...\", \"message\": \"...\"}}` \
(`ErrorBody`): `code` is stable and machine-readable, `message` is for people. A 500 \
(`internal`) has the same shape and says nothing about its cause.

**Owners** authenticate with `Authorization: Bearer <token>` (`deniable token create EMAIL`, \
or the workspace's account page). A survey that is not yours is a 404, like one that does \
not exist. In the browser, a session cookie also works, with the header `X-CSRF-Token` on \
anything that changes state.

**Limits.** Every operation refuses a body larger than its limit with 413 (operations without \
a request body take none at all); a body must arrive in full within 10 s of the request's head \
(else 408, and the connection closes); JSON bodies need `Content-Type: application/json` \
(else 415). Submissions are rate-limited per client address (429 with `Retry-After`). Any \
other method on a documented path is a 405.

**Left out:** the researchers' workspace, HTML pages and their forms for people in a browser \
(`/`, `/login`, `/logout`, `/setup/{token}`, `/surveys/...`, `/account/...`, and the \
builder's `/designs/figures`). Everything a script needs is here.";

#[derive(OpenApi)]
#[openapi(
    info(title = "Deniable", description = DESCRIPTION),
    paths(
        super::healthz,
        super::healthz_head,
        openapi_json,
        form::form,
        responses::definition,
        redemptions::redeem,
        responses::submit,
        responses::lookup_response,
        responses::withdraw_response,
        receipt::receipt_page,
        receipt::receipt_action,
        surveys::create_survey,
        surveys::delete_survey,
        surveys::open,
        surveys::close,
        surveys::unblind,
        results::results,
        exports::export_csv,
        exports::export_ndjson,
        exports::codebook,
        invitations::create_invitations,
        static_files::static_file,
    ),
    components(schemas(
        crate::export::ExportRecord,
        crate::breakdown::Breakdown,
        crate::joint::JointResults
    )),
    modifiers(&BearerToken, &CommonStatuses),
    tags(
        (name = "respondent", description = "What respondents (and their devices) reach: \
            public by design."),
        (name = "owner", description = "A survey's owner: needs a bearer token."),
        (name = "service", description = "Liveness, this document and the static files."),
    )
)]
struct ApiDoc;

/// The document, as served.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

static DOCUMENT_JSON: LazyLock<String> = LazyLock::new(|| {
    document()
        .to_pretty_json()
        .expect("the OpenAPI document serializes")
});

/// GET /api/openapi.json: this API's OpenAPI 3.1 document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "service",
    responses(
        (status = 200, description = "This document.", body = Object,
            content_type = "application/json"),
    )
)]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(DOCUMENT_JSON.as_str())
}

/// The bearer-token scheme the owner operations name.
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut bearer = Http::new(HttpAuthScheme::Bearer);
        bearer.description = Some(
            "An API token: `deniable token create EMAIL`, or the workspace's account page. \
             Shown once; the server keeps only its hash."
                .to_owned(),
        );
        components.add_security_scheme("bearer", SecurityScheme::Http(bearer));
    }
}

/// The statuses that follow from how every route is mounted (`limited` and the body's time
/// limit in src/http/mod.rs), added to every operation they apply to, and the 500 that any
/// of them can answer.
struct CommonStatuses;

impl Modify for CommonStatuses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.head,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                add_body_statuses(operation);
            }
        }
    }
}

fn error(description: &str) -> utoipa::openapi::RefOr<utoipa::openapi::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
        .into()
}

fn add_body_statuses(operation: &mut Operation) {
    let responses = &mut operation.responses.responses;
    responses.insert(
        "500".to_owned(),
        error("`internal`: a fault on the server's side; the cause is logged, never sent."),
    );
    let Some(body) = &operation.request_body else {
        responses.insert(
            "413".to_owned(),
            error("`payload_too_large`: this operation takes no request body."),
        );
        return;
    };
    responses.insert(
        "413".to_owned(),
        error("`payload_too_large`: the body is larger than this operation's limit (the message says which)."),
    );
    responses.insert(
        "408".to_owned(),
        error("`request_timeout`: the body did not arrive in full within the time limit; the connection is closed."),
    );
    if body.content.contains_key("application/json") {
        responses.insert(
            "415".to_owned(),
            error("`unsupported_media_type`: the body is not sent as `application/json`."),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::domain::{
        MAX_DESCRIPTION_CHARS, MAX_INVITATIONS_PER_REQUEST, MAX_PLANNED_RESPONDENTS, MAX_QUESTIONS,
        MAX_QUESTION_CHARS, MAX_TITLE_CHARS,
    };
    use randomized_response::PrivacyLevel;

    fn schema(name: &str) -> Value {
        let document = serde_json::to_value(super::document()).unwrap();
        document["components"]["schemas"][name].clone()
    }

    /// A property of a schema, looked up in its own properties and in those of the schemas
    /// it combines (`allOf`, as `#[serde(flatten)]` documents), following references.
    fn property_of(name: &str) -> impl Fn(&str) -> Value {
        fn find(schema: &Value, property: &str) -> Option<Value> {
            if let Some(found) = schema["properties"].get(property) {
                return Some(found.clone());
            }
            if let Some(reference) = schema["$ref"].as_str() {
                let name = reference.rsplit('/').next().unwrap_or_default();
                return find(&super::tests::schema(name), property);
            }
            schema["allOf"]
                .as_array()?
                .iter()
                .find_map(|part| find(part, property))
        }
        let schema = schema(name);
        move |property| find(&schema, property).unwrap_or(Value::Null)
    }

    /// The annotations take literal numbers only: here they meet the constants.
    #[test]
    fn the_documented_limits_are_the_constants_of_the_domain() {
        let definition = schema("SurveyDefinition");
        let properties = &definition["properties"];
        assert_eq!(properties["title"]["maxLength"], MAX_TITLE_CHARS);
        assert_eq!(
            properties["description"]["maxLength"],
            MAX_DESCRIPTION_CHARS
        );
        assert_eq!(
            properties["planned_respondents"]["maximum"],
            MAX_PLANNED_RESPONDENTS
        );
        assert_eq!(
            properties["min_cell"]["maximum"],
            crate::domain::MinCell::MAX
        );
        assert_eq!(properties["questions"]["maxItems"], MAX_QUESTIONS);
        assert_eq!(
            properties["completion_url"]["maxLength"],
            crate::domain::MAX_COMPLETION_URL_CHARS
        );
        assert_eq!(
            properties["embed_origins"]["maxItems"],
            crate::domain::MAX_EMBED_ORIGINS
        );
        assert_eq!(
            schema("PublicDefinition")["properties"]["embed_origins"]["maxItems"],
            crate::domain::MAX_EMBED_ORIGINS
        );
        let question = property_of("QuestionDefinition");
        assert_eq!(question("text")["maxLength"], MAX_QUESTION_CHARS);
        assert_eq!(question("epsilon")["minimum"], PrivacyLevel::MIN_EPSILON);
        assert_eq!(question("epsilon")["maximum"], PrivacyLevel::MAX_EPSILON);
        assert_eq!(
            question("options")["maxItems"],
            randomized_response::MAX_OPTIONS
        );
        assert_eq!(
            question("options")["minItems"],
            randomized_response::MIN_OPTIONS
        );
        let invitations = &schema("InvitationsRequest")["properties"];
        assert_eq!(invitations["count"]["maximum"], MAX_INVITATIONS_PER_REQUEST);
    }

    /// Issue 20: an invitation buys a token in one request; the response carries the token.
    #[test]
    fn a_submission_carries_a_token_and_a_redemption_the_invitation() {
        let submission = &schema("Submission")["properties"];
        assert!(submission.get("token").is_some());
        assert!(submission.get("invitation").is_none());
        let token = &schema("Token")["properties"];
        assert!(token.get("input").is_some() && token.get("output").is_some());
        let redemption = &schema("RedemptionRequest")["properties"];
        assert!(redemption.get("invitation").is_some() && redemption.get("blinded").is_some());
        let evaluation = &schema("Evaluation")["properties"];
        assert!(evaluation.get("evaluation").is_some() && evaluation.get("proof").is_some());
        let definition = &schema("PublicDefinition")["properties"];
        assert!(definition.get("invitation_key").is_some());
        let document = serde_json::to_value(super::document()).unwrap();
        assert!(document["paths"]["/api/surveys/{slug}/redemptions"]["post"].is_object());
    }

    /// Issue 32: an interval may be empty (its ends null), and every question plans for
    /// the primary interval.
    #[test]
    fn intervals_may_be_empty_and_questions_carry_their_planning() {
        let interval = &schema("IntervalBounds");
        for end in ["low", "high"] {
            let types = &interval["properties"][end]["type"];
            assert!(
                types.as_array().is_some_and(|t| t.contains(&"null".into())),
                "{end}: {types}"
            );
        }
        assert_eq!(interval["properties"]["empty"]["type"], "boolean");
        let required = interval["required"].as_array().unwrap();
        assert!(required.contains(&"empty".into()), "{required:?}");
        let question = property_of("QuestionResults");
        assert!(question("planning").is_object());
        let planning = &schema("Planning")["properties"];
        for field in [
            "interval",
            "for_5_points",
            "for_10_points",
            "chernoff_for_5_points",
            "chernoff_for_10_points",
        ] {
            assert!(planning.get(field).is_some(), "{field}");
        }
        let one_sided = &schema("OneSided")["properties"];
        assert_eq!(one_sided["empty"]["type"], "array");
    }
}
