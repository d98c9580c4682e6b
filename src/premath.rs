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
    /// The tusk mutation the gate admits it as (premath's MCP mutations).
    governed: Option<&'static str>,
}

impl PremathAction {
    fn new(
        id: &str,
        kind: ActionKind,
        description: &str,
        args: &[(&str, &str)],
        failure_classes: &[&str],
        run: Box<Run>,
    ) -> Self {
        Self {
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
            governed: None,
        }
    }
}

impl HostAction for PremathAction {
    fn spec(&self) -> &ActionSpec {
        &self.spec
    }
    fn call(&self, ctx: &ActionContext<'_>, args: Value) -> Result<ActionOutcome, ActionError> {
        (self.run)(ctx, &args)
    }
    fn governed_as(&self) -> &str {
        self.governed.unwrap_or(&self.spec.id)
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
    Arc::new(PremathAction::new(
        id,
        kind,
        description,
        args,
        failure_classes,
        run,
    ))
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
        governed: None,
    })
}

/// The issue store, read as premath's evaluator reads it: a missing file is
/// an execution error naming it.
fn with_store(
    ctx: &ActionContext<'_>,
    view: impl FnOnce(&Store<'_>, &str) -> Result<ActionOutcome, ActionError>,
) -> Result<ActionOutcome, ActionError> {
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let path = shown_store(ctx);
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

/// What one of premath's tools does, and how tusk's gate admits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Read,
    /// A mutation premath mediates by an instruction witness: premath's
    /// action id (its capability claim and messages name it, and tusk's
    /// policy governs the tool as that tusk mutation); `join`: premath also
    /// needs the witness's join gate closed.
    Mutation {
        action: &'static str,
        join: bool,
    },
    /// `init_tool`: lays out the server's root. premath asks no instruction
    /// for it; tusk admits it as `issue.add` (it creates the store that
    /// would), on the server's authority.
    Init,
}

/// One tool of premath's `mcp-serve` that tusk serves (`tusk mcp
/// --premath-tools`): premath's name, description and input schema, and the
/// premath-shaped action (`premath.<tool>`) a call runs as.
pub struct McpTool {
    pub name: &'static str,
    pub description: &'static str,
    /// The arguments besides `issues_path`, `instruction_id` and `root_path`:
    /// (premath's snake_case name, its camelCase alias, type). Types:
    /// `string`, `integer` (non-negative), `int` (any integer), `scope`.
    pub args: &'static [(&'static str, &'static str, &'static str)],
    /// The arguments premath requires, in its order.
    pub required: &'static [&'static str],
    pub effect: Effect,
    /// What a call does (the `premath.<tool>` action's body).
    run: fn(&ActionContext<'_>, &Value) -> Result<ActionOutcome, ActionError>,
}

/// A tool call's arguments, sorted out.
pub struct ToolArgs {
    /// The action's arguments (camelCase).
    pub args: Map<String, Value>,
    /// premath's `instruction_id`, when given and not blank.
    pub instruction_id: Option<String>,
}

impl McpTool {
    /// The action a call of this tool runs as.
    pub fn action_id(&self) -> String {
        format!("premath.{}", self.name)
    }

    /// premath's input schema (as its SDK derives it).
    pub fn input_schema(&self) -> Value {
        let nullable_string = json!({"nullable": true, "type": "string"});
        let mut properties = Map::new();
        if self.effect == Effect::Init {
            properties.insert("root_path".into(), nullable_string.clone());
        } else {
            properties.insert("issues_path".into(), nullable_string.clone());
        }
        if matches!(self.effect, Effect::Mutation { .. }) {
            properties.insert("instruction_id".into(), nullable_string);
        }
        for (name, _, ty) in self.args {
            let json_type = if matches!(*ty, "int" | "integer") {
                "integer"
            } else {
                "string"
            };
            let schema = if *ty == "scope" {
                json!({"oneOf": [{"enum": ["Active"]}, {"enum": ["Full"]}]})
            } else if self.required.contains(name) {
                json!({"type": json_type})
            } else {
                json!({"nullable": true, "type": json_type})
            };
            properties.insert(name.to_string(), schema);
        }
        let mut schema = json!({"properties": properties, "type": "object"});
        if !self.required.is_empty() {
            schema["required"] = json!(self.required);
        }
        schema
    }

