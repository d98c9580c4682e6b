//! tusk: worker agents act on shared work through bounded Scheme programs.
//!
//! The crate is organised one module per concern:
//!
//! - [`canonical`]: canonical JSON and every digest (`sha256:`, `he1_`, `pol1_`, `iss1_`).
//! - [`effects`]: the effect log (header, one row per host call, footer).
//! - `files`: opening tusk's own files, never through a final symlink.
//! - `spelling`: comparing names as writers misspell them (suggestions, lenient keys).
//! - [`chain`]: the effect log's row chain and footer signatures (tamper evidence).
//! - [`host`]: the host-action contract, registry, `premath.host_effect.v0` envelopes
//!   and the fail-closed mutation gate.
//! - [`harness`]: session handoff, trajectory rows, feature ledger and KPI.
//! - [`typestate`]: the tool-calling typestate join check (`harness-join-check`).
//! - [`sandbox`]: the deny-by-default Steel evaluator, its limits and supervisor.
//! - [`runtime`]: one request in, one result out: sandbox + registry + gate + logs.
//! - [`replay`]: re-running recorded runs against their recorded envelopes.
//! - [`premath`]: premath's `scheme-eval` JSON programs on tusk's runtime.
//! - [`pg`]: the fleet backend (issues, trajectory, effect log on PostgreSQL).
//! - [`logs`]: where the trajectory and the effect log live (file or database).
//! - [`issues`]: the issue memory (beads JSONL work queue, leases, dependencies).
//! - [`observe`]: `tusk observe`'s web dashboard and JSON API (read-only).
//! - [`serve`]: the HTTP connection layer both servers share (deadlines, caps, eviction).
//! - [`repl`]: `tusk repl`'s session, form splitter, completion and result text.
//! - [`telemetry`]: OpenTelemetry export of runs, host calls and store mutations.
//! - [`terminal`]: escaping program- and store-supplied text for terminals.
//! - [`cli`]: the `tusk` command line, a thin shell over the library.
//!
//! Failure classes are one enum per domain ([`sandbox::FailureClass`],
//! [`host::HostClass`], [`issues::IssueClass`], …); [`failure_classes`] lists them all.

pub mod canonical;
pub mod chain;
pub mod cli;
pub mod effects;
mod failure;
pub mod fault;
mod files;
pub mod harness;
pub mod history;
pub mod host;
pub mod issues;
mod jsonl;
pub mod logs;
pub mod mcp;
pub mod observe;
pub mod pg;
pub mod premath;
pub mod render;
pub mod repl;
pub mod replay;
pub mod runtime;
pub mod sandbox;
pub mod serve;
mod spelling;
pub mod telemetry;
pub mod terminal;
pub mod typestate;

/// Every failure class tusk can report, each domain's enum in turn (its wire
/// strings, which results and logs carry).
/// (Here rather than in `failure`: only the crate root and `cli` name `cli`.)
pub fn failure_classes() -> Vec<&'static str> {
    let mut out = Vec::new();
    out.extend(sandbox::FailureClass::ALL.iter().map(|c| c.as_str()));
    out.extend(host::HostClass::ALL.iter().map(|c| c.as_str()));
    out.extend(issues::IssueClass::ALL.iter().map(|c| c.as_str()));
    out.extend(issues::plan::PlanClass::ALL.iter().map(|c| c.as_str()));
    out.extend(harness::HarnessClass::ALL.iter().map(|c| c.as_str()));
    out.extend(typestate::JoinClass::ALL.iter().map(|c| c.as_str()));
    out.extend(pg::StoreClass::ALL.iter().map(|c| c.as_str()));
    out.extend(premath::PremathClass::ALL.iter().map(|c| c.as_str()));
    out.extend(observe::ObserveClass::ALL.iter().map(|c| c.as_str()));
    out.extend(cli::CliClass::ALL.iter().map(|c| c.as_str()));
    out
}
