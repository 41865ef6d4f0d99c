//! What the respondent's side asks of storage, by meaning (docs/design.md, "Storage").
