//! Tests whose subject is SQLite's files themselves: what the columns of the file hold
//! (docs/design.md, invariant 3), what a deletion or a close leaves in every file, the first
//! release's database migrated in place, and the epochs with other processes on the same
//! file. They read the file directly, which only the SQLite engine has; the PostgreSQL
//! meaning of each has tests of its own (tests/postgres/). Every other module reaches data
//! through the app or the storage seam and runs on both engines (scripts/test lists the
//! SQLite-only modules in one place).

mod epochs;
mod first_release;
mod scans;
mod schema;
