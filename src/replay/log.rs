//! Reading an effect log back into runs, and checking the log's own integrity.
//!
//! Rows are grouped by `runId`, so runs of concurrent writers may interleave in
//! the file (each row is one `O_APPEND` write). Within one run the rows must be
//! exactly: a header, calls with `seq` 1, 2, … in order, a footer. Anything
//! else is an integrity problem of that run; a row that belongs to no run is a
//! problem of the log. Each row of a chained run must name the digest of the
//! run's previous row and the footer its chain head ([`crate::chain`]); the
//! first broken link is a `log.chain` problem naming the row's line.

use crate::canonical;
use crate::chain;
use crate::effects::record::{self, Member};
use crate::effects::{self, EffectLogError};
use crate::sandbox::Limits;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One recorded host call.
#[derive(Clone, Debug)]
pub struct RecordedCall {
    pub seq: usize,
    pub action: String,
    /// `None` for a call without arguments (recorded as `null`).
    pub args: Option<Value>,
    pub args_digest: String,
    pub envelope: RecordedEnvelope,
    /// The clock the action was given, when it ran.
    pub acted_at: Option<chrono::DateTime<chrono::Utc>>,
    pub line: usize,
    /// Written by recovery (issue 61): the change was made, the process
    /// died before the row; the envelope holds no payload.
    pub recovered: bool,
    /// The host's own call (an atomic run's `run.commit`, issue 59), not
    /// the program's.
    pub by_host: bool,
}

/// A recorded envelope: the JSON text of its row, made a [`Value`] only
/// when asked for ([`RecordedEnvelope::value`]). Replay sends the text to the
/// program as it is and reads a few members ([`RecordedEnvelope::head`]).
#[derive(Clone, Debug, Default)]
pub struct RecordedEnvelope {
    text: Option<Box<serde_json::value::RawValue>>,
    value: std::sync::OnceLock<Value>,
}

/// The members of an envelope replay and the log's checks read.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvelopeHead {
    #[serde(default)]
    pub args_digest: Value,
    #[serde(default)]
    pub action: Value,
    #[serde(default)]
    pub call_id: Value,
    #[serde(default)]
    pub result_class: Value,
    #[serde(default)]
    pub failure_classes: Value,
}

impl RecordedEnvelope {
    /// An envelope read as text.
    pub fn from_text(text: Box<serde_json::value::RawValue>) -> Self {
        Self {
            text: Some(text),
            value: std::sync::OnceLock::new(),
        }
    }

    /// An envelope already read as a value (`null` when the row had none).
    pub fn from_value(value: Value) -> Self {
        Self {
            text: None,
            value: value.into(),
        }
    }

    /// The envelope as a value (parsed once, on first use; `null` for the
    /// default, an envelope taken).
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| {
            self.text
                .as_ref()
                .and_then(|t| serde_json::from_str(t.get()).ok())
                .unwrap_or(Value::Null)
        })
    }

    /// The members replay reads, without making the whole envelope a value
    /// (each `null` when absent, or when the envelope is not an object).
    pub fn head(&self) -> EnvelopeHead {
        if let (Some(text), None) = (&self.text, self.value.get()) {
            // Only an object has members: a typed read would take an
            // array's items for them.
            if !text.get().trim_start().starts_with('{') {
                return EnvelopeHead::default();
            }
            // A repeated member fails this read; the value says which one
            // counts.
            if let Ok(head) = serde_json::from_str(text.get()) {
                return head;
            }
        }
        let v = self.value();
        let get = |key: &str| v.get(key).cloned().unwrap_or(Value::Null);
        EnvelopeHead {
            args_digest: get("argsDigest"),
            action: get("action"),
            call_id: get("callId"),
            result_class: get("resultClass"),
            failure_classes: get("failureClasses"),
        }
    }

    /// The text the row held (`Ok`), or the value when the envelope was
    /// read as one or has been made one (`Err`).
    pub fn into_text(self) -> Result<Box<serde_json::value::RawValue>, Value> {
        match (self.text, self.value.into_inner()) {
            (_, Some(value)) => Err(value),
            (Some(text), None) => Ok(text),
            (None, None) => Err(Value::Null),
        }
    }
}

