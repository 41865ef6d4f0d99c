-- Migration 0007 on SQLite: nothing. PostgreSQL's 0007 adds the tables in which every node
-- shares the release states of the owner's views (the live pages' steps, the breakdowns'
-- releases, and what the owner of a survey that requires invitations has been released).
--
-- On SQLite one process serves the file, so it keeps those states in its memory: a release
-- written to the file would hold the counts as they were some responses ago, and the
-- difference from the current counts, or a mark on the responses released, would set the
-- newest responses apart from the rest in a copy of the file (invariant 8: the file keeps
-- no order of arrival). A restart forgets them (docs/design.md, "Releases").
SELECT 1;
