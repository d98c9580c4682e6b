//! The `harness.join_check` read action: the join check as a host function.
//!
//! Outcome decision: the envelope follows the verdict, not merely "the call ran".
//! An accepted check is an accepted envelope; a rejected check is a rejected
//! envelope whose failure classes are the verdict's and whose payload is still the
//! full check output, so a program can branch on `resultClass` and inspect the
//! witness either way. An input that cannot be normalized is `host.args_invalid`
//! with the `harness_join_check_invalid: …` line as diagnostic. Both verdicts cite
//! the check as `join://<joinSetDigest>` in the envelope's witness refs.

use super::check;
use super::classes::FAILURE_CLASSES;
use crate::host::HostClass;
use crate::host::{
    declare, payload_schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration,
    HostAction,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The harness-join-check input object: the evidence and the optional
/// profile and constraint objects (see `docs/spec/typestate.md`).
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JoinCheckArgs {
    /// The turn's tool-calling evidence (callSpec, toolUses, toolResults, protocolState, …).
    pub evidence: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governance_profile: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_constraints: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff_constraints: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation_constraints: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decomposition_constraints: Option<Map<String, Value>>,
}

/// `harness.join_check`: args are the harness-join-check input object itself.
pub fn join_check() -> Arc<dyn HostAction> {
    // The typestate classes, then the host's own for an unnormalizable input.
    static CLASSES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let classes = CLASSES.get_or_init(|| {
        let mut c = FAILURE_CLASSES.to_vec();
        c.push(HostClass::ArgsInvalid.as_str());
        c
    });
    declare(
        Declaration {
            id: "harness.join_check",
            kind: ActionKind::Read,
            description: "Check one turn's tool-calling evidence for typestate join closure (the harness-join-check verdict).",
            payload: payload_schema::<super::output::Output<'static>>,
            failure_classes: classes,
            example: r#"(harness.join_check (hash "evidence" (hash "callSpec" (hash "callId" "c1") "protocolState" (hash "stopReason" "end_turn"))))"#,
        },
        run,
    )
}

fn run(_ctx: &ActionContext<'_>, args: JoinCheckArgs) -> Result<ActionOutcome, ActionError> {
    let input = serde_json::to_value(&args).unwrap_or(Value::Null);
    let verdict = match check(&input) {
        Ok(v) => v,
        Err(e) => {
            return Ok(ActionOutcome::rejected(
                vec![HostClass::ArgsInvalid.as_str().into()],
                format!("harness_join_check_invalid: {e}"),
            ))
        }
    };
    Ok(ActionOutcome {
        failure_classes: verdict.failure_classes,
        payload: verdict.output,
        witness_refs: vec![format!("join://{}", verdict.join_set_digest)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostPaths;
    use serde_json::json;

    fn call(args: Value) -> ActionOutcome {
        let paths = HostPaths::under(std::path::Path::new("/nonexistent"));
        let ctx = ActionContext {
            paths: &paths,
            now: chrono::Utc::now(),
            issue_id: None,
            run_id: None,
            principal: None,
            approval: None,
            allowed: None,
        };
        join_check()
            .call(&ctx, args)
            .expect("join check never fails inside")
    }

    fn evidence(stop_reason: &str) -> Value {
        json!({
            "callSpec": {
                "callId": "c", "modelRef": "m", "actionMode": "code", "executionPattern": "serial",
                "normalizerId": "n", "mutationPolicyDigest": "mp", "governancePolicyDigest": "gp",
                "toolRenderProtocolDigest": "rp", "reminderQueuePolicyDigest": "qp",
                "stateViewPolicyDigest": "sp", "decompositionPolicyDigest": "dp"
            },
            "protocolState": {"stopReason": stop_reason}
        })
    }

    #[test]
    fn accepted_verdict_is_accepted_envelope_with_join_ref() {
        let out = call(json!({"evidence": evidence("end_turn")}));
        assert!(out.is_accepted(), "{:?}", out.failure_classes);
        assert_eq!(out.payload["result"], "accepted");
        let digest = out.payload["witness"]["digests"]["joinSetDigest"]
            .as_str()
            .unwrap();
        assert_eq!(out.witness_refs, vec![format!("join://{digest}")]);
    }

    #[test]
    fn rejected_verdict_carries_classes_and_full_output() {
        let out = call(json!({"evidence": evidence("refusal")}));
        assert_eq!(
            out.failure_classes,
            vec!["protocol.stop_reason_unhandled".to_string()]
        );
        assert_eq!(out.payload["result"], "rejected");
        assert!(out.payload["normalized"].is_object());
    }

    #[test]
    fn unnormalizable_input_is_args_invalid() {
        let mut ev = evidence("end_turn");
        ev["callSpec"]["modelRef"] = json!("   ");
        let out = call(json!({"evidence": ev}));
        assert_eq!(out.failure_classes, vec!["host.args_invalid".to_string()]);
        let diag = out.payload["diagnostic"].as_str().unwrap();
        assert!(
            diag.starts_with("harness_join_check_invalid: evidence.callSpec.modelRef"),
            "{diag}"
        );
    }
}
