//! The harness trajectory: append-only `premath.harness.step.v1` rows in a JSONL
//! file, and the deterministic projection over them.
//!
//! Writing: [`StepRow::normalized`] is the one place a row is normalized (refs
//! trimmed, sorted, de-duplicated, empties dropped; timestamps validated), and
//! [`TrajectoryWriter::append`] the one place a row reaches the file. Each row is
//! one line written by a single `write` on an `O_APPEND` descriptor while holding
//! an exclusive lock on the file, so rows of concurrent processes never interleave.
//! Rows are flushed to the OS, not fsynced: a step row must survive the worker
//! crashing, and a per-step fsync would cost milliseconds.
//!
//! Reading: [`scan_file`] is the one reader. It validates every line into a borrowed
//! view (no `serde_json::Value` per row), in parallel chunks, and reports the first
//! bad line by number. A last line without its newline that does not parse is a
//! torn append: it is skipped with a warning. Blank lines carry no row and are
//! skipped. The next append moves such a torn tail into `<file>.torn` (so its bytes
//! are kept) before writing, so it never ends up glued to a new row.
//!
//! [`classify`] is the one success/retry classification; the projection and the
//! KPI both call it.

use super::{lock_with_timeout, normalized_refs, parse_timestamp, trimmed};
use crate::harness::HarnessClass;
use crate::host::HostClass;
use crate::logs::LogStore;
use chrono::{DateTime, Utc};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// Row kind and schema of a trajectory row.
pub const STEP_KIND: &str = "premath.harness.step.v1";
/// Kind of the `query` output.
pub const PROJECTION_KIND: &str = "premath.harness.trajectory.projection.v1";
/// Default `--limit` of a projection.
pub const DEFAULT_LIMIT: usize = 20;

/// Why a row could not be written or a trajectory could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TrajectoryError {
    /// A row to append is invalid (empty required field, malformed timestamp).
    #[error("{field}: {reason}")]
    InvalidRow { field: &'static str, reason: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A line of the file is not a valid row (other than a torn last line).
    #[error("{path}: line {line}: {reason}")]
    Corrupt {
        path: String,
        line: usize,
        reason: String,
    },
    /// The shared store could not be used.
    #[error(transparent)]
    Store(#[from] crate::pg::PgError),
}

impl TrajectoryError {
    /// The failure class a host action reports for this error.
    pub fn class(&self) -> &'static str {
        match self {
            TrajectoryError::InvalidRow { .. } => HostClass::ArgsInvalid.as_str(),
            TrajectoryError::Io { .. } => HarnessClass::IoError.as_str(),
            TrajectoryError::Corrupt { .. } => HarnessClass::TrajectoryCorrupt.as_str(),
            TrajectoryError::Store(e) => e.class(),
        }
    }

    /// The error of a log that could not be read (or spooled).
    pub fn from_log(log: &LogStore, e: crate::logs::LogReadError) -> Self {
        match e {
            crate::logs::LogReadError::Io(source) => Self::io(log.path(), source),
            crate::logs::LogReadError::Store(e) => TrajectoryError::Store(e),
        }
    }

    fn io(path: &Path, source: io::Error) -> Self {
        TrajectoryError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

// ---------------------------------------------------------------------------
// Classification

/// How a result class counts: the KPI's "completed" rows are the successes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// Failed, and not retryable by class.
    Failed,
    /// Failed with a class that names a transient cause.
    RetryNeeded,
}

impl Outcome {
    /// Counts as completed for the KPI.
    pub fn is_success(self) -> bool {
        self == Outcome::Success
    }
    /// Selected by the `failed` projection (retry-needed rows included).
    pub fn is_failed(self) -> bool {
        self != Outcome::Success
    }
    /// Selected by the `retry-needed` projection.
    pub fn is_retry_needed(self) -> bool {
        self == Outcome::RetryNeeded
    }
}

const SUCCESS_CLASSES: [&str; 6] = [
    "accepted",
    "verified_accept",
    "completed",
    "success",
    "ok",
    "passed",
];
const RETRY_MARKERS: [&str; 5] = ["retry", "transient", "timeout", "network", "rate_limit"];

/// Classifies a result class: lower-cased with `-` read as `_` (surrounding
/// whitespace ignored), it is a success when one of the canonical success classes;
/// every other class failed, and retry-needed when it names a transient cause.
pub fn classify(result_class: &str) -> Outcome {
    let trimmed = result_class.trim();
    // Rows carry few distinct, short, ASCII classes: normalize on the stack.
    let mut buf = [0u8; 64];
    let owned;
    let norm: &[u8] = if trimmed.is_ascii() && trimmed.len() <= buf.len() {
        for (dst, src) in buf.iter_mut().zip(trimmed.bytes()) {
            *dst = match src.to_ascii_lowercase() {
                b'-' => b'_',
                b => b,
            };
        }
        &buf[..trimmed.len()]
    } else {
        owned = trimmed.to_lowercase().replace('-', "_");
        owned.as_bytes()
    };
    if SUCCESS_CLASSES.iter().any(|s| s.as_bytes() == norm) {
        Outcome::Success
    } else if RETRY_MARKERS
        .iter()
        .any(|m| norm.windows(m.len()).any(|w| w == m.as_bytes()))
    {
        Outcome::RetryNeeded
    } else {
        Outcome::Failed
    }
}

/// A projection mode of `query`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjectionMode {
    Latest,
    Failed,
    RetryNeeded,
}

