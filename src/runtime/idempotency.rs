//! Retries that do not repeat (issue 59): a request's `idempotencyKey`.
//!
//! An agent whose call timed out on its side cannot tell whether the run
//! happened. Sent again with the same key, by the same principal, with the
//! same program (its digest), the request gets the first run's result,
//! marked `"idempotency": {"replayed": true, "firstRunId": …}`, and nothing
//! runs or is recorded. The same key with another program is refused
//! (`request.idempotency_conflict`); while the first run is still running,
//! a second is refused as `request.idempotency_in_progress` (retry later).
//!
//! Keys live [`KEY_TTL`]; each principal holds at most [`MAX_KEYS`] (past
//! it, its oldest finished key is forgotten). A run that was rejected
//! without executing any call changed nothing: its key is released, so a
//! retry runs again.
//!
//! Where keys live: beside a file store, one file per key under
//! `.premath/idempotency/` (named by digests of the principal and the key;
//! a running key's file is `flock`ed by its process, so a key whose process
//! died is taken over at once); on PostgreSQL, the table
//! `tusk_idempotency` (a running key is taken over once it is older than
//! its run's timeout and a minute).

use crate::canonical;
use crate::host::HostClass;
use crate::issues::IssueStore;
use crate::pg::{End, PgError, PgStore};
use chrono::{DateTime, Utc};
use fs4::FileExt;
use serde_json::{json, Value};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a key is remembered.
pub const KEY_TTL: Duration = Duration::from_secs(24 * 3600);
/// Keys kept per principal.
pub const MAX_KEYS: usize = 1000;

/// Why a keyed request cannot run.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(
        "idempotencyKey {key:?} was used by this principal for another program (digest {first}; \
         this one is {this}): use a new key for a new program"
    )]
    Conflict {
        key: String,
        first: String,
        this: String,
    },
    #[error(
        "idempotencyKey {key:?}: the first run with this key is still running; send the request \
         again once it has ended to get its result"
    )]
    InProgress { key: String },
    #[error("idempotency keys at {path}: {message}")]
    Store { path: String, message: String },
}

impl KeyError {
    pub fn class(&self) -> &'static str {
        match self {
            KeyError::Conflict { .. } => HostClass::IdempotencyConflict.as_str(),
            KeyError::InProgress { .. } => HostClass::IdempotencyInProgress.as_str(),
            KeyError::Store { .. } => HostClass::RequestUnusable.as_str(),
        }
    }
}

/// What a keyed request finds.
pub enum Claim {
    /// The key is this request's: run, then [`Ticket::finish`].
    Fresh(Ticket),
    /// The first run's result, marked as replayed.
    Done(Value),
}

/// A claimed key, held until the run's result is stored (or released).
pub struct Ticket {
    key: String,
    principal: String,
    digest: String,
    at: Place,
}

enum Place {
    /// The key's file, `flock`ed while the run runs.
    File {
        path: PathBuf,
        _lock: File,
    },
    Db(Arc<PgStore>),
}

/// The marker a result gets.
fn marker(key: &str, replayed: bool, first_run: &Value) -> Value {
    json!({"key": key, "replayed": replayed, "firstRunId": first_run})
}

/// Claims `key` for `principal`'s program of `digest` on the store of
/// `issues`, now; `timeout` is the run's (a database's running key is
/// stale past it).
///
/// # Errors
/// The key holds another program, its first run is running, or the keys
/// cannot be read or written.
pub fn claim(
    issues: &IssueStore,
    principal: &str,
    key: &str,
    digest: &str,
    timeout: Duration,
) -> Result<Claim, KeyError> {
    let now = Utc::now();
    match issues.unstaged() {
        IssueStore::Postgres(pg) => claim_db(pg, principal, key, digest, timeout),
        other => claim_file(&dir_of(other.path()), principal, key, digest, now),
    }
}

impl Ticket {
    /// Stores `result` for the key and marks it; a run rejected without
    /// executing any call changed nothing, and releases the key instead.
    /// A result that cannot be stored is said in the marker.
    pub fn finish(self, result: &mut Value) {
        let keep =
            result["result"] == "accepted" || result["executedCallCount"].as_u64().unwrap_or(0) > 0;
        let mut mark = marker(&self.key, false, &result["runId"]);
        let stored = if keep {
            self.store(result)
        } else {
            mark["released"] = json!(true);
            self.release()
        };
        if let Err(e) = stored {
            mark["stored"] = json!(false);
            mark["error"] = json!(e.to_string());
        }
        result["idempotency"] = mark;
    }

