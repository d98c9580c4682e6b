//! An atomic run's host side (issue 59): its issue-store changes staged on
//! an [`Overlay`], and its end — commit, abort or dry run — recorded as one
//! more call row, `run.commit`, made by the host after the program's last
//! call.
//!
//! The `run.commit` row is a call row like any other (effect row, trajectory
//! row, envelope among the run's effects), so the commit shares what issue
//! 61 gives every mutation: on PostgreSQL the store's change and the row
//! commit as one transaction; on the file store the write's journal carries
//! the row, and a process killed after the rename gets it from recovery.
//! No program can make the call: `run.commit` is no registered action (a
//! program's `(host-call "run.commit")` is refused as unallowlisted), and
//! replay reads it as the host's (`replay::log`).
//!
//! Its payload says what became of the staged changes:
//! - `committed`: applied, `issues` lists them;
//! - `conflict`: an issue the run read or wrote moved (class `run.conflict`,
//!   `conflicts` names the issues and fields), nothing applied;
//! - `aborted`: the program raised, hit a limit or had a call refused
//!   (class `run.aborted`), nothing applied;
//! - `dryRun`: never applied; `plan` is what a commit would have done
//!   ([`crate::issues::plan`]).

use super::{CallHost, Decision, State};
use crate::host::HostClass;
use crate::issues::overlay::{Committed, Overlay};
use crate::issues::plan::PlanClass;
use crate::issues::IssueStore;
use serde_json::{json, Value};
use std::sync::Arc;

/// The action id of the row that records an atomic run's end.
pub const COMMIT_ACTION: &str = "run.commit";
const CLASS_CONFLICT: &str = HostClass::RunConflict.as_str();
const CLASS_ABORTED: &str = HostClass::RunAborted.as_str();
const CLASS_ATOMIC_UNSUPPORTED: &str = HostClass::AtomicUnsupported.as_str();

/// The member that marks the host's own `run.commit` row (a program's
/// call of that id is refused, and its row carries no such member): what
/// replay reads as the host's.
pub const BY_HOST: &str = "byHost";

/// The row members of the host's own call.
pub(super) fn by_host() -> serde_json::Map<String, Value> {
    let mut extra = serde_json::Map::new();
    extra.insert(BY_HOST.into(), Value::Bool(true));
    extra
}

/// How an atomic run ends when its program is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Atomic {
    /// Apply the staged changes when the run is accepted.
    Commit,
    /// Never apply them; report the plan.
    DryRun,
}

impl Atomic {
    /// As the header's `atomic` records it.
    pub fn as_str(self) -> &'static str {
        match self {
            Atomic::Commit => "commit",
            Atomic::DryRun => "dryRun",
        }
    }
}

/// The argument keys whose issue a call reads: each must still hold at the
/// commit what the run's base held.
const READ_KEYS: [&str; 4] = ["id", "issueId", "dependsOnId", "parentId"];

impl CallHost {
    /// The run's overlay, when it is atomic.
    pub(super) fn overlay(&self) -> Option<&Arc<Overlay>> {
        match &self.paths.issues {
            IssueStore::Staged(overlay) => Some(overlay),
            _ => None,
        }
    }

    /// In an atomic run: a mutation that writes outside the issue store is
    /// refused (nothing could stage it), and the issues a call names are
    /// noted as read.
    pub(super) fn staged_refusal(
        &self,
        action: &str,
        mutation: bool,
        args: &Value,
    ) -> Option<Decision> {
        let overlay = self.overlay()?;
        if mutation && !action.starts_with("issue.") && !action.starts_with("dep.") {
            let why = if action == crate::issues::plan::APPLY_ACTION {
                "is a commit of its own, which an atomic run cannot stage"
            } else {
                "writes outside the issue store, which an atomic run cannot stage"
            };
            return Some(Decision::refuse(
                CLASS_ATOMIC_UNSUPPORTED,
                format!(
                    "{action} {why}: call it in a run without `atomic` (its changes then land \
                     call by call)"
                ),
            ));
        }
        for key in READ_KEYS {
            if let Some(id) = args.get(key).and_then(Value::as_str) {
                overlay.note_read(id);
            }
        }
        if mutation {
            overlay.note_action(action, false);
        }
        None
    }

