//! Running a recorded run's program again to a chosen point (issue 47):
//! the engine of the REPL's debugger (`tusk repl --run RUN`, whose commands
//! and texts live in `crate::repl::debug`) and of replay's restaging of a
//! debugging session's forms ([`restage`]), which is why it lives here:
//! replay needs it, and a lower layer never reaches up to the REPL.
//!
//! Nothing is suspended: to stop before host call k, the session engine is
//! reset, the run's session forms before it (from the session's last reset)
//! are replayed silently, and the run's program is run again with a
//! [`DebugBridge`] that answers calls 1..k-1 from the record and halts the
//! program when call k arrives. The program's top-level definitions made
//! before call k stay in the session engine, so the forms typed next see
//! them. Host calls are answered from the record only while they match it
//! (action and argsDigest). Every run here is under the caller's ceiling
//! (issue 55): a log that asks for more than it is refused
//! ([`super::replay_limits`]).
//!
//! Definitions typed while debugging are kept as patches: a later run of the
//! program has its own top-level definition of that name replaced by the
//! typed one (in place, so that what the program defines after it is still
//! defined after it); a typed definition of a name the program does not
//! define is run just before the program; `:final EXPR` replaces its final
//! expression (a patch that defines nothing). `:live DIR` answers the calls from
//! the current one on with the real actions against a fresh copy of a store
//! snapshot (as `tusk replay --live`), made again for every run: never the
//! real store.

use super::log::{RecordedCall, RecordedRun};
use super::{live::LiveReplayer, Divergence, ReplayBridge};
use crate::runtime::{RunHooks, RunOptions};
use crate::sandbox::{Breach, EngineMode, HostBridge, HostReply, Limits, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why a run cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot read the effect log {log}: {why}")]
    Log { log: String, why: String },
    #[error(
        "no run {run} in the effect log {log}; `tusk replay --verify --effects {log}` lists its runs (or pass --effects FILE for another log)"
    )]
    NoRun { run: String, log: String },
    #[error(
        "run {run} fails the log's own checks ({field} at line {line}), so its record is not what ran; `tusk replay --verify --run {run}` says more"
    )]
    Damaged {
        run: String,
        field: String,
        line: usize,
    },
    #[error("{0}")]
    OverCeiling(String),
}

/// Why a run is not run here: its header asks for more than the ceiling.
fn ceiling_text(run: &str, d: &Divergence) -> String {
    format!(
        "run {run}'s header asks for more than this session allows ({}: {} vs {}); a log is \
         input, and its limits are honoured only up to the limit flags given here \
         (raise them, e.g. --timeout-ms, to debug it)",
        d.field, d.got, d.expected
    )
}

/// Why a debugging command did nothing.
#[derive(Debug, thiserror::Error)]
pub enum DebugError {
    #[error("no run is open; `:open RUN` first (`tusk replay --verify` lists the runs)")]
    NotOpen,
    #[error("the run has ended (or left its record); `:rerun` runs it again from the start")]
    Ended,
    #[error("{0}")]
    Live(String),
    #[error("{0}")]
    OverCeiling(String),
    /// `:show` without a call to show.
    #[error("no such call: the run recorded {0} host call(s); :show N shows call N (alone, the call the program stands before)")]
    Show(usize),
    /// `:final` with something other than one expression.
    #[error(":final: {0}")]
    Final(String),
    /// `:save` could not write the program.
    #[error(":save: {0}")]
    Save(String),
}

/// Where the opened run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The program has not run yet (the session's earlier forms have).
    Start,
    /// Stopped before this host call (1-based): at a step, a breakpoint,
    /// or the first call that parted from the record.
    Before(usize),
    /// The program ended, or parted from its record.
    Ended,
}

/// The name of the patch of the program's final expression (`:final`): a
/// definition's patch is named by what it defines, never empty.
const FINAL: &str = "";

