-- Migration 0008 on PostgreSQL: only the view every read of the responses goes through
-- (the same statements on both engines). On SQLite new responses wait in a table of their
-- own until the next epoch merges them (migrations/sqlite/0008_arriving_responses.sql);
-- PostgreSQL's heap appends rows wherever there is room and its B-tree index takes random
-- keys without rebuilding anything, so here they go straight into `stored_responses`.
CREATE VIEW all_responses AS
    SELECT survey_id, record_id, reports FROM stored_responses;
