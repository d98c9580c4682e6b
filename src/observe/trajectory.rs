//! The trajectory and KPI page: the newest trajectory rows (read from the
//! log's end, at most `rows` of them), plotted per hour (completed steps,
//! failure classes), the harness KPI over its window, and each worker's work
//! in progress from the issue store.

use super::html::{esc, table, Html};
use super::svg;
use super::tail::Backward;
use super::{number, text, Observer, Page, PageError, Params};
use crate::harness::kpi::{self, WindowCounts};
use crate::harness::trajectory::{is_host_call_row, parse_line};
use crate::issues::model::LeaseState;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

/// Rows read unless `rows` says otherwise, and at most.
pub(super) const DEFAULT_ROWS: u64 = 20_000;
pub(super) const MAX_ROWS: u64 = 100_000;
/// Hours plotted unless `hours` says otherwise, and at most.
const DEFAULT_HOURS: u64 = 48;
const MAX_HOURS: u64 = 720;
/// Newest rows listed in the table.
const TABLE_ROWS: usize = 25;
/// Failure classes plotted by name; the rest are summed as "other".
const NAMED_CLASSES: usize = 7;

struct Row {
    finished_at: DateTime<Utc>,
    step: bool,
    success: bool,
    class: String,
    issue: Option<String>,
}

/// The newest rows of the log, as far back as `max_rows` allows.
struct Read {
    rows: Vec<Row>,
    /// The newest rows for the table (a row or `{pos, error}`).
    newest: Vec<Value>,
    errors: Vec<Value>,
    error_count: u64,
    /// The whole log was read.
    exhausted: bool,
}

/// Steps per hour, ending at the newest row's hour.
struct Hours {
    first: DateTime<Utc>,
    labels: Vec<String>,
    completed: Vec<f64>,
    /// The named failure classes, most frequent first, then "other".
    failures: Vec<(String, Vec<f64>)>,
}

/// The trajectory and KPI page.
pub fn page(o: &Observer, params: &Params) -> Result<Page, PageError> {
    let max_rows = number(params, "rows", DEFAULT_ROWS, MAX_ROWS)?.max(1) as usize;
    let hours = number(params, "hours", DEFAULT_HOURS, MAX_HOURS)?.max(1) as i64;
    let window_hours = match text(params, "window") {
        None => kpi::DEFAULT_WINDOW_HOURS,
        Some(w) => w
            .parse::<f64>()
            .map_err(|_| PageError::BadRequest(format!("window: {w:?} is not a number of hours")))
            .and_then(|h| kpi::validate_window_hours(h).map_err(PageError::BadRequest))?,
    };
    let now = match text(params, "now") {
        None => Utc::now(),
        Some(t) => DateTime::parse_from_rfc3339(t)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| PageError::BadRequest(format!("now: {t:?} is not an RFC 3339 instant")))?,
    };
    let log = &o.stores.trajectory;
    let read = read_rows(log, max_rows)?;
    let per_hour = hourly(&read.rows, hours, now);
    let (k, window_complete) = window_kpi(&read, window_hours, now);
    let parsed = o.store()?;
    let wip = work_in_progress(parsed.borrow_dependent(), now);
    let path = log.path().display().to_string();
    let json = json!({
        "kind": "tusk.observe.trajectory.v0",
        "trajectoryPath": path,
        "rowsRead": read.rows.len() as u64 + read.error_count,
        "reachedStart": read.exhausted,
        "errorCount": read.error_count,
        "errors": read.errors,
        "hours": {
            "from": per_hour.first.to_rfc3339(),
            "labels": per_hour.labels,
            "completed": per_hour.completed,
            "failed": per_hour.failures.iter().map(|(c, v)| json!({"class": c, "counts": v})).collect::<Vec<_>>(),
        },
        "kpi": k.to_json(),
        "kpiWindowComplete": window_complete,
        "wip": wip.iter().map(|(w, (n, l))| json!({"worker": w, "inProgress": n, "activeLeases": l})).collect::<Vec<_>>(),
        "newest": read.newest,
    });
    let body = page_html(
        &read,
        &per_hour,
        &k,
        window_hours,
        window_complete,
        &wip,
        &path,
    );
    Ok(Page {
        title: "Trajectory & KPI".into(),
        nav: "/trajectory",
        body,
        json,
    })
}

