//! A change and its record are one (issue 61) on the file store: no change
//! to the store without its call's rows, whatever is killed when.
//!
//! The store is rewritten by a temp file renamed into place
//! ([`super::commit`]); the call's rows are appended to the effect log and
//! the trajectory after, by the run's host side. A process killed between
//! the two left a change the log never mentioned. Now, before the rename,
//! the write records every call whose edit it carries in a **journal**:
//! `<store>.pending/<temp file>.json`, synced, and locked (`flock`) by the
//! writing process. Each call's journal entry carries the rows recovery
//! would write for it (the effect row, marked `recovered`, the trajectory
//! row, and the footer that closes its run), built by the run before the
//! call was made. Once every call of a write has its rows, the journal is
//! removed.
//!
//! Whoever next takes the store's lock ([`reconcile`]: any mutation, any
//! read that finds a journal, `tusk doctor`) settles the journals whose
//! writer is gone (their lock is free):
//!
//! - the temp file is still there: the rename never happened, nothing
//!   changed — the journal is dropped;
//! - it is gone: the change is in the store — each call whose effect row is
//!   missing gets the recovered row, its trajectory row, and a footer that
//!   closes its run (`recovered: true`), so `tusk replay` reads the run as
//!   what it is.
//!
//! The lock file is held from before the journal is written until after the
//! rename, so a journal found under the lock with a free journal lock is
//! exactly one of the two. A run whose own rows could not be written
//! (`record.unwritable`) keeps its journal locked until its process ends;
//! recovery then adds nothing to a run that has its footer and says so.
//!
//! This module knows the rows only as lines of JSON: it reads `runId`,
//! `seq`, `kind` and `stepId`, and seals a footer with [`crate::chain`].

use crate::logs::writers;
use fs4::FileExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The journal file's `kind`.
pub const KIND: &str = "tusk.pending_calls.v0";
/// A journal file's name starts so (writer markers share the directory).
const PREFIX: &str = "calls-";

/// One call whose edit a write carries, as recovery would record it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    pub run_id: String,
    pub seq: usize,
    pub effects: PathBuf,
    pub trajectory: PathBuf,
    /// The call's effect row (one line, no newline), marked `recovered`.
    pub effect_row: String,
    /// The trajectory row's `stepId`, and the row (one line).
    pub step_id: String,
    pub trajectory_row: String,
    /// The kind of the run's footer: a run that has one ended in a live
    /// process.
    pub end_kind: String,
}

/// A call in flight: what the run's host side hands the store, and gets
/// back a part of a journal to settle once its rows are written.
pub struct Call {
    pending: PendingCall,
    /// The store's journal directory: where a file beside the store that
    /// the call replaces (the harness's session, its feature ledger) is
    /// journaled too ([`before_replace`]).
    journals: PathBuf,
    /// The writes that carried this call's edits (one, unless the action
    /// wrote the store more than once).
    tickets: Mutex<Vec<Arc<Batch>>>,
}

impl Call {
    pub fn new(pending: PendingCall, journals: PathBuf) -> Arc<Call> {
        Arc::new(Call {
            pending,
            journals,
            tickets: Mutex::new(Vec::new()),
        })
    }

