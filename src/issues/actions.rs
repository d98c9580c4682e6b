//! Host actions of host-api §4 over the issue memory. The store path comes from
//! the host's configuration (`ctx.paths.issues`) and the clock from `ctx.now`; no
//! argument can name a file. Payloads are the CLI's `--json` output.

use super::filter::IssueFilter;
use super::lease::{self, LeaseRequest, LeaseTerm};
use super::mutate::{self, EdgeRef, IssueChanges, MutationCtx, NewIssue};
use super::store::{LockOptions, Store, StoreError};
use super::views::{self, ListFilter, Scope};
use super::Report;
use crate::host::{
    declare, schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration, HostAction,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

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

// ------------------------------------------------------------------ arguments

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The projection covers the whole configured store, or what `filter` passes.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaseProjectionArgs {
    /// Only issues this filter passes (labels all/any/none, types, priority range, …).
    pub filter: Option<IssueFilter>,
}

/// Filters of `issue.list` (all optional, combined with and).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    /// open, in_progress, blocked, deferred or closed.
    pub status: Option<String>,
    pub assignee: Option<String>,
    /// task, bug, feature, epic or chore.
    pub issue_type: Option<String>,
    /// Issues carrying this label.
    pub label: Option<String>,
    /// 0 (highest) to 4.
    pub priority: Option<i64>,
    /// The routing filter (labels all/any/none, types, priority range, …).
    pub filter: Option<IssueFilter>,
}

/// The routing filter of a view (`issue.ready`, `issue.blocked`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FilterArgs {
    /// Only issues this filter passes (labels all/any/none, types, priority range, …).
    pub filter: Option<IssueFilter>,
}

/// A checked filter, or the rejection naming what is wrong with it.
fn checked(filter: Option<IssueFilter>) -> Result<IssueFilter, ActionOutcome> {
    let filter = filter.unwrap_or_default();
    filter.check().map(|()| filter).map_err(|diagnostic| {
        ActionOutcome::rejected(
            vec![crate::host::registry::CLASS_ARGS_INVALID.into()],
            diagnostic,
        )
    })
}

/// Close an issue, optionally saying why.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseArgs {
    pub id: String,
    /// Why it is closed (beads' `close_reason`).
    pub reason: Option<String>,
}

/// Labels to add and to remove.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelArgs {
    pub id: String,
    #[serde(default)]
    pub add: Vec<String>,
    #[serde(default)]
    pub remove: Vec<String>,
}

/// One comment on an issue.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommentArgs {
    pub id: String,
    pub text: String,
    /// Who says it (a worker's name).
    pub author: String,
}

/// A text search.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchArgs {
    /// Looked for in titles, descriptions, acceptance criteria, notes and comments (case-insensitive).
    pub query: String,
    /// At most this many items (default 20).
    pub limit: Option<usize>,
}

/// A dependency tree.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TreeArgs {
    pub id: String,
    /// down (what it depends on, the default), up (what depends on it) or both.
    pub direction: Option<super::find::Direction>,
    /// How deep to walk (default 10).
    pub max_depth: Option<usize>,
}

/// One issue by id.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    pub id: String,
}

/// Options of the store check.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckArgs {
    /// Notes longer than this many characters draw a warning (default 2000).
    pub note_warn_threshold: Option<usize>,
}

/// The view of `dep.project`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectArgs {
    /// `execution` (the default), `gtd` or `groupoid`.
    pub view: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiagnosticsArgs {
    /// `active` (open or in_progress issues, the default) or `full` (`all` is accepted too).
    pub graph_scope: Option<String>,
}

// The fields of `NewIssue` written out again: serde cannot flatten a struct
// into one that denies unknown fields.
/// A new issue discovered while working on `parentId` (linked
/// `discovered-from`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoverArgs {
    pub parent_id: String,
    pub title: String,
    pub id: Option<String>,
    pub description: Option<String>,
    pub design: Option<String>,
    pub acceptance_criteria: Option<String>,
    pub notes: Option<String>,
    pub status: Option<String>,
    pub priority: Option<i64>,
    pub issue_type: Option<String>,
    pub assignee: Option<String>,
    /// The issue's owner (not the lease holder).
    pub owner: Option<String>,
    pub labels: Option<Vec<String>>,
}