    fn entry(&self, result: Option<&Value>) -> Value {
        json!({
            "principal": self.principal,
            "key": self.key,
            "programDigest": self.digest,
            "createdAt": crate::runtime::rfc3339(Utc::now()),
            "result": result,
        })
    }

    fn store(&self, result: &Value) -> Result<(), KeyError> {
        match &self.at {
            Place::File { path, .. } => {
                let bytes = canonical::to_canonical_string(&self.entry(Some(result)));
                crate::files::write_atomically(path, bytes.as_bytes())
                    .map_err(|e| store_error(path, e))
            }
            Place::Db(pg) => pg
                .transaction(|tx| {
                    tx.execute(
                        "UPDATE tusk_idempotency SET result = $3, running = false \
                         WHERE principal = $1 AND key = $2",
                        &[&self.principal, &self.key, &result.to_string()],
                    )
                    .map_err(|e| pg.error(e))?;
                    Ok::<_, PgError>(End::Commit(()))
                })
                .map_err(|e| db_error(pg, e)),
        }
    }

    fn release(&self) -> Result<(), KeyError> {
        match &self.at {
            Place::File { path, .. } => fs::remove_file(path).map_err(|e| store_error(path, e)),
            Place::Db(pg) => pg
                .transaction(|tx| {
                    tx.execute(
                        "DELETE FROM tusk_idempotency WHERE principal = $1 AND key = $2",
                        &[&self.principal, &self.key],
                    )
                    .map_err(|e| pg.error(e))?;
                    Ok::<_, PgError>(End::Commit(()))
                })
                .map_err(|e| db_error(pg, e)),
        }
    }
}

/// The keys' directory beside a file store.
fn dir_of(store: &Path) -> PathBuf {
    crate::issues::store::parent_dir(store).join("idempotency")
}

