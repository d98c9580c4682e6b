//! premath's issue JSON projections (camelCase), built from a stored line's
//! JSON object (snake_case beads fields, defaults filled in as the line format
//! says). The store format itself never changes; only what commands print does.
//!
//! - (A) [`basic`]: `issue add`, `update`, `discover`;
//! - (B) [`lease_summary`]: `issue claim`, `claim-next`;
//! - (D) [`detail`]: `issue show --json` (the host action `issue.show` keeps
//!   the stored object);
//! - the lease projection of `issue lease-projection` ([`lease_projection`]).

use super::model::{
    parse_time, Issue, LeaseState, DEFAULT_ISSUE_TYPE, DEFAULT_PRIORITY, DEFAULT_STATUS,
};
use super::store::Store;
use super::views::full_object;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

fn text<'m>(m: &'m Map<String, Value>, key: &str, default: &'m str) -> &'m str {
    m.get(key).and_then(Value::as_str).unwrap_or(default)
}

/// premath's rendering of a lease instant (`to_rfc3339()`: `+00:00`, a fraction
/// only when there is one). A stored value that is not a time is shown as stored.
pub fn instant(stored: &str) -> String {
    parse_time(stored).map_or_else(|| stored.to_string(), |t| t.to_rfc3339())
}

/// (A) premath's projection of an issue: `issue add`, `update`, `discover`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Brief"))]
pub struct Basic<'m> {
    pub assignee: &'m str,
    pub id: &'m str,
    pub issue_type: &'m str,
    pub owner: &'m str,
    /// As stored (an integer unless the line says otherwise).
    #[schemars(with = "i64")]
    pub priority: Value,
    pub status: &'m str,
    pub title: &'m str,
}

impl<'m> Basic<'m> {
    /// (A) of a stored object, defaults filled in.
    pub fn of(m: &'m Map<String, Value>) -> Self {
        Basic {
            assignee: text(m, "assignee", ""),
            id: text(m, "id", ""),
            issue_type: text(m, "issue_type", DEFAULT_ISSUE_TYPE),
            owner: text(m, "owner", ""),
            priority: m
                .get("priority")
                .cloned()
                .unwrap_or(json!(DEFAULT_PRIORITY)),
            status: text(m, "status", DEFAULT_STATUS),
            title: text(m, "title", ""),
        }
    }
}

/// (A) `{assignee, id, issueType, owner, priority, status, title}` as JSON.
pub fn basic(m: &Map<String, Value>) -> Value {
    crate::host::payload_json(&Basic::of(m))
}

/// A stored lease in camelCase, as premath prints it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Lease"))]
pub struct Lease {
    pub acquired_at: String,
    pub expires_at: String,
    pub lease_id: String,
    pub owner: String,
    /// `null` when never renewed.
    pub renewed_at: Option<String>,
    /// The lease state, in views that give it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

impl Lease {
    /// The lease of a stored object, with `state` when given; `None` without one.
    pub fn of(m: &Map<String, Value>, state: Option<&str>) -> Option<Self> {
        let lease = m.get("lease").and_then(Value::as_object)?;
        Some(Lease {
            acquired_at: instant(text(lease, "acquired_at", "")),
            expires_at: instant(text(lease, "expires_at", "")),
            lease_id: text(lease, "lease_id", "").to_string(),
            owner: text(lease, "owner", "").to_string(),
            renewed_at: lease.get("renewed_at").and_then(Value::as_str).map(instant),
            state: state.map(str::to_string),
        })
    }
}

/// The lease of a stored object in camelCase: `{acquiredAt, expiresAt,
/// leaseId, owner, renewedAt}` (`renewedAt` null when never renewed), plus
/// `state` when given; `null` without a lease.
pub fn lease_json(m: &Map<String, Value>, state: Option<&str>) -> Value {
    crate::host::payload_json(&Lease::of(m, state))
}

/// (B) premath's lease summary of an issue: `issue claim`, `claim-next`.
#[derive(Serialize, JsonSchema)]
pub struct LeaseSummary<'m> {
    #[serde(flatten)]
    pub basic: Basic<'m>,
    /// `null` when there is none.
    pub lease: Option<Lease>,
}

impl<'m> LeaseSummary<'m> {
    /// (B) of a stored object.
    pub fn of(m: &'m Map<String, Value>) -> Self {
        LeaseSummary {
            basic: Basic::of(m),
            lease: Lease::of(m, None),
        }
    }
}

/// (B) [`basic`] plus `lease` (`null` when there is none).
pub fn lease_summary(m: &Map<String, Value>) -> Value {
    crate::host::payload_json(&LeaseSummary::of(m))
}

