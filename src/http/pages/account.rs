//! The account page: API tokens, and colleagues' one-time sign-up links.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use super::{html, see_other, Nav, Page};
use crate::db::Database;
use crate::domain::{ApiToken, TokenHash};
use crate::http::auth::Session;
use crate::http::extract::{CsrfForm, SignedIn};
use crate::services::accounts;

#[derive(Template)]
#[template(path = "workspace/account.html")]
struct AccountPage {
    nav: Option<Nav>,
    csrf: String,
    tokens: Vec<(String, String)>,
    new_token: Option<String>,
    signup_link: Option<String>,
    /// How long a sign-up link works, from the one constant that decides it.
    signup_link_days: i64,
}

async fn account_page(
    db: &Database,
    session: &Session,
    new_token: Option<String>,
    signup_link: Option<String>,
) -> Page {
    let tokens = db.api_tokens(session.researcher).await?;
    html(&AccountPage {
        nav: Some(Nav::of(session)),
        csrf: session.csrf.as_str().to_owned(),
        tokens: tokens
            .into_iter()
            .map(|hash| {
                let hex = hash.to_hex();
                (hex[..12].to_owned(), hex)
            })
            .collect(),
        new_token,
        signup_link,
        signup_link_days: accounts::SIGNUP_LINK_SECONDS / (24 * 60 * 60),
    })
}

/// GET /account
pub async fn account(db: web::Data<Database>, signed_in: SignedIn) -> Page {
    account_page(&db, &signed_in.0, None, None).await
}

/// POST /account/tokens: a new API token, shown on this response only.
pub async fn create_token(db: web::Data<Database>, CsrfForm { session, .. }: CsrfForm) -> Page {
    let token = ApiToken::generate()?;
    db.add_api_token(session.researcher, token.hash()).await?;
    account_page(&db, &session, Some(token.expose().to_owned()), None).await
}

/// POST /account/tokens/{hash}/revoke
pub async fn revoke_token(
    db: web::Data<Database>,
    hash: web::Path<String>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let hash = TokenHash::from_hex(&hash)?;
    db.revoke_api_token(session.researcher, hash).await?;
    Ok(see_other("/account"))
}

/// POST /account/signup-links: a one-time sign-up link for a colleague, shown on this
/// response only.
pub async fn create_signup_link(
    request: HttpRequest,
    db: web::Data<Database>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let origin = crate::http::origin(&request)?;
    let link = accounts::create_signup_link(&db, session.researcher).await?;
    let url = format!("{}/setup/{}", origin, link.expose());
    account_page(&db, &session, None, Some(url)).await
}

/// POST /account/invitations, the route's name before sign-up links had theirs: an account
/// page loaded before an upgrade still posts there. A 308 keeps the method and the form, so
/// the new route checks the form's CSRF token as ever; this one changes nothing.
pub async fn signup_links_moved() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/account/signup-links"))
        .finish()
}
