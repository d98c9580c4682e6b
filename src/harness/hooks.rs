//! The harness contract's hooks (seed TUSK-HARNESS-CONTRACT §§3–4) as host
//! actions, so a worker program is a few lines: `harness.boot` reads every
//! persisted state a step starts from; `harness.stop` ends it with a handoff.
//!
//! `harness.stop` writes in this order: (1) the lease action (release or
//! renew; the only part the store's rules can refuse, so a refusal changes
//! nothing), (2) the stopped session, (3) the trajectory's stop row. A crash
//! between (1) and (2) leaves the session `active` on an issue whose lease is
//! already released or renewed, which `harness.boot` reports as a handoff to
//! resume; a crash between (2) and (3) leaves the stopped session without
//! its row, which only the KPI misses.

use super::session::{self, SessionState, SessionWrite};
use super::trajectory::{self, StepRow};
use crate::canonical;
use crate::host::HostClass;
use crate::host::{ActionContext, ActionError, ActionOutcome};
use crate::issues::lease;
use crate::issues::views;
use crate::issues::IssueClass;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// The worker pool named in `cover://` refs.
pub const WORKER_POOL: &str = "tusk.scheme_eval.v1";

fn hex(value: &Value) -> String {
    canonical::sha256_hex(canonical::to_canonical_string(value).as_bytes())
}

/// `ctx://`, `cover://` and `refinement://` lineage refs of a step on `issue`
/// by `worker` in run `run_id`, as the reference's worker loop builds them.
pub fn lineage_refs(issue: &str, worker: &str, issues_path: &str, run_id: &str) -> [String; 3] {
    let ctx = format!(
        "ctx://issue/{issue}/{}",
        hex(&json!({"kind": "ctx", "issueId": issue, "issuesPath": issues_path}))
    );
    let cover = format!(
        "cover://worker-loop/{issue}/{}",
        hex(&json!({"kind": "cover", "ctxRef": ctx, "workerPool": WORKER_POOL}))
    );
    let refinement = format!(
        "refinement://worker-loop/{issue}/{worker}/{}",
        hex(&json!({"kind": "refinement", "coverRef": cover, "workerId": worker, "runId": run_id}))
    );
    [ctx, cover, refinement]
}

/// One issue's lease as a handoff sees it.
#[derive(Debug, Clone, Default)]
pub struct LeaseView {
    pub lease_id: String,
    pub owner: String,
    pub expires_at: String,
    /// unleased, active or stale.
    pub state: String,
    pub status: String,
    pub assignee: String,
}

/// The issue's current lease, or `None` when there is no such issue.
pub fn lease_view(ctx: &ActionContext<'_>, issue: &str) -> Result<Option<LeaseView>, ActionError> {
    let shown = ctx
        .paths
        .issues
        .read(|store| views::show_payload(store, "", issue, ctx.now).into_value())?;
    let i = &shown["issue"];
    if i.is_null() {
        return Ok(None);
    }
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    Ok(Some(LeaseView {
        lease_id: s(&i["lease"]["lease_id"]),
        owner: s(&i["lease"]["owner"]),
        expires_at: s(&i["lease"]["expires_at"]),
        state: s(&shown["leaseState"]),
        status: s(&i["status"]),
        assignee: s(&i["assignee"]),
    }))
}

/// The `lease://handoff/<issue>/<state>/<digest>` ref after `action`.
pub fn handoff_ref(
    issue: &str,
    worker: &str,
    lease: &LeaseView,
    state: &str,
    action: &str,
) -> String {
    let digest = hex(&json!({
        "issueId": issue, "workerId": worker, "leaseId": lease.lease_id,
        "leaseOwner": lease.owner, "leaseState": state, "leaseAction": action,
        "status": lease.status, "assignee": lease.assignee,
    }));
    format!("lease://handoff/{issue}/{state}/{digest}")
}

