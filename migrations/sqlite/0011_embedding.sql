-- Migration 0011: a survey inside a larger study (issue 35). Where the form's "Continue"
-- leads once a response is stored (never in the public definition), and the sites that may
-- frame the form (its `frame-ancestors`), as exact origins separated by single spaces.
-- Both are part of the definition respondents answered, so both freeze when it opens.
ALTER TABLE surveys ADD COLUMN completion_url TEXT;
ALTER TABLE surveys ADD COLUMN embed_origins TEXT NOT NULL DEFAULT '';

DROP TRIGGER surveys_rule_frozen_once_open;
CREATE TRIGGER surveys_rule_frozen_once_open BEFORE UPDATE OF target_responses, closes_at,
    min_cell, results_after_close, completion_url, embed_origins ON surveys
    WHEN OLD.status <> 'draft'
         AND (OLD.target_responses IS NOT NEW.target_responses
              OR OLD.closes_at IS NOT NEW.closes_at
              OR OLD.min_cell IS NOT NEW.min_cell
              OR OLD.results_after_close IS NOT NEW.results_after_close
              OR OLD.completion_url IS NOT NEW.completion_url
              OR OLD.embed_origins IS NOT NEW.embed_origins)
BEGIN
    SELECT RAISE(ABORT, 'the stopping rule, min_cell, results_after_close, completion_url and embed_origins of an open or closed survey cannot change');
END;
