//! Mutations other than leases: add, update, close, discover, dep add/remove/replace.
//!
//! Each runs inside [`IssueStore::mutate`] (one critical section) and edits exactly one
//! line: the mutated issue's line is re-encoded from its full JSON object, so
//! fields this program does not know are kept; every other line stays raw.

use super::footprint::Footprint;
use super::graph::cycle_if_added;
use super::model::{
    dep_type_blocks, edge_type, format_time, truncate_to_seconds, Issue, BUILTIN_STATUSES,
    DEFAULT_ISSUE_TYPE, DEFAULT_STATUS, ISSUE_TYPES, PRIORITY_RANGE,
};
use super::payload::{Changed, StoredIssue};
use super::projection;
use super::store::{Edit, IssueStore, LockOptions, Store, StoreError};
use super::Report;
use crate::issues::IssueClass;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// What every mutation runs with: the store, the lock bound and the clock.
#[derive(Clone, Copy, Debug)]
pub struct MutationCtx<'p> {
    pub store: &'p IssueStore,
    pub lock: LockOptions,
    /// Whole seconds, the precision written to the store.
    pub now: DateTime<Utc>,
}

impl<'p> MutationCtx<'p> {
    /// Truncates `now` to whole seconds, so leases compare against what is written.
    pub fn new(store: &'p IssueStore, lock: LockOptions, now: DateTime<Utc>) -> Self {
        Self {
            store,
            lock,
            now: truncate_to_seconds(now),
        }
    }

    pub(crate) fn path_str(&self) -> String {
        self.store.path().display().to_string()
    }

    pub(crate) fn stamp(&self) -> String {
        format_time(self.now)
    }
}

