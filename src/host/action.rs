//! The contract between the registry and one host action.
//!
//! An action is a typed function from a validated argument object to an
//! [`ActionOutcome`]. It never sees a path chosen by the program: paths come from
//! [`HostPaths`], i.e. from the host's configuration.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// Whether an action reads or mutates; mutations pass the authority gate first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    Read,
    Mutation,
}

/// The files behind the host functions, fixed by the host's configuration.
#[derive(Clone, Debug)]
pub struct HostPaths {
    /// The issue memory: the JSONL file, or a PostgreSQL store.
    pub issues: crate::issues::store::IssueStore,
    /// The trajectory: its file, or the shared store's table.
    pub trajectory: crate::logs::LogStore,
    /// The effect log: its file, or the shared store's table.
    pub effects: crate::logs::LogStore,
    pub session: PathBuf,
    pub feature_ledger: PathBuf,
    pub policy: PathBuf,
    /// The step retry policy (`ci.harness.retry.policy.v1`).
    pub retry_policy: PathBuf,
}

impl HostPaths {
    /// The defaults under `<root>/.premath/`.
    pub fn under(root: &std::path::Path) -> Self {
        let p = root.join(".premath");
        Self {
            issues: crate::issues::store::IssueStore::Jsonl(p.join("issues.jsonl")),
            trajectory: crate::logs::LogStore::File(p.join("harness_trajectory.jsonl")),
            effects: crate::logs::LogStore::File(p.join("host_effects.jsonl")),
            session: p.join("harness_session.json"),
            feature_ledger: p.join("harness_feature_ledger.json"),
            policy: p.join("mutation_policy.json"),
            retry_policy: p.join("harness_retry_policy.json"),
        }
    }
}

/// What an action sees besides its arguments.
pub struct ActionContext<'a> {
    pub paths: &'a HostPaths,
    pub now: DateTime<Utc>,
    /// The request's `issueId`, if any.
    pub issue_id: Option<&'a str>,
    /// The run making the call, if any (lineage refs name it).
    pub run_id: Option<&'a str>,
    /// Who makes the call (the run's principal), if known.
    pub principal: Option<&'a str>,
    /// The policy's approval rules (issue 59): who must go through an
    /// approved plan, and who approves.
    pub approval: Option<&'a super::approval::Approval>,
    /// The policy's `allowedActions`: what a plan's application may make.
    pub allowed: Option<&'a std::collections::BTreeSet<String>>,
}

/// The typed result of one action call. Accepted iff `failure_classes` is empty.
#[derive(Clone, Debug, Default)]
pub struct ActionOutcome {
    pub failure_classes: Vec<String>,
    pub payload: Value,
    /// Extra witness refs the action emits (the registry adds the host-effect ref).
    pub witness_refs: Vec<String>,
}

impl ActionOutcome {
    pub fn accepted(payload: Value) -> Self {
        Self {
            failure_classes: Vec::new(),
            payload,
            witness_refs: Vec::new(),
        }
    }
    /// A rejection with a one-line diagnostic. The registry turns the payload into
    /// the spec's rejected shape `{schema: 1, result: "rejected", failureClasses,
    /// diagnostic}`, keeping any other members the action put in `payload`.
    pub fn rejected(failure_classes: Vec<String>, diagnostic: impl Into<String>) -> Self {
        let mut payload = Map::new();
        payload.insert("diagnostic".into(), Value::String(diagnostic.into()));
        Self {
            failure_classes,
            payload: Value::Object(payload),
            witness_refs: Vec::new(),
        }
    }
    pub fn is_accepted(&self) -> bool {
        self.failure_classes.is_empty()
    }
}

/// A failure inside an action (I/O error, corrupt store): becomes a
/// `scheme_eval.host_action_execution_error` envelope; the program goes on.
#[derive(Debug, thiserror::Error)]
#[error("{class}: {message}")]
pub struct ActionError {
    /// A more specific class reported next to the execution-error class
    /// (e.g. `memory.store_corrupt`), if any.
    pub class: String,
    pub message: String,
}

impl ActionError {
    pub fn new(class: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            class: class.into(),
            message: message.into(),
        }
    }
}

/// A host function: its declaration ([`ActionSpec`]) and the call itself.
/// Build one with [`declare`](super::declare::declare).
pub trait HostAction: Send + Sync {
    fn spec(&self) -> &super::declare::ActionSpec;
    /// Runs the action on arguments that passed its schema (keys and types
    /// checked; absent optionals dropped).
    fn call(&self, ctx: &ActionContext<'_>, args: Value) -> Result<ActionOutcome, ActionError>;
    fn id(&self) -> &str {
        &self.spec().id
    }
    fn kind(&self) -> ActionKind {
        self.spec().kind
    }
    /// The argument object's JSON Schema (what registration checks).
    fn args_schema(&self) -> &Value {
        &self.spec().args
    }
    /// The id the mutation gate admits a call of this action as (the
    /// policy's `allowedActions`, the capability claims): its own, unless
    /// it is another front end's shape of a tusk mutation (premath's MCP
    /// tools), which the policy governs as that mutation.
    fn governed_as(&self) -> &str {
        self.id()
    }
}
