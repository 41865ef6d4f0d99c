-- Migration 0012 on PostgreSQL (migrations/sqlite/0012_releases_by_batch.sql says what and
-- why): releases with their members, report pairs of the figures, and every survey under
-- one model. The live pages' steps of surveys outside the model (`releases`, 0007) go.
CREATE TABLE cell_releases (
    survey_id  bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    release_id bigint NOT NULL,
    cell       bytea NOT NULL,
    members    bigint NOT NULL CHECK (members >= 0),
    remaining  bigint NOT NULL CHECK (remaining >= 0 AND remaining <= members),
    withheld   integer NOT NULL DEFAULT 0 CHECK (withheld IN (0, 1)),
    PRIMARY KEY (survey_id, release_id)
);

CREATE TABLE release_members (
    survey_id  bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id  bytea NOT NULL CHECK (length(record_id) = 32),
    release_id bigint NOT NULL,
    PRIMARY KEY (survey_id, record_id)
);

CREATE TABLE released_pairs (
    survey_id bigint PRIMARY KEY REFERENCES surveys (id) ON DELETE CASCADE,
    pairs     bytea NOT NULL
);

-- As of the last consideration, beside `considered_cells`: what every node's views of an
-- open survey show.
CREATE TABLE considered_pairs (
    survey_id bigint PRIMARY KEY REFERENCES surveys (id) ON DELETE CASCADE,
    pairs     bytea NOT NULL
);

DROP TABLE releases;
