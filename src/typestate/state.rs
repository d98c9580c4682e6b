//! Derived join and context state (spec "Derived state"): plain set algebra over
//! the keyed row sets of the normalized evidence.

use super::evidence::Evidence;
use std::collections::BTreeSet;

type Ids = BTreeSet<String>;

/// Which tool calls were requested, answered and used, and where the join is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinState {
    pub requested_call_ids: Ids,
    pub result_call_ids: Ids,
    pub used_call_ids: Ids,
    /// requested − results
    pub missing_result_call_ids: Ids,
    /// results − requested
    pub orphan_result_call_ids: Ids,
    /// results − used
    pub missing_use_call_ids: Ids,
    /// used − results
    pub unknown_use_call_ids: Ids,
}

impl JoinState {
    pub fn derive(ev: &Evidence) -> Self {
        let requested: Ids = ev.tool_requests.keys().cloned().collect();
        let results: Ids = ev.tool_results.keys().cloned().collect();
        let used: Ids = ev.tool_use.keys().cloned().collect();
        Self {
            missing_result_call_ids: &requested - &results,
            orphan_result_call_ids: &results - &requested,
            missing_use_call_ids: &results - &used,
            unknown_use_call_ids: &used - &results,
            requested_call_ids: requested,
            result_call_ids: results,
            used_call_ids: used,
        }
    }

    /// The set-level closure: every request answered, every answer requested and used.
    pub fn join_closed(&self) -> bool {
        self.missing_result_call_ids.is_empty()
            && self.orphan_result_call_ids.is_empty()
            && self.missing_use_call_ids.is_empty()
            && self.unknown_use_call_ids.is_empty()
    }
}

/// Whether the context needed to continue the loop was reconstructed under policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextState {
    pub render_call_ids: Ids,
    pub queue_ids: Ids,
    pub state_view_ids: Ids,
    /// results − rendered
    pub missing_render_call_ids: Ids,
    pub queue_reduction_present: bool,
    pub state_view_present: bool,
    pub render_policy_valid: bool,
    pub queue_policy_valid: bool,
    pub state_view_policy_valid: bool,
    pub continuation_context_ready: bool,
}

impl ContextState {
    pub fn derive(ev: &Evidence, join: &JoinState) -> Self {
        let spec = &ev.call_spec;
        let render_call_ids: Ids = ev.tool_render.keys().cloned().collect();
        let queue_ids: Ids = ev.reminder_queue.keys().cloned().collect();
        let state_view_ids: Ids = ev.state_views.keys().cloned().collect();
        let missing_render_call_ids = &join.result_call_ids - &render_call_ids;
        let render_policy_valid = ev
            .tool_render
            .values()
            .all(|r| r.policy_digest == spec.tool_render_protocol_digest);
        let queue_policy_valid = ev
            .reminder_queue
            .values()
            .all(|r| r.policy_digest == spec.reminder_queue_policy_digest);
        let state_view_policy_valid = ev
            .state_views
            .values()
            .all(|r| r.policy_digest == spec.state_view_policy_digest);
        let queue_reduction_present = !queue_ids.is_empty();
        let state_view_present = !state_view_ids.is_empty();
        let continuation_context_ready = !ev.protocol_state.continuation_allowed
            || (queue_reduction_present
                && state_view_present
                && render_policy_valid
                && queue_policy_valid
                && state_view_policy_valid
                && missing_render_call_ids.is_empty());
        Self {
            render_call_ids,
            queue_ids,
            state_view_ids,
            missing_render_call_ids,
            queue_reduction_present,
            state_view_present,
            render_policy_valid,
            queue_policy_valid,
            state_view_policy_valid,
            continuation_context_ready,
        }
    }
}
