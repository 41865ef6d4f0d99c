-- Migration 0005: blind invitation tokens (issue 20; docs/design.md, invariant 10).
--
-- An invitation is no longer spent with a response: it buys a blind token in one request
-- (a redemption) and the token is spent with the response in another. Nothing stored by
-- the one refers to the other: the redemption keeps the invitation's hash with the blinded
-- element and its evaluation, the response keeps the hash of the token's input, and the
-- token's input is hidden in the blinded element by a blind that never leaves the device.
--
-- Every table here is keyed by a random value (a hash), so a compaction epoch (VACUUM)
-- leaves its rows, and the cells inside each page, in key order, never in arrival order.

-- One key pair per survey that requires invitations (RFC 9497, ristretto255-SHA512),
-- drawn when invitations are enabled. The private key is erased (NULL) when the survey
-- closes; the public key stays, so its fingerprint can still be checked afterwards.
CREATE TABLE invitation_keys (
    survey_id   INTEGER PRIMARY KEY REFERENCES surveys (id) ON DELETE CASCADE,
    public_key  BLOB NOT NULL CHECK (length(public_key) = 32),
    private_key BLOB CHECK (private_key IS NULL OR length(private_key) = 32)
);

-- Used invitations: the invitation's hash moves here from `invitations` when it is
-- redeemed, with the blinded element it was redeemed for and the evaluation and proof
-- the server answered, so that a retry with the same blinded element gets the same bytes
-- (the proof is fresh at every evaluation) and any other blinded element is refused.
CREATE TABLE redemptions (
    survey_id  INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    code_hash  BLOB NOT NULL CHECK (length(code_hash) = 32),
    blinded    BLOB NOT NULL CHECK (length(blinded) = 32),
    evaluation BLOB NOT NULL CHECK (length(evaluation) = 32),
    proof      BLOB NOT NULL CHECK (length(proof) = 64),
    PRIMARY KEY (survey_id, code_hash)
) WITHOUT ROWID;

-- Spent tokens: SHA-256 of each token's input, inserted in the transaction that stores
-- its response (which it does not name), so that a token buys at most one response.
CREATE TABLE spent_tokens (
    survey_id  INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    input_hash BLOB NOT NULL CHECK (length(input_hash) = 32),
    PRIMARY KEY (survey_id, input_hash)
) WITHOUT ROWID;
