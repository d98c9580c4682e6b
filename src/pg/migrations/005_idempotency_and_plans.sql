-- tusk schema 5 (issue 59): idempotency keys and kept plans. Keys: one row per principal and
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
-- Every dry run's plan by its id (issues::plan_store), and what its first
-- application answered (null until applied).
CREATE TABLE IF NOT EXISTS tusk_plans (
    plan_id text PRIMARY KEY,
    plan text NOT NULL,
    created_at timestamptz NOT NULL,
    applied text
);
