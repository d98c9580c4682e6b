//! The dependency graph of one issue: `dep tree`'s walk (both directions,
//! to `depth`), drawn as a layered graph ([`super::graph_svg`], issue 47)
//! and kept below as text, nested lists: what it waits on, and what waits
//! on it.

use super::html::{esc, Html};
use super::queue::issue_link;
use super::{number, Observer, Page, PageError, Params};
use crate::issues::find::{tree_payload, Direction};
use serde_json::Value;

/// Levels walked unless `depth` says otherwise, and at most.
const DEFAULT_DEPTH: u64 = 4;
const MAX_DEPTH: u64 = 12;
/// Nodes drawn at most (a hub issue can have thousands of dependents).
const MAX_NODES: usize = 2000;

fn node_html(n: &Value, out: &mut String, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let id = n["id"].as_str().unwrap_or("");
    let status = n["status"].as_str().unwrap_or("missing");
    out.push_str("<li>");
    if let Some(t) = n["type"].as_str() {
        out.push_str(&format!("<span class=\"edge\">{}</span> ", esc(t)));
    }
    out.push_str(&issue_link(id));
    let title = match n["title"].as_str() {
        Some(t) => format!("<bdi>{}</bdi>", esc(t)),
        None if n["repeat"] == true => "<span class=\"muted\">(shown above)</span>".into(),
        None => String::new(),
    };
    out.push_str(&format!(
        " <span class=\"tag status-{}\">{}</span> {title}",
        esc(status),
        esc(status),
    ));
    if n["cycle"] == true {
        out.push_str(" <span class=\"tag state-stale\">cycle</span>");
    }
    if n["truncated"] == true {
        out.push_str(" <span class=\"muted\">(more below)</span>");
    }
    if let Some(children) = n["children"].as_array().filter(|c| !c.is_empty()) {
        out.push_str("<ul>");
        for c in children {
            node_html(c, out, budget);
        }
        out.push_str("</ul>");
    }
    out.push_str("</li>");
}

/// The graph page of `id`.
pub fn page(o: &Observer, id: &str, params: &Params) -> Result<Page, PageError> {
    let depth = number(params, "depth", DEFAULT_DEPTH, MAX_DEPTH)?.max(1) as usize;
    let parsed = o.store()?;
    let store = parsed.borrow_dependent();
    let path = o.stores.issues.path().display().to_string();
    let report = tree_payload(store, &path, id, Direction::Both, depth);
    if !report.is_accepted() {
        return Err(PageError::NotFound(
            report.diagnostic().unwrap_or("no such issue").to_string(),
        ));
    }
    let mut json = report.into_value();
    let (drawing, drawn) = super::graph_svg::draw(&json["tree"]);
    json["drawing"] = drawn;
    let tree = &json["tree"];
    let children = tree["children"].as_array().cloned().unwrap_or_default();
    let (down, up): (Vec<&Value>, Vec<&Value>) =
        children.iter().partition(|c| c["direction"] == "down");
    let mut body = Html::default();
    body.raw(&format!(
        "<p id=\"graph-root\">{} <span class=\"tag status-{}\">{}</span> {}</p>",
        issue_link(id),
        esc(tree["status"].as_str().unwrap_or("")),
        esc(tree["status"].as_str().unwrap_or("")),
        esc(tree["title"].as_str().unwrap_or(""))
    ));
    body.raw(&drawing);
    body.el("h2", "", "As a tree");
    let mut budget = MAX_NODES;
    for (title, list, dom) in [
        ("Depends on", &down, "graph-down"),
        ("Depended on by", &up, "graph-up"),
    ] {
        body.el("h3", "", title);
        let mut out = format!("<ul class=\"tree\" id=\"{dom}\">");
        for n in list.iter() {
            node_html(n, &mut out, &mut budget);
        }
        if list.is_empty() {
            out.push_str("<li class=\"none\">none</li>");
        }
        out.push_str("</ul>");
        body.raw(&out);
    }
    if budget == 0 {
        body.raw(&format!(
            "<p class=\"warn\">Only the first {MAX_NODES} nodes are drawn; the JSON has them all (lower <code>depth</code> to see less).</p>"
        ));
    }
    Ok(Page {
        title: format!("Dependencies of {id}"),
        nav: "/queue",
        body: body.0,
        json,
    })
}