    /// Sorts a call's arguments (premath's snake_case names or camelCase
    /// aliases) into the action's. `issues_path` may only name the served
    /// store (`served`) and `root_path` the server's directory: a tusk
    /// program never chooses a file.
    ///
    /// # Errors
    /// A missing required argument, one of the wrong type, or another store
    /// or root named.
    pub fn action_args(
        &self,
        given: &Map<String, Value>,
        served: &str,
    ) -> Result<ToolArgs, String> {
        let mut out = ToolArgs {
            args: Map::new(),
            instruction_id: None,
        };
        for (key, value) in given {
            if value.is_null() {
                continue;
            }
            match key.as_str() {
                "issues_path" | "issuesPath" if self.effect != Effect::Init => {
                    let named = value.as_str().unwrap_or_default();
                    if !same_file(named, served) {
                        return Err(format!(
                            "issues_path `{named}`: this server serves one issue store, {served}; \
                             name it or leave issues_path out"
                        ));
                    }
                    continue;
                }
                "root_path" | "rootPath" if self.effect == Effect::Init => {
                    let named = value.as_str().unwrap_or_default();
                    if !named.trim().is_empty() && !same_file(named, ".") {
                        return Err(format!(
                            "root_path `{named}`: this server lays out its own directory only; \
                             name it or leave root_path out"
                        ));
                    }
                    continue;
                }
                "instruction_id" | "instructionId"
                    if matches!(self.effect, Effect::Mutation { .. }) =>
                {
                    let Some(id) = value.as_str() else {
                        return Err(format!("{key}: expected a string"));
                    };
                    out.instruction_id = non_empty(Some(id)).map(|_| id.to_string());
                    continue;
                }
                _ => {}
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
                "int" if !value.is_i64() => return Err(format!("{key}: expected an integer")),
                "string" if !value.is_string() => return Err(format!("{key}: expected a string")),
                _ => value.clone(),
            };
            out.args.insert(camel.to_string(), value);
        }
        for name in self.required {
            let camel = self
                .args
                .iter()
                .find(|(snake, _, _)| snake == name)
                .map_or(*name, |(_, camel, _)| *camel);
            if *name != "graph_scope" && !out.args.contains_key(camel) {
                return Err(format!("missing field `{camel}`"));
            }
        }
        Ok(out)
    }
}

/// Whether two names a caller gave name the same file (or directory).
fn same_file(named: &str, served: &str) -> bool {
    let (a, b) = (std::path::Path::new(named), std::path::Path::new(served));
    a == b || a.exists() && std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}

const ISSUES_PATH_ONLY: &[(&str, &str, &str)] = &[];
const NEW_ISSUE: &[(&str, &str, &str)] = &[
    ("title", "title", "string"),
    ("id", "id", "string"),
    ("description", "description", "string"),
    ("status", "status", "string"),
    ("priority", "priority", "int"),
    ("issue_type", "issueType", "string"),
    ("assignee", "assignee", "string"),
    ("owner", "owner", "string"),
];
const LEASE_TERM: &[(&str, &str, &str)] = &[
    ("id", "id", "string"),
    ("assignee", "assignee", "string"),
    ("lease_id", "leaseId", "string"),
    ("lease_ttl_seconds", "leaseTtlSeconds", "int"),
    ("lease_expires_at", "leaseExpiresAt", "string"),
];

