//! The account page: API tokens, and one-time links for colleagues.

use actix_web::{web, HttpRequest};
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
    invitation_link: Option<String>,
}

async fn account_page(
    db: &Database,
    session: &Session,
    new_token: Option<String>,
    invitation_link: Option<String>,
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
        invitation_link,
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

/// POST /account/invitations: a one-time link for a colleague, shown on this response only.
pub async fn create_invitation(
    request: HttpRequest,
    db: web::Data<Database>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let origin = crate::http::origin(&request)?;
    let link = accounts::create_invitation(&db, session.researcher).await?;
    let url = format!("{}/setup/{}", origin, link.expose());
    account_page(&db, &session, None, Some(url)).await
}
