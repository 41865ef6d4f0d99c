-- Migration 0003 on PostgreSQL (migrations/sqlite/0003_designs.sql): a question's type and
-- design as the canonical JSON of its definition (`json` keeps the text as written), and
-- the running count of each report of each question.
ALTER TABLE questions ADD COLUMN design json;

CREATE TABLE report_counts (
    question_id bigint NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    report      integer NOT NULL CHECK (report BETWEEN 0 AND 19),
    n           bigint NOT NULL CHECK (n >= 0),
    PRIMARY KEY (question_id, report)
);
