//! The sandboxed evaluator (`steel.sandbox.v1`, host-api §§1–2).
//!
//! Modelled on wasmtime's split: a [`Sandbox`] is the cheap host-side handle
//! (the action ids its programs may bind), and each [`Sandbox::run`] executes
//! one program against a [`HostBridge`] that answers its host calls. The
//! sandbox knows nothing of stores or policies; the host layer
//! ([`crate::runtime`]) does.
//!
//! **Program code never runs in the host process.** A template process
//! ([`template`]) holds a prepared engine (allowlist, natives, prelude); every
//! run gets a fresh fork of it, a worker process that confines itself
//! ([`confine`]: closed descriptors, resource limits, a deny-by-default
//! system-call filter) before it reads any program text. Host calls cross a
//! socket pair as messages ([`proto`]) that the host validates and answers
//! ([`supervisor`]). A worker that dies for any reason gives its run exactly
//! one result ([`CLASS_WORKER_CRASHED`]), and the host goes on.
//!
//! Defences, in the order a program meets them:
//! 1. the size limit in the host; then, inside the confined worker, the
//!    [`lexical`] checks (nesting depth, `require`/`load`/internal names)
//!    before Steel's recursive reader sees the text;
//! 2. an engine with no kernel and nothing bound but the allowlist: every
//!    other name fails to compile, and [`denied`] names that failure
//!    `scheme_eval.effect_denied`;
//! 3. allocation accounting in the worker: growth primitives ask before they
//!    allocate, the allocator interrupts the VM past the limit and ends the
//!    worker past a hard cap ([`memory`]);
//! 4. the host's clock: the worker is told to stop at the deadline and killed
//!    250 ms later;
//! 5. the operating system: address-space, CPU and file-size limits and the
//!    seccomp filter, should anything get past the allowlist.
//!
//! See `docs/sandbox.md` for the threat model and the measured costs.

mod confine;
pub mod convert;
pub mod denied;
pub mod dialect;
mod examined;
pub mod forms;
mod hashes;
pub mod lexical;
pub mod limits;
mod matching;
pub mod memory;
mod numeric;
mod order;
mod prelude;
mod primitives;
pub mod printer;
mod proto;
mod supervisor;
mod template;
mod worker;
pub(crate) use worker::closest_action;

pub use limits::{Limits, LimitsOverride};
pub use primitives::program_names;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The evaluator profile name reported in every result.
pub const PROFILE: &str = "steel.sandbox.v1";

/// The failure classes the evaluator itself reports (host actions and the
/// mutation gate have their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum FailureClass {
    #[serde(rename = "scheme_eval.timeout")]
    Timeout,
    #[serde(rename = "scheme_eval.call_budget_exceeded")]
    CallBudget,
    #[serde(rename = "scheme_eval.memory_exceeded")]
    Memory,
    #[serde(rename = "scheme_eval.invalid_program")]
    InvalidProgram,
    #[serde(rename = "scheme_eval.effect_denied")]
    EffectDenied,
    /// An error the program raised and did not handle, or a fault inside a
    /// primitive that the program's arguments caused (spec-silent; see README).
    #[serde(rename = "scheme_eval.runtime_error")]
    RuntimeError,
    /// tusk itself failed; never the program's fault.
    #[serde(rename = "scheme_eval.internal_error")]
    Internal,
    /// The host bridge stopped the run (replay: the program left the record).
    #[serde(rename = "scheme_eval.halted")]
    Halted,
    /// Someone stopped the run from outside (Ctrl-C in `tusk repl`).
    #[serde(rename = "scheme_eval.interrupted")]
    Interrupted,
    /// The worker process died (a signal, a stack overflow, the system-call
    /// filter) before it could answer.
    #[serde(rename = "scheme_eval.worker_crashed")]
    WorkerCrashed,
    /// The final value's JSON form is over `maxValueBytes` (refused in the
    /// worker, so the host never holds it).
    #[serde(rename = "scheme_eval.value_too_large")]
    ValueTooLarge,
    /// The program names a mutation, and its principal's token is read-only
    /// (issue 57: a refusal in the caller's terms).
    #[serde(rename = "authority.read_only")]
    ReadOnly,
}

