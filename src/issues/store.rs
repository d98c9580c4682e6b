//! Reading the store (with corrupt-line refusal) and the Safety section's one
//! critical section per mutation: lock, re-read, apply, temp file, fsync, rename,
//! fsync the directory, unlock.
//!
//! Strategy: a mutation rewrites the whole file, but untouched lines are copied as
//! raw bytes (never re-encoded), so its cost is one parse plus one sequential write.
//! An append-only journal would be cheaper per mutation, but it would leave
//! repeated ids in the very file other beads tools read and that `check` flags as
//! duplicates; the atomic replace keeps the store a plain beads JSONL at all times.

use super::model::{
    dep_type_info, parse_time, Dep, Issue, Lease, RawIssue, Text, DEFAULT_ISSUE_TYPE,
    DEFAULT_PRIORITY, DEFAULT_STATUS,
};
use crate::issues::IssueClass;
use crate::pg::StoreClass;
use crate::telemetry::record::store_mutation;
use fs4::FileExt;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the issue memory lives: the beads JSONL file (the embedded default) or
/// a PostgreSQL database shared by a fleet.
#[derive(Clone, Debug)]
pub enum IssueStore {
    Jsonl(PathBuf),
    Postgres(Arc<crate::pg::PgStore>),
    /// An atomic run's staged view of one of the others (issue 59,
    /// [`super::overlay`]): its reads and mutations stay in memory until
    /// the run commits.
    Staged(Arc<super::overlay::Overlay>),
}

impl IssueStore {
    /// The store named by a command-line value: a `postgres://` URL, or a file path.
    ///
    /// # Errors
    ///
    /// An unusable URL.
    pub fn locate(arg: &str) -> Result<Self, crate::pg::PgError> {
        if crate::pg::is_url(arg) {
            Ok(IssueStore::Postgres(Arc::new(crate::pg::PgStore::open(
                arg,
            )?)))
        } else {
            Ok(IssueStore::Jsonl(PathBuf::from(arg)))
        }
    }

