//! Atomic runs (issue 59): a run's changes to the issue store staged in
//! memory, seen by its own reads, and applied in one commit or not at all.
//!
//! An atomic run's host actions get an [`IssueStore::Staged`] store: its
//! first use reads the real store's text once (the run's *base*); every
//! mutation after runs the same code as on the real store, on the staged
//! text, and edits only that; every view reads the staged text. Nothing
//! reaches the real store until [`Overlay::commit`], which, in one critical
//! section of the real store (one group-commit write and sync on the file
//! store, one transaction on PostgreSQL):
//!
//! 1. checks that every issue the run *read or wrote* is still what the base
//!    held (optimistic concurrency): an issue the run wrote, or named by
//!    `id` in a call's arguments (`issue.show`, `issue.claim`, …). A view's
//!    answer (`issue.ready`, `issue.list`) is not a read of every issue it
//!    lists; an issue the run added must still be absent. Anything moved:
//!    nothing is written, and the conflict names the issues and fields;
//! 2. writes each written issue's staged line as one [`Edit::Batch`]: lines
//!    replaced in place, new issues appended.
//!
//! The staged text may grow past the base by at most the run's memory
//! limit ([`Overlay::new`]): a run cannot make its host hold more than its
//! own worker may.

use super::model::Issue;
use super::store::{Edit, IssueStore, LockOptions, ParsedStore, Store, StoreError};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// A run's staged store.
pub struct Overlay {
    base: IssueStore,
    /// Bytes the staged text may grow past the base.
    growth: u64,
    state: Mutex<Staged>,
}

#[derive(Default)]
struct Staged {
    /// The real store's text when the run first used it; none before.
    base: Option<String>,
    /// The base with the run's edits, parsed once and edited in place (a
    /// mutation re-parses only the line it writes).
    staged: Option<ParsedStore>,
    /// The staged text's length.
    len: u64,
    /// Issues the run's mutations wrote (changed or added).
    written: BTreeSet<String>,
    /// Issues the run's calls named by `id`.
    read: BTreeSet<String>,
    /// The mutations the run staged (the plan's `actions`).
    actions: BTreeSet<String>,
    /// A staged mutation needs an approved plan (issue 59): the run's
    /// commit waits for one.
    gated: bool,
}

/// What moved under a run: one issue, the fields that differ between the
/// run's base and the store now (`["id"]` for an issue added meanwhile
/// under an id the run added too).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    pub id: String,
    pub fields: Vec<String>,
}

/// One issue the run changed: its fields at the base (none for an issue
/// the run added) and staged.
#[derive(Clone, Debug)]
pub struct Change {
    pub id: String,
    pub before: Option<Map<String, Value>>,
    pub after: Map<String, Value>,
}

/// What [`Overlay::commit`] did.
#[derive(Debug)]
pub enum Committed {
    /// The staged lines are in the store: these issues.
    Applied(Vec<String>),
    /// Nothing was written: these moved.
    Conflict(Vec<Conflict>),
}

impl std::fmt::Debug for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlay")
            .field("base", &self.base)
            .field("growth", &self.growth)
            .finish_non_exhaustive()
    }
}

impl Overlay {
    /// A staged view of `base` whose text may grow by `growth` bytes.
    pub fn new(base: IssueStore, growth: u64) -> Arc<Self> {
        Arc::new(Self {
            base: base.unstaged().clone(),
            growth,
            state: Mutex::new(Staged::default()),
        })
    }

    /// The real store.
    pub fn base(&self) -> &IssueStore {
        &self.base
    }

