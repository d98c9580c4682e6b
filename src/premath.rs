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
use crate::host::{ActionContext, ActionError, ActionKind, ActionOutcome, HostAction, Registry};
use crate::issues::store::{LockOptions, Store};
use crate::issues::views::Scope;
use crate::sandbox::convert::{scheme_source, scheme_string, ArrayForm};
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

pub const FAILURE_INVALID_PROGRAM: &str = "scheme_eval.invalid_program";
pub const FAILURE_CALL_BUDGET_EXCEEDED: &str = "scheme_eval.call_budget_exceeded";
pub const FAILURE_EFFECT_DENIED: &str = "scheme_eval.effect_denied";
pub const FAILURE_UNALLOWLISTED: &str = "scheme_eval.host_action_unallowlisted";
pub const FAILURE_UNIMPLEMENTED: &str = "scheme_eval.host_action_unimplemented";
pub const FAILURE_EXECUTION_ERROR: &str = "scheme_eval.host_action_execution_error";
pub const FAILURE_USE_EVIDENCE_MISSING: &str = "mutation.use_evidence_missing";
pub const FAILURE_CLAIM_MISSING: &str = "mutation.capability_claim_missing";
pub const FAILURE_MCP_TRANSPORT_REQUIRED: &str = "control_plane_host_action_mcp_transport_required";
pub const FAILURE_BINDING_MISMATCH: &str = "control_plane_host_action_binding_mismatch";
pub const FAILURE_CONTRACT_UNBOUND: &str = "control_plane_host_action_contract_unbound";

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
        let own = |field: &str, value: &Option<String>, run: &Option<String>| {
            match (non_empty(value.as_deref()), non_empty(run.as_deref())) {
                (Some(v), r) if Some(&v) != r.as_ref() => Err(ProgramError::Unsupported(format!(
                    "call {n} sets its own {field}; tusk runs a program under one authority and issue: \
                     give {field} at the program level (or with its flag)"
                ))),
                _ => Ok(()),
            }
        };
        own("issueId", &call.issue_id, &program.issue_id)?;
        own("policyDigest", &call.policy_digest, &program.policy_digest)?;
        own(
            "instructionRef",
            &call.instruction_ref,
            &program.instruction_ref,
        )?;
        let extra: Vec<&String> = call
            .capability_claims
            .iter()
            .filter(|c| {
                !c.trim().is_empty() && !program.capability_claims.contains(&c.trim().to_string())
            })
            .collect();
        if !extra.is_empty() {
            return Err(ProgramError::Unsupported(format!(
                "call {n} claims capabilities of its own ({}); tusk runs a program under one set of claims: \
                 give them at the program level (or with --capability-claim)",
                extra.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
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
    pub policy_digest: Option<&'a str>,
    pub instruction_ref: Option<&'a str>,
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
                "policyDigest": frame.policy_digest,
                "instructionRef": frame.instruction_ref,
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

// ------------------------------------------------------------------ actions

type Run = dyn Fn(&ActionContext<'_>, &Value) -> Result<ActionOutcome, ActionError> + Send + Sync;

/// One premath-shaped host action.
struct PremathAction {
    spec: ActionSpec,
    run: Box<Run>,
}

impl HostAction for PremathAction {
    fn spec(&self) -> &ActionSpec {
        &self.spec
    }
    fn call(&self, ctx: &ActionContext<'_>, args: Value) -> Result<ActionOutcome, ActionError> {
        (self.run)(ctx, &args)
    }
}

/// The argument schema of an action that refuses whatever it is given:
/// every (non-path) member is accepted, as premath's refusals take any args.
fn any_args() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": true})
}

fn args_schema(props: &[(&str, &str)]) -> Value {
    let properties: Map<String, Value> = props
        .iter()
        .map(|(name, ty)| (name.to_string(), json!({"type": ty})))
        .collect();
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

fn action(
    id: &str,
    kind: ActionKind,
    description: &str,
    args: &[(&str, &str)],
    failure_classes: &[&str],
    run: Box<Run>,
) -> Arc<dyn HostAction> {
    Arc::new(PremathAction {
        spec: ActionSpec {
            id: id.to_string(),
            kind,
            description: description.to_string(),
            args: args_schema(args),
            payload: json!({"type": "object"}),
            failure_classes: failure_classes.iter().map(|c| c.to_string()).collect(),
            example: format!("(host-call \"{id}\" (hash))"),
        },
        run,
    })
}

/// An action premath's evaluator refuses with `class` before it dispatches.
fn refusing(id: &str, class: &str, diagnostic: String) -> Arc<dyn HostAction> {
    let c = class.to_string();
    Arc::new(PremathAction {
        spec: ActionSpec {
            id: id.to_string(),
            kind: ActionKind::Read,
            description: "refused by premath's evaluator profile before dispatch".into(),
            args: any_args(),
            payload: json!({"type": "object"}),
            failure_classes: vec![class.to_string()],
            example: format!("(host-call \"{id}\" (hash))"),
        },
        run: Box::new(move |_, _| Ok(ActionOutcome::rejected(vec![c.clone()], diagnostic.clone()))),
    })
}

/// The issue store, read as premath's evaluator reads it: a missing file is
/// an execution error naming it.
fn with_store(
    ctx: &ActionContext<'_>,
    view: impl FnOnce(&Store<'_>, &str) -> Result<ActionOutcome, ActionError>,
) -> Result<ActionOutcome, ActionError> {
    // Shown as premath shows its default (`.premath/issues.jsonl`, not `./…`).
    let shown = ctx.paths.issues.path();
    let path = shown
        .strip_prefix(".")
        .unwrap_or(shown)
        .display()
        .to_string();
    if let crate::issues::IssueStore::Jsonl(file) = &ctx.paths.issues {
        if !file.exists() {
            return Ok(ActionOutcome::rejected(
                vec![FAILURE_EXECUTION_ERROR.into()],
                format!("issues file not found: {path}"),
            ));
        }
    }
    let text = match ctx.paths.issues.read_text() {
        Ok(t) => t,
        Err(e) => {
            return Ok(ActionOutcome::rejected(
                vec![FAILURE_EXECUTION_ERROR.into()],
                format!("failed to load {path}: {e}"),
            ))
        }
    };
    let store = match Store::parse(ctx.paths.issues.path(), &text) {
        Ok(s) => s,
        Err(e) => {
            return Ok(ActionOutcome::rejected(
                vec![FAILURE_EXECUTION_ERROR.into()],
                format!("failed to load {path}: {e}"),
            ))
        }
    };
    view(&store, &path)
}

/// The winning line of each id, by id (premath's store is a `BTreeMap`).
fn by_id<'s, 'a>(store: &'s Store<'a>) -> Vec<&'s crate::issues::model::Issue<'a>> {
    let mut issues: Vec<_> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    issues
}

fn listing(action: &str, path: &str, items: Vec<Value>) -> ActionOutcome {
    ActionOutcome::accepted(json!({
        "action": action,
        "issuesPath": path,
        "count": items.len(),
        "items": items,
    }))
}

fn str_arg(args: &Value, key: &str) -> Option<String> {
    non_empty(args[key].as_str())
}

fn ready(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let ready: BTreeSet<&str> = crate::issues::views::ready(store)
            .into_iter()
            .map(|i| i.id.as_str())
            .collect();
        let items = by_id(store)
            .into_iter()
            .filter(|i| ready.contains(i.id.as_str()))
            .map(|i| {
                json!({"id": i.id.as_str(), "title": i.title.as_str(), "status": i.status.as_str(), "priority": i.priority})
            })
            .collect();
        Ok(listing("issue.ready", path, items))
    })
}

fn list(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let status = str_arg(args, "status");
    let assignee = str_arg(args, "assignee");
    with_store(ctx, |store, path| {
        let items = by_id(store)
            .into_iter()
            .filter(|i| status.as_deref().is_none_or(|s| i.status.as_str() == s))
            .filter(|i| {
                assignee
                    .as_deref()
                    .is_none_or(|a| i.assignee.as_ref().map_or("", |x| x.as_str()) == a)
            })
            .map(|i| {
                json!({
                    "id": i.id.as_str(), "title": i.title.as_str(), "status": i.status.as_str(),
                    "priority": i.priority, "issueType": i.issue_type.as_str(),
                    "assignee": i.assignee.as_ref().map_or("", |x| x.as_str()),
                })
            })
            .collect();
        Ok(listing("issue.list", path, items))
    })
}

fn blocked(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let items = by_id(store)
            .into_iter()
            .filter(|i| !i.is_closed())
            .filter_map(|i| {
                let manual = i.status.as_str() == "blocked";
                let blockers = crate::issues::views::blockers(store, i);
                (manual || !blockers.is_empty()).then(|| {
                    json!({
                        "id": i.id.as_str(), "title": i.title.as_str(), "status": i.status.as_str(),
                        "priority": i.priority, "manualBlocked": manual,
                        "blockers": serde_json::to_value(&blockers).unwrap_or(Value::Null),
                    })
                })
            })
            .collect();
        Ok(listing("issue.blocked", path, items))
    })
}

fn check_issues(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let threshold = args["noteWarnThreshold"].as_u64().unwrap_or(2000) as usize;
    with_store(ctx, |store, path| {
        let report = crate::issues::views::check_payload(store, path, ctx.now, threshold);
        let classes = report.failure_classes.clone();
        let value = report.into_value();
        let mut payload = Map::new();
        payload.insert("action".into(), json!("issue.check"));
        payload.insert("issuesPath".into(), json!(path));
        for key in [
            "checkKind",
            "result",
            "failureClasses",
            "warningClasses",
            "errors",
            "warnings",
            "summary",
        ] {
            payload.insert(key.into(), value[key].clone());
        }
        Ok(ActionOutcome {
            failure_classes: classes,
            payload: Value::Object(payload),
            witness_refs: Vec::new(),
        })
    })
}

fn diagnostics(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let given = str_arg(args, "graphScope").unwrap_or_else(|| "active".into());
    let scope = match given.as_str() {
        "active" => Scope::Active,
        "full" => Scope::Full,
        other => {
            return Ok(ActionOutcome::rejected(
                vec![FAILURE_INVALID_PROGRAM.into()],
                format!("dep.diagnostics graphScope must be `active` or `full` (got `{other}`)"),
            ))
        }
    };
    with_store(ctx, |store, path| {
        Ok(ActionOutcome::accepted(json!({
            "action": "dep.diagnostics",
            "issuesPath": path,
            "graphScope": scope.as_str(),
            "integrity": crate::issues::graph::integrity(store, |i| scope.admits(i)),
        })))
    })
}

/// A lease mutation through premath's transport (`tusk transport-dispatch`'s code).
fn lease(id: &'static str) -> Box<Run> {
    Box::new(move |ctx, args| {
        let store = ctx.paths.issues.clone();
        let open = move |_: Option<&str>| Ok(store.clone());
        let answer =
            crate::issues::transport::dispatch(id, args, open, LockOptions::default(), ctx.now);
        let classes: Vec<String> = answer["failureClasses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| non_empty(c.as_str()))
            .collect();
        let refs = ["fiberWitnessRef", "witnessRef", "resolverWitnessRef"]
            .iter()
            .filter_map(|k| non_empty(answer[*k].as_str()))
            .collect();
        Ok(ActionOutcome {
            failure_classes: classes,
            payload: answer,
            witness_refs: refs,
        })
    })
}

/// The registry a program's run binds, derived from the contract as
/// premath's evaluator derives its allowlist: allowlisted actions answer in
/// premath's shapes (lease mutations as mutations, through the gate); a
/// contract row without an operation, an MCP-only action and an action
/// tusk does not run answer with premath's refusal; anything else is not
/// registered (`scheme_eval.host_action_unallowlisted`).
pub fn registry(contract: &Contract) -> Registry {
    let allow = contract.allowlist();
    let mut out = Registry::new();
    let mut add = |a: Arc<dyn HostAction>| {
        // Ids the registry refuses (denied prefixes, odd characters) stay
        // unregistered: the call is then denied or unallowlisted, as premath's is.
        let _ = out.register(a);
    };
    for (id, op) in &contract.actions {
        if op.is_none() {
            add(refusing(
                id,
                &contract.contract_unbound,
                format!("host action row is present but operationId is unbound: {id}"),
            ));
        }
    }
    for id in &allow {
        if matches!(contract.actions.get(id), Some(None)) {
            continue;
        }
        if contract.mcp_only.contains(id) {
            add(refusing(
                id,
                FAILURE_MCP_TRANSPORT_REQUIRED,
                format!("host action requires MCP transport profile: {id}"),
            ));
            continue;
        }
        let read = ActionKind::Read;
        let a = match id.as_str() {
            "issue.ready" => action(id, read, "premath's issue.ready", &[], &[], Box::new(ready)),
            "issue.list" => action(
                id,
                read,
                "premath's issue.list",
                &[("status", "string"), ("assignee", "string")],
                &[],
                Box::new(list),
            ),
            "issue.blocked" => action(
                id,
                read,
                "premath's issue.blocked",
                &[],
                &[],
                Box::new(blocked),
            ),
            "issue.check" => action(
                id,
                read,
                "premath's issue.check",
                &[("noteWarnThreshold", "integer")],
                &[],
                Box::new(check_issues),
            ),
            "dep.diagnostics" => action(
                id,
                read,
                "premath's dep.diagnostics",
                &[("graphScope", "string")],
                &[FAILURE_INVALID_PROGRAM],
                Box::new(diagnostics),
            ),
            m if LEASE_MUTATIONS.contains(&m) => {
                let static_id = LEASE_MUTATIONS
                    .iter()
                    .find(|x| **x == m)
                    .copied()
                    .unwrap_or("issue.claim");
                action(
                    id,
                    ActionKind::Mutation,
                    "premath's lease transport",
                    &[
                        ("id", "string"),
                        ("assignee", "string"),
                        ("leaseId", "string"),
                        ("leaseTtlSeconds", "integer"),
                        ("leaseExpiresAt", "string"),
                    ],
                    &[],
                    lease(static_id),
                )
            }
            other => refusing(
                other,
                FAILURE_UNIMPLEMENTED,
                if other.starts_with("conformance.") {
                    format!("tusk does not run premath's conformance vector scripts: {other}")
                } else {
                    format!("tusk's transport serves the lease profile only, not the fiber lifecycle: {other}")
                },
            ),
        };
        add(a);
    }
    out
}

// ------------------------------------------------------------- MCP tools

/// One tool of premath's `mcp-serve` that tusk serves (`tusk mcp
/// --premath-tools`): premath's name, description and input schema, and the
/// premath-shaped read action (`premath.<tool>`) a call runs as.
pub struct McpTool {
    pub name: &'static str,
    pub description: &'static str,
    /// The arguments besides `issues_path`: (premath's snake_case name, its
    /// camelCase alias, JSON type).
    pub args: &'static [(&'static str, &'static str, &'static str)],
}

impl McpTool {
    /// The action a call of this tool runs as.
    pub fn action_id(&self) -> String {
        format!("premath.{}", self.name)
    }

    /// premath's input schema (as its SDK derives it).
    pub fn input_schema(&self) -> Value {
        let mut properties = Map::new();
        properties.insert(
            "issues_path".into(),
            json!({"nullable": true, "type": "string"}),
        );
        let mut required = Vec::new();
        for (name, _, ty) in self.args {
            if *ty == "scope" {
                properties.insert(
                    name.to_string(),
                    json!({"oneOf": [{"enum": ["Active"]}, {"enum": ["Full"]}]}),
                );
                required.push(*name);
            } else {
                properties.insert(name.to_string(), json!({"nullable": true, "type": ty}));
            }
        }
        let mut schema = json!({"properties": properties, "type": "object"});
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema
    }

    /// The action's arguments from a call's (premath's snake_case names or
    /// camelCase aliases). `issues_path` may only name the served store
    /// (`served`): a tusk program never chooses a file.
    ///
    /// # Errors
    /// An argument of the wrong type, or another store named.
    pub fn action_args(&self, given: &Map<String, Value>, served: &str) -> Result<Value, String> {
        let mut out = Map::new();
        for (key, value) in given {
            if value.is_null() {
                continue;
            }
            if key == "issues_path" || key == "issuesPath" {
                let named = value.as_str().unwrap_or_default();
                let same = std::path::Path::new(named) == std::path::Path::new(served)
                    || std::fs::canonicalize(named).ok() == std::fs::canonicalize(served).ok()
                        && std::path::Path::new(named).exists();
                if !same {
                    return Err(format!(
                        "issues_path `{named}`: this server serves one issue store, {served}; \
                         name it or leave issues_path out"
                    ));
                }
                continue;
            }
            let Some((_, camel, ty)) = self
                .args
                .iter()
                .find(|(snake, camel, _)| key == snake || key == camel)
            else {
                // premath's tools ignore members they do not know.
                continue;
            };
            let value = match *ty {
                "scope" => match value.as_str().map(str::to_ascii_lowercase).as_deref() {
                    Some(s @ ("active" | "full")) => json!(s),
                    _ => return Err(format!("{key}: expected `active` or `full`")),
                },
                "integer" if !value.is_u64() => {
                    return Err(format!("{key}: expected a non-negative integer"))
                }
                "string" if !value.is_string() => return Err(format!("{key}: expected a string")),
                _ => value.clone(),
            };
            out.insert(camel.to_string(), value);
        }
        Ok(Value::Object(out))
    }
}

/// premath's tools with a tusk twin that `tusk mcp --premath-tools` serves.
pub const MCP_TOOLS: [McpTool; 7] = [
    McpTool {
        name: "issue_ready",
        description: "List open issues that have no unresolved blocking dependencies",
        args: &[],
    },
    McpTool {
        name: "issue_list",
        description: "List issues with optional status/assignee filtering",
        args: &[("status", "status", "string"), ("assignee", "assignee", "string")],
    },
    McpTool {
        name: "issue_check",
        description: "Run deterministic issue-graph contract checks",
        args: &[("note_warn_threshold", "noteWarnThreshold", "integer")],
    },
    McpTool {
        name: "issue_blocked",
        description: "List non-closed issues that are explicitly blocked or have unresolved blocking dependencies",
        args: &[],
    },
    McpTool {
        name: "dep_diagnostics",
        description: "Report dependency graph cycle diagnostics for active or full graph scope",
        args: &[("graph_scope", "graphScope", "scope")],
    },
    McpTool {
        name: "issue_backend_status",
        description: "Report issue backend integration state (jsonl authority, surreal projection, jj)",
        args: &[],
    },
    McpTool {
        name: "issue_lease_projection",
        description: "Return deterministic lease projection for stale/contended claims",
        args: &[],
    },
];

/// premath's issue summary: `{assignee, id, issueType, owner, priority,
/// status, title, lease {…, state} | null}`.
fn mcp_summary(
    store: &Store<'_>,
    issue: &crate::issues::model::Issue<'_>,
    now: chrono::DateTime<chrono::Utc>,
) -> Value {
    let object = crate::issues::views::full_object(store, issue);
    let empty = Map::new();
    let m = object.as_object().unwrap_or(&empty);
    let mut out = crate::issues::projection::basic(m);
    let state = issue.lease_state(now);
    out["lease"] = crate::issues::projection::lease_json(m, Some(state.as_str()));
    out
}

/// The members premath's MCP listings share.
fn mcp_listing(action: &str, path: &str, items: Vec<Value>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("action".into(), json!(action));
    m.insert("issuesPath".into(), json!(path));
    m.insert("queryBackend".into(), json!("jsonl"));
    m.insert("querySource".into(), json!("jsonl"));
    m.insert("count".into(), json!(items.len()));
    m.insert("items".into(), Value::Array(items));
    m
}

/// premath's `leaseProjection`/`projection` member.
fn mcp_projection(store: &Store<'_>, now: chrono::DateTime<chrono::Utc>) -> Value {
    crate::issues::projection::lease_projection(store, &Default::default(), now)
        .remove("projection")
        .unwrap_or(Value::Null)
}

fn mcp_ready(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let ready: BTreeSet<&str> = crate::issues::views::ready(store)
            .into_iter()
            .map(|i| i.id.as_str())
            .collect();
        let items = by_id(store)
            .into_iter()
            .filter(|i| ready.contains(i.id.as_str()))
            .map(|i| mcp_summary(store, i, ctx.now))
            .collect();
        let mut m = mcp_listing("issue.ready", path, items);
        m.insert("leaseProjection".into(), mcp_projection(store, ctx.now));
        Ok(ActionOutcome::accepted(Value::Object(m)))
    })
}