fn store_error(path: &Path, e: impl std::fmt::Display) -> KeyError {
    KeyError::Store {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

fn db_error(pg: &PgStore, e: PgError) -> KeyError {
    KeyError::Store {
        path: pg.shown().to_string(),
        message: e.to_string(),
    }
}

/// The answer to a key already done: its result, marked; a conflict for
/// another program.
fn done(key: &str, digest: &str, first_digest: &str, mut result: Value) -> Result<Claim, KeyError> {
    if first_digest != digest {
        return Err(KeyError::Conflict {
            key: key.to_string(),
            first: first_digest.to_string(),
            this: digest.to_string(),
        });
    }
    result["idempotency"] = marker(key, true, &result["runId"]);
    Ok(Claim::Done(result))
}

fn expired(created: Option<&str>, now: DateTime<Utc>) -> bool {
    created
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .is_none_or(|t| now.signed_duration_since(t).to_std().unwrap_or_default() > KEY_TTL)
}

// ------------------------------------------------------------------ files

fn claim_file(
    dir: &Path,
    principal: &str,
    key: &str,
    digest: &str,
    now: DateTime<Utc>,
) -> Result<Claim, KeyError> {
    fs::create_dir_all(dir).map_err(|e| store_error(dir, e))?;
    // Claims are decided one at a time (a short lock on the directory).
    let guard_path = dir.join(".lock");
    let guard = crate::files::open(
        OpenOptions::new().create(true).truncate(false).write(true),
        &guard_path,
    )
    .map_err(|e| store_error(&guard_path, e))?;
    FileExt::lock(&guard).map_err(|e| store_error(&guard_path, e))?;
    let prefix = principal_prefix(principal);
    let path = dir.join(format!(
        "{prefix}-{}.json",
        canonical::sha256_hex(key.as_bytes())
    ));
    let mut file = crate::files::open(
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true),
        &path,
    )
    .map_err(|e| store_error(&path, e))?;
    match FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => {
            return Err(KeyError::InProgress {
                key: key.to_string(),
            })
        }
        Err(fs4::TryLockError::Error(e)) => return Err(store_error(&path, e)),
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| store_error(&path, e))?;
    if let Ok(entry) = serde_json::from_str::<Value>(&text) {
        let finished = !entry["result"].is_null();
        if finished && !expired(entry["createdAt"].as_str(), now) {
            let first = entry["programDigest"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            return done(key, digest, &first, entry["result"].clone());
        }
    }
    // New, expired, or left running by a process that died (its lock is
    // free): this request's now.
    forget_oldest(dir, &prefix, &path, now);
    let ticket = Ticket {
        key: key.to_string(),
        principal: principal.to_string(),
        digest: digest.to_string(),
        at: Place::File {
            path: path.clone(),
            _lock: file.try_clone().map_err(|e| store_error(&path, e))?,
        },
    };
    let entry = canonical::to_canonical_string(&ticket.entry(None));
    file.set_len(0).map_err(|e| store_error(&path, e))?;
    file.rewind().map_err(|e| store_error(&path, e))?;
    file.write_all(entry.as_bytes())
        .map_err(|e| store_error(&path, e))?;
    drop(guard);
    Ok(Claim::Fresh(ticket))
}

/// The file-name prefix of a principal's keys.
fn principal_prefix(principal: &str) -> String {
    canonical::sha256_hex(principal.as_bytes())[..16].to_string()
}

/// Keeps a principal under [`MAX_KEYS`]: expired keys go, then the oldest
/// finished ones. A running key (locked) is never touched.
fn forget_oldest(dir: &Path, prefix: &str, keep: &Path, now: DateTime<Utc>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut mine: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .filter(|e| e.path() != keep)
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if mine.len() < MAX_KEYS {
        return;
    }
    mine.sort();
    let over = mine.len() + 1 - MAX_KEYS;
    let ttl = chrono::Duration::from_std(KEY_TTL).unwrap_or_default();
    for (n, (modified, path)) in mine.into_iter().enumerate() {
        let old = DateTime::<Utc>::from(modified) + ttl < now;
        if n >= over && !old {
            continue;
        }
        let Ok(file) = crate::files::open(OpenOptions::new().read(true), &path) else {
            continue;
        };
        if FileExt::try_lock(&file).is_ok() {
            let _ = fs::remove_file(&path);
        }
    }
}

// ------------------------------------------------------------------ database

fn claim_db(
    pg: &Arc<PgStore>,
    principal: &str,
    key: &str,
    digest: &str,
    timeout: Duration,
) -> Result<Claim, KeyError> {
    let stale_after = (timeout + Duration::from_secs(60)).as_secs_f64();
    let ttl = KEY_TTL.as_secs_f64();
    let found = pg
        .transaction(|tx| {
            let err = |e| pg.error(e);
            // Keys of one principal are claimed one at a time.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext('tusk_idempotency:' || $1))",
                &[&principal],
            )
            .map_err(err)?;
            let row = tx
                .query_opt(
                    "SELECT program_digest, result, running, \
                     extract(epoch FROM now() - created_at)::float8 \
                     FROM tusk_idempotency WHERE principal = $1 AND key = $2 FOR UPDATE",
                    &[&principal, &key],
                )
                .map_err(err)?;
            if let Some(row) = row {
                let (first, result, running, age): (String, Option<String>, bool, f64) =
                    (row.get(0), row.get(1), row.get(2), row.get(3));
                if let (Some(result), false) = (result.as_deref(), age > ttl) {
                    let result: Value = serde_json::from_str(result).unwrap_or(Value::Null);
                    return Ok(End::Commit(Some(Err((first, result)))));
                }
                if running && age <= stale_after {
                    return Ok(End::Commit(Some(Ok(()))));
                }
            }
            tx.execute(
                "DELETE FROM tusk_idempotency WHERE principal = $1 AND \
                 (created_at < now() - make_interval(secs => $2) OR key = $3 OR key IN ( \
                   SELECT key FROM tusk_idempotency WHERE principal = $1 AND NOT running \
                   ORDER BY created_at DESC OFFSET $4))",
                &[&principal, &ttl, &key, &((MAX_KEYS - 1) as i64)],
            )
            .map_err(err)?;
            tx.execute(
                "INSERT INTO tusk_idempotency (principal, key, program_digest, running, created_at) \
                 VALUES ($1, $2, $3, true, now())",
                &[&principal, &key, &digest],
            )
            .map_err(err)?;
            Ok::<_, PgError>(End::Commit(None))
        })
        .map_err(|e| db_error(pg, e))?;
    match found {
        None => Ok(Claim::Fresh(Ticket {
            key: key.to_string(),
            principal: principal.to_string(),
            digest: digest.to_string(),
            at: Place::Db(pg.clone()),
        })),
        Some(Ok(())) => Err(KeyError::InProgress {
            key: key.to_string(),
        }),
        Some(Err((first, result))) => done(key, digest, &first, result),
    }
}
