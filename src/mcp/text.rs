//! The texts and schemas the MCP tools carry, generated from the actions'
//! declarations.

use crate::host::{ActionKind, ActionSpec};
use serde_json::{json, Value};

/// The `scheme_eval` description: what a program is, every host function in
/// Scheme form (arguments, their types, optional ones in brackets), the
/// prelude's names and one worked example. Kept compact: it is read by a
/// model on every turn (see the size test).
pub fn eval_description(specs: &[ActionSpec]) -> String {
    let mut out = String::from(
        "Run one bounded Steel Scheme program against tusk's host. The program's only \
         effects are host functions; each takes no argument or one hash and returns an \
         envelope hash: \"resultClass\" (\"accepted\" or the first failure class), \
         \"failureClasses\", \"payload\" (the action's JSON result), \"callId\". A rejected \
         call does not stop the program. Mutations need authority (policyDigest and \
         instructionRef, in the call or the server's defaults). The result object has \
         \"result\", \"value\" (the last form's value as JSON), \"output\" (display text), \
         \"effects\" and \"failureClasses\"; isError is true when the run is rejected. \
         Limits: wall clock, host calls, memory, output. No files, network, clock or \
         randomness.\n\nHost functions (reads, then mutations):\n",
    );
    for kind in [ActionKind::Read, ActionKind::Mutation] {
        for spec in specs.iter().filter(|s| s.kind == kind) {
            out.push_str(&spec.signature());
            out.push('\n');
        }
    }
    out.push_str(
        "(host-actions) lists them; (host-describe \"id\") gives one's schemas. A view's \
         list is \"items\".\n\n\
         Prelude (Racket's names): define lambda let let* letrec named-let cond case when \
         unless do and or quasiquote with-handler for for/list for/fold for/sum; car cdr \
         cons list first rest last take drop append reverse length map for-each filter \
         filter-map append-map remove foldl foldr find assoc index-of remove-duplicates sort \
         range; strings (string-append format printf string-split string-join \
         string-prefix? string-contains? number->string ->string …); hash (immutable: \
         hash-set hash-update return a new one) hash-ref (with a default) hash-ref* \
         hash-keys hash-values hash-contains?; keys match in any case style; display \
         displayln (all arguments); error; envelope helpers accepted? rejected? \
         result-class failure-classes payload.\n\n\
         Example: claim the next ready issue and note it.\n\
         (define e (issue.claim_next (hash \"assignee\" \"agent.a\")))\n\
         (if (accepted? e)\n    (hash-ref* (payload e) \"issue\" \"id\")\n    (result-class e))",
    );
    out
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

    /// The description is read by a model on every turn: keep it well under
    /// 2,000 tokens (about 4 characters a token for this kind of text).
    #[test]
    fn the_eval_description_is_complete_and_compact() {
        let registry = crate::runtime::builtin_registry();
        let specs: Vec<ActionSpec> = registry.specs().cloned().collect();
        let text = eval_description(&specs);
        for spec in &specs {
            assert!(text.contains(&spec.signature()), "{}", spec.id);
        }
        assert!(text.len() < 6000, "{} characters", text.len());
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
