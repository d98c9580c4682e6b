//! The read views: ready, blocked, list, show, check, dep diagnostics, snapshot ref.
//! Each returns the JSON payload the CLI prints with `--json` (and the host action returns).

use super::graph::blocking_cycles;
use super::model::{Issue, LeaseState};
use super::store::Store;
use super::Report;
use crate::canonical::{sha256_hex, to_canonical_string};
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Notes longer than this (in characters) draw a `check` warning: notes are meant
/// as a running log, and a huge one usually means output pasted by mistake.
pub const NOTES_WARN_CHARS: usize = 2000;

/// The compact per-issue shape of list, ready and blocked items.
pub fn summary(issue: &Issue<'_>, now: DateTime<Utc>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("id".into(), json!(issue.id.as_str()));
    m.insert("title".into(), json!(issue.title.as_str()));
    m.insert("status".into(), json!(issue.status.as_str()));
    m.insert("priority".into(), json!(issue.priority));
    m.insert("issueType".into(), json!(issue.issue_type.as_str()));
    m.insert("assignee".into(), issue.assignee.as_ref().map_or(Value::Null, |a| json!(a.as_str())));
    m.insert("labels".into(), Value::Array(issue.labels.iter().map(|l| json!(l.as_str())).collect()));
    m.insert("leaseState".into(), json!(issue.lease_state(now).as_str()));
    m.insert("lease".into(), lease_json(issue));
    m
}

fn lease_json(issue: &Issue<'_>) -> Value {
    match &issue.lease {
        None => Value::Null,
        Some(l) => {
            let mut m = Map::new();
            m.insert("leaseId".into(), json!(l.lease_id.as_str()));
            m.insert("owner".into(), json!(l.owner.as_str()));
            m.insert("acquiredAt".into(), json!(l.acquired_at.as_str()));
            m.insert("expiresAt".into(), json!(l.expires_at_text.as_str()));
            if let Some(r) = &l.renewed_at {
                m.insert("renewedAt".into(), json!(r.as_str()));
            }
            Value::Object(m)
        }
    }
}

fn by_priority_then_id(a: &&Issue<'_>, b: &&Issue<'_>) -> std::cmp::Ordering {
    a.priority.cmp(&b.priority).then_with(|| a.id.as_str().cmp(b.id.as_str()))
}

/// Whether every blocking dependency of `issue` points at an existing, closed issue
/// (a missing target blocks).
fn unblocked(store: &Store<'_>, issue: &Issue<'_>) -> bool {
    issue.blocking_deps().all(|d| store.get(d.depends_on.as_str()).is_some_and(|t| t.is_closed()))
}

/// Ready issues: status `open` and unblocked, by priority then id.
pub fn ready<'s, 'a>(store: &'s Store<'a>) -> Vec<&'s Issue<'a>> {
    let mut out: Vec<&Issue<'a>> =
        store.issues().filter(|i| i.status.as_str() == "open" && unblocked(store, i)).collect();
    out.sort_by(by_priority_then_id);
    out
}

/// One open blocker of an issue.
pub struct Blocker {
    pub issue_id: String,
    pub depends_on_id: String,
    pub dep_type: String,
    pub blocker_status: Option<String>,
}

impl Blocker {
    fn to_json(&self) -> Value {
        json!({
            "issueId": self.issue_id,
            "dependsOnId": self.depends_on_id,
            "type": self.dep_type,
            "blockerStatus": self.blocker_status,
            "blockerMissing": self.blocker_status.is_none(),
        })
    }
}

/// The blocking dependencies of `issue` on non-closed or missing issues.
pub fn blockers(store: &Store<'_>, issue: &Issue<'_>) -> Vec<Blocker> {
    issue
        .blocking_deps()
        .filter_map(|d| {
            let target = store.get(d.depends_on.as_str());
            if target.is_some_and(|t| t.is_closed()) {
                return None;
            }
            Some(Blocker {
                issue_id: issue.id.as_str().to_string(),
                depends_on_id: d.depends_on.as_str().to_string(),
                dep_type: d.dep_type.as_str().to_string(),
                blocker_status: target.map(|t| t.status.as_str().to_string()),
            })
        })
        .collect()
}

/// Blocked issues (non-closed, and manually `blocked` or with an open blocker), by
/// priority then id, each with its blockers.
pub fn blocked<'s, 'a>(store: &'s Store<'a>) -> Vec<(&'s Issue<'a>, bool, Vec<Blocker>)> {
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
        self.status.as_deref().is_none_or(|s| i.status.as_str() == s)
            && self.assignee.as_deref().is_none_or(|a| i.assignee.as_ref().is_some_and(|x| x.as_str() == a))
            && self.issue_type.as_deref().is_none_or(|t| i.issue_type.as_str() == t)
            && self.label.as_deref().is_none_or(|l| i.labels.iter().any(|x| x.as_str() == l))
            && self.priority.is_none_or(|p| i.priority == p)
    }
}

/// A lease is contended when it is active but the issue's assignee is someone else:
/// two workers then both have a claim to the issue.
fn contended(issue: &Issue<'_>, now: DateTime<Utc>) -> bool {
    issue.lease_state(now) == LeaseState::Active
        && issue.assignee.as_ref().map(|a| a.as_str()) != issue.lease.as_ref().map(|l| l.owner.as_str())
}