impl DiscoverArgs {
    /// The parent and the new issue (the same fields as `issue.add`'s).
    fn split(self) -> (String, NewIssue) {
        let issue = NewIssue {
            title: self.title,
            id: self.id,
            description: self.description,
            design: self.design,
            acceptance_criteria: self.acceptance_criteria,
            notes: self.notes,
            status: self.status,
            priority: self.priority,
            issue_type: self.issue_type,
            assignee: self.assignee,
            owner: self.owner,
            labels: self.labels,
        };
        (self.parent_id, issue)
    }
}

/// The fields to change; at least one.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateArgs {
    pub id: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub design: Option<String>,
    pub acceptance_criteria: Option<String>,
    pub notes: Option<String>,
    pub status: Option<String>,
    pub priority: Option<i64>,
    pub issue_type: Option<String>,
    pub assignee: Option<String>,
    /// The issue's owner (not the lease holder).
    pub owner: Option<String>,
    pub labels: Option<Vec<String>>,
}

/// Claim one issue with a lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimArgs {
    pub id: String,
    /// The worker claiming it.
    pub assignee: String,
    /// Lease length (default 3600).
    pub lease_ttl_seconds: Option<i64>,
    /// An explicit expiry instead of a length (RFC 3339).
    pub lease_expires_at: Option<String>,
    /// An explicit lease id (default `lease1_<id>_<assignee>`).
    pub lease_id: Option<String>,
}

/// Claim the first ready issue (priority, then id) with a lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimNextArgs {
    pub assignee: String,
    pub lease_ttl_seconds: Option<i64>,
    pub lease_id: Option<String>,
    /// Claim only an issue this filter passes: a worker's routing.
    pub filter: Option<IssueFilter>,
}

/// Extend a held lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewArgs {
    pub id: String,
    pub assignee: String,
    pub lease_id: String,
    pub lease_ttl_seconds: Option<i64>,
    pub lease_expires_at: Option<String>,
}

/// Give a lease back (the issue returns to open).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseArgs {
    pub id: String,
    pub assignee: String,
    pub lease_id: Option<String>,
}

/// One dependency edge: `issueId` depends on `dependsOnId`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// blocks (default), related, parent-child or discovered-from.
    #[serde(rename = "type")]
    pub dep_type: Option<String>,
}

/// A new dependency edge: `issueId` depends on `dependsOnId`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepAddArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// blocks (default), related, parent-child or discovered-from.
    #[serde(rename = "type")]
    pub dep_type: Option<String>,
    /// Who made the edge, stored as its `created_by` (default: none).
    pub created_by: Option<String>,
}

/// Change an edge's type.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepReplaceArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// The edge's current type (default: the pair's first edge, whatever its type).
    pub from_type: Option<String>,
    /// The new type.
    #[serde(rename = "type")]
    pub dep_type: String,
    /// Replaces the edge's `created_by` when not blank.
    pub created_by: Option<String>,
}

// ------------------------------------------------------------------ declarations

/// Classes every store action can report besides its own (a store that
/// cannot be read is an execution error with one of these as its cause).
const STORE: [&str; 2] = ["memory.io_error", "memory.store_corrupt"];

/// The stored issue object (`issue.show`, `issue.close`): snake_case beads fields.
fn issue_schema() -> Value {
    use schema::*;
    object(
        &[
            ("id", string()),
            ("title", string()),
            ("status", string()),
            ("priority", integer()),
            ("issue_type", string()),
            ("assignee", string()),
            ("labels", strings()),
            ("dependencies", array(any())),
            ("lease", any()),
        ],
        &["id", "title", "status"],
    )
}

/// premath's projection (A) of an issue (`issue.add`, `update`, `discover`).
fn basic_schema() -> Value {
    use schema::*;
    object(
        &[
            ("assignee", string()),
            ("id", string()),
            ("issueType", string()),
            ("owner", string()),
            ("priority", integer()),
            ("status", string()),
            ("title", string()),
        ],
        &[
            "assignee",
            "id",
            "issueType",
            "owner",
            "priority",
            "status",
            "title",
        ],
    )
}

