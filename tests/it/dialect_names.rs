//! The names models know (issue 56): `tests/dialect/names.jsonl` holds an
//! example of each procedure and form of racket/base, racket/list,
//! racket/string, racket/hash, racket/vector, racket/match, racket/format,
//! R7RS-small, SRFI-1 and SRFI-13 that programs over JSON-shaped data use,
//! with the value (and output) its library documents. Every example runs
//! through `tusk eval` and must give it, except those of the names listed in
//! [`NOT_YET`], which must still fail (so the list stays true).

use crate::common::*;
use serde_json::Value;

/// Names whose examples do not run yet, and why.
const NOT_YET: &[(&str, &str)] = &[
    (
        "thunk",
        "a global macro would shadow every variable named `thunk` (the engine's macros are not hygienic for local bindings)",
    ),
    ("list-set!", "lists are immutable values (list-set gives a new one)"),
];

#[test]
fn the_names_models_know_run_as_their_libraries_say() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/dialect/names.jsonl"
    ))
    .unwrap();
    let examples: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(examples.len() >= 400, "{} examples", examples.len());
    let t = Test::on_files();
    let results: Vec<(String, Option<String>)> = std::thread::scope(|scope| {
        let chunks: Vec<&[Value]> = examples.chunks(examples.len().div_ceil(3)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let t = &t;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|e| (e["name"].as_str().unwrap().to_string(), judge(t, e)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let failing: Vec<&(String, Option<String>)> =
        results.iter().filter(|(_, why)| why.is_some()).collect();
    let mut failing_names: Vec<&str> = failing.iter().map(|(n, _)| n.as_str()).collect();
    failing_names.sort_unstable();
    failing_names.dedup();
    eprintln!(
        "dialect names: {}/{} examples run, {}/{} names",
        results.len() - failing.len(),
        results.len(),
        names.len() - failing_names.len(),
        names.len()
    );
    let unexpected: Vec<String> = failing
        .iter()
        .filter(|(n, _)| !NOT_YET.iter().any(|(x, _)| x == n))
        .map(|(n, why)| format!("{n}: {}", why.as_deref().unwrap_or("")))
        .collect();
    assert!(
        unexpected.is_empty(),
        "examples that do not run:\n{}",
        unexpected.join("\n")
    );
    let stale: Vec<&str> = NOT_YET
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !failing_names.contains(n))
        .collect();
    assert!(
        stale.is_empty(),
        "these run now; take them off NOT_YET: {stale:?}"
    );
}

/// Why an example does not give its value and output, if it does not.
fn judge(t: &Test, example: &Value) -> Option<String> {
    let (_, r) = t
        .tusk(&["eval", "--json", "-"])
        .stdin(example["program"].as_str().unwrap())
        .run()
        .reply();
    if r["result"] != "accepted" {
        return Some(format!("rejected: {}", r["error"]["message"]));
    }
    if r["value"] != example["expect"] {
        return Some(format!("value {} (want {})", r["value"], example["expect"]));
    }
    if let Some(out) = example.get("output") {
        if r["output"] != *out {
            return Some(format!("output {} (want {out})", r["output"]));
        }
    }
    None
}
