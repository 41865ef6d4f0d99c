//! What only PostgreSQL has: its writer loop under the lock every node's writes take, and
//! the rewrite of a survey's rows in key order when it closes.

pub(super) mod live_state;
pub mod rewrite;
mod rules;
pub(super) mod writer;

pub use rules::{connection, Postgres};
