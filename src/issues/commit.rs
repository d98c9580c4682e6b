//! Group commit on the file store: the Safety section's critical section
//! (lock, re-read, apply, temp file, fsync, rename, fsync the directory,
//! unlock), shared by the mutations one process makes at the same time.
//!
//! A long-lived host (`tusk mcp --http`, `tusk serve`) runs many agents'
//! mutations at once. Each used to rewrite and sync the whole file while the
//! others waited for the lock; now they are applied one after another to one
//! parsed store kept in memory, and written together: one atomic rewrite and
//! one sync for every mutation that arrived while the last write was under
//! way. The rules that do not change:
//!
//! - **Durable before answered.** A caller gets its result only once the
//!   file holding its edit (and every edit its decision saw) is synced and
//!   renamed into place; so its rows and envelope still come after the write
//!   (host-api's "rows before envelopes" is the caller's, as before).
//! - **All or nothing per write.** A write that fails fails every caller whose
//!   edit it carried, and every caller that decided on the store with those
//!   edits in it; the in-memory store is dropped and the next mutation reads
//!   the file again. A crash loses only callers not yet answered, and the
//!   file is always the old text or the new (temp file, fsync, rename).
//! - **One writer across processes.** The store's lock file is held from the
//!   moment the file is read until the edits applied in memory are on disk,
//!   so another process (`tusk issue claim`, a second server) never writes
//!   between them. When mutations keep coming, the lock is given up for a
//!   moment every [`HOLD_AT_MOST`], so that others waiting on it get their turn.
//! - **Never stale.** The parsed store is kept between writes, and used
//!   again only when the file, read when the lock is next taken, holds byte
//!   for byte what the kept store stands for (a file's size, inode or clock
//!   is never trusted: another tool's in-place edit can keep all three).
//!   Otherwise the bytes just read are parsed.

use super::journal::{self, Call};
use super::store::{
    acquire_lock, parent_dir, read_text, remove_stale_temps, replace_atomically_with, splice, Edit,
    LockGuard, ParsedStore, Store, StoreError,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long the lock file is held while mutations keep coming before it is
/// given up for [`YIELD_FOR`] (another process polls for it every 16 ms at most).
const HOLD_AT_MOST: Duration = Duration::from_millis(500);
const YIELD_FOR: Duration = Duration::from_millis(20);
/// In-memory edits kept before the store is parsed again from what was
/// written (each edited line is kept twice until then: JSON and decoded).
const COMPACT_AFTER: usize = 512;
/// Stores whose groups (and parsed text) are kept when nobody uses them.
const KEPT_GROUPS: usize = 4;

/// The mutations of one process on one store file.
struct Group {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// The store as the file holds it plus the edits applied since
    /// `durable`; `None` when it must be read again.
    store: Option<ParsedStore>,
    lock: Option<Held>,
    /// Someone is taking the lock file (without holding `state`).
    acquiring: bool,
    /// Someone is writing (without holding `state`).
    writing: bool,
    /// The lock is to be given up for a moment once the edits applied are
    /// written: new mutations wait.
    yielding: bool,
    /// The lock was given up for others until then.
    resume_at: Option<Instant>,
    /// Edits applied in memory so far, and how many of them are on disk.
    applied: u64,
    durable: u64,
    /// Writes that failed: every mutation numbered in `(from, to]` fails with
    /// the error (a few kept; a waiter looks as soon as it is woken).
    failed: Vec<(u64, u64, Arc<StoreError>)>,
    /// The calls whose edits are applied and not yet written, by edit
    /// number: the next write's journal names them ([`journal`]).
    calls: Vec<(u64, Arc<Call>)>,
    /// What settling the store's journals did when the lock was last taken.
    settled: Option<journal::Settled>,
}

struct Held {
    _guard: LockGuard,
    since: Instant,
}

/// The store as the file holds it now: `kept` when the file's bytes are the
/// ones it stands for, else the file parsed.
fn read_store(path: &Path, kept: Option<ParsedStore>) -> Result<ParsedStore, StoreError> {
    let text = read_text(path)?;
    match kept.and_then(|kept| still(kept, text.as_bytes())) {
        Some(kept) => Ok(kept),
        None => ParsedStore::try_new(text, |t| Store::parse(path, t)),
    }
}

/// The kept store when `text` (the file, read just now) is what it stands for.
fn still(store: ParsedStore, text: &[u8]) -> Option<ParsedStore> {
    let same = store.with_dependent(|_, s| {
        let mut rest = text;
        for piece in s.pieces() {
            match rest.strip_prefix(piece) {
                Some(after) => rest = after,
                None => return false,
            }
        }
        rest.is_empty()
    });
    same.then_some(store)
}

static GROUPS: Mutex<Vec<(PathBuf, Arc<Group>)>> = Mutex::new(Vec::new());

fn group_for(path: &Path) -> Arc<Group> {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, group)) = groups.iter().find(|(at, _)| at == path) {
        return group.clone();
    }
    if groups.len() >= KEPT_GROUPS {
        // Only groups nobody is using go (and their parsed stores with them).
        groups.retain(|(_, group)| Arc::strong_count(group) > 1);
    }
    let group = Arc::new(Group {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
    });
    groups.push((path.to_path_buf(), group.clone()));
    group
}

