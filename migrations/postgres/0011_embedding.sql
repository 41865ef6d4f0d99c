-- Migration 0011 on PostgreSQL (migrations/sqlite/0011_embedding.sql says what and why).
ALTER TABLE surveys ADD COLUMN completion_url TEXT;
ALTER TABLE surveys ADD COLUMN embed_origins TEXT NOT NULL DEFAULT '';

CREATE OR REPLACE FUNCTION surveys_rule_frozen_once_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status <> 'draft'
       AND (OLD.target_responses IS DISTINCT FROM NEW.target_responses
            OR OLD.closes_at IS DISTINCT FROM NEW.closes_at
            OR OLD.min_cell IS DISTINCT FROM NEW.min_cell
            OR OLD.results_after_close IS DISTINCT FROM NEW.results_after_close
            OR OLD.completion_url IS DISTINCT FROM NEW.completion_url
            OR OLD.embed_origins IS DISTINCT FROM NEW.embed_origins) THEN
        RAISE EXCEPTION 'the stopping rule, min_cell, results_after_close, completion_url and embed_origins of an open or closed survey cannot change';
    END IF;
    IF OLD.unblinded_at_responses IS NOT NULL
       AND NEW.unblinded_at_responses IS DISTINCT FROM OLD.unblinded_at_responses THEN
        RAISE EXCEPTION 'an unblinding is recorded for good';
    END IF;
    RETURN NEW;
END
$$;
