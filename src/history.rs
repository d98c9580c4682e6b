//! An issue's history (issue 57, point 3): every change made to it, in log
//! order, from the effect log — when, who (the run's principal: a token's
//! principal, or the local actor), from which run or command, each field
//! from → to, comments, edges, and leases taken, renewed, released and
//! expired. Programs' runs and operators' commands alike (every mutation is
//! recorded since issue 57); in a git work tree the log merges by union, so
//! the history covers what merged clones recorded.
//!
//! The log is read once, as a stream (a file line by line; a database's
//! log table in order); only the open runs' headers are held, and the
//! entries are paged (`after`, `limit`).

use crate::logs::LogStore;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::BufRead;

/// Most entries a page holds.
pub const MAX_LIMIT: usize = 1000;

/// One page of an issue's history.
#[derive(Debug)]
pub struct History {
    /// Entries of this page, oldest first.
    pub entries: Vec<Value>,
    /// Entries in the whole history.
    pub total: usize,
    /// The `after` of the next page, when there is one.
    pub next_after: Option<usize>,
}

impl History {
    /// The `tusk.issue.history.v0` object.
    pub fn to_json(&self, id: &str) -> Value {
        json!({
            "kind": "tusk.issue.history.v0",
            "id": id,
            "total": self.total,
            "count": self.entries.len(),
            "nextAfter": self.next_after,
            "entries": self.entries,
        })
    }
}

/// Who made a run, and how (from its header).
#[derive(Clone, Default)]
struct RunInfo {
    principal: Option<String>,
    command: Option<String>,
    session: Option<String>,
}

/// Fields a change lists (the stored line's, snake_case); others
/// (`updated_at`, `dependencies`, `comments`, `lease`) have entries of their
/// own or are bookkeeping.
const FIELDS: [&str; 13] = [
    "title",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "owner",
    "labels",
    "closed_at",
    "close_reason",
];

fn snake(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The history of issue `id` in `log`, the entries after the first `after`,
/// at most `limit` of them.
///
/// # Errors
/// The log cannot be read, or a line of it is not JSON.
pub fn history(log: &LogStore, id: &str, after: usize, limit: usize) -> Result<History, String> {
    let limit = limit.clamp(1, MAX_LIMIT);
    let mut walk = Walk {
        id,
        runs: HashMap::new(),
        state: Map::new(),
        lease: None,
        entries: Vec::new(),
        total: 0,
        after,
        limit,
    };
    match log {
        LogStore::File(path) => {
            let file = match crate::files::open_read(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Ok(walk.finish(chrono::Utc::now()))
                }
                Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            };
            for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                walk.row(&line)
                    .map_err(|e| format!("{} line {}: {e}", path.display(), n + 1))?;
            }
        }
        other => {
            let bytes = other.read().map_err(|e| e.to_string())?.unwrap_or_default();
            for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
                walk.row(line)
                    .map_err(|e| format!("{} row {}: {e}", other.path().display(), n + 1))?;
            }
        }
    }
    Ok(walk.finish(chrono::Utc::now()))
}

struct Walk<'a> {
    id: &'a str,
    /// Headers of runs whose footer has not come yet.
    runs: HashMap<String, RunInfo>,
    /// The issue's fields as the history so far knows them.
    state: Map<String, Value>,
    /// The lease it holds, as the history so far knows it.
    lease: Option<Value>,
    entries: Vec<Value>,
    total: usize,
    after: usize,
    limit: usize,
}