/// (D) `tusk issue show --json`: [`lease_summary`] plus every other member of
/// the stored line under its camelCase name (`acceptance_criteria` →
/// `acceptanceCriteria`, `created_at` → `createdAt`, members tusk does not
/// know too), and the members of each of its `dependencies` and `comments`
/// likewise (`depends_on_id` → `dependsOnId`); other values as stored.
pub fn detail(m: &Map<String, Value>) -> Value {
    let mut out = lease_summary(m);
    let Value::Object(projected) = &mut out else {
        unreachable!("lease_summary is an object")
    };
    for (key, value) in m {
        let name = camel(key);
        // (B)'s members, the lease among them, are projected already.
        if projected.contains_key(&name) {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("dependencies" | "comments", Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .map(|item| match item {
                        Value::Object(o) => {
                            Value::Object(o.iter().map(|(k, v)| (camel(k), v.clone())).collect())
                        }
                        other => other.clone(),
                    })
                    .collect(),
            ),
            _ => value.clone(),
        };
        projected.insert(name, value);
    }
    out
}

/// A snake_case member name in camelCase (`issue_type` → `issueType`); a
/// leading underscore is kept.
fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// premath's transport `IssueSummary` (C): [`basic`] plus `lease {acquiredAt,
/// expiresAt, leaseId, owner, renewedAt (left out when never renewed), state}`,
/// `lease` left out without one.
pub fn transport_summary(m: &Map<String, Value>, now: DateTime<Utc>) -> Value {
    let mut out = basic(m);
    let state = m
        .get("lease")
        .and_then(Value::as_object)
        .and_then(|l| l.get("expires_at"))
        .and_then(Value::as_str)
        .and_then(parse_time)
        .map(|expires| if now < expires { "active" } else { "stale" });
    if let Value::Object(mut lease) = lease_json(m, Some(state.unwrap_or("stale"))) {
        if lease.get("renewedAt") == Some(&Value::Null) {
            lease.remove("renewedAt");
        }
        out["lease"] = Value::Object(lease);
    }
    out
}

/// An active lease is contended when the issue is not `in_progress` or its
/// assignee is not the lease's owner.
pub fn contended(issue: &Issue<'_>, now: DateTime<Utc>) -> bool {
    issue.lease_state(now) == LeaseState::Active
        && (issue.status.as_str() != "in_progress"
            || issue.assignee.as_ref().map_or("", |a| a.as_str())
                != issue.lease.as_ref().map_or("", |l| l.owner.as_str()))
}

/// One leased issue of the lease projection.
#[derive(Serialize, JsonSchema)]
pub struct LeasedIssue<'s> {
    pub assignee: String,
    pub contended: bool,
    pub id: &'s str,
    /// The lease with its `state`.
    #[schemars(with = "Lease")]
    pub lease: Option<Lease>,
    pub status: &'s str,
}

/// The stale and contended leases over the issues considered.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaseCheck<'s> {
    pub checked_at: String,
    pub contended_count: usize,
    pub contended_issue_ids: Vec<&'s str>,
    pub stale_count: usize,
    pub stale_issue_ids: Vec<&'s str>,
}

/// The lease projection: one item per leased issue, in id order, and the
/// stale and contended leases.
#[derive(Serialize, JsonSchema)]
pub struct LeaseProjection<'s> {
    pub count: usize,
    pub items: Vec<LeasedIssue<'s>>,
    pub projection: LeaseCheck<'s>,
}

/// `issue.lease_projection` (premath's MCP tool `issue_lease_projection`):
/// `projection {checkedAt, contendedCount, contendedIssueIds, staleCount,
/// staleIssueIds}` over every issue, and one item `{assignee, contended, id,
/// lease {…, state}, status}` per leased issue, in id order.
/// `filter` narrows the issues considered (items and counts alike).
pub fn lease_projection(
    store: &Store<'_>,
    filter: &super::filter::IssueFilter,
    now: DateTime<Utc>,
) -> Map<String, Value> {
    super::payload::members(&lease_projection_of(store, filter, now))
}

fn lease_projection_of<'s>(
    store: &'s Store<'_>,
    filter: &super::filter::IssueFilter,
    now: DateTime<Utc>,
) -> LeaseProjection<'s> {
    let mut issues: Vec<&Issue<'_>> = store.issues().filter(|i| filter.passes(store, i)).collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    let mut stale = Vec::new();
    let mut contended_ids = Vec::new();
    let mut items = Vec::new();
    for issue in issues {
        let state = issue.lease_state(now);
        match state {
            LeaseState::Stale => stale.push(issue.id.as_str()),
            LeaseState::Active if contended(issue, now) => contended_ids.push(issue.id.as_str()),
            _ => {}
        }
        if state == LeaseState::Unleased {
            continue;
        }
        let Value::Object(m) = full_object(store, issue) else {
            continue;
        };
        items.push(LeasedIssue {
            assignee: text(&m, "assignee", "").to_string(),
            contended: contended(issue, now),
            id: issue.id.as_str(),
            lease: Lease::of(&m, Some(state.as_str())),
            status: issue.status.as_str(),
        });
    }
    LeaseProjection {
        count: items.len(),
        items,
        projection: LeaseCheck {
            checked_at: now.to_rfc3339(),
            contended_count: contended_ids.len(),
            contended_issue_ids: contended_ids,
            stale_count: stale.len(),
            stale_issue_ids: stale,
        },
    }
}

