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