/// Runs `apply` as one critical section that reads `scope`
/// ([`IssueStore::mutate_scoped`]); a busy lock becomes a rejection
/// (`lease_mutation_lock_busy`), corrupt or unreadable stores stay errors.
pub(crate) fn run(
    ctx: &MutationCtx<'_>,
    action: &str,
    scope: Footprint<'_>,
    apply: impl FnMut(&Store<'_>) -> (Report, Option<Edit>),
) -> Result<Report, StoreError> {
    busy_as_rejection(ctx, action, ctx.store.mutate_scoped(ctx.lock, scope, apply))
}

fn busy_as_rejection(
    ctx: &MutationCtx<'_>,
    action: &str,
    result: Result<Report, StoreError>,
) -> Result<Report, StoreError> {
    match result {
        Err(e @ StoreError::LockBusy { .. }) => Ok(Report::from_error(action, &ctx.path_str(), &e)),
        other => other,
    }
}

/// [`run`] for a mutation that reads only ready issues and their blockers.
/// `filter` narrows the lines a database reads (the apply still decides).
pub(crate) fn run_ready(
    ctx: &MutationCtx<'_>,
    action: &str,
    filter: &super::filter::IssueFilter,
    apply: impl FnMut(&Store<'_>) -> (Report, Option<Edit>),
) -> Result<Report, StoreError> {
    busy_as_rejection(ctx, action, ctx.store.mutate_ready(ctx.lock, filter, apply))
}

/// The full JSON object of a stored line, to be edited.
pub(crate) fn object_of(store: &Store<'_>, issue: &Issue<'_>) -> Map<String, Value> {
    serde_json::from_str(store.raw(issue)).expect("a decoded line is a JSON object")
}

/// Sets a string field, or removes it when empty (the format omits empty strings).
pub(crate) fn set_text(m: &mut Map<String, Value>, key: &str, value: &str) {
    if value.is_empty() {
        m.remove(key);
    } else {
        m.insert(key.into(), json!(value));
    }
}

/// The edit replacing `issue`'s line with `object`.
pub(crate) fn replace(store: &Store<'_>, issue: &Issue<'_>, object: &Map<String, Value>) -> Edit {
    let line_index = store
        .index_of(issue.id.as_str())
        .expect("issue came from the store");
    Edit::Replace {
        line_index,
        json: encode(object),
    }
}

fn encode(object: &Map<String, Value>) -> String {
    serde_json::to_string(object).expect("a JSON map always encodes")
}

pub(crate) fn members(
    pairs: impl IntoIterator<Item = (&'static str, Value)>,
) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Why a mutation is refused: its failure class and a diagnostic.
pub(crate) type Rejection = (&'static str, String);

/// The rejection of an action whose issue does not exist (`issue.not_found`).
pub(crate) fn not_found(action: &str, path: &str, id: &str) -> Report {
    Report::rejected(
        action,
        path,
        &[IssueClass::NotFound.as_str()],
        format!("no issue with id {id:?}"),
    )
}

/// A mutation's answer when its issue does not exist: [`not_found`], and
/// nothing written.
pub(crate) fn missing(action: &str, path: &str, id: &str) -> (Report, Option<Edit>) {
    (not_found(action, path, id), None)
}

/// Marks `m` closed now; a closed issue holds no lease.
fn close_object(m: &mut Map<String, Value>, stamp: &str) {
    m.insert("status".into(), json!("closed"));
    m.insert("closed_at".into(), json!(stamp));
    m.remove("lease");
}

crate::issues::fields::issue_fields! {
    /// A new issue (`issue.add`'s arguments and `tusk issue add`'s flags).
    #[derive(Clone, Debug, Default, serde::Deserialize, serde::Serialize, schemars::JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct NewIssue {
        /// The title.
        pub title: String,
        /// An explicit id; by default the store's id scheme chooses one (sequential: the most used prefix's highest number plus one; hash: a short random hash).
        #[arg(long)]
        pub id: Option<String>,
    }
}

crate::issues::fields::issue_fields! {
    /// Optional field changes of `issue update`; an empty string clears a text field.
    #[derive(Clone, Debug, Default, clap::Args)]
    pub struct IssueChanges {
        /// A new title.
        #[arg(long)]
        pub title: Option<String>,
    }
}

impl IssueChanges {
    fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.description.is_none()
            && self.design.is_none()
            && self.acceptance_criteria.is_none()
            && self.notes.is_none()
            && self.status.is_none()
            && self.priority.is_none()
            && self.issue_type.is_none()
            && self.assignee.is_none()
            && self.owner.is_none()
            && self.labels.is_none()
    }
}

/// The longest title an issue may be given (beads refuses longer ones too):
/// a title is repeated in every view, list and walk that shows the issue.
pub const MAX_TITLE_CHARS: usize = 500;

/// Whether `s` is a status this store accepts: a built-in one, or one its
/// `config.json` declares (`status.custom`). What `issue update --status`
/// and `issue list --status` both check: a typo must neither take an issue
/// out of every view nor list nothing without a word.
pub(crate) fn check_status(store: &IssueStore, s: &str) -> Result<(), Rejection> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return Err((
            IssueClass::InvalidStatus.as_str(),
            format!("status {s:?} is not a lower_snake_case word"),
        ));
    }
    if !BUILTIN_STATUSES.contains(&s) {
        // A typo must not take an issue out of every view: only the
        // built-in statuses and those the project declares are accepted.
        let custom = super::model::custom_statuses(store)
            .map_err(|e| (IssueClass::ConfigInvalid.as_str(), e))?;
        if !custom.iter().any(|c| c == s) {
            let valid: Vec<&str> = BUILTIN_STATUSES
                .iter()
                .copied()
                .chain(custom.iter().map(String::as_str))
                .collect();
            return Err((
                IssueClass::InvalidStatus.as_str(),
                format!(
                    "status {s:?} is not one of {}; declare custom statuses in the store's config.json as {{\"status.custom\": \"{s}\"}}",
                    valid.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Input rules shared by add, discover and update; the first broken one is reported.
fn validate_fields(
    store: &IssueStore,
    title: Option<&str>,
    status: Option<&str>,
    priority: Option<i64>,
    issue_type: Option<&str>,
    labels: Option<&[String]>,
) -> Result<(), Rejection> {
    if title.is_some_and(|t| t.trim().is_empty()) {
        return Err((
            IssueClass::InvalidTitle.as_str(),
            "title must not be empty".into(),
        ));
    }
    if let Some(n) = title
        .map(|t| t.chars().count())
        .filter(|n| *n > MAX_TITLE_CHARS)
    {
        return Err((
            IssueClass::InvalidTitle.as_str(),
            format!(
                "title is {n} characters long; at most {MAX_TITLE_CHARS} (beads' limit): put the \
                 rest in the description"
            ),
        ));
    }
    if let Some(s) = status {
        check_status(store, s)?;
    }
    if let Some(p) = priority {
        if !PRIORITY_RANGE.contains(&p) {
            return Err((
                IssueClass::InvalidPriority.as_str(),
                format!("priority {p} is outside {PRIORITY_RANGE:?}"),
            ));
        }
    }
    if let Some(t) = issue_type {
        if !ISSUE_TYPES.contains(&t) {
            return Err((
                IssueClass::InvalidType.as_str(),
                format!("issue type {t:?} is not one of {ISSUE_TYPES:?}"),
            ));
        }
    }
    if labels.is_some_and(|l| l.iter().any(|x| x.trim().is_empty())) {
        return Err((
            IssueClass::InvalidLabel.as_str(),
            "labels must not be empty".into(),
        ));
    }
    Ok(())
}

/// Builds a new issue line, or a rejection.
fn new_issue_object(
    issue_store: &IssueStore,
    store: &Store<'_>,
    new: &NewIssue,
    stamp: &str,
) -> Result<(String, Map<String, Value>), Rejection> {
    validate_fields(
        issue_store,
        Some(&new.title),
        new.status.as_deref(),
        new.priority,
        new.issue_type.as_deref(),
        new.labels.as_deref(),
    )?;
    let id = match &new.id {
        Some(id) if id.is_empty() || id.chars().any(char::is_whitespace) => {
            return Err((
                IssueClass::InvalidId.as_str(),
                format!("id {id:?} must be non-empty without whitespace"),
            ));
        }
        Some(id) if store.get(id).is_some() => {
            return Err((
                IssueClass::DuplicateId.as_str(),
                format!("an issue with id {id:?} already exists"),
            ));
        }
        Some(id) => id.clone(),
        None => {
            // The store's scheme (docs/issue-memory.md, "Ids"), under the lock.
            let scheme = super::ids::scheme(issue_store)
                .map_err(|e| (IssueClass::ConfigInvalid.as_str(), e))?;
            super::ids::next_id(store, scheme)
        }
    };
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("title".into(), json!(new.title.trim()));
    for (key, value) in [
        ("description", &new.description),
        ("design", &new.design),
        ("acceptance_criteria", &new.acceptance_criteria),
        ("notes", &new.notes),
    ] {
        set_text(&mut m, key, value.as_deref().unwrap_or(""));
    }
    let status = new.status.as_deref().unwrap_or(DEFAULT_STATUS);
    m.insert("status".into(), json!(status));
    m.insert(
        "priority".into(),
        json!(new.priority.unwrap_or(super::model::DEFAULT_PRIORITY)),
    );
    m.insert(
        "issue_type".into(),
        json!(new.issue_type.as_deref().unwrap_or(DEFAULT_ISSUE_TYPE)),
    );
    set_text(
        &mut m,
        "assignee",
        new.assignee.as_deref().unwrap_or("").trim(),
    );
    set_text(&mut m, "owner", new.owner.as_deref().unwrap_or("").trim());
    m.insert("created_at".into(), json!(stamp));
    m.insert("updated_at".into(), json!(stamp));
    if status == "closed" {
        m.insert("closed_at".into(), json!(stamp));
    }
    if let Some(labels) = new.labels.as_ref().filter(|l| !l.is_empty()) {
        m.insert("labels".into(), json!(labels));
    }
    Ok((id, m))
}

/// `issue add`: a new issue; the first add creates the store.
pub fn add(ctx: &MutationCtx<'_>, new: &NewIssue) -> Result<Report, StoreError> {
    create(ctx, "issue.add", None, new)
}

/// `issue discover`: a new issue linked to an existing parent by a `discovered-from` edge.
pub fn discover(
    ctx: &MutationCtx<'_>,
    parent_id: &str,
    new: &NewIssue,
) -> Result<Report, StoreError> {
    create(ctx, "issue.discover", Some(parent_id), new)
}

/// Appends a new issue, with a `discovered-from` edge when it has a parent.
fn create(
    ctx: &MutationCtx<'_>,
    action: &str,
    parent_id: Option<&str>,
    new: &NewIssue,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    // The id is chosen from every id in the store.
    run(ctx, action, Footprint::Whole, |store| {
        if let Some(parent_id) = parent_id.filter(|p| store.get(p).is_none()) {
            let diag = format!("parent issue {parent_id:?} does not exist");
            return (
                Report::rejected(action, &path, &[IssueClass::ParentNotFound.as_str()], diag),
                None,
            );
        }
        let (id, mut m) = match new_issue_object(ctx.store, store, new, &stamp) {
            Err((class, diag)) => return (Report::rejected(action, &path, &[class], diag), None),
            Ok(created) => created,
        };
        let mut dependency = None;
        if let Some(parent_id) = parent_id {
            // The edge's issue_id is only known once the id is chosen.
            let edge = json!({"issue_id": id, "depends_on_id": parent_id, "type": "discovered-from", "created_at": stamp});
            m.insert("dependencies".into(), json!([edge]));
            dependency = Some(Discovered {
                depends_on_id: parent_id,
                issue_id: &id,
                dep_type: "discovered-from",
            });
        }
        let edit = Edit::Append { json: encode(&m) };
        let created = Created {
            dependency,
            issue: projection::Basic::of(&m),
        };
        (Report::accepted_body(action, &path, created), Some(edit))
    })
}

/// The members of an accepted `issue.add` or `issue.discover`.
#[derive(Serialize, JsonSchema)]
pub struct Created<'m> {
    /// The `discovered-from` edge (`issue.discover` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependency: Option<Discovered<'m>>,
    /// premath's projection (A) of the new issue.
    pub issue: projection::Basic<'m>,
}

/// The edge `issue.discover` made, in premath's camelCase.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Discovered<'m> {
    pub depends_on_id: &'m str,
    pub issue_id: &'m str,
    #[serde(rename = "type")]
    pub dep_type: &'static str,
}

/// The members of an accepted `issue.update`.
#[derive(Serialize, JsonSchema)]
pub struct Updated<'m> {
    /// premath's projection (A) of the changed issue.
    pub issue: projection::Basic<'m>,
}

/// `issue update`: changes the given fields of one issue.
pub fn update(
    ctx: &MutationCtx<'_>,
    id: &str,
    changes: &IssueChanges,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    let action = "issue.update";
    if changes.is_empty() {
        return Ok(Report::rejected(
            action,
            &path,
            &[IssueClass::UpdateEmpty.as_str()],
            "no field to update was given",
        ));
    }
    if let Err((class, diag)) = validate_fields(
        ctx.store,
        changes.title.as_deref(),
        changes.status.as_deref(),
        changes.priority,
        changes.issue_type.as_deref(),
        changes.labels.as_deref(),
    ) {
        return Ok(Report::rejected(action, &path, &[class], diag));
    }
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return missing(action, &path, id);
        };
        let mut m = object_of(store, issue);
        if let Some(t) = &changes.title {
            m.insert("title".into(), json!(t.trim()));
        }
        for (key, value) in [
            ("description", &changes.description),
            ("design", &changes.design),
            ("acceptance_criteria", &changes.acceptance_criteria),
            ("notes", &changes.notes),
        ] {
            if let Some(v) = value {
                set_text(&mut m, key, v);
            }
        }
        if let Some(a) = &changes.assignee {
            set_text(&mut m, "assignee", a.trim());
        }
        if let Some(o) = &changes.owner {
            set_text(&mut m, "owner", o.trim());
        }
        if let Some(p) = changes.priority {
            m.insert("priority".into(), json!(p));
        }
        if let Some(t) = &changes.issue_type {
            m.insert("issue_type".into(), json!(t));
        }
        if let Some(labels) = &changes.labels {
            if labels.is_empty() {
                m.remove("labels");
            } else {
                m.insert("labels".into(), json!(labels));
            }
        }
        if let Some(s) = &changes.status {
            if s == "closed" {
                if !issue.is_closed() {
                    close_object(&mut m, &stamp);
                }
            } else {
                m.insert("status".into(), json!(s));
                m.remove("closed_at");
                // premath's rule: only an in_progress issue holds a lease (the
                // assignee stays).
                if s != "in_progress" {
                    m.remove("lease");
                }
            }
        }
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        (
            Report::accepted_body(
                action,
                &path,
                Updated {
                    issue: projection::Basic::of(&m),
                },
            ),
            Some(edit),
        )
    })
}

