//! What the issue and dep actions' payloads share. Each action's payload is a
//! type deriving `Serialize` (field order is key order, as premath prints it)
//! and `JsonSchema` (its declaration's schema, see
//! [`crate::host::payload_schema`]); the builders next to the views and
//! mutations fill it in, and [`members`] makes it a report's payload.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The members of a payload, in its field order.
pub fn members<T: Serialize>(payload: &T) -> Map<String, Value> {
    match crate::host::payload_json(payload) {
        Value::Object(m) => m,
        _ => unreachable!("a payload type serializes to an object"),
    }
}

/// An accepted store action's payload before its verdict: `action`,
/// `issuesPath`, then the members of `T` (see `Report::accepted`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Accepted<'a, T> {
    pub action: &'a str,
    pub issues_path: &'a str,
    #[serde(flatten)]
    pub body: T,
}

/// An issue id and the issue's stored line after the change (`issue.close`,
/// `issue.reopen`).
#[derive(Serialize, JsonSchema)]
pub struct Changed<'a> {
    pub id: &'a str,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// A payload with its verdict: the members of `T`, then `result` and
/// `failureClasses` (the views and mutations that judge).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verdict<'c, T> {
    #[serde(flatten)]
    pub payload: T,
    /// `accepted` or `rejected`.
    pub result: &'static str,
    /// Sorted, once each; empty when accepted.
    pub failure_classes: &'c [String],
}

/// The stored issue line as stored (snake_case beads fields; members tusk
/// does not know are kept). Payloads carry the line's own JSON object (a
/// `Map` marked `#[schemars(with = "StoredIssue")]`); this type is its
/// schema: the members every line has, and the types of the common ones.
/// Payload shapes name it `Issue` ([`crate::host::shape`]), spelled out once.
#[derive(JsonSchema)]
#[schemars(extend("x-shape" = "Issue"))]
pub struct StoredIssue {
    pub id: String,
    pub title: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub description: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub design: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub acceptance_criteria: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub notes: String,
    pub status: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub priority: i64,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub issue_type: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub assignee: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub owner: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub labels: Vec<String>,
    /// Its edges as stored: `{issue_id, depends_on_id, type, created_at,
    /// created_by}`, the issue naming what it depends on.
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub dependencies: Vec<Value>,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub created_at: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub updated_at: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub closed_at: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub close_reason: String,
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub comments: Vec<Value>,
    /// The stored lease (snake_case), when there is one.
    #[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]
    pub lease: Value,
}

/// Marks a member of a schema-only or hand-serialized type as one that is
/// sometimes left out (`#[schemars(skip_serializing_if = "crate::issues::payload::sometimes")]`):
/// not required in the schema. schemars reads the mark; nothing calls it.
pub fn sometimes<T: ?Sized>(_: &T) -> bool {
    false
}