impl ProjectionMode {
    /// Reads a `--mode` value (`latest`, `failed`, `retry-needed`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "latest" => Some(ProjectionMode::Latest),
            "failed" => Some(ProjectionMode::Failed),
            "retry-needed" => Some(ProjectionMode::RetryNeeded),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectionMode::Latest => "latest",
            ProjectionMode::Failed => "failed",
            ProjectionMode::RetryNeeded => "retry-needed",
        }
    }
    /// The projection's `mode` member, spelt as the reference echoes it.
    pub fn echo(self) -> &'static str {
        match self {
            ProjectionMode::RetryNeeded => "retry_needed",
            other => other.as_str(),
        }
    }
    fn selects(self, outcome: Outcome) -> bool {
        match self {
            ProjectionMode::Latest => true,
            ProjectionMode::Failed => outcome.is_failed(),
            ProjectionMode::RetryNeeded => outcome.is_retry_needed(),
        }
    }
}

// ---------------------------------------------------------------------------
// Writing

/// The action of the step row every host run appends (`tusk eval`, a REPL
/// form, a server call), whatever its outcome.
pub const RUN_STEP_ACTION: &str = "scheme_eval.run";

/// Whether a row records one host call of a run (`scheme_eval.<action id>`)
/// rather than a step: projections list both, the KPI counts steps only.
pub fn is_host_call_row(action: &str) -> bool {
    action.starts_with("scheme_eval.") && action != RUN_STEP_ACTION
}

/// One step outcome, as the evaluator or the CLI hands it in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepRow {
    pub step_id: String,
    pub action: String,
    pub result_class: String,
    /// RFC3339.
    pub finished_at: String,
    pub issue_id: Option<String>,
    pub instruction_refs: Vec<String>,
    pub witness_refs: Vec<String>,
    pub lineage_refs: Vec<String>,
    /// RFC3339.
    pub started_at: Option<String>,
}

impl StepRow {
    /// The normalized `premath.harness.step.v1` row (keys in canonical order).
    pub fn normalized(&self) -> Result<Value, TrajectoryError> {
        Ok(self.checked()?.value())
    }

    /// The row's line as the trajectory's writer writes it (no newline):
    /// what recovery appends for a call whose process died (issue 61).
    ///
    /// # Errors
    /// As [`TrajectorySink::record`]: a member the spec requires is blank.
    pub fn line(&self) -> Result<String, TrajectoryError> {
        let mut line = Vec::new();
        self.checked()?.write_line_to(&mut line);
        line.pop();
        Ok(String::from_utf8(line).expect("serde_json writes UTF-8"))
    }

    /// Validates and normalizes the row: trimmed members, blank optional
    /// members and refs dropped, refs sorted without repeats.
    fn checked(&self) -> Result<Normalized<'_>, TrajectoryError> {
        let started_at = match self.started_at.as_deref().and_then(trimmed) {
            Some(s) => Some(timestamp("startedAt", s)?),
            None => None,
        };
        Ok(Normalized {
            action: required("action", &self.action)?,
            finished_at: timestamp("finishedAt", &self.finished_at)?,
            instruction_refs: normalized_refs(&self.instruction_refs),
            issue_id: self.issue_id.as_deref().and_then(trimmed),
            lineage_refs: normalized_refs(&self.lineage_refs),
            result_class: required("resultClass", &self.result_class)?,
            schema: 1,
            started_at,
            step_id: required("stepId", &self.step_id)?,
            step_kind: STEP_KIND,
            witness_refs: normalized_refs(&self.witness_refs),
        })
    }
}

/// A checked step row. Its members are declared in canonical (sorted) key
/// order, so serde writes the canonical line straight from it, and the
/// writer never builds a map per row (one per host call).
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Normalized<'a> {
    action: &'a str,
    finished_at: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    instruction_refs: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    issue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    lineage_refs: Vec<&'a str>,
    result_class: &'a str,
    schema: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<&'a str>,
    step_id: &'a str,
    step_kind: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    witness_refs: Vec<&'a str>,
}

impl Normalized<'_> {
    /// The row as JSON (keys in canonical order).
    fn value(&self) -> Value {
        crate::host::payload_json(self)
    }

    /// The row's canonical line, newline included.
    #[cfg(test)]
    fn line(&self) -> Vec<u8> {
        let mut line = Vec::new();
        self.write_line_to(&mut line);
        line
    }

    /// Writes the row's canonical line, newline included, to the end of `line`.
    fn write_line_to(&self, line: &mut Vec<u8>) {
        serde_json::to_writer(&mut *line, self).expect("a step row serializes");
        line.push(b'\n');
    }
}

/// A required member, trimmed.
fn required<'a>(field: &'static str, value: &'a str) -> Result<&'a str, TrajectoryError> {
    trimmed(value).ok_or(TrajectoryError::InvalidRow {
        field,
        reason: "must not be empty".into(),
    })
}

/// An RFC 3339 member, trimmed.
fn timestamp<'a>(field: &'static str, value: &'a str) -> Result<&'a str, TrajectoryError> {
    parse_timestamp(value)
        .map(|_| value.trim())
        .map_err(|reason| TrajectoryError::InvalidRow { field, reason })
}

/// Appends one row to the trajectory at `path` (creating directories and the file)
/// and returns the normalized row. Warnings (a torn tail moved aside) go to stderr.
pub fn append(path: &Path, row: &StepRow) -> Result<Value, TrajectoryError> {
    let mut writer = TrajectoryWriter::open(path)?;
    let value = writer.append(row)?;
    for warning in writer.take_warnings() {
        eprintln!("warning: {warning}");
    }
    Ok(value)
}

