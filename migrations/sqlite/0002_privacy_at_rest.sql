-- Migration 0002: privacy at rest (docs/design.md, invariants 3, 8 and 9).
--
-- One row per response, keyed by its record id: the SHA-256 of the response id, which is
-- itself the SHA-256 of the respondent's receipt. Neither the receipt nor the response id
-- is stored, so an exported row (which carries the record id) cannot be re-submitted, and
-- the key is random: a WITHOUT ROWID table keeps rows, and after VACUUM also the cells
-- inside each page, in key order, never in arrival order. One B-tree per response.
--
-- `reports` is the response's reports in question order, version byte 1 then 17 bytes per
-- answered question: the question id (i64, little-endian), the ε it was randomized with
-- (f64, little-endian) and the report (one byte). The migration's Rust step fills it from
-- the tables of 0001 and drops them.
CREATE TABLE stored_responses (
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id BLOB NOT NULL CHECK (length(record_id) = 32),
    reports   BLOB NOT NULL,
    PRIMARY KEY (survey_id, record_id)
) WITHOUT ROWID;

-- A withdrawn response leaves only HMAC-SHA-256(withdrawal key, response id): enough to
-- refuse a replayed submission of it, and nothing that an export row (record id) or the
-- reports could be matched with.
CREATE TABLE withdrawn_responses (
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    tag       BLOB NOT NULL CHECK (length(tag) = 32),
    PRIMARY KEY (survey_id, tag)
) WITHOUT ROWID;

-- Per-database secrets (the withdrawal key), drawn by the migration's Rust step.
CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

-- Retention: the survey and everything of it is deleted once this UTC date has passed.
ALTER TABLE surveys ADD COLUMN delete_after TEXT
    CHECK (delete_after IS NULL OR delete_after GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]');
-- The fewest new responses the workspace's live pages show at a time.
ALTER TABLE surveys ADD COLUMN min_cell INTEGER NOT NULL DEFAULT 10 CHECK (min_cell >= 1);

-- ε is frozen when a survey opens (invariant 5): once it is open or closed, its questions
-- can be neither changed nor added. Deleting the whole survey stays possible (its
-- questions go by cascade, after the survey row, so the condition is then not met).
CREATE TRIGGER questions_frozen_once_open_update BEFORE UPDATE ON questions
    WHEN (SELECT status FROM surveys WHERE id = OLD.survey_id) <> 'draft'
          OR (SELECT status FROM surveys WHERE id = NEW.survey_id) <> 'draft'
BEGIN
    SELECT RAISE(ABORT, 'the questions of an open or closed survey cannot change');
END;
CREATE TRIGGER questions_frozen_once_open_insert BEFORE INSERT ON questions
    WHEN (SELECT status FROM surveys WHERE id = NEW.survey_id) <> 'draft'
BEGIN
    SELECT RAISE(ABORT, 'questions cannot be added to an open or closed survey');
END;
CREATE TRIGGER questions_frozen_once_open_delete BEFORE DELETE ON questions
    WHEN (SELECT status FROM surveys WHERE id = OLD.survey_id) <> 'draft'
BEGIN
    SELECT RAISE(ABORT, 'the questions of an open or closed survey cannot be deleted');
END;