    /// A mutation that needs only the ready frontier (claim-next). The file
    /// store runs it as [`IssueStore::mutate`]; the database runs it on a few
    /// row-locked ready lines, so that claims run side by side (see
    /// [`super::postgres::mutate_ready`]).
    ///
    /// # Errors
    ///
    /// As [`IssueStore::mutate`].
    pub fn mutate_ready<T>(
        &self,
        lock: LockOptions,
        filter: &super::filter::IssueFilter,
        mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
    ) -> Result<T, StoreError> {
        let rule = self.readiness()?;
        let apply = |store: &Store<'_>| {
            store.set_readiness(rule);
            apply(store)
        };
        match self {
            IssueStore::Staged(overlay) => overlay.mutate(rule, apply),
            IssueStore::Jsonl(path) => {
                store_mutation("jsonl", "claim_ready", || mutate(path, lock, apply))
            }
            // The database's ready frontier is premath's rule (its blocker
            // rows hold every blocking edge); under beads' rule a parent's
            // blockers decide too, so the whole store does.
            IssueStore::Postgres(pg) if rule.propagates() => {
                store_mutation("postgresql", "claim_ready", || {
                    super::postgres::mutate_issues(pg, lock, apply)
                })
            }
            IssueStore::Postgres(pg) => store_mutation("postgresql", "claim_ready", || {
                super::postgres::mutate_ready(pg, lock, filter, apply)
            }),
        }
    }

    /// The real store: itself, or a staged store's base.
    pub fn unstaged(&self) -> &IssueStore {
        match self {
            IssueStore::Staged(overlay) => overlay.base(),
            real => real,
        }
    }

    /// `view` of the store as it is now (read and parsed, no lock held).
    ///
    /// # Errors
    /// The store cannot be read, or a line is corrupt.
    pub fn read<T>(&self, view: impl FnOnce(&Store<'_>) -> T) -> Result<T, StoreError> {
        let rule = self.readiness()?;
        let view = |store: &Store<'_>| {
            store.set_readiness(rule);
            view(store)
        };
        match self {
            IssueStore::Jsonl(path) => {
                if let Some(parsed) = unchanged_parse(path) {
                    return Ok(parsed.with_dependent(|_, store| view(store)));
                }
            }
            IssueStore::Staged(overlay) => return overlay.read(rule, view),
            IssueStore::Postgres(_) => {}
        }
        let text = self.read_text()?;
        if text.len() > CACHED_STORE_BYTES {
            let store = Store::parse(self.path(), &text)?;
            return Ok(view(&store));
        }
        let parsed = parsed(self.path(), text)?;
        Ok(parsed.with_dependent(|_, store| view(store)))
    }

    /// `view` of just the lines `scope` names (issue 58: on the database, a
    /// read by index; the file store reads its file as [`IssueStore::read`]
    /// does). Under beads' readiness rule an issue's blockers include its
    /// parents' (transitively): the whole store is read.
    ///
    /// # Errors
    /// As [`IssueStore::read`].
    pub fn read_scoped<T>(
        &self,
        scope: super::footprint::Footprint<'_>,
        view: impl FnOnce(&Store<'_>) -> T,
    ) -> Result<T, StoreError> {
        let IssueStore::Postgres(pg) = self else {
            return self.read(view);
        };
        let rule = self.readiness()?;
        if rule.propagates() {
            return self.read(view);
        }
        match super::pg_reads::scope_text(pg, scope)? {
            Some(text) => {
                let store = Store::parse(self.path(), &text)?;
                store.set_readiness(rule);
                Ok(view(&store))
            }
            None => self.read(view),
        }
    }

    /// The text of just the ready lines `filter` may pass, in ready order,
    /// when the database can tell (issue 58: `issue ready` by index; see
    /// [`super::pg_reads::ready_text`]): the view then reads them with
    /// [`super::views::ready_view_known`]. `None` on the file store, under
    /// beads' readiness rule, or with lines another tool wrote: read the
    /// whole store.
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn ready_text(
        &self,
        filter: &super::filter::IssueFilter,
    ) -> Result<Option<String>, StoreError> {
        self.by_index(|pg| super::pg_reads::ready_text(pg, filter))
    }

    /// The lines `issue list` may list, when the database can tell (see
    /// [`IssueStore::ready_text`] and [`super::pg_reads::list_text`]); the
    /// list view runs on them as on the whole store.
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn list_text(
        &self,
        filter: &super::views::ListFilter,
    ) -> Result<Option<String>, StoreError> {
        self.by_index(|pg| super::pg_reads::list_text(pg, filter))
    }

    /// The blocked lines and their targets' lines, with the blocked ones'
    /// ids (see [`super::pg_reads::blocked_text`]): the blocked view lists
    /// only those ids ([`super::views::blocked_view_known`]).
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn blocked_text(
        &self,
        filter: &super::filter::IssueFilter,
    ) -> Result<Option<(String, std::collections::BTreeSet<String>)>, StoreError> {
        self.by_index(|pg| super::pg_reads::blocked_text(pg, filter))
    }

    /// The lines `issue search` may find `query` in (see
    /// [`super::pg_reads::search_text`]).
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn search_text(&self, query: &str) -> Result<Option<String>, StoreError> {
        let needle = super::find::needle(query);
        self.by_index(|pg| super::pg_reads::search_text(pg, &needle))
    }

    /// What `issue.stats` counts, from the database's columns, with the
    /// lines that may hold a lease (see [`super::pg_reads::stats_counts`]).
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn stats_counts(&self) -> Result<Option<(super::find::StatsCounts, String)>, StoreError> {
        self.by_index(super::pg_reads::stats_counts)
    }

    /// The lines that may hold a lease (see [`super::pg_reads::leased_text`]):
    /// the lease projection reads no other.
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn leased_text(&self) -> Result<Option<String>, StoreError> {
        self.by_index(super::pg_reads::leased_text)
    }

    /// The lines `dep tree` walks (see [`super::pg_reads::tree_text`]).
    ///
    /// # Errors
    /// A database error, or an unusable `config.json`.
    pub fn tree_text(
        &self,
        id: &str,
        direction: super::find::Direction,
        max_depth: usize,
    ) -> Result<Option<String>, StoreError> {
        // The tree follows edges, not readiness: either rule reads by index.
        match self {
            IssueStore::Postgres(pg) => {
                Ok(super::pg_reads::tree_text(pg, id, direction, max_depth)?)
            }
            IssueStore::Jsonl(_) | IssueStore::Staged(_) => Ok(None),
        }
    }

    /// `read` on the database, when a view may read it by index: not the
    /// file store, not under beads' readiness rule (a blocked parent blocks
    /// its children, transitively: the whole store decides); `None` else.
    fn by_index<T>(
        &self,
        read: impl FnOnce(&crate::pg::PgStore) -> Result<Option<T>, crate::pg::PgError>,
    ) -> Result<Option<T>, StoreError> {
        match self {
            IssueStore::Postgres(pg) if !self.readiness()?.propagates() => Ok(read(pg)?),
            _ => Ok(None),
        }
    }

    /// `text` (this store's, as [`IssueStore::read_text`] gave it) parsed,
    /// with the store's readiness rule: what a view needs.
    ///
    /// # Errors
    /// A corrupt line, or an unusable `config.json`.
    pub fn parse<'t>(&self, text: &'t str) -> Result<Store<'t>, StoreError> {
        let store = Store::parse(self.path(), text)?;
        store.set_readiness(self.readiness()?);
        Ok(store)
    }

    /// The store's readiness rule (its `config.json`).
    ///
    /// # Errors
    /// An unreadable or invalid `config.json`: nothing is read or written.
    pub fn readiness(&self) -> Result<super::readiness::Readiness, StoreError> {
        super::readiness::of_store(self).map_err(|reason| StoreError::Config {
            path: super::model::config_path(self).display().to_string(),
            reason,
        })
    }

    /// The file's path, or the URL without its password: what reports print as
    /// `issuesPath` and messages name.
    pub fn path(&self) -> &Path {
        match self {
            IssueStore::Jsonl(path) => path,
            IssueStore::Postgres(pg) => Path::new(pg.shown()),
            IssueStore::Staged(overlay) => overlay.base().path(),
        }
    }

    /// The whole store text (an absent file reads as empty).
    ///
    /// # Errors
    ///
    /// An unreadable file, or a database error.
    pub fn read_text(&self) -> Result<String, StoreError> {
        match self {
            IssueStore::Jsonl(path) => read_text(path),
            IssueStore::Postgres(pg) => Ok(super::postgres::read_issue_text(pg)?),
            IssueStore::Staged(overlay) => overlay.read_text(),
        }
    }

    /// Settles what a process killed mid-change left (issue 61,
    /// [`super::journal`]): a command's or a server's start, `tusk doctor`.
    /// Nothing to do (no journal or writer marker whose process is gone)
    /// costs one directory read, and a lock test per file there; on a
    /// database, one statement ([`crate::pg::writers::close_dead`]).
    ///
    /// # Errors
    /// The lock was busy, or the store could not be read.
    pub fn settle(&self) -> Result<super::journal::Settled, StoreError> {
        match self {
            IssueStore::Jsonl(path)
                if parent_dir(path).exists() && super::journal::needs_settling(path) =>
            {
                super::commit::settle(path, DEFAULT_LOCK_TIMEOUT)
            }
            // A database's calls commit with their rows: what a dead
            // process leaves is only its runs without a footer.
            IssueStore::Postgres(pg) => Ok(super::journal::Settled {
                closed: crate::pg::writers::close_dead(pg)?,
                ..Default::default()
            }),
            _ => Ok(Default::default()),
        }
    }

    /// [`IssueStore::mutate`] for a mutation whose checks read only
    /// `scope`: the database loads and row-locks just that (see
    /// [`super::postgres::mutate_scoped`]); the file store reads the whole
    /// file as for any mutation. Under beads' readiness rule a claim's
    /// blockers include its parents' (transitively): the whole store decides.
    ///
    /// # Errors
    ///
    /// As [`IssueStore::mutate`].
    pub fn mutate_scoped<T>(
        &self,
        lock: LockOptions,
        scope: super::footprint::Footprint<'_>,
        mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
    ) -> Result<T, StoreError> {
        let IssueStore::Postgres(pg) = self else {
            return self.mutate(lock, apply);
        };
        let rule = self.readiness()?;
        let apply = |store: &Store<'_>| {
            store.set_readiness(rule);
            apply(store)
        };
        let scope = match scope {
            super::footprint::Footprint::WithTargets(_) if rule.propagates() => {
                super::footprint::Footprint::Whole
            }
            other => other,
        };
        store_mutation("postgresql", "mutate", || {
            super::postgres::mutate_scoped(pg, lock, scope, apply)
        })
    }

    /// Runs one mutation as one critical section (see [`mutate`]).
    ///
    /// # Errors
    ///
    /// As [`mutate`], plus database errors.
    pub fn mutate<T>(
        &self,
        lock: LockOptions,
        mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
    ) -> Result<T, StoreError> {
        let rule = self.readiness()?;
        let apply = |store: &Store<'_>| {
            store.set_readiness(rule);
            apply(store)
        };
        match self {
            IssueStore::Staged(overlay) => overlay.mutate(rule, apply),
            IssueStore::Jsonl(path) => {
                store_mutation("jsonl", "mutate", || mutate(path, lock, apply))
            }
            IssueStore::Postgres(pg) => store_mutation("postgresql", "mutate", || {
                super::postgres::mutate_issues(pg, lock, apply)
            }),
        }
    }
}