/// Appends one row to the trajectory wherever it lives (see [`append`]).
///
/// # Errors
///
/// An invalid row, or the file's or the database's error.
pub fn append_to(log: &LogStore, row: &StepRow) -> Result<Value, TrajectoryError> {
    TrajectorySink::open(log)?.append(row)
}

/// [`query`] on the trajectory wherever it lives.
///
/// # Errors
///
/// As [`query`], plus the database's.
pub fn query_store(
    log: &LogStore,
    mode: ProjectionMode,
    limit: usize,
) -> Result<Projection, TrajectoryError> {
    log.with_file(
        |e| TrajectoryError::from_log(log, e),
        |path| query(path, mode, limit),
    )
}

/// A trajectory open for appends: its file's writer, or the database.
#[derive(Debug)]
pub enum TrajectorySink {
    File(TrajectoryWriter),
    Db(std::sync::Arc<crate::pg::PgStore>),
}

impl TrajectorySink {
    /// Opens the trajectory at `log` for appending.
    ///
    /// # Errors
    ///
    /// The file cannot be created or opened.
    pub fn open(log: &LogStore) -> Result<Self, TrajectoryError> {
        Ok(match log {
            LogStore::File(path) => TrajectorySink::File(TrajectoryWriter::open(path)?),
            LogStore::Postgres { pg, .. } => TrajectorySink::Db(pg.clone()),
        })
    }

    /// Makes sure `more` bytes can be appended (the file-size limit, the
    /// file system's space) before a mutation whose row they are.
    ///
    /// # Errors
    ///
    /// The file cannot grow by `more`.
    pub fn reserve(&self, more: u64) -> Result<(), TrajectoryError> {
        match self {
            TrajectorySink::File(writer) => crate::logs::reserve(&writer.file, more)
                .map_err(|e| TrajectoryError::io(&writer.path, e)),
            TrajectorySink::Db(_) => Ok(()),
        }
    }

    /// Validates, normalizes and appends `row` as one line; returns the row written.
    /// Warnings (a torn file tail moved aside) go to stderr.
    ///
    /// # Errors
    ///
    /// An invalid row, or the file's or the database's error.
    pub fn append(&mut self, row: &StepRow) -> Result<Value, TrajectoryError> {
        let checked = row.checked()?;
        self.write(&checked)?;
        Ok(checked.value())
    }

    /// [`TrajectorySink::append`] for a writer that does not need the row back
    /// (a run's host calls: one row each).
    ///
    /// # Errors
    ///
    /// As [`TrajectorySink::append`].
    pub fn record(&mut self, row: &StepRow) -> Result<(), TrajectoryError> {
        self.write(&row.checked()?)
    }

    fn write(&mut self, row: &Normalized<'_>) -> Result<(), TrajectoryError> {
        match self {
            TrajectorySink::File(writer) => {
                writer.write_row(row)?;
                for warning in writer.take_warnings() {
                    eprintln!("warning: {warning}");
                }
                Ok(())
            }
            TrajectorySink::Db(pg) => {
                let line = serde_json::to_string(row).expect("a step row serializes");
                crate::pg::append_lines(pg, crate::pg::LogTable::Trajectory, &[&line])?;
                Ok(())
            }
        }
    }
}

/// An open trajectory for many appends from one process (the evaluator appends one
/// row per host call), with the same guarantees as [`append`].
#[derive(Debug)]
pub struct TrajectoryWriter {
    file: File,
    path: PathBuf,
    warnings: Vec<String>,
    /// The file's length right after this writer's last row (which ends in a
    /// newline): while the length is unchanged, no other writer came in between
    /// and the tail needs no look.
    end: Option<u64>,
    /// The line being written, kept between rows.
    line: crate::logs::LineBuffer,
}

impl TrajectoryWriter {
    /// Opens (creating when absent) the trajectory at `path` for appending.
    pub fn open(path: &Path) -> Result<Self, TrajectoryError> {
        let file = crate::logs::open_append(path).map_err(|e| TrajectoryError::io(path, e))?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
            warnings: Vec::new(),
            end: None,
            line: Default::default(),
        })
    }

    /// The trajectory file this writer appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Validates, normalizes and appends `row` as one line; returns the row written.
    pub fn append(&mut self, row: &StepRow) -> Result<Value, TrajectoryError> {
        let checked = row.checked()?;
        self.write_row(&checked)?;
        Ok(checked.value())
    }

    fn write_row(&mut self, row: &Normalized<'_>) -> Result<(), TrajectoryError> {
        let mut line = self.line.take();
        row.write_line_to(&mut line);
        let written = self.locked_write(&line);
        self.line.put_back(line);
        written
    }

    /// Writes `line` under the file's lock.
    fn locked_write(&mut self, line: &[u8]) -> Result<(), TrajectoryError> {
        lock_with_timeout(&self.file, &self.path)
            .map_err(|e| TrajectoryError::io(&self.path, e))?;
        let written = self.write_line(line);
        if written.is_err() {
            self.end = None;
        }
        let unlocked = self.file.unlock();
        written
            .and(unlocked)
            .map_err(|e| TrajectoryError::io(&self.path, e))
    }

    /// Warnings since the last call (each a torn tail moved to `<file>.torn`).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Called with the lock held: one `write` of the whole line, after the tail check.
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let len = self.file.metadata()?.len();
        let len = if self.end == Some(len) {
            len
        } else {
            self.repair_tail(len)?
        };
        if let Err(e) = self.file.write_all(line) {
            // No torn row: the lock is held, the part written is ours.
            let _ = self.file.set_len(len);
            return Err(e);
        }
        self.end = Some(len + line.len() as u64);
        Ok(())
    }

    /// Makes sure the file (of `len` bytes) ends with a newline, so the next row
    /// starts a line of its own, and returns the new length. A complete row that
    /// only lacks its newline gets one; a torn row (a writer died mid-append) is
    /// moved to `<file>.torn`.
    fn repair_tail(&mut self, len: u64) -> io::Result<u64> {
        if len == 0 {
            return Ok(0);
        }
        let mut last = [0u8; 1];
        (&self.file).seek(SeekFrom::Start(len - 1))?;
        (&self.file).read_exact(&mut last)?;
        if last[0] == b'\n' {
            return Ok(len);
        }
        let start = last_line_start(&self.file, len)?;
        let mut tail = vec![0u8; (len - start) as usize];
        (&self.file).seek(SeekFrom::Start(start))?;
        (&self.file).read_exact(&mut tail)?;
        if tail.iter().all(u8::is_ascii_whitespace) || parse_line(&tail).is_ok() {
            self.file.write_all(b"\n")?;
            return Ok(len + 1);
        }
        let mut torn_path = self.path.as_os_str().to_owned();
        torn_path.push(".torn");
        let torn_path = PathBuf::from(torn_path);
        let mut torn =
            crate::files::open(OpenOptions::new().append(true).create(true), &torn_path)?;
        tail.push(b'\n');
        torn.write_all(&tail)?;
        torn.sync_all()?;
        self.file.set_len(start)?;
        self.warnings.push(format!(
            "{}: moved a torn last line ({} bytes) to {}",
            self.path.display(),
            tail.len() - 1,
            torn_path.display()
        ));
        Ok(start)
    }
}

