//! Deterministic replay of recorded runs (host-api §7).
//!
//! A recorded run is re-executed from its program text under its recorded
//! limits, with every host call answered from the recorded envelope by a
//! [`ReplayBridge`] instead of the live registry: no store, trajectory or
//! effect log is touched. Replay checks, in order, each call's action and
//! argsDigest, the number of calls, and the digest of the final value.
//! Before running anything it checks the log itself ([`log`]).
//!
//! The runs of one REPL session (one `sessionId`) are replayed in order in one
//! session engine, so definitions made by earlier forms exist for later ones.

pub mod debug;
pub mod diff;
pub mod live;
pub mod log;

use crate::canonical;
use crate::sandbox::{Breach, EngineMode, HostBridge, HostReply, Sandbox};
use log::{RecordedCall, RecordedRun};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const REPLAY_KIND: &str = "premath.scheme_eval.replay.v0";
/// `tusk replay --verify --json`: the log's own checks, nothing run.
pub const VERIFY_KIND: &str = "tusk.replay.verify.v0";
pub const REPLAY_SET_KIND: &str = "premath.scheme_eval.replay_set.v0";

/// Failure classes that end a run at a moment the program does not choose
/// (wall clock, heap growth, an operator's Ctrl-C). A replay of such a run is
/// compared up to the recorded stop and no further.
const UNTIMED_STOPS: &[&str] = &[
    crate::sandbox::CLASS_TIMEOUT,
    crate::sandbox::CLASS_MEMORY,
    crate::sandbox::CLASS_INTERRUPTED,
];

/// The first place a replay (or the log) disagrees with the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The log line concerned, for a problem of the log itself.
    pub line: Option<usize>,
    /// The call concerned; `None` for the final value and run-level fields.
    pub seq: Option<usize>,
    pub field: String,
    pub expected: Value,
    pub got: Value,
}

impl From<log::Problem> for Divergence {
    fn from(p: log::Problem) -> Self {
        Divergence {
            // Line 0 stands for "the end of the log".
            line: (p.line > 0).then_some(p.line),
            seq: p.seq,
            field: p.field,
            expected: p.expected,
            got: p.got,
        }
    }
}

/// The outcome of replaying one run.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub run_id: String,
    pub session_id: Option<String>,
    pub checked_calls: usize,
    pub divergence: Option<Divergence>,
    /// False when the run was not executed (an earlier run of its session diverged).
    pub replayed: bool,
    /// Re-executed against a store copy ([`live`]) rather than the record.
    pub live: bool,
    /// The run's rows are chained ([`crate::chain`]); older logs are not.
    pub chained: bool,
    /// The trusted key whose signature over the run's chain head verified.
    pub signed_by: Option<String>,
    /// What the replayed program produced (the log keeps only digests of the
    /// value and output); `None` when the run was not executed.
    pub outcome: Option<Replayed>,
    /// The run's footer was written by recovery: checked up to its last
    /// call, the one whose row recovery wrote.
    pub recovered: bool,
}

/// What a replayed program produced: its value, output and error (with the
/// position of the failing form when the evaluator knows it).
#[derive(Clone, Debug)]
pub struct Replayed {
    pub value: Value,
    pub output: String,
    pub error: Option<crate::sandbox::EvalError>,
    /// Where in the program each call was made ([`crate::sandbox::RunOutput::call_sites`]).
    pub call_sites: Vec<Option<(usize, usize)>>,
}

impl RunReport {
    /// A report on `run` with nothing checked yet.
    pub fn new(run: &RecordedRun) -> Self {
        RunReport {
            run_id: run.run_id.clone(),
            session_id: run.session_id.clone(),
            checked_calls: 0,
            divergence: None,
            replayed: true,
            live: false,
            chained: run.chained,
            signed_by: run.signed_by.clone(),
            outcome: None,
            recovered: run.recovered,
        }
    }

    pub fn parity(&self) -> bool {
        self.divergence.is_none() && self.replayed
    }

    /// The `premath.scheme_eval.replay.v0` object.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "kind": REPLAY_KIND,
            "runId": self.run_id,
            "parity": self.parity(),
            "checkedCalls": self.checked_calls,
        });
        if let Some(sid) = &self.session_id {
            out["sessionId"] = json!(sid);
        }
        if self.live {
            out["mode"] = json!("live");
        }
        if let Some(d) = &self.divergence {
            out["divergence"] = json!({
                "seq": d.seq,
                "field": d.field,
                "expected": d.expected,
                "got": d.got,
            });
            if let Some(line) = d.line {
                out["divergence"]["line"] = json!(line);
            }
        }
        out["chained"] = json!(self.chained);
        if self.recovered {
            out["recovered"] = json!(true);
        }
        if let Some(key) = &self.signed_by {
            out["signedBy"] = json!(key);
        }
        if !self.replayed && self.divergence.is_none() {
            out["skipped"] = json!("an earlier run of this session diverged");
        }
        out
    }
}

