//! The leases page: the lease projection of `issue lease-projection`
//! (active, stale, contended), the leases expiring soon, and the leases per
//! worker (lease owner).

use super::html::{esc, table, Html};
use super::queue::{filter_form, filter_of, issue_link, pager, DEFAULT_LIMIT, MAX_LIMIT};
use super::{number, Observer, Page, PageError, Params};
use crate::issues::filter::IssueFilter;
use crate::issues::model::LeaseState;
use crate::issues::projection;
use crate::issues::store::Store;
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Minutes ahead within which an active lease counts as expiring soon.
const DEFAULT_SOON_MINUTES: u64 = 10;

#[derive(Default, serde::Serialize)]
struct Worker {
    active: u64,
    stale: u64,
    contended: u64,
    #[serde(rename = "expiringSoon")]
    expiring_soon: u64,
}

/// The leases page.
pub fn page(o: &Observer, params: &Params) -> Result<Page, PageError> {
    let filter = filter_of(params)?;
    let limit = number(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?.max(1);
    let offset = number(params, "offset", 0, u64::MAX)?;
    let soon_minutes = number(params, "soonMinutes", DEFAULT_SOON_MINUTES, 24 * 60)?;
    let now = Utc::now();
    let soon = now + TimeDelta::minutes(soon_minutes as i64);
    let parsed = o.store()?;
    let store = parsed.borrow_dependent();
    let projected = projection::lease_projection(store, &filter, now);
    let items: &[Value] = projected
        .get("items")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);

    let (workers, expiring) = per_worker(store, &filter, now, soon);
    let start = (offset as usize).min(items.len());
    let page_items = &items[start..(start + limit as usize).min(items.len())];

    let json = json!({
        "kind": "tusk.observe.leases.v0",
        "issuesPath": o.stores.issues.path().display().to_string(),
        "checkedAt": now.to_rfc3339(),
        "filter": filter,
        "projection": projected.get("projection"),
        "leaseCount": items.len(),
        "soonMinutes": soon_minutes,
        "expiringSoon": expiring.iter().map(|(at, id, owner)| json!({
            "id": id, "owner": owner, "expiresAt": at.to_rfc3339(),
        })).collect::<Vec<_>>(),
        "workers": workers,
        "offset": offset,
        "limit": limit,
        "items": page_items,
    });

    let p = projected.get("projection").cloned().unwrap_or(Value::Null);
    let active = items
        .iter()
        .filter(|i| i["lease"]["state"] == "active")
        .count();
    let mut body = Html::default();
    body.raw(&format!(
        "<section class=\"counts\" id=\"lease-counts\">\
         <div class=\"count\"><b>{active}</b><span>active</span></div>\
         <div class=\"count status-blocked\"><b>{}</b><span>stale</span></div>\
         <div class=\"count status-blocked\"><b>{}</b><span>contended</span></div>\
         <div class=\"count\"><b>{}</b><span>expiring within {soon_minutes} min</span></div></section>",
        p["staleCount"],
        p["contendedCount"],
        expiring.len()
    ));
    body.raw(&filter_form("/leases", params));
    body.el("h2", "", "Per worker");
    let rows = worker_rows(&workers);
    body.raw(&table(
        "workers",
        &["worker", "active", "stale", "contended", "expiring soon"],
        &rows,
    ));
    body.el("h2", "", "Expiring soon");
    let rows: Vec<Vec<String>> = expiring
        .iter()
        .take(limit as usize)
        .map(|(at, id, owner)| vec![issue_link(id), esc(owner), esc(&at.to_rfc3339())])
        .collect();
    body.raw(&table("expiring", &["issue", "owner", "expires at"], &rows));
    body.el("h2", "", "Leases");
    let rows = lease_rows(page_items);
    body.raw(&table(
        "leases",
        &[
            "issue",
            "state",
            "owner",
            "assignee",
            "status",
            "expires at",
        ],
        &rows,
    ));
    body.raw(&pager(
        "/leases",
        params,
        "offset",
        offset,
        limit,
        items.len() as u64,
    ));
    Ok(Page {
        title: "Leases".into(),
        nav: "/leases",
        body: body.0,
        json,
    })
}

/// The per-worker table's cells.
fn worker_rows(workers: &BTreeMap<&str, Worker>) -> Vec<Vec<String>> {
    workers
        .iter()
        .map(|(owner, w)| {
            vec![
                esc(owner),
                w.active.to_string(),
                w.stale.to_string(),
                w.contended.to_string(),
                w.expiring_soon.to_string(),
            ]
        })
        .collect()
}

/// A lease about to expire: when, the issue, the owner.
type Expiring<'s> = (DateTime<Utc>, &'s str, &'s str);

/// Each lease holder's counts, and the active leases expiring before `soon`
/// (soonest first), over the issues the filter passes.
fn per_worker<'s>(
    store: &'s Store<'_>,
    filter: &IssueFilter,
    now: DateTime<Utc>,
    soon: DateTime<Utc>,
) -> (BTreeMap<&'s str, Worker>, Vec<Expiring<'s>>) {
    let mut workers: BTreeMap<&str, Worker> = BTreeMap::new();
    let mut expiring = Vec::new();
    for issue in store.issues().filter(|i| filter.passes(store, i)) {
        let Some(lease) = &issue.lease else { continue };
        let w = workers.entry(lease.owner.as_str()).or_default();
        match issue.lease_state(now) {
            LeaseState::Active => {
                w.active += 1;
                if projection::contended(issue, now) {
                    w.contended += 1;
                }
                if lease.expires_at <= soon {
                    w.expiring_soon += 1;
                    expiring.push((lease.expires_at, issue.id.as_str(), lease.owner.as_str()));
                }
            }
            LeaseState::Stale => w.stale += 1,
            LeaseState::Unleased => {}
        }
    }
    expiring.sort();
    (workers, expiring)
}

/// The leases table's cells.
fn lease_rows(items: &[Value]) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|i| {
            let state = super::value_text(&i["lease"]["state"]);
            let contended = i["contended"] == true;
            vec![
                issue_link(&super::value_text(&i["id"])),
                format!(
                    "<span class=\"tag state-{}\">{}</span>{}",
                    esc(&state),
                    esc(&state),
                    if contended {
                        " <span class=\"tag state-contended\">contended</span>"
                    } else {
                        ""
                    }
                ),
                esc(&super::value_text(&i["lease"]["owner"])),
                esc(&super::value_text(&i["assignee"])),
                esc(&super::value_text(&i["status"])),
                esc(&super::value_text(&i["lease"]["expiresAt"])),
            ]
        })
        .collect()
}
