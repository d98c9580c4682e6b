//! The text a person reads for each issue and dep action's payload: one
//! renderer per payload, chosen by action name. Split from `cli::issue` so
//! that file keeps the commands and this one the words.

use crate::issues::find;
use crate::issues::views::Item;
use serde_json::Value;

fn s<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("-")
}

/// The readable rendering of a payload.
pub(super) fn human(action: &str, v: &Value) -> String {
    let mut out = String::new();
    if v.get("result").and_then(Value::as_str) == Some("rejected") && v.get("diagnostic").is_some()
    {
        let classes: Vec<&str> = v["failureClasses"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str(&format!(
            "{action}: rejected [{}]: {}\n",
            classes.join(", "),
            s(v, "diagnostic")
        ));
        if let Some(cycle) = v.get("cycle").and_then(Value::as_array) {
            let path: Vec<&str> = cycle.iter().filter_map(Value::as_str).collect();
            out.push_str(&format!("cycle: {}\n", path.join(" -> ")));
        }
        return out;
    }
    match action {
        "dep.project" => out.push_str(&dep_project_text(v)),
        "dep.diagnostics" => out.push_str(&dep_diagnostics_text(v)),
        "issue.check" => out.push_str(&check_text(v)),
        "issue.lease_projection" => out.push_str(&lease_projection_text(v)),
        "issue.claim_next" if v.get("claimed") == Some(&Value::Bool(false)) => {
            out.push_str("issue.claim_next: accepted: nothing to claim\n");
        }
        "dep.tree" => out.push_str(&find::tree_text(&v["tree"])),
        "issue.search" => out.push_str(&search_text(v)),
        "issue.stats" => out.push_str(&stats_text(v)),
        "issue.comments" => out.push_str(&comments_text(v)),
        _ if crate::host::gate::GOVERNED_BY_PLAN.contains(&action) => {
            let ids: Vec<&str> = v["applied"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let approved = match v["approvedBy"].as_str() {
                Some(by) => format!(
                    ", approved by {by} for {}",
                    v["requestedBy"].as_str().unwrap_or("an unnamed principal")
                ),
                None => String::new(),
            };
            out.push_str(&format!(
                "{action}: accepted {}: {} in one write{approved}{}\n",
                s(v, "planId"),
                ids.join(", "),
                if v["replayed"] == true {
                    " (applied before: its first answer, nothing written now)"
                } else {
                    ""
                }
            ));
        }
        // The reference's lines for an edge added or removed.
        "dep.add" | "dep.remove" => out.push_str(&edge_text(action, v)),
        _ => out.push_str(&accepted_text(action, v)),
    }
    out
}

/// The members `show_text` renders itself; any other is printed as stored.
const SHOWN: &[&str] = &[
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "owner",
    "labels",
    "created_at",
    "updated_at",
    "closed_at",
    "close_reason",
    "dependencies",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "comments",
    "lease",
];

/// The members holding prose, printed as paragraphs in this order.
const PROSE: &[&str] = &["description", "design", "acceptance_criteria", "notes"];

/// `issue show` for a person (issue 60): a heading, the issue's facts, its
/// edges and open blockers, its prose as paragraphs (a text's own lines
/// stay lines) and its comments as text. `v` is the payload as the action
/// made it: every piece printed is escaped for the terminal here.
pub(super) fn show_text(v: &Value) -> String {
    let field = |x: &str| crate::terminal::field(x).into_owned();
    let Some(issue) = v["issue"].as_object() else {
        return String::new();
    };
    let text = |k: &str| issue.get(k).and_then(Value::as_str).unwrap_or("");
    let mut out = format!("{}  {}\n", field(text("id")), field(text("title")));
    let mut facts = vec![
        format!("status: {}", field(text("status"))),
        format!(
            "priority: P{}",
            issue
                .get("priority")
                .map_or(String::new(), Value::to_string)
        ),
        format!("type: {}", field(text("issue_type"))),
    ];
    for key in ["assignee", "owner"] {
        if !text(key).is_empty() {
            facts.push(format!("{key}: {}", field(text(key))));
        }
    }
    facts.push(format!("lease state: {}", field(s(v, "leaseState"))));
    out.push_str(&format!("  {}\n", facts.join("   ")));
    if let Some(labels) = issue.get("labels").and_then(Value::as_array) {
        let labels: Vec<String> = labels.iter().filter_map(Value::as_str).map(field).collect();
        out.push_str(&format!("  labels: {}\n", labels.join(", ")));
    }
    let mut times = vec![format!("created {}", field(text("created_at")))];
    for (key, label) in [("updated_at", "updated"), ("closed_at", "closed")] {
        if !text(key).is_empty() {
            times.push(format!("{label} {}", field(text(key))));
        }
    }
    out.push_str(&format!("  {}\n", times.join(" · ")));
    if !text("close_reason").is_empty() {
        out.push_str(&format!(
            "  close reason: {}\n",
            field(text("close_reason"))
        ));
    }
    show_edges(&mut out, issue, v);
    for key in PROSE {
        if !text(key).is_empty() {
            out.push_str(&format!("\n{key}:\n"));
            for line in crate::terminal::lines(text(key)) {
                indented(&mut out, "  ", &line);
            }
        }
    }
    show_comments(&mut out, issue);
    for (key, value) in issue.iter().filter(|(k, _)| !SHOWN.contains(&k.as_str())) {
        let shown = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        out.push_str(&format!("  {}: {}\n", field(key), field(&shown)));
    }
    out
}

/// One line of a paragraph, indented (an empty line stays empty).
fn indented(out: &mut String, indent: &str, line: &str) {
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(line);
    }
    out.push('\n');
}

/// An issue's edges and, of them, the open blockers.
fn show_edges(out: &mut String, issue: &serde_json::Map<String, Value>, v: &Value) {
    let field = |x: &str| crate::terminal::field(x).into_owned();
    for dep in issue
        .get("dependencies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let target = dep["depends_on_id"].as_str().unwrap_or("");
        let kind = dep["type"]
            .as_str()
            .or(dep["dep_type"].as_str())
            .unwrap_or("");
        out.push_str(&format!(
            "  depends on: {} ({})\n",
            field(target),
            field(kind)
        ));
    }
    for blocker in v["blockers"].as_array().into_iter().flatten() {
        let status = blocker["blockerStatus"].as_str().unwrap_or("missing");
        out.push_str(&format!(
            "  waiting on: {} ({})\n",
            field(blocker["dependsOnId"].as_str().unwrap_or("")),
            field(status)
        ));
    }
}

/// An issue's comments: who and when, then the text's lines.
fn show_comments(out: &mut String, issue: &serde_json::Map<String, Value>) {
    let Some(comments) = issue.get("comments").and_then(Value::as_array) else {
        return;
    };
    if comments.is_empty() {
        return;
    }
    out.push_str("\ncomments:\n");
    for c in comments {
        let field = |k: &str| crate::terminal::field(c[k].as_str().unwrap_or("")).into_owned();
        let id = c["id"].as_i64().map_or(String::new(), |n| format!("#{n} "));
        out.push_str(&format!(
            "  {id}{} · {}\n",
            field("author"),
            field("created_at")
        ));
        for line in crate::terminal::lines(c["text"].as_str().unwrap_or("")) {
            indented(out, "    ", &line);
        }
    }
}

/// premath's text of `dep project`.
fn dep_project_text(v: &Value) -> String {
    let mut out = String::new();
    // premath's text.
    out.push_str(&format!(
        "premath dep project\n  View: {}\n  Path: {}\n  Count: {}\n  Integrity: {}\n",
        s(v, "view"),
        s(v, "issuesPath"),
        v["count"],
        integrity_text(v)
    ));
    for item in v["items"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  - {} -> {} ({}, role={}, blocking={})\n",
            s(item, "issueId"),
            s(item, "dependsOnId"),
            s(item, "type"),
            s(item, "role"),
            item["blocking"]
        ));
    }
    out
}

