-- tusk schema 4 (issue 61): the processes writing runs to this database's
-- effect log, so that a run whose process died is closed (pg::writers).
-- A writer holds the session advisory lock (WRITERS, lock_key) while it
-- lives; `footer` is the row that closes a run of it if it dies.
CREATE TABLE IF NOT EXISTS tusk_log_writers (
    writer text PRIMARY KEY,
    lock_key integer NOT NULL,
    footer text NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT now()
);
-- Every edge of every line (issue 58), as the parser reads it: `dep tree`
-- walks them both ways by index (down by the line, up by the target). Lines
-- indexed before this migration are marked unindexed: `tusk store init`
-- derives their columns again at once (until then views read the whole
-- store, as for lines another tool wrote).
CREATE TABLE IF NOT EXISTS tusk_issue_edges (
    ord bigint NOT NULL REFERENCES tusk_issue_lines (ord) ON DELETE CASCADE,
    depends_on text NOT NULL,
    dep_type text NOT NULL
);
CREATE INDEX IF NOT EXISTS tusk_issue_edges_ord ON tusk_issue_edges (ord);
CREATE INDEX IF NOT EXISTS tusk_issue_edges_target ON tusk_issue_edges (depends_on);
UPDATE tusk_issue_lines SET indexed = false WHERE issue_id IS NOT NULL;