/// Answers host calls from a run's recorded envelopes and notes the first
/// disagreement. Never calls an action.
pub struct ReplayBridge {
    /// Action and digest of each recorded call (the envelopes live in the state).
    calls: Vec<(String, String)>,
    /// The recording stopped at an untimed moment: a call past the recorded
    /// ones means the replay got further than the recording, not a divergence.
    untimed_stop: bool,
    /// The log predates `jsonEncoding` 2: an argument digest may be of the
    /// old encoding.
    legacy_json: bool,
    /// The redaction rules the recording ran under (its header's `redact`):
    /// replayed arguments are redacted the same way before their digest.
    redaction: crate::host::redact::Redaction,
    state: Mutex<BridgeState>,
}

#[derive(Default)]
struct BridgeState {
    /// Each recorded envelope, handed out (moved) when its call comes.
    envelopes: Vec<log::RecordedEnvelope>,
    made: usize,
    checked: usize,
    divergence: Option<Divergence>,
    halted: bool,
    passed_recorded_stop: bool,
    /// Failure classes of the envelopes handed to the program.
    classes: Vec<String>,
}

impl ReplayBridge {
    pub fn new(
        calls: Vec<RecordedCall>,
        untimed_stop: bool,
        legacy_json: bool,
        redaction: crate::host::redact::Redaction,
    ) -> Self {
        let (calls, envelopes) = calls
            .into_iter()
            .map(|c| ((c.action, c.args_digest), c.envelope))
            .unzip();
        Self {
            calls,
            untimed_stop,
            legacy_json,
            redaction,
            state: Mutex::new(BridgeState {
                envelopes,
                ..BridgeState::default()
            }),
        }
    }

    fn halt(state: &mut BridgeState) -> HostReply {
        state.halted = true;
        HostReply {
            envelope: Value::Null.into(),
            text: None,
            breach: Some(Breach::Halted),
        }
    }
}

/// A replayed call's arguments as the recording would have recorded them
/// (redacted by its rules) and their digest; under a log from before
/// `jsonEncoding` 2, the old encoding's digest when that is the recorded one.
pub(crate) fn replayed_args(
    redaction: &crate::host::redact::Redaction,
    legacy_json: bool,
    action: &str,
    args: Option<Value>,
    recorded_digest: &str,
) -> (Option<Value>, String) {
    let recorded =
        crate::runtime::recorded_args(crate::runtime::builtin(), redaction, action, args.clone());
    let mut digest = canonical::args_digest(recorded.as_ref());
    if recorded_digest == digest {
        return (recorded, digest);
    }
    // A log written before arguments were recorded under their canonical
    // names (issue 55) holds them as the program spelled them.
    let as_written = match redaction.args(action, args.as_ref(), None) {
        Some(redacted) => redacted,
        None => args,
    };
    let mut candidates = vec![as_written.clone()];
    if legacy_json {
        candidates.push(recorded.as_ref().map(canonical::legacy_empty_lists));
        candidates.push(as_written.as_ref().map(canonical::legacy_empty_lists));
    }
    for candidate in candidates {
        let old_digest = canonical::args_digest(candidate.as_ref());
        if recorded_digest == old_digest {
            digest = old_digest;
            return (candidate, digest);
        }
    }
    (recorded, digest)
}

impl ReplayBridge {
    /// The first disagreement with the record, once the run is over.
    pub fn divergence(&self) -> Option<Divergence> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.divergence.clone()
    }
}

impl HostBridge for ReplayBridge {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        _args_error: Option<crate::sandbox::convert::ConvertError>,
    ) -> HostReply {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.halted {
            return Self::halt(&mut state);
        }
        state.made += 1;
        let seq = state.made;
        let Some((recorded_action, recorded_digest)) = self.calls.get(seq - 1) else {
            if self.untimed_stop {
                state.passed_recorded_stop = true;
            } else {
                state.divergence = Some(Divergence {
                    line: None,
                    seq: Some(seq),
                    field: "callCount".into(),
                    expected: json!(self.calls.len()),
                    got: json!(seq),
                });
            }
            return Self::halt(&mut state);
        };
        let (_, digest) = replayed_args(
            &self.redaction,
            self.legacy_json,
            action,
            args,
            recorded_digest,
        );
        let mismatch = if recorded_action != action {
            Some(("action", json!(recorded_action), json!(action)))
        } else if *recorded_digest != digest {
            Some(("argsDigest", json!(recorded_digest), json!(digest)))
        } else {
            None
        };
        if let Some((field, expected, got)) = mismatch {
            state.divergence = Some(Divergence {
                line: None,
                seq: Some(seq),
                field: field.into(),
                expected,
                got,
            });
            return Self::halt(&mut state);
        }
        state.checked = seq;
        let envelope = std::mem::take(&mut state.envelopes[seq - 1]);
        let head = envelope.head();
        let classes = head
            .failure_classes
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_string));
        state.classes.extend(classes);
        // The live host stopped the program at the call over its budget; so does replay.
        let over_budget = head.result_class == crate::sandbox::CLASS_CALL_BUDGET;
        let breach = over_budget.then_some(Breach::CallBudget);
        match envelope.into_text() {
            // The recorded text, sent as it is: replay keeps no value of it.
            Ok(text) => HostReply {
                envelope: Value::Null.into(),
                text: Some(text),
                breach,
            },
            Err(value) => HostReply {
                envelope: value.into(),
                text: None,
                breach,
            },
        }
    }
}

