//! The actions behind premath's MCP tools (`premath.issue_ready`, …): each
//! answers premath's MCP result object through tusk's issue memory.

use super::*;

/// premath's issue summary: `{assignee, id, issueType, owner, priority,
/// status, title, lease {…, state} | null}`.
pub(super) fn mcp_summary(
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
pub(super) fn mcp_listing(action: &str, path: &str, items: Vec<Value>) -> Map<String, Value> {
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
pub(super) fn mcp_projection(store: &Store<'_>, now: chrono::DateTime<chrono::Utc>) -> Value {
    crate::issues::projection::lease_projection(store, &Default::default(), now)
        .remove("projection")
        .unwrap_or(Value::Null)
}

pub(super) fn mcp_ready(ctx: &ActionContext<'_>, _: &Value) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let items = ready_by_id(store)
            .into_iter()
            .map(|i| mcp_summary(store, i, ctx.now))
            .collect();
        let mut m = mcp_listing("issue.ready", path, items);
        m.insert("leaseProjection".into(), mcp_projection(store, ctx.now));
        Ok(ActionOutcome::accepted(Value::Object(m)))
    })
}

pub(super) fn mcp_list(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    with_store(ctx, |store, path| {
        let items = listed(store, args)
            .into_iter()
            .map(|i| mcp_summary(store, i, ctx.now))
            .collect();
        Ok(ActionOutcome::accepted(Value::Object(mcp_listing(
            "issue.list",
            path,
            items,
        ))))
    })
}

