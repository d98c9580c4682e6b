//! premath's `scheme-eval` program format on tusk's runtime.
//!
//! premath's `scheme-eval --program FILE` takes a JSON program, a list of
//! host calls with capability claims, and runs the calls in order against an
//! allowlist derived from a control-plane contract, stopping at the first
//! refused call. tusk runs such a program as one of its own runs: the calls
//! become a Scheme program ([`scheme_program`]) that the sandbox runs against
//! a registry of premath-shaped actions ([`registry`]) through tusk's gate,
//! effect log and trajectory, so `tusk replay` replays it; the front end
//! (`cli/scheme_eval.rs`) then prints premath's result object
//! ([`premath_result`]).

use crate::host::declare::ActionSpec;
use crate::host::HostClass;
use crate::host::{ActionContext, ActionError, ActionKind, ActionOutcome, HostAction, Registry};
use crate::issues::store::{LockOptions, Store};
use crate::issues::views::Scope;
use crate::issues::IssueClass;
use crate::sandbox::convert::{scheme_source, scheme_string, ArrayForm};
use crate::sandbox::FailureClass;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// premath's result kind and profile (its output names them).
pub const RESULT_KIND: &str = "premath.scheme_eval.result.v0";
pub const PROFILE: &str = "steel.default.v0";
/// The program kind premath accepts (and its Rhai twin's).
pub const REQUEST_KINDS: [&str; 2] = [
    "premath.scheme_eval.request.v0",
    "premath.rhai_eval.request.v0",
];

crate::failure::class_enum! {
    /// premath's control-plane failure classes (its instruction-witness
    /// admission and transport).
    pub enum PremathClass {
        McpTransportRequired = "control_plane_host_action_mcp_transport_required",
        BindingMismatch = "control_plane_host_action_binding_mismatch",
        ContractUnbound = "control_plane_host_action_contract_unbound",
        TransportRejected = "transport_rejected",
    }
}

pub const FAILURE_INVALID_PROGRAM: &str = FailureClass::InvalidProgram.as_str();
pub const FAILURE_CALL_BUDGET_EXCEEDED: &str = FailureClass::CallBudget.as_str();
pub const FAILURE_EFFECT_DENIED: &str = FailureClass::EffectDenied.as_str();
pub const FAILURE_UNALLOWLISTED: &str = HostClass::Unallowlisted.as_str();
pub const FAILURE_UNIMPLEMENTED: &str = HostClass::Unimplemented.as_str();
pub const FAILURE_EXECUTION_ERROR: &str = HostClass::ExecutionError.as_str();
pub const FAILURE_USE_EVIDENCE_MISSING: &str = HostClass::UseEvidenceMissing.as_str();
pub const FAILURE_CLAIM_MISSING: &str = HostClass::CapabilityClaimMissing.as_str();
pub const FAILURE_MCP_TRANSPORT_REQUIRED: &str = PremathClass::McpTransportRequired.as_str();
pub const FAILURE_BINDING_MISMATCH: &str = PremathClass::BindingMismatch.as_str();
pub const FAILURE_CONTRACT_UNBOUND: &str = PremathClass::ContractUnbound.as_str();

/// The actions premath's evaluator knows, in its order.
const SUPPORTED: [&str; 15] = [
    "issue.ready",
    "issue.list",
    "issue.blocked",
    "issue.check",
    "dep.diagnostics",
    "conformance.runtime_orchestration_vectors.run",
    "conformance.frontend_parity_vectors.run",
    "conformance.world_core_vectors.run",
    "issue.claim",
    "issue.claim_next",
    "issue.lease_renew",
    "issue.lease_release",
    "fiber.spawn",
    "fiber.join",
    "fiber.cancel",
];
/// Allowlisted whatever the contract says (premath runs them as local scripts).
const LOCAL_ORCHESTRATION: [&str; 3] = [
    "conformance.runtime_orchestration_vectors.run",
    "conformance.frontend_parity_vectors.run",
    "conformance.world_core_vectors.run",
];
const LEASE_MUTATIONS: [&str; 4] = [
    "issue.claim",
    "issue.claim_next",
    "issue.lease_renew",
    "issue.lease_release",
];

/// A program file (premath's `SchemeEvalProgram`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Program {
    #[serde(default)]
    pub schema: Option<u64>,
    #[serde(default)]
    pub program_kind: Option<String>,
    #[serde(default)]
    pub issue_id: Option<String>,
    #[serde(default)]
    pub policy_digest: Option<String>,
    #[serde(default)]
    pub instruction_ref: Option<String>,
    #[serde(default)]
    pub capability_claims: Vec<String>,
    #[serde(default)]
    pub calls: Vec<Call>,
}

