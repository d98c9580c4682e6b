//! The tracker verbs agents use to leave and find context (issue 22): close
//! with a reason, reopen, add and remove labels, comment. Each keeps beads'
//! shape on the issue line, so a store beads wrote reads and writes the same:
//! `close_reason` (a string), `labels` (strings, order kept, absent when
//! empty) and `comments` (`{id, issue_id, author, text, created_at}`,
//! appended, never rewritten; `id` one past the largest on the issue).

use super::footprint::Footprint;
use super::mutate::{missing, not_found, object_of, replace, run, MutationCtx};
use super::payload::{Changed, StoredIssue};
use super::store::Store;
use super::{Report, StoreError};
use crate::issues::IssueClass;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// `issue reopen`: a closed issue is open again (`closed_at` and
/// `close_reason` go; beads' invariant: only a closed issue has them).
pub fn reopen(ctx: &MutationCtx<'_>, id: &str) -> Result<Report, StoreError> {
    let (path, stamp) = (ctx.path_str(), ctx.stamp());
    let action = "issue.reopen";
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return missing(action, &path, id);
        };
        if !issue.is_closed() {
            let diag = format!("{id} is not closed (status {})", issue.status.as_str());
            return (
                Report::rejected(action, &path, &[IssueClass::NotClosed.as_str()], diag),
                None,
            );
        }
        let mut m = object_of(store, issue);
        m.insert("status".into(), json!("open"));
        m.remove("closed_at");
        m.remove("close_reason");
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        let reopened = Changed { id, issue: m };
        (Report::accepted_body(action, &path, reopened), Some(edit))
    })
}

/// `issue label add|remove`: labels added at the end (once each) and
/// removed; an empty list drops the member, as beads writes it.
pub fn label(
    ctx: &MutationCtx<'_>,
    id: &str,
    add: &[String],
    remove: &[String],
) -> Result<Report, StoreError> {
    let (path, stamp) = (ctx.path_str(), ctx.stamp());
    let action = "issue.label";
    if let Some(bad) = add
        .iter()
        .chain(remove)
        .find(|l| l.trim().is_empty() || l.trim() != l.as_str() || l.contains(','))
    {
        let diag = format!(
            "label {bad:?}: a label is a non-empty word without surrounding spaces or commas"
        );
        return Ok(Report::rejected(
            action,
            &path,
            &[IssueClass::InvalidLabel.as_str()],
            diag,
        ));
    }
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return missing(action, &path, id);
        };
        let mut m = object_of(store, issue);
        let mut labels: Vec<String> = m
            .get("labels")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let before = labels.clone();
        for l in add {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
        labels.retain(|l| !remove.contains(l));
        let changed = labels != before;
        if changed {
            if labels.is_empty() {
                m.remove("labels");
            } else {
                m.insert("labels".into(), json!(labels));
            }
            m.insert("updated_at".into(), json!(stamp));
        }
        let edit = changed.then(|| replace(store, issue, &m));
        let labelled = Labelled {
            id,
            labels,
            changed,
            issue: m,
        };
        (Report::accepted_body(action, &path, labelled), edit)
    })
}

/// `issue comment add`: appends one comment in beads' shape.
pub fn comment(
    ctx: &MutationCtx<'_>,
    id: &str,
    author: &str,
    text: &str,
) -> Result<Report, StoreError> {
    let (path, stamp) = (ctx.path_str(), ctx.stamp());
    let action = "issue.comment";
    if text.trim().is_empty() || author.trim().is_empty() {
        return Ok(Report::rejected(
            action,
            &path,
            &[IssueClass::InvalidComment.as_str()],
            "a comment needs a non-empty text and author",
        ));
    }
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return missing(action, &path, id);
        };
        let mut m = object_of(store, issue);
        let mut comments: Vec<Value> = m
            .get("comments")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let Some(next) = CommentIds::new(comments.iter().filter_map(|c| c["id"].as_i64())).next()
        else {
            return (
                Report::rejected(
                    action,
                    &path,
                    &[IssueClass::MemoryStoreCorrupt.as_str()],
                    format!("{id}: every comment id is taken; the store's comment ids are not ones tusk wrote"),
                ),
                None,
            );
        };
        let comment = json!({
            "id": next, "issue_id": id, "author": author, "text": text, "created_at": stamp,
        });
        comments.push(comment.clone());
        m.insert("comments".into(), Value::Array(comments));
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        let commented = Commented {
            id,
            comment,
            issue: m,
        };
        (Report::accepted_body(action, &path, commented), Some(edit))
    })
}

/// The next comment ids of one issue: one past the largest in use, and
/// when that is the end of the number line (a forged id at `i64::MAX`),
/// the smallest positive id not in use; never one that is taken, never a
/// wrap to a negative.
pub(crate) struct CommentIds {
    used: std::collections::BTreeSet<i64>,
}

impl CommentIds {
    pub(crate) fn new(in_use: impl IntoIterator<Item = i64>) -> Self {
        Self {
            used: in_use.into_iter().collect(),
        }
    }

    /// The next free id (`None` only when every positive id is taken).
    pub(crate) fn next(&mut self) -> Option<i64> {
        let largest = self.used.last().copied().unwrap_or(0).max(0);
        let id = match largest.checked_add(1) {
            Some(id) => id,
            None => (1..=i64::MAX).find(|n| !self.used.contains(n))?,
        };
        self.used.insert(id);
        Some(id)
    }
}

/// `issue comment list`: an issue's comments as stored, in order.
pub fn comments_payload(store: &Store<'_>, path: &str, id: &str) -> Report {
    let action = "issue.comments";
    let Some(issue) = store.get(id) else {
        return not_found(action, path, id);
    };
    let line: Value = serde_json::from_str(store.raw(issue)).unwrap_or(Value::Null);
    let comments = line["comments"].as_array().cloned().unwrap_or_default();
    let listed = Comments {
        id,
        count: comments.len(),
        comments,
    };
    Report::accepted_body(action, path, listed)
}

/// The members of an accepted `issue.label`.
#[derive(Serialize, JsonSchema)]
pub struct Labelled<'a> {
    pub id: &'a str,
    /// The issue's labels after.
    pub labels: Vec<String>,
    pub changed: bool,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// The members of an accepted `issue.comment`.
#[derive(Serialize, JsonSchema)]
pub struct Commented<'a> {
    pub id: &'a str,
    /// The new comment as stored: `{id, issue_id, author, text, created_at}`.
    pub comment: Value,
    /// The stored line after the change.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// The members of an accepted `issue.comments`.
#[derive(Serialize, JsonSchema)]
pub struct Comments<'a> {
    pub id: &'a str,
    pub count: usize,
    /// The comments as stored, in order.
    pub comments: Vec<Value>,
}
