//! premath's `transport-dispatch` for its issue lease profile
//! (`transport.issue_lease.v1`): one lease action (`issue.claim`,
//! `issue.claim_next`, `issue.lease_renew`, `issue.lease_release`) named by a
//! string with a camelCase JSON payload, answered with premath's lease
//! envelope. Accepted or rejected, the answer is an envelope; the CLI exits 0
//! for both, which premath's worker loop relies on.
//!
//! The actions are tusk's own lease mutations ([`super::lease`]), so their rules
//! and failure classes are the same as `issue claim` and friends.

use super::lease::{self, LeaseRequest, LeaseTerm};
use super::mutate::MutationCtx;
use super::projection;
use super::store::{IssueStore, LockOptions, StoreError};
use super::views::full_object;
use super::Report;
use crate::canonical::sha256_hex;
use crate::issues::IssueClass;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The dispatch kind every answer carries.
pub const DISPATCH_KIND: &str = "premath.transport_dispatch.v1";
/// The profile every answer carries.
pub const PROFILE_ID: &str = "transport.issue_lease.v1";
/// The class of an action this transport does not serve.
pub const UNKNOWN_ACTION: &str = IssueClass::TransportUnknownAction.as_str();
/// The class of a payload that does not fit its action.
pub const INVALID_PAYLOAD: &str = IssueClass::LeaseInvalidPayload.as_str();
/// The class of a store that could not be read or written.
pub const STORE_IO: &str = IssueClass::LeaseMutationStoreIo.as_str();

/// A lease action of the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseAction {
    Claim,
    ClaimNext,
    Renew,
    Release,
}

impl LeaseAction {
    /// Every action, in premath's registry order.
    pub const ALL: [LeaseAction; 4] = [Self::Claim, Self::ClaimNext, Self::Renew, Self::Release];

    /// The action named `action` (as given, trimmed).
    pub fn from_action(action: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.action() == action)
    }

    /// The action's name, which is also its host action id.
    pub fn action(self) -> &'static str {
        match self {
            Self::Claim => "issue.claim",
            Self::ClaimNext => "issue.claim_next",
            Self::Renew => "issue.lease_renew",
            Self::Release => "issue.lease_release",
        }
    }

    /// premath's `actionId`.
    pub fn action_id(self) -> &'static str {
        match self {
            Self::Claim => "transport.action.issue_claim",
            Self::ClaimNext => "transport.action.issue_claim_next",
            Self::Renew => "transport.action.issue_lease_renew",
            Self::Release => "transport.action.issue_lease_release",
        }
    }

    fn operation_id(self) -> &'static str {
        match self {
            Self::Claim => "op/mcp.issue_claim",
            Self::ClaimNext => "op/transport.issue_claim_next",
            Self::Renew => "op/mcp.issue_lease_renew",
            Self::Release => "op/mcp.issue_lease_release",
        }
    }

    fn payload_name(self) -> &'static str {
        match self {
            Self::Claim => "claim",
            Self::ClaimNext => "claim-next",
            Self::Renew => "renew",
            Self::Release => "release",
        }
    }
}

/// `ts1_` + hex SHA-256 of profile, dispatch kind, action and action id, each
/// followed by a NUL byte (premath's `transport_dispatch_digest`).
pub fn semantic_digest(action: &str, action_id: &str) -> String {
    let mut material = Vec::new();
    for part in [PROFILE_ID, DISPATCH_KIND, action, action_id] {
        material.extend_from_slice(part.as_bytes());
        material.push(0);
    }
    format!("ts1_{}", sha256_hex(&material))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    assignee: Option<String>,
    #[serde(default)]
    lease_id: Option<String>,
    #[serde(default)]
    lease_ttl_seconds: Option<i64>,
    #[serde(default)]
    lease_expires_at: Option<String>,
    #[serde(default)]
    issues_path: Option<String>,
}

