//! One REPL or MCP session's page (issue 47, point 3): its forms in the
//! order they ran, each linked to its run page, found by the `sessionId` of
//! their headers in a backward scan of the effect log (the runs list's scan
//! and bound, [`super::runs::find_runs`]).

use super::html::{esc, table, url_part, Html};
use super::queue::issue_link;
use super::runs::{before_of, find_runs, RunFilter};
use super::{number, value_text, Observer, Page, PageError, Params};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Forms listed unless `limit` says otherwise, and at most.
const DEFAULT_LIMIT: u64 = 100;
const MAX_LIMIT: u64 = 500;

/// The page of session `sid`.
pub fn page(o: &Observer, sid: &str, params: &Params) -> Result<Page, PageError> {
    let limit = number(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?.max(1) as usize;
    let before = before_of(params)?;
    let log = &o.stores.effects;
    let header = |h: &Value| h["sessionId"].as_str() == Some(sid);
    let never = |_: &Value| false;
    let filter = RunFilter {
        all: &super::runs::every,
        header: &header,
        call: &never,
        footer: &super::runs::any_footer,
    };
    let found = find_runs(log, before, limit, Some(&filter))?;
    let path = log.path().display().to_string();
    if found.items.is_empty() {
        return Err(PageError::NotFound(match found.next {
            None => format!(
                "no run of session {sid:?} in {path}: the runs page (/runs) lists the sessions of recent runs"
            ),
            Some(n) => format!(
                "no run of session {sid:?} in the newest {} row(s) of {path}; /sessions/{}?before={n} reads further back",
                found.scanned,
                url_part(sid)
            ),
        }));
    }
    // Newest first from the scan; a session reads oldest first.
    let mut forms = found.items;
    forms.reverse();
    let complete = found.next.is_none();
    for (n, f) in forms.iter_mut().enumerate() {
        // Numbered only when the scan saw the session's first form.
        f["form"] = if complete { json!(n + 1) } else { Value::Null };
    }
    let principals: BTreeSet<String> = forms
        .iter()
        .filter_map(|f| f["principal"].as_str().map(str::to_string))
        .collect();
    let json = json!({
        "kind": "tusk.observe.session.v0",
        "effectsPath": path,
        "sessionId": sid,
        "principals": principals,
        "formCount": forms.len(),
        "complete": complete,
        "rowsRead": found.scanned,
        "before": before,
        "next": found.next,
        "replayCommand": format!("tusk replay --session {}", super::shell_word(sid)),
        "forms": forms,
    });
    let body = page_html(sid, &json);
    Ok(Page {
        title: format!("Session {sid}"),
        nav: "/runs",
        body,
        json,
    })
}

fn page_html(sid: &str, j: &Value) -> String {
    let forms = j["forms"].as_array().map_or(&[][..], Vec::as_slice);
    let principals: Vec<String> = j["principals"]
        .as_array()
        .into_iter()
        .flatten()
        .map(value_text)
        .collect();
    let mut body = Html::default();
    body.raw("<dl class=\"facts\">");
    body.raw(&format!(
        "<dt>session</dt><dd><code id=\"session-id\">{}</code></dd>",
        esc(sid)
    ));
    body.raw(&format!(
        "<dt>principal</dt><dd id=\"session-principal\">{}</dd>",
        esc(&principals.join(", "))
    ));
    body.raw(&format!(
        "<dt>forms</dt><dd>{}{}</dd>",
        forms.len(),
        if j["complete"] == true {
            ""
        } else {
            " (the newest; earlier forms are further back in the log)"
        }
    ));
    body.raw(&format!(
        "<dt>replay</dt><dd><code id=\"replay-command\">{}</code></dd>",
        esc(&value_text(&j["replayCommand"]))
    ));
    body.raw("</dl>");
    body.el("h2", "", "Forms, in order");
    let rows: Vec<Vec<String>> = forms.iter().map(form_cells).collect();
    body.raw(&table(
        "forms",
        &[
            "form",
            "run",
            "started",
            "result",
            "failure classes",
            "calls",
            "issue",
            "program",
        ],
        &rows,
    ));
    if let Some(n) = j["next"].as_u64() {
        body.raw(&format!(
            "<p class=\"pager\"><a rel=\"prev\" href=\"{}\">earlier forms</a></p>",
            super::html::with_query(
                &super::html::thing_href("sessions", sid, ""),
                &format!("before={n}")
            )
        ));
    }
    body.0
}

fn form_cells(f: &Value) -> Vec<String> {
    let result = value_text(&f["result"]);
    let classes: Vec<String> = f["failureClasses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(value_text)
        .collect();
    vec![
        esc(&value_text(&f["form"])),
        format!(
            "<a href=\"{}\">{}</a>",
            esc(&value_text(&f["href"])),
            esc(&value_text(&f["runId"]))
        ),
        esc(&value_text(&f["startedAt"])),
        format!(
            "<span class=\"tag result-{}\">{}</span>",
            url_part(&result),
            esc(&result)
        ),
        esc(&classes.join(", ")),
        esc(&value_text(&f["callCount"])),
        f["issueId"].as_str().map(issue_link).unwrap_or_default(),
        format!("<code>{}</code>", esc(&value_text(&f["programHead"]))),
    ]
}
