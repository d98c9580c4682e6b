//! The host's side of a worker process: spawn it through the template, hand
//! it programs, answer its host calls through the [`HostBridge`], and hold
//! the clock. Whatever the worker does — finish, hang, flood, crash, send
//! garbage — the run ends with exactly one [`RunOutput`].

use super::confine::{syscall_name, EXIT_CONFINE, EXIT_STACK, EXIT_SYSCALL};
use super::memory::EXIT_MEMORY;
use super::proto::{FromWorker, HostChannel, RecvError, ToWorker, WireError};
use super::template::{self, Ended};
use super::{Breach, EnvelopeJson, EvalError, FailureClass, HostBridge, Limits, RunOutput};
use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};
use serde_json::Value;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a worker told to stop has before it is killed.
pub(crate) const GRACE: Duration = Duration::from_millis(250);
/// How often the supervisor looks at the clock and for interrupts.
const TICK: Duration = Duration::from_millis(10);
/// How long a new worker may take to confine itself and say it is ready.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest action id a worker may send (the worker cuts longer ones).
const MAX_ACTION_BYTES: usize = 256;

/// The run in progress, if any, as seen by [`super::InterruptHandle`]s and
/// [`super::CancelToken`]s.
pub(crate) type CurrentRun = Arc<RunSlot>;

/// Where a run's signal is reachable from other threads.
#[derive(Default)]
pub(crate) struct RunSlot {
    run: Mutex<Option<Arc<RunSignal>>>,
    /// Set by a cancel: stops the run in the slot and any run placed in it
    /// later (a cancel that arrives before its run starts still stops it).
    sticky: AtomicBool,
}

/// What an interrupt handle reaches: the running worker.
pub(crate) struct RunSignal {
    pidfd: Arc<OwnedFd>,
    interrupted: AtomicBool,
}

/// Interrupts the current run; false when nothing runs.
pub(crate) fn interrupt(current: &CurrentRun) -> bool {
    let run = current.run.lock().unwrap_or_else(|e| e.into_inner());
    match run.as_ref() {
        Some(signal) => {
            signal.stop();
            true
        }
        None => false,
    }
}

/// Stops the slot's run and every later one placed in it.
pub(crate) fn cancel(current: &CurrentRun) {
    // Set before looking at the slot; `Worker::run` places its signal before
    // reading the flag, so one of the two always sees the other.
    current.sticky.store(true, Ordering::SeqCst);
    interrupt(current);
}

pub(crate) fn is_cancelled(current: &CurrentRun) -> bool {
    current.sticky.load(Ordering::SeqCst)
}

impl RunSignal {
    fn stop(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        send_signal(&self.pidfd, libc::SIGUSR1);
    }
}

fn send_signal(pidfd: &OwnedFd, signal: i32) {
    // SAFETY: pidfd_send_signal on a pidfd we own: it reaches that process or none.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            signal,
            std::ptr::null::<libc::siginfo_t>(),
            0u32,
        );
    }
}