/// The handoff lease state: released by this stop, held by someone else
/// (contended), or the lease's own state.
fn handoff_state(lease: &LeaseView, worker: &str, action: &str) -> String {
    if action == "issue_lease_release" {
        "released".into()
    } else if lease.state == "active" && lease.owner != worker {
        "contended".into()
    } else {
        lease.state.clone()
    }
}

/// Debug builds only (the test suite's): `TUSK_TEST_CRASH_AT=<point>` kills
/// the host with SIGKILL between two of `harness.stop`'s writes, so a test
/// can check what the next boot makes of the state left behind.
fn crash_point(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("TUSK_TEST_CRASH_AT").as_deref() == Ok(point) {
        // SAFETY: killing our own process, as a crash would.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// `harness.stop`: see the module doc for the order of its writes.
#[allow(clippy::too_many_arguments)]
pub fn stop(
    ctx: &ActionContext<'_>,
    issue: &str,
    worker: &str,
    summary: &str,
    next_step: &str,
    lease_mode: &str,
    ttl_seconds: Option<i64>,
) -> Result<ActionOutcome, ActionError> {
    let rejected = |class: &str, why: String| Ok(ActionOutcome::rejected(vec![class.into()], why));
    let action = match lease_mode {
        "release" => "issue_lease_release",
        "renew" => "issue_lease_renew",
        "keep" => "none",
        other => {
            return rejected(
                HostClass::ArgsInvalid.as_str(),
                format!("lease must be release, renew or keep, found {other:?}"),
            )
        }
    };
    let Some(before) = lease_view(ctx, issue)? else {
        return rejected(IssueClass::NotFound.as_str(), format!("no issue {issue}"));
    };
    // (1) The lease action: refused by the store's rules, nothing is written.
    if action != "none" {
        let lease_id = (!before.lease_id.is_empty()).then(|| before.lease_id.clone());
        if let Some(refused) = stop_lease(ctx, issue, worker, action, lease_id, ttl_seconds)? {
            return Ok(refused);
        }
    }
    crash_point("lease");
    let after = lease_view(ctx, issue)?.unwrap_or_default();
    let state = handoff_state(&after, worker, action);
    let lease_ref = handoff_ref(issue, worker, &after, &state, action);
    let issues_path = ctx.paths.issues.path().display().to_string();
    let run_id = ctx.run_id.unwrap_or("");
    let lineage = lineage_refs(issue, worker, &issues_path, run_id);
    // (2) The stopped session.
    let written = session::write(
        &ctx.paths.session,
        &SessionWrite {
            state: SessionState::Stopped,
            issue_id: Some(issue.to_string()),
            summary: Some(summary.to_string()),
            next_step: Some(next_step.to_string()),
            instruction_refs: Vec::new(),
            witness_refs: vec![lease_ref.clone()],
            lineage_refs: lineage.to_vec(),
            issues: ctx.paths.issues.clone(),
            session_id: None,
        },
        ctx.now,
    )
    .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    crash_point("session");
    // (3) The stop row.
    let step_id = format!(
        "harness.stop.{issue}.{}",
        if run_id.is_empty() { "direct" } else { run_id }
    );
    append_stop_row(ctx, issue, &step_id, &lease_ref, &lineage)?;
    Ok(ActionOutcome::accepted(crate::host::payload_json(
        &Stopped {
            schema: 1,
            kind: "premath.harness.stop.v1",
            issue_id: issue,
            worker_id: worker,
            lease: StopLease {
                action,
                state: &state,
                lease_id: &after.lease_id,
                owner: &after.owner,
                expires_at: &after.expires_at,
            },
            lease_ref: &lease_ref,
            lineage_refs: &lineage,
            step_id: &step_id,
            session: written.doc(),
        },
    )))
}

/// A step stopped (`premath.harness.stop.v1`): the payload of `harness.stop`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stopped<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.stop.v1`.
    pub kind: &'static str,
    pub issue_id: &'a str,
    pub worker_id: &'a str,
    pub lease: StopLease<'a>,
    /// The handoff's lease ref (`lease://handoff/…`).
    pub lease_ref: &'a str,
    /// The ctx, cover and refinement refs of the step.
    pub lineage_refs: &'a [String],
    pub step_id: &'a str,
    /// The stopped session as written.
    pub session: session::SessionDoc<'a>,
}

/// The lease after `harness.stop`'s lease action.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopLease<'a> {
    /// `issue_lease_release`, `issue_lease_renew` or `none`.
    pub action: &'a str,
    /// `released`, `contended`, `active`, `stale` or `unleased`.
    pub state: &'a str,
    /// Empty when there is no lease (as each of the members after it).
    pub lease_id: &'a str,
    pub owner: &'a str,
    pub expires_at: &'a str,
}