/// Offset just past the last `\n` before `len` (0 when there is none).
fn last_line_start(file: &File, len: u64) -> io::Result<u64> {
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        let mut f = file;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

// ---------------------------------------------------------------------------
// Reading

/// One validated row, borrowing from the file's bytes where it can.
#[derive(Clone, Debug)]
pub struct RowRef<'a> {
    pub step_id: Cow<'a, str>,
    pub action: Cow<'a, str>,
    pub result_class: Cow<'a, str>,
    pub finished_at: DateTime<Utc>,
    pub issue_id: Option<Cow<'a, str>>,
    pub outcome: Outcome,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRow<'a> {
    schema: u64,
    #[serde(borrow)]
    step_kind: Cow<'a, str>,
    #[serde(borrow)]
    step_id: Cow<'a, str>,
    #[serde(borrow)]
    action: Cow<'a, str>,
    #[serde(borrow)]
    result_class: Cow<'a, str>,
    #[serde(borrow)]
    finished_at: Cow<'a, str>,
    #[serde(borrow, default)]
    issue_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    started_at: Option<Cow<'a, str>>,
    // The ref lists are checked for type only; the projection returns the line itself.
    #[serde(default)]
    #[allow(dead_code)]
    instruction_refs: Option<StrList>,
    #[serde(default)]
    #[allow(dead_code)]
    witness_refs: Option<StrList>,
    #[serde(default)]
    #[allow(dead_code)]
    lineage_refs: Option<StrList>,
}

/// Checks that a value is an array of strings without keeping (or allocating) them.
struct StrList;

impl<'de> Deserialize<'de> for StrList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = StrList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrList, A::Error> {
                while seq.next_element::<AnyStr>()?.is_some() {}
                Ok(StrList)
            }
        }
        d.deserialize_seq(ListVisitor)
    }
}

struct AnyStr;

impl<'de> Deserialize<'de> for AnyStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl Visitor<'_> for StrVisitor {
            type Value = AnyStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyStr, E> {
                Ok(AnyStr)
            }
        }
        d.deserialize_str(StrVisitor)
    }
}

/// Validates one line as a `premath.harness.step.v1` row.
pub fn parse_line(line: &[u8]) -> Result<RowRef<'_>, String> {
    // One UTF-8 check per line is much cheaper than serde_json's check per string.
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))?;
    let raw: RawRow<'_> = serde_json::from_str(text).map_err(|e| {
        // The line is the unit here; the column is enough to find the spot.
        let msg = e.to_string();
        match msg.rfind(" at line ") {
            Some(i) => format!("{} (column {})", &msg[..i], e.column()),
            None => msg,
        }
    })?;
    if raw.schema != 1 {
        return Err(format!("schema must be 1, found {}", raw.schema));
    }
    if raw.step_kind != STEP_KIND {
        return Err(format!(
            "stepKind must be {STEP_KIND:?}, found {:?}",
            raw.step_kind
        ));
    }
    for (field, value) in [
        ("stepId", &raw.step_id),
        ("action", &raw.action),
        ("resultClass", &raw.result_class),
    ] {
        if value.trim().is_empty() {
            return Err(format!("{field} must not be empty"));
        }
    }
    let finished_at = parse_timestamp(&raw.finished_at)
        .map_err(|e| format!("finishedAt: {e}"))?
        .with_timezone(&Utc);
    if let Some(started) = &raw.started_at {
        parse_timestamp(started).map_err(|e| format!("startedAt: {e}"))?;
    }
    let outcome = classify(&raw.result_class);
    Ok(RowRef {
        step_id: raw.step_id,
        action: raw.action,
        result_class: raw.result_class,
        finished_at,
        issue_id: raw.issue_id,
        outcome,
    })
}

/// Where a validated line is: its chunk of [`Loaded`] and its byte range there.
/// Ordered like the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineSpan {
    pub chunk: usize,
    pub start: usize,
    pub end: usize,
}