/// Reads the log backwards from its end, at most `max_rows` lines.
fn read_rows(log: &crate::logs::LogStore, max_rows: usize) -> Result<Read, PageError> {
    let mut back = Backward::open(log, None)?;
    let mut read = Read {
        rows: Vec::new(),
        newest: Vec::new(),
        errors: Vec::new(),
        error_count: 0,
        exhausted: false,
    };
    while read.rows.len() + (read.error_count as usize) < max_rows {
        let Some(line) = back.next_line()? else {
            read.exhausted = true;
            break;
        };
        match parse_line(&line.bytes) {
            Ok(r) => {
                if read.newest.len() < TABLE_ROWS {
                    read.newest.push(json!({
                        "pos": line.pos,
                        "stepId": r.step_id,
                        "action": r.action,
                        "resultClass": r.result_class,
                        "finishedAt": r.finished_at.to_rfc3339(),
                        "issueId": r.issue_id,
                    }));
                }
                read.rows.push(Row {
                    finished_at: r.finished_at,
                    step: !is_host_call_row(&r.action),
                    success: r.outcome.is_success(),
                    class: r.result_class.into_owned(),
                    issue: r
                        .issue_id
                        .map(|i| i.trim().to_string())
                        .filter(|i| !i.is_empty()),
                });
            }
            Err(why) => {
                read.error_count += 1;
                if read.errors.len() < TABLE_ROWS {
                    read.errors.push(json!({"pos": line.pos, "message": why}));
                }
                if read.newest.len() < TABLE_ROWS {
                    read.newest.push(json!({"pos": line.pos, "error": why}));
                }
            }
        }
    }
    Ok(read)
}

/// Completed and failed steps per hour, `hours` hours ending at the newest
/// row's hour (or now's).
fn hourly(rows: &[Row], hours: i64, now: DateTime<Utc>) -> Hours {
    let anchor = rows
        .iter()
        .map(|r| r.finished_at)
        .max()
        .unwrap_or(now)
        .duration_trunc(TimeDelta::hours(1))
        .unwrap_or(now);
    let first = anchor - TimeDelta::hours(hours - 1);
    let bucket_of = |t: DateTime<Utc>| -> Option<usize> {
        (t >= first && t < anchor + TimeDelta::hours(1)).then(|| ((t - first).num_hours()) as usize)
    };
    let labels: Vec<String> = (0..hours)
        .map(|h| {
            (first + TimeDelta::hours(h))
                .format("%m-%d %H:00")
                .to_string()
        })
        .collect();
    let mut completed = vec![0.0; hours as usize];
    let mut failed: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.step) {
        let Some(b) = bucket_of(r.finished_at) else {
            continue;
        };
        if r.success {
            completed[b] += 1.0;
        } else {
            failed
                .entry(r.class.as_str())
                .or_insert_with(|| vec![0.0; hours as usize])[b] += 1.0;
        }
    }
    let mut by_total: Vec<(&str, Vec<f64>)> = failed.into_iter().collect();
    by_total.sort_by(|a, b| {
        let sum = |v: &Vec<f64>| v.iter().sum::<f64>();
        sum(&b.1).total_cmp(&sum(&a.1)).then(a.0.cmp(b.0))
    });
    let mut failures: Vec<(String, Vec<f64>)> = Vec::new();
    let mut other = vec![0.0; hours as usize];
    for (i, (class, values)) in by_total.into_iter().enumerate() {
        if i < NAMED_CLASSES {
            failures.push((class.to_string(), values));
        } else {
            for (o, v) in other.iter_mut().zip(values) {
                *o += v;
            }
        }
    }
    if other.iter().any(|v| *v > 0.0) {
        failures.push(("other".into(), other));
    }
    Hours {
        first,
        labels,
        completed,
        failures,
    }
}

/// The KPI over its window, from the rows read, and whether they reach the
/// window's start.
fn window_kpi(read: &Read, window_hours: f64, now: DateTime<Utc>) -> (kpi::Kpi, bool) {
    let span = TimeDelta::nanoseconds((window_hours * 3_600_000_000_000.0).round() as i64);
    let start = now - span;
    let mut counts = WindowCounts::default();
    let mut issues = HashSet::new();
    for r in read
        .rows
        .iter()
        .filter(|r| r.step && r.finished_at > start && r.finished_at <= now)
    {
        counts.window_rows += 1;
        if r.success {
            counts.completed_rows += 1;
        }
        if let Some(i) = &r.issue {
            issues.insert(i.as_str());
        }
    }
    counts.distinct_issues = issues.len() as u64;
    let oldest = read.rows.iter().map(|r| r.finished_at).min();
    let window_complete = read.exhausted || oldest.is_some_and(|t| t <= start);
    (
        kpi::compute(counts, window_hours, None, now),
        window_complete,
    )
}

