//! The typed evidence model and its deterministic normalization (spec
//! "Input" and "Normalization").
//!
//! Parsing *is* normalization: every string is trimmed on the way in, the
//! case-insensitive fields are lower-cased, optional blanks become `None`, and row
//! sets land in `BTreeMap`s keyed by their id. The serialized form of these types
//! is exactly the `normalized` object of the output, so digests over it are stable
//! under row order, key order, padding and case.

use super::input::Obj;
use super::TypestateInputError;
use crate::canonical;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

type Result<T> = std::result::Result<T, TypestateInputError>;

/// The eleven binding fields of seed §3.1, all required.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallSpec {
    pub call_id: String,
    pub model_ref: String,
    pub action_mode: String,
    pub execution_pattern: String,
    pub normalizer_id: String,
    pub mutation_policy_digest: String,
    pub governance_policy_digest: String,
    pub tool_render_protocol_digest: String,
    pub reminder_queue_policy_digest: String,
    pub state_view_policy_digest: String,
    pub decomposition_policy_digest: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequest {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_ref_digest: Option<String>,
}

/// A terminal tool result. Error rows keep the envelope fields as given (after
/// trimming, top-level field first, then `rawError`) so the typed-envelope check
/// can tell "absent" from "defaulted"; the defaults and the message digest only
/// appear in the serialized `error` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    pub tool_call_id: String,
    pub status: ResultStatus,
    pub result_digest: Option<String>,
    /// Error envelope; always `None` on `ok` rows.
    pub error: Option<ErrorEnvelope>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultStatus {
    Ok,
    Error,
}

/// The machine-readable error envelope of an `error` row, each field as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorEnvelope {
    pub code: Option<String>,
    pub retryable: Option<bool>,
    pub message: Option<String>,
}

impl ErrorEnvelope {
    /// Seed §3.2: an error row must carry code, retryable and message.
    pub fn is_typed(&self) -> bool {
        self.code.is_some() && self.retryable.is_some() && self.message.is_some()
    }

    fn has_material(&self) -> bool {
        self.code.is_some() || self.retryable.is_some() || self.message.is_some()
    }
}

