//! Host actions of host-api §4 over the issue memory. The store path comes from
//! the host's configuration (`ctx.paths.issues`) and the clock from `ctx.now`; no
//! argument can name a file. Payloads are the CLI's `--json` output.
//!
//! Each action is one module named after its id (`issue.claim` is
//! `issue_claim.rs`): its argument type, its declaration and the call into the
//! domain. This module holds what they share (payload schemas, the store's
//! classes, the report-to-envelope step) and [`actions`], the one list of them;
//! adding an action is a module and a line there.

use crate::host::{
    declare, payload_schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration,
    HostAction,
};
use crate::issues::filter::IssueFilter;
use crate::issues::lease::{self, LeaseRequest, LeaseTerm};
use crate::issues::mutate::{self, EdgeRef, IssueChanges, MutationCtx, NewIssue};
use crate::issues::payload::{Accepted, Verdict};
use crate::issues::store::{LockOptions, Store, StoreError};
use crate::issues::views::{self, ListFilter, Scope};
use crate::issues::IssueClass;
use crate::issues::Report;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// The envelope outcome of a store report; a store that cannot be used is an
/// execution error.
fn outcome(report: Result<Report, StoreError>) -> Result<ActionOutcome, ActionError> {
    let report = report?;
    Ok(ActionOutcome {
        failure_classes: report.failure_classes.clone(),
        payload: report.into_value(),
        witness_refs: Vec::new(),
    })
}

// ------------------------------------------------------------------ arguments

/// The routing filter of a view (`issue.ready`, `issue.blocked`).
// One declaration for the host actions (a `filter` object) and the commands
// (the filter's flags, flattened).
#[derive(Debug, Default, Deserialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FilterArgs {
    /// Only issues this filter passes (labels all/any/none, types, priority range, …).
    #[command(flatten)]
    pub filter: Option<IssueFilter>,
}

/// A checked filter, or the rejection naming what is wrong with it.
fn checked(filter: Option<IssueFilter>) -> Result<IssueFilter, ActionOutcome> {
    IssueFilter::checked(filter).map_err(|diagnostic| {
        ActionOutcome::rejected(
            vec![crate::host::registry::CLASS_ARGS_INVALID.into()],
            diagnostic,
        )
    })
}

/// One issue by id (the host actions' `id`, the commands' ID).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// The issue's id.
    pub id: String,
}

// ------------------------------------------------------------------ declarations

/// Classes every store action can report besides its own (a store that
/// cannot be read is an execution error with one of these as its cause).
const STORE: [&str; 2] = [
    IssueClass::MemoryIoError.as_str(),
    IssueClass::MemoryStoreCorrupt.as_str(),
];

/// The schema of an accepted store action whose members are `T`: `action`,
/// `issuesPath`, `T`'s members, then `result` and `failureClasses`.
fn accepted_schema<T: JsonSchema>() -> Value {
    payload_schema::<Verdict<'static, Accepted<'static, T>>>()
}

/// A static list of a few classes plus the store's.
macro_rules! classes {
    ($($c:expr),* $(,)?) => {{
        const C: &[&str] = &[$($c,)* STORE[0], STORE[1]];
        C
    }};
}

// One module per action: its arguments, its declaration, its run function.
pub mod dep_add;
pub mod dep_diagnostics;
pub mod dep_project;
pub mod dep_remove;
pub mod dep_replace;
pub mod dep_tree;
pub mod issue_add;
pub mod issue_blocked;
pub mod issue_check;
pub mod issue_claim;
pub mod issue_claim_next;
pub mod issue_close;
pub mod issue_comment;
pub mod issue_comments;
pub mod issue_discover;
pub mod issue_label;
pub mod issue_lease_projection;
pub mod issue_lease_release;
pub mod issue_lease_renew;
pub mod issue_list;
pub mod issue_ready;
pub mod issue_reopen;
pub mod issue_search;
pub mod issue_show;
pub mod issue_stats;
pub mod issue_update;
pub mod plan_apply;
pub mod plan_approve;

