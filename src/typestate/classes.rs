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

crate::failure::class_enum! {
    /// The typestate join check's failure classes, sorted by wire string
    /// (`FAILURE_CLASSES`, and so the declaration, lists them in this order).
    pub enum JoinClass {
        ContextInjectionPointMissing = "context.injection_point_missing",
        ContextQueuePolicyViolation = "context.queue_policy_violation",
        CoordinationDecompositionPolicyViolation = "coordination.decomposition_policy_violation",
        GovernanceClaimIdInvalid = "governance.claim_id_invalid",
        GovernancePolicyPackageMismatch = "governance.policy_package_mismatch",
        GovernancePolicyPackageUnpinned = "governance.policy_package_unpinned",
        HandoffRequiredArtifactMissing = "handoff.required_artifact_missing",
        HandoffReturnPathMissing = "handoff.return_path_missing",
        HandoffTargetNotAllowed = "handoff.target_not_allowed",
        ProtocolParallelTransportOrderInvalid = "protocol.parallel_transport_order_invalid",
        ProtocolStopReasonUnhandled = "protocol.stop_reason_unhandled",
        ToolJoinIncomplete = "tool.join_incomplete",
        ToolResponseTruncationPolicyViolation = "tool.response_truncation_policy_violation",
        ToolResultMissing = "tool.result_missing",
        ToolResultOrphan = "tool.result_orphan",
        ToolSchemaInvalid = "tool.schema_invalid",
        ToolUseMissing = "tool.use_missing",
        ToolUseWithoutResult = "tool.use_without_result",
    }
}

/// Every class this checker can emit, sorted. (`mutation.use_evidence_missing`
/// belongs to the host's mutation gate, not here.)
pub const FAILURE_CLASSES: [&str; 18] = {
    let mut out = [""; 18];
    let mut i = 0;
    while i < 18 {
        out[i] = JoinClass::ALL[i].as_str();
        i += 1;
    }
    out
};

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
    let mut out = Fired::default();
    join_closure(&mut out, join);
    protocol(&mut out, ev, c);
    decomposition(&mut out, ev, c);
    context_reconstruction(&mut out, ev, ctx);
    handoff(&mut out, ev, c);
    tool_results(&mut out, ev, c);
    governance(&mut out, c);
    out.0
}

/// The classes fired so far.
#[derive(Default)]
struct Fired(BTreeSet<&'static str>);

impl Fired {
    fn fire(&mut self, cond: bool, class: JoinClass) {
        if cond {
            self.0.insert(class.as_str());
        }
    }
}

fn join_closure(out: &mut Fired, join: &JoinState) {
    out.fire(
        !join.missing_result_call_ids.is_empty(),
        JoinClass::ToolResultMissing,
    );
    out.fire(
        !join.orphan_result_call_ids.is_empty(),
        JoinClass::ToolResultOrphan,
    );
    out.fire(
        !join.missing_use_call_ids.is_empty(),
        JoinClass::ToolUseMissing,
    );
    out.fire(
        !join.unknown_use_call_ids.is_empty(),
        JoinClass::ToolUseWithoutResult,
    );
    out.fire(!join.join_closed(), JoinClass::ToolJoinIncomplete);
}

fn protocol(out: &mut Fired, ev: &Evidence, c: &Constraints) {
    out.fire(
        !ADMITTED_STOP_REASONS.contains(&ev.protocol_state.stop_reason.as_str()),
        JoinClass::ProtocolStopReasonUnhandled,
    );
    out.fire(
        c.parallel_transport_order_valid == Some(false),
        JoinClass::ProtocolParallelTransportOrderInvalid,
    );
}

fn decomposition(out: &mut Fired, ev: &Evidence, c: &Constraints) {
    let d = &c.decomposition;
    out.fire(
        d.admissible == Some(false)
            || d.expected_execution_pattern
                .as_ref()
                .is_some_and(|p| *p != ev.call_spec.execution_pattern)
            || d.expected_policy_digest
                .as_ref()
                .is_some_and(|p| *p != ev.call_spec.decomposition_policy_digest),
        JoinClass::CoordinationDecompositionPolicyViolation,
    );
}

fn context_reconstruction(out: &mut Fired, ev: &Evidence, ctx: &ContextState) {
    let projection_required = ev.protocol_state.continuation_allowed
        || ev
            .tool_use
            .values()
            .any(|u| u.disposition == Disposition::Consumed);
    out.fire(
        projection_required && (!ctx.missing_render_call_ids.is_empty() || !ctx.state_view_present),
        JoinClass::ContextInjectionPointMissing,
    );
    out.fire(
        projection_required
            && (!ctx.queue_reduction_present
                || !ctx.render_policy_valid
                || !ctx.queue_policy_valid
                || !ctx.state_view_policy_valid),
        JoinClass::ContextQueuePolicyViolation,
    );
}

fn handoff(out: &mut Fired, ev: &Evidence, c: &Constraints) {
    let h = &c.handoff;
    let handoff = ev.handoff.as_ref();
    out.fire(
        !h.required_artifact_refs.is_empty()
            && !handoff.is_some_and(|x| {
                h.required_artifact_refs
                    .is_subset(&x.required_artifact_refs)
            }),
        JoinClass::HandoffRequiredArtifactMissing,
    );
    out.fire(
        !h.allowed_targets.is_empty()
            && !handoff.is_some_and(|x| h.allowed_targets.contains(&x.target)),
        JoinClass::HandoffTargetNotAllowed,
    );
    let return_path = handoff.and_then(|x| x.return_path_ref.as_ref());
    out.fire(
        h.require_return_path && return_path.is_none(),
        JoinClass::HandoffReturnPathMissing,
    );
}

fn tool_results(out: &mut Fired, ev: &Evidence, c: &Constraints) {
    out.fire(
        c.truncation.required && !c.truncation.valid,
        JoinClass::ToolResponseTruncationPolicyViolation,
    );
    out.fire(
        ev.tool_results.values().any(|r| {
            r.status == ResultStatus::Error && !r.error.as_ref().is_some_and(|e| e.is_typed())
        }),
        JoinClass::ToolSchemaInvalid,
    );
}

/// Claim-gated: an unknown claim id stops the package checks.
fn governance(out: &mut Fired, c: &Constraints) {
    let Some(g) = &c.governance else {
        return;
    };
    if g.claim_id
        .as_deref()
        .is_some_and(|id| id != GOVERNANCE_CLAIM_ID)
    {
        out.fire(true, JoinClass::GovernanceClaimIdInvalid);
    } else if g.claimed {
        match &g.provenance {
            Some(p) if p.pinned => match (&p.package_ref, &p.expected_digest, &p.bound_digest) {
                (Some(_), Some(expected), Some(bound)) => out.fire(
                    expected != bound,
                    JoinClass::GovernancePolicyPackageMismatch,
                ),
                _ => out.fire(true, JoinClass::GovernancePolicyPackageUnpinned),
            },
            _ => out.fire(true, JoinClass::GovernancePolicyPackageUnpinned),
        }
    }
}
