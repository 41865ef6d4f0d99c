-- Migration 0010: one word, one meaning (issue 34). An invitation is a respondent's; a
-- colleague's one-time link is a sign-up link, and the column naming who issued one says so.
-- NULL still marks the first account's link, printed by `serve`. A rename keeps every row:
-- a sign-up link handed out before the upgrade still creates its account.
ALTER TABLE signup_links RENAME COLUMN invited_by TO issued_by;