impl FailureClass {
    /// The class as it appears in results and logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureClass::Timeout => "scheme_eval.timeout",
            FailureClass::CallBudget => "scheme_eval.call_budget_exceeded",
            FailureClass::Memory => "scheme_eval.memory_exceeded",
            FailureClass::InvalidProgram => "scheme_eval.invalid_program",
            FailureClass::EffectDenied => "scheme_eval.effect_denied",
            FailureClass::RuntimeError => "scheme_eval.runtime_error",
            FailureClass::Internal => "scheme_eval.internal_error",
            FailureClass::Halted => "scheme_eval.halted",
            FailureClass::Interrupted => "scheme_eval.interrupted",
            FailureClass::WorkerCrashed => "scheme_eval.worker_crashed",
            FailureClass::ValueTooLarge => "scheme_eval.value_too_large",
            FailureClass::ReadOnly => "authority.read_only",
        }
    }

    /// Every class, for documentation and exhaustive tests.
    pub const ALL: [FailureClass; 12] = [
        FailureClass::Timeout,
        FailureClass::CallBudget,
        FailureClass::Memory,
        FailureClass::InvalidProgram,
        FailureClass::EffectDenied,
        FailureClass::RuntimeError,
        FailureClass::Internal,
        FailureClass::Halted,
        FailureClass::Interrupted,
        FailureClass::WorkerCrashed,
        FailureClass::ValueTooLarge,
        FailureClass::ReadOnly,
    ];
}

impl std::fmt::Display for FailureClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub const CLASS_TIMEOUT: &str = FailureClass::Timeout.as_str();
pub const CLASS_CALL_BUDGET: &str = FailureClass::CallBudget.as_str();
pub const CLASS_MEMORY: &str = FailureClass::Memory.as_str();
pub const CLASS_INVALID_PROGRAM: &str = FailureClass::InvalidProgram.as_str();
pub const CLASS_EFFECT_DENIED: &str = FailureClass::EffectDenied.as_str();
pub const CLASS_RUNTIME_ERROR: &str = FailureClass::RuntimeError.as_str();
pub const CLASS_INTERNAL: &str = FailureClass::Internal.as_str();
pub const CLASS_HALTED: &str = FailureClass::Halted.as_str();
pub const CLASS_INTERRUPTED: &str = FailureClass::Interrupted.as_str();
pub const CLASS_WORKER_CRASHED: &str = FailureClass::WorkerCrashed.as_str();
pub const CLASS_VALUE_TOO_LARGE: &str = FailureClass::ValueTooLarge.as_str();

/// Error messages and diagnostics longer than this are cut, with a marker.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// `text` cut to at most `max` bytes (at a character boundary) with a marker
/// saying how much was dropped.
pub fn cap_text(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [{} more bytes]", &text[..cut], text.len() - cut)
}

/// A limit breach: ends the run with one result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breach {
    Timeout,
    Memory,
    CallBudget,
    /// The worker process died; the text says how.
    WorkerCrashed(String),
    /// The host bridge has no answer to give (a replay that left the record).
    Halted,
    /// Stopped through an [`InterruptHandle`].
    Interrupted,
    /// The sandbox could not run the program at all (no worker could be started).
    Internal(String),
}

impl Breach {
    pub fn class(&self) -> FailureClass {
        match self {
            Breach::Timeout => FailureClass::Timeout,
            Breach::Memory => FailureClass::Memory,
            Breach::CallBudget => FailureClass::CallBudget,
            Breach::WorkerCrashed(_) => FailureClass::WorkerCrashed,
            Breach::Halted => FailureClass::Halted,
            Breach::Interrupted => FailureClass::Interrupted,
            Breach::Internal(_) => FailureClass::Internal,
        }
    }

