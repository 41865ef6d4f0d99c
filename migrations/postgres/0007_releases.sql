-- Migration 0007 on PostgreSQL: the release states of the owner's views, shared by every
-- node (docs/design.md, "Releases" and "PostgreSQL"). SQLite keeps them in the server's
-- memory instead (migrations/sqlite/0007_releases.sql says why).
--
-- One row per survey and view: view 0 is the survey's own release (the workspace's live
-- pages, and for a survey that requires invitations everything its owner sees); any
-- other view is the id of the grouping question a breakdown is by. `responses` and
-- `redemptions` are the survey's when the release was made; `counts` is what it
-- published (JSON, one array per group; NULL before a breakdown's first release).
-- A survey's rows are deleted when it closes (closing releases everything).
CREATE TABLE releases (
    survey_id   bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    view        bigint NOT NULL CHECK (view >= 0),
    responses   bigint NOT NULL CHECK (responses >= 0),
    redemptions bigint NOT NULL CHECK (redemptions >= 0),
    counts      text,
    PRIMARY KEY (survey_id, view)
);

-- A survey that requires invitations exports the responses of its last release only:
-- their record ids, marked at each release, deleted with a withdrawn response and when
-- the survey closes.
CREATE TABLE released_records (
    survey_id bigint NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
    record_id bytea NOT NULL CHECK (length(record_id) = 32),
    PRIMARY KEY (survey_id, record_id)
);