/// Runs one mutation: `apply` sees the store with every mutation applied
/// before it (in this process or, through the file, any other) and returns
/// its result and the edit to make. Returns once the edit is on disk.
///
/// # Errors
/// The lock was busy past `timeout`, the store is corrupt or unreadable,
/// the edit is not a valid line, or the write failed.
pub(crate) fn mutate<T>(
    path: &Path,
    timeout: Duration,
    apply: impl FnOnce(&Store<'_>) -> (T, Option<Edit>),
) -> Result<T, StoreError> {
    let group = group_for(path);
    let started = Instant::now();
    let mut state = group.lock();
    state = group.hold_lock_file(state, path, started, timeout)?;
    // The whole wait: for this process's other mutations and for the lock file.
    crate::telemetry::record::lock_waited(started.elapsed());
    let store = state.store.as_mut().expect("read under the lock");
    let (out, edit) = store.with_dependent(|_, store| apply(store));
    if let Some(edit) = edit {
        let rows = edit.rows();
        if let Err(e) = apply_edit(&mut state, path, edit) {
            group.let_go_if_idle(&mut state);
            return Err(e);
        }
        state.applied += 1;
        if let Some(call) = journal::current() {
            let n = state.applied;
            state.calls.push((n, call));
        }
        crate::telemetry::record::rows_touched(rows);
    }
    let mine = state.applied;
    group.await_durable(state, path, mine)?;
    Ok(out)
}

/// Takes the store's lock to settle what a dead process left
/// ([`journal::reconcile`]), and says what that did (nothing when this
/// process holds the lock already: it left nothing unsettled).
///
/// # Errors
/// The lock was busy past `timeout`, or the store could not be read.
pub(crate) fn settle(path: &Path, timeout: Duration) -> Result<journal::Settled, StoreError> {
    let group = group_for(path);
    let mut state = group.lock();
    state = group.hold_lock_file(state, path, Instant::now(), timeout)?;
    let settled = state.settled.take().unwrap_or_default();
    group.let_go_if_idle(&mut state);
    Ok(settled)
}

fn apply_edit(state: &mut State, path: &Path, edit: Edit) -> Result<(), StoreError> {
    let store = state.store.as_mut().expect("read under the lock");
    if store.with_dependent_mut(|_, s| s.edit_in_place(path, &edit))? {
        return Ok(());
    }
    // A whole new text, or a line that changes its id: parse the new text.
    let text = match edit {
        Edit::ReplaceAll { text } => text,
        edit => {
            let now = store.with_dependent(|_, s| s.pieces().concat());
            let now = String::from_utf8(now).expect("pieces of UTF-8 text");
            let parsed = Store::parse(path, &now)?;
            let next = splice(&parsed, &edit).concat();
            String::from_utf8(next).expect("pieces of UTF-8 text")
        }
    };
    *store = ParsedStore::try_new(text, |t| Store::parse(path, t))?;
    Ok(())
}

impl Group {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(
        &self,
        state: MutexGuard<'g, State>,
        deadline: Option<Instant>,
    ) -> MutexGuard<'g, State> {
        match deadline {
            None => self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                self.changed
                    .wait_timeout(state, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        }
    }

    /// Returns with the lock file held and the store read (the state locked).
    fn hold_lock_file<'g>(
        &'g self,
        mut state: MutexGuard<'g, State>,
        path: &Path,
        started: Instant,
        timeout: Duration,
    ) -> Result<MutexGuard<'g, State>, StoreError> {
        let deadline = started + timeout;
        let mut taken_now = false;
        loop {
            if state.lock.is_some() && !state.yielding {
                break;
            }
            let busy = || StoreError::LockBusy {
                path: path.display().to_string(),
                waited_ms: started.elapsed().as_millis(),
            };
            let now = Instant::now();
            let paused = state.resume_at.filter(|at| *at > now);
            if state.acquiring || state.yielding || state.lock.is_some() || paused.is_some() {
                if now >= deadline {
                    return Err(busy());
                }
                state = self.wait(state, Some(paused.map_or(deadline, |at| at.min(deadline))));
                continue;
            }
            state.resume_at = None;
            state.acquiring = true;
            drop(state);
            let left = deadline.saturating_duration_since(Instant::now());
            let taken = acquire_lock(path, left);
            state = self.lock();
            state.acquiring = false;
            self.changed.notify_all();
            let guard = taken?;
            // Journals first: a temp file still there proves a write never
            // happened.
            let settled = journal::reconcile(path);
            if !settled.recovered.is_empty() || !settled.problems.is_empty() {
                eprintln!("tusk: {}", settled_text(path, &settled));
            }
            state.settled = Some(settled);
            remove_stale_temps(path, &parent_dir(path));
            state.lock = Some(Held {
                _guard: guard,
                since: Instant::now(),
            });
            taken_now = true;
        }
        if taken_now || state.store.is_none() {
            // The kept store is checked against the file whenever the lock
            // was just taken; it is gone after a failed write.
            let kept = state.store.take().filter(|_| taken_now);
            match read_store(path, kept) {
                Ok(store) => state.store = Some(store),
                Err(e) => {
                    self.let_go_if_idle(&mut state);
                    return Err(e);
                }
            }
        }
        Ok(state)
    }

    /// Waits until mutation `mine` (and all before it) is on disk, writing
    /// it when nobody else is.
    fn await_durable<'g>(
        &'g self,
        mut state: MutexGuard<'g, State>,
        path: &Path,
        mine: u64,
    ) -> Result<(), StoreError> {
        loop {
            if let Some((_, _, error)) = state
                .failed
                .iter()
                .find(|(from, to, _)| *from < mine && mine <= *to)
            {
                let error = copy_of(error);
                self.let_go_if_idle(&mut state);
                return Err(error);
            }
            if state.durable >= mine {
                self.let_go_if_idle(&mut state);
                return Ok(());
            }
            if state.writing {
                state = self.wait(state, None);
                continue;
            }
            state = self.write(state, path);
        }
    }

    /// Writes every edit applied so far as one atomic replace.
    fn write<'g>(&'g self, mut state: MutexGuard<'g, State>, path: &Path) -> MutexGuard<'g, State> {
        let through = state.applied;
        let bytes = state
            .store
            .as_ref()
            .expect("edits are applied to a store")
            .with_dependent(|_, s| s.pieces().concat());
        state.writing = true;
        let (calls, later): (Vec<_>, Vec<_>) = std::mem::take(&mut state.calls)
            .into_iter()
            .partition(|(n, _)| *n <= through);
        state.calls = later;
        let calls: Vec<Arc<Call>> = calls.into_iter().map(|(_, c)| c).collect();
        drop(state);
        let mut batch = None;
        let mut renamed = false;
        let mut journal = |temp: &Path| {
            if !calls.is_empty() {
                let written = journal::write(path, temp, &calls);
                batch = Some(written.map_err(|e| StoreError::io(&journal::dir_of(path), e))?);
            }
            Ok(())
        };
        #[cfg(test)]
        let written = tests::before_write(path).and_then(|()| {
            replace_atomically_with(
                path,
                &parent_dir(path),
                &[&bytes],
                &mut journal,
                &mut renamed,
            )
        });
        #[cfg(not(test))]
        let written = replace_atomically_with(
            path,
            &parent_dir(path),
            &[&bytes],
            &mut journal,
            &mut renamed,
        );
        match (batch, &written) {
            (Some(batch), Ok(())) => journal::hand_out(&batch, &calls),
            (Some(batch), Err(_)) => journal::failed(batch, renamed),
            (None, _) => {}
        }
        let mut state = self.lock();
        state.writing = false;
        match written {
            Ok(()) => {
                state.durable = through;
                let edited = state
                    .store
                    .as_ref()
                    .map_or(0, |s| s.with_dependent(|_, s| s.edited_lines()));
                if edited > COMPACT_AFTER && state.applied == through {
                    let text = String::from_utf8(bytes).expect("pieces of UTF-8 text");
                    state.store = ParsedStore::try_new(text, |t| Store::parse(path, t)).ok();
                }
            }
            Err(e) => {
                // Everything applied so far was decided on the edits that failed.
                let from = state.durable;
                let to = state.applied;
                state.durable = to;
                state.failed.push((from, to, Arc::new(e)));
                if state.failed.len() > 8 {
                    state.failed.remove(0);
                }
                state.store = None;
            }
        }
        self.changed.notify_all();
        self.let_go_if_idle(&mut state);
        state
    }

    /// Gives up the lock file when nothing applied waits for a write, or
    /// for a moment when it has been held for [`HOLD_AT_MOST`].
    fn let_go_if_idle(&self, state: &mut MutexGuard<'_, State>) {
        let Some(held) = state.lock.as_ref() else {
            return;
        };
        if state.writing {
            return;
        }
        if state.applied == state.durable {
            if std::mem::take(&mut state.yielding) {
                state.resume_at = Some(Instant::now() + YIELD_FOR);
            }
            state.lock = None;
            self.changed.notify_all();
        } else if held.since.elapsed() >= HOLD_AT_MOST {
            state.yielding = true;
        }
    }
}