/// A trajectory's bytes as [`scan_file`] read them, in file-order chunks.
#[derive(Debug, Default)]
pub struct Loaded {
    chunks: Vec<Vec<u8>>,
}

impl Loaded {
    /// The bytes of a line the fold was handed.
    pub fn line(&self, span: LineSpan) -> &[u8] {
        &self.chunks[span.chunk][span.start..span.end]
    }
}

/// The result of reading a whole trajectory.
#[derive(Debug)]
pub struct Scan<A> {
    pub loaded: Loaded,
    pub acc: A,
    /// Non-fatal findings for stderr (a skipped torn last line).
    pub warnings: Vec<String>,
}

/// Files below this size are read and validated by one thread.
const MIN_PARALLEL: usize = 4 << 20;

/// Reads the trajectory at `path` (absent = no rows), validates every line and
/// folds the rows. Fails on the first bad line (by number), except a torn last
/// line, which becomes a warning. Large files are split into one chunk per core;
/// each thread reads and validates its own chunk, and the accumulators are merged
/// in file order.
pub fn scan_file<A, I, F, M>(
    path: &Path,
    init: I,
    fold: F,
    merge: M,
) -> Result<Scan<A>, TrajectoryError>
where
    A: Send,
    I: Fn() -> A + Sync,
    F: for<'a> Fn(&mut A, RowRef<'a>, LineSpan) + Sync,
    M: Fn(A, A) -> A,
{
    scan_file_with(path, default_threads(), MIN_PARALLEL, init, fold, merge)
}

fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(16)
}

fn scan_file_with<A, I, F, M>(
    path: &Path,
    threads: usize,
    min_parallel: usize,
    init: I,
    fold: F,
    merge: M,
) -> Result<Scan<A>, TrajectoryError>
where
    A: Send,
    I: Fn() -> A + Sync,
    F: for<'a> Fn(&mut A, RowRef<'a>, LineSpan) + Sync,
    M: Fn(A, A) -> A,
{
    let io_err = |e| TrajectoryError::io(path, e);
    let file = match crate::files::open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Scan {
                loaded: Loaded::default(),
                acc: init(),
                warnings: Vec::new(),
            })
        }
        Err(e) => return Err(io_err(e)),
    };
    // Rows appended after this point are not part of this read.
    let len = usize::try_from(file.metadata().map_err(io_err)?.len())
        .map_err(|_| io_err(io::Error::other("file too large for this platform")))?;
    let k = if len < min_parallel {
        1
    } else {
        threads.max(1)
    };
    let bounds: Vec<usize> = (0..=k)
        .map(|i| (len as u128 * i as u128 / k as u128) as usize)
        .collect();
    let work = |i: usize| -> io::Result<(Vec<u8>, ChunkResult<A>)> {
        // A descriptor of its own per thread: reads move the file offset.
        let own;
        let f = if i == 0 {
            &file
        } else {
            own = crate::files::open_read(path)?;
            &own
        };
        let (buf, range) = read_chunk(f, bounds[i], bounds[i + 1], len)?;
        let at_eof = range.end_offset == len;
        let result = scan_chunk(&buf, i, range.start..range.end, at_eof, &init, &fold);
        Ok((buf, result))
    };
    let results: Vec<io::Result<(Vec<u8>, ChunkResult<A>)>> = if k == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..k).map(|i| s.spawn(move || work(i))).collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a scan thread does not panic"))
                .collect()
        })
    };
    let mut lines_before = 0usize;
    let mut acc: Option<A> = None;
    let mut warnings = Vec::new();
    let mut chunks = Vec::with_capacity(k);
    for r in results {
        let (buf, r) = r.map_err(io_err)?;
        chunks.push(buf);
        if let Some((local_line, reason)) = r.error {
            return Err(TrajectoryError::Corrupt {
                path: path.display().to_string(),
                line: lines_before + local_line,
                reason,
            });
        }
        if let Some((local_line, reason)) = r.torn {
            warnings.push(format!(
                "{}: line {}: skipped a torn last line ({reason})",
                path.display(),
                lines_before + local_line
            ));
        }
        lines_before += r.lines;
        acc = Some(match acc {
            None => r.acc,
            Some(a) => merge(a, r.acc),
        });
    }
    Ok(Scan {
        loaded: Loaded { chunks },
        acc: acc.unwrap_or_else(&init),
        warnings,
    })
}

/// The lines a chunk owns, within its buffer, and the file offset where they end.
struct OwnedRange {
    start: usize,
    end: usize,
    end_offset: usize,
}

/// Reads the lines that start in `[lo, hi)` of a file of `len` bytes: from the
/// byte before `lo` (which says whether `lo` starts a line) up to the newline that
/// ends the line containing `hi - 1` (or the end of the file).
fn read_chunk(file: &File, lo: usize, hi: usize, len: usize) -> io::Result<(Vec<u8>, OwnedRange)> {
    let base = lo.saturating_sub(1);
    let mut buf = vec![0u8; hi - base];
    read_at(file, &mut buf, base)?;
    let start = if lo == 0 {
        0
    } else {
        memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1)
    };
    let region_end = buf.len();
    if start >= region_end {
        // No line starts here: an earlier chunk reads the line that covers it.
        return Ok((
            buf,
            OwnedRange {
                start: region_end,
                end: region_end,
                end_offset: base + region_end,
            },
        ));
    }
    if hi < len && buf[region_end - 1] != b'\n' {
        const STEP: usize = 64 * 1024;
        loop {
            let from = base + buf.len();
            let n = STEP.min(len - from);
            if n == 0 {
                break;
            }
            let old = buf.len();
            buf.resize(old + n, 0);
            read_at(file, &mut buf[old..], from)?;
            if let Some(i) = memchr::memchr(b'\n', &buf[old..]) {
                buf.truncate(old + i + 1);
                break;
            }
        }
    }
    let end = buf.len();
    Ok((
        buf,
        OwnedRange {
            start,
            end,
            end_offset: base + end,
        },
    ))
}