    /// The call's rows are written (`true`) or could not be: its part of
    /// the journal is done. A call whose edit was never written has none.
    pub fn settle(&self, written: bool) {
        let batches = std::mem::take(&mut *self.tickets.lock().unwrap_or_else(|e| e.into_inner()));
        for batch in batches {
            batch.done(written);
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        // Dropped unsettled (the run ended in an error): its rows are not
        // known to be written, so recovery looks once the process is gone.
        let batches = std::mem::take(self.tickets.get_mut().unwrap_or_else(|e| e.into_inner()));
        for batch in batches {
            batch.done(false);
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Call>>> = const { RefCell::new(None) };
}

/// Runs `f` with `call` as the call whose edits the store's writes carry
/// (the thread's: a run's calls, and the store's mutation, run on it).
pub fn during<T>(call: &Arc<Call>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<Call>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let before = CURRENT.with(|c| c.borrow_mut().replace(call.clone()));
    let _restore = Restore(before);
    f()
}

/// The call the current thread's mutation belongs to, if any.
pub(super) fn current() -> Option<Arc<Call>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// One write's journal, held (and locked) until each of its calls settled.
pub(super) struct Batch {
    path: PathBuf,
    file: Mutex<Option<File>>,
    remaining: AtomicUsize,
    abandoned: AtomicBool,
}

/// Journals whose calls did not all get their rows: kept open (so locked)
/// until the process ends, then settled by whoever comes next.
static ABANDONED: Mutex<Vec<File>> = Mutex::new(Vec::new());

impl Batch {
    fn done(&self, written: bool) {
        if !written {
            self.abandoned.store(true, Ordering::SeqCst);
        }
        if self.remaining.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        self.close(self.abandoned.load(Ordering::SeqCst));
    }

    /// Lets the journal go: removed, or (`keep`: a change may lack its
    /// rows) kept locked until the process ends, for recovery after.
    fn close(&self, keep: bool) {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (keep, file) {
            (true, Some(file)) => ABANDONED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(file),
            (true, None) => {}
            (false, _) => {
                let _ = fs::remove_file(&self.path);
            }
        }
    }
}

/// The journal directory of the store at `path`.
pub fn dir_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".pending");
    path.with_file_name(name)
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Journal {
    kind: String,
    /// The temp file whose rename is the change.
    temp: String,
    calls: Vec<PendingCall>,
}

/// Writes and syncs the journal of a write about to rename `temp` into
/// place, locked by this process. Called under the store's lock.
pub(super) fn write(path: &Path, temp: &Path, calls: &[Arc<Call>]) -> std::io::Result<Arc<Batch>> {
    write_in(&dir_of(path), temp, calls)
}

/// A file beside the store being replaced by the current call (the
/// harness's session file, its feature ledger): journaled like a store
/// write, so that a process killed between the rename and the call's rows
/// leaves the rows to recovery (issue 61).
pub struct FileGuard {
    batch: Arc<Batch>,
    call: Arc<Call>,
}

impl FileGuard {
    /// The rename was made: the call settles the journal once its rows are
    /// written.
    pub fn replaced(self) {
        hand_out(&self.batch, std::slice::from_ref(&self.call));
    }

    /// The write failed (`renamed`: after its rename).
    pub fn failed(self, renamed: bool) {
        failed(self.batch, renamed);
    }
}

/// The journal of the current call's replacing a file by renaming `temp`
/// (in the store's directory) onto it: `None` when no call with recovery
/// is running on this thread, or when `temp` is elsewhere (recovery judges
/// only files beside the store).
///
/// # Errors
///
/// The journal could not be written (then nothing must be renamed).
pub fn before_replace(temp: &Path) -> std::io::Result<Option<FileGuard>> {
    let Some(call) = current() else {
        return Ok(None);
    };
    let store_dir = call.journals.parent().map(Path::to_path_buf);
    let temp_dir = temp
        .parent()
        .and_then(|d| std::path::absolute(d).ok())
        .and_then(|d| fs::canonicalize(&d).ok().or(Some(d)));
    let store_dir = store_dir.and_then(|d| fs::canonicalize(&d).ok().or(Some(d)));
    if store_dir.is_none() || temp_dir != store_dir {
        return Ok(None);
    }
    let batch = write_in(&call.journals, temp, std::slice::from_ref(&call))?;
    Ok(Some(FileGuard { batch, call }))
}

/// [`write`] into the journal directory `dir`. The journal is written under
/// a name recovery ignores, locked, synced, then renamed into place (the
/// lock goes with it): a reconciler never sees it unlocked and incomplete.
fn write_in(dir: &Path, temp: &Path, calls: &[Arc<Call>]) -> std::io::Result<Arc<Batch>> {
    let dir = dir.to_path_buf();
    fs::create_dir_all(&dir)?;
    let temp_name = temp
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let journal_path = dir.join(format!("{PREFIX}{temp_name}.json"));
    let part = dir.join(format!("{PREFIX}{temp_name}.json.part"));
    let journal = Journal {
        kind: KIND.to_string(),
        temp: temp_name,
        calls: calls.iter().map(|c| c.pending.clone()).collect(),
    };
    let mut file = crate::files::open(fs::OpenOptions::new().create_new(true).write(true), &part)?;
    FileExt::lock(&file)?;
    let mut text = serde_json::to_vec(&journal).map_err(std::io::Error::other)?;
    text.push(b'\n');
    let written = file
        .write_all(&text)
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::rename(&part, &journal_path));
    if let Err(e) = written {
        let _ = fs::remove_file(&part);
        return Err(e);
    }
    File::open(&dir)?.sync_all()?;
    Ok(Arc::new(Batch {
        path: journal_path,
        file: Mutex::new(Some(file)),
        remaining: AtomicUsize::new(calls.len()),
        abandoned: AtomicBool::new(false),
    }))
}

/// The store changed: each call of the write settles its part once its rows
/// are written.
pub(super) fn hand_out(batch: &Arc<Batch>, calls: &[Arc<Call>]) {
    for call in calls {
        call.tickets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(batch.clone());
    }
}

/// The write failed: when the store did not change, its journal goes;
/// when it did (the rename was made, a later sync failed), recovery
/// settles it once this process is gone.
pub(super) fn failed(batch: Arc<Batch>, renamed: bool) {
    batch.close(renamed);
}

/// What settling the journals of a store did.
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Settled {
    /// Writes whose change was in the store (their calls' rows checked).
    pub applied: usize,
    /// Writes whose change never reached the store (journal dropped).
    pub not_applied: usize,
    /// Calls given their recovered rows (the change was there, its row not).
    pub recovered: Vec<String>,
    /// Journals still held by a live writer.
    pub in_flight: usize,
    /// Runs whose process died, closed with a recovered footer.
    pub closed: Vec<String>,
    /// What could not be settled, and why (the journal is kept).
    pub problems: Vec<String>,
}

/// Whether the store at `path` has a journal or writer marker whose
/// process is gone (its lock free): what makes taking the store's lock to
/// settle worth it. A busy server's own journals and marker are held, so a
/// command beside it does not wait for its lock.
pub fn needs_settling(path: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return false;
    };
    entries.flatten().any(|entry| {
        crate::files::open(fs::OpenOptions::new().read(true), &entry.path())
            .is_ok_and(|file| FileExt::try_lock(&file).is_ok())
    })
}

