//! The read views: ready, blocked, list, show, check, dep diagnostics, snapshot ref.
//! Each returns the JSON payload the CLI prints with `--json` (and the host action returns).

use super::graph::blocking_cycles;
use super::model::{Issue, LeaseState};
use super::store::Store;
use super::Report;
use crate::canonical::{sha256_hex, to_canonical_string};
use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Notes longer than this (in characters) draw a `check` warning: notes are meant
/// as a running log, and a huge one usually means output pasted by mistake.
pub const NOTES_WARN_CHARS: usize = 2000;

/// One item of list, ready and blocked: the compact per-issue shape. Fields are
/// declared in sorted key order, so serializing it directly gives the same text as
/// `canonical::to_pretty_sorted` of its JSON value (the CLI prints big views
/// this way without building a `Value` per item).
#[derive(Serialize)]
pub struct Item<'s> {
    pub assignee: Option<&'s str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blockers: Option<Vec<Blocker<'s>>>,
    pub id: &'s str,
    #[serde(rename = "issueType")]
    pub issue_type: &'s str,
    pub labels: Vec<&'s str>,
    pub lease: Option<LeaseItem<'s>>,
    #[serde(rename = "leaseState")]
    pub lease_state: &'static str,
    #[serde(rename = "manualBlocked", skip_serializing_if = "Option::is_none")]
    pub manual_blocked: Option<bool>,
    pub priority: i64,
    pub status: &'s str,
    pub title: &'s str,
}

/// The lease of an item, camelCase like the rest of the item.
#[derive(Serialize)]
pub struct LeaseItem<'s> {
    #[serde(rename = "acquiredAt")]
    pub acquired_at: &'s str,
    #[serde(rename = "expiresAt")]
    pub expires_at: &'s str,
    #[serde(rename = "leaseId")]
    pub lease_id: &'s str,
    pub owner: &'s str,
    #[serde(rename = "renewedAt", skip_serializing_if = "Option::is_none")]
    pub renewed_at: Option<&'s str>,
}

impl<'s> Item<'s> {
    pub fn of(issue: &'s Issue<'_>, now: DateTime<Utc>) -> Self {
        Item {
            assignee: issue.assignee.as_ref().map(|a| a.as_str()),
            blockers: None,
            id: issue.id.as_str(),
            issue_type: issue.issue_type.as_str(),
            labels: issue.labels.iter().map(|l| l.as_str()).collect(),
            lease: issue.lease.as_ref().map(|l| LeaseItem {
                acquired_at: l.acquired_at.as_str(),
                expires_at: l.expires_at_text.as_str(),
                lease_id: l.lease_id.as_str(),
                owner: l.owner.as_str(),
                renewed_at: l.renewed_at.as_ref().map(|r| r.as_str()),
            }),
            lease_state: issue.lease_state(now).as_str(),
            manual_blocked: None,
            priority: issue.priority,
            status: issue.status.as_str(),
            title: issue.title.as_str(),
        }
    }
}

/// Lease states over the listed issues (`contended`: see [`contended`]).
#[derive(Serialize)]
pub struct LeaseCounts {
    pub active: usize,
    pub contended: usize,
    pub stale: usize,
    pub unleased: usize,
}

/// The payload of list, ready and blocked: `{action, count, issuesPath, items}`
/// (list adds `leaseCounts`). Fields in sorted key order, as for [`Item`].
#[derive(Serialize)]
pub struct ListView<'s> {
    pub action: &'static str,
    pub count: usize,
    #[serde(rename = "issuesPath")]
    pub issues_path: &'s str,
    pub items: Vec<Item<'s>>,
    #[serde(rename = "leaseCounts", skip_serializing_if = "Option::is_none")]
    pub lease_counts: Option<LeaseCounts>,
}

impl ListView<'_> {
    /// The view as a report (host actions carry `Value` payloads).
    pub fn into_report(self) -> Report {
        match serde_json::to_value(&self) {
            Ok(Value::Object(m)) => Report::view(m),
            _ => unreachable!("a ListView serializes to an object"),
        }
    }
}

fn by_priority_then_id(a: &&Issue<'_>, b: &&Issue<'_>) -> std::cmp::Ordering {
    a.priority
        .cmp(&b.priority)
        .then_with(|| a.id.as_str().cmp(b.id.as_str()))
}

/// Whether every blocking dependency of `issue` points at an existing, closed issue
/// (a missing target blocks).
fn unblocked(store: &Store<'_>, issue: &Issue<'_>) -> bool {
    issue.blocking_deps().all(|d| {
        store
            .get(d.depends_on.as_str())
            .is_some_and(|t| t.is_closed())
    })
}

