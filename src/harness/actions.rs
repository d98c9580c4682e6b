//! The harness artifacts as host actions. Each payload is exactly what the CLI
//! prints with `--json`; paths come from the host's configuration (`ctx.paths`),
//! the clock from `ctx.now`.
//!
//! Outcome rules: a rule of the artifact that refuses the request (closing a
//! feature without verification, a session or ledger that does not exist yet, a
//! bad argument value) is a rejected envelope; a file that cannot be read or is
//! corrupt is an [`ActionError`] whose class names the artifact. Where the spec is
//! silent: `issueId` of `harness.session.write` and `harness.trajectory.append`
//! defaults to the request's issue id, and the session's `issuesPath` is always
//! the host's issue store.

use super::feature::{self, FeatureError, FeatureWrite};
use super::kpi;
use super::session::{self, SessionError, SessionState, SessionWrite};
use super::trajectory::{self, ProjectionMode, StepRow, TrajectoryError};
use super::{format_timestamp, parse_timestamp};
use crate::host::{
    declare, schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration, HostAction,
};
use chrono::Utc;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The session handoff to persist.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionWriteArgs {
    /// `active` or `stopped`.
    pub state: String,
    /// Defaults to the request's issue id.
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub next_step: Option<String>,
    pub instruction_refs: Option<Vec<String>>,
    pub witness_refs: Option<Vec<String>>,
    pub lineage_refs: Option<Vec<String>>,
    pub session_id: Option<String>,
}

/// A projection of the trajectory.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueryArgs {
    /// `latest` (default), `failed` or `retry-needed`.
    pub mode: Option<String>,
    /// At most this many rows (default 20).
    pub limit: Option<u64>,
}

/// One trajectory step row.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppendArgs {
    pub step_id: String,
    pub action: String,
    pub result_class: String,
    /// Defaults to the request's issue id.
    pub issue_id: Option<String>,
    pub instruction_refs: Option<Vec<String>>,
    pub witness_refs: Option<Vec<String>>,
    pub lineage_refs: Option<Vec<String>>,
    pub started_at: Option<String>,
    /// Defaults to now.
    pub finished_at: Option<String>,
}

/// A feature ledger row to create or update (the flags of `harness-feature write`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FeatureWriteArgs {
    pub feature_id: String,
    /// `pending`, `in_progress`, `blocked` or `completed`.
    pub status: String,
    /// Issue linked to the feature ("" clears it; absent keeps it).
    pub issue_id: Option<String>,
    /// Compact summary ("" clears it; absent keeps it).
    pub summary: Option<String>,
    /// Session reference stored on the ledger ("" clears it; absent keeps it).
    pub session_ref: Option<String>,
    /// Replace the stored ones when any is non-blank.
    pub instruction_refs: Option<Vec<String>>,
    /// Replace the stored ones when any is non-blank.
    pub verification_refs: Option<Vec<String>>,
}

/// Boot a worker's step.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootArgs {
    /// Leases assigned to this worker are reported.
    pub worker_id: Option<String>,
    /// This issue's lease is reported.
    pub issue_id: Option<String>,
}

/// Stop a worker's step with a handoff.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopArgs {
    pub issue_id: String,
    pub worker_id: String,
    pub summary: String,
    pub next_step: String,
    /// `release`, `renew` or `keep`.
    pub lease: String,
    /// The renewed lease's length (renew only).
    pub lease_ttl_seconds: Option<i64>,
}

/// A failed attempt of a step.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryArgs {
    /// The attempt's failure classes, in order (the first a rule lists decides).
    pub failure_classes: Vec<String>,
    /// The 1-based number of the attempt that just failed (default 1).
    pub attempt: Option<i64>,
}

/// An escalation once a step's attempts are spent.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EscalateArgs {
    pub failure_classes: Vec<String>,
    pub attempt: Option<i64>,
    /// The active issue (default: the request's issue, then the host's
    /// PREMATH_ACTIVE_ISSUE_ID / PREMATH_ISSUE_ID, the session's, the only ready one).
    pub issue_id: Option<String>,
}

