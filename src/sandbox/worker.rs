//! The supervised worker thread that owns the prepared engine.
//!
//! Steel engines are not `Send`, so the prepared engine lives on one long-lived
//! worker thread and every run is a job sent to it. The caller supervises the
//! job: it polls the heap against the memory limit, interrupts the VM at the
//! deadline, and, when the worker does not come back within a grace period
//! (stuck in macro expansion or inside one long primitive, where Steel's
//! interrupt cannot reach), abandons the worker: the run still gets its one
//! result, the abandoned thread is parked by the allocator guard at its next
//! allocation, and the next run starts a fresh worker.

use super::lexical;
use super::limits::Limits;
use super::memory;
use super::primitives;
use super::{Breach, EvalError, HostBridge, RunOutput};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use steel::parser::expander::SteelMacro;
use steel::parser::interner::InternedString;
use steel::steel_vm::engine::{Engine, GlobalCheckpoint};
use steel::steel_vm::ThreadStateController;

/// Native stack of the worker: generous, because Steel's compiler recurses on
/// nesting (bounded by the lexical check) and its equality/hashing on data.
const WORKER_STACK: usize = 256 * 1024 * 1024;
/// How often the supervisor looks at the heap.
const TICK: Duration = Duration::from_millis(2);
/// How long an interrupted worker has to come back before it is abandoned.
const GRACE: Duration = Duration::from_millis(250);

/// Captured `display` output of a run.
#[derive(Default)]
pub(crate) struct Captured {
    pub text: String,
    pub truncated: bool,
}

/// State shared between the worker (natives) and the supervising caller.
pub(crate) struct RunShared {
    pub limits: Limits,
    output: Mutex<Captured>,
    breach: Mutex<Option<Breach>>,
    controller: Mutex<Option<ThreadStateController>>,
    baseline: AtomicUsize,
}

impl RunShared {
    fn new(limits: Limits) -> Self {
        Self {
            limits,
            output: Mutex::new(Captured::default()),
            breach: Mutex::new(None),
            controller: Mutex::new(None),
            baseline: AtomicUsize::new(0),
        }
    }

