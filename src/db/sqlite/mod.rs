//! What only SQLite has: its writer loop with the compaction epochs, the epochs themselves
//! (the file rewritten in key order, the WAL truncated) and online backup and restore.

pub mod backup;
pub mod compaction;
pub(super) mod live_state;
mod rules;
pub(super) mod writer;

pub use rules::{connection, Sqlite};
