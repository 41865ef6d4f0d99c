-- Migration 0006: the analyses researchers run (issue 18; docs/design.md, "Which interval
-- is primary" and invariant 1's exception, the grouping question).
--
-- A survey is watched live (the default) or fixed in advance by a stopping rule: a target
-- number of responses, a closing time (Unix seconds, UTC), or both. A survey fixed in
-- advance is blinded while open, and closes by itself at its rule (the writer checks it in
-- the transaction of every response and on its timer).
ALTER TABLE surveys ADD COLUMN target_responses INTEGER
    CHECK (target_responses IS NULL OR target_responses > 0);
ALTER TABLE surveys ADD COLUMN closes_at INTEGER;
-- An early unblinding, recorded for good: the responses the survey had then. NULL: never.
ALTER TABLE surveys ADD COLUMN unblinded_at_responses INTEGER
    CHECK (unblinded_at_responses IS NULL OR unblinded_at_responses >= 0);

-- The writer's timer asks for the next open survey to close.
CREATE INDEX surveys_closing ON surveys (closes_at)
    WHERE status = 'open' AND closes_at IS NOT NULL;

-- The stopping rule and the smallest group shown (min_cell, the k of k-anonymity) are
-- frozen when the survey opens, as ε is by the triggers of 0002: a rule chosen after
-- looking would not be one, and a smaller k after the fact would show small groups.
CREATE TRIGGER surveys_rule_frozen_once_open BEFORE UPDATE OF target_responses, closes_at,
    min_cell ON surveys
    WHEN OLD.status <> 'draft'
         AND (OLD.target_responses IS NOT NEW.target_responses
              OR OLD.closes_at IS NOT NEW.closes_at
              OR OLD.min_cell IS NOT NEW.min_cell)
BEGIN
    SELECT RAISE(ABORT, 'the stopping rule and min_cell of an open or closed survey cannot change');
END;

-- An unblinding cannot be undone (the anytime interval stays primary for good).
CREATE TRIGGER surveys_unblinding_is_final BEFORE UPDATE OF unblinded_at_responses ON surveys
    WHEN OLD.unblinded_at_responses IS NOT NULL
         AND NEW.unblinded_at_responses IS NOT OLD.unblinded_at_responses
BEGIN
    SELECT RAISE(ABORT, 'an unblinding is recorded for good');
END;

-- A grouping question (a non-sensitive attribute such as year of study) is not randomized:
-- its row in `questions` has the design {"type": "grouping", "options": [...]} and, since
-- that column is NOT NULL from 0001, epsilon 1, which nothing reads (its ε is none: the
-- public definition says "randomized": false and the survey's total ε leaves it out).
-- Its answer (the option index) is stored in the response's own row, in the same blob as
-- its reports (format 2, src/db/responses.rs), nowhere else.
--
-- Running counts of each report of each randomized question within each answer of each
-- grouping question, changed in the transaction that stores or withdraws a response, so a
-- breakdown costs O(groups × reports) whatever the number of responses.
CREATE TABLE grouped_report_counts (
    grouping_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    answer      INTEGER NOT NULL CHECK (answer BETWEEN 0 AND 19),
    question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    report      INTEGER NOT NULL CHECK (report BETWEEN 0 AND 19),
    n           INTEGER NOT NULL CHECK (n >= 0),
    PRIMARY KEY (grouping_id, answer, question_id, report)
) WITHOUT ROWID;