/// Drops a journal its writer died writing (its lock free): it was never
/// renamed into place, so nothing it would name was changed.
fn drop_dead_part(journal_path: &Path, settled: &mut Settled) {
    let free = crate::files::open(fs::OpenOptions::new().read(true), journal_path)
        .is_ok_and(|file| FileExt::try_lock(&file).is_ok());
    if free {
        settled.not_applied += 1;
        let _ = fs::remove_file(journal_path);
    }
}

/// A journal whose change reached the store: each of its calls gets its
/// recovered rows unless it has its own; the journal goes unless one could
/// not be written.
fn settle_applied(journal: &Journal, journal_path: &Path, settled: &mut Settled) {
    settled.applied += 1;
    let mut kept = false;
    for (call, recovered) in journal.calls.iter().zip(recover(&journal.calls)) {
        match recovered {
            Ok(true) => settled
                .recovered
                .push(format!("{} call {}", call.run_id, call.seq)),
            Ok(false) => {}
            Err(e) => {
                kept = true;
                settled.problems.push(format!(
                    "{} call {}: {e} (journal {} kept)",
                    call.run_id,
                    call.seq,
                    journal_path.display()
                ));
            }
        }
    }
    if !kept {
        let _ = fs::remove_file(journal_path);
    }
}

/// Settles every journal of the store at `path` whose writer is gone.
/// Called with the store's lock held, before stale temp files are removed
/// (a temp file still there is the proof that nothing changed).
pub fn reconcile(path: &Path) -> Settled {
    let mut settled = Settled::default();
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return settled;
    };
    let store_dir = super::store::parent_dir(path);
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for journal_path in names {
        let name = journal_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        if name.starts_with(PREFIX) && name.ends_with(".json.part") {
            drop_dead_part(&journal_path, &mut settled);
            continue;
        }
        if !name.starts_with(PREFIX) || !name.ends_with(".json") {
            continue;
        }
        let Ok(file) = crate::files::open(fs::OpenOptions::new().read(true), &journal_path) else {
            continue;
        };
        match FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                settled.in_flight += 1;
                continue;
            }
            Err(fs4::TryLockError::Error(e)) => {
                settled
                    .problems
                    .push(format!("{}: {e}", journal_path.display()));
                continue;
            }
        }
        let text = crate::files::read_to_string(&journal_path, crate::files::INPUT_MAX);
        // A journal cut short was being written when its writer died: the
        // rename comes after the journal is synced, so nothing changed.
        let journal = text
            .ok()
            .and_then(|t| serde_json::from_str::<Journal>(&t).ok())
            .filter(|j| j.kind == KIND);
        let Some(journal) = journal else {
            settled.not_applied += 1;
            let _ = fs::remove_file(&journal_path);
            continue;
        };
        // A journal is input (a cloned `.premath/` may carry one): it may
        // name only a temp file and logs beside the store, never a file
        // elsewhere for recovery to write to.
        if let Some(why) = outside(&store_dir, &journal) {
            settled.problems.push(format!(
                "{}: {why}; dropped, nothing written",
                journal_path.display()
            ));
            let _ = fs::remove_file(&journal_path);
            continue;
        }
        if store_dir.join(&journal.temp).exists() {
            settled.not_applied += 1;
            // A replaced file's temp (the harness's) is this dead writer's
            // alone; the store's own temps go with the stale ones after.
            if journal.temp.starts_with(crate::files::REPLACE_TEMP_PREFIX) {
                let _ = fs::remove_file(store_dir.join(&journal.temp));
            }
            let _ = fs::remove_file(&journal_path);
            continue;
        }
        settle_applied(&journal, &journal_path, &mut settled);
        drop(file);
    }
    // Then the runs whose process died, each after its call's row.
    match writers::close_dead(&dir_of(path)) {
        Ok(closed) => settled.closed = closed,
        Err(e) => settled.problems.push(e),
    }
    settled
}