/// premath's text of `dep diagnostics`.
fn dep_diagnostics_text(v: &Value) -> String {
    let mut out = String::new();
    let integrity = integrity_text(v);
    out.push_str(&format!(
        "premath dep diagnostics\n  Path: {}\n  Graph scope: {}\n  Integrity: {integrity}\n",
        s(v, "issuesPath"),
        s(v, "graphScope")
    ));
    out
}

/// premath's text of `issue check`.
fn check_text(v: &Value) -> String {
    let mut out = String::new();
    // premath's text.
    let summary = &v["summary"];
    out.push_str(&format!(
        "[issue-graph] {} (issues={}, errors={}, warnings={})\n",
        if s(v, "result") == "accepted" {
            "OK"
        } else {
            "FAIL"
        },
        summary["issueCount"],
        summary["errorCount"],
        summary["warningCount"]
    ));
    for (key, tag) in [("errors", ""), ("warnings", "WARN ")] {
        for item in v
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            out.push_str(&format!(
                "  - {tag}{} {} ({})\n",
                s(item, "issueId"),
                s(item, "class"),
                s(item, "message")
            ));
        }
    }
    out
}

/// Stale and contended leases, then each leased issue.
fn lease_projection_text(v: &Value) -> String {
    let mut out = String::new();
    let p = &v["projection"];
    for (label, key) in [
        ("stale", "staleIssueIds"),
        ("contended", "contendedIssueIds"),
    ] {
        let ids: Vec<&str> = p[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        out.push_str(&format!("{label}: {} {}\n", ids.len(), ids.join(" ")));
    }
    for item in v["items"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {} [{}] {} {} until {}{}\n",
            s(item, "id"),
            s(item, "status"),
            s(&item["lease"], "state"),
            s(&item["lease"], "owner"),
            s(&item["lease"], "expiresAt"),
            if item["contended"] == Value::Bool(true) {
                " (contended)"
            } else {
                ""
            }
        ));
    }
    out
}

