//! A dry run's plan (issue 59): what an atomic run would change, as one
//! canonical JSON object, `tusk.plan.v1`.
//!
//! - `changes`: per issue the run wrote (sorted by id), whether it is new,
//!   each field whose value differs with its value `before` (absent for a
//!   new issue or a new field: `null`) and `after`, and, read from those
//!   fields, the comments added and the dependency edges added and removed;
//! - `reads`: every issue the run read or wrote, with the version the run
//!   saw: the digest of its line (`null` when it did not exist);
//! - `programDigest`, and `store` (the path or URL the plan is for);
//! - `planId`: `plan-` and the SHA-256 of the canonical JSON of all the
//!   above. The same program on the same store state gives the same plan,
//!   byte for byte, in any process; an edited plan no longer matches its id.

use super::overlay::{Change, Overlay};
use super::store::StoreError;
use crate::canonical;
use serde_json::{json, Map, Value};

/// The plan's `kind`.
pub const KIND: &str = "tusk.plan.v1";

/// The plan of `overlay`'s staged changes, for the program of `program_digest`.
///
/// # Errors
/// A base or staged line that does not parse (never, once staged).
pub fn of(overlay: &Overlay, program_digest: &str) -> Result<Value, StoreError> {
    let changes: Vec<Value> = overlay.changes()?.iter().map(change).collect();
    let (read, written) = overlay.read_and_written();
    let mut ids: Vec<String> = read.into_iter().chain(written).collect();
    ids.sort();
    ids.dedup();
    let reads: Vec<Value> = overlay
        .base_lines(&ids)?
        .into_iter()
        .map(|(id, line)| json!({"id": id, "version": line.map(|l| canonical::sha256_text(&l))}))
        .collect();
    let mut plan = json!({
        "kind": KIND,
        "programDigest": program_digest,
        "store": overlay.base().path().display().to_string(),
        "changes": changes,
        "reads": reads,
    });
    let id = format!(
        "plan-{}",
        canonical::sha256_hex(canonical::to_canonical_string(&plan).as_bytes())
    );
    plan["planId"] = json!(id);
    Ok(canonical::sorted(&plan))
}

/// One issue's change.
fn change(c: &Change) -> Value {
    let empty = Map::new();
    let before = c.before.as_ref().unwrap_or(&empty);
    let mut fields = Map::new();
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(c.after.keys()).collect();
    for key in keys {
        let (was, is) = (before.get(key), c.after.get(key));
        if was != is {
            fields.insert(
                key.clone(),
                json!({"before": was.cloned().unwrap_or(Value::Null), "after": is.cloned().unwrap_or(Value::Null)}),
            );
        }
    }
    let list = |m: &Map<String, Value>, key: &str| -> Vec<Value> {
        m.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let added = |key: &str| -> Vec<Value> {
        let was = list(before, key);
        list(&c.after, key)
            .into_iter()
            .filter(|v| !was.contains(v))
            .collect()
    };
    let removed = |key: &str| -> Vec<Value> {
        let is = list(&c.after, key);
        list(before, key)
            .into_iter()
            .filter(|v| !is.contains(v))
            .collect()
    };
    json!({
        "id": c.id,
        "new": c.before.is_none(),
        "fields": fields,
        "commentsAdded": added("comments"),
        "edgesAdded": added("dependencies"),
        "edgesRemoved": removed("dependencies"),
    })
}
