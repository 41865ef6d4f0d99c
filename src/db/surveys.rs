//! What a survey's owner asks of storage about surveys, by meaning.