fn pidfd_open(pid: i32) -> Result<OwnedFd, String> {
    // SAFETY: pidfd_open(2) returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0u32) };
    if fd < 0 {
        return Err(format!("pidfd_open: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The largest message a worker may send under `limits`: its final value
/// (capped at the value and memory limits), its output (JSON-escaped, up to six bytes a
/// byte), a call's arguments, and room for the envelope of the message.
fn max_frame(limits: &Limits) -> usize {
    let memory = limits
        .max_memory_bytes()
        .min(usize::try_from(limits.max_value_bytes).unwrap_or(usize::MAX));
    let output = (limits.max_output_bytes as usize).saturating_mul(6);
    let args = (limits.max_call_args_bytes as usize).saturating_mul(2);
    memory
        .saturating_add(output)
        .saturating_add(args)
        .saturating_add(1 << 20)
}

/// A run that comes less than this after the last one ended comes back to
/// back: the spares made meanwhile skip the warm-up. About twice what a
/// warm-up takes (~0.5 ms of processor in this VM); runs further apart
/// leave the processor idle between them, and the warm-up costs no run
/// anything.
pub(crate) const WARM_SLACK: Duration = Duration::from_millis(1);

/// Fresh workers for one sandbox. The first fresh run spawns its worker
/// itself; from the second on, a background thread makes one spare worker
/// (confined, bound, waiting for a program) once each run has ended, so a
/// long-lived host pays for the fork and the confinement between runs rather
/// than on the next run's clock, and never while a run still competes for
/// the processor. A run that arrives while the spare is being made waits for
/// it rather than making a second one. A one-shot host (`tusk eval`) never
/// starts the thread.
pub(crate) struct Spares {
    shared: Arc<SpareShared>,
}

struct SpareShared {
    bindings: Arc<super::Bindings>,
    state: Mutex<SpareState>,
    wake: std::sync::Condvar,
}

#[derive(Default)]
struct SpareState {
    /// A ready worker and the limits it was confined for.
    ready: Option<(Worker, Limits)>,
    /// The limits of the spare being made now, if one is.
    making: Option<Limits>,
    /// A run is waiting for the spare being made.
    awaited: bool,
    /// The limits the next spare should have (those of the last run), set
    /// when a run ends and taken when the thread starts making it.
    wanted: Option<Limits>,
    /// The last run found no spare ready, or came within [`WARM_SLACK`] of
    /// the end of the one before: the next spare skips the warm-up
    /// ([`Purpose::Spare`]).
    pressed: bool,
    /// When the last run ended.
    ended_at: Option<Instant>,
    runs: u64,
    thread_started: bool,
    closed: bool,
}

impl Spares {
    pub fn new(bindings: Arc<super::Bindings>) -> Self {
        Self {
            shared: Arc::new(SpareShared {
                bindings,
                state: Mutex::new(SpareState::default()),
                wake: std::sync::Condvar::new(),
            }),
        }
    }

    /// A worker confined for `limits`: the spare when it fits (waiting for
    /// the one being made), else a new one. When no spare was ready on
    /// arrival, runs are coming faster than spares are made between them:
    /// the next spare is made now, beside this run, rather than after it.
    pub fn take(&self, limits: &Limits) -> Result<Worker, String> {
        let waited_until = Instant::now() + READY_TIMEOUT;
        let spare = {
            let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            state.runs += 1;
            let behind = state.ready.is_none();
            // One run waits for the spare being made; runs arriving while
            // it waits make their own at once, as before spares waited.
            if behind && state.making == Some(*limits) && !state.awaited {
                state.awaited = true;
                while state.ready.is_none()
                    && state.making == Some(*limits)
                    && Instant::now() < waited_until
                {
                    let (next, _) = self
                        .shared
                        .wake
                        .wait_timeout(
                            state,
                            waited_until.saturating_duration_since(Instant::now()),
                        )
                        .unwrap_or_else(|e| e.into_inner());
                    state = next;
                }
                state.awaited = false;
            }
            // Runs that wait for spares, or follow each other with no time
            // between them, need the processors a warm-up would take.
            let back_to_back = state.ended_at.is_some_and(|t| t.elapsed() < WARM_SLACK);
            state.pressed = behind || back_to_back;
            let spare = state.ready.take();
            if behind {
                self.want(&mut state, limits);
            }
            spare
        };
        match spare {
            // A spare can die while it waits (its template was killed from
            // outside): the run gets a new worker, not the corpse.
            Some((worker, confined)) if confined == *limits && worker.is_alive() => Ok(worker),
            _ => Worker::spawn(self.shared.bindings.clone(), limits, Purpose::Run),
        }
    }

    /// Waits until a spare is ready (or none is being made).
    #[cfg(test)]
    pub fn wait_ready(&self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.ready.is_none() && (state.making.is_some() || state.wanted.is_some()) {
            state = self
                .shared
                .wake
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A run under `limits` has ended: from the second run on, a spare for
    /// the next is made now (unless one is ready or being made).
    pub fn ended(&self, limits: &Limits) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.ended_at = Some(Instant::now());
        self.want(&mut state, limits);
    }

    /// Asks the spare thread (started on the second run) for a spare.
    fn want(&self, state: &mut SpareState, limits: &Limits) {
        if state.runs < 2 || state.closed {
            return;
        }
        state.wanted = Some(*limits);
        if !state.thread_started {
            state.thread_started = true;
            let shared = Arc::downgrade(&self.shared);
            let started = std::thread::Builder::new()
                .name("tusk-spares".into())
                .spawn(move || refill(shared));
            state.thread_started = started.is_ok();
        }
        self.shared.wake.notify_all();
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closed = true;
        state.ready = None;
        self.shared.wake.notify_all();
    }
}

/// The spare thread: waits until a run has ended with no spare ready, makes one.
fn refill(shared: std::sync::Weak<SpareShared>) {
    loop {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let (limits, purpose) = {
            let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if state.closed {
                    return;
                }
                if let Some(wanted) = state.wanted {
                    let fits = state.ready.as_ref().is_some_and(|(_, l)| *l == wanted);
                    if !fits {
                        break;
                    }
                    state.wanted = None;
                }
                let (next, _) = shared
                    .wake
                    .wait_timeout(state, Duration::from_secs(1))
                    .unwrap_or_else(|e| e.into_inner());
                state = next;
                if std::sync::Arc::strong_count(&shared) == 1 {
                    return;
                }
            }
            let limits = state.wanted.take().expect("checked above");
            // A spare for other limits is of no use now.
            state.ready = None;
            state.making = Some(limits);
            (
                limits,
                Purpose::Spare {
                    warm: !state.pressed,
                },
            )
        };
        let made = Worker::spawn(shared.bindings.clone(), &limits, purpose);
        let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.making = None;
        shared.wake.notify_all();
        if state.closed {
            return;
        }
        match made {
            Ok(worker) => state.ready = Some((worker, limits)),
            Err(_) => {
                // No spare this time; runs spawn their own.
                drop(state);
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// A live worker process.
pub(crate) struct Worker {
    pid: i32,
    pidfd: Arc<OwnedFd>,
    channel: HostChannel,
    alive: bool,
    poisoned: bool,
    /// Resident size when the worker reported ready (KiB).
    base_rss_kb: Option<u64>,
    /// The template has waited for it: nothing left to release.
    reaped: bool,
    #[cfg(test)]
    purpose: Purpose,
    /// What it binds; the catalogue is sent when the worker asks.
    bindings: Arc<super::Bindings>,
    /// It was sent the catalogue (it keeps it: asking twice is out of turn).
    described: bool,
}

/// A `Vm…:` figure (KiB) of process `pid`, from `/proc/<pid>/status`.
fn proc_status_kb(pid: i32, field: &str) -> Option<u64> {
    use std::io::Read;
    // One read into a buffer the whole file fits in (about 1.5 KiB):
    // `read_to_string` probes a file of no stated size with a dozen small reads.
    let mut file = std::fs::File::open(format!("/proc/{pid}/status")).ok()?;
    let mut buf = [0u8; 8192];
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let status = std::str::from_utf8(&buf[..len]).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

impl Drop for Worker {
    fn drop(&mut self) {
        if !self.reaped {
            send_signal(&self.pidfd, libc::SIGKILL);
            template::release(self.pid);
        }
    }
}

/// What a new worker is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// One fresh run, whose program is sent as soon as it is ready.
    Run,
    /// A session's runs, the first sent as soon as it is ready.
    Session,
    /// A spare, made before its run arrives. `warm`: it runs the warm-up
    /// (`prelude::warm_up`) before it says it is ready, which moves page
    /// copies off the next run's clock when the spare has time to spare;
    /// when runs wait for spares, the warm-up only compiles one program
    /// more on the processors those runs need.
    Spare { warm: bool },
}

impl Worker {
    /// Forks a worker from the template, confined for `limits` and binding
    /// `action_ids`; waits until it is ready for a program.
    pub fn spawn(
        bindings: Arc<super::Bindings>,
        limits: &Limits,
        purpose: Purpose,
    ) -> Result<Worker, String> {
        let (host_end, worker_end) = socketpair(
            AddressFamily::Unix,
            SockType::Stream,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .map_err(|e| format!("cannot create a worker channel: {e}"))?;
        let pid = template::spawn(worker_end)?;
        let pidfd = match pidfd_open(pid) {
            Ok(fd) => Arc::new(fd),
            Err(e) => {
                template::release(pid);
                return Err(e);
            }
        };
        let channel = HostChannel::new(host_end, max_frame(limits))
            .map_err(|e| format!("cannot set up a worker channel: {e}"))?;
        let mut worker = Worker {
            pid,
            pidfd,
            channel,
            alive: true,
            poisoned: false,
            base_rss_kb: None,
            reaped: false,
            bindings,
            described: false,
            #[cfg(test)]
            purpose,
        };
        let deadline = Instant::now() + READY_TIMEOUT;
        let bindings = &worker.bindings;
        let setup: ToWorker = ToWorker::Setup {
            action_ids: bindings.ids.clone(),
            withheld: bindings.withheld.clone(),
            narrowed: bindings.narrowed.clone(),
            reasons: bindings.reasons.clone(),
            limits: *limits,
            session: purpose == Purpose::Session,
            warm: purpose == Purpose::Spare { warm: true },
        };
        if !worker.channel.send(&setup, deadline) {
            return Err("the new worker did not take its setup".to_string());
        }
        match worker.channel.recv(deadline) {
            Ok(FromWorker::Ready) => {
                worker.base_rss_kb = proc_status_kb(pid, "VmRSS:");
                Ok(worker)
            }
            Ok(FromWorker::Fatal { reason }) => {
                Err(format!("the new worker could not start: {reason}"))
            }
            Ok(_) => Err("the new worker spoke out of turn".to_string()),
            Err(e) => Err(format!("the new worker did not get ready: {e:?}")),
        }
    }

    /// Peak resident memory over the size at ready, while the worker lives.
    fn peak_memory_kb(&self) -> Option<u64> {
        let peak = proc_status_kb(self.pid, "VmHWM:")?;
        Some(peak.saturating_sub(self.base_rss_kb?))
    }

    /// Whether the process still runs (its pidfd is not yet readable).
    pub fn is_alive(&self) -> bool {
        if !self.alive {
            return false;
        }
        let mut fds = [libc::pollfd {
            fd: self.pidfd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        // SAFETY: polling one descriptor we own, without waiting.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 1, 0) };
        n == 0
    }

    /// What the worker was made for.
    #[cfg(test)]
    pub fn purpose(&self) -> Purpose {
        self.purpose
    }

    /// Whether another program may run in this worker (a session).
    pub fn reusable(&self) -> bool {
        self.alive && !self.poisoned
    }

    /// Runs one program to its one result.
    pub fn run(
        &mut self,
        program: &str,
        limits: Limits,
        bridge: Arc<dyn HostBridge>,
        current: &CurrentRun,
        started: Instant,
    ) -> RunOutput {
        self.channel.set_max_frame(max_frame(&limits));
        let signal = Arc::new(RunSignal {
            pidfd: self.pidfd.clone(),
            interrupted: AtomicBool::new(false),
        });
        *current.run.lock().unwrap_or_else(|e| e.into_inner()) = Some(signal.clone());
        if current.sticky.load(Ordering::SeqCst) {
            signal.stop();
        }
        let output = self.supervise(program, limits, bridge.as_ref(), &signal, started);
        *current.run.lock().unwrap_or_else(|e| e.into_inner()) = None;
        output
    }

    fn supervise(
        &mut self,
        program: &str,
        limits: Limits,
        bridge: &dyn HostBridge,
        signal: &RunSignal,
        started: Instant,
    ) -> RunOutput {
        let deadline = started + limits.timeout();
        let mut run = RunState::new(limits);
        let run_message: ToWorker = ToWorker::Run {
            program: program.to_string(),
            limits,
        };
        if !self.channel.send(&run_message, deadline + GRACE) {
            return self.lost(run, started);
        }
        let mut watch = Watch {
            bridge,
            signal,
            deadline,
            kill_at: None,
        };
        loop {
            let wake = watch.kill_at.unwrap_or(deadline).min(Instant::now() + TICK);
            let next = match self.channel.recv(wake) {
                Ok(FromWorker::Call {
                    action,
                    args,
                    args_error,
                    output,
                    at,
                }) => {
                    run.add_output(&output);
                    run.call_sites.push(at);
                    self.answer_call(&mut watch, &mut run, &action, args, args_error)
                }
                Ok(FromWorker::Done {
                    value,
                    error,
                    output,
                    output_truncated,
                    examined,
                    memory,
                    poisoned,
                }) => {
                    run.add_output(&output);
                    run.truncated |= output_truncated;
                    run.examined = examined;
                    run.peak_memory_kb = self.peak_memory_kb();
                    self.poisoned = poisoned;
                    if run.breach.is_none() {
                        // An interrupt signalled straight from the handle
                        // stopped the VM before this loop noticed it.
                        if signal.interrupted.load(Ordering::Relaxed) {
                            run.breach = Some(Breach::Interrupted);
                        } else if memory {
                            run.breach = Some(Breach::Memory);
                        }
                    }
                    return run.finish(value, error.map(reported_error), started);
                }
                Ok(FromWorker::Fatal { reason }) => {
                    run.fatal = Some(reason);
                    Next::Continue
                }
                Ok(FromWorker::Describe) if !self.described => self.describe(deadline),
                Ok(FromWorker::Describe) => Next::Garbled("asked for the catalogue twice"),
                Ok(FromWorker::Ready) => Next::Garbled("spoke out of turn"),
                Err(RecvError::TimedOut) => Next::Continue,
                Err(RecvError::Closed) => Next::Lost,
                Err(RecvError::Garbled(why)) => return self.garbled(run, &why, started),
            };
            match next {
                Next::Continue => {}
                Next::Lost => return self.lost(run, started),
                Next::Garbled(why) => return self.garbled(run, why, started),
            }
            if self.watch_clock(&mut watch, &mut run) {
                // Stuck where the VM's interrupt cannot reach (one long
                // primitive, macro expansion): the worker goes.
                self.kill();
                run.peak_memory_kb = self.reap().1;
                return run.finish(Value::Null, None, started);
            }
        }
    }

    /// Answers one host call; once the run has its end (or is interrupted)
    /// the call does nothing and the worker is told to stop.
    fn answer_call(
        &mut self,
        watch: &mut Watch,
        run: &mut RunState,
        action: &str,
        args: Option<Value>,
        args_error: Option<super::convert::ConvertError>,
    ) -> Next {
        if action.len() > MAX_ACTION_BYTES {
            return Next::Garbled("sent an over-long action id");
        }
        if run.breach.is_none() && watch.signal.interrupted.load(Ordering::SeqCst) {
            // No host call starts after an interrupt or a cancel,
            // even one the worker sent before it was signalled.
            run.breach = Some(Breach::Interrupted);
            watch.kill_at = Some(Instant::now() + GRACE);
        }
        let reply = if run.breach.is_some() {
            // The run already has its end; the call does nothing.
            None
        } else {
            let (args, args_error) = run.checked_args(args, args_error);
            let reply = watch.bridge.call(action, args, args_error);
            if let Some(b) = &reply.breach {
                run.breach = Some(b.clone());
                watch.kill_at = Some(Instant::now() + GRACE);
            }
            Some(reply)
        };
        let message = match &reply {
            None => ToWorker::Reply {
                envelope: EnvelopeJson::Value(&Value::Null),
                stop: true,
            },
            Some(reply) => ToWorker::Reply {
                envelope: reply.json(),
                stop: reply.breach.is_some(),
            },
        };
        if !self
            .channel
            .send(&message, watch.deadline.max(Instant::now()) + GRACE)
        {
            return Next::Lost;
        }
        Next::Continue
    }

    /// Sends the catalogue the worker asked for (once per worker).
    fn describe(&mut self, deadline: Instant) -> Next {
        self.described = true;
        let reply: ToWorker = ToWorker::Catalogue(self.bindings.catalogue.text().to_string());
        if !self
            .channel
            .send(&reply, deadline.max(Instant::now()) + GRACE)
        {
            return Next::Lost;
        }
        Next::Continue
    }

    /// Tells the worker to stop at the deadline or on an interrupt; true
    /// once a worker told to stop has outlived its grace.
    fn watch_clock(&self, watch: &mut Watch, run: &mut RunState) -> bool {
        let now = Instant::now();
        if run.breach.is_none() {
            let stop = if watch.signal.interrupted.load(Ordering::Relaxed) {
                Some(Breach::Interrupted)
            } else if now >= watch.deadline {
                Some(Breach::Timeout)
            } else {
                None
            };
            if let Some(b) = stop {
                run.breach = Some(b);
                send_signal(&self.pidfd, libc::SIGUSR1);
                watch.kill_at = Some(now + GRACE);
            }
        }
        watch.kill_at.is_some_and(|at| now >= at)
    }

    fn kill(&mut self) {
        send_signal(&self.pidfd, libc::SIGKILL);
        self.alive = false;
    }

    /// Waits for the killed or dead worker: how it ended and its peak
    /// resident memory over its size at ready.
    fn reap(&mut self) -> (Ended, Option<u64>) {
        let (ended, max_rss) = template::status(self.pid);
        self.reaped = true;
        let peak = max_rss
            .zip(self.base_rss_kb)
            .map(|(m, b)| m.saturating_sub(b));
        (ended, peak)
    }

    /// The worker sent something that is not a message: it is killed and the
    /// run ends as a crash (unless it already had its end).
    fn garbled(&mut self, mut run: RunState, why: &str, started: Instant) -> RunOutput {
        self.kill();
        run.peak_memory_kb = self.reap().1;
        if run.breach.is_none() {
            crate::telemetry::record::worker_crashed("garbled");
            run.breach = Some(Breach::WorkerCrashed(why.to_string()));
        }
        run.finish(Value::Null, None, started)
    }

    /// The channel closed before the run's end: find out how the worker died.
    fn lost(&mut self, mut run: RunState, started: Instant) -> RunOutput {
        // Make sure it is dead before asking the template to wait for it.
        self.kill();
        let (ended, peak) = self.reap();
        run.peak_memory_kb = peak;
        if run.breach.is_none() {
            let breach = death_breach(ended, run.fatal.as_deref());
            crate::telemetry::record::worker_crashed(match &breach {
                Breach::Memory => "memory",
                _ => "crashed",
            });
            run.breach = Some(breach);
        }
        run.finish(Value::Null, None, started)
    }
}

/// How a worker's death reads in its run's result.
fn death_breach(ended: Ended, fatal: Option<&str>) -> Breach {
    match (fatal, ended) {
        (Some("memory"), _) | (_, Ended::Exited(EXIT_MEMORY)) => Breach::Memory,
        (Some("stack"), _) | (_, Ended::Exited(EXIT_STACK)) => Breach::WorkerCrashed(
            "overflowed its native stack (SIGSEGV): Steel's printer, hasher and compiler \
             recurse on deeply nested or cyclic values"
                .to_string(),
        ),
        (Some(reason), _) if reason.starts_with("syscall:") => {
            let nr: i64 = reason["syscall:".len()..].parse().unwrap_or(-1);
            Breach::WorkerCrashed(format!(
                "was stopped by the system-call filter when it attempted {} (system call {nr}); \
                 programs reach the world only through host functions",
                syscall_name(nr)
            ))
        }
        (_, Ended::Exited(EXIT_SYSCALL)) => {
            Breach::WorkerCrashed("was stopped by the system-call filter".to_string())
        }
        (Some(reason), _) if reason.starts_with("confine:") => {
            Breach::Internal(format!("the worker could not confine itself ({reason})"))
        }
        (_, Ended::Exited(EXIT_CONFINE)) => {
            Breach::Internal("the worker could not confine itself".to_string())
        }
        (_, Ended::Signaled(sig)) => {
            Breach::WorkerCrashed(format!("was killed by {}", signal_name(sig)))
        }
        (_, Ended::Exited(code)) => {
            Breach::WorkerCrashed(format!("exited unexpectedly with code {code}"))
        }
        (_, Ended::Unknown) => Breach::WorkerCrashed("died".to_string()),
    }
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGABRT => "SIGABRT (an abort: a fault inside the evaluator)",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV (a memory fault)",
        libc::SIGBUS => "SIGBUS (a memory fault)",
        libc::SIGXCPU => "SIGXCPU (its CPU-time limit)",
        libc::SIGXFSZ => "SIGXFSZ (its file-size limit)",
        libc::SIGSYS => "SIGSYS (the system-call filter)",
        libc::SIGFPE => "SIGFPE (an arithmetic fault)",
        libc::SIGILL => "SIGILL (an illegal instruction)",
        _ => "",
    };
    if name.is_empty() {
        format!("signal {sig}")
    } else {
        name.to_string()
    }
}

/// One supervised run's clock and the host side its calls go to.
struct Watch<'a> {
    bridge: &'a dyn HostBridge,
    signal: &'a RunSignal,
    deadline: Instant,
    /// When a worker told to stop is killed.
    kill_at: Option<Instant>,
}

/// How the supervision loop goes on after one message.
enum Next {
    Continue,
    /// The channel failed: the run ends with how the worker died.
    Lost,
    /// The worker broke the protocol: it is killed.
    Garbled(&'static str),
}

/// A worker's own error, held to the classes a worker may report itself.
fn reported_error(e: WireError) -> EvalError {
    EvalError {
        class: match e.class {
            // The only classes a worker may report itself.
            c @ (FailureClass::InvalidProgram
            | FailureClass::EffectDenied
            | FailureClass::RuntimeError
            | FailureClass::ValueTooLarge
            | FailureClass::ReadOnly
            | FailureClass::Memory) => c,
            _ => FailureClass::RuntimeError,
        },
        message: super::cap_text(&e.message, super::MAX_MESSAGE_BYTES),
        line: e.line,
        column: e.column,
    }
}

/// What the host gathers about one run while it supervises it.
struct RunState {
    limits: Limits,
    breach: Option<Breach>,
    output: String,
    truncated: bool,
    peak_memory_kb: Option<u64>,
    fatal: Option<String>,
    /// The envelopes the program examined, as its worker reported them.
    examined: Vec<String>,
    /// Where each call was made, in call order.
    call_sites: Vec<Option<(usize, usize)>>,
}

impl RunState {
    fn new(limits: Limits) -> Self {
        Self {
            limits,
            breach: None,
            output: String::new(),
            truncated: false,
            peak_memory_kb: None,
            fatal: None,
            examined: Vec::new(),
            call_sites: Vec::new(),
        }
    }

    /// Output from the worker, held to the run's cap whatever the worker says.
    fn add_output(&mut self, text: &str) {
        let room = (self.limits.max_output_bytes as usize).saturating_sub(self.output.len());
        if text.len() <= room {
            self.output.push_str(text);
        } else {
            let mut cut = room;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.output.push_str(&text[..cut]);
            self.truncated = true;
        }
    }

    /// The worker checks argument size and depth; the host checks again,
    /// since the worker is not trusted.
    fn checked_args(
        &self,
        args: Option<Value>,
        args_error: Option<super::convert::ConvertError>,
    ) -> (Option<Value>, Option<super::convert::ConvertError>) {
        let Some(value) = args else {
            return (None, args_error);
        };
        let size = serde_json::to_vec(&value)
            .map(|v| v.len())
            .unwrap_or(usize::MAX);
        if size as u64 > self.limits.max_call_args_bytes {
            return super::convert::oversized_args(self.limits.max_call_args_bytes);
        }
        if super::convert::depth(&value) > super::convert::MAX_DEPTH {
            return (
                Some(Value::String(super::convert::TOO_DEEP.to_string())),
                Some(super::convert::ConvertError {
                    path: String::new(),
                    reason: format!(
                        "arguments nest deeper than {} levels",
                        super::convert::MAX_DEPTH
                    ),
                }),
            );
        }
        (Some(value), args_error)
    }

    fn finish(self, value: Value, error: Option<EvalError>, started: Instant) -> RunOutput {
        // A breach explains the stopped run better than the VM's own error.
        let error = match &self.breach {
            Some(b) => Some(EvalError::new(b.class(), b.message(&self.limits))),
            None => error,
        };
        RunOutput {
            value: if error.is_some() { Value::Null } else { value },
            error,
            breach: self.breach,
            output: self.output,
            output_truncated: self.truncated,
            elapsed: started.elapsed(),
            worker_abandoned: false,
            peak_memory_kb: self.peak_memory_kb,
            examined: self.examined,
            call_sites: self.call_sites,
        }
    }
}
