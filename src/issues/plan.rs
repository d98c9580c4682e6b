//! A dry run's plan (issue 59): what an atomic run would change, as one
//! canonical JSON object, `tusk.plan.v1`.
//!
//! - `changes`: per issue the run wrote (sorted by id), whether it is new,
//!   each field whose value differs with its value `before` (absent for a
//!   new issue or a new field: `null`) and `after`, and, read from those
//!   fields, the comments added and the dependency edges added and removed;
//! - `reads`: every issue the run read or wrote, with the version the run
//!   saw: the digest of its line (`null` when it did not exist);
//! - `actions`: the mutations the run staged (what approval rules judge),
//!   `requestedBy` (the run's principal), `programDigest`, and `store` (the
//!   path or URL the plan is for);
//! - `planId`: `plan-` and the SHA-256 of the canonical JSON of all the
//!   above. The same program on the same store state gives the same plan,
//!   byte for byte, in any process; an edited plan no longer matches its id.
//!
//! [`apply`] applies a plan (the `plan.apply` action, `tusk plan apply`):
//! exactly its changes, when every issue it read is at the version it read
//! (`plan.stale` otherwise); a forged or edited plan is `plan.invalid`.

use super::footprint::Footprint;
use super::mutate::MutationCtx;
use super::overlay::{Change, Overlay};
use super::store::{Edit, Store, StoreError};
use super::Report;
use crate::canonical;
use serde_json::{json, Map, Value};

/// The plan's `kind`.
pub const KIND: &str = "tusk.plan.v1";

/// The plan of `overlay`'s staged changes, for the program of
/// `program_digest` run by `requested_by`.
///
/// # Errors
/// A base or staged line that does not parse (never, once staged).
pub fn of(
    overlay: &Overlay,
    program_digest: &str,
    requested_by: Option<&str>,
) -> Result<Value, StoreError> {
    let changes: Vec<Value> = overlay.changes()?.iter().map(change).collect();
    let (read, written) = overlay.read_and_written();
    let mut ids: Vec<String> = read.into_iter().chain(written).collect();
    ids.sort();
    ids.dedup();
    let reads: Vec<Value> = overlay
        .base_lines(&ids)?
        .into_iter()
        .map(|(id, line)| json!({"id": id, "version": line.map(|l| canonical::sha256_text(&l))}))
        .collect();
    let mut plan = json!({
        "kind": KIND,
        "actions": overlay.actions(),
        "requestedBy": requested_by,
        "programDigest": program_digest,
        "store": overlay.base().path().display().to_string(),
        "changes": changes,
        "reads": reads,
    });
    let id = format!(
        "plan-{}",
        canonical::sha256_hex(canonical::to_canonical_string(&plan).as_bytes())
    );
    plan["planId"] = json!(id);
    Ok(canonical::sorted(&plan))
}

/// One issue's change.
fn change(c: &Change) -> Value {
    let empty = Map::new();
    let before = c.before.as_ref().unwrap_or(&empty);
    let mut fields = Map::new();
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(c.after.keys()).collect();
    for key in keys {
        let (was, is) = (before.get(key), c.after.get(key));
        if was != is {
            fields.insert(
                key.clone(),
                json!({"before": was.cloned().unwrap_or(Value::Null), "after": is.cloned().unwrap_or(Value::Null)}),
            );
        }
    }
    let list = |m: &Map<String, Value>, key: &str| -> Vec<Value> {
        m.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let added = |key: &str| -> Vec<Value> {
        let was = list(before, key);
        list(&c.after, key)
            .into_iter()
            .filter(|v| !was.contains(v))
            .collect()
    };
    let removed = |key: &str| -> Vec<Value> {
        let is = list(&c.after, key);
        list(before, key)
            .into_iter()
            .filter(|v| !is.contains(v))
            .collect()
    };
    json!({
        "id": c.id,
        "new": c.before.is_none(),
        "fields": fields,
        "commentsAdded": added("comments"),
        "edgesAdded": added("dependencies"),
        "edgesRemoved": removed("dependencies"),
    })
}

crate::failure::class_enum! {
    /// A plan's failure classes (issue 59).
    pub enum PlanClass {
        /// Not a plan this store can apply: edited (its id is not the
        /// digest of its content), for another store, or malformed.
        Invalid = "plan.invalid",
        /// What the plan's dry run read has changed since: nothing applied.
        Stale = "plan.stale",
        /// No kept plan has this id (never made here, or expired).
        NotFound = "plan.not_found",
        /// The change needs a plan an approver approved (the policy's
        /// `approval` rules): nothing written, the plan kept for approval.
        ApprovalRequired = "plan.approval_required",
        /// `plan.approve` by a principal the policy does not name an approver.
        NotApprover = "plan.not_approver",
    }
}

/// The action that approves a plan (and so applies it); spelled with the
/// gate, which admits it on evidence alone.
pub const APPROVE_ACTION: &str = crate::host::gate::PLAN_APPROVE;

/// Who applies a plan, and under which approval rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct Applier<'a> {
    pub principal: Option<&'a str>,
    pub approval: Option<&'a crate::host::approval::Approval>,
    /// The policy's `allowedActions`: a plan applies only actions it allows
    /// (the gate lets `plan.*` through on evidence alone).
    pub allowed: Option<&'a std::collections::BTreeSet<String>>,
    /// An approver's `plan.approve`: approval and application in one.
    pub approving: bool,
}