    /// Records the first breach and stops the VM at its next instruction.
    pub fn breach(&self, breach: Breach) {
        {
            let mut slot = self.breach.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(breach);
            }
        }
        if let Some(c) = self
            .controller
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            c.interrupt();
        }
    }

    fn first_breach(&self) -> Option<Breach> {
        *self.breach.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write_output(&self, text: &str) {
        let mut out = self.output.lock().unwrap_or_else(|e| e.into_inner());
        let room = (self.limits.max_output_bytes as usize).saturating_sub(out.text.len());
        if text.len() <= room {
            out.text.push_str(text);
        } else {
            let mut cut = room;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            out.text.push_str(&text[..cut]);
            out.truncated = true;
        }
    }

    fn take_output(&self) -> Captured {
        std::mem::take(&mut *self.output.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// What natives on the worker thread reach while a job runs.
pub(crate) struct Hooks {
    pub shared: Arc<RunShared>,
    pub bridge: Arc<dyn HostBridge>,
}

thread_local! {
    pub(crate) static HOOKS: RefCell<Option<Hooks>> = const { RefCell::new(None) };
}

/// Whether a job runs in a fresh copy of the prepared engine or in the
/// worker's persistent session engine (REPL: definitions persist).
///
/// Steel's engine clones share one compiler, so while a session engine holds
/// definitions, a `Fresh` program that names one of them compiles and then
/// fails at run time; a host should use one kind or the other (`tusk eval`
/// only `Fresh`, `tusk repl` only the session kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineMode {
    Fresh,
    Session,
    /// Drop the session engine first, then run in a new one.
    ResetSession,
}

struct Job {
    program: String,
    mode: EngineMode,
    shared: Arc<RunShared>,
    bridge: Arc<dyn HostBridge>,
    reply: Sender<Finished>,
}

struct Finished {
    value: Value,
    error: Option<EvalError>,
}

pub(crate) struct Worker {
    jobs: Sender<Job>,
    cancelled: &'static AtomicBool,
}

impl Worker {
    /// Starts a worker and waits until its prepared engine is built.
    pub fn start(action_ids: Arc<Vec<String>>) -> Result<Worker, String> {
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        let cancelled: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        std::thread::Builder::new()
            .name("tusk-sandbox".into())
            .stack_size(WORKER_STACK)
            .spawn(move || worker_main(action_ids, jobs_rx, ready_tx, cancelled))
            .map_err(|e| format!("cannot start the sandbox worker: {e}"))?;
        ready_rx
            .recv()
            .map_err(|_| "the sandbox worker died while preparing its engine".to_string())??;
        Ok(Worker {
            jobs: jobs_tx,
            cancelled,
        })
    }

    /// Runs one program under `limits`; `None` means the worker was abandoned
    /// and must not be reused (the output is still complete).
    pub fn run(
        &self,
        program: &str,
        limits: Limits,
        mode: EngineMode,
        bridge: Arc<dyn HostBridge>,
        current: &Mutex<Option<Arc<RunShared>>>,
    ) -> (RunOutput, bool) {
        let started = Instant::now();
        let shared = Arc::new(RunShared::new(limits));
        // Published for interrupt handles until the run has its result.
        *current.lock().unwrap_or_else(|e| e.into_inner()) = Some(shared.clone());
        let outcome = self.supervised(program, limits, mode, bridge, &shared, started);
        *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        outcome
    }

    fn supervised(
        &self,
        program: &str,
        limits: Limits,
        mode: EngineMode,
        bridge: Arc<dyn HostBridge>,
        shared: &Arc<RunShared>,
        started: Instant,
    ) -> (RunOutput, bool) {
        let (reply_tx, reply_rx) = mpsc::channel();
        let job = Job {
            program: program.to_string(),
            mode,
            shared: shared.clone(),
            bridge,
            reply: reply_tx,
        };
        if self.jobs.send(job).is_err() {
            let error = EvalError::internal("the sandbox worker is gone");
            return (finish(shared, Value::Null, Some(error), started), false);
        }
        let (finished, healthy) = supervise(shared, &reply_rx, limits, started, self.cancelled);
        let output = match finished {
            Some(f) => finish(shared, f.value, f.error, started),
            None => finish(shared, Value::Null, None, started),
        };
        (output, healthy)
    }
}

fn finish(
    shared: &RunShared,
    value: Value,
    error: Option<EvalError>,
    started: Instant,
) -> RunOutput {
    let breach = shared.first_breach();
    let captured = shared.take_output();
    // A breach explains the interrupted run better than the VM's own error.
    let error = match breach {
        Some(b) => Some(EvalError {
            class: b.class(),
            message: b.message(&shared.limits),
            line: None,
            column: None,
        }),
        None => error,
    };
    RunOutput {
        value: if error.is_some() { Value::Null } else { value },
        error,
        breach,
        output: captured.text,
        output_truncated: captured.truncated,
        elapsed: started.elapsed(),
        worker_abandoned: false,
    }
}

fn supervise(
    shared: &Arc<RunShared>,
    reply: &Receiver<Finished>,
    limits: Limits,
    started: Instant,
    cancelled: &'static AtomicBool,
) -> (Option<Finished>, bool) {
    let deadline = started + limits.timeout();
    let memory_limit = limits.max_memory_bytes();
    let mut interrupted_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        let wait = match interrupted_at {
            Some(at) => (at + GRACE).saturating_duration_since(now),
            None => deadline.saturating_duration_since(now).min(TICK),
        };
        match reply.recv_timeout(wait) {
            Ok(finished) => return (Some(finished), true),
            Err(RecvTimeoutError::Disconnected) => {
                // The worker thread died (a panic inside Steel): the run still ends with one result.
                shared.breach(Breach::WorkerLost);
                return (None, false);
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        let now = Instant::now();
        if let Some(at) = interrupted_at {
            if now >= at + GRACE {
                cancelled.store(true, Ordering::Relaxed);
                return (None, false);
            }
            continue;
        }
        let baseline = shared.baseline.load(Ordering::Relaxed);
        if baseline != 0 && memory::program_allocated().saturating_sub(baseline) > memory_limit {
            shared.breach(Breach::Memory);
            interrupted_at = Some(now);
        } else if now >= deadline {
            shared.breach(Breach::Timeout);
            interrupted_at = Some(now);
        } else if shared.first_breach().is_some() {
            // A native reported a breach (memory reservation, call budget) and interrupted.
            interrupted_at = Some(now);
        }
    }
}

/// The compile-time state that Steel's `Engine::clone` shares between the
/// prepared engine and every copy of it: the global symbol table and the
/// macros. Without restoring it, a "fresh" run would compile against names an
/// earlier run defined (and crash the VM calling one of them), and a reset
/// session would keep its macros.
struct CompilerState {
    globals: GlobalCheckpoint,
    macros: FxHashMap<InternedString, SteelMacro>,
}

impl CompilerState {
    fn take(engine: &Engine) -> Self {
        Self {
            globals: engine.environment_offset(),
            macros: engine.in_scope_macros().clone(),
        }
    }

    fn restore(&self, engine: &mut Engine) {
        // Rolling back only forgets names past the checkpoint; it cannot fail.
        let _ = engine.rollback_to_checkpoint(self.globals);
        *engine.in_scope_macros_mut() = self.macros.clone();
    }
}

fn worker_main(
    action_ids: Arc<Vec<String>>,
    jobs: Receiver<Job>,
    ready: Sender<Result<(), String>>,
    cancelled: &'static AtomicBool,
) {
    let mut template = match primitives::build_engine(&action_ids) {
        Ok(engine) => engine,
        Err(e) => {
            let _ = ready.send(Err(format!("the sandbox prelude failed to compile: {e}")));
            return;
        }
    };
    if ready.send(Ok(())).is_err() {
        return;
    }
    let pristine = CompilerState::take(&template);
    let mut session: Option<Engine> = None;
    while let Ok(job) = jobs.recv() {
        let finished = run_job(&mut template, &pristine, &mut session, &job, cancelled);
        if job.reply.send(finished).is_err() {
            // The supervisor gave up on this worker.
            return;
        }
    }
}

fn run_job(
    template: &mut Engine,
    pristine: &CompilerState,
    session: &mut Option<Engine>,
    job: &Job,
    cancelled: &'static AtomicBool,
) -> Finished {
    let mut fresh;
    // What a fresh run must leave behind in the shared compiler: the state
    // before it (which includes a live session's names).
    let mut undo = None;
    let engine: &mut Engine = match job.mode {
        EngineMode::Fresh => {
            undo = Some(CompilerState::take(template));
            fresh = template.clone();
            &mut fresh
        }
        EngineMode::Session => session.get_or_insert_with(|| template.clone()),
        EngineMode::ResetSession => {
            *session = None;
            pristine.restore(template);
            *session = Some(template.clone());
            session.as_mut().expect("just set")
        }
    };
    let controller = engine.get_thread_state_controller();
    controller.resume();
    *job.shared
        .controller
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(controller.clone());
    // A breach recorded before the controller was published (an interrupt
    // that raced the job's start) could not stop the VM: do it now.
    if job.shared.first_breach().is_some() {
        controller.interrupt();
    }
    HOOKS.with(|h| {
        *h.borrow_mut() = Some(Hooks {
            shared: job.shared.clone(),
            bridge: job.bridge.clone(),
        })
    });

    let limit = job.shared.limits.max_memory_bytes();
    memory::reset_host_retained();
    let baseline = memory::allocated().max(1);
    job.shared.baseline.store(baseline, Ordering::Relaxed);
    memory::set_thread_budget(Some((baseline, limit)));
    let hard_cap = baseline
        .saturating_add(limit)
        .saturating_add(limit / 4)
        .saturating_add(16 << 20);
    memory::set_runaway_guard(cancelled, hard_cap);

    // Compile and run separately so that every compile-time failure (syntax,
    // unbound names, macro expansion limits) is classed as an invalid program.
    let result = match engine.emit_raw_program_no_path(job.program.clone()) {
        Ok(compiled) => engine.run_raw_program(compiled).map_err(|e| (false, e)),
        Err(e) => Err((true, e)),
    };

    memory::clear_runaway_guard();
    memory::set_thread_budget(None);
    let finished = match result {
        Ok(values) => Finished {
            value: values
                .last()
                .map(super::convert::value_to_json)
                .unwrap_or(Value::Null),
            error: None,
        },
        Err((compile_time, e)) => Finished {
            value: Value::Null,
            error: Some(classify(engine, &job.program, &e, compile_time)),
        },
    };
    HOOKS.with(|h| *h.borrow_mut() = None);
    if let Some(state) = undo {
        state.restore(engine);
    }
    finished
}

/// Maps a Steel error to the run's error class, with a position when it points
/// into the program text.
fn classify(engine: &Engine, program: &str, e: &steel::SteelErr, compile_time: bool) -> EvalError {
    use steel::rerrs::ErrorKind;
    let message = e.to_string();
    let message = message
        .strip_prefix("Error: ")
        .unwrap_or(&message)
        .to_string();
    let (line, column) = e
        .span()
        .filter(|span| {
            span.source_id
                .and_then(|id| engine.get_source(&id))
                .is_some_and(|src| src.as_ref() == program)
        })
        .map(|span| lexical::line_column(program, span.start as usize))
        .map_or((None, None), |(l, c)| (Some(l), Some(c)));
    let (class, message) = match e.kind() {
        ErrorKind::FreeIdentifier => {
            let name = message.rsplit(": ").next().unwrap_or("").trim().to_string();
            match super::denied::capability_of(&name) {
                Some(cap) => (
                    super::CLASS_EFFECT_DENIED,
                    super::denied::denial_message(&name, cap),
                ),
                None => (
                    super::CLASS_INVALID_PROGRAM,
                    format!("unbound identifier `{name}`"),
                ),
            }
        }
        _ if compile_time => (super::CLASS_INVALID_PROGRAM, message),
        _ => (super::CLASS_RUNTIME_ERROR, message),
    };
    EvalError {
        class,
        message,
        line,
        column,
    }
}
