//! `issue backend-status`: premath's report of where the issue memory lives
//! (`canonicalMemory`), the state of premath's query projection cache
//! (`queryProjection`) and of the jj workspace (`jj`), with tusk's real
//! backends: the memory is the JSONL file (`kind: "jsonl"`) or a PostgreSQL
//! database (`kind: "postgres"`). It never fails: what cannot be read is
//! reported in the member's `error`.

use super::store::{IssueStore, Store};
use super::views::snapshot_ref_of;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// premath's query projection cache kind (`.premath/surreal_issue_cache.json`).
pub const PROJECTION_KIND: &str = "premath.surreal.issue_projection.v0";
/// Its schema.
pub const PROJECTION_SCHEMA: u64 = 1;

/// `canonicalMemory`: `{error, exists, kind, path, snapshotRef}`.
fn canonical_memory(store: &IssueStore) -> (Value, Option<String>) {
    let (kind, exists) = match store {
        IssueStore::Jsonl(path) => ("jsonl", path.exists()),
        // A database is there when it answers; its error says why not.
        IssueStore::Postgres(_) => ("postgres", true),
        IssueStore::Staged(overlay) => return canonical_memory(overlay.base()),
    };
    let (mut exists, mut snapshot_ref, mut error) = (exists, None, None);
    if exists {
        match store
            .read_text()
            .and_then(|text| Store::parse(store.path(), &text).map(|s| snapshot_ref_of(&s)))
        {
            Ok(r) => snapshot_ref = Some(r),
            Err(e) => {
                if matches!(store, IssueStore::Postgres(_)) {
                    exists = false;
                }
                error = Some(e.to_string());
            }
        }
    }
    let value = json!({
        "error": error,
        "exists": exists,
        "kind": kind,
        "path": store.path().display().to_string(),
        "snapshotRef": snapshot_ref,
    });
    (value, snapshot_ref)
}

fn normalize_path(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join(path)
    };
    std::fs::canonicalize(&joined).unwrap_or(joined)
}

/// premath's `paths_equivalent`: equal as given, or once made absolute and canonical.
pub fn paths_equivalent(left: &Path, right: &Path) -> bool {
    left == right || normalize_path(left) == normalize_path(right)
}

