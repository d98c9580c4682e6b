//! The digest bundle and the `--json` output object (spec "Output" and "Digests").
//!
//! Member names and the omission rules (empty id lists and absent optionals are left
//! out; `handoffDigest` only with a handoff) follow the reference's `output.json`
//! files. Every digest goes through [`crate::canonical`].

use super::evidence::Evidence;
use super::state::{ContextState, JoinState};
use crate::canonical::sha256_digest;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Normalized-object kind.
pub const NORMALIZED_KIND: &str = "premath.harness.typestate_normalized.v1";
/// Witness kind.
pub const WITNESS_KIND: &str = "premath.harness.join_check.v1";

/// The digests of one check, as in `witness.digests`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digests {
    pub call_spec: String,
    pub request_set: String,
    pub result_set: String,
    pub use_set: String,
    pub tool_render_set: String,
    pub reminder_queue_set: String,
    pub state_view_set: String,
    pub protocol_state: String,
    pub handoff: Option<String>,
    pub join_set: String,
}

fn to_value<T: Serialize>(value: &T) -> Value {
    // Our model types are plain data (strings, bools, sets, maps with string keys);
    // serializing them cannot fail.
    serde_json::to_value(value).expect("typestate model serializes to JSON")
}

/// A row set as the sorted list of its rows (the map is keyed, hence sorted).
fn rows<T: Serialize>(set: &BTreeMap<String, T>) -> Value {
    Value::Array(set.values().map(to_value).collect())
}

fn ids(set: &BTreeSet<String>) -> Value {
    Value::Array(set.iter().cloned().map(Value::String).collect())
}

/// Inserts `key: [ids]` only when the set is non-empty (the reference omits empty lists).
fn put_ids(map: &mut Map<String, Value>, key: &str, set: &BTreeSet<String>) {
    if !set.is_empty() {
        map.insert(key.into(), ids(set));
    }
}

fn put_rows<T: Serialize>(map: &mut Map<String, Value>, key: &str, set: &BTreeMap<String, T>) {
    if !set.is_empty() {
        map.insert(key.into(), rows(set));
    }
}

/// The six context booleans shared by `contextState`, `joinInput` and `mutationInput`.
fn put_context_flags(map: &mut Map<String, Value>, ctx: &ContextState) {
    map.insert(
        "continuationContextReady".into(),
        ctx.continuation_context_ready.into(),
    );
    map.insert("queuePolicyValid".into(), ctx.queue_policy_valid.into());
    map.insert(
        "queueReductionPresent".into(),
        ctx.queue_reduction_present.into(),
    );
    map.insert("renderPolicyValid".into(), ctx.render_policy_valid.into());
    map.insert(
        "stateViewPolicyValid".into(),
        ctx.state_view_policy_valid.into(),
    );
    map.insert("stateViewPresent".into(), ctx.state_view_present.into());
}

/// The join diagnostics (only the non-empty ones), plus the set-level `joinClosed`.
fn put_join_gaps(map: &mut Map<String, Value>, join: &JoinState, ctx: &ContextState) {
    map.insert("joinClosed".into(), join.join_closed().into());
    put_ids(map, "missingResultCallIds", &join.missing_result_call_ids);
    put_ids(map, "orphanResultCallIds", &join.orphan_result_call_ids);
    put_ids(map, "missingUseCallIds", &join.missing_use_call_ids);
    put_ids(map, "unknownUseCallIds", &join.unknown_use_call_ids);
    put_ids(map, "missingRenderCallIds", &ctx.missing_render_call_ids);
}

