-- Migration 0003: question types and designs (issue 17; docs/design.md, "Designs").
--
-- A question's type (yes/no, choice, ordinal, number) and design with its parameters, as
-- the canonical JSON of its definition (`{"type": "choice", "design": "k_ary",
-- "epsilon": 1.5, "options": [...]}`). NULL for questions from before this step: yes/no,
-- mirrored, at `epsilon`. `epsilon` stays the question's ε (for designs given by
-- probabilities, the ε they imply), frozen with the rest by the triggers of 0002.
ALTER TABLE questions ADD COLUMN design TEXT CHECK (design IS NULL OR json_valid(design));

-- Running counts of each report of each question (0/1 for yes/no and number questions, the
-- option index for choice and ordinal), changed in the transaction that stores or withdraws
-- a response, so results cost O(options) whatever the number of responses. They replace
-- `tallies` (n and reported yes per question and ε): a question's ε is frozen before its
-- first response, so each question had one ε there.
CREATE TABLE report_counts (
    question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    report      INTEGER NOT NULL CHECK (report BETWEEN 0 AND 19),
    n           INTEGER NOT NULL CHECK (n >= 0),
    PRIMARY KEY (question_id, report)
) WITHOUT ROWID;

INSERT INTO report_counts (question_id, report, n)
    SELECT question_id, 0, sum(n - reported_yes) FROM tallies GROUP BY question_id
    HAVING sum(n - reported_yes) > 0;
INSERT INTO report_counts (question_id, report, n)
    SELECT question_id, 1, sum(reported_yes) FROM tallies GROUP BY question_id
    HAVING sum(reported_yes) > 0;
DROP TABLE tallies;
