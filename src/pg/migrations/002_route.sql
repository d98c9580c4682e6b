-- tusk schema 2: the routing columns of an issue line (issue 22), so that a
-- filtered claim-next picks and row-locks matching ready lines in SQL.
-- `route` is what the file store's parser reads from the line:
-- {"labels": [...], "type": "...", "assignee": "..." | null, "parents": [...]}
-- (parents: the targets of its parent-child edges). Lines indexed before this
-- migration are marked unindexed: the next whole-store mutation derives their
-- columns again (until then claims take the whole-store path, as for lines
-- another tool wrote).
-- No index on the labels: a claim walks the ready-order index
-- (tusk_issue_lines_open) and stops at the first matching lines; with a label
-- index the planner collects every line of the label and sorts them (measured
-- at 100,000 issues: 229 ms a claim with it, 4 ms without).
ALTER TABLE tusk_issue_lines ADD COLUMN route jsonb;
UPDATE tusk_issue_lines SET indexed = false WHERE issue_id IS NOT NULL;