fn mcp_list(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let status = str_arg(args, "status");
    let assignee = str_arg(args, "assignee");
    with_store(ctx, |store, path| {
        let items = by_id(store)
            .into_iter()
            .filter(|i| status.as_deref().is_none_or(|s| i.status.as_str() == s))
            .filter(|i| {
                assignee
                    .as_deref()
                    .is_none_or(|a| i.assignee.as_ref().map_or("", |x| x.as_str()) == a)
            })
            .map(|i| mcp_summary(store, i, ctx.now))
            .collect();
        Ok(ActionOutcome::accepted(Value::Object(mcp_listing(
            "issue.list",
            path,
            items,
        ))))
    })
}

fn mcp_blocked(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let outcome = blocked(ctx, args)?;
    if !outcome.is_accepted() {
        return Ok(outcome);
    }
    let mut m = outcome.payload.as_object().cloned().unwrap_or_default();
    m.insert("queryBackend".into(), json!("jsonl"));
    m.insert("querySource".into(), json!("jsonl"));
    Ok(ActionOutcome::accepted(Value::Object(m)))
}

/// premath's MCP `issue_check` answers the report whatever its verdict.
fn mcp_check(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let mut outcome = check_issues(ctx, args)?;
    if outcome.payload.get("checkKind").is_some() {
        outcome.failure_classes.clear();
    }
    Ok(outcome)
}