/// One line on what settling a store's journals did.
pub(crate) fn settled_text(path: &Path, settled: &journal::Settled) -> String {
    let mut text = format!(
        "{}: settled {} write(s) a process left unfinished",
        path.display(),
        settled.applied + settled.not_applied
    );
    if !settled.recovered.is_empty() {
        text.push_str(&format!(
            "; recovered the rows of {}",
            settled.recovered.join(", ")
        ));
    }
    for problem in &settled.problems {
        text.push_str(&format!("; could not settle {problem}"));
    }
    text
}

/// A write error for each caller it failed (the error itself is shared).
fn copy_of(error: &StoreError) -> StoreError {
    match error {
        StoreError::Io { path, source } => StoreError::Io {
            path: path.clone(),
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        other => StoreError::Io {
            path: String::new(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    type Hook = Box<dyn FnMut() -> Result<(), StoreError> + Send>;
    /// What a test does before each write to its store (by path: tests run
    /// side by side in one process).
    static HOOKS: Mutex<Vec<(PathBuf, Hook)>> = Mutex::new(Vec::new());

    pub(super) fn before_write(path: &Path) -> Result<(), StoreError> {
        let mut hooks = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
        match hooks.iter_mut().find(|(at, _)| at == path) {
            Some((_, hook)) => hook(),
            None => Ok(()),
        }
    }

    fn hook(path: &Path, hook: Hook) {
        HOOKS.lock().unwrap().push((path.to_path_buf(), hook));
    }

    fn line(id: &str) -> String {
        format!("{{\"id\":\"{id}\",\"title\":\"t\",\"status\":\"open\"}}")
    }

    fn store_with(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("issues.jsonl");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn append(path: &Path, id: &str) -> Result<Vec<String>, StoreError> {
        mutate(path, Duration::from_secs(5), |s| {
            let seen = s.issues().map(|i| i.id.as_str().to_string()).collect();
            (seen, Some(Edit::Append { json: line(id) }))
        })
    }

    fn ids(path: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let store = Store::parse(path, &text).unwrap();
        store.issues().map(|i| i.id.as_str().to_string()).collect()
    }

    /// Waits (bounded) until `f` holds.
    fn until(what: &str, f: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !f() {
            assert!(Instant::now() < deadline, "waited 10 s for {what}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn mutations_that_arrive_during_a_write_are_written_together() {
        let (_dir, path) = store_with(&format!("{}\n", line("a")));
        let applied = Arc::new(AtomicUsize::new(0));
        let writes = Arc::new(AtomicUsize::new(0));
        let (a, w) = (applied.clone(), writes.clone());
        // The first write waits until five more mutations are applied.
        hook(
            &path,
            Box::new(move || {
                if w.fetch_add(1, Ordering::SeqCst) == 0 {
                    until("five more mutations", || a.load(Ordering::SeqCst) == 6);
                }
                Ok(())
            }),
        );
        std::thread::scope(|scope| {
            for k in 0..6 {
                let (path, applied, writes) = (&path, &applied, &writes);
                if k == 1 {
                    until("the first write", || writes.load(Ordering::SeqCst) == 1);
                }
                scope.spawn(move || {
                    mutate(path, Duration::from_secs(20), |s| {
                        applied.fetch_add(1, Ordering::SeqCst);
                        (
                            s.issue_count(),
                            Some(Edit::Append {
                                json: line(&format!("n{k}")),
                            }),
                        )
                    })
                    .unwrap()
                });
            }
        });
        assert_eq!(
            writes.load(Ordering::SeqCst),
            2,
            "one write for the first, one for the five"
        );
        let mut got = ids(&path);
        got.sort();
        assert_eq!(got, ["a", "n0", "n1", "n2", "n3", "n4", "n5"]);
    }

    #[test]
    fn a_failed_write_fails_every_mutation_that_saw_its_edits_and_loses_nothing_else() {
        let original = format!("{}\n", line("a"));
        let (_dir, path) = store_with(&original);
        let second_applied = Arc::new(AtomicUsize::new(0));
        let writes = Arc::new(AtomicUsize::new(0));
        let (second, w) = (second_applied.clone(), writes.clone());
        hook(
            &path,
            Box::new(move || {
                if w.fetch_add(1, Ordering::SeqCst) == 0 {
                    until("the second mutation", || second.load(Ordering::SeqCst) == 1);
                    return Err(StoreError::Io {
                        path: "issues.jsonl".into(),
                        source: std::io::Error::from_raw_os_error(libc::ENOSPC),
                    });
                }
                Ok(())
            }),
        );
        let (first, second) = std::thread::scope(|scope| {
            let first = scope.spawn(|| append(&path, "b"));
            until("the first write", || writes.load(Ordering::SeqCst) == 1);
            let second = scope.spawn(|| {
                mutate(&path, Duration::from_secs(20), |s| {
                    // It decides on the first mutation's edit, not yet on disk.
                    let saw_b = s.get("b").is_some();
                    second_applied.fetch_add(1, Ordering::SeqCst);
                    (saw_b, Some(Edit::Append { json: line("c") }))
                })
            });
            (first.join().unwrap(), second.join().unwrap())
        });
        let first = first.expect_err("the failed write's own mutation fails");
        assert!(first.to_string().contains("No space left"), "{first}");
        second.expect_err("a mutation that saw the failed edit fails with it");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        // The next mutation reads the file again: neither edit is there.
        assert_eq!(append(&path, "d").unwrap(), ["a"]);
        assert_eq!(ids(&path), ["a", "d"]);
    }

    #[test]
    fn a_file_replaced_by_another_writer_is_read_again() {
        let (dir, path) = store_with(&format!("{}\n", line("a")));
        assert_eq!(append(&path, "b").unwrap(), ["a"]);
        // Another process replaces the store (as every writer does: a rename).
        let other = dir.path().join("other");
        std::fs::write(&other, format!("{}\n", line("z"))).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(append(&path, "c").unwrap(), ["z"]);
        assert_eq!(ids(&path), ["z", "c"]);
    }

    #[test]
    fn a_busy_group_gives_the_lock_file_to_another_writer_in_turn() {
        let (_dir, path) = store_with(&format!("{}\n", line("a")));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (taken, waited) = std::thread::scope(|scope| {
            for k in 0..4 {
                let (path, stop) = (&path, &stop);
                scope.spawn(move || {
                    for n in 0.. {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        append(path, &format!("w{k}-{n}")).unwrap();
                    }
                });
            }
            std::thread::sleep(Duration::from_millis(200));
            // Another process's writer: a descriptor of its own on the lock
            // file (`flock` locks belong to an open file, not a process).
            let started = Instant::now();
            let taken = acquire_lock(&path, Duration::from_secs(3)).is_ok();
            let waited = started.elapsed();
            stop.store(true, Ordering::SeqCst);
            (taken, waited)
        });
        assert!(taken, "the lock file was not given up in {waited:?}");
        assert!(ids(&path).len() > 10, "the group was not busy");
    }

    #[test]
    fn an_edit_in_place_that_keeps_size_and_clock_is_seen() {
        let (_dir, path) = store_with(&format!("{}\n", line("a")));
        assert_eq!(append(&path, "b").unwrap(), ["a"]);
        let before = std::fs::metadata(&path).unwrap();
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replacen("\"a\"", "\"q\"", 1);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, text.as_bytes()).unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        drop(file);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), before.len());
        assert_eq!(append(&path, "c").unwrap(), ["q", "b"]);
    }

    #[test]
    fn edits_in_memory_are_the_file_a_fresh_parse_reads() {
        let (_dir, path) = store_with(&format!("{}\r\n{}", line("a"), line("b")));
        for k in 0..(COMPACT_AFTER + 20) {
            let id = ["a", "b", "new"][k % 3];
            mutate(&path, Duration::from_secs(5), |s| {
                let edit = match s.index_of(id) {
                    Some(i) if k % 2 == 0 => Edit::Replace {
                        line_index: i,
                        json: format!("{{\"id\":\"{id}\",\"title\":\"v{k}\"}}"),
                    },
                    _ => Edit::Append {
                        json: line(&format!("x{k}")),
                    },
                };
                // What the store in memory shows is what the file says.
                let text = std::fs::read_to_string(&path).unwrap();
                let fresh = Store::parse(&path, &text).unwrap();
                let shown: Vec<&str> = s.issues().map(|i| s.raw(i)).collect();
                let read: Vec<&str> = fresh.issues().map(|i| fresh.raw(i)).collect();
                assert_eq!(shown, read, "after {k} mutations");
                ((), Some(edit))
            })
            .unwrap();
        }
    }
}