/// What replay runs as one piece: a lone run, or the selected runs of one
/// REPL session, in order (one session engine builds each form's state on
/// the forms before it).
struct Unit {
    runs: Vec<RecordedRun>,
    /// The runs share a session engine.
    session: bool,
    /// Only this run is reported (a session's form replayed as the session:
    /// its earlier forms run first, silently, unless one of them diverges).
    only: Option<String>,
}

/// A session form and the forms of its session before it, from the last
/// reset at or before it: what replaying that form as the session needs.
/// `None` when `run_id` is not a session's form.
fn session_prefix(runs: &mut Vec<RecordedRun>, run_id: &str) -> Option<Unit> {
    Some(Unit {
        runs: session_forms(runs, run_id)?,
        session: true,
        only: Some(run_id.to_string()),
    })
}

/// The forms of `run_id`'s session from its last reset up to and including
/// it, taken out of `runs`; `None` (nothing taken) when `run_id` is not a
/// session's form.
pub fn session_forms(runs: &mut Vec<RecordedRun>, run_id: &str) -> Option<Vec<RecordedRun>> {
    let at = runs.iter().position(|r| r.run_id == run_id)?;
    let sid = runs[at].session_id.clone()?;
    let mut forms: Vec<RecordedRun> = Vec::new();
    for run in runs.drain(..=at) {
        if run.session_id.as_deref() == Some(sid.as_str()) {
            if run.session_reset {
                forms.clear();
            }
            forms.push(run);
        }
    }
    Some(forms)
}