/// The multithread throughput KPI's window.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KpiArgs {
    /// Window length in hours (default 24).
    pub window_hours: Option<f64>,
    pub active_workers: Option<u64>,
    /// The window's end (RFC 3339; default now).
    pub now: Option<String>,
}

/// Every harness action: reads `harness.session.read`, `harness.session.bootstrap`,
/// `harness.trajectory.query`, `harness.feature.next`, `harness.kpi`; mutations
/// `harness.session.write`, `harness.trajectory.append`, `harness.feature.write`.
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    use schema::*;
    use ActionKind::{Mutation, Read};
    let session = || {
        object(
            &[
                ("schema", integer()),
                ("sessionId", string()),
                ("state", string()),
                ("issueId", nullable(string())),
                ("summary", nullable(string())),
                ("nextStep", nullable(string())),
                ("instructionRefs", strings()),
                ("witnessRefs", strings()),
                ("lineageRefs", strings()),
                ("updatedAt", string()),
            ],
            &["sessionId", "state"],
        )
    };
    const TRAJECTORY: &[&str] = &[
        "host.args_invalid",
        "harness.trajectory_corrupt",
        "harness.io_error",
    ];
    vec![
        declare(
            Declaration {
                id: "harness.session.read",
                kind: Read,
                description: "The persisted session handoff (summary, next step, issue, refs).",
                payload: session(),
                failure_classes: &["harness.session_missing", "harness.session_corrupt", "harness.io_error"],
                example: "(harness.session.read)",
            },
            session_read,
        ),
        declare(
            Declaration {
                id: "harness.session.bootstrap",
                kind: Read,
                description: "How to start this session: fresh, or resume from the persisted handoff and feature ledger.",
                // The reference's bootstrap: every member present, `null`
                // where the session or the ledger has none.
                payload: object(
                    &[
                        ("action", string()),
                        ("bootstrapKind", string()),
                        ("mode", string()),
                        ("sessionRef", string()),
                        ("sessionId", nullable(string())),
                        ("resumeIssueId", nullable(string())),
                        ("issueId", nullable(string())),
                        ("state", nullable(string())),
                        ("summary", nullable(string())),
                        ("nextStep", nullable(string())),
                        ("instructionRefs", strings()),
                        ("witnessRefs", strings()),
                        ("lineageRefs", strings()),
                        ("issuesPath", nullable(string())),
                        ("issuesSnapshotRef", nullable(string())),
                        ("featureLedgerRef", string()),
                        ("nextFeatureId", nullable(string())),
                        ("featureClosureComplete", nullable(boolean())),
                        ("featureCount", nullable(integer())),
                        ("startedAt", nullable(string())),
                        ("updatedAt", nullable(string())),
                        ("stoppedAt", nullable(string())),
                    ],
                    &["action", "bootstrapKind", "mode", "sessionRef", "featureLedgerRef"],
                ),
                failure_classes: &["harness.session_corrupt", "harness.feature_ledger_corrupt", "harness.feature_ledger_rejected", "harness.io_error"],
                example: "(harness.session.bootstrap)",
            },
            session_bootstrap,
        ),
        declare(
            Declaration {
                id: "harness.session.write",
                kind: Mutation,
                description: "Persist the session handoff (active or stopped) with summary, next step and refs.",
                payload: session(),
                failure_classes: &["host.args_invalid", "harness.session_corrupt", "harness.io_error"],
                example: r#"(harness.session.write (hash "state" "stopped" "summary" "parser done" "nextStep" "lexer"))"#,
            },
            session_write,
        ),
        declare(
            Declaration {
                id: "harness.trajectory.query",
                kind: Read,
                description: "Trajectory step rows: the latest, the failed, or those needing a retry.",
                payload: object(
                    &[
                        ("mode", string()),
                        ("count", integer()),
                        ("totalCount", integer()),
                        ("failedCount", integer()),
                        ("retryNeededCount", integer()),
                        ("items", array(any())),
                    ],
                    &["mode", "items"],
                ),
                failure_classes: TRAJECTORY,
                example: r#"(harness.trajectory.query (hash "mode" "failed" "limit" 5))"#,
            },
            trajectory_query,
        ),
        declare(
            Declaration {
                id: "harness.trajectory.append",
                kind: Mutation,
                description: "Append one step row (step id, action, result class, refs) to the trajectory.",
                payload: object(&[("schema", integer()), ("path", string()), ("row", any())], &["row"]),
                failure_classes: TRAJECTORY,
                example: r#"(harness.trajectory.append (hash "stepId" "s1" "action" "worker.step" "resultClass" "accepted"))"#,
            },
            trajectory_append,
        ),
        declare(
            Declaration {
                id: "harness.feature.next",
                kind: Read,
                description: "The next unfinished feature of the feature ledger (as `harness-feature next --json`).",
                payload: object(
                    &[
                        ("action", string()),
                        ("path", string()),
                        ("exists", boolean()),
                        ("nextFeatureId", nullable(string())),
                        ("closureComplete", nullable(boolean())),
                        ("featureCount", nullable(integer())),
                    ],
                    &["exists"],
                ),
                failure_classes: &["harness.feature_ledger_rejected", "harness.feature_ledger_corrupt", "harness.io_error"],
                example: "(harness.feature.next)",
            },
            feature_next,
        ),
        declare(
            Declaration {
                id: "harness.feature.write",
                kind: Mutation,
                description: "Create or update a feature ledger row (as `harness-feature write --json`).",
                payload: object(
                    &[("action", string()), ("path", string()), ("featureId", string()), ("ledger", any())],
                    &["featureId", "ledger"],
                ),
                failure_classes: &["host.args_invalid", "harness.feature_ledger_corrupt", "harness.io_error"],
                example: r#"(harness.feature.write (hash "featureId" "f1" "status" "in_progress"))"#,
            },
            feature_write,
        ),
        declare(
            Declaration {
                id: "harness.boot",
                kind: Read,
                description: "Boot a step: memory roots, dependency diagnostics, session bootstrap, leases that concern this worker, the next target.",
                payload: object(
                    &[
                        ("roots", any()),
                        ("diagnostics", any()),
                        ("session", any()),
                        ("leases", array(any())),
                        ("next", any()),
                    ],
                    &["roots", "session", "leases"],
                ),
                failure_classes: &["memory.store_corrupt", "memory.io_error", "harness.session_corrupt", "harness.feature_ledger_corrupt", "harness.feature_ledger_rejected", "harness.io_error"],
                example: r#"(harness.boot (hash "workerId" "agent.a"))"#,
            },
            |ctx, a: BootArgs| super::hooks::boot(ctx, a.worker_id.as_deref(), a.issue_id.as_deref()),
        ),
        declare(
            Declaration {
                id: "harness.stop",
                kind: Mutation,
                description: "Stop a step: release, renew or keep the lease, persist the stopped session, append the stop row with handoff and lineage refs.",
                payload: object(
                    &[
                        ("issueId", string()),
                        ("lease", any()),
                        ("leaseRef", string()),
                        ("lineageRefs", strings()),
                        ("stepId", string()),
                        ("session", any()),
                    ],
                    &["issueId", "leaseRef"],
                ),
                failure_classes: &[
                    "host.args_invalid", "issue.not_found", "lease_not_found", "lease_missing",
                    "lease_stale", "lease_owner_mismatch", "lease_id_mismatch",
                    "harness.session_corrupt", "harness.io_error",
                ],
                example: r#"(harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "parser done" "nextStep" "lexer" "lease" "release"))"#,
            },
            |ctx, a: StopArgs| {
                super::hooks::stop(ctx, &a.issue_id, &a.worker_id, &a.summary, &a.next_step, &a.lease, a.lease_ttl_seconds)
            },
        ),
        declare(
            Declaration {
                id: "harness.retry.decide",
                kind: Read,
                description: "The retry policy's decision for a failed attempt: rule, retry or not, backoff, escalation.",
                payload: object(
                    &[
                        ("retry", boolean()),
                        ("ruleId", string()),
                        ("maxAttempts", integer()),
                        ("backoffClass", string()),
                        ("escalationAction", string()),
                        ("matchedFailureClass", string()),
                    ],
                    &["retry", "ruleId"],
                ),
                failure_classes: &[
                    "host.args_invalid",
                    "retry_policy_invalid_shape",
                    "retry_policy_invalid_digest",
                    "retry_policy_invalid_json",
                    "retry_policy_io_error",
                ],
                example: r#"(harness.retry.decide (hash "failureClasses" (list "scheme_eval.timeout") "attempt" 1))"#,
            },
            retry_decide,
        ),
        declare(
            Declaration {
                id: "harness.escalate",
                kind: Mutation,
                description: "Carry out the escalation of a spent step: discover a follow-up issue, mark the issue blocked, or stop.",
                payload: object(
                    &[
                        ("outcome", string()),
                        ("issueId", string()),
                        ("createdIssueId", string()),
                        ("note", string()),
                    ],
                    &["outcome"],
                ),
                failure_classes: &[
                    "retry_policy_invalid_shape",
                    "retry_policy_invalid_digest",
                    "escalation_issue_context_unbound",
                    "escalation_issue_context_ambiguous",
                    "escalation_session_invalid",
                    "escalation_session_read_failed",
                    "escalation_issue_not_found",
                    "escalation_issue_command_failed",
                    "escalation_unknown_action",
                ],
                example: r#"(harness.escalate (hash "failureClasses" (list "scheme_eval.invalid_program") "issueId" "bd-1"))"#,
            },
            escalate,
        ),
        declare(
            Declaration {
                id: "harness.kpi",
                kind: Read,
                description: "The multithread throughput KPI over the trajectory: decision, rate, window.",
                payload: object(&[("decision", string()), ("kpi", number())], &["decision"]),
                failure_classes: &["host.args_invalid", "harness.trajectory_corrupt", "harness.io_error"],
                example: r#"(harness.kpi (hash "windowHours" 24))"#,
            },
            kpi_report,
        ),
    ]
}

