//! The read views: ready, blocked, list, show, snapshot ref (check, dep
//! diagnostics and dep project are in `graph_views`, re-exported here).
//! Each returns the JSON payload the CLI prints with `--json` (and the host action returns).

use super::filter::IssueFilter;
pub use super::graph_views::*;
use super::model::{Issue, LeaseState};
use super::payload::StoredIssue;
use super::store::Store;
use super::Report;
use crate::canonical::{sha256_hex, to_canonical_string};
use crate::issues::IssueClass;
use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// Notes longer than this (in characters) draw a `check` warning by default
/// (premath's `--note-warn-threshold`): notes are meant as a running log, and a
/// huge one usually means output pasted by mistake.
pub const NOTES_WARN_CHARS: usize = 2000;

/// Which view an [`Item`] belongs to: each prints premath's item shape for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemShape {
    /// `{assignee, id, issueType, priority, status, title}`.
    List,
    /// `{id, priority, status, title}`.
    Ready,
    /// `{blockers, id, manualBlocked, priority, status, title}`.
    Blocked,
}

/// One item of list, ready and blocked. It serializes to premath's item shape
/// for its view (keys in sorted order, so the text equals
/// `canonical::to_pretty_sorted` of its JSON value and the CLI prints big views
/// without building a `Value` per item); the other fields feed the table.
///
/// Its schema is derived from the fields it serializes: `blockers` and
/// `manualBlocked` in blocked items only. For programs (the host actions)
/// `assignee`, `issueType` and `labels` are in every item, so that a
/// routing program can be written from any view; the command line's
/// `--json` prints premath's shapes exactly (list items with the first two
/// only, ready and blocked items with none: docs/compatibility.md).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", extend("x-shape" = "Item"))]
pub struct Item<'s> {
    #[schemars(skip)]
    pub shape: ItemShape,
    /// Only premath's members (the command line's `--json`).
    #[schemars(skip)]
    pub premath_only: bool,
    /// Who works on it (left out of a program's payload when no one).
    #[schemars(with = "String")]
    pub assignee: Option<&'s str>,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub blockers: Vec<Blocker<'s>>,
    pub id: &'s str,
    /// task, bug, feature, epic or chore.
    pub issue_type: &'s str,
    /// Its labels, in stored order.
    pub labels: Vec<&'s str>,
    #[schemars(skip)]
    pub lease_state: &'static str,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub manual_blocked: bool,
    pub priority: i64,
    pub status: &'s str,
    pub title: &'s str,
}

impl Serialize for Item<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        let all = !self.premath_only;
        if all || self.shape == ItemShape::List {
            map.serialize_entry("assignee", self.assignee.unwrap_or(""))?;
        }
        if self.shape == ItemShape::Blocked {
            map.serialize_entry("blockers", &self.blockers)?;
        }
        map.serialize_entry("id", self.id)?;
        if all || self.shape == ItemShape::List {
            map.serialize_entry("issueType", self.issue_type)?;
        }
        if all {
            map.serialize_entry("labels", &self.labels)?;
        }
        if self.shape == ItemShape::Blocked {
            map.serialize_entry("manualBlocked", &self.manual_blocked)?;
        }
        map.serialize_entry("priority", &self.priority)?;
        map.serialize_entry("status", self.status)?;
        map.serialize_entry("title", self.title)?;
        map.end()
    }
}

impl<'s> Item<'s> {
    pub fn of(shape: ItemShape, issue: &'s Issue<'_>, now: DateTime<Utc>) -> Self {
        Item {
            shape,
            premath_only: false,
            assignee: issue.assignee.as_ref().map(|a| a.as_str()),
            blockers: Vec::new(),
            id: issue.id.as_str(),
            issue_type: issue.issue_type.as_str(),
            labels: issue.labels.iter().map(|l| l.as_str()).collect(),
            lease_state: issue.lease_state(now).as_str(),
            manual_blocked: false,
            priority: issue.priority,
            status: issue.status.as_str(),
            title: issue.title.as_str(),
        }
    }
}