/// Ready issues: status `open` and unblocked, by priority then id.
pub fn ready<'s, 'a>(store: &'s Store<'a>) -> Vec<&'s Issue<'a>> {
    let mut out: Vec<&Issue<'a>> = store
        .issues()
        .filter(|i| i.status.as_str() == "open" && unblocked(store, i))
        .collect();
    out.sort_by(by_priority_then_id);
    out
}

/// One open blocker of an issue (fields in sorted key order).
#[derive(Serialize)]
pub struct Blocker<'s> {
    #[serde(rename = "blockerMissing")]
    pub blocker_missing: bool,
    #[serde(rename = "blockerStatus")]
    pub blocker_status: Option<&'s str>,
    #[serde(rename = "dependsOnId")]
    pub depends_on_id: &'s str,
    #[serde(rename = "issueId")]
    pub issue_id: &'s str,
    #[serde(rename = "type")]
    pub dep_type: &'static str,
}

/// The blocking dependencies of `issue` on non-closed or missing issues.
pub fn blockers<'s>(store: &'s Store<'_>, issue: &'s Issue<'_>) -> Vec<Blocker<'s>> {
    issue
        .blocking_deps()
        .filter_map(|d| {
            let target = store.get(d.depends_on.as_str());
            if target.is_some_and(|t| t.is_closed()) {
                return None;
            }
            Some(Blocker {
                blocker_missing: target.is_none(),
                blocker_status: target.map(|t| t.status.as_str()),
                depends_on_id: d.depends_on.as_str(),
                issue_id: issue.id.as_str(),
                dep_type: d.dep_type,
            })
        })
        .collect()
}

fn blockers_json(store: &Store<'_>, issue: &Issue<'_>) -> Value {
    serde_json::to_value(blockers(store, issue)).expect("blockers serialize")
}

/// Blocked issues (non-closed, and manually `blocked` or with an open blocker), by
/// priority then id, each with its blockers.
pub fn blocked<'s, 'a>(store: &'s Store<'a>) -> Vec<(&'s Issue<'a>, bool, Vec<Blocker<'s>>)> {
    let mut out: Vec<_> = store
        .issues()
        .filter(|i| !i.is_closed())
        .filter_map(|i| {
            let manual = i.status.as_str() == "blocked";
            let b = blockers(store, i);
            (manual || !b.is_empty()).then_some((i, manual, b))
        })
        .collect();
    out.sort_by(|a, b| by_priority_then_id(&a.0, &b.0));
    out
}

/// Filters of `issue list`; every given filter must match.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub status: Option<String>,
    pub assignee: Option<String>,
    pub issue_type: Option<String>,
    pub label: Option<String>,
    pub priority: Option<i64>,
}

impl ListFilter {
    fn matches(&self, i: &Issue<'_>) -> bool {
        self.status
            .as_deref()
            .is_none_or(|s| i.status.as_str() == s)
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| i.assignee.as_ref().is_some_and(|x| x.as_str() == a))
            && self
                .issue_type
                .as_deref()
                .is_none_or(|t| i.issue_type.as_str() == t)
            && self
                .label
                .as_deref()
                .is_none_or(|l| i.labels.iter().any(|x| x.as_str() == l))
            && self.priority.is_none_or(|p| i.priority == p)
    }
}

/// A lease is contended when it is active but the issue's assignee is someone else:
/// two workers then both have a claim to the issue.
fn contended(issue: &Issue<'_>, now: DateTime<Utc>) -> bool {
    issue.lease_state(now) == LeaseState::Active
        && issue.assignee.as_ref().map(|a| a.as_str())
            != issue.lease.as_ref().map(|l| l.owner.as_str())
}

/// `issue.ready`.
pub fn ready_view<'s>(store: &'s Store<'_>, path: &'s str, now: DateTime<Utc>) -> ListView<'s> {
    let items: Vec<Item<'s>> = ready(store).into_iter().map(|i| Item::of(i, now)).collect();
    ListView {
        action: "issue.ready",
        count: items.len(),
        issues_path: path,
        items,
        lease_counts: None,
    }
}

/// `issue.blocked`: items carry `manualBlocked` and `blockers`.
pub fn blocked_view<'s>(store: &'s Store<'_>, path: &'s str, now: DateTime<Utc>) -> ListView<'s> {
    let items: Vec<Item<'s>> = blocked(store)
        .into_iter()
        .map(|(i, manual, b)| Item {
            manual_blocked: Some(manual),
            blockers: Some(b),
            ..Item::of(i, now)
        })
        .collect();
    ListView {
        action: "issue.blocked",
        count: items.len(),
        issues_path: path,
        items,
        lease_counts: None,
    }
}