/// premath's tools with a tusk twin that `tusk mcp --premath-tools` serves,
/// in premath's order.
pub const MCP_TOOLS: [McpTool; 17] = [
    McpTool {
        name: "issue_ready",
        description: "List open issues that have no unresolved blocking dependencies",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_ready,
    },
    McpTool {
        name: "issue_list",
        description: "List issues with optional status/assignee filtering",
        args: &[("status", "status", "string"), ("assignee", "assignee", "string")],
        required: &[],
        effect: Effect::Read,
        run: mcp_list,
    },
    McpTool {
        name: "issue_check",
        description: "Run deterministic issue-graph contract checks",
        args: &[("note_warn_threshold", "noteWarnThreshold", "integer")],
        required: &[],
        effect: Effect::Read,
        run: mcp_check,
    },
    McpTool {
        name: "issue_backend_status",
        description: "Report issue backend integration state (jsonl authority, surreal projection, jj)",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_backend_status,
    },
    McpTool {
        name: "issue_blocked",
        description: "List non-closed issues that are explicitly blocked or have unresolved blocking dependencies",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_blocked,
    },
    McpTool {
        name: "issue_add",
        description: "Add an issue to the JSONL substrate",
        args: NEW_ISSUE,
        required: &["title"],
        effect: Effect::Mutation {
            action: "issue.add",
            join: false,
        },
        run: mcp_issue_add,
    },
    McpTool {
        name: "issue_claim",
        description: "Atomically claim an issue for work (sets assignee + in_progress)",
        args: LEASE_TERM,
        required: &["id", "assignee"],
        effect: Effect::Mutation {
            action: "issue.claim",
            join: false,
        },
        run: mcp_claim,
    },
    McpTool {
        name: "issue_lease_renew",
        description: "Renew an active issue lease by id/assignee/lease_id",
        args: LEASE_TERM,
        required: &["id", "assignee", "lease_id"],
        effect: Effect::Mutation {
            action: "issue.lease_renew",
            join: false,
        },
        run: mcp_lease_renew,
    },
    McpTool {
        name: "issue_lease_release",
        description: "Release an issue lease by id (optionally validating assignee/lease_id)",
        args: &[
            ("id", "id", "string"),
            ("assignee", "assignee", "string"),
            ("lease_id", "leaseId", "string"),
        ],
        required: &["id"],
        effect: Effect::Mutation {
            action: "issue.lease_release",
            join: false,
        },
        run: mcp_lease_release,
    },
    McpTool {
        name: "issue_discover",
        description: "Create a follow-up issue and link it with discovered-from dependency",
        args: &[
            ("parent_issue_id", "parentIssueId", "string"),
            ("title", "title", "string"),
            ("id", "id", "string"),
            ("description", "description", "string"),
            ("priority", "priority", "int"),
            ("issue_type", "issueType", "string"),
            ("assignee", "assignee", "string"),
            ("owner", "owner", "string"),
        ],
        required: &["parent_issue_id", "title"],
        effect: Effect::Mutation {
            action: "issue.discover",
            join: true,
        },
        run: mcp_issue_discover,
    },
    McpTool {
        name: "issue_update",
        description: "Update mutable issue fields by id",
        args: &[
            ("id", "id", "string"),
            ("title", "title", "string"),
            ("description", "description", "string"),
            ("notes", "notes", "string"),
            ("status", "status", "string"),
            ("priority", "priority", "int"),
            ("assignee", "assignee", "string"),
            ("owner", "owner", "string"),
        ],
        required: &["id"],
        effect: Effect::Mutation {
            action: "issue.update",
            join: true,
        },
        run: mcp_issue_update,
    },
    McpTool {
        name: "dep_add",
        description: "Add a dependency edge between issues",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("dep_type", "depType", "string"),
            ("created_by", "createdBy", "string"),
        ],
        required: &["issue_id", "depends_on_id"],
        effect: Effect::Mutation {
            action: "dep.add",
            join: true,
        },
        run: mcp_dep_add,
    },
    McpTool {
        name: "dep_remove",
        description: "Remove a dependency edge between issues",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("dep_type", "depType", "string"),
        ],
        required: &["issue_id", "depends_on_id"],
        effect: Effect::Mutation {
            action: "dep.remove",
            join: true,
        },
        run: mcp_dep_remove,
    },
    McpTool {
        name: "dep_replace",
        description: "Replace one dependency edge type with another",
        args: &[
            ("issue_id", "issueId", "string"),
            ("depends_on_id", "dependsOnId", "string"),
            ("from_dep_type", "fromDepType", "string"),
            ("to_dep_type", "toDepType", "string"),
            ("created_by", "createdBy", "string"),
        ],
        required: &["issue_id", "depends_on_id", "to_dep_type"],
        effect: Effect::Mutation {
            action: "dep.replace",
            join: true,
        },
        run: mcp_dep_replace,
    },
    McpTool {
        name: "dep_diagnostics",
        description: "Report dependency graph cycle diagnostics for active or full graph scope",
        args: &[("graph_scope", "graphScope", "scope")],
        required: &["graph_scope"],
        effect: Effect::Read,
        run: mcp_diagnostics,
    },
    McpTool {
        name: "init_tool",
        description: "Initialize premath local substrate (.premath/issues.jsonl), migrating legacy .beads store when present",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Init,
        run: mcp_init,
    },
    McpTool {
        name: "issue_lease_projection",
        description: "Return deterministic lease projection for stale/contended claims",
        args: ISSUES_PATH_ONLY,
        required: &[],
        effect: Effect::Read,
        run: mcp_lease_projection,
    },
];

// ------------------------------------------------ instruction witnesses

const POLICY_DIGEST_CI_V1: &str =
    "pol1_4ba916ce38da5c5607eb7f41d963294b34b644deb1fa6d55e133b072ca001b39";
const POLICY_DIGEST_TEST_V1: &str =
    "pol1_1ab3e7f398a472c2cf0f3fbd7ead7ece7bd74e836cbde924f1e33f02895d18ab";
/// premath's refusal of a mutation tool call without `instruction_id`.
pub const INSTRUCTION_REQUIRED: &str =
    "mutation policy `instruction-linked` requires `instruction_id` on mutation tools";

/// An instruction witness premath admits a mutation on.
pub struct InstructionLink {
    /// premath's `instruction` member (`instructionId`, `witnessPath`, …).
    pub json: Value,
    pub claims: Vec<String>,
}

/// The directory premath's server takes as its repository root, named as
/// premath names it (`<cwd>/.`).
pub fn server_root() -> std::io::Result<std::path::PathBuf> {
    Ok(std::env::current_dir()?.join("."))
}