/// Lease states over the listed issues (`contended`: see [`contended`]).
#[derive(Serialize, JsonSchema)]
#[schemars(extend("x-shape" = "LeaseCounts"))]
pub struct LeaseCounts {
    pub active: usize,
    pub contended: usize,
    pub stale: usize,
    pub unleased: usize,
}

/// The payload of list, ready and blocked: `{action, count, issuesPath, items}`
/// (list adds `leaseCounts`). Fields in sorted key order, as for [`Item`].
#[derive(Serialize, JsonSchema)]
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
        Report::view_of(&self)
    }
}

/// Natural order of ids: runs of digits compare by value (`bd-2` before
/// `bd-10`), everything else byte by byte; ties (`bd-02`, `bd-2`) fall back to
/// byte order so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i].is_ascii_digit() && y[j].is_ascii_digit() {
            let (si, sj) = (i, j);
            while i < x.len() && x[i].is_ascii_digit() {
                i += 1;
            }
            while j < y.len() && y[j].is_ascii_digit() {
                j += 1;
            }
            // Compare the digit runs by value without parsing (they may be long).
            let dx = &x[si..i];
            let dy = &y[sj..j];
            let tx = &dx[dx.iter().position(|&c| c != b'0').unwrap_or(dx.len())..];
            let ty = &dy[dy.iter().position(|&c| c != b'0').unwrap_or(dy.len())..];
            let by_value = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
            if by_value != Ordering::Equal {
                return by_value;
            }
        } else {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (x.len() - i).cmp(&(y.len() - j)).then_with(|| a.cmp(b))
}

/// A byte string whose byte order is [`natural_cmp`]'s order (a database sorts
/// by it): each run of digits becomes `0` (any digit byte compares with other
/// bytes as a digit does), the length of its value without leading zeros (4
/// bytes, big-endian) and those digits; other bytes stay. Equal keys (`bd-02`,
/// `bd-2`) are ordered by the id's bytes, as `natural_cmp` does.
pub fn natural_key(id: &str) -> Vec<u8> {
    let x = id.as_bytes();
    let mut out = Vec::with_capacity(x.len() + 8);
    let mut i = 0;
    while i < x.len() {
        if x[i].is_ascii_digit() {
            let start = i;
            while i < x.len() && x[i].is_ascii_digit() {
                i += 1;
            }
            let run = &x[start..i];
            let value = &run[run.iter().position(|&c| c != b'0').unwrap_or(run.len())..];
            out.push(b'0');
            out.extend_from_slice(&(value.len() as u32).to_be_bytes());
            out.extend_from_slice(value);
        } else {
            out.push(x[i]);
            i += 1;
        }
    }
    out
}

/// Priority (0 first), then id in natural order: the order of ready, blocked,
/// list and claim-next.
pub fn by_priority_then_id(a: &&Issue<'_>, b: &&Issue<'_>) -> std::cmp::Ordering {
    a.priority
        .cmp(&b.priority)
        .then_with(|| natural_cmp(a.id.as_str(), b.id.as_str()))
}

/// Which issues are blocked under the store's readiness rule
/// ([`super::readiness`]): one walk's memory of the parents it has judged.
pub struct Blocking<'s, 'a> {
    store: &'s Store<'a>,
    rule: super::readiness::Readiness,
    /// Whether an issue is blocked, directly or through a parent (beads'
    /// rule), by id; `false` while it is being judged (a cycle of parents).
    memo: std::cell::RefCell<FxHashMap<&'s str, bool>>,
}

impl<'s, 'a> Blocking<'s, 'a> {
    pub fn new(store: &'s Store<'a>) -> Self {
        Self {
            store,
            rule: store.readiness(),
            memo: Default::default(),
        }
    }

    /// Whether an edge's target keeps its issue waiting: missing, or not closed.
    fn open_target(&self, id: &str) -> bool {
        !self.store.get(id).is_some_and(|t| t.is_closed())
    }