impl Walk<'_> {
    fn row(&mut self, line: &str) -> Result<(), String> {
        if line.trim().is_empty() {
            return Ok(());
        }
        // Only the rows that can name the issue are parsed whole.
        let row: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let run = row["runId"].as_str().unwrap_or_default().to_string();
        match row["kind"].as_str() {
            Some(crate::effects::RUN_KIND) => {
                self.runs.insert(
                    run,
                    RunInfo {
                        principal: row["principal"].as_str().map(str::to_string),
                        command: row["command"].as_str().map(str::to_string),
                        session: row["sessionId"].as_str().map(str::to_string),
                    },
                );
            }
            Some(crate::effects::RUN_END_KIND) => {
                self.runs.remove(&run);
            }
            Some(crate::effects::ROW_KIND) => self.effect(&row, &run),
            _ => {}
        }
        Ok(())
    }

    /// Whether an accepted call's row concerns this issue.
    fn concerns(&self, row: &Value) -> bool {
        let args = &row["args"];
        let payload = &row["envelope"]["payload"];
        [
            &args["id"],
            &args["issueId"],
            &args["dependsOnId"],
            &args["parentId"],
            &payload["issue"]["id"],
        ]
        .iter()
        .any(|v| v.as_str() == Some(self.id))
    }

    fn effect(&mut self, row: &Value, run: &str) {
        let action = row["action"].as_str().unwrap_or_default();
        let is_mutation = crate::runtime::builtin()
            .get(action)
            .is_some_and(|a| a.kind() == crate::host::ActionKind::Mutation);
        if !is_mutation || row["envelope"]["resultClass"] != "accepted" || !self.concerns(row) {
            return;
        }
        let at = row["actedAt"].clone();
        self.expire_before(at.as_str());
        let mut entry = json!({
            "at": at,
            "action": action,
            "runId": run,
        });
        if let Some(info) = self.runs.get(run) {
            entry["actor"] = json!(info.principal);
            if let Some(c) = &info.command {
                entry["command"] = json!(c);
            }
            if let Some(s) = &info.session {
                entry["sessionId"] = json!(crate::runtime::public_session_ref(s));
            }
        }
        // A recovered row (issue 61) knows the call, not what it changed.
        if row["recovered"] == true {
            entry["recovered"] = json!(true);
        }
        let changes = self.changes(action, row);
        if !changes.is_empty() {
            entry["changes"] = Value::Array(changes);
        }
        self.details(action, row, &mut entry);
        self.push(entry);
    }

    /// The fields the call changed, each from → to.
    fn changes(&mut self, action: &str, row: &Value) -> Vec<Value> {
        let args = &row["args"];
        let payload = &row["envelope"]["payload"];
        let mut next = self.state.clone();
        // The issue as the payload gives it (whole for most actions, premath's
        // projection for add, update and claims), then what the arguments set.
        if let Some(issue) = payload["issue"]
            .as_object()
            .filter(|i| i["id"].as_str() == Some(self.id))
        {
            for (k, v) in issue {
                next.insert(snake(k), v.clone());
            }
        }
        // The issue's own arguments set its fields explicitly: a change even
        // when the history did not know the field before.
        let created = matches!(action, "issue.add" | "issue.discover")
            && payload["issue"]["id"].as_str() == Some(self.id);
        let mut set: Vec<String> = Vec::new();
        if created || args["id"].as_str() == Some(self.id) && action == "issue.update" {
            for (k, v) in args.as_object().into_iter().flatten() {
                if k != "id" && k != "parentId" {
                    set.push(snake(k));
                    next.insert(snake(k), v.clone());
                }
            }
        }
        // The fields an action sets by what it is.
        set.extend(
            match action {
                "issue.close" | "issue.reopen" => &["status", "closed_at", "close_reason"][..],
                "issue.claim" | "issue.claim_next" => &["status", "assignee"][..],
                "issue.label" => &["labels"][..],
                _ => &[][..],
            }
            .iter()
            .map(|f| f.to_string()),
        );
        let changes: Vec<Value> = FIELDS
            .iter()
            .filter(|f| {
                // A field first seen in a payload is the issue as it was,
                // not a change (unless the call created the issue).
                created || self.state.contains_key(**f) || set.iter().any(|s| s == *f)
            })
            .filter_map(|f| {
                let before = self.state.get(*f).cloned().unwrap_or(Value::Null);
                let after = next.get(*f).cloned().unwrap_or(Value::Null);
                let empty = |v: &Value| v.is_null() || v.as_str() == Some("") || v == &json!([]);
                // An empty value is no value: shown as null.
                let shown = |v: Value| if empty(&v) { Value::Null } else { v };
                (before != after && !(empty(&before) && empty(&after)))
                    .then(|| json!({"field": f, "from": shown(before), "to": shown(after)}))
            })
            .collect();
        self.state = next;
        changes
    }

    /// Comments, edges and leases a call made.
    fn details(&mut self, action: &str, row: &Value, entry: &mut Value) {
        let args = &row["args"];
        let payload = &row["envelope"]["payload"];
        match action {
            "issue.comment" => {
                entry["comment"] = json!({"author": args["author"], "text": args["text"]});
            }
            "dep.add" | "dep.remove" | "dep.replace" => {
                entry["edge"] = json!({
                    "event": match action { "dep.add" => "added", "dep.remove" => "removed", _ => "replaced" },
                    "issueId": args["issueId"],
                    "dependsOnId": args["dependsOnId"],
                    "type": args.get("type").cloned().unwrap_or(json!("blocks")),
                });
            }
            "issue.discover" if args["parentId"].as_str() == Some(self.id) => {
                entry["edge"] = json!({"event": "added", "issueId": payload["issue"]["id"],
                                       "dependsOnId": self.id, "type": "discovered-from"});
            }
            "issue.claim" | "issue.claim_next" | "issue.lease_renew" => {
                // Claims carry premath's camelCase lease in `issue`; a
                // renewal the stored (snake_case) one.
                let either = |l: &Map<String, Value>, camel: &str, snake: &str| {
                    l.get(camel).or_else(|| l.get(snake)).cloned()
                };
                let lease = payload["issue"]["lease"]
                    .as_object()
                    .or_else(|| payload["lease"].as_object())
                    .map(|l| {
                        json!({
                            "leaseId": either(l, "leaseId", "lease_id"),
                            "owner": either(l, "owner", "owner"),
                            "expiresAt": either(l, "expiresAt", "expires_at"),
                        })
                    });
                if let Some(mut lease) = lease {
                    let event = if action == "issue.lease_renew" {
                        "renewed"
                    } else {
                        "taken"
                    };
                    lease["event"] = json!(event);
                    self.lease = Some(lease.clone());
                    entry["lease"] = lease;
                }
            }
            "issue.lease_release" | "issue.close" => {
                if let Some(mut lease) = self.lease.take() {
                    lease["event"] = json!("released");
                    entry["lease"] = lease;
                }
            }
            _ => {}
        }
    }

    /// A lease that ran out before `at` (or before now, at the end) without a
    /// renewal or a release: its expiry is an entry of its own.
    fn expire_before(&mut self, at: Option<&str>) {
        let Some(lease) = &self.lease else {
            return;
        };
        let Some(expires) = lease["expiresAt"].as_str() else {
            return;
        };
        let instant = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
        let ended = match (instant(expires), at.map(instant)) {
            (Some(expires), Some(Some(at))) => expires < at,
            (Some(expires), None) => expires < chrono::Utc::now(),
            _ => false,
        };
        if ended {
            let mut lease = self.lease.take().expect("checked");
            lease["event"] = json!("expired");
            let at = lease["expiresAt"].clone();
            self.push(json!({"at": at, "action": "lease.expired", "lease": lease}));
        }
    }

    fn push(&mut self, mut entry: Value) {
        self.total += 1;
        entry["seq"] = json!(self.total);
        if self.total > self.after && self.entries.len() < self.limit {
            self.entries.push(entry);
        }
    }

    fn finish(mut self, _now: chrono::DateTime<chrono::Utc>) -> History {
        self.expire_before(None);
        let shown_to = self.after + self.entries.len();
        History {
            next_after: (shown_to < self.total).then_some(shown_to),
            entries: self.entries,
            total: self.total,
        }
    }
}