/// One call of a program.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    #[serde(default, alias = "id")]
    pub call_id: Option<String>,
    pub action: String,
    #[serde(default)]
    pub args: Value,
    #[serde(default)]
    pub issue_id: Option<String>,
    #[serde(default)]
    pub policy_digest: Option<String>,
    #[serde(default)]
    pub instruction_ref: Option<String>,
    #[serde(default)]
    pub capability_claims: Vec<String>,
    #[serde(default)]
    pub witness_refs: Vec<String>,
    #[serde(default)]
    pub lineage_refs: Vec<String>,
}

/// Why a program is refused before anything runs: premath's class and text
/// (printed as `error: TEXT (CLASS)`, exit 1), or tusk's own refusal of a
/// program it cannot run faithfully (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramError {
    /// premath refuses it the same way.
    Premath {
        class: &'static str,
        message: String,
    },
    /// premath would run it; tusk cannot run it as one faithful run.
    Unsupported(String),
}

/// Trimmed, or `None` when empty.
pub fn non_empty(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// Trimmed, de-duplicated, sorted, empties dropped (premath's claim and ref rule).
pub fn merge_refs<'a>(lists: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    lists
        .into_iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// What the control-plane contract says about host actions.
#[derive(Clone, Debug, Default)]
pub struct Contract {
    /// `hostActionSurface.requiredActions`: id → operationId (if bound).
    pub actions: BTreeMap<String, Option<String>>,
    /// `hostActionSurface.mcpOnlyHostActions`.
    pub mcp_only: BTreeSet<String>,
    /// `hostActionSurface.failureClasses.contractUnbound` (or premath's default).
    pub contract_unbound: String,
}

impl Contract {
    /// Reads the contract's host-action surface.
    ///
    /// # Errors
    /// No `hostActionSurface.requiredActions` object (premath's message).
    pub fn parse(contract: &Value) -> Result<Self, ProgramError> {
        let surface = &contract["hostActionSurface"];
        let Some(required) = surface["requiredActions"].as_object() else {
            return Err(ProgramError::Premath {
                class: FAILURE_INVALID_PROGRAM,
                message: "control-plane contract missing hostActionSurface.requiredActions".into(),
            });
        };
        let actions = required
            .iter()
            .map(|(id, row)| (id.clone(), non_empty(row["operationId"].as_str())))
            .collect();
        let mcp_only = surface["mcpOnlyHostActions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| non_empty(v.as_str()))
            .collect();
        let contract_unbound = non_empty(surface["failureClasses"]["contractUnbound"].as_str())
            .unwrap_or_else(|| FAILURE_CONTRACT_UNBOUND.to_string());
        Ok(Self {
            actions,
            mcp_only,
            contract_unbound,
        })
    }

    /// premath's allowlist: the supported actions the contract binds to an
    /// operation, and the local orchestration actions.
    pub fn allowlist(&self) -> BTreeSet<String> {
        SUPPORTED
            .iter()
            .filter(|a| matches!(self.actions.get(**a), Some(Some(_))))
            .chain(LOCAL_ORCHESTRATION.iter())
            .map(|a| a.to_string())
            .collect()
    }
}

/// Checks a program as premath does before it runs anything (`max_calls`
/// from `--max-calls`), then what tusk needs to run it as one run.
///
/// # Errors
/// premath's refusals in its order, then tusk's [`ProgramError::Unsupported`].
pub fn check(program: &Program, max_calls: usize) -> Result<(), ProgramError> {
    let premath = |class, message: String| Err(ProgramError::Premath { class, message });
    if program.calls.is_empty() {
        return premath(
            FAILURE_INVALID_PROGRAM,
            "program must include at least one call".into(),
        );
    }
    if max_calls == 0 {
        return premath(
            FAILURE_INVALID_PROGRAM,
            "--max-calls must be greater than zero".into(),
        );
    }
    if program.calls.len() > max_calls {
        return premath(
            FAILURE_CALL_BUDGET_EXCEEDED,
            format!(
                "program call count {} exceeds max_calls {max_calls}",
                program.calls.len()
            ),
        );
    }
    if let Some(schema) = program.schema.filter(|s| *s != 1) {
        return premath(
            FAILURE_INVALID_PROGRAM,
            format!("unsupported program schema: {schema}"),
        );
    }
    if let Some(kind) = &program.program_kind {
        let trimmed = kind.trim();
        if !trimmed.is_empty() && !REQUEST_KINDS.contains(&trimmed) {
            return premath(
                FAILURE_INVALID_PROGRAM,
                format!("unsupported program kind: {kind}"),
            );
        }
    }
    for (i, call) in program.calls.iter().enumerate() {
        let n = i + 1;
        if !matches!(call.args, Value::Null | Value::Object(_)) {
            return Err(ProgramError::Unsupported(format!(
                "call {n}'s args are not a JSON object; tusk's host calls take one object of arguments"
            )));
        }
        if let Some(path) = empty_array_at(&call.args, "args") {
            return Err(ProgramError::Unsupported(format!(
                "call {n}'s {path} is an empty array, which a Scheme host call cannot pass as one"
            )));
        }
    }
    Ok(())
}

/// Each call's issue and authority under premath's precedence: the call's
/// own value, else the program's (which the flags already set over the
/// file's); claims merged from the program and the call.
pub fn call_scopes(program: &Program) -> Vec<crate::runtime::CallScope> {
    let own = |call: &Option<String>, run: &Option<String>| {
        non_empty(call.as_deref()).or_else(|| non_empty(run.as_deref()))
    };
    program
        .calls
        .iter()
        .map(|call| crate::runtime::CallScope {
            issue_id: own(&call.issue_id, &program.issue_id),
            policy_digest: own(&call.policy_digest, &program.policy_digest),
            instruction_ref: own(&call.instruction_ref, &program.instruction_ref),
            capability_claims: merge_refs(
                program
                    .capability_claims
                    .iter()
                    .chain(&call.capability_claims),
            ),
        })
        .collect()
}

fn empty_array_at(value: &Value, at: &str) -> Option<String> {
    match value {
        Value::Array(items) if items.is_empty() => Some(at.to_string()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| empty_array_at(v, &format!("{at}[{i}]"))),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| empty_array_at(v, &format!("{at}.{k}"))),
        _ => None,
    }
}

/// A JSON value as the Scheme expression that converts back to it
/// (arrays as vectors).
fn scheme_value(value: &Value) -> String {
    scheme_source(value, ArrayForm::Vector)
}

/// The Scheme program that makes the program's calls in order and stops at
/// the first one that is not accepted (premath's rule); its value is the
/// result class that stopped it, or `"accepted"`.
pub fn scheme_program(program: &Program) -> String {
    let mut text = String::from(
        ";; premath scheme-eval program (tusk scheme-eval): the calls in order, stopping at the first refusal\n\
         (define (then e k) (if (accepted? e) (k) (result-class e)))\n",
    );
    let mut body = String::from("\"accepted\"");
    for call in program.calls.iter().rev() {
        let args = match &call.args {
            Value::Null => "(hash)".to_string(),
            other => scheme_value(other),
        };
        body = format!(
            "(then (host-call {} {args})\n  (lambda () {body}))",
            scheme_string(call.action.trim())
        );
    }
    text.push_str(&body);
    text.push('\n');
    text
}

/// premath's step id: `PREFIX.N.CALLID.ACTION.DIGEST` (parts sanitized).
pub fn step_id(prefix: &str, call_id: &str, action: &str, args_digest: &str, n: usize) -> String {
    let prefix = match prefix.trim() {
        "" => "scheme_eval",
        p => p,
    };
    format!(
        "{prefix}.{n}.{}.{}",
        sanitize(call_id),
        sanitize(&format!("{action}.{args_digest}"))
    )
}

/// premath's `sanitize_for_ref`: ASCII alphanumerics lower-cased, `-_.` kept,
/// anything else `_`, outer `_` trimmed, `x` when nothing is left.
pub fn sanitize(value: &str) -> String {
    let out: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else if matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match out.trim_matches('_') {
        "" => "x".into(),
        t => t.to_string(),
    }
}

/// Each call's id: its `callId`/`id`, trimmed, or `call-N`.
pub fn call_ids(program: &Program) -> Vec<String> {
    program
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| non_empty(c.call_id.as_deref()).unwrap_or_else(|| format!("call-{}", i + 1)))
        .collect()
}

