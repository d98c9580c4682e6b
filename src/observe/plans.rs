//! The plans pages (issue 59): the kept plans, newest first, with who asked
//! and whether each was applied or waits for an approver; and one plan,
//! drawn as its change: per issue each field before and after, the comments
//! added, the graph's edges added and removed, and the versions it read.

use super::html::{esc, table, url_part, Html};
use super::queue::issue_link;
use super::{value_text, Observer, Page, PageError, Params};
use crate::issues::plan_store;
use serde_json::{json, Value};

/// Plans a list shows.
const LISTED: usize = 100;

/// The plans list.
pub fn list_page(o: &Observer, _params: &Params) -> Result<Page, PageError> {
    let kept = plan_store::list(&o.stores.issues, LISTED).map_err(PageError::Store)?;
    let items: Vec<Value> = kept
        .iter()
        .map(|k| {
            json!({
                "planId": k.id,
                "href": format!("/plans/{}", url_part(&k.id)),
                "requestedBy": k.plan["requestedBy"],
                "actions": k.plan["actions"],
                "issues": k.plan["changes"].as_array().map(|c| c.iter().map(|c| c["id"].clone()).collect::<Vec<_>>()),
                "state": state(k.applied.as_ref()),
                "approvedBy": k.applied.as_ref().map(|a| a["approvedBy"].clone()),
            })
        })
        .collect();
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|i| {
            let id = value_text(&i["planId"]);
            let short = id.get(..17).unwrap_or(&id).to_string();
            vec![
                format!(
                    "<a class=\"plan\" href=\"{}\" title=\"{}\">{}…</a>",
                    esc(&value_text(&i["href"])),
                    esc(&id),
                    esc(&short)
                ),
                esc(&value_text(&i["requestedBy"])),
                esc(&joined(&i["actions"])),
                esc(&joined(&i["issues"])),
                format!(
                    "<span class=\"tag\">{}</span>",
                    esc(&value_text(&i["state"]))
                ),
            ]
        })
        .collect();
    let mut body = Html::default();
    body.raw("<p class=\"muted\">Plans dry runs kept (newest first): `tusk plan apply ID` applies one, `tusk plan approve ID` approves one the policy holds back.</p>");
    body.raw(&table(
        "plans",
        &["plan", "requested by", "actions", "issues", "state"],
        &rows,
    ));
    Ok(Page {
        title: "Plans".into(),
        nav: "/plans",
        body: body.0,
        json: json!({"kind": "tusk.observe.plans.v0", "items": items}),
    })
}

/// One plan, drawn as its change.
pub fn page(o: &Observer, id: &str, _params: &Params) -> Result<Page, PageError> {
    let store = &o.stores.issues;
    let plan = plan_store::find(store, id)
        .map_err(PageError::Store)?
        .ok_or_else(|| PageError::NotFound(format!("no kept plan {id:?}: /plans lists them")))?;
    let applied = plan_store::applied(store, id).map_err(PageError::Store)?;
    let kept = plan_store::Kept {
        id: id.to_string(),
        plan,
        applied,
    };
    let plan = &kept.plan;
    let mut body = Html::default();
    body.raw(&format!(
        "<dl class=\"facts\"><dt>plan</dt><dd><code id=\"plan-id\">{}</code></dd>\
         <dt>requested by</dt><dd id=\"plan-requester\">{}</dd>\
         <dt>actions</dt><dd>{}</dd><dt>state</dt><dd id=\"plan-state\">{}</dd></dl>",
        esc(id),
        esc(&value_text(&plan["requestedBy"])),
        esc(&joined(&plan["actions"])),
        esc(&state(kept.applied.as_ref()))
    ));
    for change in plan["changes"].as_array().into_iter().flatten() {
        let cid = value_text(&change["id"]);
        let new = if change["new"] == true { " (new)" } else { "" };
        body.raw(&format!("<h2>{}{new}</h2>", issue_link(&cid)));
        let rows: Vec<Vec<String>> = change["fields"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(f, _)| *f != "comments" && *f != "dependencies")
            .map(|(field, fb)| {
                vec![
                    format!("<code>{}</code>", esc(field)),
                    format!(
                        "<span class=\"before\">{}</span>",
                        esc(&shown(&fb["before"]))
                    ),
                    format!("<span class=\"after\">{}</span>", esc(&shown(&fb["after"]))),
                ]
            })
            .collect();
        body.raw(&table(
            &format!("fields-{}", url_part(&cid)),
            &["field", "before", "after"],
            &rows,
        ));
        let mut lines = Vec::new();
        for c in change["commentsAdded"].as_array().into_iter().flatten() {
            lines.push(format!(
                "<li class=\"added\">comment by {}: {}</li>",
                esc(&value_text(&c["author"])),
                esc(&value_text(&c["text"]))
            ));
        }
        for (sign, key, class) in [
            ("+", "edgesAdded", "added"),
            ("−", "edgesRemoved", "removed"),
        ] {
            for e in change[key].as_array().into_iter().flatten() {
                lines.push(format!(
                    "<li class=\"{class}\">{sign} edge {} {} → {}</li>",
                    esc(&value_text(&e["type"])),
                    esc(&cid),
                    issue_link(&value_text(&e["depends_on_id"]))
                ));
            }
        }
        if !lines.is_empty() {
            body.raw(&format!("<ul class=\"plan-lines\">{}</ul>", lines.concat()));
        }
    }
    let reads: Vec<Vec<String>> = plan["reads"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            vec![
                issue_link(&value_text(&r["id"])),
                format!("<code>{}</code>", esc(&value_text(&r["version"]))),
            ]
        })
        .collect();
    body.raw("<h2>Read at</h2>");
    body.raw(&table("plan-reads", &["issue", "version"], &reads));
    Ok(Page {
        title: format!("Plan {}", id.get(..17).unwrap_or(id)),
        nav: "/plans",
        body: body.0,
        json: json!({
            "kind": "tusk.observe.plan.v0",
            "plan": plan,
            "applied": kept.applied,
            "state": state(kept.applied.as_ref()),
        }),
    })
}

/// A plan's state as a person reads it.
fn state(applied: Option<&Value>) -> String {
    match applied {
        None => "not applied".into(),
        Some(a) => match a["approvedBy"].as_str() {
            Some(by) => format!("approved by {by} and applied"),
            None => "applied".into(),
        },
    }
}

/// A list of strings, joined.
fn joined(v: &Value) -> String {
    v.as_array()
        .into_iter()
        .flatten()
        .map(value_text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A field's value in a cell: text as it is, other JSON as JSON, absent as —.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
