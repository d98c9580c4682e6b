//! Failure-class evaluation: the spec's table, in one function.
//!
//! | class | fires when |
//! |---|---|
//! | `tool.result_missing` | missingResultCallIds non-empty |
//! | `tool.result_orphan` | orphanResultCallIds non-empty |
//! | `tool.use_missing` | missingUseCallIds non-empty |
//! | `tool.use_without_result` | unknownUseCallIds non-empty |
//! | `tool.join_incomplete` | joinClosed (set level) is false |
//! | `protocol.stop_reason_unhandled` | stopReason ∉ {tool_use, pause_turn, max_tokens, end_turn} |
//! | `protocol.parallel_transport_order_invalid` | protocolConstraints.parallelTransportOrderValid is false |
//! | `coordination.decomposition_policy_violation` | admissible is false, or expectedExecutionPattern ≠ callSpec.executionPattern, or expectedPolicyDigest ≠ callSpec.decompositionPolicyDigest |
//! | `context.injection_point_missing` | projection required and (missingRenderCallIds non-empty or no stateViews) |
//! | `context.queue_policy_violation` | projection required and (no reminderQueue rows or a render/queue/stateView policy check fails) |
//! | `handoff.required_artifact_missing` | required refs non-empty and not ⊆ handoff refs (or no handoff) |
//! | `handoff.target_not_allowed` | allowedTargets non-empty and handoff target ∉ it (or no handoff) |
//! | `handoff.return_path_missing` | requireReturnPath and no handoff returnPathRef (or no handoff) |
//! | `tool.response_truncation_policy_violation` | truncation required and not valid |
//! | `tool.schema_invalid` | an `error` result lacks code, retryable or message |
//! | `governance.claim_id_invalid` | claimId given and ≠ `profile.doctrine_inf_governance.v0` (stops governance checks) |
//! | `governance.policy_package_unpinned` | claimed and (no provenance, not pinned, or packageRef/expectedDigest/boundDigest missing) |
//! | `governance.policy_package_mismatch` | claimed, pinned, complete and expectedDigest ≠ boundDigest |
//!
//! "Projection required" = continuationAllowed, or any toolUse disposition `consumed`.

use super::evidence::{Constraints, Disposition, Evidence, ResultStatus};
use super::state::{ContextState, JoinState};
use std::collections::BTreeSet;

pub const TOOL_RESULT_MISSING: &str = "tool.result_missing";
pub const TOOL_RESULT_ORPHAN: &str = "tool.result_orphan";
pub const TOOL_USE_MISSING: &str = "tool.use_missing";
pub const TOOL_USE_WITHOUT_RESULT: &str = "tool.use_without_result";
pub const TOOL_JOIN_INCOMPLETE: &str = "tool.join_incomplete";
pub const PROTOCOL_STOP_REASON_UNHANDLED: &str = "protocol.stop_reason_unhandled";
pub const PROTOCOL_PARALLEL_TRANSPORT_ORDER_INVALID: &str =
    "protocol.parallel_transport_order_invalid";
pub const COORDINATION_DECOMPOSITION_POLICY_VIOLATION: &str =
    "coordination.decomposition_policy_violation";
pub const CONTEXT_INJECTION_POINT_MISSING: &str = "context.injection_point_missing";
pub const CONTEXT_QUEUE_POLICY_VIOLATION: &str = "context.queue_policy_violation";
pub const HANDOFF_REQUIRED_ARTIFACT_MISSING: &str = "handoff.required_artifact_missing";
pub const HANDOFF_TARGET_NOT_ALLOWED: &str = "handoff.target_not_allowed";
pub const HANDOFF_RETURN_PATH_MISSING: &str = "handoff.return_path_missing";
pub const TOOL_RESPONSE_TRUNCATION_POLICY_VIOLATION: &str =
    "tool.response_truncation_policy_violation";
pub const TOOL_SCHEMA_INVALID: &str = "tool.schema_invalid";
pub const GOVERNANCE_CLAIM_ID_INVALID: &str = "governance.claim_id_invalid";
pub const GOVERNANCE_POLICY_PACKAGE_UNPINNED: &str = "governance.policy_package_unpinned";
pub const GOVERNANCE_POLICY_PACKAGE_MISMATCH: &str = "governance.policy_package_mismatch";

/// Every class this checker can emit, sorted. (`mutation.use_evidence_missing`
/// belongs to the host's mutation gate, not here.)
pub const FAILURE_CLASSES: [&str; 18] = [
    CONTEXT_INJECTION_POINT_MISSING,
    CONTEXT_QUEUE_POLICY_VIOLATION,
    COORDINATION_DECOMPOSITION_POLICY_VIOLATION,
    GOVERNANCE_CLAIM_ID_INVALID,
    GOVERNANCE_POLICY_PACKAGE_MISMATCH,
    GOVERNANCE_POLICY_PACKAGE_UNPINNED,
    HANDOFF_REQUIRED_ARTIFACT_MISSING,
    HANDOFF_RETURN_PATH_MISSING,
    HANDOFF_TARGET_NOT_ALLOWED,
    PROTOCOL_PARALLEL_TRANSPORT_ORDER_INVALID,
    PROTOCOL_STOP_REASON_UNHANDLED,
    TOOL_JOIN_INCOMPLETE,
    TOOL_RESPONSE_TRUNCATION_POLICY_VIOLATION,
    TOOL_RESULT_MISSING,
    TOOL_RESULT_ORPHAN,
    TOOL_SCHEMA_INVALID,
    TOOL_USE_MISSING,
    TOOL_USE_WITHOUT_RESULT,
];

