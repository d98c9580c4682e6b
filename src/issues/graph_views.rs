//! The graph's own views: `issue.check` (the whole store's integrity:
//! duplicate ids, dangling and cyclic edges, notes too large),
//! `dep.diagnostics` and `dep.project`. Split from `views` (the work-queue
//! views) by concern; `views` re-exports them.

use super::graph::{blocking_cycles, Integrity};
use super::model::{Issue, LeaseState};
use super::store::Store;
use super::views::{blockers, full_object};
use super::Report;
use crate::issues::IssueClass;
use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// `issue.check` (`premath.issue_graph.check.v1`); notes of more than
/// `note_warn_threshold` characters draw premath's `issue_graph.notes.large`.
pub fn check_payload(
    store: &Store<'_>,
    path: &str,
    now: DateTime<Utc>,
    note_warn_threshold: usize,
    commands: &super::content::Commands,
) -> Report {
    let mut found = GraphFindings {
        errors: duplicate_id_errors(store),
        warnings: Vec::new(),
    };
    let mut issues: Vec<&Issue<'_>> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    for issue in &issues {
        found.check_issue(store, issue, now, note_warn_threshold, commands);
    }
    for cycle in blocking_cycles(store, |i| !i.is_closed()) {
        if cycle.len() > 2 {
            found.errors.push(
                json!({"class": IssueClass::GraphCycle.as_str(), "issueId": cycle[0], "path": cycle,
                "message": format!("blocking cycle {}", cycle.join(" -> "))}),
            );
        }
    }
    found.into_report(store, path, note_warn_threshold)
}

/// An id on more than one line (the last one wins): one error per id, in id order.
fn duplicate_id_errors(store: &Store<'_>) -> Vec<Value> {
    let repeated: FxHashMap<&str, ()> = store
        .lines
        .iter()
        .filter(|i| i.superseded)
        .map(|i| (i.id.as_str(), ()))
        .collect();
    let mut lines_by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for issue in store
        .lines
        .iter()
        .filter(|i| repeated.contains_key(i.id.as_str()))
    {
        lines_by_id
            .entry(issue.id.as_str())
            .or_default()
            .push(issue.line);
    }
    let mut dups: Vec<_> = lines_by_id.into_iter().collect();
    dups.sort();
    dups.into_iter()
        .map(|(id, lines)| {
            json!({"class": IssueClass::GraphDuplicateId.as_str(), "issueId": id, "lines": lines,
            "message": format!("id {id:?} appears on lines {lines:?}; the last one wins")})
        })
        .collect()
}

/// The errors and warnings of `issue.check`, in the order found.
struct GraphFindings {
    errors: Vec<Value>,
    warnings: Vec<Value>,
}

impl GraphFindings {
    /// One issue's content findings, dependency errors and warnings.
    fn check_issue(
        &mut self,
        store: &Store<'_>,
        issue: &Issue<'_>,
        now: DateTime<Utc>,
        note_warn_threshold: usize,
        commands: &super::content::Commands,
    ) {
        let id = issue.id.as_str();
        for finding in super::content::findings_with(&full_object(store, issue), commands) {
            self.errors
                .push(json!({"class": finding.class, "issueId": id, "message": finding.message}));
        }
        for dep in &issue.deps {
            let target = dep.depends_on.as_str();
            if target == id {
                self.errors.push(
                    json!({"class": IssueClass::GraphSelfLoop.as_str(), "issueId": id, "type": dep.dep_type,
                    "message": format!("{id} depends on itself ({})", dep.dep_type)}),
                );
            } else if store.get(target).is_none() {
                self.errors.push(json!({"class": IssueClass::GraphDanglingDependency.as_str(), "issueId": id, "dependsOnId": target,
                    "type": dep.dep_type, "message": format!("{id} depends on missing issue {target}")}));
            }
        }
        if issue.notes_chars > note_warn_threshold {
            self.warnings.push(json!({"class": IssueClass::GraphNotesLarge.as_str(), "issueId": id,
                "message": format!("notes payload exceeds warning threshold (len={}, threshold={note_warn_threshold})", issue.notes_chars)}));
        }
        if issue.is_closed() {
            let open: Vec<&str> = blockers(store, issue)
                .into_iter()
                .map(|b| b.depends_on_id)
                .collect();
            if !open.is_empty() {
                self.warnings.push(json!({"class": IssueClass::GraphClosedWithOpenBlockers.as_str(), "issueId": id,
                    "blockers": open, "message": format!("{id} is closed but still has open blockers")}));
            }
        }
        if issue.lease_state(now) == LeaseState::Stale {
            let lease = issue.lease.as_ref().expect("a stale lease exists");
            self.warnings.push(json!({"class": IssueClass::GraphLeaseStale.as_str(), "issueId": id, "owner": lease.owner.as_str(),
                "expiresAt": lease.expires_at_text.as_str(),
                "message": format!("{id} has a stale lease of {}", lease.owner.as_str())}));
        }
    }