/// Work in progress per worker: in-progress issues by assignee, active
/// leases by owner.
fn work_in_progress<'s>(
    store: &'s crate::issues::store::Store<'_>,
    now: DateTime<Utc>,
) -> BTreeMap<&'s str, (u64, u64)> {
    let mut wip: BTreeMap<&'s str, (u64, u64)> = BTreeMap::new();
    for issue in store.issues() {
        if issue.status.as_str() == "in_progress" {
            let who = issue
                .assignee
                .as_ref()
                .map_or("(unassigned)", |a| a.as_str());
            wip.entry(who).or_default().0 += 1;
        }
        if let Some(lease) = &issue.lease {
            if issue.lease_state(now) == LeaseState::Active {
                wip.entry(lease.owner.as_str()).or_default().1 += 1;
            }
        }
    }
    wip
}

/// The page's HTML: KPI counts, the plots and the newest rows.
fn page_html(
    read: &Read,
    per_hour: &Hours,
    k: &kpi::Kpi,
    window_hours: f64,
    window_complete: bool,
    wip: &BTreeMap<&str, (u64, u64)>,
    path: &str,
) -> String {
    let mut wip_bars: Vec<(String, f64)> = wip
        .iter()
        .map(|(w, (n, _))| (w.to_string(), *n as f64))
        .collect();
    wip_bars.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    wip_bars.truncate(30);
    let mut body = Html::default();
    body.raw(&format!(
        "<section class=\"counts\" id=\"kpi\">\
         <div class=\"count\"><b>{:.3}</b><span>KPI ({})</span></div>\
         <div class=\"count\"><b>{:.1}</b><span>throughput / worker / day</span></div>\
         <div class=\"count\"><b>{:.2}</b><span>gate pass rate</span></div>\
         <div class=\"count\"><b>{}</b><span>window rows ({} h)</span></div>\
         <div class=\"count\"><b>{}</b><span>active workers</span></div></section>",
        k.kpi,
        esc(k.decision.as_str()),
        k.throughput_per_worker_per_day,
        k.gate_pass_rate,
        k.window_rows,
        window_hours,
        k.active_workers
    ));
    if !window_complete {
        body.raw(&format!(
            "<p class=\"warn\">The KPI counts the newest {} rows only: the window reaches further back (raise <code>rows</code>, at most {MAX_ROWS}, or use <code>tusk harness-kpi</code>).</p>",
            read.rows.len()
        ));
    }
    body.raw(&format!(
        "<p class=\"muted\">{} row(s) read from the end of <code>{}</code>{}{}.</p>",
        read.rows.len() as u64 + read.error_count,
        esc(path),
        if read.exhausted { " (all of it)" } else { "" },
        if read.error_count > 0 {
            format!(", {} of them unreadable", read.error_count)
        } else {
            String::new()
        }
    ));
    body.raw(&svg::stacked_bars(
        "throughput",
        "Completed steps per hour",
        &per_hour.labels,
        &[("completed".into(), per_hour.completed.clone())],
        &svg::SUCCESS,
    ));
    body.raw(&svg::stacked_bars(
        "failures",
        "Failed steps per hour, by failure class",
        &per_hour.labels,
        &per_hour.failures,
        &svg::COLOURS,
    ));
    body.raw(&svg::horizontal_bars(
        "wip",
        "Work in progress per worker (in_progress issues by assignee)",
        &wip_bars,
    ));
    body.el("h2", "", "Last rows of the log");
    body.raw(&table(
        "trajectory-rows",
        &["finished", "action", "result class", "issue", "step"],
        &newest_rows(&read.newest),
    ));
    body.0
}

/// The table's cells for the newest rows.
fn newest_rows(newest: &[Value]) -> Vec<Vec<String>> {
    newest
        .iter()
        .map(|r| match r.get("error") {
            Some(e) => vec![
                "<span class=\"tag state-stale\">bad row</span>".into(),
                esc(&super::value_text(e)),
                String::new(),
                String::new(),
                format!("at {}", r["pos"]),
            ],
            None => vec![
                esc(&super::value_text(&r["finishedAt"])),
                esc(&super::value_text(&r["action"])),
                esc(&super::value_text(&r["resultClass"])),
                match r["issueId"].as_str() {
                    Some(id) => super::queue::issue_link(id),
                    None => String::new(),
                },
                esc(&super::value_text(&r["stepId"])),
            ],
        })
        .collect()
}