    fn message(&self, limits: &Limits) -> String {
        match self {
            Breach::Timeout => format!(
                "the program ran longer than its {} ms wall-clock limit",
                limits.timeout_ms
            ),
            Breach::Memory => format!(
                "the program used more than its {} MiB memory limit",
                limits.max_memory_mb
            ),
            Breach::CallBudget => format!(
                "the program made more than its {} allowed host calls",
                limits.max_calls
            ),
            Breach::WorkerCrashed(how) => format!("the program's worker process {how}"),
            Breach::Halted => "the host halted the program".to_string(),
            Breach::Interrupted => "the run was interrupted before it finished".to_string(),
            Breach::Internal(why) => format!("the sandbox could not run the program: {why}"),
        }
    }
}

/// Answers host calls for one run. `args` is `None` for a call without
/// arguments; when the program passed something with no JSON form, `args` holds
/// its marked-up rendering (for the record and the digest) and `args_error`
/// says what is wrong. Implementations never fail: every outcome is an envelope.
pub trait HostBridge: Send + Sync {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        args_error: Option<convert::ConvertError>,
    ) -> HostReply;
}

/// The envelope a host call returns, and whether it breached a limit.
pub struct HostReply {
    /// Shared, so the host can keep it for the run's result without a copy.
    /// `null` when the bridge has the envelope only as `text` (replay).
    pub envelope: Arc<Value>,
    /// The envelope's JSON, when the bridge has it as text: the worker is
    /// sent it as it is. The live host makes it for its effect row, so it is
    /// exactly `envelope`'s JSON; replay sends the recorded text and keeps no
    /// value of it.
    pub text: Option<Box<serde_json::value::RawValue>>,
    pub breach: Option<Breach>,
}

impl HostReply {
    /// The envelope as the worker is sent it: the text when there is one.
    pub(crate) fn json(&self) -> EnvelopeJson<'_> {
        match &self.text {
            Some(text) => EnvelopeJson::Text(text),
            None => EnvelopeJson::Value(&self.envelope),
        }
    }
}

/// An envelope to write out: its value, or the JSON text already made of it
/// (the same bytes either way). The reply to the worker and the effect row
/// both take one, so an envelope is serialized once.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum EnvelopeJson<'a> {
    Value(&'a Value),
    Text(&'a serde_json::value::RawValue),
}

/// Why a run did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    pub class: FailureClass,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl EvalError {
    /// An error without a position, its message capped at [`MAX_MESSAGE_BYTES`].
    pub fn new(class: FailureClass, message: impl Into<String>) -> Self {
        Self {
            class,
            message: cap_text(&message.into(), MAX_MESSAGE_BYTES),
            line: None,
            column: None,
        }
    }
}

/// Whether a run uses a fresh worker or its sandbox's session worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineMode {
    /// A fresh copy of the prepared engine, discarded after the run.
    Fresh,
    /// The sandbox's session worker: definitions persist across runs.
    Session,
    /// Discard the session worker first, then run in a fresh one.
    ResetSession,
}

/// What the evaluator reports for one run.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The final value as JSON (null when the run failed).
    pub value: Value,
    pub error: Option<EvalError>,
    pub breach: Option<Breach>,
    pub output: String,
    pub output_truncated: bool,
    pub elapsed: Duration,
    /// The session worker was lost (killed at the deadline, crashed): the next
    /// session run starts in a pristine one, without the session's definitions.
    pub worker_abandoned: bool,
    /// Resident memory the worker added over its prepared engine at its peak
    /// (KiB; for a session worker, its peak so far). `None` when the worker
    /// died before it could be measured.
    pub peak_memory_kb: Option<u64>,
    /// The call ids whose envelopes the program examined (read their
    /// `resultClass` or `failureClasses`), sorted: what makes a refusal
    /// handled (issue 56; [`examined`]).
    pub examined: Vec<String>,
    /// Where in the program each host call was made (1-based line and
    /// column), in call order; none for a call no frame of the program's
    /// text made. Not part of any record: the runs page asks a replay for
    /// it to mark a refused call's line.
    pub call_sites: Vec<Option<(usize, usize)>>,
}