/// `queryProjection`: premath's cache judged as premath judges it. tusk never
/// writes this cache. It is `invalid` when it cannot be read, is of another
/// schema or kind, holds issues that are not issues, or names a
/// `sourceSnapshotRef` other than its own issues' ref; `stale` when it names
/// another store or another snapshot than the memory's; `fresh` when it names
/// this store and its snapshot; `unknown` otherwise. The refs are premath's
/// (`serial.rs`), so the verdicts agree with premath's.
fn query_projection(path: &Path, memory: &IssueStore, authority_ref: Option<&str>) -> Value {
    let exists = path.exists();
    let mut schema = Value::Null;
    let mut projection_kind = Value::Null;
    let mut source_issues_path = Value::Null;
    let mut source_snapshot_ref = Value::Null;
    let mut source_matches: Option<bool> = None;
    let mut matches_projection: Option<bool> = None;
    let mut matches_authority: Option<bool> = None;
    let mut error: Option<String> = None;
    let mut state = if exists { "unknown" } else { "missing" };
    if exists {
        match crate::files::read(path) {
            Err(e) => error = Some(format!("failed to read {}: {e}", path.display())),
            Ok(bytes) => {
                // What can be read even from a payload that does not parse whole.
                if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                    let pick = |key: &str, ok: fn(&Value) -> bool| {
                        v.get(key).filter(|x| ok(x)).cloned().unwrap_or(Value::Null)
                    };
                    schema = pick("schema", Value::is_u64);
                    projection_kind = pick("kind", Value::is_string);
                    source_issues_path = pick("sourceIssuesPath", Value::is_string);
                    source_snapshot_ref = pick("sourceSnapshotRef", Value::is_string);
                }
                match serde_json::from_slice::<ProjectionPayload>(&bytes) {
                    Err(e) => error = Some(format!("failed to parse {}: {e}", path.display())),
                    Ok(p) if p.schema != PROJECTION_SCHEMA || p.kind != PROJECTION_KIND => {
                        error = Some(format!(
                            "projection metadata mismatch (expected schema={PROJECTION_SCHEMA} kind={PROJECTION_KIND}, actual schema=Some({}) kind=Some({:?}))",
                            p.schema, p.kind
                        ));
                    }
                    Ok(p) => match hydrate(&p.issues) {
                        Err(e) => {
                            error =
                                Some(format!("failed to hydrate projection payload issues: {e}"));
                        }
                        Ok(issues) => {
                            let payload_ref = super::events::snapshot_ref(&issues);
                            if let Some(source_ref) = &p.source_snapshot_ref {
                                matches_projection = Some(*source_ref == payload_ref);
                                if *source_ref != payload_ref {
                                    error = Some(format!("projection payload snapshot mismatch (sourceSnapshotRef={source_ref}, payloadSnapshotRef={payload_ref})"));
                                }
                            }
                            if error.is_none() {
                                source_matches = Some(match memory.unstaged() {
                                    IssueStore::Jsonl(issues) => {
                                        paths_equivalent(Path::new(&p.source_issues_path), issues)
                                    }
                                    // premath's cache can only name a file.
                                    _ => false,
                                });
                                if let (Some(source), Some(authority)) =
                                    (&p.source_snapshot_ref, authority_ref)
                                {
                                    matches_authority = Some(source == authority);
                                }
                            }
                        }
                    },
                }
            }
        }
        state = match (error.is_some(), source_matches, matches_authority) {
            (true, _, _) => "invalid",
            (_, Some(false), _) | (_, _, Some(false)) => "stale",
            (_, Some(true), Some(true)) => "fresh",
            _ => "unknown",
        };
    }
    json!({
        "error": error,
        "exists": exists,
        "kind": PROJECTION_KIND,
        "path": path.display().to_string(),
        "projectionKind": projection_kind,
        "schema": schema,
        "snapshotRefMatchesAuthority": matches_authority,
        "snapshotRefMatchesProjection": matches_projection,
        "sourceIssuesPath": source_issues_path,
        "sourcePathMatchesAuthority": source_matches,
        "sourceSnapshotRef": source_snapshot_ref,
        "state": state,
    })
}

/// The cache's issues as a memory (a repeated id: the last one wins, as in
/// premath); each must be an object with a string `id` and `title`.
fn hydrate(issues: &[Value]) -> Result<super::events::Memory, String> {
    let mut memory = super::events::Memory::new();
    for (i, issue) in issues.iter().enumerate() {
        let Value::Object(m) = issue else {
            return Err(format!("issue {i}: not an object"));
        };
        for key in ["id", "title"] {
            if !m.get(key).is_some_and(Value::is_string) {
                return Err(format!("issue {i}: missing string field `{key}`"));
            }
        }
        let id = m["id"].as_str().expect("checked above").to_string();
        memory.insert(id, m.clone());
    }
    Ok(memory)
}

/// The members of premath's cache that must be there for it to be usable
/// (`IssueQueryProjectionPayload`).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Read only to check their presence and types.
struct ProjectionPayload {
    schema: u64,
    kind: String,
    source_issues_path: String,
    #[serde(default)]
    source_snapshot_ref: Option<String>,
    generated_at_unix_ms: u128,
    issue_count: usize,
    issues: Vec<Value>,
}

fn first_nonempty_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// Runs `jj ARGS` in `cwd`: its stdout, or premath's error text.
fn run_jj(cwd: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("jj")
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                "jj executable is not available in PATH".to_string()
            } else {
                format!("jj command failed: jj {} ({e})", args.join(" "))
            }
        })?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
    let message = if stderr.is_empty() {
        "unknown error".to_string()
    } else {
        stderr
    };
    Err(format!(
        "jj command failed: jj {} ({message})",
        args.join(" ")
    ))
}