/// One entry as text cells: seq, when, who, action, by what (the command
/// line or the run), what changed (each value as JSON, cut at 80
/// characters).
pub fn entry_cells(e: &Value) -> [String; 6] {
    let short = |v: &Value| {
        let text = v.to_string();
        if text.chars().count() > 80 {
            format!("{}…", text.chars().take(80).collect::<String>())
        } else {
            text
        }
    };
    let by = match (e["command"].as_str(), e["runId"].as_str()) {
        (Some(c), _) => format!("`{c}`"),
        (None, Some(r)) => format!("run {r}"),
        _ => String::new(),
    };
    let mut what: Vec<String> = e["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{} {} → {}",
                c["field"].as_str().unwrap_or("?"),
                short(&c["from"]),
                short(&c["to"])
            )
        })
        .collect();
    if let Some(c) = e.get("comment") {
        what.push(format!(
            "comment by {}: {}",
            short(&c["author"]),
            short(&c["text"])
        ));
    }
    if let Some(edge) = e.get("edge") {
        what.push(format!(
            "edge {} {} → {} ({})",
            edge["event"].as_str().unwrap_or("?"),
            edge["issueId"].as_str().unwrap_or("?"),
            edge["dependsOnId"].as_str().unwrap_or("?"),
            edge["type"].as_str().unwrap_or("?")
        ));
    }
    if let Some(lease) = e.get("lease") {
        what.push(format!(
            "lease {} {} by {} until {}",
            lease["event"].as_str().unwrap_or("?"),
            lease["leaseId"].as_str().unwrap_or("?"),
            lease["owner"].as_str().unwrap_or("?"),
            lease["expiresAt"].as_str().unwrap_or("?")
        ));
    }
    if e["recovered"] == true {
        what.push("recovered: its process died before the row was written; what it changed is in the store, not in the log".to_string());
    }
    [
        e["seq"].to_string(),
        e["at"].as_str().unwrap_or("?").to_string(),
        e["actor"].as_str().unwrap_or("-").to_string(),
        e["action"].as_str().unwrap_or("?").to_string(),
        by,
        what.join("; "),
    ]
}