fn mcp_diagnostics(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let mut outcome = diagnostics(ctx, args)?;
    if outcome.is_accepted() {
        outcome.payload["queryBackend"] = json!("jsonl");
    }
    Ok(outcome)
}

fn mcp_lease_projection(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let report = crate::issues::projection::lease_projection_payload(
            store,
            path,
            "jsonl",
            &Default::default(),
            ctx.now,
        );
        Ok(ActionOutcome::accepted(report.into_value()))
    })
}

/// premath's MCP `issue_backend_status`: `issue backend-status`'s report with
/// `queryBackend`, the repository root being the server's directory as
/// premath names it (`<cwd>/.`) and the projection cache under it.
fn mcp_backend_status(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    let cwd = std::env::current_dir().map_err(|e| {
        ActionError::new(
            FAILURE_EXECUTION_ERROR,
            format!("the server's directory: {e}"),
        )
    })?;
    let repo = cwd.join(".");
    let projection = repo.join(".premath/surreal_issue_cache.json");
    let store = match &ctx.paths.issues {
        crate::issues::IssueStore::Jsonl(file) => {
            crate::issues::IssueStore::Jsonl(file.strip_prefix(".").unwrap_or(file).to_path_buf())
        }
        other => other.clone(),
    };
    let mut payload = crate::issues::backend::backend_status(&store, &repo, &projection);
    payload["queryBackend"] = json!(crate::issues::projection::backend_name(&store));
    Ok(ActionOutcome::accepted(payload))
}