/// The action that applies a plan.
pub const APPLY_ACTION: &str = crate::host::gate::PLAN_APPLY;

impl<'a> Applier<'a> {
    /// The caller of a host action, under the policy its call runs with.
    pub fn of(ctx: &crate::host::ActionContext<'a>, approving: bool) -> Self {
        Applier {
            principal: ctx.principal,
            approval: ctx.approval,
            allowed: ctx.allowed,
            approving,
        }
    }

    /// The action applying the plan: `plan.approve` or `plan.apply`.
    pub fn action(&self) -> &'static str {
        if self.approving {
            APPROVE_ACTION
        } else {
            APPLY_ACTION
        }
    }
}

/// The plan's id when `plan` is a `tusk.plan.v1` for the store at `path`
/// whose id is the digest of its content; why not, else.
pub fn verify(plan: &Value, path: &str) -> Result<String, String> {
    if plan["kind"] != KIND {
        return Err(format!(
            "not a {KIND} object (its kind is {})",
            plan["kind"]
        ));
    }
    let Some(id) = plan["planId"].as_str() else {
        return Err("the plan has no planId".into());
    };
    let mut rest = plan.clone();
    if let Some(m) = rest.as_object_mut() {
        m.remove("planId");
    }
    let digest = format!(
        "plan-{}",
        canonical::sha256_hex(canonical::to_canonical_string(&rest).as_bytes())
    );
    if digest != id {
        return Err(format!(
            "the plan was edited: its planId is {id}, the digest of its content is {digest}; \
             make the plan again with a dry run"
        ));
    }
    let store = plan["store"].as_str().unwrap_or_default();
    if !super::backend::paths_equivalent(std::path::Path::new(store), std::path::Path::new(path)) {
        return Err(format!("the plan is for the store {store}, not {path}"));
    }
    let well_formed = plan["changes"].as_array().is_some_and(|cs| {
        cs.iter()
            .all(|c| c["id"].is_string() && c["fields"].is_object() && c["new"].is_boolean())
    }) && plan["reads"]
        .as_array()
        .is_some_and(|rs| rs.iter().all(|r| r["id"].is_string()));
    if !well_formed {
        return Err("the plan's changes or reads are malformed".into());
    }
    Ok(id.to_string())
}

/// Applies `plan` to the store: exactly its changes, in one write, when
/// every issue its dry run read is still at the version it read; else
/// `plan.stale` naming what moved, and nothing written. A plan applied
/// before answers its first application's payload again (`replayed`).
///
/// # Errors
/// The store could not be used.
pub fn apply(ctx: &MutationCtx<'_>, plan: &Value, who: Applier<'_>) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = who.action();
    let id = match verify(plan, &path) {
        Ok(id) => id,
        Err(why) => {
            return Ok(Report::rejected(
                action,
                &path,
                &[PlanClass::Invalid.as_str()],
                why,
            ))
        }
    };
    if let Some(refused) =
        approval_refusal(&id, &path, who).or_else(|| not_allowed(plan, &id, &path, action, who))
    {
        return Ok(refused);
    }
    if let Some(mut first) =
        super::plan_store::applied(ctx.store, &id).map_err(|e| io_error(&path, e))?
    {
        first["replayed"] = json!(true);
        if let Value::Object(m) = first {
            return Ok(Report::verdict(m, Vec::new()));
        }
    }
    // A plan the rules hold back is applied by its approval alone.
    if !who.approving && needs_approval(plan, who) {
        return Ok(Report::rejected(
            action,
            &path,
            &[PlanClass::ApprovalRequired.as_str()],
            format!(
                "{id} makes {} by {}, which the policy lets through only once an approver \
                 approves it: an approver runs `tusk plan approve {id}`",
                plan_actions(plan).join(", "),
                plan["requestedBy"]
                    .as_str()
                    .unwrap_or("an unnamed principal")
            ),
        ));
    }
    let report = super::mutate::run(ctx, action, Footprint::Whole, |now| {
        if let Some(stale) = stale(plan, now, &id, &path, action) {
            return (stale, None);
        }
        let (applied, edit) = batch_of(plan, now);
        let body = json!({
            "planId": id,
            "applied": applied,
            "replayed": false,
            "requestedBy": plan["requestedBy"],
            "approvedBy": if who.approving { json!(who.principal) } else { Value::Null },
        });
        (Report::accepted_body(action, &path, body), Some(edit))
    })?;
    let mut report = report;
    if report.is_accepted() {
        // The change is made: a record that cannot be written is said,
        // not turned into a failure (a second apply then finds it stale).
        if let Err(e) =
            super::plan_store::mark_applied(ctx.store, &id, &Value::Object(report.payload.clone()))
        {
            report.payload.insert("appliedRecordError".into(), json!(e));
        }
    }
    Ok(report)
}