/// A lease in camelCase, as premath prints it.
fn lease_schema(with_state: bool) -> Value {
    use schema::*;
    let mut members = vec![
        ("acquiredAt", string()),
        ("expiresAt", string()),
        ("leaseId", string()),
        ("owner", string()),
        ("renewedAt", nullable(string())),
    ];
    if with_state {
        members.push(("state", string()));
    }
    object(&members, &["acquiredAt", "expiresAt", "leaseId", "owner"])
}

/// premath's lease summary (B) of an issue (`issue.claim`, `claim_next`).
fn lease_summary_schema() -> Value {
    use schema::*;
    let mut summary = basic_schema();
    summary["properties"]["lease"] = nullable(lease_schema(false));
    summary
}

fn item_schema() -> Value {
    use schema::*;
    object(
        &[
            ("id", string()),
            ("title", string()),
            ("status", string()),
            ("priority", integer()),
            ("issueType", string()),
            ("assignee", string()),
            ("manualBlocked", boolean()),
            ("blockers", array(any())),
        ],
        &["id", "title", "status", "priority"],
    )
}

fn listing_schema() -> Value {
    use schema::*;
    object(
        &[
            ("action", string()),
            ("issuesPath", string()),
            ("count", integer()),
            ("items", array(item_schema())),
        ],
        &["action", "count", "items"],
    )
}

/// A mutation whose `issue` is premath's projection (A).
fn basic_mutation_schema() -> Value {
    use schema::*;
    object(
        &[
            ("action", string()),
            ("issuesPath", string()),
            ("issue", basic_schema()),
        ],
        &["action"],
    )
}

/// A tusk-only mutation returning the stored object and the stored lease.
fn mutation_schema(with_lease: bool) -> Value {
    use schema::*;
    let mut members = vec![
        ("action", string()),
        ("issuesPath", string()),
        ("id", string()),
        ("issue", issue_schema()),
    ];
    if with_lease {
        members.push(("lease", any()));
        members.push(("leaseState", string()));
    }
    object(&members, &["action"])
}

fn edge_schema() -> Value {
    use schema::*;
    object(
        &[
            ("action", string()),
            ("issuesPath", string()),
            ("issueId", string()),
            ("dependsOnId", string()),
            ("type", string()),
            ("dependency", any()),
        ],
        &["action"],
    )
}

fn report_schema() -> Value {
    use schema::*;
    object(
        &[
            ("action", string()),
            ("result", string()),
            ("errors", array(any())),
            ("warnings", array(any())),
        ],
        &["action", "result"],
    )
}

/// A static list of a few classes plus the store's.
macro_rules! classes {
    ($($c:literal),* $(,)?) => {{
        const C: &[&str] = &[$($c,)* STORE[0], STORE[1]];
        C
    }};
}

