//! The sandboxed evaluator (`steel.sandbox.v1`, host-api §§1–2).
//!
//! Modelled on wasmtime's split: a [`Sandbox`] is the engine (prepared once:
//! allowlist, natives, prelude, one binding per host action), and each
//! [`Sandbox::run`] executes one program against a [`HostBridge`] that answers
//! its host calls. The sandbox knows nothing of stores or policies; the host
//! layer ([`crate::runtime`]) does.
//!
//! Defences, in the order a program meets them:
//! 1. size limit and [`lexical`] checks on the text (nesting depth, `require`/
//!    `load`/internal names) before Steel's recursive reader sees it;
//! 2. an engine with no kernel and nothing bound but the [`primitives`]
//!    allowlist: every other name fails to compile, and [`denied`] names that
//!    failure `scheme_eval.effect_denied`;
//! 3. allocation checks in the prelude's wrappers of growth primitives, a
//!    counting allocator polled by the supervisor, and a hard cap that parks a
//!    runaway worker ([`memory`]);
//! 4. a supervised worker thread: deadline interrupt, then abandonment if the
//!    VM cannot be reached ([`worker`]).
//!
//! See `docs/sandbox.md` for the reasoning.

pub mod convert;
pub mod denied;
pub mod lexical;
pub mod limits;
pub mod memory;
mod primitives;
pub mod printer;
mod worker;

pub use limits::{Limits, LimitsOverride};
pub use primitives::program_names;
pub use worker::EngineMode;

use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The evaluator profile name reported in every result.
pub const PROFILE: &str = "steel.sandbox.v1";

pub const CLASS_TIMEOUT: &str = "scheme_eval.timeout";
pub const CLASS_CALL_BUDGET: &str = "scheme_eval.call_budget_exceeded";
pub const CLASS_MEMORY: &str = "scheme_eval.memory_exceeded";
pub const CLASS_INVALID_PROGRAM: &str = "scheme_eval.invalid_program";
pub const CLASS_EFFECT_DENIED: &str = "scheme_eval.effect_denied";
/// An error the program raised and did not handle (spec-silent; see README).
pub const CLASS_RUNTIME_ERROR: &str = "scheme_eval.runtime_error";
/// The evaluator itself failed (a worker thread died); never the program's fault.
pub const CLASS_INTERNAL: &str = "scheme_eval.internal_error";
/// The host bridge stopped the run (replay: the program left the record).
pub const CLASS_HALTED: &str = "scheme_eval.halted";
/// Someone stopped the run from outside (Ctrl-C in `tusk repl`; spec-silent, see README).
pub const CLASS_INTERRUPTED: &str = "scheme_eval.interrupted";

/// A limit breach: ends the run with one result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breach {
    Timeout,
    Memory,
    CallBudget,
    WorkerLost,
    /// The host bridge has no answer to give (a replay that left the record).
    Halted,
    /// Stopped through an [`InterruptHandle`].
    Interrupted,
}

impl Breach {
    pub fn class(self) -> &'static str {
        match self {
            Breach::Timeout => CLASS_TIMEOUT,
            Breach::Memory => CLASS_MEMORY,
            Breach::CallBudget => CLASS_CALL_BUDGET,
            Breach::WorkerLost => CLASS_INTERNAL,
            Breach::Halted => CLASS_HALTED,
            Breach::Interrupted => CLASS_INTERRUPTED,
        }
    }

    fn message(self, limits: &Limits) -> String {
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
            Breach::WorkerLost => {
                "the evaluator's worker thread died; the program was stopped".to_string()
            }
            Breach::Halted => "the host halted the program".to_string(),
            Breach::Interrupted => "the run was interrupted before it finished".to_string(),
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
    pub envelope: Value,
    pub breach: Option<Breach>,
}

/// Why a run did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    pub class: &'static str,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl EvalError {
    fn internal(message: &str) -> Self {
        Self {
            class: CLASS_INTERNAL,
            message: message.to_string(),
            line: None,
            column: None,
        }
    }
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
    /// The worker did not come back and was abandoned: the next run gets a
    /// new worker, so a session engine's definitions are gone.
    pub worker_abandoned: bool,
}

