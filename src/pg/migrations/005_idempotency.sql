-- tusk schema 5 (issue 59): idempotency keys, one row per principal and
-- key (runtime::idempotency). `result` is the first run's result JSON,
-- null while it runs.
CREATE TABLE IF NOT EXISTS tusk_idempotency (
    principal text NOT NULL,
    key text NOT NULL,
    program_digest text NOT NULL,
    running boolean NOT NULL,
    result text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (principal, key)
);
