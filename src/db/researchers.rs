//! What accounts, sessions and tokens ask of storage, by meaning.