/// One recorded run: header, calls, footer (absent when the log ends early).
#[derive(Clone, Debug)]
pub struct RecordedRun {
    pub run_id: String,
    /// The header's `trace.traceId`: the trace the run was part of.
    pub trace_id: Option<String>,
    pub session_id: Option<String>,
    /// The session's definitions were dropped before this run (`:reset`, or a
    /// worker lost): replay drops them at the same point.
    pub session_reset: bool,
    pub program: String,
    /// The recorded program file was not UTF-8 (`program` is its lossy
    /// decoding): the offset of the first invalid byte.
    pub invalid_utf8_at: Option<usize>,
    pub limits: Limits,
    /// Action ids the recording host bound (headers written before tusk
    /// recorded them have none; replay then binds the built-ins).
    pub host_actions: Option<Vec<String>>,
    /// An operator's command recorded as a run: its command line.
    pub command: Option<String>,
    /// An atomic run's mode (the header's `atomic`, issue 59).
    pub atomic: Option<String>,
    /// What the principal's token limited (the header's `principalTerms`
    /// with its `principal`).
    pub terms: Option<crate::runtime::PrincipalTerms>,
    /// The header's `authority` (policy digest, instruction ref, issue id,
    /// join verdict); empty in headers from before tusk recorded it.
    pub authority: record::RecordedAuthority,
    pub calls: Vec<RecordedCall>,
    pub footer: Option<Value>,
    /// The footer was written by recovery (issue 61): the run's process
    /// died after its last call's change; replay checks the calls it made.
    pub recovered: bool,
    /// The header's `startedAt`.
    pub started_at: Option<String>,
    pub header_line: usize,
    /// The footer's line (0 while there is none).
    pub footer_line: usize,
    /// The first integrity problem found in this run's rows.
    pub problem: Option<Problem>,
    /// Written before the empty list became `[]` (no `jsonEncoding`):
    /// digests are compared under either rule.
    pub legacy_json: bool,
    /// The header carries a `prevRowDigest`: every row of the run must link
    /// to the one before it ([`crate::chain`]). Older logs are unchained.
    pub chained: bool,
    /// The key whose signature over the chain head was verified
    /// ([`crate::replay::check_signatures`]).
    pub signed_by: Option<String>,
    /// The redaction rules the run was recorded under (header `redact`).
    pub redaction: crate::host::redact::Redaction,
    /// The header's `debugOf`: the recorded run a debugging session
    /// (`tusk repl --run`) was opened from, and where it stood.
    pub debug_of: Option<Value>,
    /// Line and digest of the run's last row read: what the next row names.
    last_row: (usize, String),
}

/// An integrity problem: where, which field, what the log should have said
/// and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub seq: Option<usize>,
    pub field: String,
    pub expected: Value,
    pub got: Value,
}

/// A parsed effect log.
#[derive(Debug, Default)]
pub struct Log {
    /// Runs in the order their headers appear.
    pub runs: Vec<RecordedRun>,
    /// Rows that belong to no run.
    pub stray: Vec<Problem>,
    /// Warnings from reading (a skipped torn last line).
    pub warnings: Vec<String>,
}

/// The log cannot be read at all: replay exits 2.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error(transparent)]
    Read(#[from] EffectLogError),
}

fn text(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(str::to_string)
}

fn problem(line: usize, seq: Option<usize>, field: &str, expected: Value, got: Value) -> Problem {
    Problem {
        line,
        seq,
        field: field.to_string(),
        expected,
        got,
    }
}

/// Reads and groups an effect log.
pub fn read(path: &Path) -> Result<Log, LogError> {
    read_store(&crate::logs::LogStore::File(path.to_path_buf()))
}

/// Reads and groups the effect log wherever it lives (see [`read`]).
///
/// # Errors
///
/// The log cannot be read, or a line other than a torn last one is not JSON.
pub fn read_store(log: &crate::logs::LogStore) -> Result<Log, LogError> {
    Ok(group(effects::read_log_store_as::<effects::SplitRow>(log)?))
}

/// Which runs [`read_only`] reads.
#[derive(Clone, Copy, Debug)]
pub enum Only<'a> {
    /// One run, with what replaying it needs: its session's runs and the
    /// runs debugging sessions among them were opened from.
    Run(&'a str),
    /// The runs of one session, with the same.
    Session(&'a str),
}

/// A header's members that say which runs a selection needs.
#[derive(serde::Deserialize)]
struct Peek {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default, rename = "runId")]
    run_id: Option<String>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default, rename = "debugOf")]
    debug_of: Option<PeekDebug>,
}

#[derive(serde::Deserialize)]
struct PeekDebug {
    #[serde(default, rename = "runId")]
    run_id: Option<String>,
}

fn peek(raw: &[u8]) -> Option<Peek> {
    serde_json::from_slice(raw).ok()
}