/// One entry as a line of text ([`entry_cells`]).
pub fn entry_line(e: &Value) -> String {
    let [seq, at, actor, action, by, what] = entry_cells(e);
    format!("{seq:>4}  {at}  {actor}  {action}  {by}: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(lines: &[Value], id: &str) -> History {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("effects.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        history(&LogStore::File(path), id, 0, 100).unwrap()
    }

    fn claim(run: &str, who: &str, at: &str, expires: &str) -> Vec<Value> {
        vec![
            json!({"kind": crate::effects::RUN_KIND, "runId": run, "principal": who}),
            json!({"kind": crate::effects::ROW_KIND, "runId": run, "action": "issue.claim",
                   "args": {"id": "bd-1", "assignee": who}, "actedAt": at,
                   "envelope": {"resultClass": "accepted", "payload": {"issue": {"id": "bd-1",
                       "assignee": who, "status": "in_progress",
                       "lease": {"leaseId": format!("l-{who}"), "owner": who, "expiresAt": expires}}}}}),
            json!({"kind": crate::effects::RUN_END_KIND, "runId": run}),
        ]
    }

    /// A lease that runs out before the next event is an entry at its
    /// expiry; one that is still running is not.
    #[test]
    fn a_lease_that_ran_out_is_an_entry_of_its_own() {
        let mut lines = claim("r1", "a", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z");
        lines.extend(claim(
            "r2",
            "b",
            "2026-01-01T02:00:00Z",
            "2999-01-01T00:00:00Z",
        ));
        let h = page(&lines, "bd-1");
        let events: Vec<(&str, &str)> = h
            .entries
            .iter()
            .map(|e| {
                (
                    e["action"].as_str().unwrap(),
                    e["lease"]["event"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            events,
            [
                ("issue.claim", "taken"),
                ("lease.expired", "expired"),
                ("issue.claim", "taken")
            ]
        );
        assert_eq!(h.entries[1]["at"], "2026-01-01T01:00:00Z");
        assert_eq!(h.entries[2]["actor"], "b");
        // Refused calls and other issues' calls are not entries.
        let mut other = claim("r3", "c", "2026-01-01T03:00:00Z", "2026-01-01T04:00:00Z");
        other[1]["args"]["id"] = json!("bd-2");
        other[1]["envelope"]["payload"]["issue"]["id"] = json!("bd-2");
        let mut refused = claim("r4", "d", "2026-01-01T03:00:00Z", "2026-01-01T04:00:00Z");
        refused[1]["envelope"]["resultClass"] = json!("lease_contended");
        lines.extend(other);
        lines.extend(refused);
        assert_eq!(page(&lines, "bd-1").total, 3);
    }

    /// An unreadable line is an error naming it, never skipped.
    #[test]
    fn a_corrupt_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("effects.jsonl");
        std::fs::write(&path, "{\"kind\":1}\nnot json\n").unwrap();
        let e = history(&LogStore::File(path), "bd-1", 0, 10).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }
}
