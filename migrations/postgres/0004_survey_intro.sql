-- Migration 0004 on PostgreSQL (migrations/sqlite/0004_survey_intro.sql): what respondents
-- are told before the questions.
ALTER TABLE surveys ADD COLUMN researcher text NOT NULL DEFAULT ''
    CHECK (length(researcher) <= 200);
ALTER TABLE surveys ADD COLUMN contact text NOT NULL DEFAULT ''
    CHECK (length(contact) <= 200);
ALTER TABLE surveys ADD COLUMN consent text
    CHECK (consent IS NULL OR length(consent) BETWEEN 1 AND 4000);
ALTER TABLE surveys ADD COLUMN language text NOT NULL DEFAULT 'en'
    CHECK (language IN ('en', 'de', 'fr', 'es'));