fn view_payload(action: &str, path: &str, items: Vec<Value>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("action".into(), json!(action));
    m.insert("issuesPath".into(), json!(path));
    m.insert("count".into(), json!(items.len()));
    m.insert("items".into(), Value::Array(items));
    m
}

/// `issue.ready` payload.
pub fn ready_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    let items = ready(store).into_iter().map(|i| Value::Object(summary(i, now))).collect();
    Report::view(view_payload("issue.ready", path, items))
}

/// `issue.blocked` payload.
pub fn blocked_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    let items = blocked(store)
        .into_iter()
        .map(|(i, manual, b)| {
            let mut m = summary(i, now);
            m.insert("manualBlocked".into(), json!(manual));
            m.insert("blockers".into(), Value::Array(b.iter().map(Blocker::to_json).collect()));
            Value::Object(m)
        })
        .collect();
    Report::view(view_payload("issue.blocked", path, items))
}

/// `issue.list` payload, in id order, with per-issue lease state and the stale and
/// contended lease counts over the listed issues.
pub fn list_payload(store: &Store<'_>, path: &str, filter: &ListFilter, now: DateTime<Utc>) -> Report {
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| filter.matches(i)).collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let stale = issues.iter().filter(|i| i.lease_state(now) == LeaseState::Stale).count();
    let active = issues.iter().filter(|i| i.lease_state(now) == LeaseState::Active).count();
    let contended_count = issues.iter().filter(|i| contended(i, now)).count();
    let items = issues.iter().map(|i| Value::Object(summary(i, now))).collect();
    let mut m = view_payload("issue.list", path, items);
    m.insert(
        "leaseCounts".into(),
        json!({"active": active, "stale": stale, "contended": contended_count, "unleased": issues.len() - active - stale}),
    );
    Report::view(m)
}

/// `issue.show` payload: the issue exactly as stored, plus its lease state and blockers.
pub fn show_payload(store: &Store<'_>, path: &str, id: &str, now: DateTime<Utc>) -> Report {
    let Some(issue) = store.get(id) else {
        return Report::rejected("issue.show", path, &["issue.not_found"], format!("no issue with id {id:?}"));
    };
    let mut m = Map::new();
    m.insert("action".into(), json!("issue.show"));
    m.insert("issuesPath".into(), json!(path));
    m.insert("issue".into(), full_object(store, issue));
    m.insert("leaseState".into(), json!(issue.lease_state(now).as_str()));
    m.insert("blockers".into(), Value::Array(blockers(store, issue).iter().map(Blocker::to_json).collect()));
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

    let mut lines_by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for issue in &store.lines {
        lines_by_id.entry(issue.id.as_str()).or_default().push(issue.line);
    }
    let mut dups: Vec<_> = lines_by_id.into_iter().filter(|(_, l)| l.len() > 1).collect();
    dups.sort();
    for (id, lines) in dups {
        errors.push(json!({"class": "issue_graph.duplicate_id", "issueId": id, "lines": lines,
            "message": format!("id {id:?} appears on lines {lines:?}; the last one wins")}));
    }

    let mut issues: Vec<&Issue<'_>> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    for issue in &issues {
        let id = issue.id.as_str();
        for dep in &issue.deps {
            let target = dep.depends_on.as_str();
            if target == id {
                errors.push(json!({"class": "issue_graph.self_loop", "issueId": id, "type": dep.dep_type.as_str(),
                    "message": format!("{id} depends on itself ({})", dep.dep_type.as_str())}));
            } else if store.get(target).is_none() {
                errors.push(json!({"class": "issue_graph.dangling_dependency", "issueId": id, "dependsOnId": target,
                    "type": dep.dep_type.as_str(), "message": format!("{id} depends on missing issue {target}")}));
            }
        }
        if issue.notes_chars > NOTES_WARN_CHARS {
            warnings.push(json!({"class": "issue_graph.notes_too_long", "issueId": id, "chars": issue.notes_chars,
                "limit": NOTES_WARN_CHARS, "message": format!("{id} has {} characters of notes", issue.notes_chars)}));
        }
        if issue.is_closed() {
            let open: Vec<String> = blockers(store, issue).into_iter().map(|b| b.depends_on_id).collect();
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
            errors.push(json!({"class": "issue_graph.cycle", "issueId": cycle[0], "path": cycle,
                "message": format!("blocking cycle {}", cycle.join(" -> "))}));
        }
    }

    let mut classes: Vec<String> = errors.iter().map(|e| e["class"].as_str().unwrap_or_default().to_string()).collect();
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
                dangling.push(json!({"issueId": issue.id.as_str(), "dependsOnId": dep.depends_on.as_str(),
                    "type": dep.dep_type.as_str()}));
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
    let lease = full_object(store, issue).get("lease").filter(|l| !l.is_null()).cloned().unwrap_or_else(|| json!({}));
    format!(
        "lease://handoff/{}/{}/{}",
        issue.id.as_str(),
        issue.lease_state(now).as_str(),
        sha256_hex(to_canonical_string(&lease).as_bytes())
    )
}