/// Where the issue store lives unless a flag or `TUSK_STORE` says otherwise.
pub const DEFAULT_ISSUES_PATH: &str = ".premath/issues.jsonl";

/// Default bound on waiting for the store lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A line that is not a valid issue. The store is never rewritten while this holds.
    #[error("{path}: line {line}: {reason}")]
    Corrupt {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    /// The lock was held by another process for the whole bound; nothing was written.
    #[error("{path}: store lock busy for {waited_ms} ms")]
    LockBusy { path: String, waited_ms: u128 },
    /// The PostgreSQL store could not be used; nothing was written.
    #[error(transparent)]
    Backend(#[from] crate::pg::PgError),
    /// An import into a store that already holds issues (without `--replace`).
    #[error(
        "{path}: already holds {lines} line(s); import into an empty store, or pass --replace"
    )]
    NotEmpty { path: String, lines: u64 },
    /// The store's `config.json` cannot be used (its readiness rule, its
    /// id scheme); nothing was read or written.
    #[error("{reason}")]
    Config { path: String, reason: String },
}

/// A store a host action cannot use is the action's execution error, with
/// the store's class.
impl From<StoreError> for crate::host::ActionError {
    fn from(e: StoreError) -> Self {
        Self::new(e.class(), e.to_string())
    }
}

impl StoreError {
    /// The failure class reported for this error.
    pub fn class(&self) -> &'static str {
        match self {
            StoreError::Corrupt { .. } => IssueClass::MemoryStoreCorrupt.as_str(),
            StoreError::Io { .. } => IssueClass::MemoryIoError.as_str(),
            StoreError::LockBusy { .. } => IssueClass::LeaseMutationLockBusy.as_str(),
            StoreError::Backend(e) => e.class(),
            StoreError::NotEmpty { .. } => StoreClass::NotEmpty.as_str(),
            StoreError::Config { .. } => IssueClass::ConfigInvalid.as_str(),
        }
    }

    pub(super) fn io(path: &Path, source: io::Error) -> Self {
        StoreError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// A parsed store. Borrows the file text so that untouched lines stay raw.
pub struct Store<'a> {
    pub text: &'a str,
    /// Every issue line in file order (including lines superseded by a later repeat).
    pub lines: Vec<Issue<'a>>,
    /// id → index in `lines` of the line that wins (the last one with that id).
    index: FxHashMap<Cow<'a, str>, usize>,
    /// Lines changed in memory since `text` was parsed (a long-lived host's
    /// group commit, [`super::commit`]): each one's JSON by its line number.
    /// Empty for a store as read.
    edited: FxHashMap<usize, Box<str>>,
    /// How many of `lines` come from `text`; the rest were appended in memory.
    parsed_lines: usize,
    /// The line number the next appended line gets.
    next_line: usize,
    /// The readiness rule the store was read under (its `config.json`; set
    /// by [`IssueStore`]'s readers before any view sees it).
    readiness: std::sync::atomic::AtomicU8,
}

self_cell::self_cell!(
    /// A parsed issue store together with the text it borrows.
    pub struct ParsedStore {
        owner: String,
        #[covariant]
        dependent: Store,
    }
);

/// Stores up to this size keep their last parse in memory (see [`parsed`]).
const CACHED_STORE_BYTES: usize = 4 << 20;

/// The last store [`IssueStore::read`] parsed, and where it was read.
static LAST_PARSED: std::sync::Mutex<Option<(PathBuf, std::sync::Arc<ParsedStore>)>> =
    std::sync::Mutex::new(None);

/// `text`, read just now from `path`, parsed: the last parse when the text
/// is byte for byte the one it was made from, else a new one (kept in its
/// place). A long-lived host reads the store on every call; parsing it was
/// most of a read action's time, while reading and comparing it is cheap.
/// Being keyed on the content, not on a file's size or clock, it cannot
/// serve a stale store. The file store first asks [`unchanged_parse`], the
/// same rule without copying the file; the database store comes here.
fn parsed(path: &Path, text: String) -> Result<std::sync::Arc<ParsedStore>, StoreError> {
    let mut last = LAST_PARSED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((at, parsed)) = last.as_ref() {
        if at == path && parsed.borrow_owner() == &text {
            return Ok(parsed.clone());
        }
    }
    let parsed = std::sync::Arc::new(ParsedStore::try_new(text, |text| Store::parse(path, text))?);
    *last = Some((path.to_path_buf(), parsed.clone()));
    Ok(parsed)
}

/// The last parse of `path` when the file still holds its text byte for
/// byte, compared slice by slice as it is read: an unchanged store costs
/// neither a copy of the file nor its UTF-8 check (reading the 150 KB store
/// of 365 issues that way was over half of an `(issue.ready)` call).
/// `None` (read the file as usual) when there is no such parse, the file
/// differs, or it cannot be read.
fn unchanged_parse(path: &Path) -> Option<std::sync::Arc<ParsedStore>> {
    let parsed = match LAST_PARSED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        Some((at, parsed)) if at == path => parsed.clone(),
        _ => return None,
    };
    thread_local! {
        /// Where the file is read, kept: a fresh buffer per read was a
        /// third of the comparison (zeroed pages, faulted in).
        static SLICE: std::cell::RefCell<Box<[u8]>> =
            std::cell::RefCell::new(vec![0u8; 64 * 1024].into_boxed_slice());
    }
    let text = parsed.borrow_owner().as_bytes();
    let mut file = crate::files::open_read(path).ok()?;
    let same = SLICE.with(|slice| {
        let slice = &mut slice.borrow_mut()[..];
        let mut at = 0;
        loop {
            let n = match io::Read::read(&mut file, slice) {
                Ok(0) => return at == text.len(),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            };
            if text.get(at..at + n) != Some(&slice[..n]) {
                return false;
            }
            at += n;
        }
    });
    same.then_some(parsed)
}

