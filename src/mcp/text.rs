//! The texts and schemas the MCP tools carry, generated from the actions'
//! declarations.

use crate::host::shape::Shapes;
use crate::host::{ActionKind, ActionSpec};
use crate::issues::readiness::Readiness;
use serde_json::{json, Value};

/// The `scheme_eval` description: what a program is and what its run
/// gives back (a handled refusal included), every host function in Scheme
/// form with its payload's shape (the named shapes spelled out once), the
/// store's readiness rule, the dialect and one worked example. Kept compact:
/// a model reads it on every turn (the whole tool list stays under 16 KB,
/// `tools_list_is_under_16_kb` in tests/it/mcp_stdio.rs).
pub fn eval_description(specs: &[ActionSpec], readiness: Option<Readiness>) -> String {
    let mut out = String::from(
        "Run one bounded Steel Scheme program (Racket's dialect) on tusk's host. Its only \
         effects are host functions: each takes no argument or one hash, never raises, and \
         returns an envelope {resultClass (\"accepted\" or the first failure class), \
         failureClasses, payload, callId}. Mutations need authority (policyDigest and \
         instructionRef, in the call or the server's defaults). Result: result, value (the last \
         form's value as JSON; a pair is a 2-element array), output, effects. A refused call \
         does not stop the program and makes the run \"rejected\"; if the program read every \
         refusal (accepted?, result-class …) and finished, handled is true and isError false; \
         an unread refusal (unexamined names it) or a failed program is an error. No files, \
         network, clock or randomness.\n\n\
         Host functions (reads, then mutations) → payload; a member with no value is left out \
         ((hash-ref i \"assignee\" #f) is #f when unassigned):\n",
    );
    let shapes = Shapes::of(specs);
    for kind in [ActionKind::Read, ActionKind::Mutation] {
        for spec in specs.iter().filter(|s| s.kind == kind) {
            out.push_str(&compact(&spec.signature()));
            if let Some(shape) = shapes.get(&spec.id).filter(|s| !s.is_empty()) {
                out.push_str(" → ");
                out.push_str(shape);
            }
            out.push('\n');
        }
    }
    let named: Vec<String> = shapes
        .named
        .iter()
        .map(|(name, shape)| format!("{name} = {shape}"))
        .collect();
    out.push_str(&named.join("\n"));
    out.push_str("\n\n");
    out.push_str(match readiness {
        Some(rule) => rule.sentence(),
        None => Readiness::Beads.sentence(),
    });
    out.push_str(
        " A Blocker's dependsOnId is the issue waited on.\n\n\
         (host-actions) lists the functions; (host-describe \"id\") gives one's schemas.\n\n\
         Racket's names work (racket/base, list, string, hash, vector, match; R7RS; \
         SRFI-1/13): optional and #:keyword arguments, let-values, the for family with #:when \
         #:break, match, make-hash hash-set! (or immutable hash-set), with-handlers raise \
         error, ~a ~r. Keys match in any case style; a view's list is \"items\". Helpers: \
         accepted? rejected? result-class failure-classes payload, (hash-ref* h \"k1\" \"k2\").\n\n\
         Example: claim the next ready issue.\n\
         (define e (issue.claim_next (hash \"assignee\" \"agent.a\")))\n\
         (if (accepted? e)\n    (hash-ref* (payload e) \"issue\" \"id\")\n    (result-class e))",
    );
    out
}

/// A signature in fewer bytes: `str`, `int`, `bool`, `[str]` for the JSON
/// type names.
fn compact(signature: &str) -> String {
    signature
        .replace(" list-of-string", " [str]")
        .replace(" string", " str")
        .replace(" integer", " int")
        .replace(" boolean", " bool")
}

