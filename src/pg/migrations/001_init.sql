-- tusk schema 1: the shared state of a fleet.
-- Issue lines are kept as the exact JSONL text (unknown fields and values
-- survive, and an export reproduces the imported file byte for byte); `ord` is
-- the line's number in that file.
CREATE TABLE tusk_issue_lines (
    ord bigint PRIMARY KEY,
    line text NOT NULL
);
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