/// Every issue and dep host action of host-api §4.
pub fn actions() -> Vec<Arc<dyn HostAction>> {
    use schema::*;
    use ActionKind::{Mutation, Read};
    vec![
        declare(
            Declaration {
                id: "issue.list",
                kind: Read,
                description: "List issues, filtered by status, assignee, type, label or priority; ordered by priority, then id.",
                payload: listing_schema(),
                failure_classes: classes!("host.args_invalid"),
                example: r#"(issue.list (hash "status" "open"))"#,
            },
            |ctx, a: ListArgs| {
                let routing = match checked(a.filter) {
                    Ok(f) => f,
                    Err(refused) => return Ok(refused),
                };
                let filter = ListFilter {
                    status: a.status,
                    assignee: a.assignee,
                    issue_type: a.issue_type,
                    label: a.label,
                    priority: a.priority,
                    filter: routing,
                };
                outcome(read_view(ctx, |s, p| views::list_payload(s, p, &filter, ctx.now)))
            },
        ),
        declare(
            Declaration {
                id: "issue.show",
                kind: Read,
                description: "One issue with its dependencies and lease state.",
                payload: object(
                    &[("action", string()), ("issue", issue_schema()), ("leaseState", string())],
                    &["action"],
                ),
                failure_classes: classes!("issue.not_found"),
                example: r#"(issue.show (hash "id" "bd-1"))"#,
            },
            |ctx, a: IdArgs| outcome(read_view(ctx, |s, p| views::show_payload(s, p, &a.id, ctx.now))),
        ),
        declare(
            Declaration {
                id: "issue.ready",
                kind: Read,
                description: "Open issues with no open blocker and no live lease: the work that can start now.",
                payload: listing_schema(),
                failure_classes: classes!("host.args_invalid"),
                example: r#"(issue.ready (hash "filter" (hash "labels" (list "frontend"))))"#,
            },
            |ctx, a: FilterArgs| match checked(a.filter) {
                Ok(f) => outcome(read_view(ctx, |s, p| views::ready_payload(s, p, &f, ctx.now))),
                Err(refused) => Ok(refused),
            },
        ),
        declare(
            Declaration {
                id: "issue.blocked",
                kind: Read,
                description: "Open issues waiting on an open blocker, with their blockers.",
                payload: listing_schema(),
                failure_classes: classes!("host.args_invalid"),
                example: "(issue.blocked)",
            },
            |ctx, a: FilterArgs| match checked(a.filter) {
                Ok(f) => outcome(read_view(ctx, |s, p| views::blocked_payload(s, p, &f, ctx.now))),
                Err(refused) => Ok(refused),
            },
        ),
        declare(
            Declaration {
                id: "issue.lease_projection",
                kind: Read,
                description: "Stale and contended leases (ids, counts) and every leased issue's lease state (premath's issue_lease_projection).",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("count", integer()),
                        ("items", array(object(
                            &[
                                ("assignee", string()),
                                ("contended", boolean()),
                                ("id", string()),
                                ("lease", lease_schema(true)),
                                ("status", string()),
                            ],
                            &["assignee", "contended", "id", "lease", "status"],
                        ))),
                        ("projection", object(
                            &[
                                ("checkedAt", string()),
                                ("contendedCount", integer()),
                                ("contendedIssueIds", strings()),
                                ("staleCount", integer()),
                                ("staleIssueIds", strings()),
                            ],
                            &["checkedAt", "contendedCount", "contendedIssueIds", "staleCount", "staleIssueIds"],
                        )),
                        ("queryBackend", string()),
                        ("querySource", string()),
                    ],
                    &["action", "count", "items", "projection"],
                ),
                failure_classes: classes!(),
                example: "(issue.lease_projection)",
            },
            |ctx, a: LeaseProjectionArgs| {
                let filter = match checked(a.filter) {
                    Ok(f) => f,
                    Err(refused) => return Ok(refused),
                };
                let backend = super::projection::backend_name(&ctx.paths.issues);
                outcome(read_view(ctx, |s, p| {
                    super::projection::lease_projection_payload(s, p, backend, &filter, ctx.now)
                }))
            },
        ),
        declare(
            Declaration {
                id: "issue.check",
                kind: Read,
                description: "Check the store's content rules (ids, titles, statuses, dependencies); warnings and errors.",
                payload: report_schema(),
                failure_classes: classes!(),
                example: "(issue.check)",
            },
            |ctx, a: CheckArgs| {
                let threshold = a.note_warn_threshold.unwrap_or(views::NOTES_WARN_CHARS);
                outcome(read_view(ctx, |s, p| views::check_payload(s, p, ctx.now, threshold)))
            },
        ),
        declare(
            Declaration {
                id: "dep.project",
                kind: Read,
                description: "Every dependency edge with its role in a view (execution, gtd, groupoid) and premath's integrity over all issues.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("view", string()),
                        ("count", integer()),
                        ("integrity", object(
                            &[("cyclePath", nullable(strings())), ("hasCycle", boolean())],
                            &["cyclePath", "hasCycle"],
                        )),
                        ("items", array(object(
                            &[
                                ("blocking", boolean()),
                                ("createdBy", string()),
                                ("dependsOnId", string()),
                                ("issueId", string()),
                                ("role", string()),
                                ("type", string()),
                                ("view", string()),
                            ],
                            &["blocking", "createdBy", "dependsOnId", "issueId", "role", "type", "view"],
                        ))),
                    ],
                    &["action", "view", "count", "integrity", "items"],
                ),
                failure_classes: classes!("dep.invalid_view"),
                example: r#"(dep.project (hash "view" "gtd"))"#,
            },
            |ctx, a: ProjectArgs| {
                let view_text = a.view.unwrap_or_else(|| "execution".into());
                let Some(view) = views::DepView::parse(&view_text) else {
                    let diag = format!("view {view_text:?} is not `execution`, `gtd` or `groupoid`");
                    return outcome(Ok(Report::rejected(
                        "dep.project",
                        &path_of(ctx),
                        &["dep.invalid_view"],
                        diag,
                    )));
                };
                outcome(read_view(ctx, |s, p| views::project_payload(s, p, view)))
            },
        ),
        declare(
            Declaration {
                id: "dep.diagnostics",
                kind: Read,
                description: "Dependency cycles (premath's integrity, every edge type), blocking cycles and dangling edges, over active or all issues.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("graphScope", string()),
                        ("integrity", object(
                            &[("cyclePath", nullable(strings())), ("hasCycle", boolean())],
                            &["cyclePath", "hasCycle"],
                        )),
                        ("cycles", array(strings())),
                        ("danglingEdges", array(any())),
                    ],
                    &["action", "graphScope", "integrity"],
                ),
                failure_classes: classes!("dep.invalid_scope"),
                example: r#"(dep.diagnostics (hash "graphScope" "full"))"#,
            },
            |ctx, a: DiagnosticsArgs| {
                let scope_text = a.graph_scope.unwrap_or_else(|| "active".into());
                let Some(scope) = Scope::parse(&scope_text) else {
                    let diag = format!("graph scope {scope_text:?} is not `active` or `full`");
                    return outcome(Ok(Report::rejected(
                        "dep.diagnostics",
                        &path_of(ctx),
                        &["dep.invalid_scope"],
                        diag,
                    )));
                };
                outcome(read_view(ctx, |s, p| views::diagnostics_payload(s, p, scope)))
            },
        ),
        declare(
            Declaration {
                id: "issue.add",
                kind: Mutation,
                description: "Create an issue.",
                payload: basic_mutation_schema(),
                failure_classes: classes!(
                    "issue.invalid_title", "issue.invalid_id", "issue.duplicate_id",
                    "issue.invalid_status", "issue.invalid_priority", "issue.invalid_type",
                    "issue.invalid_label",
                ),
                example: r#"(issue.add (hash "title" "Write the parser" "priority" 1))"#,
            },
            |ctx, a: NewIssue| outcome(mutate::add(&mutation_ctx(ctx), &a)),
        ),
        declare(
            Declaration {
                id: "issue.update",
                kind: Mutation,
                description: "Change fields of an issue (status, priority, assignee, notes, …).",
                payload: basic_mutation_schema(),
                failure_classes: classes!(
                    "issue.not_found", "issue.update_empty", "issue.invalid_title",
                    "issue.invalid_status", "issue.invalid_priority", "issue.invalid_type",
                    "issue.invalid_label",
                ),
                example: r#"(issue.update (hash "id" "bd-1" "notes" "parser done"))"#,
            },
            |ctx, a: UpdateArgs| {
                let changes = IssueChanges {
                    title: a.title,
                    description: a.description,
                    design: a.design,
                    acceptance_criteria: a.acceptance_criteria,
                    notes: a.notes,
                    status: a.status,
                    priority: a.priority,
                    issue_type: a.issue_type,
                    assignee: a.assignee,
                    owner: a.owner,
                    labels: a.labels,
                };
                outcome(mutate::update(&mutation_ctx(ctx), &a.id, &changes))
            },
        ),
        declare(
            Declaration {
                id: "issue.close",
                kind: Mutation,
                description: "Close an issue (its lease ends).",
                payload: mutation_schema(false),
                failure_classes: classes!("issue.not_found", "issue.already_closed"),
                example: r#"(issue.close (hash "id" "bd-1" "reason" "fixed in 4f2a"))"#,
            },
            |ctx, a: CloseArgs| {
                outcome(mutate::close(&mutation_ctx(ctx), &a.id, a.reason.as_deref()))
            },
        ),
        declare(
            Declaration {
                id: "issue.search",
                kind: Read,
                description: "Issues whose title, description, acceptance criteria, notes or comments contain the query, best match first (title 3, description 2, notes and comments 1).",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("query", string()),
                        ("count", integer()),
                        ("totalCount", integer()),
                        ("items", array(object(
                            &[("id", string()), ("title", string()), ("status", string()),
                              ("priority", integer()), ("score", integer()), ("matched", strings())],
                            &["id", "score", "matched"],
                        ))),
                    ],
                    &["action"],
                ),
                failure_classes: classes!("issue.invalid_query"),
                example: r#"(issue.search (hash "query" "parser" "limit" 5))"#,
            },
            |ctx, a: SearchArgs| {
                let limit = a.limit.unwrap_or(20);
                outcome(read_view(ctx, |s, p| super::find::search_payload(s, p, &a.query, limit)))
            },
        ),
        declare(
            Declaration {
                id: "issue.stats",
                kind: Read,
                description: "Counts by status, type, priority, assignee and label; ready, blocked and in-progress counts; stale and contended leases; the oldest ready issue.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("issueCount", integer()),
                        ("readyCount", integer()),
                        ("blockedCount", integer()),
                        ("inProgressCount", integer()),
                        ("byStatus", any()),
                        ("byType", any()),
                        ("byPriority", any()),
                        ("byAssignee", any()),
                        ("byLabel", any()),
                        ("staleLeaseIds", strings()),
                        ("contendedLeaseIds", strings()),
                        ("oldestReady", any()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!(),
                example: "(issue.stats)",
            },
            |ctx, _: NoArgs| outcome(read_view(ctx, |s, p| super::find::stats_payload(s, p, ctx.now))),
        ),
        declare(
            Declaration {
                id: "dep.tree",
                kind: Read,
                description: "The dependency tree from an issue: what it depends on (down), what depends on it (up) or both; cycles marked, depth-limited.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("id", string()),
                        ("direction", string()),
                        ("maxDepth", integer()),
                        ("tree", any()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!("issue.not_found"),
                example: r#"(dep.tree (hash "id" "bd-1" "direction" "both"))"#,
            },
            |ctx, a: TreeArgs| {
                let direction = a.direction.unwrap_or(super::find::Direction::Down);
                let depth = a.max_depth.unwrap_or(10);
                outcome(read_view(ctx, |s, p| super::find::tree_payload(s, p, &a.id, direction, depth)))
            },
        ),
        declare(
            Declaration {
                id: "issue.reopen",
                kind: Mutation,
                description: "Open a closed issue again (its closed_at and close_reason go).",
                payload: mutation_schema(false),
                failure_classes: classes!("issue.not_found", "issue.not_closed"),
                example: r#"(issue.reopen (hash "id" "bd-1"))"#,
            },
            |ctx, a: IdArgs| outcome(super::tracker::reopen(&mutation_ctx(ctx), &a.id)),
        ),
        declare(
            Declaration {
                id: "issue.label",
                kind: Mutation,
                description: "Add and remove labels (added at the end, once each); the issue's labels after.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("id", string()),
                        ("labels", strings()),
                        ("changed", boolean()),
                        ("issue", issue_schema()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!("issue.not_found", "issue.invalid_label"),
                example: r#"(issue.label (hash "id" "bd-1" "add" (list "review") "remove" (list "triage")))"#,
            },
            |ctx, a: LabelArgs| {
                outcome(super::tracker::label(&mutation_ctx(ctx), &a.id, &a.add, &a.remove))
            },
        ),
        declare(
            Declaration {
                id: "issue.comment",
                kind: Mutation,
                description: "Append a comment (beads' shape: id, issue_id, author, text, created_at); comments are never rewritten.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("id", string()),
                        ("comment", any()),
                        ("issue", issue_schema()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!("issue.not_found", "issue.invalid_comment"),
                example: r#"(issue.comment (hash "id" "bd-1" "author" "agent.a" "text" "the parser needs a lexer first"))"#,
            },
            |ctx, a: CommentArgs| {
                outcome(super::tracker::comment(&mutation_ctx(ctx), &a.id, &a.author, &a.text))
            },
        ),
        declare(
            Declaration {
                id: "issue.comments",
                kind: Read,
                description: "An issue's comments, in order.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("id", string()),
                        ("count", integer()),
                        ("comments", array(any())),
                    ],
                    &["action"],
                ),
                failure_classes: classes!("issue.not_found"),
                example: r#"(issue.comments (hash "id" "bd-1"))"#,
            },
            |ctx, a: IdArgs| {
                outcome(read_view(ctx, |s, p| super::tracker::comments_payload(s, p, &a.id)))
            },
        ),
        declare(
            Declaration {
                id: "issue.claim",
                kind: Mutation,
                description: "Claim an issue for a worker with a lease (in_progress, assignee set).",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("issue", lease_summary_schema()),
                        ("staleLeaseCleared", boolean()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!(
                    "lease_not_found", "lease_issue_closed", "lease_contention_active",
                    "lease_id_mismatch", "lease_invalid_assignee", "lease_invalid_ttl",
                    "lease_invalid_expires_at", "lease_binding_ambiguous",
                ),
                example: r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a" "leaseTtlSeconds" 1800))"#,
            },
            |ctx, a: ClaimArgs| {
                let req = lease_request(a.assignee, a.lease_id, a.lease_ttl_seconds, a.lease_expires_at);
                outcome(lease::claim(&mutation_ctx(ctx), &a.id, &req))
            },
        ),
        declare(
            Declaration {
                id: "issue.claim_next",
                kind: Mutation,
                description: "Claim the first ready issue (priority, then id) that the optional filter passes, with a lease; claimed false when none is ready.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("claimed", boolean()),
                        ("issue", nullable(lease_summary_schema())),
                        ("staleLeaseCleared", boolean()),
                    ],
                    &["action"],
                ),
                failure_classes: classes!(
                    "lease_invalid_assignee", "lease_invalid_ttl", "lease_binding_ambiguous",
                    "host.args_invalid",
                ),
                example: r#"(issue.claim_next (hash "assignee" "agent.a"))"#,
            },
            |ctx, a: ClaimNextArgs| {
                let filter = match checked(a.filter) {
                    Ok(f) => f,
                    Err(refused) => return Ok(refused),
                };
                let req = lease_request(a.assignee, a.lease_id, a.lease_ttl_seconds, None);
                outcome(lease::claim_next(&mutation_ctx(ctx), &req, &filter))
            },
        ),
        declare(
            Declaration {
                id: "issue.discover",
                kind: Mutation,
                description: "Create an issue found while working on another, linked discovered-from.",
                payload: object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("issue", basic_schema()),
                        ("dependency", object(
                            &[("dependsOnId", string()), ("issueId", string()), ("type", string())],
                            &["dependsOnId", "issueId", "type"],
                        )),
                    ],
                    &["action"],
                ),
                failure_classes: classes!(
                    "issue.parent_not_found", "issue.invalid_title", "issue.invalid_id",
                    "issue.duplicate_id", "issue.invalid_status", "issue.invalid_priority",
                    "issue.invalid_type", "issue.invalid_label",
                ),
                example: r#"(issue.discover (hash "parentId" "bd-1" "title" "Lexer drops comments"))"#,
            },
            |ctx, a: DiscoverArgs| {
                let (parent, new) = a.split();
                outcome(mutate::discover(&mutation_ctx(ctx), &parent, &new))
            },
        ),
        declare(
            Declaration {
                id: "issue.lease_renew",
                kind: Mutation,
                description: "Extend the lease a worker holds on an issue.",
                payload: mutation_schema(true),
                failure_classes: classes!(
                    "lease_not_found", "lease_missing", "lease_stale", "lease_owner_mismatch",
                    "lease_id_mismatch", "lease_invalid_assignee", "lease_invalid_ttl",
                    "lease_invalid_expires_at", "lease_binding_ambiguous",
                ),
                example: r#"(issue.lease_renew (hash "id" "bd-1" "assignee" "agent.a" "leaseId" "lease1_bd-1_agent.a"))"#,
            },
            |ctx, a: RenewArgs| {
                let req = lease_request(a.assignee, Some(a.lease_id), a.lease_ttl_seconds, a.lease_expires_at);
                outcome(lease::renew(&mutation_ctx(ctx), &a.id, &req))
            },
        ),
        declare(
            Declaration {
                id: "issue.lease_release",
                kind: Mutation,
                description: "Give back a lease: the issue returns to open, unassigned.",
                payload: mutation_schema(true),
                failure_classes: classes!(
                    "lease_not_found", "lease_missing", "lease_stale", "lease_owner_mismatch",
                    "lease_id_mismatch", "lease_invalid_assignee",
                ),
                example: r#"(issue.lease_release (hash "id" "bd-1" "assignee" "agent.a"))"#,
            },
            |ctx, a: ReleaseArgs| {
                let req = lease_request(a.assignee, a.lease_id, None, None);
                outcome(lease::release(&mutation_ctx(ctx), &a.id, &req))
            },
        ),
        declare(
            Declaration {
                id: "dep.add",
                kind: Mutation,
                description: "Add a dependency edge; the graph stays acyclic.",
                payload: edge_schema(),
                failure_classes: classes!(
                    "dep.issue_not_found", "dep.target_not_found", "dep.self_loop",
                    "dep.duplicate", "dep.cycle", "dep.invalid_type",
                ),
                example: r#"(dep.add (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
            },
            |ctx, a: DepAddArgs| {
                let dep_type = a.dep_type.unwrap_or_else(|| "blocks".into());
                outcome(mutate::dep_add(
                    &mutation_ctx(ctx),
                    &edge(a.issue_id, a.depends_on_id),
                    &dep_type,
                    a.created_by.as_deref().unwrap_or_default(),
                ))
            },
        ),
        declare(
            Declaration {
                id: "dep.remove",
                kind: Mutation,
                description: "Remove a dependency edge (of the given type, or any).",
                payload: edge_schema(),
                failure_classes: classes!("dep.issue_not_found", "dep.not_found", "dep.invalid_type"),
                example: r#"(dep.remove (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
            },
            |ctx, a: DepArgs| {
                outcome(mutate::dep_remove(
                    &mutation_ctx(ctx),
                    &edge(a.issue_id, a.depends_on_id),
                    a.dep_type.as_deref(),
                ))
            },
        ),
        declare(
            Declaration {
                id: "dep.replace",
                kind: Mutation,
                description: "Change the type of an existing dependency edge.",
                payload: edge_schema(),
                failure_classes: classes!(
                    "dep.issue_not_found", "dep.not_found", "dep.invalid_type", "dep.cycle",
                ),
                example: r#"(dep.replace (hash "issueId" "bd-2" "dependsOnId" "bd-1" "type" "related"))"#,
            },
            |ctx, a: DepReplaceArgs| {
                let change = mutate::DepReplacement {
                    from_type: a.from_type.as_deref(),
                    to_type: &a.dep_type,
                    created_by: a.created_by.as_deref().unwrap_or_default(),
                };
                outcome(mutate::dep_replace(
                    &mutation_ctx(ctx),
                    &edge(a.issue_id, a.depends_on_id),
                    &change,
                ))
            },
        ),
    ]
}

fn path_of(ctx: &ActionContext<'_>) -> String {
    ctx.paths.issues.path().display().to_string()
}

fn read_view(
    ctx: &ActionContext<'_>,
    view: impl FnOnce(&Store<'_>, &str) -> Report,
) -> Result<Report, StoreError> {
    let text = ctx.paths.issues.read_text()?;
    let store = Store::parse(ctx.paths.issues.path(), &text)?;
    Ok(view(&store, &path_of(ctx)))
}

fn mutation_ctx<'p>(ctx: &'p ActionContext<'_>) -> MutationCtx<'p> {
    MutationCtx::new(&ctx.paths.issues, LockOptions::default(), ctx.now)
}

fn lease_request(
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
            };
            let args = crate::host::registry::validate_args(&action.spec().args, Some(&args))
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
        // independently, in tests/catalogue.rs.
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
        // premath's projection (A) of the new issue; the stored line has it all.
        assert_eq!(
            added["issue"],
            json!({"assignee": "", "id": "bd-1", "issueType": "task", "owner": "",
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
            json!({"assignee": "agent.a", "id": "bd-1", "issueType": "task",
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