    /// The indices of `issue`'s edges that block it by themselves.
    fn direct(&self, issue: &Issue<'_>) -> Vec<usize> {
        (0..issue.deps.len())
            .filter(|&i| {
                let d = &issue.deps[i];
                self.rule.blocks_directly(d.dep_type) && self.open_target(d.depends_on.as_str())
            })
            .collect()
    }

    /// The indices of `issue`'s `parent-child` edges to a parent that is
    /// blocked, under a rule where that blocks the children.
    fn blocked_parents(&self, issue: &Issue<'_>) -> Vec<usize> {
        if !self.rule.propagates() {
            return Vec::new();
        }
        (0..issue.deps.len())
            .filter(|&i| {
                let d = &issue.deps[i];
                d.dep_type == "parent-child"
                    && self
                        .store
                        .get(d.depends_on.as_str())
                        .is_some_and(|parent| self.blocked(parent))
            })
            .collect()
    }

    /// Whether `issue` waits: on a direct blocker, or (beads) on a blocked
    /// parent, transitively.
    pub fn blocked(&self, issue: &Issue<'_>) -> bool {
        if let Some(&known) = self.memo.borrow().get(issue.id.as_str()) {
            return known;
        }
        let Some(issue) = self.store.get(issue.id.as_str()) else {
            return false;
        };
        let id = issue.id.as_str();
        self.memo.borrow_mut().insert(id, false);
        let blocked = !self.direct(issue).is_empty() || !self.blocked_parents(issue).is_empty();
        self.memo.borrow_mut().insert(id, blocked);
        blocked
    }

    /// Why `issue` waits, in the line's dependency order: each direct
    /// blocker, and (beads) each blocked parent.
    pub fn blockers(&self, issue: &'s Issue<'_>) -> Vec<Blocker<'s>> {
        let beads = self.rule.propagates();
        let mut edges: Vec<(usize, Option<&'static str>)> = self
            .direct(issue)
            .into_iter()
            .map(|i| (i, beads.then_some("blocker")))
            .chain(
                self.blocked_parents(issue)
                    .into_iter()
                    .map(|i| (i, Some("blocked-parent"))),
            )
            .collect();
        edges.sort_by_key(|e| e.0);
        if edges.is_empty() {
            return Vec::new();
        }
        // `created_by` is not decoded with the line (few views need it): read it
        // from the line's dependencies, which are in the same order as `deps`.
        let object = full_object(self.store, issue);
        edges
            .into_iter()
            .map(|(index, reason)| {
                let dep = &issue.deps[index];
                let found = self.store.get(dep.depends_on.as_str());
                Blocker {
                    blocker_missing: found.is_none(),
                    blocker_status: found.map(|t| t.status.as_str()),
                    created_by: object["dependencies"][index]["created_by"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    depends_on_id: dep.depends_on.as_str(),
                    issue_id: issue.id.as_str(),
                    dep_type: dep.dep_type,
                    reason,
                }
            })
            .collect()
    }
}

/// Whether `issue` waits on nothing, under the store's readiness rule (a
/// missing target blocks).
pub fn unblocked(store: &Store<'_>, issue: &Issue<'_>) -> bool {
    !Blocking::new(store).blocked(issue)
}

/// Ready issues: status `open` and unblocked, by priority then id.
pub fn ready<'s, 'a>(store: &'s Store<'a>) -> Vec<&'s Issue<'a>> {
    let blocking = Blocking::new(store);
    let mut out: Vec<&Issue<'a>> = store
        .issues()
        .filter(|i| i.status.as_str() == "open" && !blocking.blocked(i))
        .collect();
    out.sort_by(by_priority_then_id);
    out
}

/// One open blocker of an issue (fields in sorted key order, premath's shape).
#[derive(Serialize, JsonSchema)]
#[schemars(extend("x-shape" = "Blocker"))]
pub struct Blocker<'s> {
    #[serde(rename = "blockerMissing")]
    pub blocker_missing: bool,
    #[serde(rename = "blockerStatus")]
    pub blocker_status: Option<&'s str>,
    /// The edge's `created_by` (left out of a program's payload when the
    /// line has none).
    #[serde(rename = "createdBy")]
    pub created_by: String,
    #[serde(rename = "dependsOnId")]
    pub depends_on_id: &'s str,
    #[serde(rename = "issueId")]
    pub issue_id: &'s str,
    /// Why it blocks, under beads' readiness rule: `blocker` (the edge
    /// itself) or `blocked-parent` (a `parent-child` edge to a parent that
    /// is blocked). Absent under premath's rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(rename = "type")]
    pub dep_type: &'static str,
}

