-- Migration 0004: what respondents are told before the questions (issue 19).
--
-- Who runs the survey and how to reach them (an e-mail or web address), an optional
-- information-and-consent text that the form asks respondents to confirm before anything
-- is sent, and the language of the form's own words. Surveys from before this step get
-- no researcher, no contact, no consent text and English, which is what they showed.
ALTER TABLE surveys ADD COLUMN researcher TEXT NOT NULL DEFAULT ''
    CHECK (length(researcher) <= 200);
ALTER TABLE surveys ADD COLUMN contact TEXT NOT NULL DEFAULT ''
    CHECK (length(contact) <= 200);
ALTER TABLE surveys ADD COLUMN consent TEXT
    CHECK (consent IS NULL OR length(consent) BETWEEN 1 AND 4000);
ALTER TABLE surveys ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
    CHECK (language IN ('en', 'de', 'fr', 'es'));