/// A definition typed while debugging, kept for the program's next runs
/// (or the final expression, named [`FINAL`]).
#[derive(Clone, Debug)]
pub(crate) struct Patch {
    pub(crate) name: String,
    pub(crate) text: String,
}

/// One opened recorded run.
pub struct Debugger {
    pub(crate) log: String,
    pub(crate) target: RecordedRun,
    /// The session's forms before the run (from its last reset).
    pub(crate) prefix: Vec<RecordedRun>,
    pub(crate) breaks: BTreeSet<String>,
    pub(crate) position: Position,
    pub(crate) patches: Vec<Patch>,
    /// `:live DIR`: the snapshot, and the first call answered live.
    pub(crate) live: Option<(PathBuf, usize)>,
    /// What any run here may use at most: the caller's limits (a log's
    /// header asking for more is refused, never honoured).
    pub(crate) ceiling: Limits,
}

/// Where a run of the program should stop.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Goal {
    /// Before this call.
    Call(usize),
    /// Before the first call after this one whose action is a breakpoint.
    Break(usize),
}

/// How one run of the program ended.
pub(crate) enum Outcome {
    Stopped {
        seq: usize,
        action: String,
        args: Option<Value>,
    },
    /// Call `seq` differs from the record (or the record has no call `seq`).
    Parted {
        seq: usize,
        action: String,
        args: Option<Value>,
        field: &'static str,
    },
    /// The program ran to its end: `result` holds `value`, `output`, `error`.
    Ended { result: Value, calls: usize },
    /// An earlier form of the session did not replay.
    Prefix(String, Divergence),
}

impl Debugger {
    /// Opens `run_id` from the effect log at `log` (already read).
    pub fn open(
        log: &str,
        mut runs: Vec<RecordedRun>,
        run_id: &str,
        ceiling: Limits,
    ) -> Result<Self, OpenError> {
        let mut forms = match super::session_forms(&mut runs, run_id) {
            Some(forms) => forms,
            None => {
                let at = runs
                    .iter()
                    .position(|r| r.run_id == run_id)
                    .ok_or_else(|| OpenError::NoRun {
                        run: run_id.to_string(),
                        log: log.to_string(),
                    })?;
                vec![runs.swap_remove(at)]
            }
        };
        let target = forms.pop().expect("the run itself");
        if let Some(p) = forms
            .iter()
            .chain([&target])
            .find_map(|r| r.problem.as_ref())
        {
            return Err(OpenError::Damaged {
                run: run_id.to_string(),
                field: p.field.clone(),
                line: p.line,
            });
        }
        for run in forms.iter().chain([&target]) {
            if let Some(p) = super::limits_problem(run, &ceiling) {
                return Err(OpenError::OverCeiling(ceiling_text(&run.run_id, &p.into())));
            }
        }
        Ok(Self {
            log: log.to_string(),
            target,
            prefix: forms,
            breaks: BTreeSet::new(),
            position: Position::Start,
            patches: Vec::new(),
            live: None,
            ceiling,
        })
    }

    pub fn run_id(&self) -> &str {
        &self.target.run_id
    }

    pub fn position(&self) -> Position {
        self.position
    }

    /// What the debugging session's forms record of it (header `debugOf`):
    /// the run, where it stands, the typed definitions its program runs
    /// with, `:live`; `restaged` on the first form after the debugger ran
    /// the program again, so that `tusk replay` does the same before it
    /// ([`restage`]).
    pub fn header(&self, restaged: bool) -> Value {
        let mut out = json!({
            "runId": self.target.run_id,
            "effectsPath": self.log,
            "stoppedBefore": match self.position {
                Position::Start => json!(0),
                Position::Before(k) => json!(k),
                Position::Ended => Value::Null,
            },
        });
        if let Some(sid) = &self.target.session_id {
            out["sessionId"] = json!(crate::runtime::public_session_ref(sid));
        }
        if !self.patches.is_empty() {
            out["patches"] = json!(self.patches.iter().map(|p| &p.text).collect::<Vec<_>>());
        }
        if let Some((dir, from)) = &self.live {
            out["live"] = json!({"snapshot": dir.display().to_string(), "fromCall": from});
        }
        if restaged {
            out["restaged"] = json!(true);
        }
        out
    }