/// Stop reasons the protocol policy admits.
const ADMITTED_STOP_REASONS: [&str; 4] = ["tool_use", "pause_turn", "max_tokens", "end_turn"];

/// The one governance profile this checker knows how to evaluate.
pub const GOVERNANCE_CLAIM_ID: &str = "profile.doctrine_inf_governance.v0";

/// Evaluates the table above; the result is sorted and de-duplicated.
pub fn evaluate(
    ev: &Evidence,
    c: &Constraints,
    join: &JoinState,
    ctx: &ContextState,
) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    let mut fire = |cond: bool, class: &'static str| {
        if cond {
            out.insert(class);
        }
    };

    // Join closure.
    fire(
        !join.missing_result_call_ids.is_empty(),
        TOOL_RESULT_MISSING,
    );
    fire(!join.orphan_result_call_ids.is_empty(), TOOL_RESULT_ORPHAN);
    fire(!join.missing_use_call_ids.is_empty(), TOOL_USE_MISSING);
    fire(
        !join.unknown_use_call_ids.is_empty(),
        TOOL_USE_WITHOUT_RESULT,
    );
    fire(!join.join_closed(), TOOL_JOIN_INCOMPLETE);

    // Protocol.
    fire(
        !ADMITTED_STOP_REASONS.contains(&ev.protocol_state.stop_reason.as_str()),
        PROTOCOL_STOP_REASON_UNHANDLED,
    );
    fire(
        c.parallel_transport_order_valid == Some(false),
        PROTOCOL_PARALLEL_TRANSPORT_ORDER_INVALID,
    );

    // Decomposition.
    let d = &c.decomposition;
    fire(
        d.admissible == Some(false)
            || d.expected_execution_pattern
                .as_ref()
                .is_some_and(|p| *p != ev.call_spec.execution_pattern)
            || d.expected_policy_digest
                .as_ref()
                .is_some_and(|p| *p != ev.call_spec.decomposition_policy_digest),
        COORDINATION_DECOMPOSITION_POLICY_VIOLATION,
    );

    // Context reconstruction.
    let projection_required = ev.protocol_state.continuation_allowed
        || ev
            .tool_use
            .values()
            .any(|u| u.disposition == Disposition::Consumed);
    fire(
        projection_required && (!ctx.missing_render_call_ids.is_empty() || !ctx.state_view_present),
        CONTEXT_INJECTION_POINT_MISSING,
    );
    fire(
        projection_required
            && (!ctx.queue_reduction_present
                || !ctx.render_policy_valid
                || !ctx.queue_policy_valid
                || !ctx.state_view_policy_valid),
        CONTEXT_QUEUE_POLICY_VIOLATION,
    );

    // Handoff.
    let h = &c.handoff;
    let handoff = ev.handoff.as_ref();
    fire(
        !h.required_artifact_refs.is_empty()
            && !handoff.is_some_and(|x| {
                h.required_artifact_refs
                    .is_subset(&x.required_artifact_refs)
            }),
        HANDOFF_REQUIRED_ARTIFACT_MISSING,
    );
    fire(
        !h.allowed_targets.is_empty()
            && !handoff.is_some_and(|x| h.allowed_targets.contains(&x.target)),
        HANDOFF_TARGET_NOT_ALLOWED,
    );
    let return_path = handoff.and_then(|x| x.return_path_ref.as_ref());
    fire(
        h.require_return_path && return_path.is_none(),
        HANDOFF_RETURN_PATH_MISSING,
    );

    // Tool results.
    fire(
        c.truncation.required && !c.truncation.valid,
        TOOL_RESPONSE_TRUNCATION_POLICY_VIOLATION,
    );
    fire(
        ev.tool_results.values().any(|r| {
            r.status == ResultStatus::Error && !r.error.as_ref().is_some_and(|e| e.is_typed())
        }),
        TOOL_SCHEMA_INVALID,
    );

    // Governance (claim-gated).
    if let Some(g) = &c.governance {
        if g.claim_id
            .as_deref()
            .is_some_and(|id| id != GOVERNANCE_CLAIM_ID)
        {
            fire(true, GOVERNANCE_CLAIM_ID_INVALID);
        } else if g.claimed {
            match &g.provenance {
                Some(p) if p.pinned => {
                    match (&p.package_ref, &p.expected_digest, &p.bound_digest) {
                        (Some(_), Some(expected), Some(bound)) => {
                            fire(expected != bound, GOVERNANCE_POLICY_PACKAGE_MISMATCH)
                        }
                        _ => fire(true, GOVERNANCE_POLICY_PACKAGE_UNPINNED),
                    }
                }
                _ => fire(true, GOVERNANCE_POLICY_PACKAGE_UNPINNED),
            }
        }
    }

    out
}