/// `issue close`: status `closed`, `closed_at` now, lease dropped.
/// `issue close [--reason]`: the reason is beads' `close_reason`.
pub fn close(ctx: &MutationCtx<'_>, id: &str, reason: Option<&str>) -> Result<Report, StoreError> {
    let reason = reason.map(str::trim).filter(|r| !r.is_empty());
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    let action = "issue.close";
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return missing(action, &path, id);
        };
        if issue.is_closed() {
            return (
                Report::rejected(
                    action,
                    &path,
                    &[IssueClass::AlreadyClosed.as_str()],
                    format!("{id} is already closed"),
                ),
                None,
            );
        }
        let mut m = object_of(store, issue);
        close_object(&mut m, &stamp);
        if let Some(reason) = reason {
            m.insert("close_reason".into(), json!(reason));
        }
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        (
            Report::accepted_body(action, &path, Changed { id, issue: m }),
            Some(edit),
        )
    })
}

/// One edge named by a dep command.
#[derive(Clone, Debug)]
pub struct EdgeRef {
    pub issue_id: String,
    pub depends_on_id: String,
}

/// An edge as the dep actions name it: the pair and a type.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeMembers<'a> {
    pub issue_id: &'a str,
    pub depends_on_id: &'a str,
    #[serde(rename = "type")]
    pub dep_type: &'a str,
}