/// Reads and groups only the runs `only` selects (and what replaying them
/// needs), streaming the log twice: once for its headers, once for the
/// selected runs' rows. A row of no run is kept (it is reported as one). A
/// log in the database is read whole.
///
/// # Errors
///
/// The log cannot be read.
pub fn read_only(log: &crate::logs::LogStore, only: Only<'_>) -> Result<Log, LogError> {
    let crate::logs::LogStore::File(path) = log else {
        return read_store(log);
    };
    let mut headers: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    effects::read_log_lines_as::<Value>(path, &mut |raw| {
        if let Some(p) = peek(raw).filter(|p| p.kind.as_deref() == Some(effects::RUN_KIND)) {
            if let Some(run) = p.run_id {
                let debugged = p.debug_of.and_then(|d| d.run_id);
                headers.push((run, p.session_id, debugged));
            }
        }
        false
    })?;
    let mut wanted: std::collections::HashSet<String> = match only {
        Only::Run(id) => [id.to_string()].into(),
        Only::Session(sid) => headers
            .iter()
            .filter(|(_, s, _)| s.as_deref() == Some(sid))
            .map(|(r, _, _)| r.clone())
            .collect(),
    };
    loop {
        let sessions: std::collections::HashSet<&String> = headers
            .iter()
            .filter(|(r, _, _)| wanted.contains(r))
            .filter_map(|(_, s, _)| s.as_ref())
            .collect();
        let more: Vec<String> = headers
            .iter()
            .filter(|(r, s, _)| {
                !wanted.contains(r) && s.as_ref().is_some_and(|s| sessions.contains(s))
            })
            .map(|(r, _, _)| r.clone())
            .chain(
                headers
                    .iter()
                    .filter(|(r, _, _)| wanted.contains(r))
                    .filter_map(|(_, _, d)| d.clone())
                    .filter(|d| !wanted.contains(d)),
            )
            .collect();
        if more.is_empty() {
            break;
        }
        wanted.extend(more);
    }
    let contents = effects::read_log_lines_as::<effects::SplitRow>(path, &mut |raw| {
        peek(raw).is_none_or(|p| p.run_id.is_none_or(|r| wanted.contains(&r)))
    })?;
    Ok(group(contents))
}

/// Groups rows already read into runs and checks them (see the module doc).
pub fn group<R: Into<effects::SplitRow>>(contents: effects::LogContents<R>) -> Log {
    let mut grouping = Grouping {
        log: Log {
            warnings: contents.warnings,
            ..Log::default()
        },
        index: HashMap::new(),
    };
    for effects::LogRow { line, digest, row } in contents.rows {
        let mut split: effects::SplitRow = row.into();
        let kind = text(&split.row, "kind").unwrap_or_default();
        // A call row's envelope stays text; another row's `envelope` member
        // is one of its members, as read.
        let envelope = match kind.as_str() {
            effects::ROW_KIND => split.envelope.take().map(RecordedEnvelope::from_text),
            _ => None,
        };
        let row = split.into_row();
        let Some(run_id) = text(&row, "runId") else {
            grouping.log.stray.push(problem(
                line,
                None,
                "log.runId",
                Value::String("a row with a runId".into()),
                Value::String(format!("a {kind:?} row without one")),
            ));
            continue;
        };
        match kind.as_str() {
            effects::RUN_KIND => grouping.header(line, run_id, row, digest),
            effects::ROW_KIND | effects::RUN_END_KIND => {
                grouping.run_row(line, &kind, &run_id, row, envelope, digest)
            }
            other => grouping.log.stray.push(problem(
                line,
                None,
                "log.kind",
                Value::String("an effect-log row kind".into()),
                Value::String(other.to_string()),
            )),
        }
    }
    let mut log = grouping.log;
    for run in &mut log.runs {
        if run.footer.is_none() {
            let seq = run.calls.len() + 1;
            note(
                run,
                problem(
                    0,
                    Some(seq),
                    "log.runEnd",
                    Value::String("a run_end row".into()),
                    Value::String("end of log (the run never finished)".into()),
                ),
            );
        }
    }
    log
}

/// The log being grouped, and where each run id's run is in it.
struct Grouping {
    log: Log,
    index: HashMap<String, usize>,
}

