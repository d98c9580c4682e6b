//! The registry of premath-shaped actions a `scheme-eval` program runs
//! against: the contract's allowlist, the supported actions over tusk's issue
//! memory, and refusals for the rest.

use super::*;

pub(super) type Run =
    dyn Fn(&ActionContext<'_>, &Value) -> Result<ActionOutcome, ActionError> + Send + Sync;

/// One premath-shaped host action.
pub(super) struct PremathAction {
    pub(super) spec: ActionSpec,
    run: Box<Run>,
    /// The tusk mutation the gate admits it as (premath's MCP mutations).
    pub(super) governed: Option<&'static str>,
}

impl PremathAction {
    pub(super) fn new(
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
pub(super) fn any_args() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": true})
}

pub(super) fn args_schema(props: &[(&str, &str)]) -> Value {
    let properties: Map<String, Value> = props
        .iter()
        .map(|(name, ty)| (name.to_string(), json!({"type": ty})))
        .collect();
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

pub(super) fn action(
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
pub(super) fn refusing(id: &str, class: &str, diagnostic: String) -> Arc<dyn HostAction> {
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
pub(super) fn with_store(
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
    let store = match ctx.paths.issues.parse(&text) {
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
pub(super) fn by_id<'s, 'a>(store: &'s Store<'a>) -> Vec<&'s crate::issues::model::Issue<'a>> {
    let mut issues: Vec<_> = store.issues().collect();
    issues.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
    issues
}

/// premath's `issue_list` selection: by id, optionally of one status and one
/// assignee (the scheme-eval action and the MCP tool both list this way).
pub(super) fn listed<'s, 'a>(
    store: &'s Store<'a>,
    args: &Value,
) -> Vec<&'s crate::issues::model::Issue<'a>> {
    let status = str_arg(args, "status");
    let assignee = str_arg(args, "assignee");
    by_id(store)
        .into_iter()
        .filter(|i| status.as_deref().is_none_or(|s| i.status.as_str() == s))
        .filter(|i| {
            assignee
                .as_deref()
                .is_none_or(|a| i.assignee.as_ref().map_or("", |x| x.as_str()) == a)
        })
        .collect()
}

pub(super) fn listing(action: &str, path: &str, items: Vec<Value>) -> ActionOutcome {
    ActionOutcome::accepted(json!({
        "action": action,
        "issuesPath": path,
        "count": items.len(),
        "items": items,
    }))
}

pub(super) fn str_arg(args: &Value, key: &str) -> Option<String> {
    non_empty(args[key].as_str())
}

/// premath's `issue_ready` selection: the ready issues by id (the
/// scheme-eval action and the MCP tool both list this way).
pub(super) fn ready_by_id<'s, 'a>(
    store: &'s Store<'a>,
) -> Vec<&'s crate::issues::model::Issue<'a>> {
    let ready: BTreeSet<&str> = crate::issues::views::ready(store)
        .into_iter()
        .map(|i| i.id.as_str())
        .collect();
    by_id(store)
        .into_iter()
        .filter(|i| ready.contains(i.id.as_str()))
        .collect()
}

pub(super) fn ready(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let items = ready_by_id(store)
            .into_iter()
            .map(|i| {
                json!({"id": i.id.as_str(), "title": i.title.as_str(), "status": i.status.as_str(), "priority": i.priority})
            })
            .collect();
        Ok(listing("issue.ready", path, items))
    })
}

pub(super) fn list(ctx: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let items = listed(store, args)
            .into_iter()
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

pub(super) fn blocked(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
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

pub(super) fn check_issues(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let threshold = args["noteWarnThreshold"].as_u64().unwrap_or(2000) as usize;
    with_store(ctx, |store, path| {
        // premath's twin judges with premath's own commands.
        let commands = crate::issues::content::Commands::premath();
        let report = crate::issues::views::check_payload(store, path, ctx.now, threshold, commands);
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

pub(super) fn diagnostics(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
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
pub(super) fn lease(id: &'static str) -> Box<Run> {
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
