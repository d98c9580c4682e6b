//! Host actions of host-api §4 over the issue memory. The store path comes from
//! the host's configuration (`ctx.paths.issues`) and the clock from `ctx.now`; no
//! argument can name a file. Payloads are the CLI's `--json` output.

use super::lease::{self, LeaseRequest, LeaseTerm};
use super::mutate::{self, EdgeRef, IssueChanges, MutationCtx, NewIssue};
use super::store::{read_text, LockOptions, Store, StoreError};
use super::views::{self, ListFilter, Scope};
use super::Report;
use crate::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, FnAction, HostAction,
};
use serde_json::{Map, Value};
use std::sync::Arc;

type Args = Map<String, Value>;
type Runner = fn(&ActionContext<'_>, &Args) -> Result<Report, StoreError>;

/// The envelope outcome of a store report; a store that cannot be used is an
/// execution error.
fn outcome(report: Result<Report, StoreError>) -> Result<ActionOutcome, ActionError> {
    let report = report.map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    Ok(ActionOutcome {
        failure_classes: report.failure_classes.clone(),
        payload: report.into_value(),
        witness_refs: Vec::new(),
    })
}

const fn req(name: &'static str, ty: ArgType) -> ArgSpec {
    ArgSpec::required(name, ty)
}
const fn opt(name: &'static str, ty: ArgType) -> ArgSpec {
    ArgSpec::optional(name, ty)
}
use ArgType::{Integer, String as Str, StringList};

const NO_ARGS: &[ArgSpec] = &[];
const LIST_ARGS: &[ArgSpec] = &[
    opt("status", Str),
    opt("assignee", Str),
    opt("issueType", Str),
    opt("label", Str),
    opt("priority", Integer),
];
const SHOW_ARGS: &[ArgSpec] = &[req("id", Str)];
const DIAG_ARGS: &[ArgSpec] = &[opt("scope", Str)];
const ADD_ARGS: &[ArgSpec] = &[
    req("title", Str),
    opt("id", Str),
    opt("description", Str),
    opt("design", Str),
    opt("acceptanceCriteria", Str),
    opt("notes", Str),
    opt("status", Str),
    opt("priority", Integer),
    opt("issueType", Str),
    opt("assignee", Str),
    opt("labels", StringList),
];
const DISCOVER_ARGS: &[ArgSpec] = &[
    req("parentId", Str),
    req("title", Str),
    opt("id", Str),
    opt("description", Str),
    opt("design", Str),
    opt("acceptanceCriteria", Str),
    opt("notes", Str),
    opt("status", Str),
    opt("priority", Integer),
    opt("issueType", Str),
    opt("assignee", Str),
    opt("labels", StringList),
];
const UPDATE_ARGS: &[ArgSpec] = &[
    req("id", Str),
    opt("title", Str),
    opt("description", Str),
    opt("design", Str),
    opt("acceptanceCriteria", Str),
    opt("notes", Str),
    opt("status", Str),
    opt("priority", Integer),
    opt("issueType", Str),
    opt("assignee", Str),
    opt("labels", StringList),
];
const CLOSE_ARGS: &[ArgSpec] = &[req("id", Str)];
const CLAIM_ARGS: &[ArgSpec] = &[
    req("id", Str),
    req("assignee", Str),
    opt("leaseTtlSeconds", Integer),
    opt("leaseExpiresAt", Str),
    opt("leaseId", Str),
];
const CLAIM_NEXT_ARGS: &[ArgSpec] = &[
    req("assignee", Str),
    opt("leaseTtlSeconds", Integer),
    opt("leaseId", Str),
];
const RENEW_ARGS: &[ArgSpec] = &[
    req("id", Str),
    req("assignee", Str),
    req("leaseId", Str),
    opt("leaseTtlSeconds", Integer),
    opt("leaseExpiresAt", Str),
];
const RELEASE_ARGS: &[ArgSpec] = &[req("id", Str), req("assignee", Str), opt("leaseId", Str)];
const DEP_ARGS: &[ArgSpec] = &[
    req("issueId", Str),
    req("dependsOnId", Str),
    opt("type", Str),
];
const DEP_REPLACE_ARGS: &[ArgSpec] = &[
    req("issueId", Str),
    req("dependsOnId", Str),
    req("type", Str),
];

/// Every issue and dep host action of host-api §4.
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    use ActionKind::{Mutation, Read};
    let table: [(&'static str, ActionKind, &'static [ArgSpec], Runner); 17] = [
        ("issue.list", Read, LIST_ARGS, run_list),
        ("issue.show", Read, SHOW_ARGS, run_show),
        ("issue.ready", Read, NO_ARGS, run_ready),
        ("issue.blocked", Read, NO_ARGS, run_blocked),
        ("issue.check", Read, NO_ARGS, run_check),
        ("dep.diagnostics", Read, DIAG_ARGS, run_diagnostics),
        ("issue.add", Mutation, ADD_ARGS, run_add),
        ("issue.update", Mutation, UPDATE_ARGS, run_update),
        ("issue.close", Mutation, CLOSE_ARGS, run_close),
        ("issue.claim", Mutation, CLAIM_ARGS, run_claim),
        (
            "issue.claim_next",
            Mutation,
            CLAIM_NEXT_ARGS,
            run_claim_next,
        ),
        ("issue.discover", Mutation, DISCOVER_ARGS, run_discover),
        ("issue.lease_renew", Mutation, RENEW_ARGS, run_renew),
        ("issue.lease_release", Mutation, RELEASE_ARGS, run_release),
        ("dep.add", Mutation, DEP_ARGS, run_dep_add),
        ("dep.remove", Mutation, DEP_ARGS, run_dep_remove),
        ("dep.replace", Mutation, DEP_REPLACE_ARGS, run_dep_replace),
    ];
    table
        .into_iter()
        .map(|(id, kind, args, run)| {
            Arc::new(FnAction {
                id,
                kind,
                args,
                run: move |ctx: &ActionContext<'_>, a: &Args| outcome(run(ctx, a)),
            }) as Arc<dyn HostAction>
        })
        .collect()
}