fn read_at(file: &File, buf: &mut [u8], offset: usize) -> io::Result<()> {
    let mut f = file;
    f.seek(SeekFrom::Start(offset as u64))?;
    f.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            io::Error::other("the file shrank while it was being read")
        } else {
            e
        }
    })
}

struct ChunkResult<A> {
    acc: A,
    lines: usize,
    /// (line number within the chunk, reason) of the first bad line.
    error: Option<(usize, String)>,
    torn: Option<(usize, String)>,
}

/// Validates and folds the lines of `bytes[range]`; `at_eof` says the range ends
/// where the file ends, so its last line may be a torn append.
fn scan_chunk<A, I, F>(
    bytes: &[u8],
    chunk: usize,
    range: std::ops::Range<usize>,
    at_eof: bool,
    init: &I,
    fold: &F,
) -> ChunkResult<A>
where
    I: Fn() -> A,
    F: for<'a> Fn(&mut A, RowRef<'a>, LineSpan),
{
    let mut acc = init();
    let mut lines = 0usize;
    let (mut pos, end) = (range.start, range.end);
    while pos < end {
        lines += 1;
        let (line_end, next, terminated) = match memchr::memchr(b'\n', &bytes[pos..end]) {
            Some(i) => (pos + i, pos + i + 1, true),
            None => (end, end, false),
        };
        let line = &bytes[pos..line_end];
        if !line.iter().all(u8::is_ascii_whitespace) {
            match parse_line(line) {
                Ok(row) => fold(
                    &mut acc,
                    row,
                    LineSpan {
                        chunk,
                        start: pos,
                        end: line_end,
                    },
                ),
                // Only the file's very last line can be cut short by a crash.
                Err(reason) if !terminated && at_eof => {
                    return ChunkResult {
                        acc,
                        lines,
                        error: None,
                        torn: Some((lines, reason)),
                    };
                }
                Err(reason) => {
                    return ChunkResult {
                        acc,
                        lines,
                        error: Some((lines, reason)),
                        torn: None,
                    };
                }
            }
        }
        pos = next;
    }
    ChunkResult {
        acc,
        lines,
        error: None,
        torn: None,
    }
}

// ---------------------------------------------------------------------------
// Projection

/// The sort key of the projection: descending by finishedAt; ties by stepId,
/// then action, both ascending (as the reference breaks them); then by
/// position in the file (a later line first) so equal keys stay stable.
#[derive(Debug, PartialEq, Eq)]
struct Candidate<'a> {
    finished_at: DateTime<Utc>,
    step_id: Cow<'a, str>,
    action: Cow<'a, str>,
    span: LineSpan,
}

impl Ord for Candidate<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.finished_at
            .cmp(&other.finished_at)
            // Reversed: the projection lists the greatest first.
            .then_with(|| other.step_id.cmp(&self.step_id))
            .then_with(|| other.action.cmp(&self.action))
            .then_with(|| self.span.cmp(&other.span))
    }
}

impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Default)]
struct ProjectionAcc {
    total: usize,
    failed: usize,
    retry: usize,
    /// The best `limit` candidates as a min-heap, with owned keys (see `fold`).
    top: BinaryHeap<Reverse<Candidate<'static>>>,
}

/// The projection object of `query` (the payload of `harness.trajectory.query`).
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueryOutput {
    /// Always 1.
    pub schema: u32,
    pub projection_kind: &'static str,
    /// `latest`, `failed` or `retry_needed`.
    pub mode: &'static str,
    pub limit: usize,
    pub total_count: usize,
    pub failed_count: usize,
    pub retry_needed_count: usize,
    pub count: usize,
    /// The chosen rows as stored, newest first.
    pub items: Vec<Value>,
}

/// The `append --json` output (the payload of `harness.trajectory.append`):
/// where the row went and the row as written.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppendOutput {
    /// `harness-trajectory.append`.
    pub action: &'static str,
    /// Always 1.
    pub schema: u32,
    pub path: String,
    /// The normalized row (canonical key order).
    #[schemars(with = "Normalized<'static>")]
    pub row: Value,
}

/// The output of `query`: the projection object and any warnings for stderr.
#[derive(Debug)]
pub struct Projection {
    pub value: Value,
    pub warnings: Vec<String>,
}

/// The deterministic projection of the trajectory at `path` (absent = no rows).
pub fn query(
    path: &Path,
    mode: ProjectionMode,
    limit: usize,
) -> Result<Projection, TrajectoryError> {
    query_with(path, mode, limit, default_threads(), MIN_PARALLEL)
}