    /// Replaces the program's final expression (its last top-level form,
    /// when that is not a definition; else one more form at its end) for
    /// its next runs (`:final`).
    ///
    /// # Errors
    /// `form` is not one complete expression, or is a definition (typed as
    /// a form, it replaces the program's own): the message says so.
    pub fn set_final(&mut self, form: &str) -> Result<(), String> {
        let split = crate::sandbox::forms::split(form);
        if split.pending.is_some() || split.forms.len() != 1 {
            return Err(format!(
                "{} form(s){}: write one complete expression, e.g. :final (hash-ref shown \"title\")",
                split.forms.len(),
                if split.pending.is_some() { " and an unclosed one" } else { "" }
            ));
        }
        if crate::sandbox::forms::defined_name(form).is_some() {
            return Err(
                "that is a definition: type it as a form and it replaces the program's \
                        own; :final takes the program's final expression"
                    .into(),
            );
        }
        self.patches.retain(|p| p.name != FINAL);
        self.patches.push(Patch {
            name: FINAL.to_string(),
            text: split.forms[0].text.clone(),
        });
        Ok(())
    }

    /// Keeps a definition typed while debugging, for the program's next runs.
    pub fn typed(&mut self, form: &str) {
        if let Some(name) = crate::sandbox::forms::defined_name(form) {
            self.patches.retain(|p| p.name != name);
            self.patches.push(Patch {
                name,
                text: form.to_string(),
            });
        }
    }

    /// Resets the session engine and replays the session's earlier forms;
    /// the first that diverges (its run id and how), if one does.
    pub(crate) fn stage(&self, sandbox: &Sandbox) -> Option<(String, Divergence)> {
        if self.prefix.is_empty() {
            // A fresh engine for the program's own definitions.
            let bridge = Arc::new(ReplayBridge::new(
                Vec::new(),
                false,
                false,
                Default::default(),
            ));
            sandbox.run("", self.ceiling, EngineMode::ResetSession, bridge);
        }
        for (i, run) in self.prefix.iter().enumerate() {
            let mode = if i == 0 || run.session_reset {
                EngineMode::ResetSession
            } else {
                EngineMode::Session
            };
            let untimed = run.footer.as_ref().is_some_and(super::untimed_stop);
            let bridge = Arc::new(ReplayBridge::new(
                run.calls.clone(),
                untimed,
                run.legacy_json,
                run.redaction.clone(),
            ));
            let limits = match super::replay_limits(run, untimed, &self.ceiling) {
                Ok(limits) => limits,
                Err(d) => return Some((run.run_id.clone(), *d)),
            };
            sandbox.run(&run.program, limits, mode, bridge.clone());
            if let Some(d) = bridge.divergence() {
                return Some((run.run_id.clone(), d));
            }
        }
        None
    }

    /// The program as it runs now: each top-level definition the person
    /// retyped replaced by theirs, theirs of other names first.
    pub(crate) fn program(&self) -> String {
        patched(&self.target.program, &self.patches)
    }