fn text(args: &Args, key: &str) -> Option<String> {
    args.get(key).and_then(Value::as_str).map(str::to_string)
}
fn int(args: &Args, key: &str) -> Option<i64> {
    args.get(key).and_then(Value::as_i64)
}
fn list(args: &Args, key: &str) -> Option<Vec<String>> {
    args.get(key).and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}
/// Required keys are checked by the registry; an absent one reads as empty and is
/// then refused by the domain rules, never a panic.
fn required(args: &Args, key: &str) -> String {
    text(args, key).unwrap_or_default()
}

fn path_of(ctx: &ActionContext<'_>) -> String {
    ctx.paths.issues.display().to_string()
}

fn read_view(
    ctx: &ActionContext<'_>,
    view: impl FnOnce(&Store<'_>, &str) -> Report,
) -> Result<Report, StoreError> {
    let path = &ctx.paths.issues;
    let text = read_text(path)?;
    let store = Store::parse(path, &text)?;
    Ok(view(&store, &path_of(ctx)))
}

fn mutation_ctx<'p>(ctx: &'p ActionContext<'_>) -> MutationCtx<'p> {
    MutationCtx::new(&ctx.paths.issues, LockOptions::default(), ctx.now)
}

fn run_list(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    let filter = ListFilter {
        status: text(args, "status"),
        assignee: text(args, "assignee"),
        issue_type: text(args, "issueType"),
        label: text(args, "label"),
        priority: int(args, "priority"),
    };
    read_view(ctx, |s, p| views::list_payload(s, p, &filter, ctx.now))
}
fn run_show(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    read_view(ctx, |s, p| {
        views::show_payload(s, p, &required(args, "id"), ctx.now)
    })
}
fn run_ready(ctx: &ActionContext<'_>, _: &Args) -> Result<Report, StoreError> {
    read_view(ctx, |s, p| views::ready_payload(s, p, ctx.now))
}
fn run_blocked(ctx: &ActionContext<'_>, _: &Args) -> Result<Report, StoreError> {
    read_view(ctx, |s, p| views::blocked_payload(s, p, ctx.now))
}
fn run_check(ctx: &ActionContext<'_>, _: &Args) -> Result<Report, StoreError> {
    read_view(ctx, |s, p| views::check_payload(s, p, ctx.now))
}
fn run_diagnostics(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    let scope_text = text(args, "scope").unwrap_or_else(|| "active".into());
    let Some(scope) = Scope::parse(&scope_text) else {
        let diag = format!("scope {scope_text:?} is not `active` or `all`");
        return Ok(Report::rejected(
            "dep.diagnostics",
            &path_of(ctx),
            &["dep.invalid_scope"],
            diag,
        ));
    };
    read_view(ctx, |s, p| views::diagnostics_payload(s, p, scope))
}

fn new_issue(args: &Args) -> NewIssue {
    NewIssue {
        id: text(args, "id"),
        title: required(args, "title"),
        description: text(args, "description"),
        design: text(args, "design"),
        acceptance_criteria: text(args, "acceptanceCriteria"),
        notes: text(args, "notes"),
        status: text(args, "status"),
        priority: int(args, "priority"),
        issue_type: text(args, "issueType"),
        assignee: text(args, "assignee"),
        labels: list(args, "labels"),
    }
}

fn run_add(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    mutate::add(&mutation_ctx(ctx), &new_issue(args))
}
fn run_discover(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    mutate::discover(
        &mutation_ctx(ctx),
        &required(args, "parentId"),
        &new_issue(args),
    )
}
fn run_update(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    let changes = IssueChanges {
        title: text(args, "title"),
        description: text(args, "description"),
        design: text(args, "design"),
        acceptance_criteria: text(args, "acceptanceCriteria"),
        notes: text(args, "notes"),
        status: text(args, "status"),
        priority: int(args, "priority"),
        issue_type: text(args, "issueType"),
        assignee: text(args, "assignee"),
        labels: list(args, "labels"),
    };
    mutate::update(&mutation_ctx(ctx), &required(args, "id"), &changes)
}
fn run_close(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    mutate::close(&mutation_ctx(ctx), &required(args, "id"))
}

fn lease_request(args: &Args) -> LeaseRequest {
    LeaseRequest {
        assignee: required(args, "assignee"),
        lease_id: text(args, "leaseId"),
        term: LeaseTerm {
            ttl_seconds: int(args, "leaseTtlSeconds"),
            expires_at: text(args, "leaseExpiresAt"),
        },
    }
}

fn run_claim(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    lease::claim(
        &mutation_ctx(ctx),
        &required(args, "id"),
        &lease_request(args),
    )
}
fn run_claim_next(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    lease::claim_next(&mutation_ctx(ctx), &lease_request(args))
}
fn run_renew(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    lease::renew(
        &mutation_ctx(ctx),
        &required(args, "id"),
        &lease_request(args),
    )
}
fn run_release(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    lease::release(
        &mutation_ctx(ctx),
        &required(args, "id"),
        &lease_request(args),
    )
}

fn edge(args: &Args) -> EdgeRef {
    EdgeRef {
        issue_id: required(args, "issueId"),
        depends_on_id: required(args, "dependsOnId"),
    }
}

fn run_dep_add(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    let dep_type = text(args, "type").unwrap_or_else(|| "blocks".into());
    mutate::dep_add(&mutation_ctx(ctx), &edge(args), &dep_type)
}
fn run_dep_remove(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    mutate::dep_remove(
        &mutation_ctx(ctx),
        &edge(args),
        text(args, "type").as_deref(),
    )
}
fn run_dep_replace(ctx: &ActionContext<'_>, args: &Args) -> Result<Report, StoreError> {
    mutate::dep_replace(&mutation_ctx(ctx), &edge(args), &required(args, "type"))
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
            };
            action.call(&ctx, args.as_object().unwrap())
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
    fn catalogue_ids_kinds_and_no_path_arguments() {
        let all = actions();
        let mut ids: Vec<&str> = all.iter().map(|a| a.id()).collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            [
                "dep.add",
                "dep.diagnostics",
                "dep.remove",
                "dep.replace",
                "issue.add",
                "issue.blocked",
                "issue.check",
                "issue.claim",
                "issue.claim_next",
                "issue.close",
                "issue.discover",
                "issue.lease_release",
                "issue.lease_renew",
                "issue.list",
                "issue.ready",
                "issue.show",
                "issue.update",
            ]
        );
        let reads = [
            "issue.list",
            "issue.show",
            "issue.ready",
            "issue.blocked",
            "issue.check",
            "dep.diagnostics",
        ];
        for a in &all {
            let expected = if reads.contains(&a.id()) {
                ActionKind::Read
            } else {
                ActionKind::Mutation
            };
            assert_eq!(a.kind(), expected, "{}", a.id());
            for spec in a.args() {
                assert!(
                    !spec.name.to_ascii_lowercase().contains("path"),
                    "{} takes {}",
                    a.id(),
                    spec.name
                );
                assert!(
                    !spec.name.to_ascii_lowercase().contains("file"),
                    "{} takes {}",
                    a.id(),
                    spec.name
                );
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
        assert_eq!(added["id"], "bd-1");
        assert_eq!(added["issue"]["acceptance_criteria"], "done");
        assert_eq!(added["issue"]["created_at"], "2026-05-01T10:00:00Z");
        assert!(host.paths.issues.exists());
        let claimed = host.accepted(
            "issue.claim",
            json!({"id": "bd-1", "assignee": "agent.a", "leaseTtlSeconds": 60}),
        );
        assert_eq!(
            claimed["lease"],
            json!({"lease_id": "lease1_bd-1_agent.a", "owner": "agent.a",
                   "acquired_at": "2026-05-01T10:00:00Z", "expires_at": "2026-05-01T10:01:00Z"})
        );
        let listed = host.accepted("issue.list", json!({"assignee": "agent.a"}));
        assert_eq!(listed["items"][0]["leaseState"], "active");
        assert_eq!(
            listed["issuesPath"],
            host.paths.issues.display().to_string()
        );
        let found = host.accepted(
            "issue.discover",
            json!({"parentId": "bd-1", "title": "Found"}),
        );
        assert_eq!(found["issue"]["dependencies"][0]["type"], "discovered-from");
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
        host.accepted("issue.update", json!({"id": "bd-2", "notes": "n"}));
        assert_eq!(
            host.accepted("issue.show", json!({"id": "bd-2"}))["issue"]["notes"],
            "n"
        );
        assert_eq!(
            host.accepted("issue.check", json!({}))["result"],
            "accepted"
        );
        assert_eq!(
            host.accepted("dep.diagnostics", json!({"scope": "all"}))["scope"],
            "all"
        );
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
        assert!(out.payload["diagnostic"]
            .as_str()
            .unwrap()
            .contains("leased by one"));
        let out = host
            .call(
                "issue.claim",
                json!({"id": "a", "assignee": "one", "leaseTtlSeconds": 1}),
            )
            .unwrap();
        assert_eq!(out.failure_classes, ["lease_invalid_ttl"]);
        let out = host
            .call("dep.diagnostics", json!({"scope": "some"}))
            .unwrap();
        assert_eq!(out.failure_classes, ["dep.invalid_scope"]);
        let out = host.call("issue.show", json!({"id": "zz"})).unwrap();
        assert_eq!(out.failure_classes, ["issue.not_found"]);

        std::fs::write(
            &host.paths.issues,
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
    fn handoff_ref_and_snapshot_ref_of_the_configured_store() {
        let host = Host::new();
        host.accepted("issue.add", json!({"title": "t", "id": "a"}));
        let path = &host.paths.issues;
        let none = crate::issues::handoff_witness_ref(path, "a", host.now)
            .unwrap()
            .unwrap();
        let empty_digest = crate::canonical::sha256_hex(b"{}");
        assert_eq!(none, format!("lease://handoff/a/unleased/{empty_digest}"));
        let claimed = host.accepted("issue.claim", json!({"id": "a", "assignee": "w"}));
        let active = crate::issues::handoff_witness_ref(path, "a", host.now)
            .unwrap()
            .unwrap();
        let digest = crate::canonical::sha256_hex(
            crate::canonical::to_canonical_string(&claimed["lease"]).as_bytes(),
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