impl Grouping {
    /// A run's header row: a new run, or a problem of the run it repeats.
    fn header(&mut self, line: usize, run_id: String, row: Value, digest: String) {
        if let Some(&i) = self.index.get(&run_id) {
            note_line(
                &mut self.log.runs[i],
                line,
                "log.header",
                Value::String("one header per run".into()),
                Value::String("a second header".into()),
            );
            return;
        }
        self.index.insert(run_id.clone(), self.log.runs.len());
        self.log
            .runs
            .push(header(line, run_id, record::read(row), digest));
    }

    /// A call row or a footer (`kind`), of the run headed earlier.
    /// A call or footer row; a call row's envelope is `envelope` when it
    /// was read as text, else still in `row`.
    fn run_row(
        &mut self,
        line: usize,
        kind: &str,
        run_id: &str,
        row: Value,
        envelope: Option<RecordedEnvelope>,
        digest: String,
    ) {
        let Some(&i) = self.index.get(run_id) else {
            self.log.stray.push(problem(
                line,
                row.get("seq").and_then(Value::as_u64).map(|s| s as usize),
                "log.header",
                Value::String(format!("a header for {run_id} before its rows")),
                Value::String("none".into()),
            ));
            return;
        };
        let run = &mut self.log.runs[i];
        // The link first: a deleted, reordered or foreign row is a
        // broken chain before it is a wrong seq.
        link(run, line, &row, digest);
        if kind == effects::ROW_KIND {
            let mut row = record::CallRow::read(row);
            let envelope = envelope.unwrap_or_else(|| {
                RecordedEnvelope::from_value(std::mem::take(&mut row.envelope).into_owned())
            });
            call_row(run, line, row, envelope);
        } else {
            footer(run, line, row);
        }
    }
}

/// The run's `run_end` row: its first is the footer.
fn footer(run: &mut RecordedRun, line: usize, row: Value) {
    if run.footer.is_some() {
        note_line(
            run,
            line,
            "log.runEnd",
            Value::String("one footer per run".into()),
            Value::String("a second footer".into()),
        );
        return;
    }
    // The footer stays as read: its chain head is over its members in the
    // order they were written, and replay compares them as recorded.
    let end: record::Footer = record::read(&row);
    // A footer recovery wrote for a run whose process died has no value.
    run.recovered = end.extra.get("recovered") == Some(&Value::Bool(true));
    if end.value_digest.typed().is_none() && !run.recovered {
        note_line(
            run,
            line,
            "log.valueDigest",
            Value::String("a valueDigest".into()),
            got(&end.value_digest),
        );
    }
    seal(run, line, &row);
    run.footer_line = line;
    run.footer = Some(row);
}

impl RecordedRun {
    /// How long the recorded run took, from its header and footer stamps.
    pub fn recorded_duration(&self) -> Option<std::time::Duration> {
        let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
        let start = parse(self.started_at.as_deref()?)?;
        let end = parse(self.footer.as_ref()?.get("finishedAt")?.as_str()?)?;
        (end - start).to_std().ok()
    }
}

fn note(run: &mut RecordedRun, p: Problem) {
    if run.problem.is_none() {
        run.problem = Some(p);
    }
}

/// Notes a problem of the row on `line` (one that has no seq).
fn note_line(run: &mut RecordedRun, line: usize, field: &str, expected: Value, got: Value) {
    note(run, problem(line, None, field, expected, got));
}

/// Checks that `row` names the run's previous row, then makes it the last.
fn link(run: &mut RecordedRun, line: usize, row: &Value, digest: String) {
    let seq = row.get("seq").and_then(Value::as_u64).map(|s| s as usize);
    let stated = row.get(chain::PREV);
    let (prev_line, prev) = &run.last_row;
    if run.chained && stated.and_then(Value::as_str) != Some(prev.as_str()) {
        let p = problem(
            line,
            seq,
            "log.chain",
            Value::String(format!(
                "{prev} (the digest of line {prev_line}, the run's previous row)"
            )),
            stated
                .cloned()
                .unwrap_or(Value::String("no prevRowDigest".into())),
        );
        note(run, p);
    } else if !run.chained && stated.is_some() {
        // A chained row under an unchained header: the header lost its link.
        let p = problem(
            run.header_line,
            None,
            "log.chain",
            Value::String("a header with a prevRowDigest (its rows are chained)".into()),
            Value::String("none".into()),
        );
        note(run, p);
    }
    run.last_row = (line, digest);
}

/// Checks the footer's chain head (it was linked by [`link`]).
fn seal(run: &mut RecordedRun, line: usize, footer: &Value) {
    if !run.chained {
        return;
    }
    let head = chain::footer_head(footer);
    let stated = footer.get(chain::HEAD);
    if stated.and_then(Value::as_str) != Some(head.as_str()) {
        let p = problem(
            line,
            None,
            "log.chain",
            Value::String(format!("{head} (the footer's chain head)")),
            stated
                .cloned()
                .unwrap_or(Value::String("no chainHead".into())),
        );
        note(run, p);
    }
}