    /// The verdict: rejected by the errors' classes; warnings do not reject.
    fn into_report(self, store: &Store<'_>, path: &str, note_warn_threshold: usize) -> Report {
        let GraphFindings { errors, warnings } = self;
        let mut classes: Vec<String> = errors
            .iter()
            .map(|e| e["class"].as_str().unwrap_or_default().to_string())
            .collect();
        classes.sort();
        classes.dedup();
        let mut warning_classes: Vec<&str> = warnings
            .iter()
            .map(|w| w["class"].as_str().unwrap_or_default())
            .collect();
        warning_classes.sort_unstable();
        warning_classes.dedup();
        let payload = CheckPayload {
            schema: 1,
            kind: "premath.issue_graph.check.v1",
            check_kind: "premath.issue_graph.check.v1",
            action: "issue.check",
            issues_path: path,
            issue_count: store.issue_count(),
            error_count: errors.len(),
            warning_count: warnings.len(),
            summary: CheckSummary {
                error_count: errors.len(),
                issue_count: store.issue_count(),
                note_warn_threshold,
                warning_count: warnings.len(),
            },
            warning_classes,
            errors: &errors,
            warnings: &warnings,
        };
        Report::verdict_of(payload, classes)
    }
}

/// The `issue.check` payload (`premath.issue_graph.check.v1`), before its
/// verdict.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckPayload<'s> {
    /// Always 1.
    pub schema: u32,
    pub kind: &'static str,
    pub check_kind: &'static str,
    pub action: &'static str,
    pub issues_path: &'s str,
    pub issue_count: usize,
    pub error_count: usize,
    pub warning_count: usize,
    pub summary: CheckSummary,
    pub warning_classes: Vec<&'s str>,
    /// Each `{class, issueId, message, …}`; their classes are the verdict's.
    pub errors: &'s [Value],
    /// Each `{class, issueId, message, …}`; warnings do not reject.
    pub warnings: &'s [Value],
}

/// The counts of `issue.check`, with the notes threshold used.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckSummary {
    pub error_count: usize,
    pub issue_count: usize,
    pub note_warn_threshold: usize,
    pub warning_count: usize,
}

/// Graph scope of `dep diagnostics` (premath's `--graph-scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Active issues only: status `open` or `in_progress` (trimmed, any case).
    Active,
    /// Every issue.
    Full,
}

impl Scope {
    /// `active` or `full` (`all` is tusk's older name for `full`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(Scope::Active),
            "full" | "all" => Some(Scope::Full),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Active => "active",
            Scope::Full => "full",
        }
    }
    pub fn admits(self, issue: &Issue<'_>) -> bool {
        match self {
            Scope::Full => true,
            Scope::Active => {
                let status = issue.status.as_str().trim();
                status.eq_ignore_ascii_case("open") || status.eq_ignore_ascii_case("in_progress")
            }
        }
    }
}

/// `dep.diagnostics`, premath's shape: `{action, graphScope, integrity:
/// {cyclePath, hasCycle}, issuesPath}` where `cyclePath` is premath's first
/// cycle over every edge type among the issues in scope (or `null`). tusk adds
/// `cycles` (one per strongly connected component of the blocking edges in
/// scope, see [`blocking_cycles`]) and `danglingEdges` (edges of issues in
/// scope whose target does not exist). Findings are not a rejection.
pub fn diagnostics_payload(store: &Store<'_>, path: &str, scope: Scope) -> Report {
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| scope.admits(i)).collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let mut dangling = Vec::new();
    for issue in &issues {
        for dep in &issue.deps {
            if store.get(dep.depends_on.as_str()).is_none() {
                dangling.push(DanglingEdge {
                    issue_id: issue.id.as_str(),
                    depends_on_id: dep.depends_on.as_str(),
                    dep_type: dep.dep_type,
                });
            }
        }
    }
    Report::view_of(&DiagnosticsPayload {
        action: "dep.diagnostics",
        issues_path: path,
        graph_scope: scope.as_str(),
        integrity: Integrity::of(store, |i| scope.admits(i)),
        cycles: blocking_cycles(store, |i| scope.admits(i)),
        dangling_edges: dangling,
    })
}

