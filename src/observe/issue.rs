//! One issue's page (issue 47, point 3): its fields as stored, labels,
//! comments, dependencies both ways, its lease, and the runs and trajectory
//! rows that touched it.
//!
//! "Touched" is what the logs can say without guessing: a run whose
//! authority named the issue, or one of whose host calls had it as a
//! top-level argument (`id`, `issueId`, `dependsOnId`, …); a trajectory row
//! whose `issueId` is it, or whose step is one of those runs' (its `stepId`
//! names the run: a run without an issue in its authority writes rows
//! without `issueId`). Both logs are read backwards from their ends,
//! within the same bounds as the runs and trajectory pages, and the page
//! says how far it read.

use super::html::{esc, table, url_part, Html};
use super::queue::{issue_link, lease_json};
use super::runs::{before_of, find_runs, run_cells, RunFilter, RUN_HEADERS};
use super::tail::Backward;
use super::{number, value_text, Observer, Page, PageError, Params};
use crate::harness::trajectory::parse_line;
use crate::issues::model::Issue;
use crate::issues::store::Store;
use crate::issues::views;
use chrono::Utc;
use serde_json::{json, Value};

/// Runs listed unless `runs` says otherwise, and at most.
const DEFAULT_RUNS: u64 = 25;
const MAX_RUNS: u64 = 200;
/// Trajectory rows listed at most (rows read: the trajectory page's bounds,
/// [`super::trajectory::DEFAULT_ROWS`] and [`super::trajectory::MAX_ROWS`]).
const LISTED_ROWS: usize = 50;
/// History entries a page shows.
const HISTORY_PAGE: usize = 100;
/// Dependents and comments listed at most (a hub issue can have thousands).
const MAX_LISTED: usize = 500;
/// Members shown in their own block, not in the fields list.
const TEXTS: [&str; 4] = ["description", "design", "acceptance_criteria", "notes"];
const SHOWN_ELSEWHERE: [&str; 6] = ["id", "title", "labels", "dependencies", "comments", "lease"];

/// The issue page of `id`.
pub fn page(o: &Observer, id: &str, params: &Params) -> Result<Page, PageError> {
    let runs_limit = number(params, "runs", DEFAULT_RUNS, MAX_RUNS)?.max(1) as usize;
    let max_rows = number(
        params,
        "rows",
        super::trajectory::DEFAULT_ROWS,
        super::trajectory::MAX_ROWS,
    )?
    .max(1) as usize;
    let before = before_of(params)?;
    let parsed = o.store()?;
    let store = parsed.borrow_dependent();
    let path = o.stores.issues.path().display().to_string();
    let Some(issue) = store.get(id) else {
        return Err(PageError::NotFound(format!(
            "no issue {id:?} in {path}: the queue (/queue) and `tusk issue list` list the issues there"
        )));
    };
    let now = Utc::now();
    let object = views::full_object(store, issue);
    let depends_on = depends_on(store, issue);
    let (dependents_total, dependents) = dependents(store, id);
    let comments: Vec<Value> = object["comments"].as_array().cloned().unwrap_or_default();

    let header = |h: &Value| super::run_query::names_issue(h, id);
    let call = |row: &Value| super::run_query::touches(row, id);
    let filter = RunFilter {
        all: &super::runs::every,
        header: &header,
        call: &call,
        footer: &super::runs::any_footer,
    };
    let runs = find_runs(&o.stores.effects, before, runs_limit, Some(&filter))?;
    let run_ids: Vec<&str> = runs
        .items
        .iter()
        .filter_map(|r| r["runId"].as_str())
        .collect();
    let steps = trajectory_rows(o, id, &run_ids, max_rows)?;
    // Its history (issue 57): every change, oldest first, a page at a time.
    let history_after = number(params, "history_after", 0, u64::MAX)? as usize;
    let history = crate::history::history(&o.stores.effects, id, history_after, HISTORY_PAGE)
        .map_err(PageError::Store)?;

    let json = json!({
        "kind": "tusk.observe.issue.v0",
        "issuesPath": path,
        "id": id,
        "issue": object,
        "leaseState": issue.lease_state(now).as_str(),
        "lease": lease_json(issue, now),
        "blockers": views::blockers(store, issue),
        "dependsOn": depends_on,
        "dependents": {"total": dependents_total, "items": dependents},
        "comments": comments.iter().take(MAX_LISTED).collect::<Vec<_>>(),
        "commentCount": comments.len(),
        "graphHref": super::html::thing_href("issues", id, "/graph"),
        "runs": {
            "effectsPath": o.stores.effects.path().display().to_string(),
            "rowsRead": runs.scanned,
            "before": before,
            "next": runs.next,
            "items": runs.items,
        },
        "trajectory": steps,
        "history": history.to_json(id),
    });
    let body = page_html(id, issue, &json, now);
    Ok(Page {
        title: format!("Issue {id}"),
        nav: "/queue",
        body,
        json,
    })
}

