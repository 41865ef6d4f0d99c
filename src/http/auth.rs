//! The owner's bearer token, taken from the `Authorization` header.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest};

use crate::domain::TokenHash;
use crate::error::AppError;

/// The presented token, already hashed; whether it owns anything is decided in SQL.
pub struct Owner(TokenHash);

impl Owner {
    pub fn token(&self) -> &TokenHash {
        &self.0
    }
}

impl FromRequest for Owner {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let token = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|token| !token.is_empty());
        ready(match token {
            Some(token) => Ok(Self(TokenHash::of_presented(token))),
            None => Err(AppError::Unauthorized),
        })
    }
}