fn header(line: usize, run_id: String, row: record::Header, digest: String) -> RecordedRun {
    let mut run = RecordedRun {
        run_id,
        trace_id: row.trace.typed().and_then(|t| t.trace_id.typed()).cloned(),
        session_id: row.session_id.typed().cloned(),
        session_reset: row.session_reset == Member::Typed(true),
        program: row.program.typed().cloned().unwrap_or_default(),
        invalid_utf8_at: row.invalid_utf8_at.typed().copied(),
        limits: Limits::default(),
        host_actions: host_actions(&row.host_actions),
        command: row.command.typed().cloned(),
        atomic: row.atomic.typed().cloned(),
        terms: row
            .principal_terms
            .typed()
            .map(|t| crate::runtime::PrincipalTerms {
                principal: row.principal.typed().cloned().unwrap_or_default(),
                read_only: t.read_only,
                actions: t.actions.clone(),
            }),
        authority: Default::default(),
        calls: Vec::new(),
        footer: None,
        recovered: false,
        started_at: row.started_at.typed().cloned(),
        header_line: line,
        footer_line: 0,
        problem: None,
        legacy_json: row.json_encoding.typed().copied() < Some(crate::effects::JSON_ENCODING),
        chained: !row.prev_row_digest.is_absent(),
        signed_by: None,
        redaction: Default::default(),
        debug_of: row.extra.get("debugOf").cloned(),
        last_row: (line, digest),
    };
    if let Some(rules) = row.redact.typed() {
        match crate::host::redact::Redaction::from_json(rules) {
            Ok(r) => run.redaction = r,
            Err(e) => note_line(
                &mut run,
                line,
                "log.redact",
                Value::String("the run's redaction rules".into()),
                Value::String(e),
            ),
        }
    }
    check_program(&mut run, line, &row);
    read_authority_and_limits(&mut run, line, row);
    run
}

/// The JSON a row holds for a member, `null` when it is absent: what a
/// problem says the log holds.
fn got<T: serde::Serialize>(member: &Member<T>) -> Value {
    member.recorded().unwrap_or(Value::Null)
}

/// The header's `hostActions`: its text entries (others are ignored), none
/// when it is not a list.
fn host_actions(recorded: &Member<Vec<String>>) -> Option<Vec<String>> {
    match recorded {
        Member::Typed(ids) => Some(ids.clone()),
        Member::Malformed {
            value: Value::Array(ids),
            ..
        } => Some(
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect(),
        ),
        _ => None,
    }
}

/// The header's program: the chain starts at its digest, and the text is
/// there and has the digest recorded.
fn check_program(run: &mut RecordedRun, line: usize, row: &record::Header) {
    if run.chained && row.prev_row_digest.recorded() != row.program_digest.recorded() {
        note_line(
            run,
            line,
            "log.chain",
            got(&row.program_digest),
            got(&row.prev_row_digest),
        );
    }
    if row.program.typed().is_none() {
        note_line(
            run,
            line,
            "log.program",
            Value::String("the program text".into()),
            got(&row.program),
        );
    }
    let digest = canonical::sha256_text(&run.program);
    if row.program_digest.typed() != Some(&digest) {
        note_line(
            run,
            line,
            "log.programDigest",
            Value::String(digest),
            got(&row.program_digest),
        );
    }
}

/// The header's `authority` (optional: older headers have none) and
/// `limits` (required).
fn read_authority_and_limits(run: &mut RecordedRun, line: usize, row: record::Header) {
    match row.authority {
        Member::Typed(authority) => run.authority = authority,
        Member::Malformed { error, .. } => note_line(
            run,
            line,
            "log.authority",
            Value::String("the request's authority".into()),
            Value::String(error),
        ),
        Member::Absent => {}
    }
    match row.limits {
        Member::Typed(limits) => run.limits = limits,
        other => note_line(
            run,
            line,
            "log.limits",
            Value::String("the run's limits".into()),
            Value::String(match other {
                Member::Malformed { error, .. } => error,
                _ => "none".into(),
            }),
        ),
    }
}