/// Why `issue` waits, under the store's readiness rule (see [`Blocking::blockers`]).
pub fn blockers<'s>(store: &'s Store<'_>, issue: &'s Issue<'_>) -> Vec<Blocker<'s>> {
    Blocking::new(store).blockers(issue)
}

/// Blocked issues (non-closed, and manually `blocked` or waiting on
/// something), by priority then id, each with its blockers.
pub fn blocked<'s, 'a>(store: &'s Store<'a>) -> Vec<(&'s Issue<'a>, bool, Vec<Blocker<'s>>)> {
    let blocking = Blocking::new(store);
    let mut out: Vec<_> = store
        .issues()
        .filter(|i| !i.is_closed())
        .filter_map(|i| {
            let manual = i.status.as_str() == "blocked";
            let b = blocking.blockers(i);
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
    /// The routing filter (issue 22), on top of the fields above.
    pub filter: super::filter::IssueFilter,
}

impl ListFilter {
    /// Whether `i` of `store` passes the list's own fields and its routing filter.
    fn passes(&self, store: &Store<'_>, i: &Issue<'_>) -> bool {
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
            && self.filter.passes(store, i)
    }
}

/// `issue.ready`.
pub fn ready_view<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &IssueFilter,
    now: DateTime<Utc>,
) -> ListView<'s> {
    ready_list(store, path, filter, now, ready(store))
}

/// [`ready_view`] of a store that holds only ready issues (the database's
/// ready query chose them: `IssueStore::ready_text`), without deciding
/// readiness again (their closed blockers are not in it).
pub fn ready_view_known<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &IssueFilter,
    now: DateTime<Utc>,
) -> ListView<'s> {
    let mut ready: Vec<&Issue<'_>> = store.issues().collect();
    ready.sort_by(by_priority_then_id);
    ready_list(store, path, filter, now, ready)
}

/// The `issue.ready` view of `ready` (in ready order), filtered.
fn ready_list<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &IssueFilter,
    now: DateTime<Utc>,
    ready: Vec<&'s Issue<'_>>,
) -> ListView<'s> {
    let items: Vec<Item<'s>> = ready
        .into_iter()
        .filter(|i| filter.passes(store, i))
        .map(|i| Item::of(ItemShape::Ready, i, now))
        .collect();
    ListView {
        action: "issue.ready",
        count: items.len(),
        issues_path: path,
        items,
        lease_counts: None,
    }
}

/// `issue.blocked`: items carry `manualBlocked` and `blockers`.
pub fn blocked_view<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &IssueFilter,
    now: DateTime<Utc>,
) -> ListView<'s> {
    let items: Vec<Item<'s>> = blocked(store)
        .into_iter()
        .filter(|(i, _, _)| filter.passes(store, i))
        .map(|(i, manual, b)| Item {
            manual_blocked: manual,
            blockers: b,
            ..Item::of(ItemShape::Blocked, i, now)
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

/// [`blocked_view`] of a store that holds the blocked lines and their
/// edges' targets (the database chose them: `IssueStore::blocked_text`),
/// listing only `only`, the blocked ones (a target's own targets are not
/// in the store, so the view cannot judge a target).
pub fn blocked_view_known<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &IssueFilter,
    now: DateTime<Utc>,
    only: &std::collections::BTreeSet<String>,
) -> ListView<'s> {
    let mut view = blocked_view(store, path, filter, now);
    view.items.retain(|i| only.contains(i.id));
    view.count = view.items.len();
    view
}