/// The edges the issue carries, with the state of the issue each names.
fn depends_on(store: &Store<'_>, issue: &Issue<'_>) -> Vec<Value> {
    issue
        .deps
        .iter()
        .map(|d| {
            let other = store.get(d.depends_on.as_str());
            json!({
                "id": d.depends_on.as_str(),
                "type": d.dep_type,
                "blocking": d.blocking,
                "status": other.map(|i| i.status.as_str()),
                "title": other.map(|i| i.title.as_str()),
                "missing": other.is_none(),
            })
        })
        .collect()
}

/// The issues whose edges name `id` (how many, and the first
/// [`MAX_LISTED`] in store order).
fn dependents(store: &Store<'_>, id: &str) -> (usize, Vec<Value>) {
    let mut total = 0;
    let mut items = Vec::new();
    for other in store.issues().filter(|i| !i.superseded) {
        for d in other.deps.iter().filter(|d| d.depends_on.as_str() == id) {
            total += 1;
            if items.len() < MAX_LISTED {
                items.push(json!({
                    "id": other.id.as_str(),
                    "type": d.dep_type,
                    "blocking": d.blocking,
                    "status": other.status.as_str(),
                    "title": other.title.as_str(),
                }));
            }
        }
    }
    (total, items)
}

/// The newest trajectory rows naming `id` or a step of one of `runs`, from
/// at most `max_rows` rows read back from the log's end.
fn trajectory_rows(
    o: &Observer,
    id: &str,
    runs: &[&str],
    max_rows: usize,
) -> Result<Value, PageError> {
    let log = &o.stores.trajectory;
    let needle = serde_json::to_string(id).unwrap_or_default();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let run_finders: Vec<_> = runs
        .iter()
        .map(|r| memchr::memmem::Finder::new(r.as_bytes()))
        .collect();
    let mut back = Backward::open(log, None)?;
    let mut read = 0usize;
    let mut reached_start = false;
    let mut items = Vec::new();
    while read < max_rows && items.len() < LISTED_ROWS {
        let Some(line) = back.next_line()? else {
            reached_start = true;
            break;
        };
        read += 1;
        // A row that names the issue holds its id as a JSON string; one of
        // a run's steps, the run's id.
        let names = |f: &memchr::memmem::Finder<'_>| f.find(&line.bytes).is_some();
        if !names(&finder) && !run_finders.iter().any(names) {
            continue;
        }
        let Ok(r) = parse_line(&line.bytes) else {
            continue;
        };
        let of_run = runs.iter().any(|run| {
            r.step_id
                .strip_suffix(run)
                .is_some_and(|head| head.ends_with('.'))
        });
        if of_run || r.issue_id.as_deref().map(str::trim) == Some(id) {
            items.push(json!({
                "pos": line.pos,
                "stepId": r.step_id,
                "action": r.action,
                "resultClass": r.result_class,
                "finishedAt": r.finished_at.to_rfc3339(),
            }));
        }
    }
    Ok(json!({
        "trajectoryPath": log.path().display().to_string(),
        "rowsRead": read,
        "reachedStart": reached_start,
        "items": items,
    }))
}