impl crate::telemetry::record::StoreClass for StoreError {
    fn class(&self) -> &'static str {
        StoreError::class(self)
    }
}

impl<'a> Store<'a> {
    /// Parses the whole text; the first bad line is reported with its number.
    pub fn parse(path: &Path, text: &'a str) -> Result<Self, StoreError> {
        let corrupt = |line: usize, reason: String| StoreError::Corrupt {
            path: path.display().to_string(),
            line,
            reason,
        };
        if let Some(pos) = memchr::memchr(0, text.as_bytes()) {
            return Err(corrupt(
                line_of(text.as_bytes(), pos),
                "contains a NUL byte".into(),
            ));
        }
        let threads = crate::jsonl::threads_for(text.len());
        let chunks = crate::jsonl::split_at_lines(text.as_bytes(), threads);
        let parsed: Vec<Chunk<'a>> = if chunks.len() == 1 {
            vec![parse_chunk(text, 0, text.len())]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = chunks
                    .iter()
                    .map(|&(start, end)| scope.spawn(move || parse_chunk(text, start, end)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a parse thread does not panic"))
                    .collect()
            })
        };
        let mut lines: Vec<Issue<'a>> = Vec::new();
        let mut line_offset = 0usize;
        for (k, chunk) in parsed.into_iter().enumerate() {
            if let Some((line, reason)) = chunk.error {
                return Err(corrupt(line_offset + line, reason));
            }
            if k == 0 {
                // The first chunk's vector becomes the result: one copy fewer of a big store.
                lines = chunk.issues;
            } else {
                lines.extend(chunk.issues.into_iter().map(|mut issue| {
                    issue.line += line_offset;
                    issue
                }));
            }
            line_offset += chunk.line_count;
        }
        let mut index: FxHashMap<Cow<'a, str>, usize> = FxHashMap::default();
        index.reserve(lines.len());
        for i in 0..lines.len() {
            if let Some(previous) = index.insert(lines[i].id.0.clone(), i) {
                lines[previous].superseded = true;
            }
        }
        Ok(Store {
            text,
            parsed_lines: lines.len(),
            lines,
            index,
            edited: FxHashMap::default(),
            next_line: line_offset + 1,
            readiness: std::sync::atomic::AtomicU8::new(0),
        })
    }

    /// The readiness rule the views of this store follow.
    pub fn readiness(&self) -> super::readiness::Readiness {
        match self.readiness.load(std::sync::atomic::Ordering::Relaxed) {
            1 => super::readiness::Readiness::Beads,
            _ => super::readiness::Readiness::Premath,
        }
    }

    /// Sets the rule (the store's `config.json` says which; a kept parse
    /// is told again on each use, so a changed setting takes at once).
    pub fn set_readiness(&self, rule: super::readiness::Readiness) {
        let n = u8::from(rule == super::readiness::Readiness::Beads);
        self.readiness
            .store(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// Makes `edit` in memory, as the file will hold it once written: the
    /// new line is decoded on its own, nothing else is parsed again. False
    /// (nothing changed) for an edit this cannot make in place (a whole new
    /// text, or a line that changes its id): the caller parses the new text.
    ///
    /// # Errors
    /// The edit's line is not a valid issue; nothing changed.
    pub fn edit_in_place(&mut self, path: &Path, edit: &Edit) -> Result<bool, StoreError> {
        let corrupt = |line: usize, reason: String| StoreError::Corrupt {
            path: path.display().to_string(),
            line,
            reason,
        };
        match edit {
            Edit::ReplaceAll { .. } => Ok(false),
            Edit::Batch { replace, append } => {
                // Each line decoded first: the batch is made whole or not at all.
                for (line_index, json) in replace {
                    let old = &self.lines[*line_index];
                    let issue = decode_line(json, old.line, old.span.clone())
                        .map_err(|reason| corrupt(old.line, reason))?;
                    if issue.id != old.id {
                        return Ok(false);
                    }
                }
                for (k, json) in append.iter().enumerate() {
                    let at = self.text.len();
                    decode_line(json, self.next_line + k, at..at)
                        .map_err(|reason| corrupt(self.next_line + k, reason))?;
                }
                for (line_index, json) in replace {
                    let edit = Edit::Replace {
                        line_index: *line_index,
                        json: json.clone(),
                    };
                    self.edit_in_place(path, &edit)?;
                }
                for json in append {
                    self.edit_in_place(path, &Edit::Append { json: json.clone() })?;
                }
                Ok(true)
            }
            Edit::Replace { line_index, json } => {
                let old = &self.lines[*line_index];
                let issue = decode_line(json, old.line, old.span.clone())
                    .map_err(|reason| corrupt(old.line, reason))?
                    .into_owned();
                if issue.id != old.id {
                    return Ok(false);
                }
                self.edited.insert(issue.line, json.as_str().into());
                self.lines[*line_index] = issue;
                Ok(true)
            }
            Edit::Append { json } => {
                let at = self.text.len();
                let issue = decode_line(json, self.next_line, at..at)
                    .map_err(|reason| corrupt(self.next_line, reason))?
                    .into_owned();
                let id = Cow::Owned(issue.id.as_str().to_string());
                if let Some(previous) = self.index.insert(id, self.lines.len()) {
                    self.lines[previous].superseded = true;
                }
                self.edited.insert(issue.line, json.as_str().into());
                self.lines.push(issue);
                self.next_line += 1;
                Ok(true)
            }
        }
    }

    /// How many lines were changed in memory since the text was parsed.
    pub fn edited_lines(&self) -> usize {
        self.edited.len()
    }

    /// The file this store stands for, as pieces: the parsed text with the
    /// lines edited in memory put in their places and the appended ones after.
    pub fn pieces(&self) -> Vec<&[u8]> {
        let bytes = self.text.as_bytes();
        let mut out = Vec::with_capacity(2 * self.edited.len() + 2);
        let mut at = 0;
        if !self.edited.is_empty() {
            for issue in &self.lines[..self.parsed_lines] {
                if let Some(json) = self.edited.get(&issue.line) {
                    out.push(&bytes[at..issue.span.start]);
                    out.push(json.as_bytes());
                    at = issue.span.end;
                }
            }
        }
        out.push(&bytes[at..]);
        let appended = &self.lines[self.parsed_lines..];
        if !appended.is_empty() && !bytes.is_empty() && !bytes.ends_with(b"\n") {
            out.push(b"\n");
        }
        for issue in appended {
            out.push(self.edited[&issue.line].as_bytes());
            out.push(b"\n");
        }
        out
    }

    /// The winning line for `id`.
    pub fn get(&self, id: &str) -> Option<&Issue<'a>> {
        self.index.get(id).map(|&i| &self.lines[i])
    }

    /// Index in [`Store::lines`] of the winning line for `id` (what an [`Edit`] names).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// The winning line of every id, in file order.
    pub fn issues(&self) -> impl Iterator<Item = &Issue<'a>> {
        self.lines.iter().filter(|issue| !issue.superseded)
    }

    pub fn issue_count(&self) -> usize {
        self.index.len()
    }

    /// The raw JSON text of a line.
    pub fn raw(&self, issue: &Issue<'_>) -> &str {
        if !self.edited.is_empty() {
            if let Some(json) = self.edited.get(&issue.line) {
                return json;
            }
        }
        &self.text[issue.span.clone()]
    }
}