/// The members every answer starts with.
fn head(action: &str, action_id: &str, result: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("schema".into(), json!(1));
    m.insert("dispatchKind".into(), json!(DISPATCH_KIND));
    m.insert("profileId".into(), json!(PROFILE_ID));
    m.insert("action".into(), json!(action));
    m.insert("actionId".into(), json!(action_id));
    m.insert(
        "semanticDigest".into(),
        json!(semantic_digest(action, action_id)),
    );
    m.insert("result".into(), json!(result));
    m
}

/// A rejection made before the action runs (unknown action, bad payload).
fn refused(action: &str, action_id: &str, class: &str, diagnostic: String) -> Value {
    let mut m = head(action, action_id, "rejected");
    m.insert("failureClasses".into(), json!([class]));
    m.insert("diagnostic".into(), json!(diagnostic));
    Value::Object(m)
}

fn envelope(kind: LeaseAction, issues_path: &str, result: &str) -> Map<String, Value> {
    let mut m = head(kind.action(), kind.action_id(), result);
    m.insert("issuesPath".into(), json!(issues_path));
    m.insert(
        "worldBinding".into(),
        json!({
            "operationId": kind.operation_id(),
            "routeFamilyId": "route.issue_claim_lease",
            "worldId": "world.lease.v1",
            "morphismRowId": "wm.control.lease.mutation",
        }),
    );
    m
}

fn rejected(kind: LeaseAction, issues_path: &str, classes: &[String], diagnostic: &str) -> Value {
    let mut m = envelope(kind, issues_path, "rejected");
    m.insert("failureClasses".into(), json!(classes));
    m.insert("diagnostic".into(), json!(diagnostic));
    Value::Object(m)
}

fn field(v: &Option<String>, name: &str, kind: LeaseAction) -> Result<String, String> {
    v.clone().ok_or_else(|| {
        format!(
            "invalid {} payload: missing field `{name}`",
            kind.payload_name()
        )
    })
}

