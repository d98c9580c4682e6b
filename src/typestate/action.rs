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
use crate::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, HostAction,
};
use serde_json::{Map, Value};

/// `harness.join_check`: args are the harness-join-check input object itself.
pub struct JoinCheckAction;

const ARGS: [ArgSpec; 6] = [
    ArgSpec::required("evidence", ArgType::Object),
    ArgSpec::optional("governanceProfile", ArgType::Object),
    ArgSpec::optional("protocolConstraints", ArgType::Object),
    ArgSpec::optional("handoffConstraints", ArgType::Object),
    ArgSpec::optional("truncationConstraints", ArgType::Object),
    ArgSpec::optional("decompositionConstraints", ArgType::Object),
];

impl HostAction for JoinCheckAction {
    fn id(&self) -> &str {
        "harness.join_check"
    }

    fn kind(&self) -> ActionKind {
        ActionKind::Read
    }

    fn args(&self) -> &[ArgSpec] {
        &ARGS
    }

    fn call(
        &self,
        _ctx: &ActionContext<'_>,
        args: &Map<String, Value>,
    ) -> Result<ActionOutcome, ActionError> {
        let verdict = match check(&Value::Object(args.clone())) {
            Ok(v) => v,
            Err(e) => {
                return Ok(ActionOutcome::rejected(
                    vec!["host.args_invalid".into()],
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
        };
        let Value::Object(map) = args else {
            panic!("test args must be an object")
        };
        JoinCheckAction
            .call(&ctx, &map)
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