/// The page's HTML, from its JSON twin (one source for both).
fn page_html(id: &str, issue: &Issue<'_>, j: &Value, now: chrono::DateTime<Utc>) -> String {
    let mut body = Html::default();
    body.raw(&format!(
        "<p id=\"issue-title\" class=\"lead\"><span class=\"tag status-{}\">{}</span> {}</p>",
        url_part(issue.status.as_str()),
        esc(issue.status.as_str()),
        esc(issue.title.as_str())
    ));
    body.raw(&fields_html(&j["issue"]));
    for key in TEXTS {
        if let Some(text) = j["issue"][key].as_str().filter(|t| !t.trim().is_empty()) {
            body.el("h2", "", &key.replace('_', " "));
            body.raw(&format!(
                "<pre class=\"text\" id=\"issue-{key}\">{}</pre>",
                esc(text)
            ));
        }
    }
    body.el("h2", "", "Lease");
    body.raw(&lease_html(issue, now));
    body.raw(&deps_html(id, j));
    body.el("h2", "", "Comments");
    body.raw(&comments_html(j));
    body.el("h2", "", "History");
    body.raw(&history_html(id, &j["history"]));
    body.el("h2", "", "Runs that touched it");
    let runs = &j["runs"];
    let items = runs["items"].as_array().map_or(&[][..], Vec::as_slice);
    let rows: Vec<Vec<String>> = items.iter().map(run_cells).collect();
    body.raw(&table("issue-runs", &RUN_HEADERS, &rows));
    body.raw(&format!(
        "<p class=\"pager muted\">runs whose authority or a call's arguments name {} · {} row(s) read back from <code>{}</code>{}</p>",
        esc(id),
        runs["rowsRead"],
        esc(&value_text(&runs["effectsPath"])),
        match runs["next"].as_u64() {
            Some(n) => format!(
                " · <a rel=\"next\" href=\"{}\">older</a>",
                super::html::with_query(
                    &super::html::thing_href("issues", id, ""),
                    &format!("before={n}")
                )
            ),
            None => " (to the log's start)".into(),
        }
    ));
    body.el("h2", "", "Trajectory rows");
    body.raw(&steps_html(&j["trajectory"]));
    body.0
}

/// The history's page as a table (every cell escaped: the values are the
/// programs' and the commands').
fn history_html(id: &str, h: &Value) -> String {
    let rows: Vec<Vec<String>> = h["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let mut cells: Vec<String> = crate::history::entry_cells(e)
                .iter()
                .map(|c| esc(c))
                .collect();
            if let Some(run) = e["runId"].as_str().filter(|_| e.get("command").is_none()) {
                cells[4] = format!(
                    "<a href=\"{}\">run {}</a>",
                    esc(&super::html::thing_href("runs", run, "")),
                    esc(run)
                );
            }
            cells
        })
        .collect();
    let mut out = table(
        "issue-history",
        &["#", "when", "who", "action", "by", "what changed"],
        &rows,
    );
    out.push_str(&format!(
        "<p class=\"pager muted\">{} change(s) in the effect log{}</p>",
        h["total"],
        match h["nextAfter"].as_u64() {
            Some(n) => format!(
                " · <a rel=\"next\" href=\"{}\">later</a>",
                esc(&super::html::with_query(
                    &super::html::thing_href("issues", id, ""),
                    &format!("history_after={n}")
                ))
            ),
            None => String::new(),
        }
    ));
    out
}

/// The stored members not shown elsewhere, as a definition list.
fn fields_html(object: &Value) -> String {
    let mut out = String::from("<dl class=\"facts\" id=\"issue-fields\">");
    let labels = object["labels"].as_array().map_or(&[][..], Vec::as_slice);
    if !labels.is_empty() {
        out.push_str("<dt>labels</dt><dd id=\"issue-labels\">");
        for l in labels {
            out.push_str(&format!(
                "<span class=\"tag\">{}</span> ",
                esc(&value_text(l))
            ));
        }
        out.push_str("</dd>");
    }
    for (k, v) in object.as_object().into_iter().flatten() {
        if SHOWN_ELSEWHERE.contains(&k.as_str()) || TEXTS.contains(&k.as_str()) {
            continue;
        }
        out.push_str(&format!(
            "<dt>{}</dt><dd>{}</dd>",
            esc(&k.replace('_', " ")),
            esc(&value_text(v))
        ));
    }
    out.push_str("</dl>");
    out
}