    /// One run of the program (after the session's earlier forms) to `goal`.
    pub(crate) fn execute(&self, sandbox: &Sandbox, goal: Goal) -> Result<Outcome, DebugError> {
        if let Some((run, d)) = self.stage(sandbox) {
            return Ok(Outcome::Prefix(run, d));
        }
        // [`Debugger::stage`] made the engine: the program runs in it.
        let mode = EngineMode::Session;
        let run = &self.target;
        let bridge = Arc::new(DebugBridge {
            calls: run.calls.clone(),
            legacy_json: run.legacy_json,
            redaction: run.redaction.clone(),
            goal,
            breaks: self.breaks.clone(),
            live_from: self.live.as_ref().map(|(_, from)| *from),
            inner: Mutex::new(None),
            state: Mutex::new(BridgeState::default()),
        });
        let program = self.program();
        let result = match &self.live {
            None => {
                let untimed = run.footer.as_ref().is_some_and(super::untimed_stop);
                let limits = super::replay_limits(run, untimed, &self.ceiling)
                    .map_err(|d| DebugError::OverCeiling(ceiling_text(&run.run_id, &d)))?;
                let output = sandbox.run(&program, limits, mode, bridge.clone());
                let mut result = json!({"value": output.value, "output": output.output});
                if let Some(e) = output.error {
                    result["error"] = json!({"class": e.class.as_str(), "message": e.message});
                    if let (Some(line), Some(column)) = (e.line, e.column) {
                        result["error"]["line"] = json!(line);
                        result["error"]["column"] = json!(column);
                    }
                }
                result
            }
            Some((dir, from)) => self.run_live(sandbox, (dir, *from), &program, bridge.clone())?,
        };
        let state = bridge.state.lock().unwrap_or_else(|e| e.into_inner());
        Ok(match state.event.clone() {
            Some(event) => event,
            None => Outcome::Ended {
                result,
                calls: state.made,
            },
        })
    }

    /// The program on a fresh copy of the snapshot: the calls before the
    /// live one from the record, the rest by the real actions.
    fn run_live(
        &self,
        sandbox: &Sandbox,
        (dir, from): (&Path, usize),
        program: &str,
        bridge: Arc<DebugBridge>,
    ) -> Result<Value, DebugError> {
        let run = &self.target;
        let mut copy = LiveReplayer::new(dir).map_err(|e| DebugError::Live(e.to_string()))?;
        let host = copy.host_for(run, true);
        let untimed = run.footer.as_ref().is_some_and(super::untimed_stop);
        let mut request =
            super::live::live_request(run, EngineMode::Session, untimed, &self.ceiling)
                .map_err(|d| DebugError::OverCeiling(ceiling_text(&run.run_id, &d)))?;
        request.program = program.to_string();
        let wrap: crate::runtime::WrapBridge = Arc::new(move |inner| {
            *bridge.inner.lock().unwrap_or_else(|e| e.into_inner()) = Some(inner);
            bridge.clone()
        });
        let options = RunOptions {
            sandbox: Some(sandbox),
            mode: EngineMode::Session,
            session_id: None,
            hooks: RunHooks {
                join: run.authority.join_evidence.clone(),
                wrap: Some(wrap),
                calls_before: from - 1,
                ..Default::default()
            },
        };
        let result = host
            .run(&request, options)
            .map_err(|e| DebugError::Live(format!("the live run could not start: {e}")))?;
        Ok(result.json)
    }
}