/// premath's instruction-linked admission of mutation `action`: the witness
/// `<root>/artifacts/ciwitness/<id>.json` must exist, carry the id, be
/// accepted, be scoped by one of premath's policy digests, claim
/// `capabilities.change_morphisms` and the action's own claim (or `.all`),
/// have no failure class, and, when `join`, a closed join gate. Checked in
/// premath's order with its messages.
///
/// # Errors
/// premath's message for the first check that fails; an id that is not a
/// plain file name (tusk reads no other file).
pub fn instruction_link(
    root: &std::path::Path,
    id: &str,
    action: &str,
    join: bool,
) -> Result<InstructionLink, String> {
    if id.contains(['/', '\\', '\0']) || id == "." || id == ".." {
        return Err(format!(
            "instruction_id `{id}`: an instruction id names a witness in artifacts/ciwitness, not a path"
        ));
    }
    let path = root
        .join("artifacts")
        .join("ciwitness")
        .join(format!("{id}.json"));
    let shown = path.display().to_string();
    if !path.exists() {
        return Err(format!("instruction witness not found: {shown}"));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("failed to read {shown}: {e}"))?;
    let payload: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("failed to parse instruction witness {shown}: {e}"))?;
    let Some(in_witness) = payload["instructionId"].as_str() else {
        return Err(format!(
            "instruction witness missing `instructionId`: {shown}"
        ));
    };
    if in_witness != id {
        return Err(format!(
            "instruction witness id mismatch (expected `{id}`, got `{in_witness}`)"
        ));
    }
    let verdict = payload["verdictClass"].as_str();
    if verdict != Some("accepted") {
        return Err(format!(
            "instruction witness is not accepted for `{id}` (verdictClass={})",
            verdict.unwrap_or("missing")
        ));
    }
    let strings = |key: &str| -> Vec<String> {
        payload[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let claims = strings("capabilityClaims");
    let failures = strings("failureClasses");
    let join_failures = strings("joinFailureClasses");
    let join_closed = payload["joinClosed"].as_bool();
    let join_ref = payload["joinWitnessRef"].as_str();
    let join_present = ["joinClosed", "joinFailureClasses", "joinWitnessRef"]
        .iter()
        .any(|k| payload.get(*k).is_some());
    let policy = payload["policyDigest"].as_str();
    let json = json!({
        "instructionId": id,
        "witnessPath": shown,
        "instructionDigest": payload["instructionDigest"].as_str(),
        "policyDigest": policy,
        "capabilityClaims": claims,
        "requiredChecks": strings("requiredChecks"),
        "executedChecks": strings("executedChecks"),
        "failureClasses": failures,
        "joinGatePresent": join_present,
        "joinClosed": join_closed,
        "joinFailureClasses": join_failures,
        "joinWitnessRef": join_ref,
    });
    let Some(policy) = policy else {
        return Err(format!(
            "instruction witness `{id}` missing `policyDigest` required for mutation policy scope"
        ));
    };
    if policy != POLICY_DIGEST_CI_V1 && policy != POLICY_DIGEST_TEST_V1 {
        return Err(format!(
            "instruction policyDigest `{policy}` is not scoped for mutation action `{action}`"
        ));
    }
    use crate::host::gate::{required_claim, CHANGE_MORPHISMS, CHANGE_MORPHISMS_ALL};
    if !claims.iter().any(|c| c == CHANGE_MORPHISMS) {
        return Err(format!(
            "instruction `{id}` missing required capability claim `{CHANGE_MORPHISMS}` for mutation action `{action}`"
        ));
    }
    let own = required_claim(action).unwrap_or(CHANGE_MORPHISMS_ALL);
    if !claims.iter().any(|c| c == own || c == CHANGE_MORPHISMS_ALL) {
        return Err(format!(
            "instruction `{id}` missing required action capability claim `{own}` for mutation action `{action}`"
        ));
    }
    let first = |classes: &[String]| {
        classes
            .iter()
            .map(|c| c.trim())
            .find(|c| !c.is_empty())
            .map(str::to_string)
    };
    if let Some(class) = first(&failures) {
        return Err(format!(
            "[failureClass={class}] instruction witness rejected mutation action `{action}` (instructionWitness={shown})"
        ));
    }
    if join {
        let join_ref = join_ref.unwrap_or("missing");
        if !join_present {
            return Err(format!(
                "[failureClass={FAILURE_USE_EVIDENCE_MISSING}] instruction witness `{id}` missing join-gate evidence for mutation action `{action}` (instructionWitness={shown})"
            ));
        }
        if let Some(class) = first(&join_failures) {
            return Err(format!(
                "[failureClass={class}] instruction join gate rejected mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
        if join_closed != Some(true) {
            return Err(format!(
                "[failureClass=tool.join_incomplete] instruction join gate is not closed for mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
    }
    Ok(InstructionLink { json, claims })
}

// ------------------------------------------------------- the tools' actions

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

fn root_error(e: std::io::Error) -> ActionError {
    ActionError::new(
        FAILURE_EXECUTION_ERROR,
        format!("the server's directory: {e}"),
    )
}

/// premath's MCP `issue_backend_status`: `issue backend-status`'s report with
/// `queryBackend`, the repository root being the server's directory as
/// premath names it (`<cwd>/.`) and the projection cache under it.
fn mcp_backend_status(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    let repo = server_root().map_err(root_error)?;
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

/// premath's MCP `init_tool`: tusk's `init` of the server's directory, in
/// premath's MCP shape (`init.tool`, absolute paths as premath names them).
/// `layoutAbsent`: the front end found no `.premath/` before the call,
/// so this call made it (the run's own log, written before the action runs,
/// lives there).
fn mcp_init(_: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let root = server_root().map_err(root_error)?;
    let layout = match crate::issues::layout::init_layout(&root) {
        Ok(l) => l,
        Err(message) => {
            return Ok(ActionOutcome::rejected(
                vec![FAILURE_EXECUTION_ERROR.into()],
                message,
            ))
        }
    };
    let show = |p: &std::path::Path| p.display().to_string();
    Ok(ActionOutcome::accepted(json!({
        "action": "init.tool",
        "repoRoot": show(&layout.repo_root),
        "premathDir": show(&layout.premath_dir),
        "issuesPath": show(&layout.issues_path),
        "createdRepoRoot": layout.created_root,
        "createdPremathDir": layout.created_premath_dir
            || args["layoutAbsent"].as_bool().unwrap_or(false),
        "createdIssuesFile": layout.created_issues,
        "migratedFromLegacy": layout.migrated_from.as_deref().map(show),
    })))
}

/// The store path as premath shows its default (`.premath/issues.jsonl`).
fn shown_store(ctx: &ActionContext<'_>) -> String {
    let shown = ctx.paths.issues.path();
    shown
        .strip_prefix(".")
        .unwrap_or(shown)
        .display()
        .to_string()
}

/// premath's refusal of a mutation on a store file that does not exist.
fn store_missing(ctx: &ActionContext<'_>) -> Option<ActionOutcome> {
    match &ctx.paths.issues {
        crate::issues::IssueStore::Jsonl(file) if !file.exists() => Some(ActionOutcome::rejected(
            vec![FAILURE_EXECUTION_ERROR.into()],
            format!("issues file not found: {}", shown_store(ctx)),
        )),
        _ => None,
    }
}

/// premath's issue types (its MCP tools refuse the others).
const PREMATH_ISSUE_TYPES: [&str; 2] = ["epic", "task"];
/// premath's dependency types, in its order.
const PREMATH_DEP_TYPES: [&str; 10] = [
    "blocks",
    "parent-child",
    "conditional-blocks",
    "related",
    "discovered-from",
    "relates-to",
    "duplicates",
    "supersedes",
    "waits-for",
    "replies-to",
];

/// An issue type as premath's tools take it (default `task`).
fn premath_issue_type(args: &Value) -> Result<String, ActionOutcome> {
    let raw = str_arg(args, "issueType").unwrap_or_else(|| "task".into());
    if PREMATH_ISSUE_TYPES.contains(&raw.as_str()) {
        return Ok(raw);
    }
    Err(ActionOutcome::rejected(
        vec![IssueClass::InvalidType.as_str().into()],
        format!(
            "invalid issue_type `{raw}` (expected one of: {})",
            PREMATH_ISSUE_TYPES.join(", ")
        ),
    ))
}

/// A dependency type as premath's tools take it (default `blocks`).
fn premath_dep_type(args: &Value, key: &str) -> Result<String, ActionOutcome> {
    let raw = str_arg(args, key).unwrap_or_else(|| "blocks".into());
    if PREMATH_DEP_TYPES.contains(&raw.as_str()) {
        return Ok(raw);
    }
    Err(ActionOutcome::rejected(
        vec![IssueClass::DepInvalidType.as_str().into()],
        format!(
            "invalid dep_type `{raw}` (expected one of: {})",
            PREMATH_DEP_TYPES.join(", ")
        ),
    ))
}

/// premath's text for a refusal tusk's issue memory reports by `class`
/// (premath words its store errors its own way), or tusk's diagnostic
/// where premath has no such refusal.
fn premath_refusal(tool: &str, class: &str, args: &Value, report: &Value) -> String {
    let arg = |k: &str| args[k].as_str().unwrap_or_default().to_string();
    let (issue, target) = (arg("issueId"), arg("dependsOnId"));
    let dep_type = |key: &str| str_arg(args, key).unwrap_or_else(|| "blocks".into());
    let store = match tool {
        "dep_add" => "failed to add dependency: ",
        "dep_remove" => "failed to remove dependency: ",
        _ => "failed to replace dependency: ",
    };
    let own = report["diagnostic"].as_str().unwrap_or(class).to_string();
    match (tool, IssueClass::parse(class)) {
        ("issue_add" | "issue_discover", Some(IssueClass::DuplicateId)) => {
            format!("issue already exists: {}", arg("id"))
        }
        ("issue_discover", Some(IssueClass::ParentNotFound)) => {
            format!("parent issue not found: {}", arg("parentIssueId"))
        }
        ("issue_update", Some(IssueClass::NotFound)) => format!("issue not found: {}", arg("id")),
        ("issue_update", Some(IssueClass::UpdateEmpty)) => "no update fields provided".into(),
        (_, Some(IssueClass::DepIssueNotFound)) => format!("{store}issue not found: {issue}"),
        (_, Some(IssueClass::DepTargetNotFound)) => format!("{store}issue not found: {target}"),
        ("dep_add", Some(IssueClass::DepSelfLoop)) => format!(
            "{store}dependency self-loop is not allowed: {issue} ({})",
            dep_type("depType")
        ),
        ("dep_add", Some(IssueClass::DepDuplicate)) => format!(
            "{store}dependency already exists: {issue} -> {target} ({})",
            dep_type("depType")
        ),
        ("dep_add", Some(IssueClass::DepCycle)) => {
            let path: Vec<&str> = report["cycle"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "{store}dependency cycle detected: {issue} -> {target} ({}); path: {}",
                dep_type("depType"),
                path.join(" -> ")
            )
        }
        ("dep_remove", Some(IssueClass::DepNotFound)) => format!(
            "{store}dependency not found: {issue} -> {target} ({})",
            dep_type("depType")
        ),
        ("dep_replace", Some(IssueClass::DepNotFound)) => format!(
            "{store}dependency not found: {issue} -> {target} ({})",
            dep_type("fromDepType")
        ),
        _ => own,
    }
}

/// The server directory's jj snapshot as premath takes it, before the
/// mutation writes (`null` outside a jj workspace).
fn jj_before() -> Result<Value, ActionError> {
    let root = server_root().map_err(root_error)?;
    Ok(crate::issues::backend::jj_snapshot(&root).unwrap_or(Value::Null))
}

/// premath's write witness (`bd.issue.write.v1`) of a mutation made at
/// `ctx.now` (a replay sees the recorded instant, so the same witness),
/// `jj` taken before it wrote.
fn write_witness(
    ctx: &ActionContext<'_>,
    action: &str,
    issue_id: &str,
    instruction: &Value,
    jj: Value,
) -> Result<Value, ActionError> {
    let root = server_root().map_err(root_error)?;
    Ok(json!({
        "schema": 1,
        "witnessKind": "bd.issue.write.v1",
        "witnessId": format!("bdw1_{}", ctx.now.timestamp_nanos_opt().unwrap_or_default()),
        "action": action,
        "issueId": issue_id,
        "issuesPath": shown_store(ctx),
        "recordedAtUnixMs": ctx.now.timestamp_millis(),
        "repoRoot": root.display().to_string(),
        "mutationPolicy": "instruction-linked",
        "queryBackend": crate::issues::projection::backend_name(&ctx.paths.issues),
        "instruction": instruction,
        "jjSnapshot": jj,
    }))
}

/// The `instruction` argument the front end passes: the link's JSON text.
fn instruction_arg(args: &Value) -> Result<Value, ActionError> {
    serde_json::from_str(args["instruction"].as_str().unwrap_or("null")).map_err(|e| {
        ActionError::new(
            crate::host::registry::CLASS_ARGS_INVALID,
            format!("instruction: not the JSON of an instruction link: {e}"),
        )
    })
}

/// premath's answer to an accepted issue/dep mutation: `{action,
/// issuesPath, queryBackend, instruction, writeWitness}` plus `members`.
fn mutation_answer(
    ctx: &ActionContext<'_>,
    action: &str,
    issue_id: &str,
    args: &Value,
    jj: Value,
    members: Map<String, Value>,
) -> Result<ActionOutcome, ActionError> {
    let instruction = instruction_arg(args)?;
    let mut m = members;
    m.insert("action".into(), json!(action));
    m.insert("issuesPath".into(), json!(shown_store(ctx)));
    m.insert(
        "queryBackend".into(),
        json!(crate::issues::projection::backend_name(&ctx.paths.issues)),
    );
    m.insert(
        "writeWitness".into(),
        write_witness(ctx, action, issue_id, &instruction, jj)?,
    );
    m.insert("instruction".into(), instruction);
    Ok(ActionOutcome::accepted(Value::Object(m)))
}

/// The issue `id` as premath's summary, read back after a mutation (tusk's
/// mutation reports carry no lease; a writer in between would show here,
/// where premath shows the issue as it wrote it).
fn summary_of(ctx: &ActionContext<'_>, id: &str) -> Result<Value, ActionError> {
    let text = ctx
        .paths
        .issues
        .read_text()
        .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    let store = Store::parse(ctx.paths.issues.path(), &text)
        .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    Ok(store
        .get(id)
        .map_or(Value::Null, |i| mcp_summary(&store, i, ctx.now)))
}

/// Runs one of tusk's issue-memory mutations; a refusal answers premath's
/// text (with tusk's class).
fn mutate_as(
    tool: &str,
    args: &Value,
    report: Result<crate::issues::Report, crate::issues::store::StoreError>,
) -> Result<Result<Value, ActionOutcome>, ActionError> {
    let report = report.map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    let classes = report.failure_classes.clone();
    let payload = report.into_value();
    match classes.first() {
        None => Ok(Ok(payload)),
        Some(class) => Ok(Err(ActionOutcome::rejected(
            classes.clone(),
            premath_refusal(tool, class, args, &payload),
        ))),
    }
}

fn mutation_ctx<'p>(ctx: &'p ActionContext<'_>) -> crate::issues::mutate::MutationCtx<'p> {
    crate::issues::mutate::MutationCtx::new(&ctx.paths.issues, LockOptions::default(), ctx.now)
}

/// Returns early with a refusal.
macro_rules! refused {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(refusal) => return Ok(refusal),
        }
    };
}

fn new_issue(
    args: &Value,
    issue_type: String,
    status: Option<String>,
) -> crate::issues::mutate::NewIssue {
    let text = |k: &str| args[k].as_str().map(str::to_string);
    crate::issues::mutate::NewIssue {
        title: text("title").unwrap_or_default(),
        id: str_arg(args, "id"),
        description: text("description"),
        status,
        priority: Some(args["priority"].as_i64().unwrap_or(2)),
        issue_type: Some(issue_type),
        assignee: text("assignee"),
        owner: text("owner"),
        ..Default::default()
    }
}

fn mcp_issue_add(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    let issue_type = refused!(premath_issue_type(args));
    let new = new_issue(args, issue_type, str_arg(args, "status"));
    let made = refused!(mutate_as(
        "issue_add",
        args,
        crate::issues::mutate::add(&mutation_ctx(ctx), &new)
    )?);
    let id = made["issue"]["id"].as_str().unwrap_or_default().to_string();
    let mut m = Map::new();
    m.insert("issue".into(), summary_of(ctx, &id)?);
    mutation_answer(ctx, "issue.add", &id, args, jj, m)
}

fn mcp_issue_discover(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let issue_type = refused!(premath_issue_type(args));
    let parent = args["parentIssueId"].as_str().unwrap_or_default();
    let new = new_issue(args, issue_type, Some("open".into()));
    let made = refused!(mutate_as(
        "issue_discover",
        args,
        crate::issues::mutate::discover(&mutation_ctx(ctx), parent, &new)
    )?);
    let id = made["issue"]["id"].as_str().unwrap_or_default().to_string();
    let mut m = Map::new();
    m.insert("issue".into(), summary_of(ctx, &id)?);
    m.insert(
        "dependency".into(),
        json!({"issueId": id, "dependsOnId": parent, "type": "discovered-from"}),
    );
    mutation_answer(ctx, "issue.discover", &id, args, jj, m)
}

fn mcp_issue_update(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let id = args["id"].as_str().unwrap_or_default().to_string();
    let text = |k: &str| args[k].as_str().map(str::to_string);
    let changes = crate::issues::mutate::IssueChanges {
        title: text("title"),
        description: text("description"),
        notes: text("notes"),
        // premath ignores a blank status.
        status: str_arg(args, "status"),
        priority: args["priority"].as_i64(),
        assignee: text("assignee"),
        owner: text("owner"),
        ..Default::default()
    };
    refused!(mutate_as(
        "issue_update",
        args,
        crate::issues::mutate::update(&mutation_ctx(ctx), &id, &changes)
    )?);
    let mut m = Map::new();
    m.insert("issue".into(), summary_of(ctx, &id)?);
    mutation_answer(ctx, "issue.update", &id, args, jj, m)
}

fn edge_of(args: &Value) -> crate::issues::mutate::EdgeRef {
    crate::issues::mutate::EdgeRef {
        issue_id: args["issueId"].as_str().unwrap_or_default().to_string(),
        depends_on_id: args["dependsOnId"].as_str().unwrap_or_default().to_string(),
    }
}

fn mcp_dep_add(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let dep_type = refused!(premath_dep_type(args, "depType"));
    let created_by = args["createdBy"].as_str().unwrap_or_default();
    let edge = edge_of(args);
    refused!(mutate_as(
        "dep_add",
        args,
        crate::issues::mutate::dep_add(&mutation_ctx(ctx), &edge, &dep_type, created_by)
    )?);
    let mut m = Map::new();
    m.insert(
        "dependency".into(),
        json!({"issueId": edge.issue_id, "dependsOnId": edge.depends_on_id, "type": dep_type, "createdBy": created_by}),
    );
    mutation_answer(ctx, "dep.add", &edge.issue_id, args, jj, m)
}

fn mcp_dep_remove(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let dep_type = refused!(premath_dep_type(args, "depType"));
    let edge = edge_of(args);
    refused!(mutate_as(
        "dep_remove",
        args,
        crate::issues::mutate::dep_remove(&mutation_ctx(ctx), &edge, Some(&dep_type))
    )?);
    let mut m = Map::new();
    m.insert(
        "dependency".into(),
        json!({"issueId": edge.issue_id, "dependsOnId": edge.depends_on_id, "type": dep_type}),
    );
    mutation_answer(ctx, "dep.remove", &edge.issue_id, args, jj, m)
}

fn mcp_dep_replace(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    if let Some(refusal) = store_missing(ctx) {
        return Ok(refusal);
    }
    let from_type = refused!(premath_dep_type(args, "fromDepType"));
    let to_type = refused!(premath_dep_type(args, "toDepType"));
    let created_by = args["createdBy"].as_str().unwrap_or_default();
    let edge = edge_of(args);
    let change = crate::issues::mutate::DepReplacement {
        from_type: Some(&from_type),
        to_type: &to_type,
        created_by,
    };
    refused!(mutate_as(
        "dep_replace",
        args,
        crate::issues::mutate::dep_replace(&mutation_ctx(ctx), &edge, &change)
    )?);
    let mut m = Map::new();
    m.insert(
        "dependency".into(),
        json!({
            "issueId": edge.issue_id, "dependsOnId": edge.depends_on_id,
            "fromType": from_type, "toType": to_type, "createdBy": created_by,
        }),
    );
    mutation_answer(ctx, "dep.replace", &edge.issue_id, args, jj, m)
}

/// A lease tool through premath's transport (`tusk transport-dispatch`'s
/// code): a refusal is premath's `[failureClass=C] diagnostic`; an answer
/// premath's `{…, issue, changed, leaseProjection, writeWitness}` (the write
/// witness only when the store changed).
fn mcp_lease(
    action: &str,
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    let mut payload = args.clone();
    if let Some(m) = payload.as_object_mut() {
        m.remove("instruction");
    }
    let store = ctx.paths.issues.clone();
    let open = move |_: Option<&str>| Ok(store.clone());
    let answer =
        crate::issues::transport::dispatch(action, &payload, open, LockOptions::default(), ctx.now);
    if answer["result"] != "accepted" {
        let class = non_empty(answer["failureClasses"][0].as_str())
            .unwrap_or_else(|| PremathClass::TransportRejected.as_str().into());
        let diagnostic = non_empty(answer["diagnostic"].as_str())
            .unwrap_or_else(|| format!("transport action rejected: {action}"));
        return Ok(ActionOutcome::rejected(
            vec![class.clone()],
            format!("[failureClass={class}] {diagnostic}"),
        ));
    }
    let changed = answer["changed"].as_bool().unwrap_or(false);
    let id = args["id"].as_str().unwrap_or_default();
    let mut outcome = mutation_answer(
        ctx,
        action,
        id,
        args,
        jj,
        Map::from_iter([
            ("issue".to_string(), answer["issue"].clone()),
            ("changed".to_string(), json!(changed)),
            (
                "leaseProjection".to_string(),
                answer["leaseProjection"].clone(),
            ),
        ]),
    )?;
    if !changed {
        outcome.payload["writeWitness"] = Value::Null;
    }
    Ok(outcome)
}

fn mcp_claim(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    mcp_lease("issue.claim", ctx, args)
}

fn mcp_lease_renew(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    mcp_lease("issue.lease_renew", ctx, args)
}

fn mcp_lease_release(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    mcp_lease("issue.lease_release", ctx, args)
}

/// The actions behind [`MCP_TOOLS`] (`premath.issue_ready`, …), each
/// answering premath's MCP result object; a missing store is premath's
/// refusal (`issues file not found: PATH`). The mutations are governed as
/// their tusk twins and take the front end's instruction link (its JSON
/// text) as `instruction`.
pub fn mcp_actions() -> Vec<Arc<dyn HostAction>> {
    let twins = crate::runtime::builtin_registry();
    MCP_TOOLS
        .iter()
        .map(|tool| {
            let mut args: Vec<(&str, &str)> = tool
                .args
                .iter()
                .map(|(_, camel, ty)| {
                    let ty = match *ty {
                        "scope" => "string",
                        "int" => "integer",
                        other => other,
                    };
                    (*camel, ty)
                })
                .collect();
            let (kind, governed) = match tool.effect {
                Effect::Read => (ActionKind::Read, None),
                Effect::Mutation { action, .. } => {
                    args.push(("instruction", "string"));
                    (ActionKind::Mutation, Some(action))
                }
                Effect::Init => {
                    args.push(("layoutAbsent", "boolean"));
                    (ActionKind::Mutation, Some("issue.add"))
                }
            };
            // A mutation reports its twin's classes (premath's type refusals among them).
            let mut classes = vec![FAILURE_EXECUTION_ERROR];
            let twin = match tool.effect {
                Effect::Mutation { action, .. } => twins.get(action),
                _ => None,
            };
            if let Some(twin) = twin {
                classes.extend(twin.spec().failure_classes.iter().map(String::as_str));
            }
            classes.sort_unstable();
            classes.dedup();
            let mut a = PremathAction::new(
                &tool.action_id(),
                kind,
                tool.description,
                &args,
                &classes,
                Box::new(tool.run),
            );
            a.governed = governed;
            Arc::new(a) as Arc<dyn HostAction>
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
