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
//!
//! Each action is one module named after its id (`harness.session.write` is
//! `harness_session_write.rs`): its argument type, its declaration and its run
//! function. This module holds what they share and [`actions`], the one list.

use super::{format_timestamp, parse_timestamp};
use crate::harness::feature::{self, FeatureError, FeatureWrite};
use crate::harness::kpi;
use crate::harness::session::{self, SessionError, SessionState, SessionWrite};
use crate::harness::trajectory::{self, ProjectionMode, StepRow, TrajectoryError};
use crate::harness::HarnessClass;
use crate::host::HostClass;
use crate::host::{
    declare, payload_schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration,
    HostAction,
};
use chrono::Utc;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The classes of the trajectory actions.
const TRAJECTORY: &[&str] = &[
    HostClass::ArgsInvalid.as_str(),
    HarnessClass::TrajectoryCorrupt.as_str(),
    HarnessClass::IoError.as_str(),
];

// One module per action: its arguments, its declaration, its run function.
mod harness_boot;
mod harness_escalate;
mod harness_feature_next;
mod harness_feature_write;
mod harness_kpi;
mod harness_retry_decide;
mod harness_session_bootstrap;
mod harness_session_read;
mod harness_session_write;
mod harness_stop;
mod harness_trajectory_append;
mod harness_trajectory_query;

/// Every harness action, one module each (the module is the action id with `_`
/// for `.`).
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    vec![
        harness_session_read::action(),
        harness_session_bootstrap::action(),
        harness_session_write::action(),
        harness_trajectory_query::action(),
        harness_trajectory_append::action(),
        harness_feature_next::action(),
        harness_feature_write::action(),
        harness_boot::action(),
        harness_stop::action(),
        harness_retry_decide::action(),
        harness_escalate::action(),
        harness_kpi::action(),
    ]
}

fn args_invalid(diagnostic: impl Into<String>) -> ActionOutcome {
    ActionOutcome::rejected(vec![HostClass::ArgsInvalid.as_str().into()], diagnostic)
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

/// The `append --json` output: where the row went and the row as written.
pub(crate) fn append_output(path: &std::path::Path, row: Value) -> Value {
    crate::host::payload_json(&trajectory::AppendOutput {
        action: "harness-trajectory.append",
        schema: 1,
        path: path.display().to_string(),
        row,
    })
}

fn retry_outcome(e: crate::harness::retry::RetryError) -> ActionOutcome {
    ActionOutcome::rejected(vec![e.class.to_string()], e.message)
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
            principal: None,
            approval: None,
            allowed: None,
        };
        let action = action(id);
        match crate::host::registry::validate_args(action.args_schema(), Some(&args)) {
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
