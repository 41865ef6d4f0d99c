-- Migration 0005 on PostgreSQL (migrations/sqlite/0005_blind_tokens.sql): blind invitation
-- tokens. Each survey's key pair, the used invitations with the evaluation they were
-- answered, the spent tokens. A single-use invitation or token is used once across every
-- node: the primary keys below refuse a second row, whichever node writes it.
CREATE TABLE invitation_keys (
    survey_id   bigint PRIMARY KEY REFERENCES surveys (id) ON DELETE CASCADE,
    public_key  bytea NOT NULL CHECK (length(public_key) = 32),
    private_key bytea CHECK (private_key IS NULL OR length(private_key) = 32)
);

CREATE TABLE redemptions (
    survey_id  bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    code_hash  bytea NOT NULL CHECK (length(code_hash) = 32),
    blinded    bytea NOT NULL CHECK (length(blinded) = 32),
    evaluation bytea NOT NULL CHECK (length(evaluation) = 32),
    proof      bytea NOT NULL CHECK (length(proof) = 64),
    PRIMARY KEY (survey_id, code_hash)
);

CREATE TABLE spent_tokens (
    survey_id  bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    input_hash bytea NOT NULL CHECK (length(input_hash) = 32),
    PRIMARY KEY (survey_id, input_hash)
);