/// One line per match, then the count.
fn search_text(v: &Value) -> String {
    let mut out = String::new();
    for i in v["items"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "{}  [{}] {}  ({})\n",
            s(i, "id"),
            s(i, "status"),
            s(i, "title"),
            i["matched"]
                .as_array()
                .map(|m| m
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default()
        ));
    }
    out.push_str(&format!(
        "{} of {} match(es)\n",
        v["count"], v["totalCount"]
    ));
    out
}

/// The counts, a table a line.
fn stats_text(v: &Value) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} issue(s): {} ready, {} blocked, {} in progress\n",
        v["issueCount"], v["readyCount"], v["blockedCount"], v["inProgressCount"]
    ));
    for table in ["byStatus", "byType", "byPriority", "byAssignee", "byLabel"] {
        let cells: Vec<String> = v[table]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        out.push_str(&format!("{table}: {}\n", cells.join(", ")));
    }
    for key in ["staleLeaseIds", "contendedLeaseIds"] {
        out.push_str(&format!("{key}: {}\n", v[key]));
    }
    if let Some(o) = v["oldestReady"].as_object() {
        out.push_str(&format!(
            "oldest ready: {} (created {})\n",
            o["id"], o["createdAt"]
        ));
    }
    out
}

/// One line per comment, then the count.
fn comments_text(v: &Value) -> String {
    let mut out = String::new();
    for c in v["comments"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "#{} {} {}: {}\n",
            c["id"],
            s(c, "author"),
            s(c, "created_at"),
            s(c, "text")
        ));
    }
    out.push_str(&format!("{} comment(s)\n", v["count"]));
    out
}

/// The reference's lines for an edge added or removed.
fn edge_text(action: &str, v: &Value) -> String {
    let mut out = String::new();
    let dep = v.get("dependency").unwrap_or(v);
    let (verb, done) = if action == "dep.add" {
        ("add", "Added")
    } else {
        ("remove", "Removed")
    };
    let (from, to, dep_type) = (s(dep, "issueId"), s(dep, "dependsOnId"), s(dep, "type"));
    out.push_str(&format!(
        "premath dep {verb}\n  {done}: {from} -> {to} ({dep_type})\n  Path: {}\n",
        s(v, "issuesPath")
    ));
    // premath's `A -> B (blocks)` reads as "A blocks B" and means the
    // opposite; the reference's lines stay as they are (tools parse them) and
    // one more says it in words.
    if action == "dep.add" {
        out.push_str(&format!("  Means: {}\n", edge_in_words(from, to, dep_type)));
    }
    out
}