impl RunOutput {
    /// The output of a run that never started.
    pub fn failed(error: EvalError, started: Instant) -> Self {
        RunOutput {
            value: Value::Null,
            error: Some(error),
            breach: None,
            output: String::new(),
            output_truncated: false,
            elapsed: started.elapsed(),
            worker_abandoned: false,
            peak_memory_kb: None,
            examined: Vec::new(),
            call_sites: Vec::new(),
        }
    }
}

/// The prelude every program sees (Scheme source).
pub fn prelude_source() -> &'static str {
    primitives::PRELUDE
}

/// Starts the process-wide template (the prepared engine that every worker
/// is a fork of) without waiting for it, so its engine builds while the
/// caller opens stores and logs. Errors surface at the first run.
pub fn prestart() {
    template::prestart();
}

/// [`prestart`] for a process that runs one program (`tusk eval`): the
/// template skips the prelude, and the worker compiles only the forms its
/// program reaches (`src/sandbox/prelude.rs`). Programs see the same
/// results either way. No effect once the template has started.
pub fn prestart_one_run() {
    template::prestart_one_run();
}

/// Stops whatever run its [`Sandbox`] is executing, from any thread (a Ctrl-C
/// handler). The run ends with [`CLASS_INTERRUPTED`], like a timeout would.
#[derive(Clone)]
pub struct InterruptHandle {
    current: supervisor::CurrentRun,
}

impl InterruptHandle {
    /// Interrupts the current run; `false` when nothing was running.
    pub fn interrupt(&self) -> bool {
        supervisor::interrupt(&self.current)
    }
}

/// Stops one run, from any thread, whenever the cancel comes: before the run
/// starts (it then stops at once), while it runs (within the supervisor's
/// tick), and no host call starts after it. The run ends with
/// [`CLASS_INTERRUPTED`]. One token per run; cancelling is permanent.
#[derive(Clone, Default)]
pub struct CancelToken {
    slot: supervisor::CurrentRun,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the token's run (now or when it starts).
    pub fn cancel(&self) {
        supervisor::cancel(&self.slot);
    }

    pub fn is_cancelled(&self) -> bool {
        supervisor::is_cancelled(&self.slot)
    }
}

/// What a sandbox's programs can bind: one procedure per action id, the
/// actions' declarations for `(host-describe)`, and the actions the profile
/// withholds.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    pub ids: Vec<String>,
    /// A JSON object keyed by action id: each action's declaration.
    pub catalogue: Catalogue,
    pub withheld: Vec<String>,
    /// Actions a narrowing (a run's `actions` list) left out.
    pub narrowed: Vec<String>,
    /// Why some of `narrowed` are left out, in the caller's terms (a token
    /// that is read-only or lists its actions): the class and message a
    /// program naming one gets.
    pub reasons: Vec<(String, FailureClass, String)>,
}

/// The bound actions' declarations as JSON text, made the first time a
/// worker asks (`(host-describe)`): most runs never do, and a cold start
/// should not pay for rendering every declaration.
#[derive(Clone)]
pub struct Catalogue(Arc<CatalogueText>);

struct CatalogueText {
    text: std::sync::OnceLock<String>,
    make: Box<dyn Fn() -> String + Send + Sync>,
}

impl Catalogue {
    /// A catalogue `make` renders when it is first needed.
    pub fn new(make: impl Fn() -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(CatalogueText {
            text: std::sync::OnceLock::new(),
            make: Box::new(make),
        }))
    }

    /// The JSON text (rendered now if it was not yet).
    pub fn text(&self) -> &str {
        self.0.text.get_or_init(|| (self.0.make)())
    }
}

impl Default for Catalogue {
    /// No declarations.
    fn default() -> Self {
        Self::new(|| "{}".to_string())
    }
}

impl std::fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.text.get() {
            Some(text) => f.debug_tuple("Catalogue").field(text).finish(),
            None => f.write_str("Catalogue(<not rendered>)"),
        }
    }
}

impl Bindings {
    /// Procedures for `ids`, with no declarations.
    pub fn ids(ids: Vec<String>) -> Self {
        Self {
            ids,
            catalogue: Catalogue::default(),
            withheld: Vec::new(),
            narrowed: Vec::new(),
            reasons: Vec::new(),
        }
    }
}

