//! Runs a directory of typestate vectors in the shared layout, so a new vector set
//! can be checked without code changes.
//!
//! Layout: `manifest.json` (`{"vectors": ["golden/x", …]}`) or, without one, every
//! directory below the root that holds a `case.json`. Each vector has `case.json`
//! (input under `input`), `expect.json` (`result`, `expectedFailureClasses`,
//! `expectedJoinClosed`) and optionally `output.json`, the reference's complete
//! output, which must then match exactly.

use super::check;
use serde_json::Value;
use std::path::Path;

/// One vector's outcome: it passed iff `problems` is empty.
#[derive(Clone, Debug)]
pub struct VectorOutcome {
    pub id: String,
    pub problems: Vec<String>,
}

impl VectorOutcome {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Lists the vectors of `dir` (manifest order, else sorted directory walk).
pub fn list_vectors(dir: &Path) -> Result<Vec<String>, String> {
    let manifest = dir.join("manifest.json");
    if manifest.is_file() {
        let value = read_json(&manifest)?;
        let list = value
            .get("vectors")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{}: no \"vectors\" array", manifest.display()))?;
        return list
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}: vector ids must be strings", manifest.display()))
            })
            .collect();
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found)?;
    found.sort();
    Ok(found)
}

fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) -> Result<(), String> {
    if dir.join("case.json").is_file() {
        let rel = dir.strip_prefix(root).unwrap_or(dir);
        found.push(rel.to_string_lossy().replace('\\', "/"));
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            walk(root, &path, found)?;
        }
    }
    Ok(())
}

/// Runs every vector of `dir`. `Err` only when the suite itself cannot be listed.
pub fn run_suite(dir: &Path) -> Result<Vec<VectorOutcome>, String> {
    Ok(list_vectors(dir)?
        .into_iter()
        .map(|id| {
            let problems = run_vector(&dir.join(&id));
            VectorOutcome { id, problems }
        })
        .collect())
}

/// Checks one vector directory; returns what disagrees (empty = pass).
pub fn run_vector(dir: &Path) -> Vec<String> {
    match run_vector_inner(dir) {
        Ok(problems) => problems,
        Err(e) => vec![e],
    }
}

fn run_vector_inner(dir: &Path) -> Result<Vec<String>, String> {
    let case = read_json(&dir.join("case.json"))?;
    let expect = read_json(&dir.join("expect.json"))?;
    let input = case.get("input").ok_or("case.json: no \"input\" member")?;
    let verdict =
        check(input).map_err(|e| format!("input rejected: harness_join_check_invalid: {e}"))?;

    let mut problems = Vec::new();
    let result = if verdict.accepted {
        "accepted"
    } else {
        "rejected"
    };
    if let Some(want) = expect.get("result").and_then(Value::as_str) {
        if want != result {
            problems.push(format!("result: expected {want}, got {result}"));
        }
    }
    if let Some(want) = expect
        .get("expectedFailureClasses")
        .and_then(Value::as_array)
    {
        let mut want: Vec<String> = want
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        want.sort();
        want.dedup();
        if want != verdict.failure_classes {
            problems.push(format!(
                "failureClasses: expected {want:?}, got {:?}",
                verdict.failure_classes
            ));
        }
    }
    if let Some(want) = expect.get("expectedJoinClosed").and_then(Value::as_bool) {
        if want != verdict.join_closed {
            problems.push(format!(
                "joinClosed: expected {want}, got {}",
                verdict.join_closed
            ));
        }
    }
    let output_path = dir.join("output.json");
    if output_path.is_file() {
        let want = read_json(&output_path)?;
        if let Some(diff) = first_difference("", &want, &verdict.output) {
            problems.push(format!("output.json: {diff}"));
        }
    }
    Ok(problems)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = crate::files::read_to_string(path, crate::files::INPUT_MAX)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: invalid JSON: {e}", path.display()))
}

/// The first JSON path where `want` and `got` differ, with both values.
pub fn first_difference(path: &str, want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let sub = format!("{path}/{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => first_difference(&sub, x, y),
                    (Some(_), None) => Some(format!("{sub}: missing")),
                    (None, Some(_)) => Some(format!("{sub}: unexpected member")),
                    (None, None) => None,
                }
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}/{i}"), x, y)),
        _ if want == got => None,
        _ => Some(format!(
            "{}: expected {}, got {}",
            if path.is_empty() { "/" } else { path },
            want,
            got
        )),
    }
}