/// The result object's schema (`premath.scheme_eval.result.v0`), the
/// `scheme_eval` tool's output schema.
pub fn result_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "schema": {"type": "integer"},
            "kind": {"type": "string"},
            "profile": {"type": "string"},
            "result": {"type": "string", "enum": ["accepted", "rejected"]},
            "failureClasses": {"type": "array", "items": {"type": "string"}},
            "value": {},
            "output": {"type": "string"},
            "outputTruncated": {"type": "boolean"},
            "executedCallCount": {"type": "integer"},
            "effects": {"type": "array", "items": {"type": "object"}},
            "error": {
                "type": "object",
                "properties": {
                    "class": {"type": "string"},
                    "message": {"type": "string"},
                    "line": {"type": "integer"},
                    "column": {"type": "integer"}
                },
                "required": ["class", "message"]
            },
            "usage": {"type": "object"},
            "runId": {"type": "string"},
            "sessionId": {"type": "string"},
            "programDigest": {"type": "string"},
            "trajectoryPath": {"type": "string"},
            "startedAt": {"type": "string"},
            "finishedAt": {"type": "string"}
        },
        "required": ["kind", "result", "failureClasses", "value", "output", "effects", "runId"]
    })
}

/// A direct tool's input: the action's arguments plus the authority fields.
pub fn direct_input_schema(spec: &ActionSpec) -> Value {
    let mut schema = spec.args.clone();
    schema.as_object_mut().map(|m| m.remove("$schema"));
    if let Some(props) = schema["properties"].as_object_mut() {
        for (key, doc) in [
            (
                "policyDigest",
                "Authority for mutations: the active policy's digest.",
            ),
            (
                "instructionRef",
                "Authority for mutations: the instruction carried out.",
            ),
            ("issueId", "The issue this call works on (trajectory row)."),
        ] {
            props
                .entry(key)
                .or_insert_with(|| json!({"type": "string", "description": doc}));
        }
    }
    schema
}

/// A JSON value written as a Scheme expression that evaluates to it (the
/// direct tools' programs; arrays as lists).
pub fn scheme_literal(value: &Value) -> String {
    crate::sandbox::convert::scheme_source(value, crate::sandbox::convert::ArrayForm::List)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The description is read by a model on every turn: every action with
    /// its payload's shape, in under 11,000 characters (the whole tool list
    /// stays under 16 KB).
    #[test]
    fn the_eval_description_is_complete_and_compact() {
        let registry = crate::runtime::builtin_registry();
        let specs: Vec<ActionSpec> = registry.specs().cloned().collect();
        let text = eval_description(&specs, Some(Readiness::Beads));
        let shapes = Shapes::of(&specs);
        for spec in &specs {
            assert!(text.contains(&compact(&spec.signature())), "{}", spec.id);
            let shape = shapes.get(&spec.id).unwrap();
            assert!(text.contains(&format!(" → {shape}\n")), "{}", spec.id);
        }
        for name in shapes.named.keys() {
            assert!(text.contains(&format!("\n{name} = {{")), "{name}");
        }
        assert!(text.contains(Readiness::Beads.sentence()));
        assert!(text.len() < 11_000, "{} characters", text.len());
        // No property is a bare boolean schema (some clients refuse one).
        for spec in &specs {
            let direct = direct_input_schema(spec);
            for (name, prop) in direct["properties"].as_object().unwrap() {
                assert!(prop.is_object(), "{}.{name}: {prop}", spec.id);
            }
        }
    }

    #[test]
    fn literals_round_trip_through_the_sandbox() {
        let value = json!({"id": "a\"b\\c\nd", "n": -3, "f": 1.5, "ok": true,
                           "labels": ["x", "y"], "nested": {"k": null}});
        let text = scheme_literal(&value);
        let sandbox = crate::sandbox::Sandbox::new(vec![]);
        struct NoCalls;
        impl crate::sandbox::HostBridge for NoCalls {
            fn call(
                &self,
                _: &str,
                _: Option<Value>,
                _: Option<crate::sandbox::convert::ConvertError>,
            ) -> crate::sandbox::HostReply {
                unreachable!("the literal makes no host call")
            }
        }
        let out = sandbox.run(
            &text,
            crate::sandbox::Limits::default(),
            crate::sandbox::EngineMode::Fresh,
            std::sync::Arc::new(NoCalls),
        );
        assert_eq!(out.error, None, "{text}");
        assert_eq!(out.value, value);
    }
}
