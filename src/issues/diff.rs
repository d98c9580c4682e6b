//! Store diffs a person reads (issue 60): a store as text, one member per
//! line ([`render`], git's `textconv` for the store: `git diff` and `git log
//! -p` then show the field that changed instead of a rewritten JSON line),
//! and the changes between two stores, issue by issue and field by field
//! ([`changes`], `tusk issue diff`).

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The issues of a store's text by id (the last line of an id wins, as the
/// store's own reading does); a line that is not an issue object under the
/// key `line N`.
fn issues(text: &str) -> BTreeMap<String, Map<String, Value>> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) => {
                let id = map
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("line {}", n + 1), str::to_string);
                out.insert(id, map);
            }
            _ => {
                let mut map = Map::new();
                map.insert("unparsed".into(), Value::String(line.to_string()));
                out.insert(format!("line {}", n + 1), map);
            }
        }
    }
    out
}

/// Ids in the store's natural order (`bd-2` before `bd-10`).
fn sorted_ids<'a>(ids: impl Iterator<Item = &'a String>) -> Vec<&'a String> {
    let mut ids: Vec<&String> = ids.collect();
    ids.sort_by(|a, b| super::views::natural_cmp(a, b));
    ids
}

/// A value on one line: a string as it is (control characters escaped), any
/// other value as compact JSON.
fn one_line(v: &Value) -> String {
    match v {
        Value::String(s) => crate::terminal::field(s).into_owned(),
        other => other.to_string(),
    }
}

/// The store as text: per issue (in id order) a line `ID · title`, then one
/// line per member in the line's own order — a text of several lines indented under its name, a
/// label list on one line, one line per edge and per comment.
pub fn render(text: &str) -> String {
    let all = issues(text);
    let mut out = String::new();
    for id in sorted_ids(all.keys()) {
        let issue = &all[id];
        let title = issue.get("title").map(one_line).unwrap_or_default();
        out.push_str(&format!("{} · {title}\n", crate::terminal::field(id)));
        for (key, value) in issue {
            if key == "id" || key == "title" {
                continue;
            }
            render_member(&mut out, key, value);
        }
        out.push('\n');
    }
    out
}

fn render_member(out: &mut String, key: &str, value: &Value) {
    match (key, value) {
        ("labels", Value::Array(items)) => {
            let labels: Vec<String> = items.iter().map(one_line).collect();
            out.push_str(&format!("  labels: {}\n", labels.join(", ")));
        }
        ("dependencies", Value::Array(items)) => {
            for d in items {
                out.push_str(&format!("  depends on: {}\n", edge(d)));
            }
        }
        ("comments", Value::Array(items)) => {
            for c in items {
                let (head, body) = comment(c);
                out.push_str(&format!("  comment {head}:"));
                let mut lines = crate::terminal::lines(&body);
                match lines.next() {
                    Some(first) => out.push_str(&format!(" {first}\n")),
                    None => out.push('\n'),
                }
                for l in lines {
                    out.push_str(&format!("    {l}\n"));
                }
            }
        }
        (_, Value::String(s)) if s.contains('\n') => {
            out.push_str(&format!("  {key}:\n"));
            for l in crate::terminal::lines(s) {
                out.push_str(&format!("    {l}\n"));
            }
        }
        _ => out.push_str(&format!("  {key}: {}\n", one_line(value))),
    }
}

/// An edge as `TARGET (type)`.
fn edge(d: &Value) -> String {
    let target = d
        .get("depends_on_id")
        .map(one_line)
        .unwrap_or_else(|| one_line(d));
    match d.get("type").and_then(Value::as_str) {
        Some(t) => format!("{target} ({})", crate::terminal::field(t)),
        None => target,
    }
}

/// A comment's `by AUTHOR at TIME` and its text.
fn comment(c: &Value) -> (String, String) {
    let author = c.get("author").map(one_line).unwrap_or_else(|| "?".into());
    let at = c
        .get("created_at")
        .map(|t| format!(" at {}", one_line(t)))
        .unwrap_or_default();
    let text = c
        .get("text")
        .and_then(Value::as_str)
        .map_or_else(|| c.to_string(), str::to_string);
    (format!("by {author}{at}"), text)
}

/// What changed of one issue between two stores.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IssueChange {
    pub id: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    pub title: String,
    /// One line per changed member (`status: open → closed`, `labels: +a
    /// -b`, `comment added by bob: …`, `depends on: +bd-3 (blocks)`).
    pub fields: Vec<String>,
}

/// The changes from store text `old` to `new`, in id order.
pub fn changes(old: &str, new: &str) -> Vec<IssueChange> {
    let (a, b) = (issues(old), issues(new));
    let mut out = Vec::new();
    let ids = sorted_ids(a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))));
    for id in ids {
        let title = |m: &Map<String, Value>| m.get("title").map(one_line).unwrap_or_default();
        let change = match (a.get(id), b.get(id)) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => IssueChange {
                id: id.clone(),
                change: "changed",
                title: title(y),
                fields: member_changes(x, y),
            },
            (None, Some(y)) => IssueChange {
                id: id.clone(),
                change: "added",
                title: title(y),
                fields: Vec::new(),
            },
            (Some(x), None) => IssueChange {
                id: id.clone(),
                change: "removed",
                title: title(x),
                fields: Vec::new(),
            },
            (None, None) => continue,
        };
        out.push(change);
    }
    out
}

