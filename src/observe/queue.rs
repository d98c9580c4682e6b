//! The queue page: counts by status, the ready frontier and the blocked
//! issues with their blockers, filtered by label, type and assignee (the
//! routing filter of `issue ready|blocked`), one page of each at a time.

use super::html::{esc, table, url_part, Html};
use super::{number, text, Observer, Page, PageError, Params};
use crate::issues::filter::IssueFilter;
use crate::issues::model::Issue;
use crate::issues::views;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Rows per list unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u64 = 50;
/// The most rows a page lists.
pub const MAX_LIMIT: u64 = 500;

/// The filter the query names (`label`, `type`, `assignee`).
pub(crate) fn filter_of(params: &Params) -> Result<IssueFilter, PageError> {
    let filter = IssueFilter {
        labels: text(params, "label")
            .map(str::to_string)
            .into_iter()
            .collect(),
        types: text(params, "type")
            .map(str::to_string)
            .into_iter()
            .collect(),
        assignee: text(params, "assignee").map(str::to_string),
        ..IssueFilter::default()
    };
    filter.check().map_err(PageError::BadRequest)?;
    Ok(filter)
}

/// The filter form, with the current values filled in.
pub(crate) fn filter_form(action: &str, params: &Params) -> String {
    let value = |name: &str| esc(text(params, name).unwrap_or(""));
    format!(
        "<form class=\"filters\" method=\"get\" action=\"{action}\">\
         <label>label <input name=\"label\" value=\"{}\"></label>\
         <label>type <input name=\"type\" value=\"{}\"></label>\
         <label>assignee <input name=\"assignee\" value=\"{}\"></label>\
         <button type=\"submit\">Filter</button></form>",
        value("label"),
        value("type"),
        value("assignee")
    )
}

fn issue_json(issue: &Issue<'_>) -> Value {
    json!({
        "id": issue.id.as_str(),
        "title": issue.title.as_str(),
        "status": issue.status.as_str(),
        "priority": issue.priority,
        "issueType": issue.issue_type.as_str(),
        "assignee": issue.assignee.as_ref().map(|a| a.as_str()),
        "labels": issue.labels.iter().map(|l| l.as_str()).collect::<Vec<_>>(),
    })
}

/// The link to an issue's dependency graph.
pub(crate) fn issue_link(id: &str) -> String {
    format!("<a href=\"/issues/{}/graph\">{}</a>", url_part(id), esc(id))
}

/// Links to the previous and next pages of one list (`key` is its offset
/// parameter; the other parameters are kept).
pub(crate) fn pager(
    path: &str,
    params: &Params,
    key: &str,
    offset: u64,
    limit: u64,
    total: u64,
) -> String {
    let link = |to: u64| {
        let mut query: Vec<String> = params
            .iter()
            .filter(|(k, _)| k.as_str() != key && k.as_str() != "format")
            .map(|(k, v)| format!("{}={}", url_part(k), url_part(v)))
            .collect();
        query.sort();
        query.push(format!("{key}={to}"));
        format!("{path}?{}", query.join("&"))
    };
    let mut out = format!(
        "<p class=\"pager\">{}–{} of {total}",
        (offset + 1).min(total),
        (offset + limit).min(total)
    );
    if offset > 0 {
        out.push_str(&format!(
            " · <a href=\"{}\">previous</a>",
            esc(&link(offset.saturating_sub(limit)))
        ));
    }
    if offset + limit < total {
        out.push_str(&format!(
            " · <a href=\"{}\" rel=\"next\">next</a>",
            esc(&link(offset + limit))
        ));
    }
    out.push_str("</p>");
    out
}

