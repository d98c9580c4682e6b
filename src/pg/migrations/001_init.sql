-- tusk schema 1: the shared state of a fleet.
-- Issue lines are kept as the exact JSONL text (unknown fields and values
-- survive, and an export reproduces the imported file byte for byte); `ord` is
-- the line's number in that file. The other columns are what the file store's
-- own parser reads from the line (written by tusk with every line), so that
-- claim-next can pick and row-lock a ready issue without reading the store.
CREATE TABLE tusk_issue_lines (
    ord bigint PRIMARY KEY,
    line text NOT NULL,
    -- false until the columns below are set from the line (a line written by
    -- another tool); such a store takes the whole-store path.
    indexed boolean NOT NULL DEFAULT false,
    issue_id text,            -- NULL for a blank line
    status text,              -- with the parser's default
    closed boolean,
    priority bigint,          -- with the parser's default
    id_key bytea,             -- the id's natural-order key (issues::views::natural_key)
    superseded boolean NOT NULL DEFAULT false
);
CREATE INDEX tusk_issue_lines_open ON tusk_issue_lines (priority, id_key, issue_id COLLATE "C")
    WHERE status = 'open' AND NOT superseded;
CREATE INDEX tusk_issue_lines_id ON tusk_issue_lines (issue_id);
CREATE INDEX tusk_issue_lines_unindexed ON tusk_issue_lines (ord) WHERE NOT indexed;
-- The blocking dependencies of each line (what makes an issue not ready).
CREATE TABLE tusk_issue_blockers (
    ord bigint NOT NULL REFERENCES tusk_issue_lines (ord) ON DELETE CASCADE,
    depends_on text NOT NULL
);
CREATE INDEX tusk_issue_blockers_ord ON tusk_issue_blockers (ord);
CREATE TABLE tusk_meta (
    key text PRIMARY KEY,
    value text NOT NULL
);
-- Appends from many processes: one row per JSONL line, in commit order.
CREATE TABLE tusk_trajectory (
    seq bigserial PRIMARY KEY,
    line text NOT NULL
);
CREATE TABLE tusk_effects (
    seq bigserial PRIMARY KEY,
    line text NOT NULL
);