fn member_changes(x: &Map<String, Value>, y: &Map<String, Value>) -> Vec<String> {
    let null = Value::Null;
    let mut keys: Vec<&String> = x
        .keys()
        .chain(y.keys().filter(|k| !x.contains_key(*k)))
        .collect();
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let (old, new) = (x.get(key).unwrap_or(&null), y.get(key).unwrap_or(&null));
        if old == new {
            continue;
        }
        match key.as_str() {
            "labels" | "dependencies" | "comments" => {
                let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
                let (o, n) = (list(old), list(new));
                let added: Vec<&Value> = n.iter().filter(|v| !o.contains(v)).collect();
                let removed: Vec<&Value> = o.iter().filter(|v| !n.contains(v)).collect();
                for v in added {
                    out.push(set_change(key, '+', v));
                }
                for v in removed {
                    out.push(set_change(key, '-', v));
                }
            }
            _ => out.push(format!(
                "{key}: {} → {}",
                crate::terminal::clip(&shown(old), 120),
                crate::terminal::clip(&shown(new), 120)
            )),
        }
    }
    out
}

fn set_change(key: &str, sign: char, v: &Value) -> String {
    match key {
        "labels" => format!("labels: {sign}{}", one_line(v)),
        "dependencies" => format!("depends on: {sign}{}", edge(v)),
        _ => {
            let (head, body) = comment(v);
            let what = if sign == '+' { "added" } else { "removed" };
            format!(
                "comment {what} {head}: {}",
                crate::terminal::clip(&crate::terminal::field(&body), 120)
            )
        }
    }
}

/// A member's value as a change shows it: absent as `(none)`.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => "(none)".into(),
        Value::String(s) => format!("{:?}", s),
        other => other.to_string(),
    }
}

/// The changes as text: one block per issue.
pub fn changes_text(changes: &[IssueChange]) -> String {
    let mut out = String::new();
    for c in changes {
        let sign = match c.change {
            "added" => "+",
            "removed" => "-",
            _ => "~",
        };
        out.push_str(&format!(
            "{sign} {} · {}\n",
            crate::terminal::field(&c.id),
            c.title
        ));
        for f in &c.fields {
            out.push_str(&format!("    {f}\n"));
        }
    }
    if changes.is_empty() {
        out.push_str("no issue changed\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = r#"{"id":"bd-2","title":"Two","status":"open","labels":["a"]}
{"id":"bd-10","title":"Ten","status":"open","description":"one\ntwo"}
{"id":"bd-3","title":"Three","status":"open"}
"#;
    const NEW: &str = r#"{"id":"bd-2","title":"Two","status":"closed","labels":["b"],"comments":[{"author":"bob","created_at":"2026-11-29T10:00:00Z","text":"done"}],"dependencies":[{"issue_id":"bd-2","depends_on_id":"bd-10","type":"blocks"}]}
{"id":"bd-10","title":"Ten","status":"open","description":"one\ntwo"}
{"id":"bd-4","title":"Four","status":"open"}
"#;

    #[test]
    fn changes_name_each_field_and_each_issue() {
        let c = changes(OLD, NEW);
        let got: Vec<(&str, &str, Vec<&str>)> = c
            .iter()
            .map(|c| {
                (
                    c.id.as_str(),
                    c.change,
                    c.fields.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "bd-2",
                    "changed",
                    vec![
                        "comment added by bob at 2026-11-29T10:00:00Z: done",
                        "depends on: +bd-10 (blocks)",
                        "labels: +b",
                        "labels: -a",
                        "status: \"open\" → \"closed\""
                    ]
                ),
                ("bd-3", "removed", vec![]),
                ("bd-4", "added", vec![]),
            ]
        );
    }

    #[test]
    fn render_puts_each_member_on_its_own_line_in_id_order() {
        let text = render(NEW);
        let first: Vec<&str> = text.lines().take(5).collect();
        assert_eq!(
            first,
            [
                "bd-2 · Two",
                "  status: closed",
                "  labels: b",
                "  comment by bob at 2026-11-29T10:00:00Z: done",
                "  depends on: bd-10 (blocks)"
            ]
        );
        assert!(text.contains("bd-4 · Four\n  status: open\n"), "{text}");
        assert!(
            text.contains("  description:\n    one\n    two\n"),
            "{text}"
        );
        // Natural order: bd-2, bd-4, bd-10.
        let heads: Vec<&str> = text.lines().filter(|l| l.contains(" · ")).collect();
        assert_eq!(heads, ["bd-2 · Two", "bd-4 · Four", "bd-10 · Ten"]);
    }
}