/// premath's diagnostic for a refusal tusk's registry or gate words its own way.
fn premath_diagnostic(class: &str, action: &str) -> Option<String> {
    match class {
        FAILURE_UNALLOWLISTED => Some(format!(
            "host action is not allowlisted for scheme_eval: {action}"
        )),
        FAILURE_EFFECT_DENIED => Some(format!(
            "direct effect denied in evaluator profile: {action}"
        )),
        FAILURE_USE_EVIDENCE_MISSING => Some(format!(
            "mutation action `{action}` requires non-empty policyDigest and instructionRef"
        )),
        _ => None,
    }
}

/// What the front end knows besides the run's result.
pub struct Frame<'a> {
    pub program_path: &'a str,
    pub contract_path: &'a str,
    pub trajectory_path: &'a str,
    pub allowlist: &'a BTreeSet<String>,
    pub call_ids: &'a [String],
    /// Each call's authority ([`call_scopes`]), in call order.
    pub scopes: &'a [crate::runtime::CallScope],
}

/// premath's result object from a tusk run's result (`run`): one effect per
/// call made, `result` rejected when a call was not accepted (or the run
/// itself failed), and tusk's `runId` for `tusk replay --run`.
pub fn premath_result(frame: &Frame<'_>, run: &Value) -> Value {
    let mut classes: BTreeSet<String> = BTreeSet::new();
    let mut rejected = false;
    let effects: Vec<Value> = run["effects"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, e)| {
            let action = e["action"].as_str().unwrap_or_default();
            let result_class = e["resultClass"].as_str().unwrap_or("accepted");
            let mut payload = e["payload"].clone();
            // A check report is premath's payload as it stands, findings
            // and all: tusk's envelope adds `schema` and `diagnostic` to
            // every rejected payload, premath's evaluator not to this one.
            if result_class != "accepted" && payload.get("checkKind").is_some() {
                if let Some(m) = payload.as_object_mut() {
                    m.remove("schema");
                    m.remove("diagnostic");
                }
            }
            if let Some(text) = premath_diagnostic(result_class, action) {
                if payload["diagnostic"].is_string() {
                    payload["diagnostic"] = json!(text);
                }
            }
            for c in e["failureClasses"].as_array().into_iter().flatten() {
                if let Some(c) = c.as_str() {
                    classes.insert(c.to_string());
                }
            }
            if result_class != "accepted" {
                rejected = true;
            }
            json!({
                "schema": e["schema"],
                "callId": frame.call_ids.get(i).cloned().unwrap_or_else(|| format!("call-{}", i + 1)),
                "action": action,
                "argsDigest": e["argsDigest"],
                "resultClass": result_class,
                "payload": payload,
                "failureClasses": e["failureClasses"],
                "witnessRefs": e["witnessRefs"],
                "policyDigest": frame.scopes.get(i).and_then(|s| s.policy_digest.as_deref()),
                "instructionRef": frame.scopes.get(i).and_then(|s| s.instruction_ref.as_deref()),
                "trajectoryRow": e["trajectoryRow"],
            })
        })
        .collect();
    // The run's own failure (a timeout, an unwritable log) rejects it too.
    if run["result"] != "accepted" && !rejected {
        rejected = true;
        for c in run["failureClasses"].as_array().into_iter().flatten() {
            if let Some(c) = c.as_str() {
                classes.insert(c.to_string());
            }
        }
    }
    json!({
        "schema": 1,
        "kind": RESULT_KIND,
        "profile": PROFILE,
        "programPath": frame.program_path,
        "controlPlaneContract": frame.contract_path,
        "trajectoryPath": frame.trajectory_path,
        "allowlistedActions": frame.allowlist,
        "executedCallCount": effects.len(),
        "result": if rejected { "rejected" } else { "accepted" },
        "failureClasses": classes,
        "startedAt": whole_seconds(&run["startedAt"]),
        "finishedAt": whole_seconds(&run["finishedAt"]),
        "effects": effects,
        "runId": run["runId"],
    })
}

