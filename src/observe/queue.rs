//! The queue page: counts by status, the ready frontier, the work in
//! progress with who holds it (assignee and lease, issue 47), and the
//! blocked issues with their blockers, filtered by label, type and assignee
//! (the routing filter of `issue ready|blocked`), one page of each at a time.

use super::html::{esc, table, url_part, Html};
use super::{number, text, Observer, Page, PageError, Params};
use crate::issues::filter::IssueFilter;
use crate::issues::model::Issue;
use crate::issues::views;
use chrono::Utc;
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

/// The link to an issue's page.
pub(crate) fn issue_link(id: &str) -> String {
    format!(
        "<a href=\"{}\">{}</a>",
        super::html::thing_href("issues", id, ""),
        esc(id)
    )
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

const READY_HEADERS: [&str; 6] = ["id", "title", "priority", "type", "assignee", "labels"];
const PROGRESS_HEADERS: [&str; 7] = [
    "id",
    "title",
    "priority",
    "assignee",
    "lease holder",
    "lease",
    "expires at",
];
const BLOCKED_HEADERS: [&str; 5] = ["id", "title", "priority", "status", "blocked by"];

/// One list of the page: its slice, where it sits in the whole, and the
/// query parameter that pages it.
struct Listed<T> {
    total: usize,
    offset: u64,
    key: &'static str,
    page: Vec<T>,
}

impl<T> Listed<T> {
    fn of(all: Vec<T>, key: &'static str, params: &Params, limit: u64) -> Result<Self, PageError> {
        let offset = number(params, key, 0, u64::MAX)?;
        let total = all.len();
        let start = (offset as usize).min(total);
        let page = all.into_iter().skip(start).take(limit as usize).collect();
        Ok(Listed {
            total,
            offset,
            key,
            page,
        })
    }

    /// The list's heading, table and pager.
    fn section(
        &self,
        title: &str,
        id: &str,
        headers: &[&str],
        rows: &[Vec<String>],
        params: &Params,
        limit: u64,
    ) -> String {
        let mut out = Html::default();
        out.el("h2", "", title);
        out.raw(&table(id, headers, rows));
        out.raw(&pager(
            "/queue",
            params,
            self.key,
            self.offset,
            limit,
            self.total as u64,
        ));
        out.0
    }

    fn json(&self, limit: u64, item: impl Fn(&T) -> Value) -> Value {
        json!({
            "total": self.total,
            "offset": self.offset,
            "limit": limit,
            "items": self.page.iter().map(item).collect::<Vec<_>>(),
        })
    }
}

/// The queue page.
pub fn page(o: &Observer, params: &Params) -> Result<Page, PageError> {
    let filter = filter_of(params)?;
    let limit = number(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?.max(1);
    let now = Utc::now();
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
    let ready = Listed::of(ready, "readyOffset", params, limit)?;
    let progress = Listed::of(in_progress(store, &filter), "progressOffset", params, limit)?;
    let blocked = Listed::of(
        blocked_members(store, &filter),
        "blockedOffset",
        params,
        limit,
    )?;
    let blockers: Vec<_> = blocked
        .page
        .iter()
        .map(|(i, _)| views::blockers(store, i))
        .collect();

    let json = json!({
        "kind": "tusk.observe.queue.v0",
        "issuesPath": o.stores.issues.path().display().to_string(),
        "total": store.issue_count(),
        "counts": counts,
        "filter": filter,
        "ready": ready.json(limit, |i| issue_json(i)),
        "inProgress": progress.json(limit, |i| {
            let mut item = issue_json(i);
            item["lease"] = lease_json(i, now);
            item
        }),
        "blocked": {
            "total": blocked.total,
            "offset": blocked.offset,
            "limit": limit,
            "items": blocked.page.iter().zip(&blockers).map(|((i, manual), blockers)| {
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
    let rows = ready_rows(&ready.page);
    body.raw(&ready.section("Ready", "ready", &READY_HEADERS, &rows, params, limit));
    let rows = progress_rows(&progress.page, now);
    body.raw(&progress.section(
        "In progress",
        "in-progress",
        &PROGRESS_HEADERS,
        &rows,
        params,
        limit,
    ));
    let rows = blocked_rows(&blocked.page, blockers);
    body.raw(&blocked.section("Blocked", "blocked", &BLOCKED_HEADERS, &rows, params, limit));
    Ok(Page {
        title: "Queue".into(),
        nav: "/queue",
        body: body.0,
        json,
    })
}

/// The in-progress issues the filter passes, by priority then id.
fn in_progress<'s>(
    store: &'s crate::issues::store::Store<'_>,
    filter: &IssueFilter,
) -> Vec<&'s Issue<'s>> {
    let mut list: Vec<&Issue<'_>> = store
        .issues()
        .filter(|i| i.status.as_str() == "in_progress" && filter.passes(store, i))
        .collect();
    list.sort_by(views::by_priority_then_id);
    list
}

/// An issue's lease as the queue shows it: owner, state now, expiry.
pub(crate) fn lease_json(issue: &Issue<'_>, now: chrono::DateTime<Utc>) -> Value {
    match &issue.lease {
        None => Value::Null,
        Some(l) => json!({
            "leaseId": l.lease_id.as_str(),
            "owner": l.owner.as_str(),
            "state": issue.lease_state(now).as_str(),
            "acquiredAt": l.acquired_at.as_str(),
            "expiresAt": l.expires_at_text.as_str(),
            "renewedAt": l.renewed_at.as_ref().map(|r| r.as_str()),
        }),
    }
}

/// The in-progress table's cells: each issue with its holders.
fn progress_rows(page: &[&Issue<'_>], now: chrono::DateTime<Utc>) -> Vec<Vec<String>> {
    page.iter()
        .map(|i| {
            let (owner, state, expires) = match &i.lease {
                Some(l) => {
                    let state = i.lease_state(now).as_str();
                    (
                        esc(l.owner.as_str()),
                        format!("<span class=\"tag state-{state}\">{state}</span>"),
                        esc(l.expires_at_text.as_str()),
                    )
                }
                None => (
                    String::new(),
                    "<span class=\"tag state-stale\">no lease</span>".into(),
                    String::new(),
                ),
            };
            vec![
                issue_link(i.id.as_str()),
                esc(i.title.as_str()),
                i.priority.to_string(),
                esc(i.assignee.as_ref().map_or("", |a| a.as_str())),
                owner,
                state,
                expires,
            ]
        })
        .collect()
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
fn blocked_rows(
    page: &[(&Issue<'_>, bool)],
    blockers: Vec<Vec<views::Blocker<'_>>>,
) -> Vec<Vec<String>> {
    page.iter()
        .zip(blockers)
        .map(|((i, manual), blockers)| {
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
