//! Kept plans (issue 59): every dry run's plan, by its id, beside the store
//! it is for, and what its first application answered.
//!
//! Beside a file store: `.premath/plans/<planId>.json` (the plan) and
//! `<planId>.applied.json` (the first application's payload), ignored by
//! git (a clone's own). On PostgreSQL: the table `tusk_plans`. Plans expire
//! after [`PLAN_TTL`]; at most [`MAX_PLANS`] are kept (the oldest go first).

use super::store::IssueStore;
use crate::pg::{End, PgError, PgStore};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long a kept plan may be applied by id.
pub const PLAN_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// Plans kept per store.
pub const MAX_PLANS: usize = 1000;

/// The plans' directory beside a file store.
fn dir_of(store: &Path) -> PathBuf {
    super::store::parent_dir(store).join("plans")
}

/// A plan id names a file of its own: `plan-` and 64 hex digits.
pub fn is_plan_id(id: &str) -> bool {
    id.strip_prefix("plan-")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Keeps `plan` (already checked: its id is its digest).
///
/// # Errors
/// The plan could not be written.
pub fn keep(store: &IssueStore, id: &str, plan: &Value) -> Result<(), String> {
    let text = crate::canonical::to_pretty_sorted(plan);
    match store.unstaged() {
        IssueStore::Postgres(pg) => db(pg, |tx| {
            tx.execute(
                "DELETE FROM tusk_plans WHERE created_at < now() - make_interval(secs => $1) \
                 OR plan_id IN (SELECT plan_id FROM tusk_plans ORDER BY created_at DESC OFFSET $2)",
                &[&PLAN_TTL.as_secs_f64(), &((MAX_PLANS - 1) as i64)],
            )?;
            tx.execute(
                "INSERT INTO tusk_plans (plan_id, plan, created_at) VALUES ($1, $2, now()) \
                 ON CONFLICT (plan_id) DO NOTHING",
                &[&id, &text],
            )?;
            Ok(())
        }),
        other => {
            let dir = dir_of(other.path());
            forget_old(&dir);
            write_in(&dir, &format!("{id}.json"), &text)
        }
    }
}

/// The kept plan of `id`, unless it expired or was never kept.
///
/// # Errors
/// The plans could not be read.
pub fn find(store: &IssueStore, id: &str) -> Result<Option<Value>, String> {
    if !is_plan_id(id) {
        return Ok(None);
    }
    match store.unstaged() {
        IssueStore::Postgres(pg) => db(pg, |tx| {
            let row = tx.query_opt(
                "SELECT plan FROM tusk_plans WHERE plan_id = $1 \
                 AND created_at >= now() - make_interval(secs => $2)",
                &[&id, &PLAN_TTL.as_secs_f64()],
            )?;
            Ok(row.and_then(|r| serde_json::from_str(r.get::<_, &str>(0)).ok()))
        }),
        other => {
            let path = dir_of(other.path()).join(format!("{id}.json"));
            let fresh = fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| age(t) <= PLAN_TTL);
            if !fresh {
                return Ok(None);
            }
            read_json(&path)
        }
    }
}

/// What the first application of plan `id` answered, when it was applied.
///
/// # Errors
/// The plans could not be read.
pub fn applied(store: &IssueStore, id: &str) -> Result<Option<Value>, String> {
    match store.unstaged() {
        IssueStore::Postgres(pg) => db(pg, |tx| {
            let row = tx.query_opt(
                "SELECT applied FROM tusk_plans WHERE plan_id = $1 AND applied IS NOT NULL",
                &[&id],
            )?;
            Ok(row.and_then(|r| serde_json::from_str(r.get::<_, &str>(0)).ok()))
        }),
        other => read_json(&dir_of(other.path()).join(format!("{id}.applied.json"))),
    }
}