/// `issue.list`, by priority then id, with per-issue lease state and the lease counts over
/// the listed issues.
pub fn list_view<'s>(
    store: &'s Store<'_>,
    path: &'s str,
    filter: &ListFilter,
    now: DateTime<Utc>,
) -> ListView<'s> {
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| filter.passes(store, i)).collect();
    issues.sort_by(by_priority_then_id);
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
        contended: issues
            .iter()
            .filter(|i| super::projection::contended(i, now))
            .count(),
        stale,
        unleased: issues.len() - active - stale,
    };
    let items: Vec<Item<'s>> = issues
        .into_iter()
        .map(|i| Item::of(ItemShape::List, i, now))
        .collect();
    ListView {
        action: "issue.list",
        count: items.len(),
        issues_path: path,
        items,
        lease_counts: Some(counts),
    }
}

/// `issue.show` payload: the issue exactly as stored, plus its lease state and blockers.
pub fn show_payload(store: &Store<'_>, path: &str, id: &str, now: DateTime<Utc>) -> Report {
    let Some(issue) = store.get(id) else {
        return Report::rejected(
            "issue.show",
            path,
            &[IssueClass::NotFound.as_str()],
            format!("no issue with id {id:?}"),
        );
    };
    Report::view_of(&ShowPayload {
        action: "issue.show",
        issues_path: path,
        issue: full_object(store, issue),
        lease_state: issue.lease_state(now).as_str(),
        blockers: blockers(store, issue),
    })
}

/// The `issue.show` payload.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShowPayload<'s> {
    pub action: &'static str,
    pub issues_path: &'s str,
    /// The issue exactly as stored.
    #[schemars(with = "StoredIssue")]
    pub issue: Value,
    /// `unleased`, `active` or `stale`.
    pub lease_state: &'static str,
    /// Its open blockers.
    pub blockers: Vec<Blocker<'s>>,
}

/// The full JSON object of a line (it parsed once already, so this cannot fail).
pub fn full_object(store: &Store<'_>, issue: &Issue<'_>) -> Value {
    serde_json::from_str(store.raw(issue)).expect("a decoded line is valid JSON")
}

/// premath's snapshot ref (`iss1_`, see [`super::serial::snapshot_ref`]) of
/// the store's issues: unchanged memory gives an unchanged ref, whatever the
/// line order or repeated lines in the file.
pub fn snapshot_ref_of(store: &Store<'_>) -> String {
    super::events::snapshot_ref(&super::events::memory_of(store))
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

#[cfg(test)]
mod tests {
    use super::{natural_cmp, natural_key};
    use proptest::prelude::*;

    proptest! {
        /// The database orders ready issues by `(natural_key, id bytes)`; that
        /// must be exactly `natural_cmp`'s order.
        #[test]
        fn natural_key_orders_as_natural_cmp(a in "[ab0-9/~-]{0,8}", b in "[ab0-9/~-]{0,8}") {
            let by_key = natural_key(&a)
                .cmp(&natural_key(&b))
                .then_with(|| a.as_bytes().cmp(b.as_bytes()));
            prop_assert_eq!(by_key, natural_cmp(&a, &b), "{:?} vs {:?}", a, b);
        }
    }

    #[test]
    fn natural_key_examples() {
        let mut ids = [
            "bd-10", "bd-9", "bd-02", "bd-2", "bd-", "bd-1a", "bd-1", "b", "c0",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        let mut keyed = ids;
        keyed.sort_by(|a, b| {
            natural_key(a)
                .cmp(&natural_key(b))
                .then_with(|| a.as_bytes().cmp(b.as_bytes()))
        });
        assert_eq!(ids, keyed);
        assert_eq!(ids[..4], ["b", "bd-", "bd-1", "bd-1a"]);
    }
}