/// `issue.list`, in id order, with per-issue lease state and the lease counts over
/// the listed issues.
pub fn list_view<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &ListFilter,
    now: DateTime<Utc>,
) -> ListView<'s> {
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| filter.matches(i)).collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let stale = issues
        .iter()
        .filter(|i| i.lease_state(now) == LeaseState::Stale)
        .count();
    let active = issues
        .iter()
        .filter(|i| i.lease_state(now) == LeaseState::Active)
        .count();
    let counts = LeaseCounts {
        active,
        contended: issues.iter().filter(|i| contended(i, now)).count(),
        stale,
        unleased: issues.len() - active - stale,
    };
    let items: Vec<Item<'s>> = issues.into_iter().map(|i| Item::of(i, now)).collect();
    ListView {
        action: "issue.list",
        count: items.len(),
        issues_path: path,
        items,
        lease_counts: Some(counts),
    }
}

/// `issue.ready` payload.
pub fn ready_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    ready_view(store, path, now).into_report()
}

/// `issue.blocked` payload.
pub fn blocked_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    blocked_view(store, path, now).into_report()
}

/// `issue.list` payload.
pub fn list_payload(
    store: &Store<'_>,
    path: &str,
    filter: &ListFilter,
    now: DateTime<Utc>,
) -> Report {
    list_view(store, path, filter, now).into_report()
}

/// `issue.show` payload: the issue exactly as stored, plus its lease state and blockers.
pub fn show_payload(store: &Store<'_>, path: &str, id: &str, now: DateTime<Utc>) -> Report {
    let Some(issue) = store.get(id) else {
        return Report::rejected(
            "issue.show",
            path,
            &["issue.not_found"],
            format!("no issue with id {id:?}"),
        );
    };
    let mut m = Map::new();
    m.insert("action".into(), json!("issue.show"));
    m.insert("issuesPath".into(), json!(path));
    m.insert("issue".into(), full_object(store, issue));
    m.insert("leaseState".into(), json!(issue.lease_state(now).as_str()));
    m.insert("blockers".into(), blockers_json(store, issue));
    Report::view(m)
}

/// The full JSON object of a line (it parsed once already, so this cannot fail).
pub fn full_object(store: &Store<'_>, issue: &Issue<'_>) -> Value {
    serde_json::from_str(store.raw(issue)).expect("a decoded line is valid JSON")
}

/// `issue.check` (`premath.issue_graph.check.v1`).
pub fn check_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();

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
    for (id, lines) in dups {
        errors.push(
            json!({"class": "issue_graph.duplicate_id", "issueId": id, "lines": lines,
            "message": format!("id {id:?} appears on lines {lines:?}; the last one wins")}),
        );
    }

    let mut issues: Vec<&Issue<'_>> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    for issue in &issues {
        let id = issue.id.as_str();
        for dep in &issue.deps {
            let target = dep.depends_on.as_str();
            if target == id {
                errors.push(
                    json!({"class": "issue_graph.self_loop", "issueId": id, "type": dep.dep_type,
                    "message": format!("{id} depends on itself ({})", dep.dep_type)}),
                );
            } else if store.get(target).is_none() {
                errors.push(json!({"class": "issue_graph.dangling_dependency", "issueId": id, "dependsOnId": target,
                    "type": dep.dep_type, "message": format!("{id} depends on missing issue {target}")}));
            }
        }
        if issue.notes_chars > NOTES_WARN_CHARS {
            warnings.push(json!({"class": "issue_graph.notes_too_long", "issueId": id, "chars": issue.notes_chars,
                "limit": NOTES_WARN_CHARS, "message": format!("{id} has {} characters of notes", issue.notes_chars)}));
        }
        if issue.is_closed() {
            let open: Vec<&str> = blockers(store, issue)
                .into_iter()
                .map(|b| b.depends_on_id)
                .collect();
            if !open.is_empty() {
                warnings.push(json!({"class": "issue_graph.closed_with_open_blockers", "issueId": id,
                    "blockers": open, "message": format!("{id} is closed but still has open blockers")}));
            }
        }
        if issue.lease_state(now) == LeaseState::Stale {
            let lease = issue.lease.as_ref().expect("a stale lease exists");
            warnings.push(json!({"class": "issue_graph.lease_stale", "issueId": id, "owner": lease.owner.as_str(),
                "expiresAt": lease.expires_at_text.as_str(),
                "message": format!("{id} has a stale lease of {}", lease.owner.as_str())}));
        }
    }
    for cycle in blocking_cycles(store, |i| !i.is_closed()) {
        if cycle.len() > 2 {
            errors.push(
                json!({"class": "issue_graph.cycle", "issueId": cycle[0], "path": cycle,
                "message": format!("blocking cycle {}", cycle.join(" -> "))}),
            );
        }
    }

    let mut classes: Vec<String> = errors
        .iter()
        .map(|e| e["class"].as_str().unwrap_or_default().to_string())
        .collect();
    classes.sort();
    classes.dedup();
    let mut m = Map::new();
    m.insert("schema".into(), json!(1));
    m.insert("kind".into(), json!("premath.issue_graph.check.v1"));
    m.insert("action".into(), json!("issue.check"));
    m.insert("issuesPath".into(), json!(path));
    m.insert("issueCount".into(), json!(store.issue_count()));
    m.insert("errorCount".into(), json!(errors.len()));
    m.insert("warningCount".into(), json!(warnings.len()));
    m.insert("errors".into(), Value::Array(errors));
    m.insert("warnings".into(), Value::Array(warnings));
    Report::verdict(m, classes)
}

