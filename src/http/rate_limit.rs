//! Per-address limits on submissions and on sign-in attempts, held in memory only.
//!
//! The client address is a key of an in-memory map and nothing else: it is never logged,
//! stored, or put in an error (privacy invariant 4); a restart forgets every address.

use std::future::{ready, Ready};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::{AppError, PageError};

/// Every this many checks, addresses whose allowance is full again are forgotten, so
/// memory stays bounded by the addresses of the last minute or so.
const SWEEP_EVERY: u64 = 4096;

/// The server's two limiters, shared by all workers so an address cannot multiply its
/// allowance: submissions (the respondent's path) and sign-in attempts (the workspace).
pub struct RateLimits {
    pub submissions: AddressLimiter,
    pub logins: AddressLimiter,
}

/// One allowance per client address (IPv6: per /64).
pub struct AddressLimiter {
    limiter: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// What is counted, for the message: "submissions", "sign-in attempts".
    what: &'static str,
    /// Take the client from the last `X-Forwarded-For` entry (set by a trusted proxy).
    trust_forwarded_for: bool,
    checks: AtomicU64,
}

impl AddressLimiter {
    /// `None`: unlimited. Otherwise a burst of `per_minute`, refilled evenly over a minute.
    pub fn new(
        what: &'static str,
        per_minute: Option<NonZeroU32>,
        trust_forwarded_for: bool,
    ) -> Self {
        Self {
            limiter: per_minute.map(|n| RateLimiter::keyed(Quota::per_minute(n))),
            what,
            trust_forwarded_for,
            checks: AtomicU64::new(0),
        }
    }

    fn check(&self, request: &HttpRequest) -> Result<(), AppError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let Some(client) = self.client(request) else {
            return Ok(()); // No address (e.g. a Unix socket): nothing to key on.
        };
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            AppError::TooManyRequests {
                code: "too_many_requests",
                message: format!(
                    "too many {} from this network address; try again in {retry_after_secs} s",
                    self.what
                ),
                retry_after_secs: Some(retry_after_secs),
            }
        })
    }

    fn client(&self, request: &HttpRequest) -> Option<IpAddr> {
        let forwarded = self
            .trust_forwarded_for
            .then(|| request.headers().get("x-forwarded-for"))
            .flatten()
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.rsplit(',').next())
            .and_then(|last| last.trim().parse().ok());
        forwarded
            .or_else(|| request.peer_addr().map(|addr| addr.ip()))
            .map(network_of)
    }
}

/// One IPv6 holder usually controls a whole /64, so that is the unit limited.
fn network_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::from(segments)
            }
        },
    }
}

fn check(
    request: &HttpRequest,
    limiter: fn(&RateLimits) -> &AddressLimiter,
) -> Result<(), AppError> {
    match request.app_data::<web::Data<RateLimits>>() {
        Some(limits) => limiter(limits).check(request),
        None => Err(AppError::internal("the rate limiters are not configured")),
    }
}

/// Extracting this in a handler spends one of the client's submissions, or fails with 429
/// (JSON, with `Retry-After`).
pub struct SubmissionAllowed;

impl FromRequest for SubmissionAllowed {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(check(request, |limits| &limits.submissions).map(|()| Self))
    }
}

/// Extracting this in a handler spends one of the client's sign-in attempts, or fails with
/// 429 (a readable page, with `Retry-After`). It guards every account at once, where the
/// per-account throttle guards one account from every address.
pub struct LoginAllowed;

impl FromRequest for LoginAllowed {
    type Error = PageError;
    type Future = Ready<Result<Self, PageError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            check(request, |limits| &limits.logins)
                .map(|()| Self)
                .map_err(PageError::from),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::network_of;
    use std::net::IpAddr;

    #[test]
    fn ipv6_addresses_are_limited_per_64_and_ipv4_per_address() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(network_of(a), network_of(b));
        assert_ne!(network_of(a), network_of(c));
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(network_of(v4), v4);
        assert_eq!(network_of("::ffff:192.0.2.7".parse().unwrap()), v4);
    }
}
