-- Migration 0012: withdrawals by release, and every survey under one model (issue 41;
-- docs/design.md, invariant 11 and "Releases").
--
-- A *release* is the responses of one cell that entered the owner's figures at one step.
-- Each has a random id (so that a copy of the files does not order releases by time), its
-- cell, how many responses it had and how many of them are still stored (`remaining`), and
-- whether it left the figures for good (`withheld`: a withdrawal left it with 1 to k − 1
-- responses, so its other responses are withheld as at close). `release_members` names each
-- released response's release: a copy of the files therefore shows which responses entered
-- the figures together (docs/design.md, invariant 8, says so; a seal under a key from the
-- response id would have hidden it, but then the server could not find the other members
-- of a release it must withhold, nor leave them out of an export).
CREATE TABLE cell_releases (
    survey_id  INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    release_id INTEGER NOT NULL,
    cell       BLOB NOT NULL,
    members    INTEGER NOT NULL CHECK (members >= 0),
    remaining  INTEGER NOT NULL CHECK (remaining >= 0 AND remaining <= members),
    withheld   INTEGER NOT NULL DEFAULT 0 CHECK (withheld IN (0, 1)),
    PRIMARY KEY (survey_id, release_id)
) WITHOUT ROWID;

CREATE TABLE release_members (
    survey_id  INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id  BLOB NOT NULL CHECK (length(record_id) = 32),
    release_id INTEGER NOT NULL,
    PRIMARY KEY (survey_id, record_id)
) WITHOUT ROWID;

-- The report pairs of every two randomized questions over the responses in the figures
-- (released, in a release not withheld, still stored): what a cross-tabulation reads. One
-- blob per survey (src/db/releases.rs, `PairTables`).
CREATE TABLE released_pairs (
    survey_id INTEGER PRIMARY KEY REFERENCES surveys (id) ON DELETE CASCADE,
    pairs     BLOB NOT NULL
);

-- Surveys without grouping questions join the model: considerations every k and release
-- state for them too. The data step (src/db/migrations.rs) gives every survey that
-- collected its releases: one per cell of every response already released (how earlier
-- releases were batched was not recorded), and for an open or closed survey without
-- grouping questions or invitations one release of everything stored so far.