    /// A call the policy's approval rules hold back, outside an atomic run
    /// (issue 59): the action runs on a staged copy of the store, nothing
    /// reaches the store, and the call answers `plan.approval_required`
    /// with the plan of its change, kept by id for an approver. An action
    /// that refuses on the copy answers its own refusal.
    pub(super) fn approval_required(
        &self,
        action: &str,
        action_impl: &Arc<dyn crate::host::HostAction>,
        args: Value,
        scope: Option<&crate::runtime::CallScope>,
        refs: Vec<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Decision {
        let copy = Overlay::new(self.paths.issues.clone(), u64::MAX / 4);
        copy.note_action(action, true);
        let paths = crate::host::HostPaths {
            issues: IssueStore::Staged(copy.clone()),
            ..self.paths.clone()
        };
        let ctx = self.action_context(&paths, now, scope);
        match action_impl.call(&ctx, args) {
            Ok(o) if o.failure_classes.is_empty() => {}
            other => {
                let mut d = Decision::made(action, other, refs, now);
                d.executed = false;
                return d;
            }
        }
        let mut d = self.held_back(&copy, action, "was written; its plan");
        d.payload["action"] = json!(action);
        d.refs = refs;
        d
    }

    /// `overlay`'s plan kept by id for an approver, and the refusal that
    /// says so: `what` names the actions held back, `outcome` what became
    /// of them and whose plan it is.
    fn held_back(&self, overlay: &Overlay, what: &str, outcome: &str) -> Decision {
        let principal = self.principal.as_deref();
        let plan = match crate::issues::plan::of(overlay, &self.program_digest, principal) {
            Ok(plan) => plan,
            Err(e) => return Decision::refuse(e.class(), format!("the plan of {what}: {e}")),
        };
        let id = plan["planId"].as_str().unwrap_or_default().to_string();
        let kept = crate::issues::plan_store::keep(overlay.base(), &id, &plan);
        let mut d = Decision::refuse(
            PlanClass::ApprovalRequired.as_str(),
            format!(
                "{what} by {} needs a plan an approver approved: nothing {outcome} {id}{} waits \
                 for an approver (`tusk plan approve {id}`)",
                principal.unwrap_or("this principal"),
                match &kept {
                    Ok(()) => " is kept and".to_string(),
                    Err(e) => format!(" could not be kept ({e}) and"),
                }
            ),
        );
        d.payload = json!({"planId": id, "plan": plan});
        d
    }

    /// Ends an atomic run: applies, refuses or plans its staged changes
    /// and records the outcome as the `run.commit` row. Nothing to do for a
    /// run that is not atomic or staged nothing (a dry run always reports
    /// its plan). `program_ok`: the program ended without an error.
    pub(crate) fn end_atomic(&self, mode: Option<Atomic>, program_ok: bool) {
        let (Some(mode), Some(overlay)) = (mode, self.overlay().cloned()) else {
            return;
        };
        if mode == Atomic::Commit && !overlay.has_changes() {
            return;
        }
        let accepted = program_ok && {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.effects.iter().all(|e| {
                e["failureClasses"]
                    .as_array()
                    .is_none_or(|classes| classes.is_empty())
            })
        };
        let decide = |state: &mut State| -> Decision {
            self.staged_decision(state, &overlay, mode, accepted)
        };
        self.host_call(COMMIT_ACTION, &decide);
    }

    fn staged_decision(
        &self,
        state: &mut State,
        overlay: &Overlay,
        mode: Atomic,
        accepted: bool,
    ) -> Decision {
        let (_, written) = overlay.read_and_written();
        if !accepted {
            let mut d = Decision::refuse(
                CLASS_ABORTED,
                format!(
                    "the run did not end accepted: none of its staged changes ({}) was applied",
                    shown(&written)
                ),
            );
            d.payload = json!({"action": COMMIT_ACTION, "outcome": "aborted", "issues": written});
            return d;
        }
        if mode == Atomic::Commit && overlay.gated() {
            let mut d = self.held_back(
                overlay,
                &overlay.actions().join(", "),
                "was applied; the run's plan",
            );
            d.payload["action"] = json!(COMMIT_ACTION);
            d.payload["outcome"] = json!("approvalRequired");
            d.payload["issues"] = json!(written);
            return d;
        }
        if mode == Atomic::DryRun {
            return match crate::issues::plan::of(
                overlay,
                &self.program_digest,
                self.principal.as_deref(),
            ) {
                Ok(plan) => Decision {
                    // Kept by id for `plan.apply`; a plan that cannot be
                    // kept is still the result's (and `--plan-out`'s).
                    diagnostic: crate::issues::plan_store::keep(
                        overlay.base(),
                        plan["planId"].as_str().unwrap_or_default(),
                        &plan,
                    )
                    .err()
                    .map(|e| format!("the plan was not kept by its id: {e}")),
                    classes: Vec::new(),
                    payload: json!({
                        "action": COMMIT_ACTION,
                        "outcome": "dryRun",
                        "issues": written,
                        "plan": plan,
                        "result": "accepted",
                        "failureClasses": [],
                    }),
                    refs: Vec::new(),
                    executed: false,
                    breach: None,
                    acted_at: None,
                },
                Err(e) => Decision::refuse(e.class(), format!("the dry run's plan: {e}")),
            };
        }
        // Rows before the change: the logs must have room for this row.
        if let Err(e) = self.reserve(state, super::ROW_RESERVE) {
            return Decision::refuse(
                HostClass::RecordUnwritable.as_str(),
                format!("the run's staged changes were not applied: its commit row could not be written ({e})"),
            );
        }
        crate::fault::meanwhile(crate::fault::BEFORE_COMMIT);
        commit_decision(overlay, written)
    }
}

/// The commit of an accepted atomic run's staged changes, as its
/// `run.commit` row answers it.
fn commit_decision(overlay: &Overlay, written: Vec<String>) -> Decision {
    let now = chrono::Utc::now();
    match overlay.commit(crate::issues::LockOptions::default()) {
        Ok(Committed::Applied(issues)) => Decision {
            classes: Vec::new(),
            payload: json!({
                "action": COMMIT_ACTION,
                "outcome": "committed",
                "issues": issues,
                "issuesPath": overlay.base().path().display().to_string(),
                "result": "accepted",
                "failureClasses": [],
            }),
            diagnostic: None,
            refs: Vec::new(),
            executed: true,
            breach: None,
            acted_at: Some(now),
        },
        Ok(Committed::Conflict(conflicts)) => {
            let named: Vec<String> = conflicts
                .iter()
                .map(|c| format!("{} ({})", c.id, c.fields.join(", ")))
                .collect();
            let mut d = Decision::refuse(
                CLASS_CONFLICT,
                format!(
                    "nothing was applied: issues this run read or wrote changed under it: {}; \
                     read them again and rerun the program",
                    named.join("; ")
                ),
            );
            d.payload = json!({
                "action": COMMIT_ACTION,
                "outcome": "conflict",
                "issues": written,
                "conflicts": conflicts,
            });
            d
        }
        Err(e) => Decision::made(COMMIT_ACTION, Err(e.into()), Vec::new(), now),
    }
}

/// Issue ids for a message.
fn shown(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".to_string()
    } else {
        ids.join(", ")
    }
}