/// premath's jj snapshot of the workspace holding `dir` (a write witness's
/// `jjSnapshot`): `{repoRoot, changeId, status}` (`jj root`, the change at
/// `@`, `jj status`'s text), or `None` when any of them fails (no jj, no
/// workspace), as premath leaves it out.
pub fn jj_snapshot(dir: &Path) -> Option<Value> {
    let root = run_jj(dir, &["root"]).ok()?;
    let root = first_nonempty_line(&root)?.to_string();
    let change = run_jj(
        Path::new(&root),
        &["log", "-r", "@", "--no-graph", "-T", "change_id ++ \"\\n\""],
    )
    .ok()?;
    let change = first_nonempty_line(&change)?.to_string();
    let status = run_jj(Path::new(&root), &["status"]).ok()?;
    Some(json!({"repoRoot": root, "changeId": change, "status": status}))
}

/// `jj`: `{available, error, headChangeId, repoRoot, state}` with state
/// `unavailable`, `ready` or `error`.
fn jj_status(repo: &Path) -> Value {
    let available = Command::new("jj")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let (mut root, mut head, mut error) = (None, None, None);
    if available {
        let found = run_jj(repo, &["root"]).and_then(|out| {
            first_nonempty_line(&out)
                .map(str::to_string)
                .ok_or_else(|| {
                    "unable to parse jj output: jj root returned empty output".to_string()
                })
        });
        match found {
            Err(e) => error = Some(e),
            Ok(r) => {
                let change = run_jj(
                    Path::new(&r),
                    &["log", "-r", "@", "--no-graph", "-T", "change_id ++ \"\\n\""],
                )
                .and_then(|out| {
                    first_nonempty_line(&out)
                        .map(str::to_string)
                        .ok_or_else(|| {
                            "unable to parse jj output: failed to parse change id from jj log"
                                .to_string()
                        })
                });
                root = Some(r);
                match change {
                    Ok(c) => head = Some(c),
                    Err(e) => error = Some(e),
                }
            }
        }
    }
    let state = if !available {
        "unavailable"
    } else if error.is_none() {
        "ready"
    } else {
        "error"
    };
    json!({
        "available": available,
        "error": error,
        "headChangeId": head,
        "repoRoot": root,
        "state": state,
    })
}

/// The `issue.backend-status` payload (premath's keys).
pub fn backend_status(store: &IssueStore, repo: &Path, projection: &Path) -> Value {
    let (memory, authority_ref) = canonical_memory(store);
    json!({
        "action": "issue.backend-status",
        "canonicalMemory": memory,
        "issuesPath": store.path().display().to_string(),
        "jj": jj_status(repo),
        "queryProjection": query_projection(projection, store, authority_ref.as_deref()),
        "repoRoot": repo.display().to_string(),
    })
}

/// premath's text rendering of [`backend_status`].
pub fn backend_status_text(v: &Value) -> String {
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = String::from("premath issue backend-status\n");
    out.push_str(&format!("  issues: {}\n", s(&v["issuesPath"])));
    out.push_str(&format!(
        "  issues exists: {}\n",
        s(&v["canonicalMemory"]["exists"])
    ));
    out.push_str(&format!("  repo: {}\n", s(&v["repoRoot"])));
    out.push_str(&format!(
        "  projection: {}\n",
        s(&v["queryProjection"]["path"])
    ));
    out.push_str(&format!(
        "  projection exists: {}\n",
        s(&v["queryProjection"]["exists"])
    ));
    out.push_str(&format!("  jj state: {}\n", s(&v["jj"]["state"])));
    for (label, key) in [
        ("jj repo root", "repoRoot"),
        ("jj head change", "headChangeId"),
        ("jj error", "error"),
    ] {
        if let Some(text) = v["jj"][key].as_str() {
            out.push_str(&format!("  {label}: {text}\n"));
        }
    }
    out
}
