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

use super::feature::{self, FeatureError, FeatureState, FeatureWrite, WriteOutcome};
use super::kpi;
use super::session::{self, SessionError, SessionState, SessionWrite};
use super::trajectory::{self, ProjectionMode, StepRow, TrajectoryError};
use super::{format_timestamp, parse_timestamp};
use crate::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, FnAction, HostAction,
};
use chrono::Utc;
use serde_json::{Map, Value};
use std::sync::Arc;

type Run = fn(&ActionContext<'_>, &Map<String, Value>) -> Result<ActionOutcome, ActionError>;

/// Every harness action: reads `harness.session.read`, `harness.session.bootstrap`,
/// `harness.trajectory.query`, `harness.feature.next`, `harness.kpi`; mutations
/// `harness.session.write`, `harness.trajectory.append`, `harness.feature.write`.
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    use ArgType::{Any, Integer, String as Str, StringList};
    const NONE: &[ArgSpec] = &[];
    const SESSION_WRITE: &[ArgSpec] = &[
        ArgSpec::required("state", Str),
        ArgSpec::optional("issueId", Str),
        ArgSpec::optional("summary", Str),
        ArgSpec::optional("nextStep", Str),
        ArgSpec::optional("instructionRefs", StringList),
        ArgSpec::optional("witnessRefs", StringList),
        ArgSpec::optional("lineageRefs", StringList),
        ArgSpec::optional("sessionId", Str),
    ];
    const QUERY: &[ArgSpec] = &[
        ArgSpec::optional("mode", Str),
        ArgSpec::optional("limit", Integer),
    ];
    const APPEND: &[ArgSpec] = &[
        ArgSpec::required("stepId", Str),
        ArgSpec::required("action", Str),
        ArgSpec::required("resultClass", Str),
        ArgSpec::optional("issueId", Str),
        ArgSpec::optional("instructionRefs", StringList),
        ArgSpec::optional("witnessRefs", StringList),
        ArgSpec::optional("lineageRefs", StringList),
        ArgSpec::optional("startedAt", Str),
        ArgSpec::optional("finishedAt", Str),
    ];
    const FEATURE_WRITE: &[ArgSpec] = &[
        ArgSpec::required("featureId", Str),
        ArgSpec::optional("title", Str),
        ArgSpec::optional("state", Str),
        ArgSpec::optional("issueId", Str),
        ArgSpec::optional("verificationRefs", StringList),
    ];
    const KPI: &[ArgSpec] = &[
        ArgSpec::optional("windowHours", Any),
        ArgSpec::optional("activeWorkers", Integer),
        ArgSpec::optional("now", Str),
    ];
    let table: [(&'static str, ActionKind, &'static [ArgSpec], Run); 8] = [
        ("harness.session.read", ActionKind::Read, NONE, session_read),
        (
            "harness.session.bootstrap",
            ActionKind::Read,
            NONE,
            session_bootstrap,
        ),
        (
            "harness.session.write",
            ActionKind::Mutation,
            SESSION_WRITE,
            session_write,
        ),
        (
            "harness.trajectory.query",
            ActionKind::Read,
            QUERY,
            trajectory_query,
        ),
        (
            "harness.trajectory.append",
            ActionKind::Mutation,
            APPEND,
            trajectory_append,
        ),
        ("harness.feature.next", ActionKind::Read, NONE, feature_next),
        (
            "harness.feature.write",
            ActionKind::Mutation,
            FEATURE_WRITE,
            feature_write,
        ),
        ("harness.kpi", ActionKind::Read, KPI, kpi_report),
    ];
    table
        .into_iter()
        .map(|(id, kind, args, run)| {
            Arc::new(FnAction {
                id,
                kind,
                args,
                run,
            }) as Arc<dyn HostAction>
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Argument access (keys and JSON types are already validated by the registry)

fn text<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn owned(args: &Map<String, Value>, key: &str) -> Option<String> {
    text(args, key).map(str::to_string)
}

fn list(args: &Map<String, Value>, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
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

fn session_read(
    ctx: &ActionContext<'_>,
    _: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    match session::read(&ctx.paths.session).map_err(session_err)? {
        Some(s) => Ok(ActionOutcome::accepted(s.to_json())),
        None => Ok(ActionOutcome::rejected(
            vec!["harness.session_missing".into()],
            format!("no session at {}", ctx.paths.session.display()),
        )),
    }
}

fn session_bootstrap(
    ctx: &ActionContext<'_>,
    _: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    session::bootstrap(&ctx.paths.session, &ctx.paths.feature_ledger)
        .map(ActionOutcome::accepted)
        .map_err(session_err)
}

fn session_write(
    ctx: &ActionContext<'_>,
    args: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let state_text = text(args, "state").unwrap_or_default();
    let Some(state) = SessionState::parse(state_text) else {
        return Ok(args_invalid(format!(
            "state: must be active or stopped, found {state_text:?}"
        )));
    };
    let req = SessionWrite {
        state,
        issue_id: owned(args, "issueId").or_else(|| ctx.issue_id.map(str::to_string)),
        summary: owned(args, "summary"),
        next_step: owned(args, "nextStep"),
        instruction_refs: list(args, "instructionRefs"),
        witness_refs: list(args, "witnessRefs"),
        lineage_refs: list(args, "lineageRefs"),
        issues_path: Some(ctx.paths.issues.display().to_string()),
        session_id: owned(args, "sessionId"),
    };
    session::write(&ctx.paths.session, &req, ctx.now)
        .map(|s| ActionOutcome::accepted(s.to_json()))
        .map_err(session_err)
}

fn trajectory_query(
    ctx: &ActionContext<'_>,
    args: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let mode_text = text(args, "mode").unwrap_or("latest");
    let Some(mode) = ProjectionMode::parse(mode_text) else {
        return Ok(args_invalid(format!(
            "mode: must be latest, failed or retry-needed, found {mode_text:?}"
        )));
    };
    let limit = match args.get("limit").map(Value::as_u64) {
        None => trajectory::DEFAULT_LIMIT,
        Some(Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
        Some(None) => return Ok(args_invalid("limit: must be a non-negative integer")),
    };
    let projection =
        trajectory::query(&ctx.paths.trajectory, mode, limit).map_err(trajectory_err)?;
    print_warnings(&projection.warnings);
    Ok(ActionOutcome::accepted(projection.value))
}

fn trajectory_append(
    ctx: &ActionContext<'_>,
    args: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let row = StepRow {
        step_id: owned(args, "stepId").unwrap_or_default(),
        action: owned(args, "action").unwrap_or_default(),
        result_class: owned(args, "resultClass").unwrap_or_default(),
        finished_at: owned(args, "finishedAt").unwrap_or_else(|| format_timestamp(ctx.now)),
        issue_id: owned(args, "issueId").or_else(|| ctx.issue_id.map(str::to_string)),
        instruction_refs: list(args, "instructionRefs"),
        witness_refs: list(args, "witnessRefs"),
        lineage_refs: list(args, "lineageRefs"),
        started_at: owned(args, "startedAt"),
    };
    match trajectory::append(&ctx.paths.trajectory, &row) {
        Ok(value) => Ok(ActionOutcome::accepted(append_output(
            &ctx.paths.trajectory,
            value,
        ))),
        Err(e @ TrajectoryError::InvalidRow { .. }) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(trajectory_err(e)),
    }
}

/// The `append --json` output: where the row went and the row as written.
pub(crate) fn append_output(path: &std::path::Path, row: Value) -> Value {
    let mut m = Map::new();
    m.insert("schema".into(), 1.into());
    m.insert("path".into(), path.display().to_string().into());
    m.insert("row".into(), row);
    Value::Object(m)
}

fn feature_next(
    ctx: &ActionContext<'_>,
    _: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    match feature::next(&ctx.paths.feature_ledger) {
        Ok(v) => Ok(ActionOutcome::accepted(v)),
        Err(e @ FeatureError::Missing { .. }) => Ok(ActionOutcome::rejected(
            vec![e.class().into()],
            e.to_string(),
        )),
        Err(e) => Err(feature_err(e)),
    }
}

fn feature_write(
    ctx: &ActionContext<'_>,
    args: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let state = match text(args, "state") {
        None => None,
        Some(s) => match FeatureState::parse(s) {
            Some(state) => Some(state),
            None => {
                return Ok(args_invalid(format!(
                    "state: must be pending, in_progress or closed, found {s:?}"
                )))
            }
        },
    };
    let req = FeatureWrite {
        feature_id: owned(args, "featureId").unwrap_or_default(),
        title: owned(args, "title"),
        state,
        issue_id: owned(args, "issueId"),
        verification_refs: list(args, "verificationRefs"),
    };
    match feature::write(&ctx.paths.feature_ledger, &req, ctx.now) {
        Ok(WriteOutcome::Written(v)) => Ok(ActionOutcome::accepted(v)),
        Ok(WriteOutcome::Rejected { class, diagnostic }) => {
            Ok(ActionOutcome::rejected(vec![class.into()], diagnostic))
        }
        Err(e @ FeatureError::InvalidInput(_)) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(feature_err(e)),
    }
}

fn kpi_report(
    ctx: &ActionContext<'_>,
    args: &Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let hours = match args.get("windowHours") {
        None => kpi::DEFAULT_WINDOW_HOURS,
        Some(v) => match v.as_f64().map(kpi::validate_window_hours) {
            Some(Ok(h)) => h,
            Some(Err(e)) => return Ok(args_invalid(format!("windowHours: {e}"))),
            None => return Ok(args_invalid("windowHours: must be a number")),
        },
    };
    let workers = match args.get("activeWorkers").map(Value::as_u64) {
        None => None,
        Some(Some(n)) => Some(n),
        Some(None) => {
            return Ok(args_invalid(
                "activeWorkers: must be a non-negative integer",
            ))
        }
    };
    let now = match text(args, "now") {
        None => ctx.now,
        Some(t) => match parse_timestamp(t) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => return Ok(args_invalid(format!("now: {e}"))),
        },
    };
    let (report, warnings) = kpi::report(&ctx.paths.trajectory, hours, workers, now)
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
        };
        let Value::Object(map) = args else {
            panic!("args must be an object")
        };
        action(id).call(&ctx, &map)
    }

    #[test]
    fn catalogue_ids_kinds_and_no_path_keys() {
        let all = actions();
        let ids: Vec<_> = all.iter().map(|a| (a.id().to_string(), a.kind())).collect();
        assert_eq!(ids.len(), 8);
        for (id, kind) in &ids {
            let mutation = [
                "harness.session.write",
                "harness.trajectory.append",
                "harness.feature.write",
            ]
            .contains(&id.as_str());
            assert_eq!(*kind == ActionKind::Mutation, mutation, "{id}");
        }
        for a in &all {
            for spec in a.args() {
                assert!(
                    !spec.name.to_lowercase().contains("path"),
                    "{}: {}",
                    a.id(),
                    spec.name
                );
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
            h.paths.issues.display().to_string()
        );
        assert!(out.payload["issuesSnapshotRef"]
            .as_str()
            .unwrap()
            .starts_with("iss1_"));
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

        std::fs::write(&h.paths.trajectory, "garbage\n").unwrap();
        let err = call(&h, "harness.trajectory.query", json!({})).unwrap_err();
        assert_eq!(err.class, "harness.trajectory_corrupt");
    }

    #[test]
    fn feature_write_next_and_close_rule() {
        let h = host();
        let missing = call(&h, "harness.feature.next", json!({})).unwrap();
        assert_eq!(missing.failure_classes, vec!["feature_ledger.missing"]);
        let w = call(
            &h,
            "harness.feature.write",
            json!({"featureId": "f1", "title": "one"}),
        )
        .unwrap();
        assert!(w.is_accepted(), "{:?}", w.payload);
        let refused = call(
            &h,
            "harness.feature.write",
            json!({"featureId": "f1", "state": "closed"}),
        )
        .unwrap();
        assert_eq!(
            refused.failure_classes,
            vec!["feature_ledger.verification_missing"]
        );
        let next = call(&h, "harness.feature.next", json!({})).unwrap();
        assert_eq!(next.payload["nextFeatureId"], "f1");
        let closed = call(
            &h,
            "harness.feature.write",
            json!({"featureId": "f1", "state": "closed", "verificationRefs": ["ci://run/1"]}),
        )
        .unwrap();
        assert_eq!(closed.payload["featureClosureComplete"], true);
        let new_without_title =
            call(&h, "harness.feature.write", json!({"featureId": "f2"})).unwrap();
        assert_eq!(new_without_title.failure_classes, vec!["host.args_invalid"]);
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