/// Every issue and dep host action of host-api §4, one module each (the
/// module is the action id with `_` for `.`).
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    vec![
        issue_list::action(),
        issue_show::action(),
        issue_ready::action(),
        issue_blocked::action(),
        issue_lease_projection::action(),
        issue_check::action(),
        dep_project::action(),
        dep_diagnostics::action(),
        issue_add::action(),
        issue_update::action(),
        issue_close::action(),
        issue_search::action(),
        issue_stats::action(),
        dep_tree::action(),
        issue_reopen::action(),
        issue_label::action(),
        issue_comment::action(),
        issue_comments::action(),
        issue_claim::action(),
        issue_claim_next::action(),
        issue_discover::action(),
        issue_lease_renew::action(),
        issue_lease_release::action(),
        dep_add::action(),
        dep_remove::action(),
        dep_replace::action(),
        plan_apply::action(),
        plan_approve::action(),
    ]
}

fn path_of(ctx: &ActionContext<'_>) -> String {
    ctx.paths.issues.path().display().to_string()
}

fn read_view(
    ctx: &ActionContext<'_>,
    view: impl FnOnce(&Store<'_>, &str) -> Report,
) -> Result<Report, StoreError> {
    ctx.paths.issues.read(|store| view(store, &path_of(ctx)))
}

/// `view` of the lines a database chose for it (`text`, a read by index,
/// issue 58), or of the whole store when it could not tell (`None`).
fn read_view_of(
    ctx: &ActionContext<'_>,
    text: Result<Option<String>, StoreError>,
    view: impl FnOnce(&Store<'_>, &str) -> Report,
) -> Result<Report, StoreError> {
    match text? {
        Some(text) => {
            let path = path_of(ctx);
            ctx.paths.issues.parse(&text).map(|s| view(&s, &path))
        }
        None => read_view(ctx, view),
    }
}

/// The mutation context of a host action: the configured store, the default
/// lock wait, the request's clock.
pub(crate) fn mutation_ctx<'p>(ctx: &'p ActionContext<'_>) -> MutationCtx<'p> {
    MutationCtx::new(&ctx.paths.issues, LockOptions::default(), ctx.now)
}

/// A lease request from its members (a length or an explicit expiry).
pub(crate) fn lease_request(
    assignee: String,
    lease_id: Option<String>,
    ttl_seconds: Option<i64>,
    expires_at: Option<String>,
) -> LeaseRequest {
    LeaseRequest {
        assignee,
        lease_id,
        term: LeaseTerm {
            ttl_seconds,
            expires_at,
        },
    }
}

fn edge(issue_id: String, depends_on_id: String) -> EdgeRef {
    EdgeRef {
        issue_id,
        depends_on_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostPaths;
    use chrono::{DateTime, Utc};
    use serde_json::json;

    struct Host {
        _dir: tempfile::TempDir,
        paths: HostPaths,
        now: DateTime<Utc>,
    }

    impl Host {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let paths = HostPaths::under(dir.path());
            Host {
                _dir: dir,
                paths,
                now: "2026-05-01T10:00:00Z".parse().unwrap(),
            }
        }

        fn call(&self, id: &str, args: Value) -> Result<ActionOutcome, ActionError> {
            let action = actions()
                .into_iter()
                .find(|a| a.id() == id)
                .unwrap_or_else(|| panic!("no action {id}"));
            let ctx = ActionContext {
                paths: &self.paths,
                now: self.now,
                issue_id: None,
                run_id: None,
                principal: None,
                approval: None,
                allowed: None,
            };
            let args = crate::host::registry::validate_args(action.args_schema(), Some(&args))
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            action.call(&ctx, args)
        }

        fn accepted(&self, id: &str, args: Value) -> Value {
            let out = self.call(id, args).unwrap();
            assert!(
                out.is_accepted(),
                "{id}: {:?} {:#}",
                out.failure_classes,
                out.payload
            );
            out.payload
        }
    }

    #[test]
    fn no_action_takes_a_path_argument() {
        // Ids and kinds are checked against the spec's catalogue, written out
        // independently, in tests/it/catalogue.rs.
        for a in &actions() {
            for (name, _, _) in a.spec().arg_list() {
                let name = name.to_ascii_lowercase();
                assert!(!name.contains("path"), "{} takes {name}", a.id());
                assert!(!name.contains("file"), "{} takes {name}", a.id());
            }
        }
    }

    #[test]
    fn actions_use_the_configured_store_and_clock() {
        let host = Host::new();
        // Absent memory degrades to empty.
        assert_eq!(host.accepted("issue.ready", json!({}))["count"], 0);
        let added = host.accepted(
            "issue.add",
            json!({"title": "Do it", "priority": 0, "labels": ["x"], "acceptanceCriteria": "done"}),
        );
        // premath's projection (A) of the new issue, less its empty
        // members (absent is absent); the stored line has it all.
        assert_eq!(
            added["issue"],
            json!({"id": "bd-1", "issueType": "task",
                   "priority": 0, "status": "open", "title": "Do it"})
        );
        let shown = host.accepted("issue.show", json!({"id": "bd-1"}));
        assert_eq!(shown["issue"]["acceptance_criteria"], "done");
        assert_eq!(shown["issue"]["created_at"], "2026-05-01T10:00:00Z");
        assert!(host.paths.issues.path().exists());
        let claimed = host.accepted(
            "issue.claim",
            json!({"id": "bd-1", "assignee": "agent.a", "leaseTtlSeconds": 60}),
        );
        // premath's lease summary (B): camelCase lease, `+00:00` instants.
        assert_eq!(
            claimed["issue"]["lease"],
            json!({"leaseId": "lease1_bd-1_agent.a", "owner": "agent.a",
                   "acquiredAt": "2026-05-01T10:00:00+00:00",
                   "expiresAt": "2026-05-01T10:01:00+00:00", "renewedAt": null})
        );
        assert_eq!(claimed["issue"]["status"], "in_progress");
        let listed = host.accepted("issue.list", json!({"assignee": "agent.a"}));
        assert_eq!(
            listed["items"][0],
            json!({"assignee": "agent.a", "id": "bd-1", "issueType": "task", "labels": ["x"],
                   "priority": 0, "status": "in_progress", "title": "Do it"})
        );
        assert_eq!(
            listed["issuesPath"],
            host.paths.issues.path().display().to_string()
        );
        let found = host.accepted(
            "issue.discover",
            json!({"parentId": "bd-1", "title": "Found"}),
        );
        assert_eq!(
            found["dependency"],
            json!({"dependsOnId": "bd-1", "issueId": "bd-2", "type": "discovered-from"})
        );
        let dup = host
            .call("dep.add", json!({"issueId": "bd-2", "dependsOnId": "bd-1"}))
            .unwrap();
        assert_eq!(dup.failure_classes, ["dep.duplicate"]);
        host.accepted(
            "dep.replace",
            json!({"issueId": "bd-2", "dependsOnId": "bd-1", "type": "blocks"}),
        );
        assert_eq!(
            host.accepted("issue.blocked", json!({}))["items"][0]["id"],
            "bd-2"
        );
        host.accepted(
            "issue.lease_renew",
            json!({"id": "bd-1", "assignee": "agent.a", "leaseId": "lease1_bd-1_agent.a"}),
        );
        host.accepted(
            "issue.lease_release",
            json!({"id": "bd-1", "assignee": "agent.a"}),
        );
        host.accepted("issue.close", json!({"id": "bd-1"}));
        assert_eq!(
            host.accepted("issue.claim_next", json!({"assignee": "agent.b"}))["issue"]["id"],
            "bd-2"
        );
        host.accepted(
            "dep.remove",
            json!({"issueId": "bd-2", "dependsOnId": "bd-1"}),
        );
        // premath's content rules: an active issue needs an Acceptance section
        // and a verification command before `issue.check` accepts the store.
        host.accepted(
            "issue.update",
            json!({"id": "bd-2", "notes": "n", "description": "Acceptance: done\n\n`cargo test`"}),
        );
        assert_eq!(
            host.accepted("issue.show", json!({"id": "bd-2"}))["issue"]["notes"],
            "n"
        );
        assert_eq!(
            host.accepted("issue.check", json!({}))["result"],
            "accepted"
        );
        assert_eq!(
            host.accepted("dep.diagnostics", json!({"graphScope": "all"}))["graphScope"],
            "full"
        );
        assert_eq!(
            host.accepted("issue.check", json!({"noteWarnThreshold": 0}))["warningClasses"],
            json!(["issue_graph.notes.large"])
        );
    }

    #[test]
    fn dep_actions_carry_created_by_and_project_views() {
        let host = Host::new();
        host.accepted("issue.add", json!({"title": "t", "id": "a"}));
        host.accepted("issue.add", json!({"title": "t", "id": "b"}));
        host.accepted(
            "dep.add",
            json!({"issueId": "b", "dependsOnId": "a", "createdBy": "planner"}),
        );
        let projected = host.accepted("dep.project", json!({"view": "groupoid"}));
        assert_eq!(
            projected["items"],
            json!([{"blocking": true, "createdBy": "planner", "dependsOnId": "a",
                "issueId": "b", "role": "constraint", "type": "blocks", "view": "groupoid"}])
        );
        let out = host
            .call(
                "dep.replace",
                json!({"issueId": "b", "dependsOnId": "a", "fromType": "related", "type": "waits-for"}),
            )
            .unwrap();
        assert_eq!(out.failure_classes, ["dep.not_found"]);
        let replaced = host.accepted(
            "dep.replace",
            json!({"issueId": "b", "dependsOnId": "a", "fromType": "blocks", "type": "related", "createdBy": "reviewer"}),
        );
        assert_eq!(replaced["dependency"]["fromType"], "blocks");
        let projected = host.accepted("dep.project", json!({}));
        assert_eq!(projected["view"], "execution");
        assert_eq!(projected["items"][0]["createdBy"], "reviewer");
        assert_eq!(projected["items"][0]["role"], "informational");
        let out = host.call("dep.project", json!({"view": "kanban"})).unwrap();
        assert_eq!(out.failure_classes, ["dep.invalid_view"]);
    }

    #[test]
    fn domain_rejections_are_outcomes_and_broken_stores_are_errors() {
        let host = Host::new();
        host.accepted("issue.add", json!({"title": "t", "id": "a"}));
        host.accepted("issue.claim", json!({"id": "a", "assignee": "one"}));
        let out = host
            .call("issue.claim", json!({"id": "a", "assignee": "two"}))
            .unwrap();
        assert_eq!(out.failure_classes, ["lease_contention_active"]);
        assert_eq!(out.payload["holder"], "one");
        assert_eq!(
            out.payload["diagnostic"],
            "issue already leased: a (owner=one, lease_id=lease1_a_one)"
        );
        let out = host
            .call(
                "issue.claim",
                json!({"id": "a", "assignee": "one", "leaseTtlSeconds": 1}),
            )
            .unwrap();
        assert_eq!(out.failure_classes, ["lease_invalid_ttl"]);
        let out = host
            .call("dep.diagnostics", json!({"graphScope": "some"}))
            .unwrap();
        assert_eq!(out.failure_classes, ["dep.invalid_scope"]);
        let out = host.call("issue.show", json!({"id": "zz"})).unwrap();
        assert_eq!(out.failure_classes, ["issue.not_found"]);

        std::fs::write(
            host.paths.issues.path(),
            "{\"id\":\"a\",\"title\":\"t\"}\n{oops\n",
        )
        .unwrap();
        for (id, args) in [
            ("issue.ready", json!({})),
            ("issue.claim", json!({"id": "a", "assignee": "x"})),
        ] {
            let err = host.call(id, args).unwrap_err();
            assert_eq!(err.class, "memory.store_corrupt", "{id}");
            assert!(err.message.contains("line 2"), "{id}: {}", err.message);
        }
    }

    #[test]
    fn lease_projection_names_stale_and_contended_leases() {
        let host = Host::new();
        let empty = host.accepted("issue.lease_projection", json!({}));
        assert_eq!(
            empty,
            json!({"action": "issue.lease_projection", "count": 0, "items": [],
                   "issuesPath": host.paths.issues.path().display().to_string(),
                   "projection": {"checkedAt": "2026-05-01T10:00:00+00:00", "contendedCount": 0,
                                  "contendedIssueIds": [], "staleCount": 0, "staleIssueIds": []},
                   "queryBackend": "jsonl", "querySource": "jsonl"})
        );
        for id in ["a", "b", "c", "d"] {
            host.accepted("issue.add", json!({"title": id, "id": id}));
        }
        host.accepted(
            "issue.claim",
            json!({"id": "a", "assignee": "w", "leaseTtlSeconds": 60}),
        );
        host.accepted("issue.claim", json!({"id": "b", "assignee": "w"}));
        host.accepted("issue.claim", json!({"id": "c", "assignee": "v"}));
        // Reassigning b leaves its lease to w: contended.
        host.accepted("issue.update", json!({"id": "b", "assignee": "x"}));
        let later = Host {
            now: host.now + chrono::Duration::minutes(5),
            ..host
        };
        let p = later.accepted("issue.lease_projection", json!({}));
        assert_eq!(
            p["projection"],
            json!({"checkedAt": "2026-05-01T10:05:00+00:00", "contendedCount": 1,
                   "contendedIssueIds": ["b"], "staleCount": 1, "staleIssueIds": ["a"]})
        );
        assert_eq!(p["count"], 3);
        assert_eq!(
            p["items"][0],
            json!({"assignee": "w", "contended": false, "id": "a", "status": "in_progress",
                   "lease": {"acquiredAt": "2026-05-01T10:00:00+00:00",
                             "expiresAt": "2026-05-01T10:01:00+00:00",
                             "leaseId": "lease1_a_w", "owner": "w", "renewedAt": null,
                             "state": "stale"}})
        );
        assert_eq!(p["items"][1]["contended"], true);
        assert_eq!(p["items"][1]["assignee"], "x");
        assert_eq!(p["items"][1]["lease"]["state"], "active");
        assert_eq!(p["items"][2]["id"], "c");
    }

    #[test]
    fn handoff_ref_and_snapshot_ref_of_the_configured_store() {
        let host = Host::new();
        host.accepted("issue.add", json!({"title": "t", "id": "a"}));
        let path = &host.paths.issues;
        let none = crate::issues::handoff_witness_ref(path, "a", host.now)
            .unwrap()
            .unwrap();
        let empty_digest = crate::canonical::sha256_hex(b"{}");
        assert_eq!(none, format!("lease://handoff/a/unleased/{empty_digest}"));
        host.accepted("issue.claim", json!({"id": "a", "assignee": "w"}));
        let stored_lease =
            host.accepted("issue.show", json!({"id": "a"}))["issue"]["lease"].clone();
        let active = crate::issues::handoff_witness_ref(path, "a", host.now)
            .unwrap()
            .unwrap();
        let digest = crate::canonical::sha256_hex(
            crate::canonical::to_canonical_string(&stored_lease).as_bytes(),
        );
        assert_eq!(active, format!("lease://handoff/a/active/{digest}"));
        let later = host.now + chrono::Duration::hours(2);
        assert_eq!(
            crate::issues::handoff_witness_ref(path, "a", later)
                .unwrap()
                .unwrap(),
            format!("lease://handoff/a/stale/{digest}")
        );
        assert_eq!(
            crate::issues::handoff_witness_ref(path, "zz", host.now).unwrap(),
            None
        );
        let before = crate::issues::snapshot_ref(path).unwrap();
        assert_eq!(before, crate::issues::snapshot_ref(path).unwrap());
        host.accepted("issue.update", json!({"id": "a", "notes": "x"}));
        assert_ne!(before, crate::issues::snapshot_ref(path).unwrap());
    }
}