fn query_with(
    path: &Path,
    mode: ProjectionMode,
    limit: usize,
    threads: usize,
    min_parallel: usize,
) -> Result<Projection, TrajectoryError> {
    let Scan {
        loaded,
        acc,
        warnings,
    } = scan_file_with(
        path,
        threads,
        min_parallel,
        ProjectionAcc::default,
        |acc: &mut ProjectionAcc, row: RowRef<'_>, span| {
            acc.total += 1;
            if row.outcome.is_failed() {
                acc.failed += 1;
            }
            if row.outcome.is_retry_needed() {
                acc.retry += 1;
            }
            if limit == 0 || !mode.selects(row.outcome) {
                return;
            }
            let cand = Candidate {
                finished_at: row.finished_at,
                step_id: row.step_id,
                action: row.action,
                span,
            };
            // Almost every row loses against the current minimum: compare borrowed
            // first, allocate only for the rows that enter the heap.
            if acc.top.len() == limit {
                let Reverse(min) = acc.top.peek().expect("heap is full");
                if cand <= *min {
                    return;
                }
                acc.top.pop();
            }
            acc.top.push(Reverse(Candidate {
                finished_at: cand.finished_at,
                step_id: Cow::Owned(cand.step_id.into_owned()),
                action: Cow::Owned(cand.action.into_owned()),
                span: cand.span,
            }));
        },
        |mut a, b| {
            a.total += b.total;
            a.failed += b.failed;
            a.retry += b.retry;
            for item in b.top {
                if a.top.len() < limit {
                    a.top.push(item);
                } else if a.top.peek().is_some_and(|min| item < *min) {
                    // `Reverse`: a smaller item is a larger candidate.
                    a.top.pop();
                    a.top.push(item);
                }
            }
            a
        },
    )?;
    let mut chosen: Vec<Candidate<'_>> = acc.top.into_iter().map(|Reverse(c)| c).collect();
    chosen.sort_unstable_by(|a, b| b.cmp(a));
    let items: Vec<Value> = chosen
        .iter()
        .map(|c| {
            serde_json::from_slice(loaded.line(c.span))
                .expect("a line that validated as a row is valid JSON")
        })
        .collect();
    let out = QueryOutput {
        schema: 1,
        projection_kind: PROJECTION_KIND,
        mode: mode.echo(),
        limit,
        total_count: acc.total,
        failed_count: acc.failed,
        retry_needed_count: acc.retry,
        count: items.len(),
        items,
    };
    Ok(Projection {
        value: crate::host::payload_json(&out),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_the_spec_table() {
        for s in [
            "accepted",
            "Verified-Accept",
            " OK ",
            "passed",
            "COMPLETED",
            "success",
        ] {
            assert_eq!(classify(s), Outcome::Success, "{s}");
        }
        for s in [
            "transient.timeout",
            "net.Network-Down",
            "rate-limit",
            "needs_retry",
        ] {
            assert_eq!(classify(s), Outcome::RetryNeeded, "{s}");
        }
        for s in [
            "rejected",
            "verify.semantic_failed",
            "okay",
            "",
            "accepted2",
        ] {
            assert_eq!(classify(s), Outcome::Failed, "{s}");
        }
        // Unicode lower-casing: the Kelvin sign lower-cases to an ASCII `k`.
        assert_eq!(classify("O\u{212A}"), Outcome::Success);
        assert_eq!(classify(&"x".repeat(100)), Outcome::Failed);
        assert_eq!(
            classify(&format!("{}timeout", "x".repeat(100))),
            Outcome::RetryNeeded
        );
    }

    fn row(step: &str) -> StepRow {
        StepRow {
            step_id: step.into(),
            action: "a".into(),
            result_class: "accepted".into(),
            finished_at: "2026-02-01T00:00:00Z".into(),
            ..StepRow::default()
        }
    }

    #[test]
    fn a_full_row_is_written_in_canonical_form() {
        let mut r = row("s\u{e9}\"1");
        r.issue_id = Some(" bd-1 ".into());
        r.instruction_refs = vec!["i2".into(), "i1\n".into()];
        r.lineage_refs = vec!["principal://a".into()];
        r.witness_refs = vec!["w\u{1}".into()];
        r.started_at = Some(" 2026-01-31T23:59:59.5+01:00 ".into());
        let v = r.normalized().unwrap();
        assert_eq!(v.as_object().unwrap().len(), 11);
        assert_eq!(
            String::from_utf8(r.checked().unwrap().line()).unwrap(),
            crate::canonical::to_canonical_string(&v) + "\n"
        );
    }

    #[test]
    fn the_writer_keeps_a_small_line_buffer_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TrajectoryWriter::open(&path).unwrap();
        let mut big = row("s1");
        big.witness_refs = vec!["w".repeat(1 << 20)];
        writer.append(&big).unwrap();
        assert!(writer.line.capacity() <= crate::logs::KEPT_LINE_BYTES);
        writer.append(&row("s2")).unwrap();
        assert!(writer.line.capacity() > 0, "a small row's buffer is kept");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[1].contains("\"stepId\":\"s2\"") && !lines[1].contains("www"));
    }

    #[test]
    fn normalized_row_drops_empties_and_sorts_refs() {
        let mut r = row(" s1 ");
        r.issue_id = Some("  ".into());
        r.witness_refs = vec!["b".into(), " a".into(), "b".into(), "".into()];
        r.lineage_refs = vec![" ".into()];
        r.started_at = Some("".into());
        let v = r.normalized().unwrap();
        assert_eq!(
            crate::canonical::to_canonical_string(&v),
            r#"{"action":"a","finishedAt":"2026-02-01T00:00:00Z","resultClass":"accepted","schema":1,"stepId":"s1","stepKind":"premath.harness.step.v1","witnessRefs":["a","b"]}"#
        );
        assert!(parse_line(crate::canonical::to_canonical_string(&v).as_bytes()).is_ok());
        // The line the writer writes is the canonical form of that row.
        let line = r.checked().unwrap().line();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            crate::canonical::to_canonical_string(&v) + "\n"
        );
    }

    #[test]
    fn invalid_rows_are_typed_errors() {
        let mut r = row("s");
        r.finished_at = "2026-13-01T00:00:00Z".into();
        assert!(matches!(
            r.normalized(),
            Err(TrajectoryError::InvalidRow {
                field: "finishedAt",
                ..
            })
        ));
        let mut r = row("s");
        r.started_at = Some("noon".into());
        assert!(matches!(
            r.normalized(),
            Err(TrajectoryError::InvalidRow {
                field: "startedAt",
                ..
            })
        ));
        assert!(matches!(
            row(" ").normalized(),
            Err(TrajectoryError::InvalidRow {
                field: "stepId",
                ..
            })
        ));
    }

    #[test]
    fn parse_line_rejects_wrong_shapes() {
        let ok = r#"{"schema":1,"stepKind":"premath.harness.step.v1","stepId":"s","action":"a","resultClass":"ok","finishedAt":"2026-02-01T00:00:00Z"}"#;
        assert!(parse_line(ok.as_bytes()).is_ok());
        for (bad, needle) in [
            (ok.replace("\"schema\":1", "\"schema\":2"), "schema"),
            (ok.replace("step.v1", "step.v2"), "stepKind"),
            (
                ok.replace("2026-02-01T00:00:00Z", "2026-02-01"),
                "finishedAt",
            ),
            (ok.replace("\"stepId\":\"s\",", ""), "stepId"),
            (ok.replace("}", ",\"witnessRefs\":[1]}"), "string"),
            (ok.replace("}", ",\"issueId\":7}"), "string"),
            (ok[..ok.len() - 1].to_string(), "EOF"),
        ] {
            let err = parse_line(bad.as_bytes()).unwrap_err();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    fn write_rows(path: &Path, n: usize, bad_line: Option<usize>, tail: &str) {
        let mut text = String::new();
        for i in 1..=n {
            if Some(i) == bad_line {
                text.push_str("{not a row}\n");
            } else if i % 7 == 0 {
                text.push_str("   \n");
            } else {
                let mut r = row(&format!("s{i:05}"));
                r.witness_refs = vec!["w".repeat(i % 50)];
                text.push_str(&crate::canonical::to_canonical_string(
                    &r.normalized().unwrap(),
                ));
                text.push('\n');
            }
        }
        text.push_str(tail);
        std::fs::write(path, text).unwrap();
    }

    fn count(path: &Path, threads: usize) -> Result<(usize, Vec<String>), TrajectoryError> {
        scan_file_with(path, threads, 0, || 0usize, |n, _, _| *n += 1, |a, b| a + b)
            .map(|s| (s.acc, s.warnings))
    }

    #[test]
    fn chunked_reads_see_every_line_once_and_number_errors_globally() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let rows = 1000 - 1000 / 7;
        write_rows(&path, 1000, None, "");
        for threads in [1, 2, 3, 7, 64, 257] {
            assert_eq!(count(&path, threads).unwrap(), (rows, vec![]), "{threads}");
        }
        write_rows(&path, 1000, Some(613), "");
        for threads in [1, 2, 3, 7, 64] {
            match count(&path, threads) {
                Err(TrajectoryError::Corrupt { line, .. }) => assert_eq!(line, 613, "{threads}"),
                other => panic!("{threads}: {other:?}"),
            }
        }
        write_rows(&path, 1000, None, "{\"schema\":1,\"stepK");
        for threads in [1, 2, 3, 7, 64] {
            let (n, warnings) = count(&path, threads).unwrap();
            assert_eq!(n, rows);
            assert_eq!(warnings.len(), 1);
            assert!(warnings[0].contains("line 1001"), "{}", warnings[0]);
        }
        assert_eq!(count(&dir.path().join("absent"), 2).unwrap(), (0, vec![]));
    }

    #[test]
    fn projection_is_the_same_whatever_the_chunking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut text = String::new();
        // Many ties on finishedAt and stepId, classes of every kind, repeated rows.
        for i in 0..3000 {
            let mut r = row(&format!("s{}", i % 37));
            r.action = format!("a{}", i % 5);
            r.result_class = ["accepted", "rejected", "transient.timeout", "OK"][i % 4].into();
            r.finished_at = format!("2026-02-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 7);
            text.push_str(&crate::canonical::to_canonical_string(
                &r.normalized().unwrap(),
            ));
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        for mode in [
            ProjectionMode::Latest,
            ProjectionMode::Failed,
            ProjectionMode::RetryNeeded,
        ] {
            for limit in [0, 1, 20, 5000] {
                let one = query_with(&path, mode, limit, 1, 0).unwrap().value;
                // A full sort of every selected row is the reference.
                let mut all: Vec<Value> = std::fs::read_to_string(&path)
                    .unwrap()
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .filter(|v| mode.selects(classify(v["resultClass"].as_str().unwrap())))
                    .collect();
                let key = |v: &Value| {
                    (
                        parse_timestamp(v["finishedAt"].as_str().unwrap()).unwrap(),
                        Reverse(v["stepId"].as_str().unwrap().to_string()),
                        Reverse(v["action"].as_str().unwrap().to_string()),
                    )
                };
                all.sort_by_key(|v| Reverse(key(v)));
                all.truncate(limit);
                assert_eq!(one["items"], Value::Array(all), "{mode:?} {limit}");
                for threads in [2, 3, 8] {
                    let many = query_with(&path, mode, limit, threads, 0).unwrap().value;
                    assert_eq!(many, one, "{mode:?} {limit} {threads}");
                }
            }
        }
    }
}