impl Digests {
    pub fn compute(ev: &Evidence, join: &JoinState, ctx: &ContextState) -> Self {
        let request_set = sha256_digest(&rows(&ev.tool_requests));
        let result_set = sha256_digest(&rows(&ev.tool_results));
        let use_set = sha256_digest(&rows(&ev.tool_use));
        let tool_render_set = sha256_digest(&rows(&ev.tool_render));
        let reminder_queue_set = sha256_digest(&rows(&ev.reminder_queue));
        let state_view_set = sha256_digest(&rows(&ev.state_views));
        let protocol_state = sha256_digest(&to_value(&ev.protocol_state));
        let handoff = ev.handoff.as_ref().map(|h| sha256_digest(&to_value(h)));
        // The join set binds every set digest and the complete derived state; unlike
        // the output, it keeps empty lists and writes a missing handoff as null.
        let join_set = sha256_digest(&json!({
            "requestSetDigest": request_set,
            "resultSetDigest": result_set,
            "useSetDigest": use_set,
            "toolRenderSetDigest": tool_render_set,
            "reminderQueueSetDigest": reminder_queue_set,
            "stateViewSetDigest": state_view_set,
            "protocolStateDigest": protocol_state,
            "handoffDigest": handoff,
            "requestedCallIds": ids(&join.requested_call_ids),
            "resultCallIds": ids(&join.result_call_ids),
            "usedCallIds": ids(&join.used_call_ids),
            "renderCallIds": ids(&ctx.render_call_ids),
            "queueIds": ids(&ctx.queue_ids),
            "stateViewIds": ids(&ctx.state_view_ids),
            "missingResultCallIds": ids(&join.missing_result_call_ids),
            "orphanResultCallIds": ids(&join.orphan_result_call_ids),
            "missingUseCallIds": ids(&join.missing_use_call_ids),
            "unknownUseCallIds": ids(&join.unknown_use_call_ids),
            "missingRenderCallIds": ids(&ctx.missing_render_call_ids),
            "queueReductionPresent": ctx.queue_reduction_present,
            "stateViewPresent": ctx.state_view_present,
            "renderPolicyValid": ctx.render_policy_valid,
            "queuePolicyValid": ctx.queue_policy_valid,
            "stateViewPolicyValid": ctx.state_view_policy_valid,
            "continuationContextReady": ctx.continuation_context_ready,
        }));
        Self {
            call_spec: sha256_digest(&to_value(&ev.call_spec)),
            request_set,
            result_set,
            use_set,
            tool_render_set,
            reminder_queue_set,
            state_view_set,
            protocol_state,
            handoff,
            join_set,
        }
    }

    /// The set digests shared by `digests` and `joinInput` (no callSpec digest).
    fn put_set_digests(&self, map: &mut Map<String, Value>) {
        map.insert("joinSetDigest".into(), self.join_set.clone().into());
        map.insert("requestSetDigest".into(), self.request_set.clone().into());
        map.insert("resultSetDigest".into(), self.result_set.clone().into());
        map.insert("useSetDigest".into(), self.use_set.clone().into());
        map.insert(
            "toolRenderSetDigest".into(),
            self.tool_render_set.clone().into(),
        );
        map.insert(
            "reminderQueueSetDigest".into(),
            self.reminder_queue_set.clone().into(),
        );
        map.insert(
            "stateViewSetDigest".into(),
            self.state_view_set.clone().into(),
        );
        map.insert(
            "protocolStateDigest".into(),
            self.protocol_state.clone().into(),
        );
        if let Some(h) = &self.handoff {
            map.insert("handoffDigest".into(), h.clone().into());
        }
    }

    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("callSpecDigest".into(), self.call_spec.clone().into());
        self.put_set_digests(&mut map);
        Value::Object(map)
    }
}

/// Builds the complete `--json` output object.
pub fn build(
    ev: &Evidence,
    join: &JoinState,
    ctx: &ContextState,
    digests: &Digests,
    failure_classes: &[String],
) -> Value {
    let accepted = failure_classes.is_empty();
    let normalized = normalized(ev, join, ctx, digests);
    let join_input = join_input(ev, join, ctx, digests);
    let mutation_input = mutation_input(ev, join, ctx);
    let output = Output {
        action: "harness-join-check",
        result: if accepted { "accepted" } else { "rejected" },
        failure_classes,
        join_closed: accepted,
        witness: Witness {
            schema: 1,
            witness_kind: WITNESS_KIND,
            digests: digests.to_json(),
            join_input,
            mutation_input,
        },
        normalized,
    };
    crate::host::payload_json(&output)
}

/// The `--json` output of the join check: the payload of `harness.join_check`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output<'a> {
    /// `harness-join-check`.
    pub action: &'static str,
    /// `accepted` or `rejected`.
    pub result: &'static str,
    /// Sorted, once each; empty when accepted.
    pub failure_classes: &'a [String],
    pub join_closed: bool,
    pub witness: Witness,
    /// The normalized evidence (`premath.harness.typestate_normalized.v1`).
    pub normalized: Map<String, Value>,
}

/// The check's witness (`premath.harness.join_check.v1`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Witness {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.join_check.v1`.
    pub witness_kind: &'static str,
    /// The digest bundle (`joinSetDigest`, `callSpecDigest`, …).
    #[schemars(with = "Map<String, Value>")]
    pub digests: Value,
    pub join_input: Map<String, Value>,
    pub mutation_input: Map<String, Value>,
}