/// The read actions behind [`MCP_TOOLS`] (`premath.issue_ready`, …), each
/// answering premath's MCP result object; a missing store is premath's
/// refusal (`issues file not found: PATH`).
pub fn mcp_actions() -> Vec<Arc<dyn HostAction>> {
    MCP_TOOLS
        .iter()
        .map(|tool| {
            let run: Box<Run> = match tool.name {
                "issue_ready" => Box::new(mcp_ready),
                "issue_list" => Box::new(mcp_list),
                "issue_check" => Box::new(mcp_check),
                "issue_blocked" => Box::new(mcp_blocked),
                "dep_diagnostics" => Box::new(mcp_diagnostics),
                "issue_backend_status" => Box::new(mcp_backend_status),
                _ => Box::new(mcp_lease_projection),
            };
            let args: Vec<(&str, &str)> = tool
                .args
                .iter()
                .map(|(_, camel, ty)| (*camel, if *ty == "scope" { "string" } else { *ty }))
                .collect();
            action(
                &tool.action_id(),
                ActionKind::Read,
                tool.description,
                &args,
                &[FAILURE_EXECUTION_ERROR],
                run,
            )
        })
        .collect()
}

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
    fn per_call_authority_is_refused_clearly() {
        let program: Program = serde_json::from_value(json!({
            "calls": [{"action": "issue.ready", "policyDigest": "pol1_x"}]
        }))
        .unwrap();
        assert!(
            matches!(check(&program, 32), Err(ProgramError::Unsupported(m)) if m.contains("policyDigest"))
        );
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
