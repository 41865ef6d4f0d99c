-- Migration 0008 on SQLite: the responses stored since the last compaction epoch wait in a
-- small table of their own (docs/design.md, "Responses since the last epoch").
--
-- `stored_responses` is keyed by a random record id and every epoch rebuilds it packed, so
-- each new response inserted there lands in a different full leaf of a large B-tree: one
-- split and about one random 4 KiB page written per response, more of them the larger the
-- survey. A response now goes into `arriving_responses` instead, the same shape and key,
-- which every epoch empties: it merges the table into `stored_responses` in key order (one
-- pass over the leaves), deletes it (secure_delete zeroes the cells) and then rebuilds the
-- file (VACUUM). Between two epochs this table is small and its pages stay in memory.
--
-- Like the WAL before each epoch, it tells the responses stored since the last epoch from
-- the others; it keeps them in key order, not in order of arrival, and holds nothing once
-- the epoch has run (invariant 8 is about the responses stored before the last epoch).
CREATE TABLE arriving_responses (
    survey_id INTEGER NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id BLOB NOT NULL CHECK (length(record_id) = 32),
    reports   BLOB NOT NULL,
    PRIMARY KEY (survey_id, record_id)
) WITHOUT ROWID;

-- Every read of the responses goes through this view: the same statements on both engines.
CREATE VIEW all_responses AS
    SELECT survey_id, record_id, reports FROM stored_responses
    UNION ALL
    SELECT survey_id, record_id, reports FROM arriving_responses;