fn args_invalid(diagnostic: impl Into<String>) -> ActionOutcome {
    ActionOutcome::rejected(vec!["host.args_invalid".into()], diagnostic)
}

fn session_err(e: SessionError) -> ActionError {
    ActionError::new(e.class(), e.to_string())
}

fn trajectory_err(e: TrajectoryError) -> ActionError {
    ActionError::new(e.class(), e.to_string())
}

fn feature_err(e: FeatureError) -> ActionError {
    ActionError::new(e.class(), e.to_string())
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

// ---------------------------------------------------------------------------
// Actions

fn session_read(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    match session::read(&ctx.paths.session).map_err(session_err)? {
        Some(s) => Ok(ActionOutcome::accepted(s.to_json())),
        None => Ok(ActionOutcome::rejected(
            vec!["harness.session_missing".into()],
            format!("no session at {}", ctx.paths.session.display()),
        )),
    }
}

fn session_bootstrap(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    session::bootstrap(&ctx.paths.session, &ctx.paths.feature_ledger)
        .map(ActionOutcome::accepted)
        .map_err(session_err)
}

fn session_write(
    ctx: &ActionContext<'_>,
    args: SessionWriteArgs,
) -> Result<ActionOutcome, ActionError> {
    let state_text = args.state.as_str();
    let Some(state) = SessionState::parse(state_text) else {
        return Ok(args_invalid(format!(
            "state: must be active or stopped, found {state_text:?}"
        )));
    };
    let req = SessionWrite {
        state,
        issue_id: args.issue_id.or_else(|| ctx.issue_id.map(str::to_string)),
        summary: args.summary,
        next_step: args.next_step,
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        witness_refs: args.witness_refs.unwrap_or_default(),
        lineage_refs: args.lineage_refs.unwrap_or_default(),
        issues: ctx.paths.issues.clone(),
        session_id: args.session_id,
    };
    session::write(&ctx.paths.session, &req, ctx.now)
        .map(|s| ActionOutcome::accepted(s.to_json()))
        .map_err(session_err)
}

fn trajectory_query(
    ctx: &ActionContext<'_>,
    args: QueryArgs,
) -> Result<ActionOutcome, ActionError> {
    let mode_text = args.mode.as_deref().unwrap_or("latest");
    let Some(mode) = ProjectionMode::parse(mode_text) else {
        return Ok(args_invalid(format!(
            "mode: must be latest, failed or retry-needed, found {mode_text:?}"
        )));
    };
    let limit = match args.limit {
        None => trajectory::DEFAULT_LIMIT,
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let projection =
        trajectory::query_store(&ctx.paths.trajectory, mode, limit).map_err(trajectory_err)?;
    print_warnings(&projection.warnings);
    Ok(ActionOutcome::accepted(projection.value))
}

fn trajectory_append(
    ctx: &ActionContext<'_>,
    args: AppendArgs,
) -> Result<ActionOutcome, ActionError> {
    let row = StepRow {
        step_id: args.step_id,
        action: args.action,
        result_class: args.result_class,
        finished_at: args
            .finished_at
            .unwrap_or_else(|| format_timestamp(ctx.now)),
        issue_id: args.issue_id.or_else(|| ctx.issue_id.map(str::to_string)),
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        witness_refs: args.witness_refs.unwrap_or_default(),
        lineage_refs: args.lineage_refs.unwrap_or_default(),
        started_at: args.started_at,
    };
    match trajectory::append_to(&ctx.paths.trajectory, &row) {
        Ok(value) => Ok(ActionOutcome::accepted(append_output(
            ctx.paths.trajectory.path(),
            value,
        ))),
        Err(e @ TrajectoryError::InvalidRow { .. }) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(trajectory_err(e)),
    }
}

/// The `append --json` output: where the row went and the row as written.
pub(crate) fn append_output(path: &std::path::Path, row: Value) -> Value {
    let mut m = Map::new();
    m.insert("action".into(), "harness-trajectory.append".into());
    m.insert("schema".into(), 1.into());
    m.insert("path".into(), path.display().to_string().into());
    m.insert("row".into(), row);
    Value::Object(m)
}

fn feature_next(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    let path = &ctx.paths.feature_ledger;
    match feature::project_next(path) {
        Ok(p) => Ok(ActionOutcome::accepted(feature::next_json(
            path,
            p.as_ref(),
        ))),
        Err(e @ FeatureError::Rejected { .. }) => Ok(ActionOutcome::rejected(
            vec![e.class().into()],
            format!(
                "failed to compute next feature from {}: {e}",
                path.display()
            ),
        )),
        Err(e) => Err(feature_err(e)),
    }
}

fn feature_write(
    ctx: &ActionContext<'_>,
    args: FeatureWriteArgs,
) -> Result<ActionOutcome, ActionError> {
    if !feature::STATUSES.contains(&args.status.as_str()) {
        return Ok(args_invalid(format!(
            "status: must be pending, in_progress, blocked or completed, found {:?}",
            args.status
        )));
    }
    let req = FeatureWrite {
        feature_id: args.feature_id,
        status: args.status,
        issue_id: args.issue_id,
        summary: args.summary,
        session_ref: args.session_ref,
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        verification_refs: args.verification_refs.unwrap_or_default(),
    };
    let path = &ctx.paths.feature_ledger;
    match feature::write(path, &req, ctx.now) {
        Ok((id, ledger)) => Ok(ActionOutcome::accepted(feature::write_json(
            path, &id, &ledger,
        ))),
        Err(e @ FeatureError::InvalidInput(_)) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(feature_err(e)),
    }
}

fn retry_outcome(e: super::retry::RetryError) -> ActionOutcome {
    ActionOutcome::rejected(vec![e.class.to_string()], e.message)
}

fn retry_decide(ctx: &ActionContext<'_>, args: RetryArgs) -> Result<ActionOutcome, ActionError> {
    let policy = match super::retry::RetryPolicy::load(&ctx.paths.retry_policy) {
        Ok(p) => p,
        Err(e) => return Ok(retry_outcome(e)),
    };
    Ok(
        match policy.decide(&args.failure_classes, args.attempt.unwrap_or(1)) {
            Ok(d) => ActionOutcome::accepted(d.to_json()),
            Err(e) => retry_outcome(e),
        },
    )
}

fn escalate(ctx: &ActionContext<'_>, args: EscalateArgs) -> Result<ActionOutcome, ActionError> {
    use super::retry::{self, RetryPolicy};
    let decided = RetryPolicy::load(&ctx.paths.retry_policy).and_then(|p| {
        p.decide(&args.failure_classes, args.attempt.unwrap_or(1))
            .map(|d| (p, d))
    });
    let (policy, decision) = match decided {
        Ok(x) => x,
        Err(e) => return Ok(retry_outcome(e)),
    };
    let env = |k: &str| std::env::var(k).ok();
    let escalation = retry::EscalationCtx {
        issues: &ctx.paths.issues,
        session: &ctx.paths.session,
        issue_id: args.issue_id.as_deref().or(ctx.issue_id),
        env_issue_ids: [env("PREMATH_ACTIVE_ISSUE_ID"), env("PREMATH_ISSUE_ID")],
        scope: "tusk.scheme_eval",
        now: ctx.now,
    };
    Ok(match retry::escalate(&policy, &decision, &escalation) {
        Ok(v) => ActionOutcome::accepted(v),
        Err(e) => retry_outcome(e),
    })
}

fn kpi_report(ctx: &ActionContext<'_>, args: KpiArgs) -> Result<ActionOutcome, ActionError> {
    let hours = match args.window_hours.map(kpi::validate_window_hours) {
        None => kpi::DEFAULT_WINDOW_HOURS,
        Some(Ok(h)) => h,
        Some(Err(e)) => return Ok(args_invalid(format!("windowHours: {e}"))),
    };
    let workers = args.active_workers;
    let now = match args.now.as_deref() {
        None => ctx.now,
        Some(t) => match parse_timestamp(t) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => return Ok(args_invalid(format!("now: {e}"))),
        },
    };
    let (report, warnings) = kpi::report_store(&ctx.paths.trajectory, hours, workers, now)
        .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    print_warnings(&warnings);
    Ok(ActionOutcome::accepted(report.to_json()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostPaths;
    use serde_json::json;

    struct Host {
        _dir: tempfile::TempDir,
        paths: HostPaths,
    }

    fn host() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let paths = HostPaths::under(dir.path());
        Host { _dir: dir, paths }
    }

    fn action(id: &str) -> Arc<dyn HostAction> {
        actions()
            .into_iter()
            .find(|a| a.id() == id)
            .unwrap_or_else(|| panic!("no action {id}"))
    }

    fn call(h: &Host, id: &str, args: Value) -> Result<ActionOutcome, ActionError> {
        let now = parse_timestamp("2026-02-05T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let ctx = ActionContext {
            paths: &h.paths,
            now,
            issue_id: Some("bd-9"),
            run_id: None,
        };
        let action = action(id);
        match crate::host::registry::validate_args(&action.spec().args, Some(&args)) {
            Ok(args) => action.call(&ctx, args),
            Err(e) => Ok(ActionOutcome::rejected(vec!["host.args_invalid".into()], e)),
        }
    }

    #[test]
    fn catalogue_ids_kinds_and_no_path_keys() {
        let all = actions();
        let ids: Vec<_> = all.iter().map(|a| (a.id().to_string(), a.kind())).collect();
        assert_eq!(ids.len(), 12);
        for (id, kind) in &ids {
            let mutation = [
                "harness.session.write",
                "harness.trajectory.append",
                "harness.feature.write",
                "harness.escalate",
                "harness.stop",
            ]
            .contains(&id.as_str());
            assert_eq!(*kind == ActionKind::Mutation, mutation, "{id}");
        }
        for a in &all {
            for (name, _, _) in a.spec().arg_list() {
                assert!(!name.to_lowercase().contains("path"), "{}: {name}", a.id());
            }
        }
    }

    #[test]
    fn session_write_read_bootstrap() {
        let h = host();
        let missing = call(&h, "harness.session.read", json!({})).unwrap();
        assert_eq!(missing.failure_classes, vec!["harness.session_missing"]);
        let fresh = call(&h, "harness.session.bootstrap", json!({})).unwrap();
        assert_eq!(fresh.payload["mode"], "fresh");

        let out = call(
            &h,
            "harness.session.write",
            json!({"state": "stopped", "summary": "did x", "witnessRefs": ["b", " a", "b"]}),
        )
        .unwrap();
        assert!(out.is_accepted(), "{:?}", out.payload);
        assert_eq!(out.payload["sessionId"], "hs1_20260205T120000Z_bd-9");
        assert_eq!(out.payload["issueId"], "bd-9");
        assert_eq!(out.payload["witnessRefs"], json!(["a", "b"]));
        assert_eq!(
            out.payload["issuesPath"],
            h.paths.issues.path().display().to_string()
        );
        // No store yet: no snapshot ref (as premath); once it exists, its ref.
        assert!(out.payload.get("issuesSnapshotRef").is_none());
        std::fs::create_dir_all(h.paths.issues.path().parent().unwrap()).unwrap();
        std::fs::write(h.paths.issues.path(), "").unwrap();
        let out = call(&h, "harness.session.write", json!({"state": "stopped"})).unwrap();
        assert!(out.payload["issuesSnapshotRef"]
            .as_str()
            .unwrap()
            .starts_with("iss1_"));
        assert_eq!(out.payload["summary"], "did x");
        let read = call(&h, "harness.session.read", json!({})).unwrap();
        assert_eq!(read.payload, out.payload);
        let boot = call(&h, "harness.session.bootstrap", json!({})).unwrap();
        assert_eq!(boot.payload["mode"], "resume");
        assert_eq!(boot.payload["summary"], "did x");

        let bad = call(&h, "harness.session.write", json!({"state": "paused"})).unwrap();
        assert_eq!(bad.failure_classes, vec!["host.args_invalid"]);
    }

    #[test]
    fn corrupt_session_is_an_execution_error() {
        let h = host();
        std::fs::create_dir_all(h.paths.session.parent().unwrap()).unwrap();
        std::fs::write(&h.paths.session, "{not json").unwrap();
        let err = call(&h, "harness.session.bootstrap", json!({})).unwrap_err();
        assert_eq!(err.class, "harness.session_corrupt");
        let err = call(&h, "harness.session.write", json!({"state": "active"})).unwrap_err();
        assert_eq!(err.class, "harness.session_corrupt");
        assert_eq!(
            std::fs::read_to_string(&h.paths.session).unwrap(),
            "{not json"
        );
    }

    #[test]
    fn trajectory_append_and_query() {
        let h = host();
        let out = call(
            &h,
            "harness.trajectory.append",
            json!({"stepId": "s1", "action": "verify.run", "resultClass": "transient.timeout"}),
        )
        .unwrap();
        assert!(out.is_accepted(), "{:?}", out.payload);
        assert_eq!(out.payload["row"]["finishedAt"], "2026-02-05T12:00:00Z");
        assert_eq!(out.payload["row"]["issueId"], "bd-9");
        let bad = call(
            &h,
            "harness.trajectory.append",
            json!({"stepId": "s2", "action": "a", "resultClass": "ok", "finishedAt": "noon"}),
        )
        .unwrap();
        assert_eq!(bad.failure_classes, vec!["host.args_invalid"]);
        let q = call(
            &h,
            "harness.trajectory.query",
            json!({"mode": "retry-needed"}),
        )
        .unwrap();
        assert_eq!(q.payload["retryNeededCount"], 1);
        assert_eq!(q.payload["totalCount"], 1);
        assert_eq!(q.payload["items"][0]["stepId"], "s1");
        let bad = call(&h, "harness.trajectory.query", json!({"mode": "oldest"})).unwrap();
        assert_eq!(bad.failure_classes, vec!["host.args_invalid"]);
        let bad = call(&h, "harness.trajectory.query", json!({"limit": -1})).unwrap();
        assert_eq!(bad.failure_classes, vec!["host.args_invalid"]);

        std::fs::write(h.paths.trajectory.path(), "garbage\n").unwrap();
        let err = call(&h, "harness.trajectory.query", json!({})).unwrap_err();
        assert_eq!(err.class, "harness.trajectory_corrupt");
    }

    #[test]
    fn feature_write_next_and_rejected_ledger() {
        let h = host();
        let missing = call(&h, "harness.feature.next", json!({})).unwrap();
        assert!(missing.is_accepted());
        assert_eq!(missing.payload["exists"], false);
        assert_eq!(missing.payload["nextFeatureId"], Value::Null);
        let w = call(
            &h,
            "harness.feature.write",
            json!({"featureId": " f1 ", "status": "in_progress", "sessionRef": "s"}),
        )
        .unwrap();
        assert!(w.is_accepted(), "{:?}", w.payload);
        assert_eq!(w.payload["action"], "harness-feature.write");
        assert_eq!(w.payload["featureId"], "f1");
        assert_eq!(w.payload["ledger"]["sessionRef"], "s");
        assert_eq!(w.payload["ledger"]["features"][0]["status"], "in_progress");
        let next = call(&h, "harness.feature.next", json!({})).unwrap();
        assert_eq!(next.payload["nextFeatureId"], "f1");
        assert_eq!(next.payload["exists"], true);
        // Completed without a verification ref is written (as the reference
        // does), and then the ledger is rejected by next.
        let done = call(
            &h,
            "harness.feature.write",
            json!({"featureId": "f1", "status": "completed"}),
        )
        .unwrap();
        assert!(done.is_accepted());
        let rejected = call(&h, "harness.feature.next", json!({})).unwrap();
        assert_eq!(
            rejected.failure_classes,
            vec!["harness.feature_ledger_rejected"]
        );
        assert!(rejected.payload["diagnostic"]
            .as_str()
            .unwrap()
            .contains("harness_feature_ledger.completed_missing_verification_ref"));
        for bad in [
            json!({"featureId": "f2", "status": "closed"}),
            json!({"featureId": "  ", "status": "pending"}),
        ] {
            let r = call(&h, "harness.feature.write", bad).unwrap();
            assert_eq!(r.failure_classes, vec!["host.args_invalid"]);
        }
    }

    #[test]
    fn kpi_uses_ctx_clock_and_validates_args() {
        let h = host();
        for (i, class) in ["accepted", "accepted", "rejected"].iter().enumerate() {
            call(
                &h,
                "harness.trajectory.append",
                json!({"stepId": format!("s{i}"), "action": "a", "resultClass": class,
                       "finishedAt": "2026-02-05T11:00:00Z"}),
            )
            .unwrap();
        }
        let k = call(&h, "harness.kpi", json!({})).unwrap();
        assert_eq!(k.payload["windowRows"], 3);
        assert_eq!(k.payload["completedRows"], 2);
        assert_eq!(k.payload["activeWorkers"], 1);
        assert_eq!(k.payload["now"], "2026-02-05T12:00:00Z");
        let earlier = call(&h, "harness.kpi", json!({"now": "2026-02-05T10:00:00Z"})).unwrap();
        assert_eq!(earlier.payload["windowRows"], 0);
        assert_eq!(earlier.payload["decision"], "insufficient_data");
        for bad in [
            json!({"windowHours": 0}),
            json!({"windowHours": "x"}),
            json!({"now": "x"}),
            json!({"activeWorkers": -2}),
        ] {
            let out = call(&h, "harness.kpi", bad.clone()).unwrap();
            assert_eq!(out.failure_classes, vec!["host.args_invalid"], "{bad}");
        }
    }
}