/// An RFC 3339 instant in whole seconds (premath's rendering).
fn whole_seconds(instant: &Value) -> Value {
    instant
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| {
            json!(t
                .with_timezone(&chrono::Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        })
        .unwrap_or_else(|| instant.clone())
}

/// The stage premath's text output names for a refusal class.
pub fn rejection_stage(class: &str, diagnostic: &str) -> &'static str {
    if class.starts_with("site_resolve_")
        || class == FAILURE_CONTRACT_UNBOUND
        || diagnostic.contains("kernel route preflight rejected host action")
    {
        "route preflight"
    } else if class.starts_with("transport.")
        || class == FAILURE_BINDING_MISMATCH
        || diagnostic.contains("transport resolver witness")
        || diagnostic.contains("transport dispatch")
        || diagnostic.contains("failed to serialize transport request")
        || diagnostic.contains("failed to parse transport response")
    {
        "transport dispatch"
    } else if [
        FAILURE_USE_EVIDENCE_MISSING,
        FAILURE_CLAIM_MISSING,
        FAILURE_EFFECT_DENIED,
        FAILURE_UNALLOWLISTED,
        FAILURE_MCP_TRANSPORT_REQUIRED,
    ]
    .contains(&class)
    {
        "policy/capability"
    } else if class == FAILURE_INVALID_PROGRAM || class == FAILURE_CALL_BUDGET_EXCEEDED {
        "input validation"
    } else {
        "unknown"
    }
}

