//! Issue memory: the beads-compatible work queue (`.premath/issues.jsonl`) that
//! worker agents share, per `docs/spec/issue-memory.md`.
//!
//! Where each rule lives:
//!
//! - line format, defaults, dependency types: [`model`]
//! - parsing, corrupt-line refusal, absent store, lock and atomic replace: [`store`]
//! - ready / blocked / list / show / check / diagnostics / snapshot ref: [`views`]
//! - cycles and reachability over blocking edges: [`graph`]
//! - add / update / close / discover / dep add|remove|replace: [`mutate`]
//! - how a new issue's id is minted (sequential or hash): [`ids`]
//! - the three-way merge of a store (git's merge driver): [`merge`]
//! - the lease machine (claim, claim-next, renew, release) and its failure classes: [`lease`]
//! - host actions of host-api §4: [`actions`]
//! - the actions' payload types (their schemas derive from them): [`payload`]
//!
//! Every view and mutation returns a [`Report`]: the JSON payload the CLI prints
//! with `--json`, which is also the host action's payload.

pub mod actions;
pub mod backend;
mod commit;
pub mod content;
pub mod diff;
pub mod events;
pub(crate) mod fields;
pub mod filter;
pub mod find;
pub mod footprint;
pub mod git;
pub mod graph;
mod graph_views;
pub mod ids;
pub mod journal;
pub mod layout;
pub mod lease;
pub mod merge;
pub mod model;
pub mod mutate;
pub mod overlay;
pub mod payload;
pub mod pg_reads;
pub mod plan;
pub mod plan_store;
pub mod postgres;
pub mod projection;
pub mod readiness;
pub mod serial;
pub mod store;
pub mod tracker;
pub mod transport;
pub mod views;

pub use actions::actions;
pub use store::{IssueStore, LockOptions, StoreError};

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

crate::failure::class_enum! {
    /// The issue memory's failure classes (issue-memory spec): issues, dependency
    /// edges, leases, the store, the graph check and the event log.
    pub enum IssueClass {
        AlreadyClosed = "issue.already_closed",
        ConfigInvalid = "issue.config_invalid",
        DuplicateId = "issue.duplicate_id",
        InvalidComment = "issue.invalid_comment",
        InvalidId = "issue.invalid_id",
        InvalidLabel = "issue.invalid_label",
        InvalidPriority = "issue.invalid_priority",
        InvalidQuery = "issue.invalid_query",
        InvalidStatus = "issue.invalid_status",
        InvalidTitle = "issue.invalid_title",
        InvalidType = "issue.invalid_type",
        /// A claim refused because the issue waits on an open blocker
        /// (`--respect-blockers`).
        NotReady = "issue.not_ready",
        NotClosed = "issue.not_closed",
        NotFound = "issue.not_found",
        ParentNotFound = "issue.parent_not_found",
        UpdateEmpty = "issue.update_empty",
        DepCycle = "dep.cycle",
        DepDuplicate = "dep.duplicate",
        DepInvalidScope = "dep.invalid_scope",
        DepInvalidType = "dep.invalid_type",
        DepInvalidView = "dep.invalid_view",
        DepIssueNotFound = "dep.issue_not_found",
        DepNotFound = "dep.not_found",
        DepSelfLoop = "dep.self_loop",
        DepTargetNotFound = "dep.target_not_found",
        LeaseBindingAmbiguous = "lease_binding_ambiguous",
        LeaseContentionActive = "lease_contention_active",
        LeaseIdMismatch = "lease_id_mismatch",
        LeaseInvalidAssignee = "lease_invalid_assignee",
        LeaseInvalidExpiresAt = "lease_invalid_expires_at",
        LeaseInvalidPayload = "lease_invalid_payload",
        LeaseInvalidTtl = "lease_invalid_ttl",
        LeaseIssueClosed = "lease_issue_closed",
        LeaseMissing = "lease_missing",
        LeaseMutationLockBusy = "lease_mutation_lock_busy",
        LeaseMutationStoreIo = "lease_mutation_store_io",
        LeaseNotFound = "lease_not_found",
        LeaseOwnerMismatch = "lease_owner_mismatch",
        LeaseStale = "lease_stale",
        TransportUnknownAction = "transport_unknown_action",
        MemoryIoError = "memory.io_error",
        MemoryStoreCorrupt = "memory.store_corrupt",
        /// A merge that would delete most of a side's issues, not allowed.
        MergeMassDeletion = "merge.mass_deletion",
        EventIssueIdMismatch = "issue_event.issue_id_mismatch",
        EventParseError = "issue_event.parse_error",
        EventUnresolvedDependency = "issue_event.unresolved_dependency",
        EventUnsupportedSchema = "issue_event.unsupported_schema",
        GraphAcceptanceMissing = "issue_graph.acceptance.missing",
        GraphClosedWithOpenBlockers = "issue_graph.closed_with_open_blockers",
        GraphCycle = "issue_graph.cycle",
        GraphDanglingDependency = "issue_graph.dangling_dependency",
        GraphDuplicateId = "issue_graph.duplicate_id",
        GraphEpicMismatch = "issue_graph.issue_type.epic_mismatch",
        GraphLeaseStale = "issue_graph.lease_stale",
        GraphNotesLarge = "issue_graph.notes.large",
        GraphSelfLoop = "issue_graph.self_loop",
        GraphVerificationCommandMissing = "issue_graph.verification_command.missing",
    }
}