/// The issues of one stretch of lines, numbered from 1 within it.
struct Chunk<'a> {
    issues: Vec<Issue<'a>>,
    line_count: usize,
    error: Option<(usize, String)>,
}

fn parse_chunk<'a>(text: &'a str, from: usize, to: usize) -> Chunk<'a> {
    let bytes = text.as_bytes();
    // The first chunk's vector becomes the store's, so it is sized for the whole
    // text (a line is rarely under 256 bytes); untouched capacity costs nothing.
    let estimate = if from == 0 { text.len() } else { to - from };
    let mut issues = Vec::with_capacity(estimate / 256 + 1);
    let mut start = from;
    let mut line_no = 0usize;
    while start < to {
        line_no += 1;
        let end = memchr::memchr(b'\n', &bytes[start..to]).map_or(to, |i| start + i);
        let mut content_end = end;
        if content_end > start && bytes[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        let content = &text[start..content_end];
        if !content.trim().is_empty() {
            match decode_line(content, line_no, start..content_end) {
                Ok(issue) => issues.push(issue),
                Err(reason) => {
                    return Chunk {
                        issues,
                        line_count: line_no,
                        error: Some((line_no, reason)),
                    }
                }
            }
        }
        start = end + 1;
    }
    Chunk {
        issues,
        line_count: line_no,
        error: None,
    }
}

fn line_of(bytes: &[u8], pos: usize) -> usize {
    memchr::memchr_iter(b'\n', &bytes[..pos]).count() + 1
}

/// The deepest a store line may nest arrays and objects.
pub const MAX_LINE_DEPTH: usize = 64;

/// Whether the JSON text `bytes` nests arrays and objects deeper than
/// `max`. Most lines have few brackets: they are counted first (fast), and
/// only a line with more than `max` of them is walked.
fn nested_deeper_than(bytes: &[u8], max: usize) -> bool {
    if memchr::memchr2_iter(b'[', b'{', bytes).nth(max).is_none() {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn decode_line<'a>(
    content: &'a str,
    line: usize,
    span: std::ops::Range<usize>,
) -> Result<Issue<'a>, String> {
    // serde would also build the struct from a JSON array; an issue is an object.
    if !content.trim_start().starts_with('{') {
        return Err("not a JSON object".into());
    }
    // A line every reader can take whole (issue 55): the fields tusk reads
    // skip what they do not name at any depth, but a line is also read as
    // a JSON value (to edit, show or merge it), and that stops at 128 levels.
    if nested_deeper_than(content.as_bytes(), MAX_LINE_DEPTH) {
        return Err(format!(
            "nested more than {MAX_LINE_DEPTH} levels deep; tusk does not read such a line (no issue field needs more than a few)"
        ));
    }
    let raw: RawIssue<'a> = serde_json::from_str(content).map_err(|e| describe_json_error(&e))?;
    if raw.id.as_str().is_empty() {
        return Err("field `id` is empty".into());
    }
    let mut deps = Vec::new();
    for dep in raw.dependencies.unwrap_or_default() {
        let (dep_type, blocking) = dep_type_info(dep.dep_type.as_str()).ok_or_else(|| {
            format!(
                "unknown dependency type {:?} on {} -> {}",
                dep.dep_type.as_str(),
                raw.id.as_str(),
                dep.depends_on_id.as_str()
            )
        })?;
        deps.push(Dep {
            depends_on: dep.depends_on_id,
            dep_type,
            blocking,
        });
    }
    let lease = match raw.lease {
        None => None,
        Some(l) => {
            let expires_at = parse_time(l.expires_at.as_str()).ok_or_else(|| {
                format!(
                    "lease.expires_at {:?} is not an RFC3339 time",
                    l.expires_at.as_str()
                )
            })?;
            Some(Box::new(Lease {
                lease_id: l.lease_id,
                owner: l.owner,
                acquired_at: l.acquired_at,
                expires_at,
                expires_at_text: l.expires_at,
                renewed_at: l.renewed_at,
            }))
        }
    };
    Ok(Issue {
        line,
        span,
        id: raw.id,
        title: raw.title,
        status: raw.status.unwrap_or(Text(Cow::Borrowed(DEFAULT_STATUS))),
        priority: raw.priority.unwrap_or(DEFAULT_PRIORITY),
        issue_type: raw
            .issue_type
            .unwrap_or(Text(Cow::Borrowed(DEFAULT_ISSUE_TYPE))),
        assignee: raw.assignee.filter(|a| !a.as_str().is_empty()),
        notes_chars: raw.notes.map_or(0, |n| n.as_str().chars().count()),
        labels: raw.labels.unwrap_or_default(),
        deps,
        lease,
        superseded: false,
    })
}

