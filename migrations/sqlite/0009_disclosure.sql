-- Migration 0009: one disclosure model for every owner view (issue 30; docs/design.md,
-- invariant 11 and "Releases").
--
-- A survey with grouping questions or invitations shows its owner report-derived figures
-- only from *released* responses. Its cells (each combination of grouping answers; one
-- cell without grouping questions) are fixed when it opens. Releases are considered every
-- k (= min_cell) stored responses — counted by `received`, which withdrawals never lower —
-- (with invitations: also every k redemptions) and at close; at a consideration each cell
-- holding at least k unreleased responses is released whole. The rest wait, and at close
-- stay withheld for good.
--
-- Release state is stored (docs/design.md, invariant 8 says what a copy of the files then
-- shows): `unreleased_responses` names the responses not yet released (a random key, no
-- order), `released_cells` holds, per cell, the report counts of its released responses
-- still stored (a withdrawal leaves them in the transaction that deletes the response),
-- and the survey row the counters of the last consideration.

-- No report-derived figure before close (invitation surveys: default for new ones).
ALTER TABLE surveys ADD COLUMN results_after_close INTEGER NOT NULL DEFAULT 0
    CHECK (results_after_close IN (0, 1));
-- Responses ever stored (a withdrawal never lowers it): what considerations count.
ALTER TABLE surveys ADD COLUMN received INTEGER NOT NULL DEFAULT 0 CHECK (received >= 0);
-- At the last consideration: `received`, the invitations redeemed, the responses stored
-- and those of them released.
ALTER TABLE surveys ADD COLUMN considered_at INTEGER NOT NULL DEFAULT 0
    CHECK (considered_at >= 0);
ALTER TABLE surveys ADD COLUMN considered_redemptions INTEGER NOT NULL DEFAULT 0
    CHECK (considered_redemptions >= 0);
ALTER TABLE surveys ADD COLUMN considered_responses INTEGER NOT NULL DEFAULT 0
    CHECK (considered_responses >= 0);
ALTER TABLE surveys ADD COLUMN considered_released INTEGER NOT NULL DEFAULT 0
    CHECK (considered_released >= 0);

CREATE TABLE unreleased_responses (
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id BLOB NOT NULL CHECK (length(record_id) = 32),
    PRIMARY KEY (survey_id, record_id)
) WITHOUT ROWID;

-- `cell`: one byte per grouping question (the answer's index, in position order); empty
-- without grouping questions. `counts`: JSON `[[question id, [count of report 0, …]], …]`.
CREATE TABLE released_cells (
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    cell      BLOB NOT NULL,
    n         INTEGER NOT NULL CHECK (n >= 0),
    counts    TEXT NOT NULL,
    PRIMARY KEY (survey_id, cell)
) WITHOUT ROWID;

-- Breakdowns are sums over released cells now; nothing reads the live grouped counts.
DROP TABLE grouped_report_counts;

-- `results_after_close` is frozen when the survey opens, with the stopping rule and min_cell.
DROP TRIGGER surveys_rule_frozen_once_open;
CREATE TRIGGER surveys_rule_frozen_once_open BEFORE UPDATE OF target_responses, closes_at,
    min_cell, results_after_close ON surveys
    WHEN OLD.status <> 'draft'
         AND (OLD.target_responses IS NOT NEW.target_responses
              OR OLD.closes_at IS NOT NEW.closes_at
              OR OLD.min_cell IS NOT NEW.min_cell
              OR OLD.results_after_close IS NOT NEW.results_after_close)
BEGIN
    SELECT RAISE(ABORT, 'the stopping rule, min_cell and results_after_close of an open or closed survey cannot change');
END;
