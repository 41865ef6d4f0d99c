//! The HTTP API (JSON), a file per resource; src/http/openapi.rs describes it.

pub mod docs;
pub mod exports;
pub mod invitations;
pub mod redemptions;
pub mod responses;
pub mod results;
pub mod surveys;
