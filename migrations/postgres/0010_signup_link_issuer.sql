-- Migration 0010 on PostgreSQL (migrations/sqlite/0010_signup_link_issuer.sql says what
-- and why): the column naming who issued a sign-up link, and its foreign key, which
-- PostgreSQL named after the column when migration 0001 created the table.
ALTER TABLE signup_links RENAME COLUMN invited_by TO issued_by;
ALTER TABLE signup_links RENAME CONSTRAINT signup_links_invited_by_fkey
    TO signup_links_issued_by_fkey;