/// The outcome of a view or mutation: failure classes (empty = accepted) and payload.
#[derive(Clone, Debug)]
pub struct Report {
    pub failure_classes: Vec<String>,
    pub payload: Map<String, Value>,
}

impl Report {
    /// A read view without a verdict (ready, blocked, list, show).
    pub(crate) fn view(payload: Map<String, Value>) -> Self {
        Self {
            failure_classes: Vec::new(),
            payload,
        }
    }

    /// A read view from its payload type.
    pub(crate) fn view_of<T: serde::Serialize>(payload: &T) -> Self {
        Self::view(payload::members(payload))
    }

    /// An accepted payload from its payload type (its members, then
    /// `result` and `failureClasses`: see [`payload::Verdict`]).
    pub(crate) fn accepted_of<T: serde::Serialize>(payload: T) -> Self {
        Self::verdict_of(payload, Vec::new())
    }

    /// An accepted store action: `action`, `issuesPath`, the members of
    /// `body`, the verdict ([`payload::Accepted`]).
    pub(crate) fn accepted_body<T: serde::Serialize>(action: &str, path: &str, body: T) -> Self {
        Self::accepted_of(payload::Accepted {
            action,
            issues_path: path,
            body,
        })
    }

    /// A payload type with its verdict, as [`Report::verdict`].
    pub(crate) fn verdict_of<T: serde::Serialize>(payload: T, mut classes: Vec<String>) -> Self {
        classes.sort();
        classes.dedup();
        let payload = payload::members(&payload::Verdict {
            payload,
            result: if classes.is_empty() {
                "accepted"
            } else {
                "rejected"
            },
            failure_classes: &classes,
        });
        Self {
            failure_classes: classes,
            payload,
        }
    }

    /// A payload with a verdict: adds `result` and `failureClasses`.
    pub(crate) fn verdict(mut payload: Map<String, Value>, mut classes: Vec<String>) -> Self {
        classes.sort();
        classes.dedup();
        let result = if classes.is_empty() {
            "accepted"
        } else {
            "rejected"
        };
        payload.insert("result".into(), json!(result));
        payload.insert("failureClasses".into(), json!(classes));
        Self {
            failure_classes: classes,
            payload,
        }
    }

    /// A rejection: nothing was written.
    pub(crate) fn rejected(
        action: &str,
        path: &str,
        classes: &[&str],
        diagnostic: impl Into<String>,
    ) -> Self {
        Self::rejected_with(action, path, classes, diagnostic, Map::new())
    }

    /// A rejection with extra members (the contending holder, the cycle, …).
    pub(crate) fn rejected_with(
        action: &str,
        path: &str,
        classes: &[&str],
        diagnostic: impl Into<String>,
        members: Map<String, Value>,
    ) -> Self {
        let mut payload = Map::new();
        payload.insert("action".into(), json!(action));
        payload.insert("issuesPath".into(), json!(path));
        payload.insert("diagnostic".into(), json!(diagnostic.into()));
        payload.extend(members);
        Self::verdict(payload, classes.iter().map(|c| c.to_string()).collect())
    }

    /// The report for a store that could not be used (corrupt, unreadable, lock busy).
    pub fn from_error(action: &str, path: &str, error: &StoreError) -> Self {
        Self::rejected(action, path, &[error.class()], error.to_string())
    }

    pub fn is_accepted(&self) -> bool {
        self.failure_classes.is_empty()
    }

    pub fn diagnostic(&self) -> Option<&str> {
        self.payload.get("diagnostic").and_then(Value::as_str)
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.payload)
    }
}

/// The snapshot ref of the store at `path` (`iss1_…`, see [`views::snapshot_ref_of`]).
/// An absent store has the ref of the empty memory.
pub fn snapshot_ref(issues: &store::IssueStore) -> Result<String, StoreError> {
    issues.read(views::snapshot_ref_of)
}

/// The lease handoff witness ref of one issue for a stopping worker:
/// `lease://handoff/<issue-id>/<lease-state>/<digest>`, where `lease-state` is
/// `unleased`, `active` or `stale` at `now` and `digest` is the hex SHA-256 of the
/// canonical JSON of the stored lease object (`{}` when there is none).
/// `None` when the issue does not exist.
pub fn handoff_witness_ref(
    issues: &store::IssueStore,
    issue_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, StoreError> {
    issues.read(|store| {
        store
            .get(issue_id)
            .map(|issue| views::handoff_ref_of(store, issue, now))
    })
}