/// The selected runs as units, in log order. A session's runs are gathered
/// at the place of its first run: two REPLs sharing one log interleave their
/// runs, and the one session engine must see each session's runs together.
fn units(mut runs: Vec<RecordedRun>, selection: &Selection) -> Result<Vec<Unit>, SelectionError> {
    // One form of a session is replayed as the session: its earlier forms
    // first, so that the definitions it uses exist (alone, it would report a
    // divergence that replaying the whole log does not).
    if let Selection::Run(id) = selection {
        if let Some(unit) = session_prefix(&mut runs, id) {
            return Ok(vec![unit]);
        }
    }
    let runs: Vec<RecordedRun> = runs.into_iter().filter(|r| selection.matches(r)).collect();
    if runs.is_empty() {
        return Err(match selection {
            Selection::All => SelectionError::Empty,
            Selection::Run(id) => SelectionError::NoRun(id.clone()),
            Selection::Session(sid) => SelectionError::NoSession(sid.clone()),
            Selection::Trace(id) => SelectionError::NoTrace(id.clone()),
        });
    }
    // A session's state is built by all of its forms: replaying one form of
    // a session alone would miss the definitions the earlier ones made.
    let whole_sessions = !matches!(selection, Selection::Run(_) | Selection::Trace(_));
    if !whole_sessions {
        return Ok(runs
            .into_iter()
            .map(|run| Unit {
                runs: vec![run],
                session: false,
                only: None,
            })
            .collect());
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: HashMap<String, usize> = HashMap::new();
    for run in runs {
        match run.session_id.clone() {
            Some(sid) => {
                let i = *unit_of.entry(sid).or_insert_with(|| {
                    units.push(Unit {
                        runs: Vec::new(),
                        session: true,
                        only: None,
                    });
                    units.len() - 1
                });
                units[i].runs.push(run);
            }
            None => units.push(Unit {
                runs: vec![run],
                session: false,
                only: None,
            }),
        }
    }
    Ok(units)
}

/// Hands each run of `unit` to `replay_one` with the engine mode it needs:
/// fresh for a lone run; for a session, the session engine, reset at its
/// first run and wherever the log says `sessionReset`. Once a run of a
/// session diverges, its later runs are reported, not replayed.
fn replay_unit(
    unit: Unit,
    replay_one: &mut impl FnMut(RecordedRun, EngineMode) -> RunReport,
) -> Vec<RunReport> {
    if !unit.session {
        return unit
            .runs
            .into_iter()
            .map(|run| replay_one(run, EngineMode::Fresh))
            .collect();
    }
    let mut diverged = false;
    let mut reports = Vec::with_capacity(unit.runs.len());
    for (i, run) in unit.runs.into_iter().enumerate() {
        let mode = if i == 0 || run.session_reset {
            EngineMode::ResetSession
        } else {
            EngineMode::Session
        };
        let report = if diverged {
            RunReport {
                replayed: false,
                ..RunReport::new(&run)
            }
        } else {
            replay_one(run, mode)
        };
        diverged = diverged || !report.parity();
        reports.push(report);
    }
    match &unit.only {
        // The chosen form, and an earlier form only when it diverged (why
        // the chosen one was not replayed).
        Some(only) => reports
            .into_iter()
            .filter(|r| &r.run_id == only || (r.replayed && !r.parity()))
            .collect(),
        None => reports,
    }
}

/// Replays the selected runs one after another (see [`units`] and
/// [`replay_unit`]); reports in log order, sessions gathered.
pub(crate) fn replay_selected(
    runs: Vec<RecordedRun>,
    selection: &Selection,
    mut replay_one: impl FnMut(RecordedRun, EngineMode) -> RunReport,
) -> Result<Vec<RunReport>, SelectionError> {
    Ok(units(runs, selection)?
        .into_iter()
        .flat_map(|unit| replay_unit(unit, &mut replay_one))
        .collect())
}

/// Replays `units` on up to `lanes` threads: each takes the next unit
/// in log order. Units answered from the record share nothing (each fresh
/// run has its own worker), so the reports are those of one lane, in the
/// same order. Sessions take turns: a sandbox has one session engine.
fn replay_in_lanes(
    units: Vec<Unit>,
    lanes: usize,
    replay_one: impl Fn(RecordedRun, EngineMode) -> RunReport + Sync,
) -> Vec<RunReport> {
    let lanes = lanes.min(units.len());
    if lanes <= 1 {
        return units
            .into_iter()
            .flat_map(|unit| replay_unit(unit, &mut |run, mode| replay_one(run, mode)))
            .collect();
    }
    let count = units.len();
    let queue: Vec<Mutex<Option<Unit>>> = units.into_iter().map(|u| Mutex::new(Some(u))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let sessions = Mutex::new(());
    // The caller's trace (a TRACEPARENT) is the parent of every replay
    // span, whichever thread replays the run.
    let cx = opentelemetry::Context::current();
    let lane = || {
        let _cx = cx.clone().attach();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= count {
                return done;
            }
            let unit = queue[i]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .expect("each unit is taken once");
            let _turn = unit
                .session
                .then(|| sessions.lock().unwrap_or_else(|e| e.into_inner()));
            done.push((i, replay_unit(unit, &mut |run, mode| replay_one(run, mode))));
        }
    };
    let mut done: Vec<(usize, Vec<RunReport>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..lanes).map(|_| scope.spawn(lane)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().flat_map(|(_, reports)| reports).collect()
}

/// Marks each run whose recorded limits exceed `ceiling` with a `log.limits`
/// problem, so it is reported and never executed: the log is input, and a
/// header edited to ask for a day of wall clock must not buy one (replay
/// runs under the recorded limits only up to the replayer's own).
pub fn enforce_ceiling(runs: &mut [RecordedRun], ceiling: &crate::sandbox::Limits) {
    for run in runs {
        if run.problem.is_none() {
            run.problem = limits_problem(run, ceiling);
        }
    }
}

/// The `log.limits` problem of a run whose recorded limits exceed
/// `ceiling`, naming each limit it asks too much of.
pub fn limits_problem(run: &RecordedRun, ceiling: &crate::sandbox::Limits) -> Option<log::Problem> {
    let (l, c) = (&run.limits, ceiling);
    let over: Vec<(&str, u64, u64)> = [
        ("timeoutMs", l.timeout_ms, c.timeout_ms),
        ("maxCalls", u64::from(l.max_calls), u64::from(c.max_calls)),
        ("maxMemoryMb", l.max_memory_mb, c.max_memory_mb),
        ("maxOutputBytes", l.max_output_bytes, c.max_output_bytes),
        (
            "maxCallArgsBytes",
            l.max_call_args_bytes,
            c.max_call_args_bytes,
        ),
        ("maxValueBytes", l.max_value_bytes, c.max_value_bytes),
    ]
    .into_iter()
    .filter(|(_, recorded, ceiling)| recorded > ceiling)
    .collect();
    if over.is_empty() {
        return None;
    }
    let expected: serde_json::Map<String, Value> = over
        .iter()
        .map(|(k, _, c)| (k.to_string(), json!(format!("at most {c}"))))
        .collect();
    let got: serde_json::Map<String, Value> = over
        .iter()
        .map(|(k, r, _)| (k.to_string(), json!(r)))
        .collect();
    Some(log::Problem {
        line: run.header_line,
        seq: None,
        field: "log.limits".into(),
        expected: Value::Object(expected),
        got: Value::Object(got),
    })
}

/// Checks each run's footer signature against `trust`: a run without a valid
/// signature of a trusted key gets a `log.signature` problem (and is not
/// executed); a run that has one records the key as `signed_by`.
pub fn check_signatures(runs: &mut [RecordedRun], trust: &crate::chain::Trust) {
    for run in runs {
        let verdict = match &run.footer {
            Some(footer) if run.chained => trust.check(footer),
            Some(_) => Err("an unchained run (written before tusk chained its log)".into()),
            None => Err("no footer".into()),
        };
        match verdict {
            Ok(key) => run.signed_by = Some(key),
            Err(why) if run.problem.is_none() => {
                run.problem = Some(log::Problem {
                    line: run.footer_line,
                    seq: None,
                    field: "log.signature".into(),
                    expected: json!("a signature of a trusted key over the chain head"),
                    got: json!(why),
                });
            }
            Err(_) => {}
        }
    }
}

/// Whether the recording was stopped at a moment the program did not choose.
pub(crate) fn untimed_stop(footer: &Value) -> bool {
    footer["failureClasses"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c.as_str().is_some_and(|c| UNTIMED_STOPS.contains(&c)))
}

/// The limits a replay runs under: the recorded ones, except that a run an
/// operator interrupted need not wait out its whole wall-clock limit to reach
/// the same point.
/// The limits a recorded run is executed under: the ones it recorded (a
/// stop at an untimed moment given only as long as the recording took, and
/// a second), and never more than `ceiling`: a run asking for more is not
/// executed, on any path (replay, a restaged debugging session, the
/// debugger, the dashboard).
pub(crate) fn replay_limits(
    run: &RecordedRun,
    untimed_stop: bool,
    ceiling: &crate::sandbox::Limits,
) -> Result<crate::sandbox::Limits, Box<Divergence>> {
    if let Some(problem) = limits_problem(run, ceiling) {
        return Err(Box::new(problem.into()));
    }
    let mut limits = run.limits;
    if untimed_stop {
        if let Some(took) = run.recorded_duration() {
            let enough = took.as_millis() as u64 + 1_000;
            limits.timeout_ms = limits.timeout_ms.min(enough);
        }
    }
    Ok(limits)
}

/// The final value against the footer's `valueDigest`.
pub(crate) fn value_divergence(
    footer: &Value,
    value: &Value,
    legacy_json: bool,
) -> Option<Divergence> {
    let mut got = canonical::sha256_digest(value);
    let expected = footer["valueDigest"].clone();
    if legacy_json && expected != Value::String(got.clone()) {
        let old = canonical::sha256_digest(&canonical::legacy_empty_lists(value));
        if expected == Value::String(old.clone()) {
            got = old;
        }
    }
    (expected != Value::String(got.clone())).then(|| Divergence {
        line: None,
        seq: None,
        field: "valueDigest".into(),
        expected,
        got: json!(got),
    })
}

/// The run's failure classes and its output against the footer. The
/// replayed classes are those of the envelopes the program received plus
/// its own error's; a host-side write failure the recording met (its
/// `host_action_execution_error` with no envelope carrying it) cannot recur
/// in a replay and is taken as recorded. `outputDigest` is absent from
/// footers written before tusk recorded it.
pub(crate) fn run_divergence(
    footer: &Value,
    output: &crate::sandbox::RunOutput,
    envelope_classes: &[String],
) -> Option<Divergence> {
    let expected: Vec<String> = footer["failureClasses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect();
    let mut got: Vec<String> = envelope_classes.to_vec();
    got.extend(output.error.iter().map(|e| e.class.as_str().to_string()));
    let io = crate::host::registry::CLASS_EXECUTION_ERROR.to_string();
    if expected.contains(&io) && !got.contains(&io) {
        got.push(io);
    }
    got.sort();
    got.dedup();
    if expected != got {
        return Some(Divergence {
            line: None,
            seq: None,
            field: "failureClasses".into(),
            expected: json!(expected),
            got: json!(got),
        });
    }
    let recorded = footer.get("outputDigest")?;
    let digest = json!(canonical::sha256_text(&output.output));
    (*recorded != digest).then(|| Divergence {
        line: None,
        seq: None,
        field: "outputDigest".into(),
        expected: recorded.clone(),
        got: digest,
    })
}

/// Which runs of a log to replay.
#[derive(Clone, Debug)]
pub enum Selection {
    All,
    Run(String),
    Session(String),
    /// The runs whose header records this trace id (`tusk replay --trace`).
    Trace(String),
}

impl Selection {
    /// Whether `run` is one of the selected runs.
    pub fn matches(&self, run: &RecordedRun) -> bool {
        match self {
            Selection::All => true,
            Selection::Run(id) => &run.run_id == id,
            Selection::Session(sid) => run.session_id.as_deref() == Some(sid.as_str()),
            Selection::Trace(id) => run.trace_id.as_deref() == Some(id.as_str()),
        }
    }
}

/// A selection names nothing in the log.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error("no run {0} in the effect log")]
    NoRun(String),
    #[error("no session {0} in the effect log")]
    NoSession(String),
    #[error("no run of trace {0} in the effect log")]
    NoTrace(String),
    #[error("the effect log has no runs")]
    Empty,
}

/// Replays runs, keeping one prepared sandbox per set of bound action ids.
pub struct Replayer {
    /// Keyed by the bound ids and whether the sandbox serves sessions: Steel
    /// engine copies share one compiler, so fresh runs never share a sandbox
    /// with session runs (they would see the session's definitions).
    sandboxes: HashMap<SandboxKey, Sandbox>,
    /// How many runs may be replayed at once ([`Replayer::with_lanes`]).
    lanes: usize,
    /// The runs debugging sessions were opened from (their session forms
    /// up to them), by run id: what [`Replayer::restage`] runs again.
    debugged: HashMap<String, Vec<RecordedRun>>,
    /// The most any replayed run may use ([`Replayer::with_ceiling`]).
    ceiling: crate::sandbox::Limits,
}

type SandboxKey = (Vec<String>, bool, Option<crate::runtime::PrincipalTerms>);

/// The most runs replayed at once by default: each lane is a thread and a
/// worker process that may grow to its run's memory limit.
const MAX_LANES: usize = 4;

impl Default for Replayer {
    /// One lane per two processors, up to [`MAX_LANES`]. A lane's host
    /// thread and worker answer each other in turn, and the spare worker for
    /// its next run is made beside them: on two processors a second lane
    /// only competed with the first (docs/sandbox.md, "Measured costs").
    fn default() -> Self {
        Self {
            sandboxes: HashMap::new(),
            debugged: HashMap::new(),
            ceiling: crate::sandbox::Limits::default(),
            lanes: (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2)
                .clamp(1, MAX_LANES),
        }
    }
}

impl Replayer {
    /// A replayer with the default lanes (see [`Replayer::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Replays up to `lanes` runs at once (at least one). A run's report
    /// does not depend on the lanes: each fresh run has a worker of its own,
    /// a session's runs keep their order, and reports come in log order.
    pub fn with_lanes(mut self, lanes: usize) -> Self {
        self.lanes = lanes.max(1);
        self
    }

    /// The most any replayed run may use (`tusk eval`'s defaults unless
    /// set): a run whose header asks for more is reported as a `log.limits`
    /// divergence and not executed, nor restaged.
    pub fn with_ceiling(mut self, ceiling: crate::sandbox::Limits) -> Self {
        self.ceiling = ceiling;
        self
    }

    /// Replays the selected runs (taken from [`log::Log::runs`]), sessions in
    /// one engine each; reports in log order, a session's at its first run.
    pub fn replay(
        &mut self,
        mut runs: Vec<RecordedRun>,
        selection: &Selection,
    ) -> Result<Vec<RunReport>, SelectionError> {
        enforce_ceiling(&mut runs, &self.ceiling);
        self.note_debugged(&runs);
        let units = units(runs, selection)?;
        for unit in &units {
            for run in &unit.runs {
                self.prepare(run, unit.session);
            }
        }
        let this = &*self;
        Ok(replay_in_lanes(units, self.lanes, |run, mode| {
            this.replay_traced(run, mode)
        }))
    }

    /// Replays one run in the given engine mode (a `tusk.replay` span when
    /// telemetry is on).
    pub fn replay_run(&mut self, run: RecordedRun, mode: EngineMode) -> RunReport {
        self.prepare(&run, mode != EngineMode::Fresh);
        self.replay_traced(run, mode)
    }

    fn replay_traced(&self, run: RecordedRun, mode: EngineMode) -> RunReport {
        let started = std::time::Instant::now();
        let run_id = run.run_id.clone();
        let trace_id = run.trace_id.clone();
        let report = self.replay_one(run, mode);
        crate::telemetry::record::replayed(
            &run_id,
            trace_id.as_deref(),
            if report.parity() {
                "parity"
            } else {
                "diverged"
            },
            started,
        );
        report
    }

    /// Keeps the runs that debugging sessions in `runs` were opened from.
    fn note_debugged(&mut self, runs: &[RecordedRun]) {
        for run in runs {
            let Some(id) = run.debug_of.as_ref().and_then(|d| d["runId"].as_str()) else {
                continue;
            };
            if self.debugged.contains_key(id) {
                continue;
            }
            let Some(at) = runs.iter().position(|r| r.run_id == id) else {
                continue;
            };
            let mut before = runs[..=at].to_vec();
            let forms = session_forms(&mut before, id).unwrap_or_else(|| vec![runs[at].clone()]);
            self.debugged.insert(id.to_string(), forms);
        }
    }

    /// A debugging session's form that came after the debugger ran the
    /// debugged program again (`debugOf.restaged`): the same again in the
    /// session engine first, so that the form meets the environment it met.
    /// The engine mode the form then runs in, or why it cannot be replayed.
    fn restage(
        &self,
        run: &RecordedRun,
        sandbox: &Sandbox,
        mode: EngineMode,
    ) -> Result<EngineMode, Box<Divergence>> {
        let Some(debug_of) = run.debug_of.as_ref().filter(|d| d["restaged"] == true) else {
            return Ok(mode);
        };
        if mode == EngineMode::Fresh {
            return Ok(mode);
        }
        let id = debug_of["runId"].as_str().unwrap_or_default();
        let diverged = |got: Value| Divergence {
            line: None,
            seq: None,
            field: "debugOf".into(),
            expected: json!(format!("run {id} replayed to where the debugger stood")),
            got,
        };
        let forms = self
            .debugged
            .get(id)
            .ok_or_else(|| Box::new(diverged(json!("no such run in this log"))))?;
        debug::restage(sandbox, forms.clone(), debug_of, &self.ceiling)
            .map_err(|why| Box::new(diverged(json!(why))))?;
        Ok(if run.session_reset {
            EngineMode::ResetSession
        } else {
            EngineMode::Session
        })
    }

    fn replay_one(&self, mut run: RecordedRun, mode: EngineMode) -> RunReport {
        // Moved into the bridge, not copied: a long run holds many envelopes.
        let calls = std::mem::take(&mut run.calls);
        let mut report = RunReport::new(&run);
        if let Some(problem) = &run.problem {
            report.divergence = Some(problem.clone().into());
            return report;
        }
        let footer = run
            .footer
            .as_ref()
            .expect("a run without footer has a problem");
        let untimed_stop = untimed_stop(footer);
        // An atomic run's `run.commit` row is the host's (issue 59): the
        // program's calls are the others; the commit is checked below.
        let (calls, commits): (Vec<RecordedCall>, Vec<RecordedCall>) =
            calls.into_iter().partition(|c| !c.by_host);
        if let Some(d) = misplaced_commit(&run, &calls, &commits) {
            report.divergence = Some(d);
            return report;
        }
        let commit = commits.into_iter().next();
        let recorded_calls = calls.len();
        let limits = match replay_limits(&run, untimed_stop, &self.ceiling) {
            Ok(limits) => limits,
            Err(d) => {
                report.divergence = Some(*d);
                return report;
            }
        };
        let bridge = Arc::new(ReplayBridge::new(
            calls,
            untimed_stop,
            run.legacy_json,
            run.redaction.clone(),
        ));
        let sandbox = &self.sandboxes[&sandbox_key(&run, mode != EngineMode::Fresh)];
        let mode = match self.restage(&run, sandbox, mode) {
            Ok(mode) => mode,
            Err(d) => {
                report.divergence = Some(*d);
                return report;
            }
        };
        let output = match run.invalid_utf8_at {
            Some(at) => crate::sandbox::RunOutput::failed(
                crate::runtime::invalid_utf8(at),
                std::time::Instant::now(),
            ),
            None => sandbox.run(&run.program, limits, mode, bridge.clone()),
        };
        report.outcome = Some(Replayed {
            value: output.value.clone(),
            output: output.output.clone(),
            error: output.error.clone(),
            call_sites: output.call_sites.clone(),
        });
        let state = bridge.state.lock().unwrap_or_else(|e| e.into_inner());
        report.checked_calls = state.checked;
        if let Some(d) = &state.divergence {
            report.divergence = Some(d.clone());
            return report;
        }
        report.recovered = run.recovered;
        if state.made < recorded_calls && (!untimed_stop || run.recovered) {
            report.divergence = Some(Divergence {
                line: None,
                seq: Some(state.made + 1),
                field: "callCount".into(),
                expected: json!(recorded_calls),
                got: json!(state.made),
            });
            return report;
        }
        if state.passed_recorded_stop || run.recovered {
            // The recording was cut off here (or its process died): there
            // is no final value to compare.
            return report;
        }
        // A run stopped at an untimed moment is compared up to its stop: how
        // the replay stops, and what it printed by then, may differ.
        let classes = match with_commit(commit.as_ref(), &output, &state.classes) {
            Ok(classes) => classes,
            Err(d) => {
                report.divergence = Some(*d);
                return report;
            }
        };
        report.divergence =
            value_divergence(footer, &output.value, run.legacy_json).or_else(|| {
                (!untimed_stop)
                    .then(|| run_divergence(footer, &output, &classes))
                    .flatten()
            });
        report
    }

    /// Makes the sandbox `run` is replayed in, unless there is one.
    fn prepare(&mut self, run: &RecordedRun, session: bool) {
        let key = sandbox_key(run, session);
        let ids = key.0.clone();
        let terms = key.2.clone();
        self.sandboxes.entry(key).or_insert_with(|| {
            // The recorded ids, described as this build declares them
            // (an embedder's action is bound but not described).
            let builtins = crate::runtime::builtin_registry();
            let mut bindings = crate::runtime::bindings(&builtins);
            let (described, bound) = (builtins.clone(), ids.clone());
            bindings.catalogue = crate::sandbox::Catalogue::new(move || {
                crate::runtime::catalogue_of(described.specs().filter(|s| bound.contains(&s.id)))
            });
            // A recording that bound no mutations (the read-only
            // profile) withheld them: name them the same way. Other
            // built-ins it did not bind were left out by its actions
            // list: naming one is effect_denied as well.
            let mutations = builtins.mutation_ids();
            let bound_a_mutation = mutations.iter().any(|id| ids.contains(id));
            let (withheld, narrowed): (Vec<String>, Vec<String>) = builtins
                .ids()
                .into_iter()
                .filter(|id| !ids.contains(id))
                .partition(|id| !bound_a_mutation && mutations.contains(id));
            // A token's terms name what they left out as the recording did.
            if let Some(terms) = &terms {
                let unbound: Vec<String> = withheld.iter().chain(&narrowed).cloned().collect();
                bindings.reasons = crate::runtime::narrowing_reasons(&unbound, terms);
            }
            bindings.withheld = withheld;
            bindings.narrowed = narrowed;
            bindings.ids = ids;
            Sandbox::with_bindings(bindings)
        });
    }
}

/// The run's failure classes with its commit's (an atomic run's end,
/// issue 59), once the commit's outcome fits the replayed program: a
/// program that ended accepted did not abort, one that did not, did.
fn with_commit(
    commit: Option<&RecordedCall>,
    output: &crate::sandbox::RunOutput,
    program_classes: &[String],
) -> Result<Vec<String>, Box<Divergence>> {
    let mut classes = program_classes.to_vec();
    let Some(commit) = commit else {
        return Ok(classes);
    };
    let envelope = commit.envelope.value();
    let aborted = envelope["payload"]["outcome"] == "aborted";
    let program_ok = output.error.is_none() && program_classes.is_empty();
    if aborted == program_ok {
        return Err(Box::new(Divergence {
            line: Some(commit.line),
            seq: Some(commit.seq),
            field: "run.commit".into(),
            expected: envelope["payload"]["outcome"].clone(),
            got: json!(if program_ok {
                "a run that ended accepted (its staged changes committed)"
            } else {
                "a run that did not end accepted (its staged changes aborted)"
            }),
        }));
    }
    classes.extend(
        envelope["failureClasses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_string)),
    );
    classes.sort();
    classes.dedup();
    Ok(classes)
}

/// A `run.commit` row where the host writes none: in a run that is not
/// atomic, twice, or before one of the program's calls.
fn misplaced_commit(
    run: &RecordedRun,
    calls: &[RecordedCall],
    commits: &[RecordedCall],
) -> Option<Divergence> {
    let first = commits.first()?;
    let why = if commits
        .iter()
        .any(|c| c.action != crate::runtime::COMMIT_ACTION)
    {
        "a row marked as the host's that is not run.commit"
    } else if run.atomic.is_none() {
        "a run.commit row in a run whose header is not atomic"
    } else if commits.len() > 1 {
        "more than one run.commit row"
    } else if calls.iter().any(|c| c.seq > first.seq) {
        "a program call after the run.commit row"
    } else {
        return None;
    };
    Some(Divergence {
        line: Some(first.line),
        seq: Some(first.seq),
        field: "run.commit".into(),
        expected: json!("one run.commit row, the last of an atomic run"),
        got: json!(why),
    })
}

/// The sandbox a run is replayed in: the ids its header says were bound
/// (headers from before tusk recorded them: the built-ins), and whether it
/// is replayed in a session engine.
fn sandbox_key(run: &RecordedRun, session: bool) -> SandboxKey {
    let mut ids = run
        .host_actions
        .clone()
        .unwrap_or_else(|| crate::runtime::builtin_registry().ids());
    ids.sort();
    ids.dedup();
    (ids, session, run.terms.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// Runs as the log reader makes them, from headers alone: `(runId,
    /// sessionId)` in log order.
    fn runs(spec: &[(&str, Option<&str>)]) -> Vec<RecordedRun> {
        let rows = spec
            .iter()
            .enumerate()
            .map(|(i, (id, sid))| {
                let mut row = json!({"kind": crate::effects::RUN_KIND, "runId": id});
                if let Some(sid) = sid {
                    row["sessionId"] = json!(sid);
                }
                crate::effects::LogRow {
                    line: i + 1,
                    digest: String::new(),
                    row,
                }
            })
            .collect();
        log::group(crate::effects::LogContents {
            rows,
            warnings: Vec::new(),
        })
        .runs
    }

    #[test]
    fn lanes_replay_units_at_once_sessions_in_turn_reports_in_log_order() {
        let spec = [
            ("r0", None),
            ("r1", None),
            ("a1", Some("a")),
            ("b1", Some("b")),
            ("r2", None),
            ("a2", Some("a")),
            ("b2", Some("b")),
            ("r3", None),
        ];
        let units = units(runs(&spec), &Selection::All).unwrap();
        let (active, most, sessions, most_sessions) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        let modes = Mutex::new(HashMap::new());
        let reports = replay_in_lanes(units, 3, |run, mode| {
            modes.lock().unwrap().insert(run.run_id.clone(), mode);
            let session = run.session_id.is_some();
            let now = active.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            if session {
                let now = sessions.fetch_add(1, Ordering::SeqCst) + 1;
                most_sessions.fetch_max(now, Ordering::SeqCst);
                // Room for another session's run to start alongside, were
                // sessions not taking turns.
                let until = Instant::now() + Duration::from_millis(200);
                while most_sessions.load(Ordering::SeqCst) < 2 && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            // Each run waits (bounded) until two have been replayed at once:
            // with one lane, none ever is.
            let until = Instant::now() + Duration::from_secs(5);
            while most.load(Ordering::SeqCst) < 2 && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            if session {
                sessions.fetch_sub(1, Ordering::SeqCst);
            }
            active.fetch_sub(1, Ordering::SeqCst);
            let mut report = RunReport::new(&run);
            if run.run_id == "a1" {
                report.divergence = Some(Divergence {
                    line: None,
                    seq: None,
                    field: "valueDigest".into(),
                    expected: json!("x"),
                    got: json!("y"),
                });
            }
            report
        });
        assert!(most.load(Ordering::SeqCst) >= 2, "no two runs at once");
        assert_eq!(most_sessions.load(Ordering::SeqCst), 1, "sessions at once");
        let order: Vec<(&str, bool)> = reports
            .iter()
            .map(|r| (r.run_id.as_str(), r.replayed))
            .collect();
        assert_eq!(
            order,
            [
                ("r0", true),
                ("r1", true),
                ("a1", true),
                ("a2", false),
                ("b1", true),
                ("b2", true),
                ("r2", true),
                ("r3", true),
            ]
        );
        let modes = modes.into_inner().unwrap();
        assert!(
            !modes.contains_key("a2"),
            "a diverged session's later run ran"
        );
        assert_eq!(modes["r0"], EngineMode::Fresh);
        assert_eq!(modes["a1"], EngineMode::ResetSession);
        assert_eq!(modes["b1"], EngineMode::ResetSession);
        assert_eq!(modes["b2"], EngineMode::Session);
    }
}