/// A call's envelope names the call it answers: its `argsDigest`, `action`
/// and `callId` agree with the row.
fn check_envelope(
    run: &mut RecordedRun,
    line: usize,
    seq: usize,
    envelope: &RecordedEnvelope,
    action: &str,
    args_digest: &str,
) {
    let head = envelope.head();
    let call_id = format!("call-{seq}");
    let checks = [
        ("log.envelope.argsDigest", &head.args_digest, args_digest),
        ("log.envelope.action", &head.action, action),
        ("log.envelope.callId", &head.call_id, call_id.as_str()),
    ];
    for (field, got, expected) in checks {
        if got.as_str() != Some(expected) {
            let (expected, got) = (Value::String(expected.into()), got.clone());
            note(run, problem(line, Some(seq), field, expected, got));
        }
    }
}

fn call_row(run: &mut RecordedRun, line: usize, row: record::CallRow, envelope: RecordedEnvelope) {
    let expected_seq = run.calls.len() + 1;
    let seq = row.seq.typed().copied();
    if run.footer.is_some() {
        note(
            run,
            problem(
                line,
                seq,
                "log.runEnd",
                Value::String("no rows after the run_end row".into()),
                Value::String("a call row".into()),
            ),
        );
        return;
    }
    if seq != Some(expected_seq) {
        note(
            run,
            problem(
                line,
                Some(expected_seq),
                "log.seq",
                Value::from(expected_seq),
                got(&row.seq),
            ),
        );
    }
    let recovered = row.extra.get("recovered") == Some(&Value::Bool(true));
    let by_host = row.extra.get(crate::runtime::BY_HOST) == Some(&Value::Bool(true));
    let acted_at = row
        .acted_at
        .typed()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc));
    let action = row.action.into_typed().unwrap_or_default();
    let args_digest = row.args_digest.into_typed().unwrap_or_default();
    // Moved, not cloned (`CallRow::read`). A `null` (or absent) `args`
    // reads as none.
    let args = row.args.map(std::borrow::Cow::into_owned);
    // One depth limit for the writer and the reader: the host records no
    // arguments nested deeper than this (it refuses the call instead).
    let depth = args.as_ref().map_or(0, crate::sandbox::convert::depth);
    if depth > crate::sandbox::convert::MAX_DEPTH {
        note(
            run,
            problem(
                line,
                Some(expected_seq),
                "log.args",
                Value::String(format!(
                    "arguments nested at most {} levels",
                    crate::sandbox::convert::MAX_DEPTH
                )),
                Value::String(format!("{depth} levels")),
            ),
        );
    }
    let recomputed = canonical::args_digest(args.as_ref());
    if recomputed != args_digest {
        note(
            run,
            problem(
                line,
                Some(expected_seq),
                "log.argsDigest",
                Value::String(recomputed),
                Value::String(args_digest.clone()),
            ),
        );
    }
    check_envelope(run, line, expected_seq, &envelope, &action, &args_digest);
    run.calls.push(RecordedCall {
        seq: expected_seq,
        action,
        args,
        args_digest,
        envelope,
        acted_at,
        line,
        recovered,
        by_host,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelopes_head_is_what_its_value_says() {
        let text = |t: &str| {
            RecordedEnvelope::from_text(serde_json::value::RawValue::from_string(t.into()).unwrap())
        };
        let whole = r#"{"action":"issue.ready","callId":"call-1","resultClass":"accepted","failureClasses":["x"],"argsDigest":"he1_a","payload":{"action":"other"}}"#;
        for envelope in [
            text(whole),
            RecordedEnvelope::from_value(serde_json::from_str(whole).unwrap()),
            // A repeated member: the last one counts, as in a value.
            text(
                r#"{"action":"issue.list","callId":"call-1","action":"issue.ready","resultClass":"accepted","failureClasses":["x"],"argsDigest":"he1_a"}"#,
            ),
        ] {
            let head = envelope.head();
            assert_eq!(head.action, "issue.ready", "{envelope:?}");
            assert_eq!(head.call_id, "call-1");
            assert_eq!(head.args_digest, "he1_a");
            assert_eq!(head.result_class, "accepted");
            assert_eq!(head.failure_classes, serde_json::json!(["x"]));
        }
        // Not an object: every member is null; the text is still what is sent.
        let odd = text("[1,2]");
        assert_eq!(odd.head().action, Value::Null);
        assert_eq!(odd.into_text().unwrap().get(), "[1,2]");
        // Once made a value, the value is what is sent.
        let made = text(whole);
        made.value();
        assert!(made.into_text().is_err());
        assert_eq!(
            RecordedEnvelope::default().into_text().unwrap_err(),
            Value::Null
        );
    }
}