pub(super) fn mcp_blocked(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
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
pub(super) fn mcp_check(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let mut outcome = check_issues(ctx, args)?;
    if outcome.payload.get("checkKind").is_some() {
        outcome.failure_classes.clear();
    }
    Ok(outcome)
}

pub(super) fn mcp_diagnostics(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let mut outcome = diagnostics(ctx, args)?;
    if outcome.is_accepted() {
        outcome.payload["queryBackend"] = json!("jsonl");
    }
    Ok(outcome)
}

pub(super) fn mcp_lease_projection(
    ctx: &ActionContext<'_>,
    _: &Value,
) -> Result<ActionOutcome, ActionError> {
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

pub(super) fn root_error(e: std::io::Error) -> ActionError {
    ActionError::new(
        FAILURE_EXECUTION_ERROR,
        format!("the server's directory: {e}"),
    )
}

/// premath's MCP `issue_backend_status`: `issue backend-status`'s report with
/// `queryBackend`, the repository root being the server's directory as
/// premath names it (`<cwd>/.`) and the projection cache under it.
pub(super) fn mcp_backend_status(
    ctx: &ActionContext<'_>,
    _: &Value,
) -> Result<ActionOutcome, ActionError> {
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
pub(super) fn mcp_init(_: &ActionContext<'_>, args: &Value) -> Result<ActionOutcome, ActionError> {
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
pub(super) fn shown_store(ctx: &ActionContext<'_>) -> String {
    let shown = ctx.paths.issues.path();
    shown
        .strip_prefix(".")
        .unwrap_or(shown)
        .display()
        .to_string()
}

/// premath's refusal of a mutation on a store file that does not exist.
pub(super) fn store_missing(ctx: &ActionContext<'_>) -> Option<ActionOutcome> {
    match &ctx.paths.issues {
        crate::issues::IssueStore::Jsonl(file) if !file.exists() => Some(ActionOutcome::rejected(
            vec![FAILURE_EXECUTION_ERROR.into()],
            format!("issues file not found: {}", shown_store(ctx)),
        )),
        _ => None,
    }
}

/// premath's issue types (its MCP tools refuse the others).
pub(super) const PREMATH_ISSUE_TYPES: [&str; 2] = ["epic", "task"];
/// premath's dependency types, in its order.
pub(super) const PREMATH_DEP_TYPES: [&str; 10] = [
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
pub(super) fn premath_issue_type(args: &Value) -> Result<String, ActionOutcome> {
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
pub(super) fn premath_dep_type(args: &Value, key: &str) -> Result<String, ActionOutcome> {
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
pub(super) fn premath_refusal(tool: &str, class: &str, args: &Value, report: &Value) -> String {
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
pub(super) fn jj_before() -> Result<Value, ActionError> {
    let root = server_root().map_err(root_error)?;
    Ok(crate::issues::backend::jj_snapshot(&root).unwrap_or(Value::Null))
}

/// What a mutation tool does before it writes: the jj snapshot (taken first,
/// as premath does), then premath's refusal of a store that does not exist.
pub(super) fn before_write(
    ctx: &ActionContext<'_>,
) -> Result<Result<Value, ActionOutcome>, ActionError> {
    let jj = jj_before()?;
    Ok(match store_missing(ctx) {
        Some(refusal) => Err(refusal),
        None => Ok(jj),
    })
}

/// premath's write witness (`bd.issue.write.v1`) of a mutation made at
/// `ctx.now` (a replay sees the recorded instant, so the same witness),
/// `jj` taken before it wrote.
pub(super) fn write_witness(
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
pub(super) fn instruction_arg(args: &Value) -> Result<Value, ActionError> {
    serde_json::from_str(args["instruction"].as_str().unwrap_or("null")).map_err(|e| {
        ActionError::new(
            crate::host::registry::CLASS_ARGS_INVALID,
            format!("instruction: not the JSON of an instruction link: {e}"),
        )
    })
}

/// premath's answer to an accepted issue/dep mutation: `{action,
/// issuesPath, queryBackend, instruction, writeWitness}` plus `members`.
pub(super) fn mutation_answer(
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
pub(super) fn summary_of(ctx: &ActionContext<'_>, id: &str) -> Result<Value, ActionError> {
    Ok(ctx.paths.issues.read(|store| {
        store
            .get(id)
            .map_or(Value::Null, |i| mcp_summary(store, i, ctx.now))
    })?)
}

/// Runs one of tusk's issue-memory mutations; a refusal answers premath's
/// text (with tusk's class).
pub(super) fn mutate_as(
    tool: &str,
    args: &Value,
    report: Result<crate::issues::Report, crate::issues::store::StoreError>,
) -> Result<Result<Value, ActionOutcome>, ActionError> {
    let report = report?;
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

/// Returns early with a refusal.
macro_rules! refused {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(refusal) => return Ok(refusal),
        }
    };
}

pub(super) fn new_issue(
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

pub(super) fn mcp_issue_add(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = jj_before()?;
    let issue_type = refused!(premath_issue_type(args));
    let new = new_issue(args, issue_type, str_arg(args, "status"));
    let made = refused!(mutate_as(
        "issue_add",
        args,
        crate::issues::mutate::add(&crate::issues::actions::mutation_ctx(ctx), &new)
    )?);
    let id = made["issue"]["id"].as_str().unwrap_or_default().to_string();
    let mut m = Map::new();
    m.insert("issue".into(), summary_of(ctx, &id)?);
    mutation_answer(ctx, "issue.add", &id, args, jj, m)
}

pub(super) fn mcp_issue_discover(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = refused!(before_write(ctx)?);
    let issue_type = refused!(premath_issue_type(args));
    let parent = args["parentIssueId"].as_str().unwrap_or_default();
    let new = new_issue(args, issue_type, Some("open".into()));
    let made = refused!(mutate_as(
        "issue_discover",
        args,
        crate::issues::mutate::discover(&crate::issues::actions::mutation_ctx(ctx), parent, &new)
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

pub(super) fn mcp_issue_update(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = refused!(before_write(ctx)?);
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
        crate::issues::mutate::update(&crate::issues::actions::mutation_ctx(ctx), &id, &changes)
    )?);
    let mut m = Map::new();
    m.insert("issue".into(), summary_of(ctx, &id)?);
    mutation_answer(ctx, "issue.update", &id, args, jj, m)
}

pub(super) fn edge_of(args: &Value) -> crate::issues::mutate::EdgeRef {
    crate::issues::mutate::EdgeRef {
        issue_id: args["issueId"].as_str().unwrap_or_default().to_string(),
        depends_on_id: args["dependsOnId"].as_str().unwrap_or_default().to_string(),
    }
}

pub(super) fn mcp_dep_add(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = refused!(before_write(ctx)?);
    let dep_type = refused!(premath_dep_type(args, "depType"));
    let created_by = args["createdBy"].as_str().unwrap_or_default();
    let edge = edge_of(args);
    refused!(mutate_as(
        "dep_add",
        args,
        crate::issues::mutate::dep_add(
            &crate::issues::actions::mutation_ctx(ctx),
            &edge,
            &dep_type,
            created_by
        )
    )?);
    let mut m = Map::new();
    m.insert(
        "dependency".into(),
        json!({"issueId": edge.issue_id, "dependsOnId": edge.depends_on_id, "type": dep_type, "createdBy": created_by}),
    );
    mutation_answer(ctx, "dep.add", &edge.issue_id, args, jj, m)
}

pub(super) fn mcp_dep_remove(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = refused!(before_write(ctx)?);
    let dep_type = refused!(premath_dep_type(args, "depType"));
    let edge = edge_of(args);
    refused!(mutate_as(
        "dep_remove",
        args,
        crate::issues::mutate::dep_remove(
            &crate::issues::actions::mutation_ctx(ctx),
            &edge,
            Some(&dep_type)
        )
    )?);
    let mut m = Map::new();
    m.insert(
        "dependency".into(),
        json!({"issueId": edge.issue_id, "dependsOnId": edge.depends_on_id, "type": dep_type}),
    );
    mutation_answer(ctx, "dep.remove", &edge.issue_id, args, jj, m)
}

pub(super) fn mcp_dep_replace(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    let jj = refused!(before_write(ctx)?);
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
        crate::issues::mutate::dep_replace(
            &crate::issues::actions::mutation_ctx(ctx),
            &edge,
            &change
        )
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
pub(super) fn mcp_lease(
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

pub(super) fn mcp_claim(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    mcp_lease("issue.claim", ctx, args)
}

pub(super) fn mcp_lease_renew(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
    mcp_lease("issue.lease_renew", ctx, args)
}

pub(super) fn mcp_lease_release(
    ctx: &ActionContext<'_>,
    args: &Value,
) -> Result<ActionOutcome, ActionError> {
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
            // Who acts is its twin's rule (host::actor): the same arguments.
            for name in twin
                .map(|t| crate::host::actor::actor_args(&t.spec().args))
                .unwrap_or_default()
            {
                if let Some(p) = a.spec.args["properties"].get_mut(&name) {
                    p[crate::host::actor::ACTOR_MARK] = "principal".into();
                }
            }
            Arc::new(a) as Arc<dyn HostAction>
        })
        .collect()
}
