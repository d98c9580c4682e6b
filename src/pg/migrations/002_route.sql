-- tusk schema 2: the routing columns of an issue line (issue 22), so that a
-- filtered claim-next picks and row-locks matching ready lines in SQL.
-- `route` is what the file store's parser reads from the line:
-- {"labels": [...], "type": "...", "assignee": "..." | null, "parents": [...]}
-- (parents: the targets of its parent-child edges). Lines indexed before this
-- migration are marked unindexed: the next whole-store mutation derives their
-- columns again (until then claims take the whole-store path, as for lines
-- another tool wrote).
ALTER TABLE tusk_issue_lines ADD COLUMN route jsonb;
CREATE INDEX tusk_issue_lines_labels ON tusk_issue_lines USING gin ((route -> 'labels'));
UPDATE tusk_issue_lines SET indexed = false WHERE issue_id IS NOT NULL;