/// Writes what the logs lack of each call of a write whose change is in
/// the store: per call, `Ok(true)` when it wrote the recovered effect row.
/// Each log is read once. The runs themselves are closed by
/// [`crate::logs::writers::close_dead`], after.
fn recover(calls: &[PendingCall]) -> Vec<Result<bool, String>> {
    let shown = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    // Each log is read once, for every call of the write that names it.
    let mut groups: std::collections::BTreeMap<(&Path, &Path), Vec<usize>> = Default::default();
    for (i, call) in calls.iter().enumerate() {
        groups
            .entry((call.effects.as_path(), call.trajectory.as_path()))
            .or_default()
            .push(i);
    }
    let mut out: Vec<Result<bool, String>> = calls.iter().map(|_| Ok(false)).collect();
    for ((effects, trajectory), members) in groups {
        let first = &calls[members[0]];
        let row_kind = serde_json::from_str::<Value>(&first.effect_row)
            .ok()
            .and_then(|r| r.get("kind").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default();
        let wanted: Vec<(&str, usize)> = members
            .iter()
            .map(|&i| (calls[i].run_id.as_str(), calls[i].seq))
            .collect();
        let steps: Vec<&str> = members.iter().map(|&i| calls[i].step_id.as_str()).collect();
        let read = writers::runs_rows(effects, &wanted, &row_kind, &first.end_kind)
            .map_err(|e| shown(effects, e))
            .and_then(|rows| {
                Ok((
                    rows,
                    trajectory_has(trajectory, &steps).map_err(|e| shown(trajectory, e))?,
                ))
            });
        for (k, &i) in members.iter().enumerate() {
            out[i] = match &read {
                Ok((rows, found)) => recover_one(&calls[i], &rows[k], found),
                Err(e) => Err(e.clone()),
            };
        }
    }
    out
}

/// What the logs lack of one call, written: `Ok(true)` for its effect row.
fn recover_one(
    call: &PendingCall,
    rows: &writers::RunRows,
    steps: &std::collections::HashSet<String>,
) -> Result<bool, String> {
    if !steps.contains(&call.step_id) {
        writers::append(&call.trajectory, &call.trajectory_row, true)
            .map_err(|e| format!("{}: {e}", call.trajectory.display()))?;
    }
    match (rows.has_call, rows.has_footer) {
        (true, _) => Ok(false),
        (false, true) => Err("the run ended without this call's row (its process reported record.unwritable); nothing can be added after its footer".into()),
        (false, false) => {
            writers::append(&call.effects, &call.effect_row, false)
                .map_err(|e| format!("{}: {e}", call.effects.display()))?;
            Ok(true)
        }
    }
}

/// Why `journal` names a file recovery may not touch: a temp file that is
/// not a plain name, or a log outside the store's directory.
fn outside(store_dir: &Path, journal: &Journal) -> Option<String> {
    if journal.temp.is_empty() || journal.temp.contains('/') || journal.temp.starts_with("..") {
        return Some(format!(
            "its temp file {:?} is not a file name",
            journal.temp
        ));
    }
    let dir = std::path::absolute(store_dir).ok()?;
    journal
        .calls
        .iter()
        .flat_map(|c| [&c.effects, &c.trajectory])
        .find(|log| log.parent() != Some(dir.as_path()))
        .map(|log| {
            format!(
                "it names {}, outside the store's directory {}",
                log.display(),
                dir.display()
            )
        })
}

/// Which of `step_ids` the trajectory at `path` has a row for.
fn trajectory_has(
    path: &Path,
    step_ids: &[&str],
) -> std::io::Result<std::collections::HashSet<String>> {
    let mut found = std::collections::HashSet::new();
    let mut needles = step_ids.iter().map(|s| s.to_string()).collect();
    writers::for_rows(path, &mut needles, |_, _, row| {
        if let Some(id) = row.get("stepId").and_then(Value::as_str) {
            found.insert(id.to_string());
        }
    })?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("issues.jsonl");
        fs::write(&path, "").unwrap();
        (dir, path)
    }

    #[test]
    fn a_journal_cut_short_changed_nothing_and_goes() {
        let (_dir, path) = store();
        let dir = dir_of(&path);
        fs::create_dir_all(&dir).unwrap();
        let torn = dir.join(format!("{PREFIX}.issues.jsonl.tusk-x.tmp.json"));
        fs::write(&torn, "{\"kind\":\"tusk.pending_calls.v0\",\"temp\":").unwrap();
        let settled = reconcile(&path);
        assert_eq!(settled.not_applied, 1, "{settled:?}");
        assert!(!torn.exists());
    }

    #[test]
    fn a_journal_its_writer_still_holds_is_left_alone() {
        let (_dir, path) = store();
        let temp = path.with_file_name(".issues.jsonl.tusk-live.tmp");
        let batch = write(&path, &temp, &[]).unwrap();
        let settled = reconcile(&path);
        assert_eq!(settled.in_flight, 1, "{settled:?}");
        assert!(batch.path.exists());
        // Its writer gone (the lock let go, the temp file renamed away):
        // applied, and with no call nothing to write.
        drop(batch);
        let settled = reconcile(&path);
        assert_eq!((settled.applied, settled.in_flight), (1, 0), "{settled:?}");
        assert!(!needs_settling(&path));
    }
}