/// What `queryBackend` / `querySource` say for a store: `jsonl` for the file,
/// `postgres` for a database.
pub fn backend_name(store: &super::store::IssueStore) -> &'static str {
    match store {
        super::store::IssueStore::Jsonl(_) => "jsonl",
        super::store::IssueStore::Postgres(_) => "postgres",
        super::store::IssueStore::Staged(overlay) => backend_name(overlay.base()),
    }
}

/// The `issue.lease_projection` payload: [`LeaseProjection`] plus `action`,
/// `issuesPath`, `queryBackend` and `querySource` (premath's MCP members).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaseProjectionPayload<'s> {
    #[serde(flatten)]
    pub projection: LeaseProjection<'s>,
    pub action: &'static str,
    pub issues_path: &'s str,
    /// `jsonl` or `postgres`.
    pub query_backend: &'s str,
    pub query_source: &'s str,
}

/// The `issue.lease_projection` report.
pub fn lease_projection_payload(
    store: &Store<'_>,
    path: &str,
    backend: &str,
    filter: &super::filter::IssueFilter,
    now: DateTime<Utc>,
) -> super::Report {
    super::Report::view_of(&LeaseProjectionPayload {
        projection: lease_projection_of(store, filter, now),
        action: "issue.lease_projection",
        issues_path: path,
        query_backend: backend,
        query_source: backend,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn basic_fills_the_line_format_defaults() {
        assert_eq!(
            basic(&obj(json!({"id": "bd-1", "title": "T"}))),
            json!({"assignee": "", "id": "bd-1", "issueType": "task", "owner": "",
                   "priority": 2, "status": "open", "title": "T"})
        );
        assert_eq!(
            basic(&obj(
                json!({"id": "a", "title": "T", "assignee": "w", "owner": "o",
                              "issue_type": "epic", "priority": 0, "status": "closed",
                              "description": "not shown"})
            )),
            json!({"assignee": "w", "id": "a", "issueType": "epic", "owner": "o",
                   "priority": 0, "status": "closed", "title": "T"})
        );
    }

    #[test]
    fn lease_summary_renders_premath_instants() {
        let m = obj(json!({"id": "a", "title": "T", "lease": {
            "lease_id": "L", "owner": "w", "acquired_at": "2026-03-01T12:00:00Z",
            "expires_at": "2026-03-01T13:00:00.5Z"}}));
        assert_eq!(
            lease_summary(&m)["lease"],
            json!({"acquiredAt": "2026-03-01T12:00:00+00:00",
                   "expiresAt": "2026-03-01T13:00:00.500+00:00",
                   "leaseId": "L", "owner": "w", "renewedAt": null})
        );
        assert_eq!(
            lease_summary(&obj(json!({"id": "a", "title": "T"})))["lease"],
            Value::Null
        );
        assert_eq!(instant("soon"), "soon");
    }

    #[test]
    fn detail_is_the_lease_summary_and_every_stored_member_in_camel_case() {
        let m = obj(json!({
            "id": "a", "title": "T", "issue_type": "bug", "acceptance_criteria": "done",
            "created_at": "2026-03-01T12:00:00Z", "x_custom": {"keep_me": 1},
            "lease": {"lease_id": "L", "owner": "w", "acquired_at": "2026-03-01T12:00:00Z",
                      "expires_at": "2026-03-01T13:00:00Z"},
            "dependencies": [{"issue_id": "a", "depends_on_id": "b", "type": "blocks",
                              "created_by": "p"}],
            "comments": [{"id": 1, "issue_id": "a", "author": "w", "text": "hi",
                          "created_at": "2026-03-01T12:30:00Z"}],
        }));
        let mut expected = lease_summary(&m);
        for (k, v) in [
            ("acceptanceCriteria", json!("done")),
            ("createdAt", json!("2026-03-01T12:00:00Z")),
            ("xCustom", json!({"keep_me": 1})),
            (
                "dependencies",
                json!([{"issueId": "a", "dependsOnId": "b", "type": "blocks", "createdBy": "p"}]),
            ),
            (
                "comments",
                json!([{"id": 1, "issueId": "a", "author": "w", "text": "hi",
                        "createdAt": "2026-03-01T12:30:00Z"}]),
            ),
        ] {
            expected[k] = v;
        }
        assert_eq!(detail(&m), expected);
        assert_eq!(detail(&m)["issueType"], "bug");
        assert_eq!(detail(&m)["lease"]["leaseId"], "L");
        assert_eq!(camel("_private_x"), "_privateX");
        assert_eq!(camel("plain"), "plain");
    }
}