/// `normalized.joinState`.
fn join_state(join: &JoinState) -> Map<String, Value> {
    let mut join_state = Map::new();
    join_state.insert("joinClosed".into(), join.join_closed().into());
    put_ids(
        &mut join_state,
        "requestedCallIds",
        &join.requested_call_ids,
    );
    put_ids(&mut join_state, "resultCallIds", &join.result_call_ids);
    put_ids(&mut join_state, "usedCallIds", &join.used_call_ids);
    put_ids(
        &mut join_state,
        "missingResultCallIds",
        &join.missing_result_call_ids,
    );
    put_ids(
        &mut join_state,
        "orphanResultCallIds",
        &join.orphan_result_call_ids,
    );
    put_ids(
        &mut join_state,
        "missingUseCallIds",
        &join.missing_use_call_ids,
    );
    put_ids(
        &mut join_state,
        "unknownUseCallIds",
        &join.unknown_use_call_ids,
    );
    join_state
}

/// `normalized.contextState`.
fn context_state(ctx: &ContextState) -> Map<String, Value> {
    let mut context_state = Map::new();
    put_ids(&mut context_state, "renderCallIds", &ctx.render_call_ids);
    put_ids(&mut context_state, "queueIds", &ctx.queue_ids);
    put_ids(&mut context_state, "stateViewIds", &ctx.state_view_ids);
    put_ids(
        &mut context_state,
        "missingRenderCallIds",
        &ctx.missing_render_call_ids,
    );
    put_context_flags(&mut context_state, ctx);
    context_state
}

/// The normalized object (`premath.harness.typestate_normalized.v1`).
fn normalized(
    ev: &Evidence,
    join: &JoinState,
    ctx: &ContextState,
    digests: &Digests,
) -> Map<String, Value> {
    let mut normalized = Map::new();
    normalized.insert("schema".into(), 1.into());
    normalized.insert("kind".into(), NORMALIZED_KIND.into());
    normalized.insert("callSpec".into(), to_value(&ev.call_spec));
    normalized.insert("protocolState".into(), to_value(&ev.protocol_state));
    if let Some(h) = &ev.handoff {
        normalized.insert("handoff".into(), to_value(h));
    }
    put_rows(&mut normalized, "toolRequests", &ev.tool_requests);
    put_rows(&mut normalized, "toolResults", &ev.tool_results);
    put_rows(&mut normalized, "toolUse", &ev.tool_use);
    put_rows(&mut normalized, "toolRender", &ev.tool_render);
    put_rows(&mut normalized, "reminderQueue", &ev.reminder_queue);
    put_rows(&mut normalized, "stateViews", &ev.state_views);
    put_ids(&mut normalized, "sessionRefs", &ev.session_refs);
    put_ids(&mut normalized, "trajectoryRefs", &ev.trajectory_refs);
    normalized.insert("joinState".into(), Value::Object(join_state(join)));
    normalized.insert("contextState".into(), Value::Object(context_state(ctx)));
    normalized.insert("digests".into(), digests.to_json());
    normalized
}

/// `witness.joinInput`.
fn join_input(
    ev: &Evidence,
    join: &JoinState,
    ctx: &ContextState,
    digests: &Digests,
) -> Map<String, Value> {
    let spec = &ev.call_spec;
    let mut join_input = Map::new();
    digests.put_set_digests(&mut join_input);
    join_input.insert(
        "toolRenderProtocolDigest".into(),
        spec.tool_render_protocol_digest.clone().into(),
    );
    join_input.insert(
        "reminderQueuePolicyDigest".into(),
        spec.reminder_queue_policy_digest.clone().into(),
    );
    join_input.insert(
        "stateViewPolicyDigest".into(),
        spec.state_view_policy_digest.clone().into(),
    );
    join_input.insert(
        "decompositionPolicyDigest".into(),
        spec.decomposition_policy_digest.clone().into(),
    );
    put_join_gaps(&mut join_input, join, ctx);
    put_context_flags(&mut join_input, ctx);
    join_input
}

/// `witness.mutationInput`.
fn mutation_input(ev: &Evidence, join: &JoinState, ctx: &ContextState) -> Map<String, Value> {
    let spec = &ev.call_spec;
    let mut mutation_input = Map::new();
    mutation_input.insert(
        "mutationPolicyDigest".into(),
        spec.mutation_policy_digest.clone().into(),
    );
    mutation_input.insert(
        "governancePolicyDigest".into(),
        spec.governance_policy_digest.clone().into(),
    );
    mutation_input.insert("normalizerId".into(), spec.normalizer_id.clone().into());
    mutation_input.insert(
        "continuationAllowed".into(),
        ev.protocol_state.continuation_allowed.into(),
    );
    put_join_gaps(&mut mutation_input, join, ctx);
    put_context_flags(&mut mutation_input, ctx);
    put_ids(&mut mutation_input, "sessionRefs", &ev.session_refs);
    put_ids(&mut mutation_input, "trajectoryRefs", &ev.trajectory_refs);
    mutation_input
}