/// Steel resolves (and creates) a home directory for modules the first time
/// its module system is touched. The sandbox loads no modules, so point it at
/// a path that can never exist instead of letting it write under `$HOME`.
fn isolate_steel_home() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::env::set_var("STEEL_HOME", "/dev/null/tusk-has-no-steel-home");
        std::env::remove_var("STEEL_SEARCH_PATHS");
    });
}

/// The run in progress, if any, as seen by [`InterruptHandle`]s.
type CurrentRun = Arc<Mutex<Option<Arc<worker::RunShared>>>>;

/// Stops whatever run its [`Sandbox`] is executing, from any thread (a Ctrl-C
/// handler). The run ends with [`CLASS_INTERRUPTED`], like a timeout would.
#[derive(Clone)]
pub struct InterruptHandle {
    current: CurrentRun,
}

impl InterruptHandle {
    /// Interrupts the current run; `false` when nothing was running.
    pub fn interrupt(&self) -> bool {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        match current.as_ref() {
            Some(shared) => {
                shared.breach(Breach::Interrupted);
                true
            }
            None => false,
        }
    }
}

/// The prepared evaluator. Cheap to share; runs are serialized on its worker.
pub struct Sandbox {
    action_ids: Arc<Vec<String>>,
    worker: Mutex<Option<worker::Worker>>,
    current: CurrentRun,
}

impl Sandbox {
    /// A sandbox whose programs see one binding per id in `action_ids`.
    pub fn new(action_ids: Vec<String>) -> Self {
        isolate_steel_home();
        Self {
            action_ids: Arc::new(action_ids),
            worker: Mutex::new(None),
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
        &self.action_ids
    }

    /// Builds the prepared engine now rather than on the first run.
    pub fn warm_up(&self) -> Result<(), String> {
        let mut slot = self.worker.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(worker::Worker::start(self.action_ids.clone())?);
        }
        Ok(())
    }

    /// Checks the program text without running it.
    pub fn check_text(program: &str, limits: &Limits) -> Result<(), EvalError> {
        if program.len() as u64 > limits.max_program_bytes {
            return Err(EvalError {
                class: CLASS_INVALID_PROGRAM,
                message: format!(
                    "program text is {} bytes, over the {} byte limit",
                    program.len(),
                    limits.max_program_bytes
                ),
                line: None,
                column: None,
            });
        }
        lexical::check(program, limits.max_nesting_depth).map_err(|e| {
            let (class, message, offset) = match e {
                lexical::LexicalError::Invalid { message, offset } => {
                    (CLASS_INVALID_PROGRAM, message, offset)
                }
                lexical::LexicalError::Denied { message, offset } => {
                    (CLASS_EFFECT_DENIED, message, offset)
                }
            };
            let (line, column) = lexical::line_column(program, offset);
            EvalError {
                class,
                message,
                line: Some(line),
                column: Some(column),
            }
        })
    }

    /// Runs one program. Always returns exactly one [`RunOutput`].
    pub fn run(
        &self,
        program: &str,
        limits: Limits,
        mode: EngineMode,
        bridge: Arc<dyn HostBridge>,
    ) -> RunOutput {
        let started = Instant::now();
        if let Err(error) = Self::check_text(program, &limits) {
            return RunOutput {
                value: Value::Null,
                error: Some(error),
                breach: None,
                output: String::new(),
                output_truncated: false,
                elapsed: started.elapsed(),
                worker_abandoned: false,
            };
        }
        let mut slot = self.worker.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            match worker::Worker::start(self.action_ids.clone()) {
                Ok(w) => *slot = Some(w),
                Err(message) => {
                    return RunOutput {
                        value: Value::Null,
                        error: Some(EvalError::internal(&message)),
                        breach: None,
                        output: String::new(),
                        output_truncated: false,
                        elapsed: started.elapsed(),
                        worker_abandoned: false,
                    }
                }
            }
        }
        let worker = slot.as_ref().expect("started above");
        let (mut output, healthy) = worker.run(program, limits, mode, bridge, &self.current);
        if !healthy {
            *slot = None;
            output.worker_abandoned = true;
        }
        output
    }
}

#[cfg(test)]
mod tests;
