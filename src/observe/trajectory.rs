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
const DEFAULT_ROWS: u64 = 20_000;
const MAX_ROWS: u64 = 100_000;
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
    let mut back = Backward::open(log, None)?;
    let mut rows = Vec::new();
    let mut newest: Vec<Value> = Vec::new();
    let mut errors: Vec<Value> = Vec::new();
    let mut error_count = 0u64;
    let mut exhausted = false;
    while rows.len() + (error_count as usize) < max_rows {
        let Some(line) = back.next_line()? else {
            exhausted = true;
            break;
        };
        match parse_line(&line.bytes) {
            Ok(r) => {
                if newest.len() < TABLE_ROWS {
                    newest.push(json!({
                        "pos": line.pos,
                        "stepId": r.step_id,
                        "action": r.action,
                        "resultClass": r.result_class,
                        "finishedAt": r.finished_at.to_rfc3339(),
                        "issueId": r.issue_id,
                    }));
                }
                rows.push(Row {
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
                error_count += 1;
                if errors.len() < TABLE_ROWS {
                    errors.push(json!({"pos": line.pos, "message": why}));
                }
                if newest.len() < TABLE_ROWS {
                    newest.push(json!({"pos": line.pos, "error": why}));
                }
            }
        }
    }

    // Per hour, ending at the newest row's hour.
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
    let mut failure_series: Vec<(String, Vec<f64>)> = Vec::new();
    let mut other = vec![0.0; hours as usize];
    for (i, (class, values)) in by_total.into_iter().enumerate() {
        if i < NAMED_CLASSES {
            failure_series.push((class.to_string(), values));
        } else {
            for (o, v) in other.iter_mut().zip(values) {
                *o += v;
            }
        }
    }
    if other.iter().any(|v| *v > 0.0) {
        failure_series.push(("other".into(), other));
    }

    // The KPI over its window, from the rows read.
    let span = TimeDelta::nanoseconds((window_hours * 3_600_000_000_000.0).round() as i64);
    let start = now - span;
    let mut counts = WindowCounts::default();
    let mut issues = HashSet::new();
    for r in rows
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
    let oldest = rows.iter().map(|r| r.finished_at).min();
    let window_complete = exhausted || oldest.is_some_and(|t| t <= start);
    let k = kpi::compute(counts, window_hours, None, now);

    // Work in progress per worker: in-progress issues by assignee, active
    // leases by owner.
    let parsed = o.store()?;
    let store = parsed.borrow_dependent();
    let mut wip: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
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
    let mut wip_bars: Vec<(String, f64)> = wip
        .iter()
        .map(|(w, (n, _))| (w.to_string(), *n as f64))
        .collect();
    wip_bars.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    wip_bars.truncate(30);

    let json = json!({
        "kind": "tusk.observe.trajectory.v0",
        "trajectoryPath": log.path().display().to_string(),
        "rowsRead": rows.len() as u64 + error_count,
        "reachedStart": exhausted,
        "errorCount": error_count,
        "errors": errors,
        "hours": {
            "from": first.to_rfc3339(),
            "labels": labels,
            "completed": completed,
            "failed": failure_series.iter().map(|(c, v)| json!({"class": c, "counts": v})).collect::<Vec<_>>(),
        },
        "kpi": k.to_json(),
        "kpiWindowComplete": window_complete,
        "wip": wip.iter().map(|(w, (n, l))| json!({"worker": w, "inProgress": n, "activeLeases": l})).collect::<Vec<_>>(),
        "newest": newest,
    });

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
            rows.len()
        ));
    }
    body.raw(&format!(
        "<p class=\"muted\">{} row(s) read from the end of <code>{}</code>{}{}.</p>",
        rows.len() as u64 + error_count,
        esc(&log.path().display().to_string()),
        if exhausted { " (all of it)" } else { "" },
        if error_count > 0 {
            format!(", {error_count} of them unreadable")
        } else {
            String::new()
        }
    ));
    body.raw(&svg::stacked_bars(
        "throughput",
        "Completed steps per hour",
        &labels,
        &[("completed".into(), completed.clone())],
        &svg::SUCCESS,
    ));
    body.raw(&svg::stacked_bars(
        "failures",
        "Failed steps per hour, by failure class",
        &labels,
        &failure_series,
        &svg::COLOURS,
    ));
    body.raw(&svg::horizontal_bars(
        "wip",
        "Work in progress per worker (in_progress issues by assignee)",
        &wip_bars,
    ));
    body.el("h2", "", "Last rows of the log");
    let rows_html: Vec<Vec<String>> = newest
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
        .collect();
    body.raw(&table(
        "trajectory-rows",
        &["finished", "action", "result class", "issue", "step"],
        &rows_html,
    ));
    Ok(Page {
        title: "Trajectory & KPI".into(),
        nav: "/trajectory",
        body: body.0,
        json,
    })
}