fn lease_html(issue: &Issue<'_>, now: chrono::DateTime<Utc>) -> String {
    let Some(l) = &issue.lease else {
        return "<p id=\"issue-lease\" class=\"muted\">none</p>".into();
    };
    let state = issue.lease_state(now).as_str();
    format!(
        "<p id=\"issue-lease\"><span class=\"tag state-{state}\">{state}</span> held by <b>{}</b> · acquired {} · expires {}{} · <code>{}</code></p>",
        esc(l.owner.as_str()),
        esc(l.acquired_at.as_str()),
        esc(l.expires_at_text.as_str()),
        l.renewed_at
            .as_ref()
            .map(|r| format!(" · renewed {}", esc(r.as_str())))
            .unwrap_or_default(),
        esc(l.lease_id.as_str())
    )
}

/// Both directions of the issue's edges, with a link to the drawn graph.
fn deps_html(id: &str, j: &Value) -> String {
    let state = |d: &Value| {
        if d["missing"] == true {
            "<span class=\"tag state-stale\">missing</span>".to_string()
        } else {
            let s = value_text(&d["status"]);
            format!(
                "<span class=\"tag status-{}\">{}</span>",
                url_part(&s),
                esc(&s)
            )
        }
    };
    let row = |d: &Value| {
        vec![
            issue_link(&value_text(&d["id"])),
            format!(
                "{} <span class=\"muted\">{}</span>",
                esc(&value_text(&d["type"])),
                if d["blocking"] == true {
                    "gates readiness"
                } else {
                    "informational"
                }
            ),
            state(d),
            esc(&value_text(&d["title"])),
        ]
    };
    let mut out = Html::default();
    out.raw(&format!(
        "<h2>Dependencies</h2><p><a id=\"graph-link\" href=\"{}\">the dependency graph, drawn</a></p>",
        super::html::thing_href("issues", id, "/graph")
    ));
    out.el("h3", "", "Depends on");
    let down: Vec<Vec<String>> = j["dependsOn"]
        .as_array()
        .into_iter()
        .flatten()
        .map(row)
        .collect();
    out.raw(&table(
        "depends-on",
        &["issue", "edge", "status", "title"],
        &down,
    ));
    out.el("h3", "", "Depended on by");
    let up: Vec<Vec<String>> = j["dependents"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(row)
        .collect();
    out.raw(&table(
        "depended-on-by",
        &["issue", "edge", "status", "title"],
        &up,
    ));
    let total = j["dependents"]["total"].as_u64().unwrap_or(0);
    if total as usize > up.len() {
        out.raw(&format!(
            "<p class=\"warn\">{} of {total} dependents listed; the graph page walks them all.</p>",
            up.len()
        ));
    }
    out.0
}

fn comments_html(j: &Value) -> String {
    let comments = j["comments"].as_array().map_or(&[][..], Vec::as_slice);
    if comments.is_empty() {
        return "<p id=\"comments\" class=\"muted\">none</p>".into();
    }
    let mut out = String::from("<ol class=\"comments\" id=\"comments\">");
    for c in comments {
        out.push_str(&format!(
            "<li><p class=\"muted\"><b>{}</b> · {}</p><pre class=\"text\">{}</pre></li>",
            esc(&value_text(&c["author"])),
            esc(&value_text(&c["created_at"])),
            esc(&value_text(&c["text"]))
        ));
    }
    out.push_str("</ol>");
    let count = j["commentCount"].as_u64().unwrap_or(0);
    if count as usize > comments.len() {
        out.push_str(&format!(
            "<p class=\"warn\">{} of {count} comments shown; <code>tusk issue comment list</code> prints them all.</p>",
            comments.len()
        ));
    }
    out
}

fn steps_html(t: &Value) -> String {
    let rows: Vec<Vec<String>> = t["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            vec![
                esc(&value_text(&r["finishedAt"])),
                esc(&value_text(&r["action"])),
                esc(&value_text(&r["resultClass"])),
                esc(&value_text(&r["stepId"])),
            ]
        })
        .collect();
    let mut out = table(
        "issue-trajectory",
        &["finished", "action", "result class", "step"],
        &rows,
    );
    out.push_str(&format!(
        "<p class=\"pager muted\">the newest {LISTED_ROWS} at most, from {} row(s) read back from <code>{}</code>{} (<code>rows</code> reads further)</p>",
        t["rowsRead"],
        esc(&value_text(&t["trajectoryPath"])),
        if t["reachedStart"] == true { " (all of it)" } else { "" }
    ));
    out
}