/// An edge `from -> to` of `dep_type`, as a sentence: who waits on whom.
fn edge_in_words(from: &str, to: &str, dep_type: &str) -> String {
    match dep_type {
        "blocks" | "conditional-blocks" | "waits-for" => {
            format!("{from} waits on {to} ({to} blocks {from} until it is closed)")
        }
        "parent-child" => format!("{from} is a child of {to} and waits on it"),
        "discovered-from" => format!("{from} was discovered from {to} (it does not wait on it)"),
        other => format!("{from} is linked to {to} as {other} (it does not wait on it)"),
    }
}

/// The id, and the lease or edge a mutation left.
fn accepted_text(action: &str, v: &Value) -> String {
    let mut out = String::new();
    let id = v
        .get("id")
        .or_else(|| v.get("issue").and_then(|i| i.get("id")))
        .or_else(|| v.get("issueId"))
        .and_then(Value::as_str)
        .unwrap_or("-");
    out.push_str(&format!("{action}: accepted {id}"));
    if let Some(lease) = v.get("lease").filter(|l| l.is_object()) {
        out.push_str(&format!(
            " lease {} until {}",
            s(lease, "lease_id"),
            s(lease, "expires_at")
        ));
    } else if let Some(lease) = v
        .get("issue")
        .and_then(|i| i.get("lease"))
        .filter(|l| l.is_object())
    {
        // The lease summary (camelCase) or the stored line's lease.
        let pick = |camel: &str, snake: &str| match s(lease, camel) {
            "-" => s(lease, snake).to_string(),
            found => found.to_string(),
        };
        out.push_str(&format!(
            " lease {} until {}",
            pick("leaseId", "lease_id"),
            pick("expiresAt", "expires_at")
        ));
    }
    if let Some(t) = v.get("dependsOnId").and_then(Value::as_str) {
        out.push_str(&format!(" -> {t}"));
    }
    out.push('\n');
    for warning in v["warnings"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "warning: {}\n",
            warning.as_str().unwrap_or_default()
        ));
    }
    out
}

/// premath's integrity line: `cycle detected (a -> b -> a)` or `no cycles detected`.
fn integrity_text(v: &Value) -> String {
    match v["integrity"]["cyclePath"].as_array() {
        Some(path) => {
            let path: Vec<&str> = path.iter().filter_map(Value::as_str).collect();
            format!("cycle detected ({})", path.join(" -> "))
        }
        None => "no cycles detected".to_string(),
    }
}

pub(super) fn table(items: &[Item<'_>], with_blockers: bool) -> String {
    let mut rows: Vec<[String; 7]> = vec![[
        "ID".into(),
        "PRI".into(),
        "STATUS".into(),
        "TYPE".into(),
        "ASSIGNEE".into(),
        "LEASE".into(),
        if with_blockers {
            "BLOCKERS / TITLE".into()
        } else {
            "TITLE".into()
        },
    ]];
    for item in items {
        // Labels after the title (issue 60: a list a person reads shows them).
        let mut last = if item.labels.is_empty() {
            item.title.to_string()
        } else {
            format!("{}  [{}]", item.title, item.labels.join(", "))
        };
        if with_blockers {
            let ids: Vec<&str> = item.blockers.iter().map(|b| b.depends_on_id).collect();
            let blockers = if ids.is_empty() {
                "(manual)".to_string()
            } else {
                ids.join(",")
            };
            last = format!("{blockers} / {last}");
        }
        rows.push([
            item.id.into(),
            format!("P{}", item.priority),
            item.status.into(),
            item.issue_type.into(),
            item.assignee.unwrap_or("-").into(),
            item.lease_state.into(),
            last,
        ]);
    }
    let mut out = String::new();
    for row in &mut rows {
        for cell in row.iter_mut() {
            *cell = crate::terminal::field(cell).into_owned();
        }
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in &rows {
        for (w, cell) in widths.iter().zip(row.iter()) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&row[6]);
        out.push('\n');
    }
    out
}