/// Rebuilds, in `sandbox`'s session engine, the environment a debugging
/// session's form met (its header's `debugOf`): the debugged run's session
/// forms before it replayed, then its program (with the typed definitions
/// the header lists) run again to where the debugger stood. `forms` are the
/// debugged run's session forms up to and including it. Answers come from
/// the record; a `:live` part runs against a fresh copy of its snapshot
/// when that directory is still there, under the working directory. The
/// error says why not.
pub fn restage(
    sandbox: &Sandbox,
    mut forms: Vec<RecordedRun>,
    debug_of: &Value,
    ceiling: &Limits,
) -> Result<(), String> {
    let target = forms.pop().ok_or("the debugged run is not in the log")?;
    for run in forms.iter().chain([&target]) {
        if let Some(p) = super::limits_problem(run, ceiling) {
            return Err(ceiling_text(&run.run_id, &p.into()));
        }
    }
    let patches = patches_of(debug_of);
    // A log names the snapshot: one outside the working directory is not
    // read (a log from elsewhere must not make replay read other stores).
    let here = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
    let live = debug_of["live"]["snapshot"]
        .as_str()
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .filter(|dir| {
            let real = dir.canonicalize().ok();
            real.zip(here.as_ref())
                .is_some_and(|(d, h)| d.starts_with(h))
        })
        .zip(debug_of["live"]["fromCall"].as_u64())
        .map(|(dir, from)| (dir, from as usize));
    let debugger = Debugger {
        log: String::new(),
        target,
        prefix: forms,
        breaks: BTreeSet::new(),
        position: Position::Start,
        patches,
        live,
        ceiling: *ceiling,
    };
    let goal = match &debug_of["stoppedBefore"] {
        Value::Null => Goal::Break(0),
        k => match k.as_u64() {
            Some(0) => {
                return match debugger.stage(sandbox) {
                    Some((run, d)) => Err(prefix_text(&run, &d)),
                    None => Ok(()),
                };
            }
            Some(k) => Goal::Call(k as usize),
            None => return Err(format!("debugOf.stoppedBefore is not a call number: {k}")),
        },
    };
    match debugger.execute(sandbox, goal) {
        Ok(Outcome::Prefix(run, d)) => Err(prefix_text(&run, &d)),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn prefix_text(run: &str, d: &Divergence) -> String {
    format!(
        "warning: the session's earlier form {run} did not replay ({} at call {}: {} vs {}); \
         its definitions may be missing\n",
        d.field,
        d.seq.map_or("-".to_string(), |s| s.to_string()),
        d.expected,
        d.got
    )
}

/// Answers the program's calls from the record while they match it, stops
/// it at its goal, and passes calls on to the live host side from the live
/// call on.
struct DebugBridge {
    calls: Vec<RecordedCall>,
    legacy_json: bool,
    redaction: crate::host::redact::Redaction,
    goal: Goal,
    breaks: BTreeSet<String>,
    live_from: Option<usize>,
    /// The live run's host side (`:live`).
    inner: Mutex<Option<Arc<dyn HostBridge>>>,
    state: Mutex<BridgeState>,
}

#[derive(Default)]
struct BridgeState {
    made: usize,
    event: Option<Outcome>,
}

impl Clone for Outcome {
    fn clone(&self) -> Self {
        match self {
            Outcome::Stopped { seq, action, args } => Outcome::Stopped {
                seq: *seq,
                action: action.clone(),
                args: args.clone(),
            },
            Outcome::Parted {
                seq,
                action,
                args,
                field,
            } => Outcome::Parted {
                seq: *seq,
                action: action.clone(),
                args: args.clone(),
                field,
            },
            Outcome::Ended { result, calls } => Outcome::Ended {
                result: result.clone(),
                calls: *calls,
            },
            Outcome::Prefix(run, d) => Outcome::Prefix(run.clone(), d.clone()),
        }
    }
}

fn halt() -> HostReply {
    HostReply {
        envelope: Value::Null.into(),
        text: None,
        breach: Some(Breach::Halted),
    }
}

impl DebugBridge {
    fn stops_at(&self, seq: usize, action: &str) -> bool {
        match self.goal {
            Goal::Call(k) => seq == k,
            Goal::Break(after) => seq > after && self.breaks.contains(action),
        }
    }
}

impl HostBridge for DebugBridge {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        args_error: Option<crate::sandbox::convert::ConvertError>,
    ) -> HostReply {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.event.is_some() {
            return halt();
        }
        state.made += 1;
        let seq = state.made;
        let live = self.live_from.is_some_and(|from| seq >= from);
        let recorded = self.calls.get(seq - 1);
        let digest_of = recorded.map_or("", |c| c.args_digest.as_str());
        // The live host side is given the arguments as the program passed
        // them; the record is compared with them as it recorded them.
        let passed = live.then(|| args.clone());
        let (args, digest) =
            super::replayed_args(&self.redaction, self.legacy_json, action, args, digest_of);
        let parted = match recorded {
            _ if live => None,
            None => Some("callCount"),
            Some(c) if c.action != action => Some("action"),
            Some(c) if c.args_digest != digest => Some("argsDigest"),
            Some(_) => None,
        };
        let event = match parted {
            Some(field) => Some(Outcome::Parted {
                seq,
                action: action.to_string(),
                args: args.clone(),
                field,
            }),
            None if self.stops_at(seq, action) => Some(Outcome::Stopped {
                seq,
                action: action.to_string(),
                args: args.clone(),
            }),
            None => None,
        };
        if let Some(event) = event {
            state.event = Some(event);
            return halt();
        }
        if live {
            let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone();
            drop(state);
            return match inner {
                Some(inner) => inner.call(action, passed.flatten(), args_error),
                None => halt(),
            };
        }
        let call = recorded.expect("matched above");
        let over_budget = call.envelope.head().result_class == crate::sandbox::CLASS_CALL_BUDGET;
        HostReply {
            envelope: Arc::new(call.envelope.value().clone()),
            text: None,
            breach: over_budget.then_some(Breach::CallBudget),
        }
    }
}

/// `program` with `patches` in place: each top-level definition the person
/// retyped replaced by theirs, theirs of other names first, and the final
/// expression replaced by the [`FINAL`] patch (or the patch added after a
/// program whose last form is a definition). A program with an unclosed
/// form runs as it is.
fn patched(program: &str, patches: &[Patch]) -> String {
    let split = crate::sandbox::forms::split(program);
    let own: Vec<Option<String>> = split
        .forms
        .iter()
        .map(|f| crate::sandbox::forms::defined_name(&f.text))
        .collect();
    if patches.is_empty() || split.pending.is_some() {
        return program.to_string();
    }
    let last = split
        .forms
        .len()
        .checked_sub(1)
        .filter(|&i| own[i].is_none());
    let final_patch = patches.iter().find(|p| p.name == FINAL);
    let mut out = String::new();
    for p in patches {
        if p.name != FINAL && !own.contains(&Some(p.name.clone())) {
            out.push_str(&p.text);
            out.push('\n');
        }
    }
    for (i, (form, name)) in split.forms.iter().zip(&own).enumerate() {
        let patch = match name {
            Some(n) => patches.iter().find(|p| &p.name == n),
            None if Some(i) == last => final_patch,
            None => None,
        };
        out.push_str(patch.map_or(form.text.as_str(), |p| p.text.as_str()));
        out.push('\n');
    }
    if let (None, Some(p)) = (last, final_patch) {
        out.push_str(&p.text);
        out.push('\n');
    }
    out
}

/// The patches a debugging form's header lists (`debugOf.patches`), each
/// named by what it defines; one that defines nothing is the final
/// expression's ([`FINAL`]).
fn patches_of(debug_of: &Value) -> Vec<Patch> {
    debug_of["patches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|text| Patch {
            name: crate::sandbox::forms::defined_name(text).unwrap_or_default(),
            text: text.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_replace_definitions_in_place_and_the_final_expression() {
        let program = "(define (f) 1)\n(define x (f))\n(list x)";
        let patches =
            patches_of(&json!({"patches": ["(define (f) 2)", "(car x)", "(define (g) 3)"]}));
        let names: Vec<&str> = patches.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["f", FINAL, "g"]);
        assert_eq!(
            patched(program, &patches),
            "(define (g) 3)\n(define (f) 2)\n(define x (f))\n(car x)\n"
        );
        // A program that ends in a definition gets the final expression after it.
        assert_eq!(
            patched("(define y 1)", &patches_of(&json!({"patches": ["y"]}))),
            "(define y 1)\ny\n"
        );
        // No patch, or an unclosed form: the program as it is.
        assert_eq!(patched(program, &[]), program);
        assert_eq!(patched("(define z", &patches), "(define z");
    }
}