/// The queue page.
pub fn page(o: &Observer, params: &Params) -> Result<Page, PageError> {
    let filter = filter_of(params)?;
    let limit = number(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?.max(1);
    let ready_offset = number(params, "readyOffset", 0, u64::MAX)?;
    let blocked_offset = number(params, "blockedOffset", 0, u64::MAX)?;
    let parsed = o.store()?;
    let store = parsed.borrow_dependent();
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for issue in store.issues() {
        *counts.entry(issue.status.as_str()).or_default() += 1;
    }
    let ready: Vec<&Issue<'_>> = views::ready(store)
        .into_iter()
        .filter(|i| filter.passes(store, i))
        .collect();
    let blocked = blocked_members(store, &filter);
    let slice = |len: usize, offset: u64| {
        let start = (offset as usize).min(len);
        start..(start + limit as usize).min(len)
    };
    let ready_page = &ready[slice(ready.len(), ready_offset)];
    let blocked_page: Vec<_> = blocked[slice(blocked.len(), blocked_offset)]
        .iter()
        .map(|&(i, manual)| (i, manual, views::blockers(store, i)))
        .collect();

    let json = json!({
        "kind": "tusk.observe.queue.v0",
        "issuesPath": o.stores.issues.path().display().to_string(),
        "total": store.issue_count(),
        "counts": counts,
        "filter": filter,
        "ready": {
            "total": ready.len(),
            "offset": ready_offset,
            "limit": limit,
            "items": ready_page.iter().map(|i| issue_json(i)).collect::<Vec<_>>(),
        },
        "blocked": {
            "total": blocked.len(),
            "offset": blocked_offset,
            "limit": limit,
            "items": blocked_page.iter().map(|(i, manual, blockers)| {
                let mut item = issue_json(i);
                item["manualBlocked"] = json!(manual);
                item["blockers"] = serde_json::to_value(blockers).unwrap_or(Value::Null);
                item
            }).collect::<Vec<_>>(),
        },
    });

    let mut body = Html::default();
    body.raw(&counts_html(store.issue_count(), &counts));
    body.raw(&filter_form("/queue", params));
    body.el("h2", "", "Ready");
    let rows = ready_rows(ready_page);
    body.raw(&table(
        "ready",
        &["id", "title", "priority", "type", "assignee", "labels"],
        &rows,
    ));
    body.raw(&pager(
        "/queue",
        params,
        "readyOffset",
        ready_offset,
        limit,
        ready.len() as u64,
    ));
    body.el("h2", "", "Blocked");
    let rows = blocked_rows(&blocked_page);
    body.raw(&table(
        "blocked",
        &["id", "title", "priority", "status", "blocked by"],
        &rows,
    ));
    body.raw(&pager(
        "/queue",
        params,
        "blockedOffset",
        blocked_offset,
        limit,
        blocked.len() as u64,
    ));
    Ok(Page {
        title: "Queue".into(),
        nav: "/queue",
        body: body.0,
        json,
    })
}

/// `issue blocked`'s membership (manually blocked, or an open blocker) among
/// the issues the filter passes, by priority then id; decided without
/// building every issue's blocker list (only the page's rows get theirs).
fn blocked_members<'s>(
    store: &'s crate::issues::store::Store<'_>,
    filter: &IssueFilter,
) -> Vec<(&'s Issue<'s>, bool)> {
    let mut blocked: Vec<(&'s Issue<'s>, bool)> = store
        .issues()
        .filter(|i| !i.is_closed())
        .filter_map(|i| {
            let manual = i.status.as_str() == "blocked";
            (manual || !views::unblocked(store, i)).then_some((i, manual))
        })
        .filter(|(i, _)| filter.passes(store, i))
        .collect();
    blocked.sort_by(|a, b| views::by_priority_then_id(&a.0, &b.0));
    blocked
}

/// The counts by status.
fn counts_html(total: usize, counts: &BTreeMap<&str, u64>) -> String {
    let mut body = Html::default();
    body.raw("<section class=\"counts\" id=\"counts\">");
    body.raw(&format!(
        "<div class=\"count\"><b>{}</b><span>issues</span></div>",
        total
    ));
    for (status, n) in counts {
        body.raw(&format!(
            "<div class=\"count status-{}\"><b>{n}</b><span>{}</span></div>",
            url_part(status),
            esc(status)
        ));
    }
    body.raw("</section>");
    body.0
}

/// The ready table's cells.
fn ready_rows(page: &[&Issue<'_>]) -> Vec<Vec<String>> {
    page.iter()
        .map(|i| {
            vec![
                issue_link(i.id.as_str()),
                esc(i.title.as_str()),
                i.priority.to_string(),
                esc(i.issue_type.as_str()),
                esc(i.assignee.as_ref().map_or("", |a| a.as_str())),
                esc(&i
                    .labels
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")),
            ]
        })
        .collect()
}

/// The blocked table's cells: each issue with what blocks it.
fn blocked_rows(page: &[(&Issue<'_>, bool, Vec<views::Blocker<'_>>)]) -> Vec<Vec<String>> {
    page.iter()
        .map(|(i, manual, blockers)| {
            let mut by = blockers
                .iter()
                .map(|b| {
                    let state = if b.blocker_missing {
                        "missing".to_string()
                    } else {
                        b.blocker_status.unwrap_or("").to_string()
                    };
                    format!(
                        "{} <span class=\"muted\">({}, {})</span>",
                        issue_link(b.depends_on_id),
                        esc(b.dep_type),
                        esc(&state)
                    )
                })
                .collect::<Vec<_>>();
            if *manual {
                by.insert(0, "<span class=\"tag\">status blocked</span>".into());
            }
            vec![
                issue_link(i.id.as_str()),
                esc(i.title.as_str()),
                i.priority.to_string(),
                esc(i.status.as_str()),
                by.join("<br>"),
            ]
        })
        .collect()
}