/// Releases or renews (`action`) the worker's lease on `issue`: the
/// rejected outcome when the store's rules refuse it.
fn stop_lease(
    ctx: &ActionContext<'_>,
    issue: &str,
    worker: &str,
    action: &str,
    lease_id: Option<String>,
    ttl_seconds: Option<i64>,
) -> Result<Option<ActionOutcome>, ActionError> {
    let mctx = crate::issues::actions::mutation_ctx(ctx);
    let req =
        crate::issues::actions::lease_request(worker.to_string(), lease_id, ttl_seconds, None);
    let report = if action == "issue_lease_release" {
        lease::release(&mctx, issue, &req)
    } else {
        lease::renew(&mctx, issue, &req)
    }?;
    if report.failure_classes.is_empty() {
        return Ok(None);
    }
    let classes = report.failure_classes.clone();
    let payload = report.into_value();
    let diag = payload["diagnostic"]
        .as_str()
        .unwrap_or("the lease action was refused")
        .to_string();
    Ok(Some(ActionOutcome::rejected(classes, diag)))
}

/// The trajectory's stop row, with the handoff and lineage refs.
fn append_stop_row(
    ctx: &ActionContext<'_>,
    issue: &str,
    step_id: &str,
    lease_ref: &str,
    lineage: &[String],
) -> Result<(), ActionError> {
    trajectory::append_to(
        &ctx.paths.trajectory,
        &StepRow {
            step_id: step_id.to_string(),
            action: "harness.stop".into(),
            result_class: "accepted".into(),
            finished_at: super::format_timestamp(ctx.now),
            issue_id: Some(issue.to_string()),
            instruction_refs: Vec::new(),
            witness_refs: vec![lease_ref.to_string()],
            lineage_refs: lineage.to_vec(),
            started_at: None,
        },
    )
    .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    Ok(())
}