/// The host-side handle of the evaluator: which action ids programs bind, the
/// session worker when there is one, and a spare worker for the next fresh
/// run once the sandbox is used more than once. Runs are serialized per
/// sandbox.
pub struct Sandbox {
    bindings: Arc<Bindings>,
    session: Mutex<Option<supervisor::Worker>>,
    spares: supervisor::Spares,
    current: supervisor::CurrentRun,
}

impl Sandbox {
    /// A sandbox whose programs see one binding per id in `action_ids`.
    pub fn new(action_ids: Vec<String>) -> Self {
        Self::with_bindings(Bindings::ids(action_ids))
    }

    /// A sandbox whose programs see `bindings`.
    pub fn with_bindings(bindings: Bindings) -> Self {
        let bindings = Arc::new(bindings);
        Self {
            spares: supervisor::Spares::new(bindings.clone()),
            bindings,
            session: Mutex::new(None),
            current: Arc::default(),
        }
    }

    /// A handle that interrupts this sandbox's runs from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle {
            current: self.current.clone(),
        }
    }

    /// The action ids bound as procedures.
    pub fn action_ids(&self) -> &[String] {
        &self.bindings.ids
    }

    /// Starts the template process now rather than on the first run, and
    /// waits until its engine is built.
    ///
    /// # Errors
    /// The template could not be started or its engine failed to build.
    pub fn warm_up(&self) -> Result<(), String> {
        template::ensure_started()
    }

    /// Checks the program text's size in the host (the rest of the text
    /// checks run inside the confined worker).
    pub fn check_size(program: &str, limits: &Limits) -> Result<(), EvalError> {
        if program.len() as u64 > limits.max_program_bytes {
            return Err(EvalError::new(
                FailureClass::InvalidProgram,
                format!(
                    "program text is {} bytes, over the {} byte limit",
                    program.len(),
                    limits.max_program_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Runs one program. Always returns exactly one [`RunOutput`].
    pub fn run(
        &self,
        program: &str,
        limits: Limits,
        mode: EngineMode,
        bridge: Arc<dyn HostBridge>,
    ) -> RunOutput {
        let output = self.run_cancellable(program, limits, mode, bridge, None);
        self.ran(mode, &limits);
        output
    }

    /// A run has ended and its caller is done with it (recorded, answered):
    /// the time to make the next fresh run's worker, when the host is
    /// long-lived, so making it never competes with a run for the processor.
    pub fn ran(&self, mode: EngineMode, limits: &Limits) {
        if mode == EngineMode::Fresh {
            self.spares.ended(limits);
        }
    }

    /// [`Sandbox::run`], stopped by `cancel` (as well as by this sandbox's
    /// [`InterruptHandle`]s) when given.
    pub fn run_cancellable(
        &self,
        program: &str,
        limits: Limits,
        mode: EngineMode,
        bridge: Arc<dyn HostBridge>,
        cancel: Option<&CancelToken>,
    ) -> RunOutput {
        let current = cancel.map_or(&self.current, |c| &c.slot);
        let started = Instant::now();
        if let Err(error) = Self::check_size(program, &limits) {
            return RunOutput::failed(error, started);
        }
        let unavailable =
            |e: String| RunOutput::failed(EvalError::new(FailureClass::Internal, e), started);
        if mode == EngineMode::Fresh {
            let mut worker = match self.spares.take(&limits) {
                Ok(w) => w,
                Err(e) => return unavailable(e),
            };
            return worker.run(program, limits, bridge, current, started);
        }
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        if mode == EngineMode::ResetSession {
            *session = None;
        }
        if session.is_none() {
            match supervisor::Worker::spawn(
                self.bindings.clone(),
                &limits,
                supervisor::Purpose::Session,
            ) {
                Ok(w) => *session = Some(w),
                Err(e) => return unavailable(e),
            }
        }
        let worker = session.as_mut().expect("started above");
        let mut output = worker.run(program, limits, bridge, current, started);
        if !worker.reusable() {
            *session = None;
            output.worker_abandoned = true;
        }
        output
    }
}

#[cfg(test)]
mod tests;
