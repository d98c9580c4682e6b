//! Host functions: the action contract, the registry, envelopes and the
//! fail-closed mutation gate.

pub mod action;
pub mod actor;
pub mod approval;
pub mod declare;
pub mod envelope;
pub mod gate;
pub mod redact;
pub mod registry;
pub mod shape;

pub use action::{ActionContext, ActionError, ActionKind, ActionOutcome, HostAction, HostPaths};
pub use declare::{declare, payload_json, payload_schema, ActionSpec, Declaration};
pub use gate::{Authority, JoinEvidence, MutationPolicy, PolicyFile};
pub use registry::{Registry, RegistryError};

crate::failure::class_enum! {
    /// The host's own failure classes (host-api §4): arguments, the registry's
    /// execution classes, the mutation gate and the request.
    pub enum HostClass {
        ArgsInvalid = "host.args_invalid",
        ExecutionError = "scheme_eval.host_action_execution_error",
        Unallowlisted = "scheme_eval.host_action_unallowlisted",
        Unimplemented = "scheme_eval.host_action_unimplemented",
        UseEvidenceMissing = "mutation.use_evidence_missing",
        PolicyDigestMismatch = "mutation.policy_digest_mismatch",
        ActionNotAllowed = "mutation.action_not_allowed",
        CapabilityClaimMissing = "mutation.capability_claim_missing",
        RequestFieldTooLarge = "request.field_too_large",
        RequestUnknownAction = "request.unknown_action",
        RequestUnusable = "request.unusable",
        ConfigNotFound = "config.file_not_found",
        RecordUnwritable = "record.unwritable",
        PolicyUnusable = "config.policy_unusable",
        /// An actor argument names another principal than the caller's,
        /// and its token does not let it act as that one (`host::actor`).
        ActAsDenied = "authority.act_as_denied",
        /// An atomic run's staged changes were not applied: an issue it
        /// read or wrote moved before its commit (issue 59).
        RunConflict = "run.conflict",
        /// An atomic run's staged changes were not applied: the run did not
        /// end accepted.
        RunAborted = "run.aborted",
        /// An atomic run called a mutation that writes outside the issue
        /// store, which it cannot stage.
        AtomicUnsupported = "run.atomic_unsupported",
        /// An idempotency key sent again with another program.
        IdempotencyConflict = "request.idempotency_conflict",
        /// An idempotency key sent again while its first run runs.
        IdempotencyInProgress = "request.idempotency_in_progress",
    }
}
