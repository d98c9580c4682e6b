//! `tusk harness-session|harness-trajectory|harness-feature|harness-kpi`.
//!
//! Exit codes: 0 done, 1 refused by a rule (a failed ledger check, closing a
//! feature without verification, reading a session that does not exist), 2 unusable
//! input (malformed file, bad timestamp or flag value) with one line on stderr.

use super::{CliError, Exit};
use crate::canonical;
use crate::harness::feature::{self, FeatureError, FeatureWrite};
use crate::harness::session::{self, Session, SessionState, SessionWrite};
use crate::harness::trajectory::{self, ProjectionMode, StepRow, TrajectoryError};
use crate::harness::{self, kpi, parse_timestamp};
use crate::issues::IssueStore;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Session handoff: write, read, bootstrap.
#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// Create or update the session in place.
    Write(Box<SessionWriteArgs>),
    /// Print the session.
    Read {
        /// The session handoff file.
        #[arg(long, default_value = harness::DEFAULT_SESSION_PATH)]
        path: PathBuf,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print what a fresh worker resumes from (mode resume, attach or fresh).
    Bootstrap {
        /// The session handoff file.
        #[arg(long, default_value = harness::DEFAULT_SESSION_PATH)]
        path: PathBuf,
        /// Feature ledger to project (default: harness_feature_ledger.json next to the session).
        #[arg(long)]
        feature_ledger: Option<PathBuf>,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// The repeatable ref flags shared by session writes and trajectory appends.
#[derive(Args, Debug)]
pub struct RefArgs {
    /// An instruction reference (repeatable).
    #[arg(long = "instruction-ref")]
    pub instruction_refs: Vec<String>,
    /// A witness reference (repeatable).
    #[arg(long = "witness-ref")]
    pub witness_refs: Vec<String>,
    /// A lineage reference (repeatable).
    #[arg(long = "lineage-ref")]
    pub lineage_refs: Vec<String>,
}

#[derive(Args, Debug)]
pub struct SessionWriteArgs {
    /// The session handoff file.
    #[arg(long, default_value = harness::DEFAULT_SESSION_PATH)]
    pub path: PathBuf,
    /// active | stopped (default stopped, as premath's)
    #[arg(long, default_value = "stopped")]
    pub state: String,
    /// The issue this is about.
    #[arg(long)]
    pub issue_id: Option<String>,
    /// What was done, in a line.
    #[arg(long)]
    pub summary: Option<String>,
    /// What the next run should do first.
    #[arg(long)]
    pub next_step: Option<String>,
    #[command(flatten)]
    pub refs: RefArgs,
    /// Issue store recorded as issuesPath, with its snapshot ref when it exists
    /// and loads (--issues-path is an older spelling).
    #[arg(long = "issues", visible_alias = "issues-path", default_value = harness::DEFAULT_ISSUES_PATH)]
    pub issues: String,
    /// Overrides the session id (kept from the stored session otherwise).
    #[arg(long)]
    pub session_id: Option<String>,
    /// The time to record (RFC3339; default now).
    #[arg(long)]
    pub now: Option<String>,
    /// Print JSON (the reference's shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Trajectory rows: append, query.
#[derive(Subcommand, Debug)]
pub enum TrajectoryCommand {
    /// Append one step row.
    Append(AppendArgs),
    /// Print the deterministic projection.
    Query {
        /// The trajectory file (JSON Lines).
        #[arg(long, default_value = harness::DEFAULT_TRAJECTORY_PATH)]
        path: PathBuf,
        #[command(flatten)]
        store: crate::cli::store::StoreFlag,
        /// latest | failed | retry-needed
        #[arg(long, default_value = "latest")]
        mode: String,
        /// At most this many rows.
        #[arg(long, default_value_t = trajectory::DEFAULT_LIMIT)]
        limit: usize,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
pub struct AppendArgs {
    /// The trajectory file (JSON Lines).
    #[arg(long, default_value = harness::DEFAULT_TRAJECTORY_PATH)]
    pub path: PathBuf,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// The step's id (unique in the trajectory).
    #[arg(long)]
    pub step_id: String,
    /// The step's action id.
    #[arg(long)]
    pub action: String,
    /// The step's result class: accepted, or a failure class.
    #[arg(long)]
    pub result_class: String,
    /// The issue this is about.
    #[arg(long)]
    pub issue_id: Option<String>,
    #[command(flatten)]
    pub refs: RefArgs,
    /// RFC3339.
    #[arg(long)]
    pub started_at: Option<String>,
    /// RFC3339 (default now).
    #[arg(long)]
    pub finished_at: Option<String>,
    /// Print JSON (the reference's shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Feature ledger (premath's harness-feature): write, read, check, next.
#[derive(Subcommand, Debug)]
pub enum FeatureCommand {
    /// Upsert one feature row in the feature ledger.
    Write(FeatureWriteArgs),
    /// Print the feature ledger.
    Read {
        /// The feature ledger file.
        #[arg(long, default_value = harness::DEFAULT_FEATURE_LEDGER_PATH)]
        path: PathBuf,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Validate the ledger and its closure status (exit 1 when rejected).
    Check {
        /// The feature ledger file.
        #[arg(long, default_value = harness::DEFAULT_FEATURE_LEDGER_PATH)]
        path: PathBuf,
        /// Require complete closure (all features completed with verification refs).
        #[arg(long)]
        require_closure: bool,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The next unfinished feature: the in_progress one, else the first pending.
    Next {
        /// The feature ledger file.
        #[arg(long, default_value = harness::DEFAULT_FEATURE_LEDGER_PATH)]
        path: PathBuf,
        /// Print JSON (the reference's shape) instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// A feature row's status.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum FeatureStatusArg {
    #[value(name = "pending")]
    Pending,
    #[value(name = "in_progress")]
    InProgress,
    #[value(name = "blocked")]
    Blocked,
    #[value(name = "completed")]
    Completed,
}

impl FeatureStatusArg {
    pub fn as_str(self) -> &'static str {
        match self {
            FeatureStatusArg::Pending => "pending",
            FeatureStatusArg::InProgress => "in_progress",
            FeatureStatusArg::Blocked => "blocked",
            FeatureStatusArg::Completed => "completed",
        }
    }
}

#[derive(Args, Debug)]
pub struct FeatureWriteArgs {
    /// The feature ledger file.
    #[arg(long, default_value = harness::DEFAULT_FEATURE_LEDGER_PATH)]
    pub path: PathBuf,
    /// The feature's id.
    #[arg(long)]
    pub feature_id: String,
    /// The feature's status.
    #[arg(long)]
    pub status: FeatureStatusArg,
    /// Issue linked to the feature ("" clears it).
    #[arg(long)]
    pub issue_id: Option<String>,
    /// Compact summary ("" clears it).
    #[arg(long)]
    pub summary: Option<String>,
    /// Session reference stored on the ledger ("" clears it).
    #[arg(long)]
    pub session_ref: Option<String>,
    /// Instruction references (repeatable; replace the stored ones).
    #[arg(long = "instruction-ref")]
    pub instruction_refs: Vec<String>,
    /// Verification references (repeatable; replace the stored ones).
    #[arg(long = "verification-ref")]
    pub verification_refs: Vec<String>,
    /// The time to record (RFC3339, kept to the whole second; default now).
    #[arg(long)]
    pub now: Option<String>,
    /// Print JSON (the reference's shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Multithread throughput KPI over the trajectory.
#[derive(Args, Debug)]
pub struct KpiArgs {
    /// The trajectory file (JSON Lines).
    #[arg(long, default_value = harness::DEFAULT_TRAJECTORY_PATH)]
    pub path: PathBuf,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// The window's length in hours, back from --now.
    #[arg(long, default_value_t = kpi::DEFAULT_WINDOW_HOURS, allow_negative_numbers = true)]
    pub window_hours: f64,
    /// Default: distinct issue ids in the window (at least 1).
    #[arg(long)]
    pub active_workers: Option<u64>,
    /// End of the window (RFC3339; default now).
    #[arg(long)]
    pub now: Option<String>,
    /// Print JSON (the reference's shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Exit 2: unusable input, `CMD: MESSAGE` on stderr.
fn fail<T>(cmd: &str, message: impl std::fmt::Display) -> Result<T, CliError> {
    Err(CliError::unusable(cmd, message))
}

/// Exit 1: refused by a rule, `CMD: MESSAGE` on stderr.
fn refuse<T>(cmd: &str, message: impl std::fmt::Display) -> Result<T, CliError> {
    Err(CliError::refused(cmd, message))
}

fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

fn print_json(value: &Value) {
    println!("{}", canonical::to_pretty_sorted(value));
}

fn now_or(flag: &Option<String>) -> Result<DateTime<Utc>, String> {
    match flag {
        None => Ok(Utc::now()),
        Some(t) => parse_timestamp(t)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| format!("--now: {e}")),
    }
}

/// A field of a JSON object as display text (`-` when absent), with control
/// characters escaped: the artifacts are written by programs.
fn field(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => crate::terminal::field(s).into_owned(),
        Some(other) => crate::terminal::field(&other.to_string()).into_owned(),
        None => "-".into(),
    }
}

// ---------------------------------------------------------------------------

/// `tusk harness-session …`
pub fn run_session(cmd: &SessionCommand) -> Result<Exit, CliError> {
    const CMD: &str = "harness-session";
    match cmd {
        SessionCommand::Write(a) => {
            let Some(state) = SessionState::parse(&a.state) else {
                return fail(
                    CMD,
                    format!("--state must be active or stopped, found {:?}", a.state),
                );
            };
            let now = match now_or(&a.now) {
                Ok(t) => t,
                Err(e) => return fail(CMD, e),
            };
            let req = SessionWrite {
                state,
                issue_id: a.issue_id.clone(),
                summary: a.summary.clone(),
                next_step: a.next_step.clone(),
                instruction_refs: a.refs.instruction_refs.clone(),
                witness_refs: a.refs.witness_refs.clone(),
                lineage_refs: a.refs.lineage_refs.clone(),
                issues: match IssueStore::locate(a.issues.trim()) {
                    Ok(store) => store,
                    Err(e) => return fail(CMD, e),
                },
                session_id: a.session_id.clone(),
            };
            match session::write(&a.path, &req, now) {
                Ok(s) => {
                    print_session("write", &a.path, &s, a.json);
                    Ok(Exit::Accepted)
                }
                Err(e) => fail(CMD, e),
            }
        }
        SessionCommand::Read { path, json } => match session::read(path) {
            Ok(Some(s)) => {
                print_session("read", path, &s, *json);
                Ok(Exit::Accepted)
            }
            Ok(None) => refuse(
                CMD,
                format!(
                    "no session at {} (bootstrap reports mode fresh)",
                    path.display()
                ),
            ),
            Err(e) => fail(CMD, e),
        },
        SessionCommand::Bootstrap {
            path,
            feature_ledger,
            json,
        } => {
            let ledger = feature_ledger
                .clone()
                .unwrap_or_else(|| session::sibling_ledger_path(path));
            match session::bootstrap(path, &ledger) {
                Ok(b) => {
                    let v = b.to_json();
                    if *json {
                        print_json(&v);
                    } else {
                        // The reference's lines (a fresh start says so).
                        println!("premath harness-session bootstrap");
                        println!("  Session Ref: {}", field(&v, "sessionRef"));
                        println!("  Mode: {}", field(&v, "mode"));
                        for (key, label) in [
                            ("resumeIssueId", "Resume Issue"),
                            ("nextStep", "Next Step"),
                            ("nextFeatureId", "Next Feature"),
                        ] {
                            if v[key].is_string() {
                                println!("  {label}: {}", field(&v, key));
                            }
                        }
                    }
                    Ok(Exit::Accepted)
                }
                Err(e) => fail(CMD, e),
            }
        }
    }
}

/// `write` and `read` as the reference prints them: `{action, path,
/// session}` under `--json`, its lines otherwise.
fn print_session(verb: &str, path: &Path, s: &Session, json: bool) {
    if json {
        print_json(&serde_json::json!({
            "action": format!("harness-session.{verb}"),
            "path": path.display().to_string(),
            "session": s.to_json(),
        }));
        return;
    }
    println!("premath harness-session {verb}");
    println!("  Session ID: {}", crate::terminal::field(&s.session_id));
    println!("  State: {}", s.state.as_str());
    if let Some(issue) = &s.issue_id {
        println!("  Issue: {}", crate::terminal::field(issue));
    }
    if verb == "read" {
        if let Some(next) = &s.next_step {
            println!("  Next Step: {}", crate::terminal::field(next));
        }
    }
    println!(
        "  Path: {}",
        crate::terminal::field(&path.display().to_string())
    );
}

/// `tusk harness-trajectory …`
pub fn run_trajectory(cmd: &TrajectoryCommand) -> Result<Exit, CliError> {
    const CMD: &str = "harness-trajectory";
    match cmd {
        TrajectoryCommand::Append(a) => {
            let row = StepRow {
                step_id: a.step_id.clone(),
                action: a.action.clone(),
                result_class: a.result_class.clone(),
                finished_at: a
                    .finished_at
                    .clone()
                    .unwrap_or_else(|| harness::format_timestamp(Utc::now())),
                issue_id: a.issue_id.clone(),
                instruction_refs: a.refs.instruction_refs.clone(),
                witness_refs: a.refs.witness_refs.clone(),
                lineage_refs: a.refs.lineage_refs.clone(),
                started_at: a.started_at.clone(),
            };
            let log = match a.store.trajectory_or(&a.path) {
                Ok(log) => log,
                Err(e) => return fail(CMD, e),
            };
            match trajectory::append_to(&log, &row) {
                Ok(v) => {
                    if a.json {
                        print_json(&harness::actions::append_output(log.path(), v));
                    } else {
                        println!("premath harness-trajectory append");
                        println!("  Step ID: {}", field(&v, "stepId"));
                        println!("  Result Class: {}", field(&v, "resultClass"));
                        println!(
                            "  Path: {}",
                            crate::terminal::field(&log.path().display().to_string())
                        );
                    }
                    Ok(Exit::Accepted)
                }
                Err(e @ TrajectoryError::InvalidRow { .. }) => {
                    fail(CMD, format!("invalid row: {e}"))
                }
                Err(e) => fail(CMD, e),
            }
        }
        TrajectoryCommand::Query {
            path,
            store,
            mode,
            limit,
            json,
        } => {
            let Some(mode) = ProjectionMode::parse(mode) else {
                return fail(
                    CMD,
                    format!("--mode must be latest, failed or retry-needed, found {mode:?}"),
                );
            };
            let log = match store.trajectory_or(path) {
                Ok(log) => log,
                Err(e) => return fail(CMD, e),
            };
            match trajectory::query_store(&log, mode, *limit) {
                Ok(p) => {
                    warn(&p.warnings);
                    let v = &p.value;
                    let shown_path = log.path().display().to_string();
                    if *json {
                        let mut out = v.clone();
                        out["action"] = "harness-trajectory.query".into();
                        out["path"] = shown_path.into();
                        print_json(&out);
                    } else {
                        println!("premath harness-trajectory query");
                        println!("  Path: {}", crate::terminal::field(&shown_path));
                        println!("  Mode: {}", field(v, "mode"));
                        println!(
                            "  Count: {} (total={}, failed={}, retry_needed={})",
                            field(v, "count"),
                            field(v, "totalCount"),
                            field(v, "failedCount"),
                            field(v, "retryNeededCount")
                        );
                        for item in v["items"].as_array().into_iter().flatten() {
                            println!(
                                "  - {} [{}] {} ({})",
                                field(item, "stepId"),
                                field(item, "resultClass"),
                                field(item, "action"),
                                field(item, "finishedAt")
                            );
                        }
                    }
                    Ok(Exit::Accepted)
                }
                Err(e) => fail(CMD, e),
            }
        }
    }
}

/// `tusk harness-feature …`: premath's output, messages and exit codes.
pub fn run_feature(cmd: &FeatureCommand) -> Result<Exit, CliError> {
    match cmd {
        FeatureCommand::Write(a) => feature_write(a),
        FeatureCommand::Read { path, json } => feature_read(path, *json),
        FeatureCommand::Check {
            path,
            require_closure,
            json,
        } => feature_check(path, *require_closure, *json),
        FeatureCommand::Next { path, json } => feature_next(path, *json),
    }
}

/// A ledger error as premath prints it (`error: CONTEXTmessage`), with its
/// exit code.
fn feature_error<T>(context: String, e: FeatureError) -> Result<T, CliError> {
    let message = format!("{context}{e}");
    Err(if e.exit_code() == 2 {
        CliError::unusable("error", message)
    } else {
        CliError::refused("error", message)
    })
}

/// premath's context for a ledger that cannot be read.
fn read_context(path: &Path) -> String {
    format!("failed to read harness feature ledger {}: ", path.display())
}

/// `harness-feature write`.
fn feature_write(a: &FeatureWriteArgs) -> Result<Exit, CliError> {
    let now = match now_or(&a.now) {
        Ok(t) => t,
        Err(e) => return fail("harness-feature", e),
    };
    let req = FeatureWrite {
        feature_id: a.feature_id.clone(),
        status: a.status.as_str().to_string(),
        issue_id: a.issue_id.clone(),
        summary: a.summary.clone(),
        session_ref: a.session_ref.clone(),
        instruction_refs: a.instruction_refs.clone(),
        verification_refs: a.verification_refs.clone(),
    };
    match feature::write(&a.path, &req, now) {
        Ok((id, ledger)) => {
            if a.json {
                print_json(&feature::write_json(&a.path, &id, &ledger));
            } else {
                println!("premath harness-feature write");
                println!("  Feature: {}", text(&id));
                println!("  Path: {}", text(&a.path.display().to_string()));
            }
            Ok(Exit::Accepted)
        }
        Err(e @ (FeatureError::InvalidInput(_) | FeatureError::Write { .. })) => {
            feature_error(String::new(), e)
        }
        Err(e) => feature_error(read_context(&a.path), e),
    }
}

/// `harness-feature read`.
fn feature_read(path: &Path, json: bool) -> Result<Exit, CliError> {
    match feature::read(path) {
        Ok(ledger) => {
            if json {
                print_json(&feature::read_json(path, &ledger));
            } else {
                println!("premath harness-feature read");
                println!("  Path: {}", text(&path.display().to_string()));
                println!("  Features: {}", ledger.features.len());
                if let Some(r) = &ledger.session_ref {
                    println!("  Session Ref: {}", text(r));
                }
            }
            Ok(Exit::Accepted)
        }
        Err(e) => feature_error(read_context(path), e),
    }
}

/// `harness-feature check`: exit 1 on a rejected ledger.
fn feature_check(path: &Path, require_closure: bool, json: bool) -> Result<Exit, CliError> {
    match feature::read(path) {
        Ok(ledger) => {
            let report = feature::check_report(&ledger, require_closure);
            if json {
                print_json(&report.to_json(path, require_closure));
            } else {
                println!(
                    "[harness-feature] {} (features={}, closureComplete={}, nextFeature={})",
                    if report.accepted() { "OK" } else { "FAIL" },
                    report.feature_count,
                    report.closure_complete,
                    text(report.next_feature_id.as_deref().unwrap_or("none"))
                );
                for f in &report.errors {
                    println!(
                        "  - {}{} ({})",
                        f.class,
                        f.feature_id
                            .as_ref()
                            .map(|id| format!(" feature={}", text(id)))
                            .unwrap_or_default(),
                        f.message
                    );
                }
            }
            Ok(Exit::accepted_if(report.accepted()))
        }
        Err(e) => feature_error(read_context(path), e),
    }
}

/// `harness-feature next`.
fn feature_next(path: &Path, json: bool) -> Result<Exit, CliError> {
    match feature::project_next(path) {
        Ok(p) => {
            if json {
                print_json(&feature::next_json(path, p.as_ref()));
            } else {
                println!("premath harness-feature next");
                println!("  Path: {}", text(&path.display().to_string()));
                match p {
                    Some(p) => {
                        println!(
                            "  Next Feature: {}",
                            text(p.next_feature_id.as_deref().unwrap_or("none"))
                        );
                        println!("  Closure Complete: {}", p.closure_complete);
                        println!("  Feature Count: {}", p.feature_count);
                    }
                    None => println!("  Next Feature: none (ledger missing)"),
                }
            }
            Ok(Exit::Accepted)
        }
        Err(e) => feature_error(
            format!("failed to compute next feature from {}: ", path.display()),
            e,
        ),
    }
}

/// A value in human output, control characters escaped.
fn text(s: &str) -> std::borrow::Cow<'_, str> {
    crate::terminal::field(s)
}

/// `tusk harness-kpi …`
pub fn run_kpi(a: &KpiArgs) -> Result<Exit, CliError> {
    const CMD: &str = "harness-kpi";
    let hours = match kpi::validate_window_hours(a.window_hours) {
        Ok(h) => h,
        Err(e) => return fail(CMD, format!("--window-hours: {e}")),
    };
    let now = match now_or(&a.now) {
        Ok(t) => t,
        Err(e) => return fail(CMD, e),
    };
    let log = match a.store.trajectory_or(&a.path) {
        Ok(log) => log,
        Err(e) => return fail(CMD, e),
    };
    match kpi::report_store(&log, hours, a.active_workers, now) {
        Ok((report, warnings)) => {
            warn(&warnings);
            if a.json {
                print_json(&report.to_json());
            } else {
                println!("{}", report.text());
            }
            Ok(Exit::Accepted)
        }
        Err(e) => fail(CMD, e),
    }
}

// ---------------------------------------------------------------------------

#[derive(clap::Subcommand, Debug)]
pub enum RetryCommand {
    /// The rule a failure class falls under: retry or not, backoff, escalation.
    Decide {
        #[command(flatten)]
        common: RetryArgs,
    },
    /// Carry out the escalation once attempts are spent: discover a
    /// follow-up issue, mark the active issue blocked, or stop.
    Escalate {
        #[command(flatten)]
        common: RetryArgs,
        /// The active issue (else PREMATH_ACTIVE_ISSUE_ID, PREMATH_ISSUE_ID,
        /// the session's issue, the only ready issue).
        #[arg(long)]
        issue_id: Option<String>,
        /// Issue store (default .premath/issues.jsonl, or PREMATH_ISSUES_PATH).
        #[arg(long)]
        issues: Option<PathBuf>,
        #[command(flatten)]
        store: crate::cli::store::StoreFlag,
        /// The scope named in the escalation note.
        #[arg(long, default_value = "tusk")]
        scope: String,
    },
}

#[derive(clap::Args, Debug)]
pub struct RetryArgs {
    /// The failure class(es) of the attempt that failed, in order (repeatable).
    #[arg(long = "failure-class", required = true)]
    pub failure_classes: Vec<String>,
    /// The 1-based number of the attempt that just failed.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub attempt: i64,
    /// Retry policy (default .premath/harness_retry_policy.json; built-in when absent).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Print JSON (the reference's shape) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `tusk harness-retry …`
pub fn run_retry(cmd: &RetryCommand) -> Result<Exit, CliError> {
    use crate::harness::retry::{self, RetryPolicy};
    const CMD: &str = "harness-retry";
    let common = match cmd {
        RetryCommand::Decide { common } | RetryCommand::Escalate { common, .. } => common,
    };
    let path = common
        .policy
        .clone()
        .unwrap_or_else(|| PathBuf::from(retry::DEFAULT_POLICY_PATH));
    let decision = RetryPolicy::load(&path).and_then(|p| {
        p.decide(&common.failure_classes, common.attempt)
            .map(|d| (p, d))
    });
    let (policy, decision) = match decision {
        Ok(x) => x,
        Err(e) => return fail(CMD, e),
    };
    match cmd {
        RetryCommand::Decide { .. } => {
            if common.json {
                print_json(&decision.to_json());
            } else {
                println!(
                    "{}: rule {} · attempt {}/{} · {} · backoff {} · then {}",
                    crate::terminal::field(&decision.matched_failure_class),
                    decision.rule_id,
                    decision.attempt,
                    decision.max_attempts,
                    if decision.retry { "retry" } else { "no retry" },
                    decision.backoff_class,
                    decision.escalation_action
                );
            }
            Ok(Exit::Accepted)
        }
        RetryCommand::Escalate {
            issue_id,
            issues,
            store,
            scope,
            ..
        } => {
            let env = |k: &str| std::env::var(k).ok();
            // An explicit --store beats the environment's file.
            let file = issues.clone().or_else(|| {
                store
                    .store
                    .is_none()
                    .then(|| env("PREMATH_ISSUES_PATH").map(PathBuf::from))
                    .flatten()
            });
            let issues =
                match store.issues(file.as_deref(), Path::new(harness::DEFAULT_ISSUES_PATH)) {
                    Ok(store) => store,
                    Err(e) => return fail("harness-retry escalate", e),
                };
            let session = env("PREMATH_HARNESS_SESSION_PATH")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".premath/harness_session.json"));
            let ctx = retry::EscalationCtx {
                issues: &issues,
                session: &session,
                issue_id: issue_id.as_deref(),
                env_issue_ids: [env("PREMATH_ACTIVE_ISSUE_ID"), env("PREMATH_ISSUE_ID")],
                scope,
                now: chrono::Utc::now(),
            };
            match retry::escalate(&policy, &decision, &ctx) {
                Ok(v) => {
                    if common.json {
                        print_json(&v);
                    } else {
                        println!(
                            "harness-retry escalate: {}{}",
                            field(&v, "outcome"),
                            v.get("issueId")
                                .map(|_| format!(" on {}", field(&v, "issueId")))
                                .unwrap_or_default()
                        );
                    }
                    Ok(Exit::Accepted)
                }
                Err(e) => fail(CMD, e),
            }
        }
    }
}