/// Records the first application of plan `id` (its payload).
///
/// # Errors
/// The record could not be written.
pub fn mark_applied(store: &IssueStore, id: &str, payload: &Value) -> Result<(), String> {
    let text = payload.to_string();
    match store.unstaged() {
        IssueStore::Postgres(pg) => db(pg, |tx| {
            // A plan given as a file may not be kept yet: keep it applied.
            tx.execute(
                "INSERT INTO tusk_plans (plan_id, plan, created_at, applied) \
                 VALUES ($1, '{}', now(), $2) \
                 ON CONFLICT (plan_id) DO UPDATE SET applied = coalesce(tusk_plans.applied, $2)",
                &[&id, &text],
            )?;
            Ok(())
        }),
        other => write_in(&dir_of(other.path()), &format!("{id}.applied.json"), &text),
    }
}

/// Writes `text` (and a newline) to the file `name` in `dir`, made if need be.
fn write_in(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    crate::files::write_atomically(&path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The kept plans in `dir` (not their `.applied` records): when each was
/// written, and its id.
fn plan_files(dir: &Path) -> Vec<(SystemTime, String)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix(".json")?.to_string();
            is_plan_id(&id).then_some(())?;
            Some((e.metadata().ok()?.modified().ok()?, id))
        })
        .collect()
}

fn read_json(path: &Path) -> Result<Option<Value>, String> {
    match crate::files::read_to_string(path, crate::files::INPUT_MAX) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{}: not JSON: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn age(t: SystemTime) -> Duration {
    SystemTime::now().duration_since(t).unwrap_or_default()
}

/// Drops expired plans, then the oldest past [`MAX_PLANS`].
fn forget_old(dir: &Path) {
    let mut plans = plan_files(dir);
    plans.sort();
    let over = (plans.len() + 1).saturating_sub(MAX_PLANS);
    for (n, (modified, id)) in plans.iter().enumerate() {
        if n < over || age(*modified) > PLAN_TTL {
            let _ = fs::remove_file(dir.join(format!("{id}.json")));
            let _ = fs::remove_file(dir.join(format!("{id}.applied.json")));
        }
    }
}

fn db<T>(
    pg: &PgStore,
    f: impl FnOnce(&mut postgres::Client) -> Result<T, postgres::Error>,
) -> Result<T, String> {
    pg.transaction(|tx| f(tx).map(End::Commit).map_err(|e| pg.error(e)))
        .map_err(|e: PgError| e.to_string())
}

/// One kept plan as a list shows it.
pub struct Kept {
    pub id: String,
    pub plan: Value,
    /// Its first application's payload, once applied.
    pub applied: Option<Value>,
}

/// The kept plans, newest first, at most `limit`.
///
/// # Errors
/// The plans could not be read.
pub fn list(store: &IssueStore, limit: usize) -> Result<Vec<Kept>, String> {
    match store.unstaged() {
        IssueStore::Postgres(pg) => db(pg, |tx| {
            let rows = tx.query(
                "SELECT plan_id, plan, applied FROM tusk_plans WHERE plan <> '{}' \
                 ORDER BY created_at DESC LIMIT $1",
                &[&(limit.min(i64::MAX as usize) as i64)],
            )?;
            Ok(rows
                .iter()
                .map(|r| Kept {
                    id: r.get(0),
                    plan: serde_json::from_str(r.get::<_, &str>(1)).unwrap_or(Value::Null),
                    applied: r
                        .get::<_, Option<&str>>(2)
                        .and_then(|a| serde_json::from_str(a).ok()),
                })
                .collect())
        }),
        other => {
            let dir = dir_of(other.path());
            let mut found = plan_files(&dir);
            found.sort_by(|a, b| b.cmp(a));
            found.truncate(limit);
            found
                .into_iter()
                .map(|(_, id)| {
                    let plan = read_json(&dir.join(format!("{id}.json")))?.unwrap_or(Value::Null);
                    let applied = read_json(&dir.join(format!("{id}.applied.json")))?;
                    Ok(Kept { id, plan, applied })
                })
                .collect()
        }
    }
}