fn describe_json_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof => format!("not valid JSON ({e})"),
        Category::Data => format!("not a valid issue ({e})"),
        Category::Io => format!("unreadable ({e})"),
    }
}

/// Reads the store text. An absent store (or absent directory) reads as empty:
/// a missing memory degrades to empty, never raises. Invalid UTF-8 is corrupt.
pub fn read_text(path: &Path) -> Result<String, StoreError> {
    let bytes = match read_bytes(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    String::from_utf8(bytes).map_err(|e| {
        let pos = e.utf8_error().valid_up_to();
        StoreError::Corrupt {
            path: path.display().to_string(),
            line: line_of(e.as_bytes(), pos),
            reason: "invalid UTF-8".into(),
        }
    })
}

/// Reads a big store in slices on several threads: filling tens of megabytes of
/// fresh memory is page-fault bound, and the faults then happen on every core.
#[cfg(unix)]
fn read_bytes(path: &Path) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt as _;
    let file = crate::files::open_read(path)?;
    let len = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    let threads = crate::jsonl::threads_for(len);
    if threads == 1 {
        // From the descriptor just opened: a second open of the path was
        // two more system calls on every read action.
        let mut buf = Vec::with_capacity(len.saturating_add(1));
        io::Read::read_to_end(&mut &file, &mut buf)?;
        return Ok(buf);
    }
    let mut buf = vec![0u8; len];
    let part = len.div_ceil(threads);
    let results: Vec<io::Result<()>> = std::thread::scope(|scope| {
        let file = &file;
        let handles: Vec<_> = buf
            .chunks_mut(part)
            .enumerate()
            .map(|(k, slice)| scope.spawn(move || file.read_exact_at(slice, (k * part) as u64)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a read thread does not panic"))
            .collect()
    });
    let mut probe = [0u8; 1];
    let grew = file
        .read_at(&mut probe, len as u64)
        .map(|n| n > 0)
        .unwrap_or(true);
    if results.iter().any(Result::is_err) || grew {
        // Changed in place while we read (not by tusk, which always renames): read it plainly.
        return crate::files::read(path);
    }
    Ok(buf)
}

#[cfg(not(unix))]
fn read_bytes(path: &Path) -> io::Result<Vec<u8>> {
    fs::read(path)
}

/// How a mutation changes the file: one line replaced, or one line appended.
pub enum Edit {
    /// Replace the line at this index of [`Store::lines`] with new JSON text.
    Replace {
        line_index: usize,
        json: String,
    },
    Append {
        json: String,
    },
    /// Replace the whole store with this text (a replayed event log).
    ReplaceAll {
        text: String,
    },
    /// Several lines at once (an atomic run's commit, issue 59): lines
    /// replaced (distinct indexes of [`Store::lines`], each keeping its id),
    /// then lines appended, in order. One write, as one edit.
    Batch {
        replace: Vec<(usize, String)>,
        append: Vec<String>,
    },
}

impl Edit {
    /// How many store lines the edit writes (what a mutation's span reports).
    pub fn rows(&self) -> u64 {
        match self {
            Edit::Replace { .. } | Edit::Append { .. } => 1,
            Edit::ReplaceAll { text } => {
                text.lines().filter(|l| !l.trim().is_empty()).count() as u64
            }
            Edit::Batch { replace, append } => (replace.len() + append.len()) as u64,
        }
    }
}

/// Lock settings for mutations.
#[derive(Clone, Copy, Debug)]
pub struct LockOptions {
    pub timeout: Duration,
}

impl Default for LockOptions {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }
}

/// The lock file beside the store. It is never deleted (deleting lock files races),
/// and the store itself is not locked because the rename replaces its inode.
pub fn lock_path(path: &Path) -> PathBuf {
    sibling(path, ".lock")
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

fn temp_prefix(path: &Path) -> String {
    format!(
        ".{}.tusk-",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}

const TEMP_SUFFIX: &str = ".tmp";

/// Runs one mutation as the Safety section's critical section, written
/// together with the mutations this process makes at the same time (see
/// [`super::commit`]).
///
/// `apply` sees the store as re-read under the lock (with the edits of the
/// mutations before it applied) and returns its result plus the edit to make
/// (none for a rejection or a no-op). A missing directory is created only
/// when there is something to write.
pub fn mutate<T>(
    path: &Path,
    lock: LockOptions,
    mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
) -> Result<T, StoreError> {
    let dir = parent_dir(path);
    if !dir.exists() {
        // Nothing to lock yet: decide on the empty store, and only a write creates the directory.
        let empty = Store::parse(path, "")?;
        let (out, edit) = apply(&empty);
        if edit.is_none() {
            return Ok(out);
        }
        fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
    }
    super::commit::mutate(path, lock.timeout, apply)
}

pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Holds the exclusive lock until dropped (the kernel drops it too if the process dies).
pub(super) struct LockGuard(File);

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.0);
    }
}

pub(super) fn acquire_lock(path: &Path, timeout: Duration) -> Result<LockGuard, StoreError> {
    let lock_file = lock_path(path);
    let file = crate::files::open(
        OpenOptions::new().create(true).truncate(false).write(true),
        &lock_file,
    )
    .map_err(|e| StoreError::io(&lock_file, e))?;
    let started = Instant::now();
    // Poll with a short, growing sleep: flock has no timed wait, and the bound is the spec's.
    let mut pause = Duration::from_millis(1);
    loop {
        match FileExt::try_lock(&file) {
            Ok(()) => return Ok(LockGuard(file)),
            Err(fs4::TryLockError::WouldBlock) => {}
            Err(fs4::TryLockError::Error(e)) => return Err(StoreError::io(&lock_file, e)),
        }
        let waited = started.elapsed();
        if waited >= timeout {
            return Err(StoreError::LockBusy {
                path: path.display().to_string(),
                waited_ms: waited.as_millis(),
            });
        }
        std::thread::sleep(pause.min(timeout - waited));
        pause = (pause * 2).min(Duration::from_millis(16));
    }
}