impl Serialize for ToolResult {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut row = Map::new();
        row.insert(
            "toolCallId".into(),
            Value::String(self.tool_call_id.clone()),
        );
        row.insert(
            "status".into(),
            Value::String(match self.status {
                ResultStatus::Ok => "ok".into(),
                ResultStatus::Error => "error".into(),
            }),
        );
        if let Some(d) = &self.result_digest {
            row.insert("resultDigest".into(), Value::String(d.clone()));
        }
        if let Some(e) = &self.error {
            let mut env = Map::new();
            env.insert(
                "errorCode".into(),
                Value::String(e.code.clone().unwrap_or_else(|| "unknown_error".into())),
            );
            env.insert(
                "retryable".into(),
                Value::Bool(e.retryable.unwrap_or(false)),
            );
            env.insert(
                "errorMessageDigest".into(),
                Value::String(canonical::sha256_text(e.message.as_deref().unwrap_or(""))),
            );
            row.insert("error".into(), Value::Object(env));
        }
        Value::Object(row).serialize(serializer)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Disposition {
    Consumed,
    Observed,
    Discarded,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUse {
    pub tool_call_id: String,
    pub disposition: Disposition,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_digest: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolState {
    pub stop_reason: String,
    pub continuation_allowed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Handoff {
    pub target: String,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub required_artifact_refs: BTreeSet<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_path_ref: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRender {
    pub tool_call_id: String,
    pub operator_payload_digest: String,
    pub reminder_render_digest: String,
    pub injection_point: String,
    pub policy_digest: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReminderQueueRow {
    pub queue_id: String,
    pub reduced_digest: String,
    pub policy_digest: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateView {
    pub view_id: String,
    pub view_digest: String,
    pub policy_digest: String,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub source_refs: BTreeSet<String>,
}

/// One turn's normalized evidence. Row sets are keyed and therefore sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    pub call_spec: CallSpec,
    pub tool_requests: BTreeMap<String, ToolRequest>,
    pub tool_results: BTreeMap<String, ToolResult>,
    pub tool_use: BTreeMap<String, ToolUse>,
    pub protocol_state: ProtocolState,
    pub handoff: Option<Handoff>,
    pub tool_render: BTreeMap<String, ToolRender>,
    pub reminder_queue: BTreeMap<String, ReminderQueueRow>,
    pub state_views: BTreeMap<String, StateView>,
    pub session_refs: BTreeSet<String>,
    pub trajectory_refs: BTreeSet<String>,
}

/// The optional constraint objects next to the evidence, with the spec's
/// defaults filled in (an absent constraint never fires).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constraints {
    pub governance: Option<GovernanceProfile>,
    pub parallel_transport_order_valid: Option<bool>,
    pub handoff: HandoffConstraints,
    pub truncation: TruncationConstraints,
    pub decomposition: DecompositionConstraints,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GovernanceProfile {
    pub claim_id: Option<String>,
    pub claimed: bool,
    pub provenance: Option<PolicyProvenance>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyProvenance {
    pub pinned: bool,
    pub package_ref: Option<String>,
    pub expected_digest: Option<String>,
    pub bound_digest: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandoffConstraints {
    pub required_artifact_refs: BTreeSet<String>,
    pub allowed_targets: BTreeSet<String>,
    pub require_return_path: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TruncationConstraints {
    pub required: bool,
    /// Absent counts as not valid: a required truncation policy must be affirmed.
    pub valid: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecompositionConstraints {
    pub admissible: Option<bool>,
    pub expected_execution_pattern: Option<String>,
    pub expected_policy_digest: Option<String>,
}

/// Parses and normalizes the whole input object.
pub fn normalize(input: &Value) -> Result<(Evidence, Constraints)> {
    let top = Obj::new(input, "")?;
    let evidence = parse_evidence(&top.req_obj("evidence")?)?;
    let constraints = parse_constraints(&top)?;
    Ok((evidence, constraints))
}

fn parse_evidence(ev: &Obj<'_>) -> Result<Evidence> {
    let call_spec = parse_call_spec(&ev.req_obj("callSpec")?)?;
    let tool_requests = keyed(ev, "toolRequests", "toolCallId", parse_request)?;
    let tool_results = keyed(ev, "toolResults", "toolCallId", parse_result)?;
    let tool_use = keyed(ev, "toolUse", "toolCallId", parse_use)?;

    let ps = ev.req_obj("protocolState")?;
    let protocol_state = ProtocolState {
        stop_reason: ps.req_lower("stopReason")?,
        continuation_allowed: ps.opt_bool("continuationAllowed")?.unwrap_or(false),
    };

    let handoff = ev
        .opt_obj("handoff")?
        .map(|h| -> Result<Handoff> {
            Ok(Handoff {
                target: h.req_str("target")?,
                required_artifact_refs: h.ref_set("requiredArtifactRefs")?,
                return_path_ref: h.opt_str("returnPathRef")?,
            })
        })
        .transpose()?;

    let tool_render = keyed(ev, "toolRender", "toolCallId", parse_render)?;
    let reminder_queue = keyed(ev, "reminderQueue", "queueId", |r| {
        Ok(ReminderQueueRow {
            queue_id: r.req_str("queueId")?,
            reduced_digest: r.req_str("reducedDigest")?,
            policy_digest: r.req_str("policyDigest")?,
        })
    })?;
    let state_views = keyed(ev, "stateViews", "viewId", |r| {
        Ok(StateView {
            view_id: r.req_str("viewId")?,
            view_digest: r.req_str("viewDigest")?,
            policy_digest: r.req_str("policyDigest")?,
            source_refs: r.ref_set("sourceRefs")?,
        })
    })?;

    Ok(Evidence {
        call_spec,
        tool_requests,
        tool_results,
        tool_use,
        protocol_state,
        handoff,
        tool_render,
        reminder_queue,
        state_views,
        session_refs: ev.ref_set("sessionRefs")?,
        trajectory_refs: ev.ref_set("trajectoryRefs")?,
    })
}

fn parse_call_spec(cs: &Obj<'_>) -> Result<CallSpec> {
    Ok(CallSpec {
        call_id: cs.req_str("callId")?,
        model_ref: cs.req_str("modelRef")?,
        action_mode: cs.req_lower("actionMode")?,
        execution_pattern: cs.req_lower("executionPattern")?,
        normalizer_id: cs.req_str("normalizerId")?,
        mutation_policy_digest: cs.req_str("mutationPolicyDigest")?,
        governance_policy_digest: cs.req_str("governancePolicyDigest")?,
        tool_render_protocol_digest: cs.req_str("toolRenderProtocolDigest")?,
        reminder_queue_policy_digest: cs.req_str("reminderQueuePolicyDigest")?,
        state_view_policy_digest: cs.req_str("stateViewPolicyDigest")?,
        decomposition_policy_digest: cs.req_str("decompositionPolicyDigest")?,
    })
}

fn parse_request(r: &Obj<'_>) -> Result<ToolRequest> {
    Ok(ToolRequest {
        tool_call_id: r.req_str("toolCallId")?,
        tool_name: r.req_str("toolName")?,
        schema_digest: r.opt_str("schemaDigest")?,
        caller_id: r.opt_str("callerId")?,
        search_ref_digest: r.opt_str("searchRefDigest")?,
    })
}

fn parse_use(r: &Obj<'_>) -> Result<ToolUse> {
    let disposition = match r.req_lower("disposition")?.as_str() {
        "consumed" => Disposition::Consumed,
        "observed" => Disposition::Observed,
        "discarded" => Disposition::Discarded,
        other => {
            return Err(TypestateInputError::new(
                r.field("disposition"),
                format!("must be one of consumed, observed, discarded (got {other:?})"),
            ))
        }
    };
    Ok(ToolUse {
        tool_call_id: r.req_str("toolCallId")?,
        disposition,
        result_digest: r.opt_str("resultDigest")?,
    })
}

fn parse_render(r: &Obj<'_>) -> Result<ToolRender> {
    Ok(ToolRender {
        tool_call_id: r.req_str("toolCallId")?,
        operator_payload_digest: r.req_str("operatorPayloadDigest")?,
        reminder_render_digest: r.req_str("reminderRenderDigest")?,
        injection_point: r.req_lower("injectionPoint")?,
        policy_digest: r.req_str("policyDigest")?,
    })
}

/// Spec "Tool result status": explicit status wins; otherwise any error material
/// (top level or inside `rawError`) makes the row an error.
fn parse_result(r: &Obj<'_>) -> Result<ToolResult> {
    let tool_call_id = r.req_str("toolCallId")?;
    let raw = r.opt_obj("rawError")?;
    let from_raw_str = |keys: &[&str]| -> Result<Option<String>> {
        if let Some(raw) = &raw {
            for key in keys {
                if let Some(s) = raw.opt_str(key)? {
                    return Ok(Some(s));
                }
            }
        }
        Ok(None)
    };
    let envelope = ErrorEnvelope {
        code: match r.opt_str("errorCode")? {
            Some(c) => Some(c),
            None => from_raw_str(&["errorCode", "code"])?,
        },
        retryable: match r.opt_bool("retryable")? {
            Some(b) => Some(b),
            None => match &raw {
                Some(raw) => raw.opt_bool("retryable")?,
                None => None,
            },
        },
        message: match r.opt_str("errorMessage")? {
            Some(m) => Some(m),
            None => from_raw_str(&["errorMessage", "message"])?,
        },
    };
    let status = match r.opt_lower("status")?.as_deref() {
        Some("ok") => ResultStatus::Ok,
        Some("error") => ResultStatus::Error,
        Some(other) => {
            return Err(TypestateInputError::new(
                r.field("status"),
                format!("must be one of ok, error (got {other:?})"),
            ))
        }
        None if envelope.has_material() => ResultStatus::Error,
        None => ResultStatus::Ok,
    };
    let result_digest = match r.opt_str("resultDigest")? {
        Some(d) => Some(d),
        None => r.opt_any("payload").map(canonical::sha256_digest),
    };
    Ok(ToolResult {
        tool_call_id,
        status,
        result_digest,
        error: (status == ResultStatus::Error).then_some(envelope),
    })
}

/// Reads a row set keyed by `key_field`: exact duplicates (after normalization)
/// collapse, two different rows under one key are an input error.
fn keyed<T: PartialEq>(
    parent: &Obj<'_>,
    list: &str,
    key_field: &str,
    parse: impl Fn(&Obj<'_>) -> Result<T>,
) -> Result<BTreeMap<String, T>> {
    let mut out: BTreeMap<String, T> = BTreeMap::new();
    for row in parent.rows(list)? {
        let key = row.req_str(key_field)?;
        let parsed = parse(&row)?;
        match out.get(&key) {
            Some(existing) if *existing != parsed => {
                return Err(TypestateInputError::new(
                    parent.field(list),
                    format!("conflicting duplicate {key_field} {key:?}"),
                ))
            }
            Some(_) => {}
            None => {
                out.insert(key, parsed);
            }
        }
    }
    Ok(out)
}

fn parse_constraints(top: &Obj<'_>) -> Result<Constraints> {
    let mut c = Constraints::default();
    if let Some(g) = top.opt_obj("governanceProfile")? {
        let provenance = g
            .opt_obj("policyProvenance")?
            .map(|p| -> Result<PolicyProvenance> {
                Ok(PolicyProvenance {
                    pinned: p.req_bool("pinned")?,
                    package_ref: p.opt_str("packageRef")?,
                    expected_digest: p.opt_str("expectedDigest")?,
                    bound_digest: p.opt_str("boundDigest")?,
                })
            })
            .transpose()?;
        c.governance = Some(GovernanceProfile {
            claim_id: g.opt_str("claimId")?,
            claimed: g.req_bool("claimed")?,
            provenance,
        });
    }
    if let Some(p) = top.opt_obj("protocolConstraints")? {
        c.parallel_transport_order_valid = p.opt_bool("parallelTransportOrderValid")?;
    }
    if let Some(h) = top.opt_obj("handoffConstraints")? {
        c.handoff = HandoffConstraints {
            required_artifact_refs: h.ref_set("requiredArtifactRefs")?,
            allowed_targets: h.ref_set("allowedTargets")?,
            require_return_path: h.opt_bool("requireReturnPath")?.unwrap_or(false),
        };
    }
    if let Some(t) = top.opt_obj("truncationConstraints")? {
        c.truncation = TruncationConstraints {
            required: t.opt_bool("required")?.unwrap_or(false),
            valid: t.opt_bool("valid")?.unwrap_or(false),
        };
    }
    if let Some(d) = top.opt_obj("decompositionConstraints")? {
        c.decomposition = DecompositionConstraints {
            admissible: d.opt_bool("admissible")?,
            expected_execution_pattern: d.opt_lower("expectedExecutionPattern")?,
            expected_policy_digest: d.opt_str("expectedPolicyDigest")?,
        };
    }
    Ok(c)
}