/// The `dep.diagnostics` payload.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Diagnostics"))]
pub struct DiagnosticsPayload<'s> {
    pub action: &'static str,
    pub issues_path: &'s str,
    /// `active` or `full`.
    pub graph_scope: &'static str,
    pub integrity: Integrity,
    /// One per strongly connected component of the blocking edges in scope.
    pub cycles: Vec<Vec<String>>,
    /// Edges of issues in scope whose target does not exist.
    pub dangling_edges: Vec<DanglingEdge<'s>>,
}

/// An edge whose target does not exist.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DanglingEdge<'s> {
    pub issue_id: &'s str,
    pub depends_on_id: &'s str,
    #[serde(rename = "type")]
    pub dep_type: &'s str,
}

/// The view `dep project` projects edges through (premath's `--view`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepView {
    /// blocking / informational.
    Execution,
    /// Getting-things-done roles: next-action, project-structure, captured-work, reference, dedupe.
    Gtd,
    /// Groupoid roles: constraint, generator, provenance, equivalence.
    Groupoid,
}

impl DepView {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "execution" => Some(DepView::Execution),
            "gtd" => Some(DepView::Gtd),
            "groupoid" => Some(DepView::Groupoid),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DepView::Execution => "execution",
            DepView::Gtd => "gtd",
            DepView::Groupoid => "groupoid",
        }
    }

    /// The role of an edge of `dep_type` (a known type) in this view.
    pub fn role(self, dep_type: &str) -> &'static str {
        match (self, dep_type) {
            (DepView::Execution, t) => {
                if super::model::dep_type_blocks(t) == Some(true) {
                    "blocking"
                } else {
                    "informational"
                }
            }
            (DepView::Gtd, "blocks" | "conditional-blocks" | "waits-for") => "next-action",
            (DepView::Gtd, "parent-child") => "project-structure",
            (DepView::Gtd, "discovered-from" | "replies-to") => "captured-work",
            (DepView::Gtd, "duplicates" | "supersedes") => "dedupe",
            (DepView::Gtd, _) => "reference",
            (DepView::Groupoid, "blocks" | "conditional-blocks" | "waits-for") => "constraint",
            (DepView::Groupoid, "parent-child") => "generator",
            (DepView::Groupoid, "duplicates" | "supersedes") => "equivalence",
            (DepView::Groupoid, _) => "provenance",
        }
    }
}

/// One edge as `dep project` prints it (fields in sorted key order, premath's shape).
#[derive(Serialize, JsonSchema)]
pub struct ProjectedDep<'s> {
    pub blocking: bool,
    /// The edge's `created_by` (left out of a program's payload when the
    /// line has none).
    #[serde(rename = "createdBy")]
    pub created_by: String,
    #[serde(rename = "dependsOnId")]
    pub depends_on_id: &'s str,
    #[serde(rename = "issueId")]
    pub issue_id: &'s str,
    pub role: &'static str,
    #[serde(rename = "type")]
    pub dep_type: &'static str,
    pub view: &'static str,
}

/// Every edge of every issue (any status) through `view`, sorted by (issue,
/// target, type, created_by), with premath's integrity over all issues.
pub fn project_payload(store: &Store<'_>, path: &str, view: DepView) -> Report {
    let mut items: Vec<ProjectedDep<'_>> = Vec::new();
    for issue in store.issues().filter(|i| !i.deps.is_empty()) {
        // `created_by` is not decoded with the line: read it from the line's
        // dependencies, which are in the same order as `deps`.
        let object = full_object(store, issue);
        for (index, d) in issue.deps.iter().enumerate() {
            items.push(ProjectedDep {
                blocking: d.blocking,
                created_by: object["dependencies"][index]["created_by"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                depends_on_id: d.depends_on.as_str(),
                issue_id: issue.id.as_str(),
                role: view.role(d.dep_type),
                dep_type: d.dep_type,
                view: view.as_str(),
            });
        }
    }
    items.sort_by(|a, b| {
        (a.issue_id, a.depends_on_id, a.dep_type, &a.created_by).cmp(&(
            b.issue_id,
            b.depends_on_id,
            b.dep_type,
            &b.created_by,
        ))
    });
    Report::view_of(&ProjectPayload {
        action: "dep.project",
        issues_path: path,
        view: view.as_str(),
        count: items.len(),
        integrity: Integrity::of(store, |_| true),
        items,
    })
}

/// The `dep.project` payload.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPayload<'s> {
    pub action: &'static str,
    pub issues_path: &'s str,
    /// `execution`, `gtd` or `groupoid`.
    pub view: &'static str,
    pub count: usize,
    /// premath's integrity over all issues.
    pub integrity: Integrity,
    pub items: Vec<ProjectedDep<'s>>,
}