/// Temp files are only ever created under the lock, so any found while holding it
/// were left by a killed process.
pub(super) fn remove_stale_temps(path: &Path, dir: &Path) {
    let prefix = temp_prefix(path);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(TEMP_SUFFIX) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The new file as pieces: the old bytes with one line replaced or one
/// appended, or the new text.
/// Written piece by piece, so a big store is never copied in memory.
pub(super) fn splice<'t>(store: &Store<'t>, edit: &'t Edit) -> Vec<&'t [u8]> {
    let text = store.text;
    match edit {
        Edit::Replace { line_index, json } => {
            let span = store.lines[*line_index].span.clone();
            vec![
                &text.as_bytes()[..span.start],
                json.as_bytes(),
                &text.as_bytes()[span.end..],
            ]
        }
        Edit::Append { json } => {
            let separator: &[u8] = if !text.is_empty() && !text.ends_with('\n') {
                b"\n"
            } else {
                b""
            };
            vec![text.as_bytes(), separator, json.as_bytes(), b"\n"]
        }
        Edit::ReplaceAll { text } => vec![text.as_bytes()],
        Edit::Batch { replace, append } => {
            let bytes = text.as_bytes();
            let mut spans: Vec<(std::ops::Range<usize>, &[u8])> = replace
                .iter()
                .map(|(i, json)| (store.lines[*i].span.clone(), json.as_bytes()))
                .collect();
            spans.sort_by_key(|(span, _)| span.start);
            let mut out = Vec::with_capacity(2 * spans.len() + 2 * append.len() + 2);
            let mut at = 0;
            for (span, json) in spans {
                out.push(&bytes[at..span.start]);
                out.push(json);
                at = span.end;
            }
            out.push(&bytes[at..]);
            if !append.is_empty() && !text.is_empty() && !text.ends_with('\n') {
                out.push(b"\n");
            }
            for json in append {
                out.push(json.as_bytes());
                out.push(b"\n");
            }
            out
        }
    }
}

/// Creates the store at `path` holding `bytes`, unless it exists by the time the
/// lock is held (another process's store is never replaced); returns whether it
/// wrote. The write is atomic and the file gets the mode every store write gives.
///
/// # Errors
///
/// `StoreError::LockBusy` past the lock timeout, or an I/O error.
pub fn create_if_missing(path: &Path, bytes: &[u8], lock: LockOptions) -> Result<bool, StoreError> {
    let dir = parent_dir(path);
    let _guard = acquire_lock(path, lock.timeout)?;
    if path.exists() {
        return Ok(false);
    }
    replace_atomically(path, &dir, &[bytes])?;
    Ok(true)
}

pub(super) fn replace_atomically(
    path: &Path,
    dir: &Path,
    pieces: &[&[u8]],
) -> Result<(), StoreError> {
    replace_atomically_with(path, dir, pieces, &mut |_| Ok(()), &mut false)
}

/// [`replace_atomically`], calling `before_rename` with the synced temp
/// file's path just before it is renamed into place (the journal of
/// [`super::journal`]); `renamed` says whether the rename was made, also
/// when a later step failed.
pub(super) fn replace_atomically_with(
    path: &Path,
    dir: &Path,
    pieces: &[&[u8]],
    before_rename: &mut dyn FnMut(&Path) -> Result<(), StoreError>,
    renamed: &mut bool,
) -> Result<(), StoreError> {
    crate::files::refuse_symlink(path).map_err(|e| StoreError::io(path, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(path))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| StoreError::io(dir, e))?;
    let tmp_path = tmp.path().to_path_buf();
    for piece in pieces {
        tmp.write_all(piece)
            .map_err(|e| StoreError::io(&tmp_path, e))?;
    }
    // Keep the store's mode (tempfile creates 0600); a new store gets the usual 0644.
    let permissions = match fs::metadata(path) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(permissions) = permissions {
        fs::set_permissions(&tmp_path, permissions).map_err(|e| StoreError::io(&tmp_path, e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| StoreError::io(&tmp_path, e))?;
    before_rename(&tmp_path)?;
    crate::fault::point("store.before_rename");
    tmp.persist(path)
        .map_err(|e| StoreError::io(path, e.error))?;
    *renamed = true;
    crate::fault::point("store.after_rename");
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError::io(dir, e))?;
    Ok(())
}

#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::super::model::LeaseState;
    use super::*;

    #[test]
    fn nesting_is_measured_outside_strings() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(!nested_deeper_than(deep(64).as_bytes(), 64));
        assert!(nested_deeper_than(deep(65).as_bytes(), 64));
        let quoted = format!("{{\"t\":\"{}\\\"\"}}", "[".repeat(200));
        assert!(!nested_deeper_than(quoted.as_bytes(), 64), "{quoted}");
        let line = format!("{{\"id\":\"bd-1\",\"title\":\"x\",\"x\":{}}}", deep(130));
        let e = Store::parse(Path::new("s"), &line).err().unwrap();
        assert!(e.to_string().contains("nested more than 64 levels"), "{e}");
    }

    #[test]
    fn a_kept_parse_is_used_only_for_the_same_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("issues.jsonl");
        let store = IssueStore::Jsonl(path.clone());
        let title = |store: &IssueStore| {
            store
                .read(|s| s.get("a").map(|i| i.title.as_str().to_string()))
                .unwrap()
        };
        // Same length, same second, same directory entry rewritten in place:
        // nothing but the bytes tells the two versions apart.
        std::fs::write(&path, "{\"id\":\"a\",\"title\":\"one\"}\n").unwrap();
        assert_eq!(title(&store).as_deref(), Some("one"));
        assert_eq!(title(&store).as_deref(), Some("one"));
        std::fs::write(&path, "{\"id\":\"a\",\"title\":\"two\"}\n").unwrap();
        assert_eq!(title(&store).as_deref(), Some("two"));
        // Another store with the very text the first one had is its own.
        let other = dir.path().join("other.jsonl");
        std::fs::write(&other, "{\"id\":\"b\",\"title\":\"two\"}\n").unwrap();
        assert_eq!(title(&IssueStore::Jsonl(other)), None);
        // A corrupt text is refused every time, never served from the last parse.
        std::fs::write(&path, "{\"id\":\"a\",\"title\":\"two\"\n").unwrap();
        assert!(store.read(|_| ()).is_err());
        assert!(store.read(|_| ()).is_err());

        // A store of several slices of the comparison (unchanged_parse):
        // changed in its last line only, grown, shrunk, removed.
        let lines: Vec<String> = (0..6000)
            .map(|i| format!("{{\"id\":\"i{i}\",\"title\":\"t{i}\"}}\n"))
            .collect();
        let many = lines.concat();
        assert!(many.len() > 2 * 64 * 1024);
        let title_of = |id: &str| {
            store
                .read(|s| s.get(id).map(|i| i.title.as_str().to_string()))
                .unwrap()
        };
        std::fs::write(&path, &many).unwrap();
        assert_eq!(title_of("i5999").as_deref(), Some("t5999"));
        assert_eq!(title_of("i5999").as_deref(), Some("t5999"));
        std::fs::write(&path, many.replace("\"t5999\"", "\"u5999\"")).unwrap();
        assert_eq!(title_of("i5999").as_deref(), Some("u5999"));
        std::fs::write(&path, format!("{many}{{\"id\":\"z\",\"title\":\"z\"}}\n")).unwrap();
        assert_eq!(title_of("z").as_deref(), Some("z"));
        std::fs::write(&path, lines[..3000].concat()).unwrap();
        assert_eq!(title_of("i5999"), None);
        assert_eq!(title_of("i2999").as_deref(), Some("t2999"));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(store.read(|s| s.lines.len()).unwrap(), 0);
    }

    #[test]
    fn last_line_wins_and_blank_lines_are_skipped() {
        let text = "{\"id\":\"a\",\"title\":\"one\"}\n\n{\"id\":\"a\",\"title\":\"two\"}\r\n";
        let store = Store::parse(Path::new("s"), text).unwrap();
        assert_eq!(store.lines.len(), 2);
        assert_eq!(store.get("a").unwrap().title.as_str(), "two");
        assert_eq!(store.get("a").unwrap().line, 3);
        assert_eq!(
            store.raw(store.get("a").unwrap()),
            "{\"id\":\"a\",\"title\":\"two\"}"
        );
        assert_eq!(store.issues().count(), 1);
    }

    #[test]
    fn corrupt_lines_are_named() {
        let cases = [
            ("{\"id\":\"a\",\"title\":\"t\"}\n{not json\n", 2, "not valid JSON"),
            ("{\"id\":\"a\"}\n", 1, "missing field `title`"),
            ("[\"a\",\"b\"]\n", 1, "not a JSON object"),
            ("{\"id\":\"a\",\"title\":\"t\"}\n{\"id\":\"b\",\"title\":\"t\",\"x\":\"\u{0}\"}\n", 2, "NUL"),
            (
                "{\"id\":\"a\",\"title\":\"t\",\"dependencies\":[{\"issue_id\":\"a\",\"depends_on_id\":\"b\",\"type\":\"nope\"}]}\n",
                1,
                "unknown dependency type \"nope\"",
            ),
        ];
        for (text, line, needle) in cases {
            match Store::parse(Path::new("s"), text) {
                Err(StoreError::Corrupt {
                    line: l, reason, ..
                }) => {
                    assert_eq!(l, line, "{text}");
                    assert!(reason.contains(needle), "{reason}");
                }
                other => panic!(
                    "expected corrupt for {text:?}, got {:?}",
                    other.map(|s| s.lines.len())
                ),
            }
        }
    }

    #[test]
    fn a_lease_is_active_strictly_before_its_expiry() {
        let text = "{\"id\":\"a\",\"title\":\"t\",\"lease\":{\"lease_id\":\"l\",\"owner\":\"o\",\"acquired_at\":\"2026-01-01T00:00:00Z\",\"expires_at\":\"2026-01-01T01:00:00+01:00\"}}";
        let store = Store::parse(Path::new("s"), text).unwrap();
        let issue = store.get("a").unwrap();
        let at = |t: &str| super::super::model::parse_time(t).unwrap();
        assert_eq!(
            issue.lease_state(at("2025-12-31T23:59:59Z")),
            LeaseState::Active
        );
        assert_eq!(
            issue.lease_state(at("2026-01-01T00:00:00Z")),
            LeaseState::Stale
        );
        assert_eq!(store.get("a").map(|i| i.lease.is_some()), Some(true));
        let bad = text.replace("2026-01-01T01:00:00+01:00", "tomorrow");
        assert!(matches!(
            Store::parse(Path::new("s"), &bad),
            Err(StoreError::Corrupt { line: 1, .. })
        ));
    }

    #[test]
    fn dep_type_alias_is_accepted() {
        let text = "{\"id\":\"a\",\"title\":\"t\",\"dependencies\":[{\"issue_id\":\"a\",\"depends_on_id\":\"b\",\"dep_type\":\"related\"}]}";
        let store = Store::parse(Path::new("s"), text).unwrap();
        let dep = &store.get("a").unwrap().deps[0];
        assert_eq!(dep.dep_type, "related");
        assert!(!dep.blocking);
    }

    #[test]
    fn parallel_parse_matches_sequential_and_numbers_lines() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!(
                "{{\"id\":\"x-{}\",\"title\":\"{}\"}}\n\n",
                i % 1500,
                "t".repeat(3000)
            ));
        }
        assert!(text.len() > crate::jsonl::PARALLEL_BYTES);
        let store = Store::parse(Path::new("s"), &text).unwrap();
        assert_eq!(store.lines.len(), 2000);
        assert_eq!(store.issue_count(), 1500);
        assert!(store
            .lines
            .iter()
            .enumerate()
            .all(|(i, l)| l.line == 2 * i + 1));
        assert_eq!(store.get("x-0").unwrap().line, 3001);
        text.push_str("{broken\n");
        match Store::parse(Path::new("s"), &text) {
            Err(StoreError::Corrupt { line, .. }) => assert_eq!(line, 4001),
            other => panic!("expected corrupt, got {:?}", other.map(|s| s.lines.len())),
        }
    }

    #[test]
    fn splice_keeps_other_bytes() {
        let text = "{\"id\":\"a\",\"title\":\"t\"}\r\n{\"id\":\"b\",\"title\":\"u\"}";
        let store = Store::parse(Path::new("s"), text).unwrap();
        let joined = |edit: &Edit| splice(&store, edit).concat();
        let replace = Edit::Replace {
            line_index: 0,
            json: "{\"id\":\"a\",\"title\":\"x\"}".into(),
        };
        assert_eq!(
            joined(&replace),
            b"{\"id\":\"a\",\"title\":\"x\"}\r\n{\"id\":\"b\",\"title\":\"u\"}"
        );
        let append = Edit::Append { json: "{}".into() };
        assert_eq!(joined(&append), format!("{text}\n{{}}\n").into_bytes());
    }
}
