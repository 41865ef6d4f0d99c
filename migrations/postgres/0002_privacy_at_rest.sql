-- Migration 0002 on PostgreSQL (migrations/sqlite/0002_privacy_at_rest.sql): one row per
-- response keyed by its record id, the withdrawal tags, the per-database secrets (the
-- withdrawal key is drawn by the migration's Rust step), retention and min_cell.
--
-- A heap table keeps rows in insertion order and each row carries the id of the
-- transaction that wrote it (xmin): the key order that SQLite's WITHOUT ROWID tables and
-- compaction epochs give is not had here (docs/design.md, "PostgreSQL").
CREATE TABLE stored_responses (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id bytea NOT NULL CHECK (length(record_id) = 32),
    reports   bytea NOT NULL,
    PRIMARY KEY (survey_id, record_id)
);

CREATE TABLE withdrawn_responses (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    tag       bytea NOT NULL CHECK (length(tag) = 32),
    PRIMARY KEY (survey_id, tag)
);

CREATE TABLE secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);

ALTER TABLE surveys ADD COLUMN delete_after text
    CHECK (delete_after IS NULL OR delete_after ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');
ALTER TABLE surveys ADD COLUMN min_cell integer NOT NULL DEFAULT 10 CHECK (min_cell >= 1);

-- ε is frozen when a survey opens (invariant 5): once it is open or closed, its questions
-- can be neither changed, added nor deleted. Deleting the whole survey stays possible (its
-- questions go by cascade after the survey row, when the status is no longer found).
CREATE FUNCTION questions_frozen_once_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE')
       AND (SELECT status FROM surveys WHERE id = OLD.survey_id) <> 'draft' THEN
        RAISE EXCEPTION 'the questions of an open or closed survey cannot change';
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT')
       AND (SELECT status FROM surveys WHERE id = NEW.survey_id) <> 'draft' THEN
        RAISE EXCEPTION 'questions cannot be added to an open or closed survey';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER questions_frozen_once_open BEFORE INSERT OR UPDATE OR DELETE ON questions
    FOR EACH ROW EXECUTE FUNCTION questions_frozen_once_open();
