//! `tusk issue migrate-events` and `tusk issue replay-events`: premath's
//! issue event log on the command line, with premath's flags, JSON, text,
//! messages and exit codes (1 for every failure).

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::harness::write_atomic;
use crate::issues::events::{self, Memory};
use crate::issues::store::{Edit, IssueStore, LockOptions, Store};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The replay cache's schema.
const CACHE_SCHEMA: &str = "issue.replay.cache.v1";

/// What `replay-events` remembers of its last run (premath's `ReplayCacheEntry`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheEntry {
    schema: String,
    events_path: String,
    issues_path: String,
    event_stream_ref: String,
    snapshot_ref: String,
    event_count: usize,
    issue_count: usize,
}

/// premath's failure: `error: MESSAGE` on stderr, exit 1.
fn fail<T>(message: String) -> Result<T, CliError> {
    Err(CliError::refused("error", message))
}

/// The store's memory; `None` for a file that does not exist.
fn load(store: &IssueStore) -> Result<Option<Memory>, String> {
    if let IssueStore::Jsonl(path) = store {
        if !path.exists() {
            return Ok(None);
        }
    }
    let shown = store.path().display();
    let text = store
        .read_text()
        .map_err(|e| format!("failed to load {shown}: {e}"))?;
    let parsed =
        Store::parse(store.path(), &text).map_err(|e| format!("failed to load {shown}: {e}"))?;
    Ok(Some(events::memory_of(&parsed)))
}

