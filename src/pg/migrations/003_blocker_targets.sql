-- tusk schema 3 (issue 58): a mutation reads its own rows. The cycle check of
-- a new blocking edge searches from both ends at once (issues::postgres,
-- `reaches`): backwards, from the edge's issue to the issues that wait on
-- it, which reads the blocker rows by their target.
CREATE INDEX IF NOT EXISTS tusk_issue_blockers_target ON tusk_issue_blockers (depends_on);