mod actions;
mod tool_actions;
mod tools;
mod witness;
pub use actions::*;
pub use tool_actions::*;
pub use tools::*;
pub use witness::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ids_are_premaths() {
        assert_eq!(
            step_id("", "Call 1!", "issue.ready", "he1_ab", 1),
            "scheme_eval.1.call_1.issue.ready.he1_ab"
        );
        assert_eq!(sanitize("__"), "x");
        assert_eq!(sanitize("A/b"), "a_b");
    }

    #[test]
    fn scheme_literals_round_trip_their_text() {
        assert_eq!(scheme_string("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\x1;\"");
        assert_eq!(
            scheme_value(&json!({"a": [1, true], "b": null})),
            "(hash \"a\" (vector 1 #t) \"b\" (void))"
        );
    }

    #[test]
    fn tool_arguments_are_sorted_as_premath_takes_them() {
        let tool = |name: &str| MCP_TOOLS.iter().find(|t| t.name == name).unwrap();
        let given = |v: Value| v.as_object().cloned().unwrap();
        let claim = tool("issue_claim")
            .action_args(
                &given(
                    json!({"id": "bd-1", "assignee": "a", "lease_ttl_seconds": -5,
                              "instructionId": "i-1", "unknown": 1}),
                ),
                ".premath/issues.jsonl",
            )
            .unwrap();
        // Aliases become the action's camelCase names; the instruction id
        // is not an action argument; unknown members are ignored, as premath does.
        assert_eq!(
            Value::Object(claim.args),
            json!({"id": "bd-1", "assignee": "a", "leaseTtlSeconds": -5})
        );
        assert_eq!(claim.instruction_id.as_deref(), Some("i-1"));
        let blank = tool("dep_add")
            .action_args(
                &given(json!({"issue_id": "a", "depends_on_id": "b", "instruction_id": " "})),
                ".premath/issues.jsonl",
            )
            .unwrap();
        assert_eq!(blank.instruction_id, None);
        let missing = tool("issue_lease_renew")
            .action_args(&given(json!({"id": "bd-1", "assignee": "a"})), "s")
            .err()
            .unwrap();
        assert!(missing.contains("leaseId"), "{missing}");
        let schema = tool("issue_lease_renew").input_schema();
        assert_eq!(schema["required"], json!(["id", "assignee", "lease_id"]));
        assert_eq!(schema["properties"]["lease_id"], json!({"type": "string"}));
        assert_eq!(
            schema["properties"]["instruction_id"],
            json!({"nullable": true, "type": "string"})
        );
    }

    #[test]
    fn an_instruction_id_is_not_a_path() {
        let dir = std::env::temp_dir();
        for id in ["../x", "a/b", "..", "a\\b"] {
            let refused = instruction_link(&dir, id, "issue.add", false)
                .err()
                .unwrap();
            assert!(refused.contains("not a path"), "{refused}");
        }
    }

    #[test]
    fn calls_take_their_own_authority_by_premaths_precedence() {
        let program: Program = serde_json::from_value(json!({
            "issueId": "bd-p", "policyDigest": "pol1_p", "instructionRef": "instr://p",
            "capabilityClaims": ["b", "a"],
            "calls": [
                {"action": "issue.ready"},
                {"action": "issue.claim", "issueId": " bd-c ", "policyDigest": "pol1_c",
                 "instructionRef": "", "capabilityClaims": ["c", "a", " "]}
            ]
        }))
        .unwrap();
        assert_eq!(check(&program, 32), Ok(()));
        let scopes = call_scopes(&program);
        assert_eq!(scopes[0].issue_id.as_deref(), Some("bd-p"));
        assert_eq!(scopes[0].capability_claims, ["a", "b"]);
        assert_eq!(scopes[1].issue_id.as_deref(), Some("bd-c"));
        assert_eq!(scopes[1].policy_digest.as_deref(), Some("pol1_c"));
        // An empty call value falls back to the program's.
        assert_eq!(scopes[1].instruction_ref.as_deref(), Some("instr://p"));
        assert_eq!(scopes[1].capability_claims, ["a", "b", "c"]);
        let over: Program =
            serde_json::from_value(json!({"calls": [{"action": "a"}, {"action": "b"}]})).unwrap();
        assert!(matches!(
            check(&over, 1),
            Err(ProgramError::Premath {
                class: FAILURE_CALL_BUDGET_EXCEEDED,
                ..
            })
        ));
    }
}
