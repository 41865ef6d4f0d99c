-- Migration 0009 on PostgreSQL (migrations/sqlite/0009_disclosure.sql says what and why):
-- one disclosure model for every owner view. The release state is in the same tables as
-- on SQLite, shared by every node; `released_records` (the responses an invitation survey
-- had released) and the breakdowns' rows of `releases` give way to it.
ALTER TABLE surveys ADD COLUMN results_after_close integer NOT NULL DEFAULT 0
    CHECK (results_after_close IN (0, 1));
ALTER TABLE surveys ADD COLUMN received bigint NOT NULL DEFAULT 0 CHECK (received >= 0);
ALTER TABLE surveys ADD COLUMN considered_at bigint NOT NULL DEFAULT 0
    CHECK (considered_at >= 0);
ALTER TABLE surveys ADD COLUMN considered_redemptions bigint NOT NULL DEFAULT 0
    CHECK (considered_redemptions >= 0);
ALTER TABLE surveys ADD COLUMN considered_responses bigint NOT NULL DEFAULT 0
    CHECK (considered_responses >= 0);
ALTER TABLE surveys ADD COLUMN considered_released bigint NOT NULL DEFAULT 0
    CHECK (considered_released >= 0);

CREATE TABLE unreleased_responses (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id bytea NOT NULL CHECK (length(record_id) = 32),
    PRIMARY KEY (survey_id, record_id)
);

CREATE TABLE released_cells (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    cell      bytea NOT NULL,
    n         bigint NOT NULL CHECK (n >= 0),
    counts    text NOT NULL,
    PRIMARY KEY (survey_id, cell)
);

DROP TABLE grouped_report_counts;
DROP TABLE released_records;
DELETE FROM releases WHERE view <> 0
    OR survey_id IN (SELECT id FROM surveys WHERE requires_invitation = 1);

CREATE OR REPLACE FUNCTION surveys_rule_frozen_once_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status <> 'draft'
       AND (OLD.target_responses IS DISTINCT FROM NEW.target_responses
            OR OLD.closes_at IS DISTINCT FROM NEW.closes_at
            OR OLD.min_cell IS DISTINCT FROM NEW.min_cell
            OR OLD.results_after_close IS DISTINCT FROM NEW.results_after_close) THEN
        RAISE EXCEPTION 'the stopping rule, min_cell and results_after_close of an open or closed survey cannot change';
    END IF;
    IF OLD.unblinded_at_responses IS NOT NULL
       AND NEW.unblinded_at_responses IS DISTINCT FROM OLD.unblinded_at_responses THEN
        RAISE EXCEPTION 'an unblinding is recorded for good';
    END IF;
    RETURN NEW;
END
$$;

-- The released cells as of the last consideration, which every node shows while the survey
-- is open, so that a withdrawal leaves the figures at the next consideration on every node
-- at once. (SQLite keeps this snapshot in the one server's memory: in a file it would hold
-- a withdrawn response's reports after its withdrawal, against invariant 8; PostgreSQL's
-- files keep history anyway.)
CREATE TABLE considered_cells (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    cell      bytea NOT NULL,
    n         bigint NOT NULL CHECK (n >= 0),
    counts    text NOT NULL,
    PRIMARY KEY (survey_id, cell)
);
