//! The HTML pages, a file per resource: the researcher's workspace (sign-in, the surveys
//! list, the builder, what a design means, results and present mode, the account) and the
//! respondents' pages (the form, the receipt page, their error pages). Every page is an
//! askama template; every state-changing form of the workspace is a [`CsrfForm`]; every
//! survey is looked up with its owner inside the query, so another researcher's survey is
//! a 404.
//!
//! [`CsrfForm`]: crate::http::extract::CsrfForm

mod account;
mod breakdown;
mod builder;
mod design;
mod draft_form;
pub mod form;
mod reading;
pub mod receipt;
mod refusal;
pub mod respondent_error;
mod results;
mod sign_in;
mod study_links;
mod surveys;

pub use account::{account, create_signup_link, create_token, revoke_token, signup_links_moved};
pub use builder::{builder, close, confirm_open, delete_survey, open, preview, save_draft};
pub use design::figures as design_figures;
pub use results::{
    download_invitations, live_results, present, results_page, unblind, RESULTS_PAGE_PARAMETERS,
};
pub use sign_in::{home, login, login_form, logout, setup, setup_form};
pub use study_links::links_page;
pub use surveys::{create_survey, surveys};

use actix_web::http::header;
use actix_web::HttpResponse;
use askama::Template;

use super::auth::Session;
use crate::error::PageError;

type Page = Result<HttpResponse, PageError>;

fn html(page: &impl Template) -> Page {
    let body = page.render()?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        // Pages carry CSRF tokens and private results: never cached.
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// The header of every signed-in page: who is signed in, and the sign-out form's token.
struct Nav {
    email: String,
    csrf: String,
}

impl Nav {
    fn of(session: &Session) -> Self {
        Self {
            email: session.email.clone(),
            csrf: session.csrf.as_str().to_owned(),
        }
    }
}
