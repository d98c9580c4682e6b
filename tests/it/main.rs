//! The whole integration suite, one test binary (one link instead of one per
//! area). Each area is a module; run one with `cargo test --test it AREA::`
//! (e.g. `cargo test --test it issues_views::`), or several by naming several.
//! The areas share one fixture, `common::Test` (a directory and this run's
//! store, to run the binary in), and `pg_support` (the test databases).

// Shared by the areas.
mod common;
mod pg_support;

// Areas.
mod atomic_runs;
mod catalogue;
mod cli_contract;
mod determinism;
mod dialect_match;
mod dialect_names;
mod eval_cli;
mod examples;
mod fail_closed;
mod first_contact;
mod harness_feature;
mod harness_hooks;
mod harness_kpi;
mod harness_retry;
mod harness_session;
mod harness_trajectory;
mod init_cli;
mod install;
mod issues_concurrency;
mod issues_crash;
mod issues_leases;
mod issues_mutations;
mod issues_routing;
mod issues_views;
mod layers;
mod mcp_clients;
mod mcp_print_config;
mod mcp_stdio;
mod merge_driver;
mod model_programs;
mod observe;
mod observe_browser;
mod parity_vectors;
mod pg_fleet;
mod pg_parity;
mod pg_store;
mod premath_mcp;
mod premath_worker;
mod record_crash;
mod record_crash_pg;
mod repl;
mod replay;
mod runs_list;
mod sandbox_escape;
mod sandbox_v2;
mod scheme_eval;
mod step_rows;
mod syscalls;
mod team_git;
mod telemetry;
mod transcripts;
mod typestate_properties;
mod typestate_vectors;
mod who;