/// Runs one dispatch. `open` names the store for the payload's `issuesPath`
/// (`None`: the default store).
pub fn dispatch(
    action: &str,
    payload: &Value,
    open: impl Fn(Option<&str>) -> Result<IssueStore, String>,
    lock: LockOptions,
    now: DateTime<Utc>,
) -> Value {
    let Some(kind) = LeaseAction::from_action(action) else {
        return refused(
            action,
            "transport.action.unknown",
            UNKNOWN_ACTION,
            format!("unsupported transport action: {action}"),
        );
    };
    let (p, id, req) = match lease_request_of(kind, payload) {
        Ok(parsed) => parsed,
        Err(refusal) => return refusal,
    };
    let path = p
        .issues_path
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let store = match open(path) {
        Ok(s) => s,
        Err(e) => {
            let shown = path.unwrap_or(super::store::DEFAULT_ISSUES_PATH);
            return rejected(kind, shown, &[STORE_IO.to_string()], &e);
        }
    };
    let issues_path = store.path().display().to_string();
    let ctx = MutationCtx::new(&store, lock, now);
    let id = id.unwrap_or_default();
    let outcome: Result<Report, StoreError> = match kind {
        LeaseAction::Claim => lease::claim(&ctx, &id, &req, lease::Blockers::Warn),
        LeaseAction::ClaimNext => lease::claim_next(&ctx, &req, &Default::default()),
        LeaseAction::Renew => lease::renew(&ctx, &id, &req),
        LeaseAction::Release => lease::release(&ctx, &id, &req),
    };
    let report = match outcome {
        Ok(r) => r,
        Err(e) => {
            let class = match e {
                StoreError::LockBusy { .. } => e.class().to_string(),
                _ => STORE_IO.to_string(),
            };
            return rejected(kind, &issues_path, &[class], &e.to_string());
        }
    };
    if !report.is_accepted() {
        let diagnostic = report.diagnostic().unwrap_or("rejected").to_string();
        let classes = lease::premath_classes(&report.failure_classes);
        return rejected(kind, &issues_path, &classes, &diagnostic);
    }
    let target = match kind {
        LeaseAction::ClaimNext => report
            .payload
            .get("issue")
            .and_then(|i| i.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => Some(id),
    };
    accepted(kind, &store, &issues_path, target.as_deref(), now)
}

/// The payload's members for `kind`: the payload, the issue id (none for
/// claim-next) and the lease request; or the refusal of a payload that lacks
/// one.
fn lease_request_of(
    kind: LeaseAction,
    payload: &Value,
) -> Result<(Payload, Option<String>, LeaseRequest), Value> {
    let invalid = |e: String| refused(kind.action(), kind.action_id(), INVALID_PAYLOAD, e);
    let p: Payload = serde_json::from_value(payload.clone())
        .map_err(|e| invalid(format!("invalid {} payload: {e}", kind.payload_name())))?;
    let required = |v: &Option<String>, name| field(v, name, kind);
    let (id, assignee, lease_id) = match kind {
        LeaseAction::ClaimNext => (None, required(&p.assignee, "assignee"), p.lease_id.clone()),
        LeaseAction::Claim => (
            Some(required(&p.id, "id")),
            required(&p.assignee, "assignee"),
            p.lease_id.clone(),
        ),
        LeaseAction::Renew => (
            Some(required(&p.id, "id")),
            required(&p.assignee, "assignee"),
            Some(required(&p.lease_id, "leaseId").map_err(invalid)?),
        ),
        LeaseAction::Release => (
            Some(required(&p.id, "id")),
            Ok(p.assignee.clone().unwrap_or_default()),
            p.lease_id.clone(),
        ),
    };
    let id = id.transpose().map_err(invalid)?;
    let assignee = assignee.map_err(invalid)?;
    let req = LeaseRequest {
        assignee,
        lease_id: lease_id.filter(|l| !l.trim().is_empty()),
        term: match kind {
            LeaseAction::Release => LeaseTerm::default(),
            LeaseAction::ClaimNext => LeaseTerm {
                ttl_seconds: p.lease_ttl_seconds,
                expires_at: None,
            },
            _ => LeaseTerm {
                ttl_seconds: p.lease_ttl_seconds,
                expires_at: p.lease_expires_at.clone(),
            },
        },
    };
    Ok((p, id, req))
}

/// The accepted envelope: the issue and the lease projection as the store
/// stands after the action (premath re-reads the store the same way).
fn accepted(
    kind: LeaseAction,
    store: &IssueStore,
    issues_path: &str,
    target: Option<&str>,
    now: DateTime<Utc>,
) -> Value {
    let text = match store.read_text() {
        Ok(t) => t,
        Err(e) => return rejected(kind, issues_path, &[STORE_IO.to_string()], &e.to_string()),
    };
    let parsed = match store.parse(&text) {
        Ok(s) => s,
        Err(e) => return rejected(kind, issues_path, &[STORE_IO.to_string()], &e.to_string()),
    };
    let mut m = envelope(kind, issues_path, "accepted");
    m.insert("failureClasses".into(), json!([]));
    m.insert("changed".into(), json!(target.is_some()));
    if let Some(issue) = target.and_then(|t| parsed.get(t)) {
        if let Value::Object(obj) = full_object(&parsed, issue) {
            m.insert("issue".into(), projection::transport_summary(&obj, now));
        }
    }
    let projected = projection::lease_projection(&parsed, &Default::default(), now);
    m.insert(
        "leaseProjection".into(),
        projected.get("projection").cloned().unwrap_or(Value::Null),
    );
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_digests_are_premaths() {
        let digest = |a: LeaseAction| semantic_digest(a.action(), a.action_id());
        assert_eq!(
            digest(LeaseAction::Claim),
            "ts1_7012515c8279a81947b481e6e7acee0dbdde1662ac880ebadae8b5831f78e862"
        );
        assert_eq!(
            digest(LeaseAction::ClaimNext),
            "ts1_1e0f2e186f996a09ea04959436b6cdc9b40836de657f38c03c9ca27a138044fd"
        );
        assert_eq!(
            digest(LeaseAction::Renew),
            "ts1_600bd17cab2fa723f590da173041757ccea9299516d81db48baa99fb5754e1bf"
        );
        assert_eq!(
            digest(LeaseAction::Release),
            "ts1_68980a02cfd05df500fe9e8d3c03aadaf4b16000e29f0d3dcc1a5e135524f0f2"
        );
    }
}