/// The refusal of a plan whose reads moved: each issue whose line is not
/// at the version the dry run read.
fn stale(plan: &Value, now: &Store<'_>, id: &str, path: &str, action: &str) -> Option<Report> {
    let moved: Vec<Value> = plan["reads"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let rid = r["id"].as_str()?;
            let version = now.get(rid).map(|i| canonical::sha256_text(now.raw(i)));
            (r["version"].as_str() != version.as_deref())
                .then(|| json!({"id": rid, "planned": r["version"], "now": version}))
        })
        .collect();
    if moved.is_empty() {
        return None;
    }
    let ids: Vec<&str> = moved.iter().filter_map(|m| m["id"].as_str()).collect();
    let mut members = Map::new();
    members.insert("planId".into(), json!(id));
    let diagnostic = format!(
        "nothing was applied: {} changed since the dry run read them; run the dry run again for \
         a new plan",
        ids.join(", ")
    );
    members.insert("moved".into(), json!(moved));
    Some(Report::rejected_with(
        action,
        path,
        &[PlanClass::Stale.as_str()],
        diagnostic,
        members,
    ))
}

/// The plan's changes as one edit of `now` (each planned field set, or
/// removed where it is planned absent), and the issues it changes.
fn batch_of(plan: &Value, now: &Store<'_>) -> (Vec<String>, Edit) {
    let mut replace = Vec::new();
    let mut append = Vec::new();
    let mut applied = Vec::new();
    for change in plan["changes"].as_array().into_iter().flatten() {
        let cid = change["id"].as_str().unwrap_or_default();
        let fields = change["fields"].as_object().cloned().unwrap_or_default();
        let mut object = match now.get(cid) {
            Some(issue) => super::mutate::object_of(now, issue),
            None => Map::new(),
        };
        for (field, fb) in fields {
            match &fb["after"] {
                Value::Null => {
                    object.remove(&field);
                }
                after => {
                    object.insert(field, after.clone());
                }
            }
        }
        let line = Value::Object(object).to_string();
        match now.index_of(cid) {
            Some(index) => replace.push((index, line)),
            None => append.push(line),
        }
        applied.push(cid.to_string());
    }
    (applied, Edit::Batch { replace, append })
}

/// A plan making an action the policy does not allow (its `allowedActions`).
fn not_allowed(
    plan: &Value,
    id: &str,
    path: &str,
    action: &str,
    who: Applier<'_>,
) -> Option<Report> {
    let allowed = who.allowed?;
    let missing: Vec<&str> = plan_actions(plan)
        .into_iter()
        .filter(|a| !allowed.contains(*a))
        .collect();
    (!missing.is_empty()).then(|| {
        Report::rejected(
            action,
            path,
            &[crate::host::gate::ACTION_NOT_ALLOWED],
            format!(
                "{id} makes {}, which the mutation policy does not allow: nothing was applied",
                missing.join(", ")
            ),
        )
    })
}

/// The mutation actions a plan stages.
fn plan_actions(plan: &Value) -> Vec<&str> {
    plan["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether the rules hold `plan` back for approval: an action it makes
/// needs approval when its requester, or its applier, makes it.
fn needs_approval(plan: &Value, who: Applier<'_>) -> bool {
    let Some(rules) = who.approval else {
        return false;
    };
    let requested_by = plan["requestedBy"].as_str();
    plan_actions(plan)
        .iter()
        .any(|a| rules.requires(requested_by, a) || rules.requires(who.principal, a))
}

/// An approval by someone the policy does not name an approver.
fn approval_refusal(id: &str, path: &str, who: Applier<'_>) -> Option<Report> {
    if !who.approving {
        return None;
    }
    let approver = who.principal.unwrap_or_default();
    let may = who
        .approval
        .is_some_and(|rules| rules.may_approve(approver));
    (!may).then(|| {
        Report::rejected(
            APPROVE_ACTION,
            path,
            &[PlanClass::NotApprover.as_str()],
            format!(
                "{approver:?} may not approve {id}: the policy's `approval.approvers` does not \
                 name it; ask one of them"
            ),
        )
    })
}

fn io_error(path: &str, message: String) -> StoreError {
    StoreError::Io {
        path: path.to_string(),
        source: std::io::Error::other(message),
    }
}

/// `plan.apply`'s accepted payload members.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// The plan applied.
    pub plan_id: String,
    /// The issues it changed, in the plan's order.
    pub applied: Vec<String>,
    /// This answer is the first application's, given again: nothing was written now.
    pub replayed: bool,
    /// The principal whose run made the plan.
    pub requested_by: Option<String>,
    /// The approver, when `plan.approve` applied it.
    pub approved_by: Option<String>,
}