/// `harness.boot`: the memory roots, dependency diagnostics over open work,
/// the session's bootstrap, the leases that concern this worker or issue
/// (with how to resume a stranded one), and the next target.
pub fn boot(
    ctx: &ActionContext<'_>,
    worker: Option<&str>,
    issue: Option<&str>,
) -> Result<ActionOutcome, ActionError> {
    let text = ctx.paths.issues.read_text()?;
    let store = ctx.paths.issues.parse(&text)?;
    let issues_path = ctx.paths.issues.path().display().to_string();
    let diagnostics =
        views::diagnostics_payload(&store, &issues_path, views::Scope::Active).into_value();
    let bootstrap = session::bootstrap(&ctx.paths.session, &ctx.paths.feature_ledger)
        .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    let session_issue = session::read(&ctx.paths.session)
        .ok()
        .flatten()
        .and_then(|s| s.issue_id.map(|i| (i, s.state == SessionState::Active)));
    let listed = views::list_view(&store, &issues_path, &views::ListFilter::default(), ctx.now);
    let mut leases = Vec::new();
    for item in &listed.items {
        let id = item.id;
        // As the list shows it: no assignee is the empty one.
        let concerns = issue == Some(id)
            || session_issue.as_ref().is_some_and(|(i, _)| i == id)
            || worker.is_some_and(|w| item.assignee.unwrap_or("") == w);
        if !concerns {
            continue;
        }
        let Some(view) = lease_view(ctx, id)? else {
            continue;
        };
        if view.state == "unleased" && session_issue.as_ref().is_none_or(|(i, _)| i != id) {
            continue;
        }
        let stranded = session_issue
            .as_ref()
            .is_some_and(|(i, active)| i == id && *active)
            || view.state == "stale";
        let resume = match (view.state.as_str(), worker) {
            ("active", Some(w)) if view.owner == w => format!(
                "held by this worker: renew with (issue.lease_renew (hash \"id\" \"{id}\" \"assignee\" \"{w}\" \"leaseId\" \"{}\")) and go on, or stop with harness.stop",
                view.lease_id
            ),
            ("active", _) => format!("held by {} until {}: wait, or work elsewhere", view.owner, view.expires_at),
            ("stale", _) => format!("the lease expired at {}: claim it again with issue.claim", view.expires_at),
            _ => format!("no lease: claim it with (issue.claim (hash \"id\" \"{id}\" \"assignee\" …))"),
        };
        leases.push(BootLease {
            issue_id: id,
            lease_id: view.lease_id,
            owner: view.owner,
            expires_at: view.expires_at,
            lease_state: view.state,
            status: view.status,
            stranded,
            resume,
        });
    }
    let ready = views::ready_view(&store, &issues_path, &Default::default(), ctx.now);
    let next = match ready.items.first() {
        Some(first) => Some(BootNext {
            source: "ready",
            issue_id: Some(first.id),
            title: Some(first.title),
            feature_id: None,
        }),
        None => match super::feature::project_next(&ctx.paths.feature_ledger) {
            Ok(Some(super::feature::NextFeature {
                next_feature_id: Some(id),
                ..
            })) => Some(BootNext {
                source: "feature",
                issue_id: None,
                title: None,
                feature_id: Some(id),
            }),
            _ => None,
        },
    };
    Ok(ActionOutcome::accepted(crate::host::payload_json(
        &Booted {
            schema: 1,
            kind: "premath.harness.boot.v1",
            roots: BootRoots {
                trajectory_path: ctx.paths.trajectory.path().display().to_string(),
                session_path: ctx.paths.session.display().to_string(),
                feature_ledger_path: ctx.paths.feature_ledger.display().to_string(),
                issues_path: issues_path.clone(),
            },
            diagnostics,
            session: bootstrap,
            leases,
            next,
        },
    )))
}

/// A step booted (`premath.harness.boot.v1`): the payload of `harness.boot`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Booted<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.boot.v1`.
    pub kind: &'static str,
    pub roots: BootRoots,
    /// `dep.diagnostics` over the active issues.
    #[schemars(with = "views::DiagnosticsPayload<'static>")]
    pub diagnostics: Value,
    /// The session's bootstrap projection.
    pub session: session::Bootstrap,
    /// The leases that concern this worker, issue or session.
    pub leases: Vec<BootLease<'a>>,
    /// The next target: the first ready issue, else the next feature; `null`
    /// when there is neither.
    pub next: Option<BootNext<'a>>,
}

/// Where the step's memory lives.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootRoots {
    pub issues_path: String,
    pub trajectory_path: String,
    pub session_path: String,
    pub feature_ledger_path: String,
}

/// A lease that concerns the booting worker, and how to resume it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootLease<'a> {
    pub issue_id: &'a str,
    pub lease_id: String,
    pub owner: String,
    pub expires_at: String,
    /// `unleased`, `active` or `stale`.
    pub lease_state: String,
    pub status: String,
    /// Left behind by a step that did not stop (an active session on it, or
    /// a stale lease).
    pub stranded: bool,
    /// What to do about it, in one line.
    pub resume: String,
}

/// The next target of a boot: `source` `ready` with the issue, or `feature`
/// with the feature.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootNext<'a> {
    /// `ready` or `feature`.
    pub source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_id: Option<String>,
}