fn read_events(path: &Path) -> Result<Vec<events::Event>, String> {
    let shown = path.display();
    let bytes = crate::files::read_capped(path, crate::files::DATA_MAX)
        .map_err(|e| format!("failed to load {shown}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "failed to load {shown}: contains non-UTF-8 byte sequence(s) (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    events::parse(&text).map_err(|e| format!("failed to load {shown}: {e}"))
}

/// `issue migrate-events`: writes the store as an event log, replays the log,
/// and fails unless the replay is the same memory.
pub fn migrate(
    store: &IssueStore,
    events_path: &Path,
    json_output: bool,
    now: DateTime<Utc>,
) -> Result<Exit, CliError> {
    let issues_shown = store.path().display().to_string();
    let memory = match load(store) {
        Ok(Some(m)) => m,
        Ok(None) => return fail(format!("issues file not found: {issues_shown}")),
        Err(e) => return fail(e),
    };
    if let IssueStore::Jsonl(issues) = store {
        if same_file(issues, events_path) {
            return fail(format!(
                "the event log {} is the issues file; name another --events",
                events_path.display()
            ));
        }
    }
    let log = events::migrate(&memory, now);
    let shown = events_path.display();
    // One atomic replacement: a crash leaves the old log or the new one.
    if let Err(e) = write_atomic(events_path, events::to_text(&log).as_bytes()) {
        return fail(format!("failed to save {shown}: {e}"));
    }
    let replayed = match read_events(events_path)
        .and_then(|log| events::replay(&log).map_err(|e| format!("failed to replay {shown}: {e}")))
    {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    if !events::equivalent(&memory, &replayed) {
        return fail(format!(
            "migration replay mismatch between {issues_shown} and {shown}"
        ));
    }
    if json_output {
        let v = json!({
            "action": "issue.migrate-events",
            "equivalent": true,
            "eventCount": log.len(),
            "eventsPath": shown.to_string(),
            "issueCount": memory.len(),
            "issuesPath": issues_shown,
        });
        println!("{}", to_pretty_sorted(&v));
    } else {
        println!(
            "premath issue migrate-events\n  Issues: {issues_shown}\n  Events: {shown}\n  Issue count: {}\n  Event count: {}\n  Equivalent replay: true",
            memory.len(),
            log.len()
        );
    }
    Ok(Exit::Accepted)
}

/// premath's default: `replay-cache.json` beside the issues file (in the
/// working directory when the path has no parent); a database store keeps it
/// in `.premath/`.
fn cache_path(store: &IssueStore, cache: Option<&Path>) -> PathBuf {
    if let Some(c) = cache {
        return c.to_path_buf();
    }
    match store {
        IssueStore::Jsonl(path) => match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.join("replay-cache.json"),
            _ => PathBuf::from("replay-cache.json"),
        },
        IssueStore::Postgres(_) => PathBuf::from(".premath/replay-cache.json"),
        IssueStore::Staged(overlay) => cache_path(overlay.base(), None),
    }
}

/// Whether two paths name one file: premath's path equivalence, or, for a file
/// that does not exist yet, the same name in the same canonical directory.
fn same_file(a: &Path, b: &Path) -> bool {
    let in_canonical_dir = |p: &Path| {
        let abs = std::env::current_dir().unwrap_or_default().join(p);
        let dir = abs.parent().and_then(|d| std::fs::canonicalize(d).ok());
        dir.zip(abs.file_name().map(|n| n.to_owned()))
    };
    crate::issues::backend::paths_equivalent(a, b)
        || in_canonical_dir(a).is_some_and(|x| Some(x) == in_canonical_dir(b))
}

fn read_cache(path: &Path) -> Option<CacheEntry> {
    let text = crate::files::read_to_string(path, crate::files::CONFIG_MAX).ok()?;
    let entry: CacheEntry = serde_json::from_str(&text).ok()?;
    (entry.schema == CACHE_SCHEMA).then_some(entry)
}

/// What the replay did to the store.
struct Outcome {
    cache_hit: bool,
    issue_count: usize,
    snapshot_ref: String,
    equivalent: Option<bool>,
}

/// `issue replay-events`: rebuilds the store from the log unless the cache
/// shows the store is already the log's replay. The comparison and the write
/// are one critical section under the store lock.
pub fn replay(
    store: &IssueStore,
    events_path: &Path,
    cache: Option<&Path>,
    json_output: bool,
    lock: LockOptions,
) -> Result<Exit, CliError> {
    let shown = events_path.display().to_string();
    if !events_path.exists() {
        return fail(format!("events file not found: {shown}"));
    }
    let cache_path = cache_path(store, cache);
    if let Err(e) = distinct_roles(store, events_path, &cache_path) {
        return fail(e);
    }
    let log = match read_events(events_path) {
        Ok(log) => log,
        Err(e) => return fail(e),
    };
    let run = Replay {
        stream_ref: events::stream_ref(&log),
        issues_shown: store.path().display().to_string(),
        shown,
        cache_path,
        log,
    };
    let entry = read_cache(&run.cache_path);
    let existed = match store.unstaged() {
        IssueStore::Jsonl(path) => path.exists(),
        _ => true,
    };
    let outcome = match run.apply(store, lock, existed, entry.as_ref()) {
        Ok(outcome) => outcome,
        Err(e) => return fail(e),
    };
    if !outcome.cache_hit {
        let bytes = serde_json::to_vec_pretty(&run.cache_entry(&outcome))
            .expect("the cache entry serializes");
        if let Err(e) = write_atomic(&run.cache_path, &bytes) {
            return fail(format!(
                "failed to write replay cache {}: {e}",
                run.cache_path.display()
            ));
        }
    }
    run.print(&outcome, json_output);
    Ok(Exit::Accepted)
}

/// Each file is written or read as one role only: a replay must not write
/// the store over its own log, nor the cache over either.
fn distinct_roles(store: &IssueStore, events_path: &Path, cache_path: &Path) -> Result<(), String> {
    let mut roles = vec![("the event log", events_path), ("the cache", cache_path)];
    if let IssueStore::Jsonl(issues) = store {
        roles.push(("the issues file", issues.as_path()));
    }
    for (i, (a, pa)) in roles.iter().enumerate() {
        for (b, pb) in &roles[i + 1..] {
            if same_file(pa, pb) {
                return Err(format!("{a} and {b} are one file: {}", pa.display()));
            }
        }
    }
    Ok(())
}

/// One `replay-events`: the log it replays and the names it reports.
struct Replay {
    /// The event log's path as shown.
    shown: String,
    issues_shown: String,
    cache_path: PathBuf,
    log: Vec<events::Event>,
    stream_ref: String,
}

impl Replay {
    /// Decides and writes under the store lock.
    fn apply(
        &self,
        store: &IssueStore,
        lock: LockOptions,
        existed: bool,
        entry: Option<&CacheEntry>,
    ) -> Result<Outcome, String> {
        // Replayed once, however often the store retries the decision.
        let mut replayed: Option<Memory> = None;
        let decided = store.mutate(lock, |s| {
            match self.decide(s, existed, entry, &mut replayed) {
                Ok((outcome, edit)) => (Ok(outcome), edit),
                Err(e) => (Err(e), None),
            }
        });
        match decided {
            Ok(result) => result,
            Err(e) => Err(format!("failed to save {}: {e}", self.issues_shown)),
        }
    }

    /// The cache's verdict when it names this log, this store and the store's
    /// current snapshot; otherwise the log's replay and, unless the store
    /// already holds it, the edit that writes it.
    fn decide(
        &self,
        s: &Store<'_>,
        existed: bool,
        entry: Option<&CacheEntry>,
        replayed: &mut Option<Memory>,
    ) -> Result<(Outcome, Option<Edit>), String> {
        let existing = existed.then(|| events::memory_of(s));
        if let (Some(existing), Some(entry)) = (&existing, entry) {
            let existing_ref = events::snapshot_ref(existing);
            if entry.events_path == self.shown
                && entry.issues_path == self.issues_shown
                && entry.event_stream_ref == self.stream_ref
                && entry.snapshot_ref == existing_ref
            {
                let hit = Outcome {
                    cache_hit: true,
                    issue_count: existing.len(),
                    snapshot_ref: existing_ref,
                    equivalent: Some(true),
                };
                return Ok((hit, None));
            }
        }
        if replayed.is_none() {
            *replayed = Some(
                events::replay(&self.log)
                    .map_err(|e| format!("failed to replay {}: {e}", self.shown))?,
            );
        }
        let new = replayed.as_ref().expect("replayed above");
        let equivalent = existing.as_ref().map(|e| events::equivalent(e, new));
        let edit = (equivalent != Some(true)).then(|| Edit::ReplaceAll {
            text: events::store_text(new),
        });
        let outcome = Outcome {
            cache_hit: false,
            issue_count: new.len(),
            snapshot_ref: events::snapshot_ref(new),
            equivalent,
        };
        Ok((outcome, edit))
    }

    fn cache_entry(&self, outcome: &Outcome) -> CacheEntry {
        CacheEntry {
            schema: CACHE_SCHEMA.into(),
            events_path: self.shown.clone(),
            issues_path: self.issues_shown.clone(),
            event_stream_ref: self.stream_ref.clone(),
            snapshot_ref: outcome.snapshot_ref.clone(),
            event_count: self.log.len(),
            issue_count: outcome.issue_count,
        }
    }

    fn print(&self, outcome: &Outcome, json_output: bool) {
        let (shown, issues_shown, stream_ref) = (&self.shown, &self.issues_shown, &self.stream_ref);
        if json_output {
            let v = json!({
                "action": "issue.replay-events",
                "cacheHit": outcome.cache_hit,
                "cachePath": self.cache_path.display().to_string(),
                "equivalentToExisting": outcome.equivalent,
                "eventCount": self.log.len(),
                "eventStreamRef": stream_ref,
                "eventsPath": shown,
                "issueCount": outcome.issue_count,
                "issuesPath": issues_shown,
                "snapshotRef": outcome.snapshot_ref,
            });
            println!("{}", to_pretty_sorted(&v));
        } else {
            let equivalent = outcome
                .equivalent
                .map_or_else(|| "n/a".to_string(), |e| e.to_string());
            println!(
                "premath issue replay-events\n  Events: {shown}\n  Issues: {issues_shown}\n  Cache: {}\n  Cache hit: {}\n  Event count: {}\n  Issue count: {}\n  Event stream ref: {stream_ref}\n  Snapshot ref: {}\n  Equivalent to existing: {equivalent}",
                self.cache_path.display(),
                outcome.cache_hit,
                self.log.len(),
                outcome.issue_count,
                outcome.snapshot_ref,
            );
        }
    }
}