    fn lock(&self) -> MutexGuard<'_, Staged> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state, with the base read on first use.
    fn loaded(&self) -> Result<MutexGuard<'_, Staged>, StoreError> {
        let mut state = self.lock();
        if state.base.is_none() {
            let text = self.base.read_text()?;
            let path = self.base.path().to_path_buf();
            state.len = text.len() as u64;
            state.staged = Some(ParsedStore::try_new(text.clone(), |t| {
                Store::parse(&path, t)
            })?);
            state.base = Some(text);
        }
        Ok(state)
    }

    /// The staged text.
    ///
    /// # Errors
    /// The real store could not be read (first use).
    pub fn read_text(&self) -> Result<String, StoreError> {
        let state = self.loaded()?;
        let staged = state.staged.as_ref().expect("loaded");
        let bytes = staged.with_dependent(|_, s| s.pieces().concat());
        Ok(String::from_utf8(bytes).expect("pieces of UTF-8 text"))
    }

    /// `view` of the staged store, with `rule`.
    ///
    /// # Errors
    /// The real store could not be read (first use), or a staged line is corrupt.
    pub fn read<T>(
        &self,
        rule: super::readiness::Readiness,
        view: impl FnOnce(&Store<'_>) -> T,
    ) -> Result<T, StoreError> {
        let state = self.loaded()?;
        let staged = state.staged.as_ref().expect("loaded");
        Ok(staged.with_dependent(|_, store| {
            store.set_readiness(rule);
            view(store)
        }))
    }

    /// One mutation on the staged store: `apply` decides on the staged
    /// text, its edit changes only that.
    ///
    /// # Errors
    /// As [`Overlay::read`]; a whole-store replacement is refused (no host
    /// action makes one); a staged text past its bound is an I/O error
    /// naming the bound, and nothing is staged.
    pub fn mutate<T>(
        &self,
        rule: super::readiness::Readiness,
        mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
    ) -> Result<T, StoreError> {
        let mut state = self.loaded()?;
        let path = self.base.path().to_path_buf();
        let (out, edit, id) = {
            let staged = state.staged.as_ref().expect("loaded");
            let decided = staged.with_dependent(|_, store| {
                store.set_readiness(rule);
                let (out, edit) = apply(store);
                let id = match &edit {
                    Some(Edit::Replace { line_index, .. }) => {
                        Some(store.lines[*line_index].id.as_str().to_string())
                    }
                    _ => None,
                };
                (out, edit, id)
            });
            match decided {
                (out, None, _) => return Ok(out),
                (out, Some(edit), id) => (out, edit, id),
            }
        };
        let (added, id) = match &edit {
            Edit::Replace { json, .. } => (json.len() as i64, id.unwrap_or_default()),
            Edit::Append { json } => {
                let id = Store::parse(&path, json)?
                    .issues()
                    .next()
                    .map(|i| i.id.as_str().to_string())
                    .unwrap_or_default();
                (json.len() as i64 + 1, id)
            }
            Edit::ReplaceAll { .. } | Edit::Batch { .. } => return Err(unsupported(&path)),
        };
        // A replaced line's growth is bounded by its whole new length: a
        // bound, never an undercount.
        let len = state.len.saturating_add(added.max(0) as u64);
        let base_len = state.base.as_ref().map_or(0, String::len) as u64;
        if len > base_len.saturating_add(self.growth) {
            return Err(StoreError::Io {
                path: path.display().to_string(),
                source: std::io::Error::other(format!(
                    "an atomic run's staged changes may add at most {} bytes to the store \
                     (the run's memory limit); this one would add {}: stage fewer or smaller \
                     changes per run",
                    self.growth,
                    len - base_len
                )),
            });
        }
        let staged = state.staged.as_mut().expect("loaded");
        // The staged line must read back as an issue (as a write checks).
        if !staged.with_dependent_mut(|_, s| s.edit_in_place(&path, &edit))? {
            let text = staged.with_dependent(|_, s| s.pieces().concat());
            let text = String::from_utf8(text).expect("pieces of UTF-8 text");
            let parsed = Store::parse(&path, &text)?;
            let next = super::store::splice(&parsed, &edit).concat();
            let next = String::from_utf8(next).expect("pieces of UTF-8 text");
            *staged = ParsedStore::try_new(next, |t| Store::parse(&path, t))?;
        }
        state.len = len;
        state.written.insert(id);
        Ok(out)
    }

    /// Notes that a call named issue `id`: it must not move before the commit.
    pub fn note_read(&self, id: &str) {
        self.lock().read.insert(id.to_string());
    }

    /// Notes a mutation the run staged; `gated` when it needs an approved plan.
    pub fn note_action(&self, action: &str, gated: bool) {
        let mut state = self.lock();
        state.actions.insert(action.to_string());
        state.gated |= gated;
    }

    /// The mutations the run staged, sorted.
    pub fn actions(&self) -> Vec<String> {
        self.lock().actions.iter().cloned().collect()
    }

    /// Whether a staged mutation needs an approved plan.
    pub fn gated(&self) -> bool {
        self.lock().gated
    }

    /// Whether the run staged any change.
    pub fn has_changes(&self) -> bool {
        !self.lock().written.is_empty()
    }

    /// The issues the run read (named) and wrote, each once, sorted.
    pub fn read_and_written(&self) -> (Vec<String>, Vec<String>) {
        let state = self.lock();
        (
            state.read.iter().cloned().collect(),
            state.written.iter().cloned().collect(),
        )
    }

    /// The run's changes, issue by issue (sorted by id).
    ///
    /// # Errors
    /// A base or staged line that no longer parses (never, once staged).
    pub fn changes(&self) -> Result<Vec<Change>, StoreError> {
        let state = self.lock();
        let Some(base_text) = state.base.as_deref() else {
            return Ok(Vec::new());
        };
        let path = self.base.path();
        let base = Store::parse(path, base_text)?;
        let staged = state.staged.as_ref().expect("loaded with the base");
        Ok(staged.with_dependent(|_, staged| {
            state
                .written
                .iter()
                .filter_map(|id| {
                    let after = object(staged, staged.get(id)?);
                    let before = base.get(id).map(|i| object(&base, i));
                    Some(Change {
                        id: id.clone(),
                        before,
                        after,
                    })
                })
                .collect()
        }))
    }

    /// The base lines of `ids` (absent ones left out), as the plan's versions.
    ///
    /// # Errors
    /// The base no longer parses (never).
    pub fn base_lines(&self, ids: &[String]) -> Result<Vec<(String, Option<String>)>, StoreError> {
        let state = self.lock();
        let base_text = state.base.as_deref().unwrap_or("");
        let base = Store::parse(self.base.path(), base_text)?;
        Ok(ids
            .iter()
            .map(|id| (id.clone(), base.get(id).map(|i| base.raw(i).to_string())))
            .collect())
    }

    /// Applies the staged changes to the real store in one critical
    /// section, unless an issue the run read or wrote moved (see the module
    /// docs).
    ///
    /// # Errors
    /// The real store could not be locked, read or written: nothing was
    /// written.
    pub fn commit(&self, lock: LockOptions) -> Result<Committed, StoreError> {
        let state = self.lock();
        let Some(base_text) = state.base.as_deref() else {
            return Ok(Committed::Applied(Vec::new()));
        };
        if state.written.is_empty() {
            return Ok(Committed::Applied(Vec::new()));
        }
        let path = self.base.path().to_path_buf();
        let base = Store::parse(&path, base_text)?;
        let watched: BTreeSet<&String> = state.read.iter().chain(&state.written).collect();
        let written: Vec<String> = state.written.iter().cloned().collect();
        // The staged lines of the written issues, taken once.
        let lines: Vec<(String, String)> = state
            .staged
            .as_ref()
            .expect("loaded with the base")
            .with_dependent(|_, staged| {
                written
                    .iter()
                    .filter_map(|id| Some((id.clone(), staged.raw(staged.get(id)?).to_string())))
                    .collect()
            });
        self.base.mutate(lock, |now: &Store<'_>| {
            let conflicts: Vec<Conflict> = watched
                .iter()
                .filter_map(|id| moved(&base, now, id))
                .collect();
            if !conflicts.is_empty() {
                return (Committed::Conflict(conflicts), None);
            }
            let mut replace = Vec::new();
            let mut append = Vec::new();
            for (id, line) in &lines {
                match now.index_of(id) {
                    Some(index) => replace.push((index, line.clone())),
                    None => append.push(line.clone()),
                }
            }
            (
                Committed::Applied(written.clone()),
                Some(Edit::Batch { replace, append }),
            )
        })
    }
}

fn unsupported(path: &Path) -> StoreError {
    StoreError::Io {
        path: path.display().to_string(),
        source: std::io::Error::other(
            "a whole-store replacement cannot be staged in an atomic run",
        ),
    }
}

/// The JSON object of `issue`'s line.
fn object(store: &Store<'_>, issue: &Issue<'_>) -> Map<String, Value> {
    serde_json::from_str(store.raw(issue)).unwrap_or_default()
}

/// How issue `id` differs between `base` and `now`, when it does.
fn moved(base: &Store<'_>, now: &Store<'_>, id: &str) -> Option<Conflict> {
    let (was, is) = (base.get(id), now.get(id));
    let fields = match (was, is) {
        (None, None) => return None,
        (None, Some(_)) | (Some(_), None) => vec!["id".to_string()],
        (Some(was), Some(is)) => {
            if base.raw(was) == now.raw(is) {
                return None;
            }
            let (a, b) = (object(base, was), object(now, is));
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            let fields: Vec<String> = keys
                .into_iter()
                .filter(|k| a.get(*k) != b.get(*k))
                .cloned()
                .collect();
            if fields.is_empty() {
                return None;
            }
            fields
        }
    };
    Some(Conflict {
        id: id.to_string(),
        fields,
    })
}
