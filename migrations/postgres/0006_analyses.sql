-- Migration 0006 on PostgreSQL (migrations/sqlite/0006_analyses.sql): stopping rules, early
-- unblinding, grouping questions' running counts.
ALTER TABLE surveys ADD COLUMN target_responses bigint
    CHECK (target_responses IS NULL OR target_responses > 0);
ALTER TABLE surveys ADD COLUMN closes_at bigint;
ALTER TABLE surveys ADD COLUMN unblinded_at_responses bigint
    CHECK (unblinded_at_responses IS NULL OR unblinded_at_responses >= 0);

CREATE INDEX surveys_closing ON surveys (closes_at)
    WHERE status = 'open' AND closes_at IS NOT NULL;

-- The stopping rule and min_cell are frozen when the survey opens; an unblinding is final.
CREATE FUNCTION surveys_rule_frozen_once_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status <> 'draft'
       AND (OLD.target_responses IS DISTINCT FROM NEW.target_responses
            OR OLD.closes_at IS DISTINCT FROM NEW.closes_at
            OR OLD.min_cell IS DISTINCT FROM NEW.min_cell) THEN
        RAISE EXCEPTION 'the stopping rule and min_cell of an open or closed survey cannot change';
    END IF;
    IF OLD.unblinded_at_responses IS NOT NULL
       AND NEW.unblinded_at_responses IS DISTINCT FROM OLD.unblinded_at_responses THEN
        RAISE EXCEPTION 'an unblinding is recorded for good';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER surveys_rule_frozen_once_open BEFORE UPDATE ON surveys
    FOR EACH ROW EXECUTE FUNCTION surveys_rule_frozen_once_open();

CREATE TABLE grouped_report_counts (
    grouping_id bigint NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    answer      integer NOT NULL CHECK (answer BETWEEN 0 AND 19),
    question_id bigint NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    report      integer NOT NULL CHECK (report BETWEEN 0 AND 19),
    n           bigint NOT NULL CHECK (n >= 0),
    PRIMARY KEY (grouping_id, answer, question_id, report)
);