impl<'a> EdgeMembers<'a> {
    fn of(edge: &'a EdgeRef, dep_type: &'a str) -> Self {
        EdgeMembers {
            issue_id: &edge.issue_id,
            depends_on_id: &edge.depends_on_id,
            dep_type,
        }
    }
}

/// The members of an accepted `dep.add`.
#[derive(Serialize, JsonSchema)]
pub struct EdgeAdded<'a> {
    #[serde(flatten)]
    pub edge: EdgeMembers<'a>,
    /// premath's member: the edge without its `created_by`.
    pub dependency: EdgeMembers<'a>,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// The members of an accepted `dep.remove`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeRemoved<'a> {
    pub issue_id: &'a str,
    pub depends_on_id: &'a str,
    /// The types of the edges removed.
    pub removed_types: Vec<String>,
    /// The pair and the type asked for (else the removed types, joined by `,`).
    pub dependency: EdgeMembers<'a>,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// The members of an accepted `dep.replace`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeReplaced<'a> {
    #[serde(flatten)]
    pub edge: EdgeMembers<'a>,
    pub previous_type: &'a str,
    pub dependency: Replacement<'a>,
    /// false when the type and creator stay as they were (nothing written).
    pub changed: bool,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// premath's `dep replace` member: the flag values as given.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replacement<'a> {
    pub created_by: &'a str,
    pub depends_on_id: &'a str,
    pub from_type: &'a str,
    pub issue_id: &'a str,
    pub to_type: &'a str,
}

fn edge_members(edge: &EdgeRef, dep_type: &str) -> Map<String, Value> {
    members([
        ("issueId", json!(edge.issue_id)),
        ("dependsOnId", json!(edge.depends_on_id)),
        ("type", json!(dep_type)),
    ])
}

fn targets(dep: &Value, depends_on: &str) -> bool {
    dep.get("depends_on_id").and_then(Value::as_str) == Some(depends_on)
}

fn check_dep_type(action: &str, path: &str, dep_type: &str) -> Result<bool, Report> {
    dep_type_blocks(dep_type).ok_or_else(|| {
        Report::rejected(
            action,
            path,
            &[IssueClass::DepInvalidType.as_str()],
            format!("unknown dependency type {dep_type:?}"),
        )
    })
}

/// The rejection for a blocking edge that would close a cycle, if it would.
fn refuse_cycle(action: &str, path: &str, store: &Store<'_>, edge: &EdgeRef) -> Option<Report> {
    let cycle = cycle_if_added(store, &edge.issue_id, &edge.depends_on_id)?;
    let diag = format!("edge would close the blocking cycle {}", cycle.join(" -> "));
    let mut extra = edge_members(edge, "");
    extra.remove("type");
    extra.insert("cycle".into(), json!(cycle));
    Some(Report::rejected_with(
        action,
        path,
        &[IssueClass::DepCycle.as_str()],
        diag,
        extra,
    ))
}

/// The issue whose edge a `dep` mutation changes, or its rejection.
fn edge_issue<'a, 's>(
    store: &'a Store<'s>,
    action: &str,
    path: &str,
    edge: &EdgeRef,
) -> Result<&'a Issue<'s>, Report> {
    store.get(&edge.issue_id).ok_or_else(|| {
        let diag = format!("issue {:?} does not exist", edge.issue_id);
        Report::rejected(action, path, &[IssueClass::DepIssueNotFound.as_str()], diag)
    })
}

/// `dep add`: both endpoints exist, no duplicate edge between the pair, no
/// self-loop, no cycle among blocking edges. `created_by` is stored on the
/// edge as given (beads' `created_by`, omitted when empty), as premath does.
pub fn dep_add(
    ctx: &MutationCtx<'_>,
    edge: &EdgeRef,
    dep_type: &str,
    created_by: &str,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    let action = "dep.add";
    let blocking = match check_dep_type(action, &path, dep_type) {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    if edge.issue_id == edge.depends_on_id {
        let diag = format!("{} cannot depend on itself", edge.issue_id);
        return Ok(Report::rejected(
            action,
            &path,
            &[IssueClass::DepSelfLoop.as_str()],
            diag,
        ));
    }
    let scope = Footprint::Edge {
        issue: &edge.issue_id,
        depends_on: &edge.depends_on_id,
        cycle: blocking,
    };
    run(ctx, action, scope, |store| {
        let issue = match edge_issue(store, action, &path, edge) {
            Ok(issue) => issue,
            Err(r) => return (r, None),
        };
        if store.get(&edge.depends_on_id).is_none() {
            let diag = format!("dependency target {:?} does not exist", edge.depends_on_id);
            return (
                Report::rejected(
                    action,
                    &path,
                    &[IssueClass::DepTargetNotFound.as_str()],
                    diag,
                ),
                None,
            );
        }
        if let Some(existing) = issue
            .deps
            .iter()
            .find(|d| d.depends_on.as_str() == edge.depends_on_id)
        {
            let diag = format!(
                "{} already depends on {} ({}); use dep replace to change the type",
                edge.issue_id, edge.depends_on_id, existing.dep_type
            );
            return (
                Report::rejected(action, &path, &[IssueClass::DepDuplicate.as_str()], diag),
                None,
            );
        }
        if blocking {
            if let Some(r) = refuse_cycle(action, &path, store, edge) {
                return (r, None);
            }
        }
        let mut m = object_of(store, issue);
        let mut dep = json!({"issue_id": edge.issue_id, "depends_on_id": edge.depends_on_id, "type": dep_type, "created_at": stamp});
        if !created_by.is_empty() {
            dep["created_by"] = json!(created_by);
        }
        match m.get_mut("dependencies") {
            Some(Value::Array(deps)) => deps.push(dep),
            _ => {
                m.insert("dependencies".into(), json!([dep]));
            }
        }
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        let added = EdgeAdded {
            edge: EdgeMembers::of(edge, dep_type),
            dependency: EdgeMembers::of(edge, dep_type),
            issue: m,
        };
        (Report::accepted_body(action, &path, added), Some(edit))
    })
}

/// `dep remove`: drops the edge(s) between the pair (only of `dep_type` when given).
pub fn dep_remove(
    ctx: &MutationCtx<'_>,
    edge: &EdgeRef,
    dep_type: Option<&str>,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    let action = "dep.remove";
    run(ctx, action, Footprint::Issue(&edge.issue_id), |store| {
        let issue = match edge_issue(store, action, &path, edge) {
            Ok(issue) => issue,
            Err(r) => return (r, None),
        };
        let mut m = object_of(store, issue);
        let matches = |d: &Value| {
            targets(d, &edge.depends_on_id) && dep_type.is_none_or(|t| edge_type(d) == Some(t))
        };
        let mut removed = Vec::new();
        if let Some(Value::Array(deps)) = m.get_mut("dependencies") {
            deps.retain(|d| {
                let hit = matches(d);
                if hit {
                    removed.push(edge_type(d).unwrap_or_default().to_string());
                }
                !hit
            });
            if deps.is_empty() {
                m.remove("dependencies");
            }
        }
        if removed.is_empty() {
            let diag = format!(
                "{} has no such dependency on {}",
                edge.issue_id, edge.depends_on_id
            );
            return (
                Report::rejected(action, &path, &[IssueClass::DepNotFound.as_str()], diag),
                None,
            );
        }
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        let joined = removed.join(",");
        let removal = EdgeRemoved {
            issue_id: &edge.issue_id,
            depends_on_id: &edge.depends_on_id,
            // The reference's member: the pair and the type asked for
            // (without `--type`, tusk removes every edge of the pair: their
            // types).
            dependency: EdgeMembers::of(edge, dep_type.unwrap_or(&joined)),
            removed_types: removed,
            issue: m,
        };
        (Report::accepted_body(action, &path, removal), Some(edit))
    })
}

/// What `dep replace` changes on the edge between a pair.
#[derive(Clone, Debug)]
pub struct DepReplacement<'a> {
    /// The type the edge has now; `None` takes the pair's first edge, whatever its type.
    pub from_type: Option<&'a str>,
    /// The type it gets.
    pub to_type: &'a str,
    /// Replaces the edge's `created_by` when it is not blank (as premath).
    pub created_by: &'a str,
}

/// `dep replace`: changes the type of the pair's first edge of `from_type` (of
/// any type when `None`); a new blocking type must not close a cycle, and no
/// other edge of the pair may already have the new type. A non-blank
/// `created_by` replaces the edge's. Replacing a type by itself with a blank
/// `created_by` is accepted and writes nothing.
pub fn dep_replace(
    ctx: &MutationCtx<'_>,
    edge: &EdgeRef,
    change: &DepReplacement<'_>,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let stamp = ctx.stamp();
    let action = "dep.replace";
    let new_type = change.to_type;
    let blocking = match check_dep_type(action, &path, new_type) {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    if let Some(from) = change.from_type {
        if let Err(r) = check_dep_type(action, &path, from) {
            return Ok(r);
        }
    }
    let scope = Footprint::Edge {
        issue: &edge.issue_id,
        depends_on: &edge.depends_on_id,
        cycle: blocking,
    };
    run(ctx, action, scope, |store| {
        let issue = match edge_issue(store, action, &path, edge) {
            Ok(issue) => issue,
            Err(r) => return (r, None),
        };
        let (index, old) = match replaced_edge(issue, edge, change) {
            Ok(found) => found,
            Err((class, diag)) => return (Report::rejected(action, &path, &[class], diag), None),
        };
        let old_type = old.dep_type;
        let replaced = |changed: bool, issue: Map<String, Value>| EdgeReplaced {
            edge: EdgeMembers::of(edge, new_type),
            previous_type: old_type,
            // premath's member: the flag values as given.
            dependency: Replacement {
                created_by: change.created_by,
                depends_on_id: &edge.depends_on_id,
                from_type: old_type,
                issue_id: &edge.issue_id,
                to_type: new_type,
            },
            changed,
            issue,
        };
        let new_creator = !change.created_by.trim().is_empty();
        if old_type == new_type && !new_creator {
            let unchanged = replaced(false, object_of(store, issue));
            return (Report::accepted_body(action, &path, unchanged), None);
        }
        if blocking && !old.blocking {
            if let Some(r) = refuse_cycle(action, &path, store, edge) {
                return (r, None);
            }
        }
        let mut m = object_of(store, issue);
        retype_edge(&mut m, index, change);
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        (
            Report::accepted_body(action, &path, replaced(true, m)),
            Some(edit),
        )
    })
}

/// The pair's first edge of `change.from_type` (of any type when `None`) and
/// its index in the issue's edges; refused when there is none, or when
/// another edge of the pair already has the new type.
fn replaced_edge<'i, 's>(
    issue: &'i Issue<'s>,
    edge: &EdgeRef,
    change: &DepReplacement<'_>,
) -> Result<(usize, &'i super::model::Dep<'s>), Rejection> {
    let new_type = change.to_type;
    let of_pair = |d: &&super::model::Dep<'_>| d.depends_on.as_str() == edge.depends_on_id;
    let Some((index, old)) = issue
        .deps
        .iter()
        .enumerate()
        .filter(|(_, d)| of_pair(d))
        .find(|(_, d)| change.from_type.is_none_or(|t| d.dep_type == t))
    else {
        let diag = match change.from_type {
            Some(t) => format!(
                "{} has no {t} dependency on {}",
                edge.issue_id, edge.depends_on_id
            ),
            None => format!(
                "{} has no dependency on {}",
                edge.issue_id, edge.depends_on_id
            ),
        };
        return Err((IssueClass::DepNotFound.as_str(), diag));
    };
    if issue
        .deps
        .iter()
        .enumerate()
        .any(|(i, d)| i != index && of_pair(&d) && d.dep_type == new_type)
    {
        let diag = format!(
            "{} already depends on {} ({new_type})",
            edge.issue_id, edge.depends_on_id
        );
        return Err((IssueClass::DepDuplicate.as_str(), diag));
    }
    Ok((index, old))
}

/// Gives edge `index` of the issue object `m` its new type and, when the
/// change names one, its new creator.
fn retype_edge(m: &mut Map<String, Value>, index: usize, change: &DepReplacement<'_>) {
    // The decoded edges are the line's `dependencies` array, in order.
    let Some(obj) = m
        .get_mut("dependencies")
        .and_then(|d| d.get_mut(index))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    // Keep whichever key the line used (`dep_type` is accepted on input).
    let key = if obj.contains_key("type") || !obj.contains_key("dep_type") {
        "type"
    } else {
        "dep_type"
    };
    obj.insert(key.into(), json!(change.to_type));
    if !change.created_by.trim().is_empty() {
        obj.insert("created_by".into(), json!(change.created_by));
    }
}
