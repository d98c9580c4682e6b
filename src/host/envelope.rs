//! The `premath.host_effect.v0` envelope (host-api §4): the one shape every
//! host call returns, accepted or not.

use serde_json::{json, Map, Value};

pub const SCHEMA: &str = "premath.host_effect.v0";

/// `host-effect://scheme-eval/<action>/<argsDigest>/<n>`, the ref every envelope carries.
pub fn host_effect_ref(action: &str, args_digest: &str, n: usize) -> String {
    format!("host-effect://scheme-eval/{action}/{args_digest}/{n}")
}

/// Everything that goes into one envelope.
pub struct EnvelopeParts<'a> {
    /// 1-based position of the call in its run.
    pub n: usize,
    pub action: &'a str,
    pub args_digest: &'a str,
    pub failure_classes: Vec<String>,
    pub payload: Value,
    pub diagnostic: Option<String>,
    pub witness_refs: Vec<String>,
    pub policy_digest: Option<&'a str>,
    pub instruction_ref: Option<&'a str>,
    pub trajectory_row: Value,
}

/// Builds the envelope: failure classes sorted and de-duplicated, result class
/// the first of them (or `accepted`), witness refs sorted and de-duplicated with
/// the host-effect ref always present, and a rejected payload in the spec's
/// shape `{schema: 1, result: "rejected", failureClasses, diagnostic}` (members
/// the action added to its payload are kept).
pub fn build(parts: EnvelopeParts<'_>) -> Value {
    let mut classes = parts.failure_classes;
    classes.sort();
    classes.dedup();
    let result_class = classes
        .first()
        .cloned()
        .unwrap_or_else(|| "accepted".to_string());
    let mut refs = parts.witness_refs;
    refs.push(host_effect_ref(parts.action, parts.args_digest, parts.n));
    refs.sort();
    refs.dedup();
    let payload = if classes.is_empty() {
        parts.payload
    } else {
        let mut map = match parts.payload {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                let mut m = Map::new();
                m.insert("detail".into(), other);
                m
            }
        };
        let diagnostic = parts
            .diagnostic
            .or_else(|| {
                map.get("diagnostic")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| classes.join(", "));
        map.insert("schema".into(), json!(1));
        map.insert("result".into(), json!("rejected"));
        map.insert("failureClasses".into(), json!(classes));
        // Diagnostics quote what the program passed (an id, a key): capped,
        // so a 1 MiB argument cannot make a 1 MiB diagnostic in every record.
        let diagnostic = crate::sandbox::cap_text(&diagnostic, crate::sandbox::MAX_MESSAGE_BYTES);
        map.insert("diagnostic".into(), json!(diagnostic));
        Value::Object(map)
    };
    // Built member by member: `json!` would deep-copy the payload, which can be
    // a whole issue listing.
    let mut envelope = Map::with_capacity(11);
    let mut put = |key: &str, value: Value| {
        envelope.insert(key.to_string(), value);
    };
    put("schema", json!(SCHEMA));
    put("callId", Value::String(format!("call-{}", parts.n)));
    put("action", json!(parts.action));
    put("argsDigest", json!(parts.args_digest));
    put("resultClass", Value::String(result_class));
    put("failureClasses", json!(classes));
    put("payload", payload);
    put("witnessRefs", json!(refs));
    put("policyDigest", json!(parts.policy_digest));
    put("instructionRef", json!(parts.instruction_ref));
    put("trajectoryRow", parts.trajectory_row);
    Value::Object(envelope)
}