/// Scope of `dep diagnostics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Non-closed issues only (the boot preflight).
    Active,
    All,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(Scope::Active),
            "all" => Some(Scope::All),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Active => "active",
            Scope::All => "all",
        }
    }
}

/// `dep.diagnostics`: cycles (blocking edges, deterministic paths) and dangling edges
/// of the issues in scope.
pub fn diagnostics_payload(store: &Store<'_>, path: &str, scope: Scope) -> Report {
    let in_scope = |i: &Issue<'_>| scope == Scope::All || !i.is_closed();
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| in_scope(i)).collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let mut dangling = Vec::new();
    let mut edges = 0usize;
    for issue in &issues {
        for dep in &issue.deps {
            edges += 1;
            if store.get(dep.depends_on.as_str()).is_none() {
                dangling.push(
                    json!({"issueId": issue.id.as_str(), "dependsOnId": dep.depends_on.as_str(),
                    "type": dep.dep_type}),
                );
            }
        }
    }
    let cycles = blocking_cycles(store, in_scope);
    let mut classes = Vec::new();
    if !cycles.is_empty() {
        classes.push("dep.cycle".to_string());
    }
    if !dangling.is_empty() {
        classes.push("dep.dangling".to_string());
    }
    let mut m = Map::new();
    m.insert("action".into(), json!("dep.diagnostics"));
    m.insert("issuesPath".into(), json!(path));
    m.insert("scope".into(), json!(scope.as_str()));
    m.insert("issueCount".into(), json!(issues.len()));
    m.insert("edgeCount".into(), json!(edges));
    m.insert("hasCycle".into(), json!(!cycles.is_empty()));
    m.insert("cycles".into(), json!(cycles));
    m.insert("danglingEdges".into(), Value::Array(dangling));
    Report::verdict(m, classes)
}

/// `iss1_` + hex SHA-256 over the issues in id order, one per line ending in `\n`,
/// each in canonical JSON (keys sorted, compact) as stored, with its `dependencies`
/// sorted by their canonical text. Unchanged memory gives an unchanged ref,
/// whatever the line order or repeated lines in the file.
pub fn snapshot_ref_of(store: &Store<'_>) -> String {
    let mut issues: Vec<&Issue<'_>> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let mut text = String::new();
    for issue in issues {
        let mut value = full_object(store, issue);
        if let Some(Value::Array(deps)) = value.get_mut("dependencies") {
            deps.sort_by_cached_key(to_canonical_string);
        }
        text.push_str(&to_canonical_string(&value));
        text.push('\n');
    }
    format!("iss1_{}", sha256_hex(text.as_bytes()))
}

/// `lease://handoff/<issue-id>/<lease-state>/<digest>` where digest is the hex
/// SHA-256 of the canonical JSON of the stored lease object, or of `{}` without one.
pub fn handoff_ref_of(store: &Store<'_>, issue: &Issue<'_>, now: DateTime<Utc>) -> String {
    let lease = full_object(store, issue)
        .get("lease")
        .filter(|l| !l.is_null())
        .cloned()
        .unwrap_or_else(|| json!({}));
    format!(
        "lease://handoff/{}/{}/{}",
        issue.id.as_str(),
        issue.lease_state(now).as_str(),
        sha256_hex(to_canonical_string(&lease).as_bytes())
    )
}
