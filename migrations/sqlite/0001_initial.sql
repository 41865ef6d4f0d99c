-- Migration 0001: the schema of the first release (main up to 80e3bd5), as it was.
-- Every statement is IF NOT EXISTS, so a database made by that release (user_version 0)
-- passes through it unchanged before 0002 converts it. Later steps: 0002_*.sql.
--
-- Privacy invariant 3: a stored response is its survey, a response id (the hex SHA-256
-- of the respondent's secret receipt) and, per question, the ε and the report. There is
-- no IP address, user agent, timestamp, cookie or sequence number anywhere in this file,
-- and responses/reports are WITHOUT ROWID tables keyed by the response id, so even the
-- storage order is the (random) hash order, not the arrival order.

CREATE TABLE IF NOT EXISTS researchers (
    id            INTEGER PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    -- NULL for built-in accounts that can never log in (the demo owner).
    password_hash BLOB,
    password_salt BLOB
);

CREATE TABLE IF NOT EXISTS api_tokens (
    -- SHA-256 of the bearer token; the token itself is shown once and never stored.
    token_hash    BLOB PRIMARY KEY,
    researcher_id INTEGER NOT NULL REFERENCES researchers (id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS surveys (
    id                  INTEGER PRIMARY KEY,
    slug                TEXT NOT NULL UNIQUE,
    owner_id            INTEGER NOT NULL REFERENCES researchers (id),
    title               TEXT NOT NULL,
    description         TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'closed')),
    planned_respondents INTEGER NOT NULL DEFAULT 1000 CHECK (planned_respondents > 0),
    requires_invitation INTEGER NOT NULL DEFAULT 0 CHECK (requires_invitation IN (0, 1))
);

CREATE TABLE IF NOT EXISTS questions (
    id        INTEGER PRIMARY KEY,
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    text      TEXT NOT NULL,
    -- Frozen once the survey opens (nothing updates it afterwards).
    epsilon   REAL NOT NULL CHECK (epsilon > 0),
    required  INTEGER NOT NULL DEFAULT 1 CHECK (required IN (0, 1)),
    UNIQUE (survey_id, position)
);

CREATE TABLE IF NOT EXISTS responses (
    survey_id   INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    response_id TEXT NOT NULL UNIQUE,
    PRIMARY KEY (survey_id, response_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS reports (
    response_id TEXT NOT NULL REFERENCES responses (response_id) ON DELETE CASCADE,
    question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    epsilon     REAL NOT NULL,
    report      INTEGER NOT NULL CHECK (report IN (0, 1)),
    PRIMARY KEY (response_id, question_id)
) WITHOUT ROWID;

-- The unused invitations of surveys that require one: only the SHA-256 of each code (the
-- code itself is in the owner's mail merge). Using an invitation deletes its row in the
-- transaction that stores the response, so nothing here refers to a response, and with
-- secure_delete the deleted hash is overwritten rather than left in a free page.
CREATE TABLE IF NOT EXISTS invitations (
    code_hash BLOB PRIMARY KEY,
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE
) WITHOUT ROWID;

-- Running per-(question, ε) counts, changed in the same transaction as the reports, so
-- results cost O(1) whatever the number of responses.
CREATE TABLE IF NOT EXISTS tallies (
    question_id  INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    epsilon      REAL NOT NULL,
    n            INTEGER NOT NULL DEFAULT 0 CHECK (n >= 0),
    reported_yes INTEGER NOT NULL DEFAULT 0 CHECK (reported_yes >= 0 AND reported_yes <= n),
    PRIMARY KEY (question_id, epsilon)
) WITHOUT ROWID;

-- The researcher's workspace in the browser (issue 4). Only researchers' own activity is
-- kept here, never anything about respondents; instants are stored as expiry deadlines
-- (Unix seconds) so that nothing records when something was created.

-- Browser sessions: the cookie holds a random 256-bit token; only its SHA-256 is stored.
CREATE TABLE IF NOT EXISTS sessions (
    token_hash          BLOB PRIMARY KEY,
    researcher_id       INTEGER NOT NULL REFERENCES researchers (id) ON DELETE CASCADE,
    -- The session ends at the earlier of the two: idle expiry moves on with each use.
    idle_expires_at     INTEGER NOT NULL,
    absolute_expires_at INTEGER NOT NULL
) WITHOUT ROWID;

-- One-time links that create an account: the first one printed by `serve` (no inviter)
-- and invitations made by a signed-in researcher. Only the token's SHA-256 is stored.
CREATE TABLE IF NOT EXISTS signup_links (
    token_hash  BLOB PRIMARY KEY,
    invited_by  INTEGER REFERENCES researchers (id) ON DELETE CASCADE,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- Failed sign-ins per account (no address, no user agent), each forgotten after an hour.
CREATE TABLE IF NOT EXISTS login_failures (
    researcher_id INTEGER NOT NULL REFERENCES researchers (id) ON DELETE CASCADE,
    forget_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS login_failures_by_researcher
    ON login_failures (researcher_id, forget_at);
