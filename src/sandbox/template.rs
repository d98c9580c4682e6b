//! The template process: one per host process, holding the prepared engine
//! (allowlist, natives, prelude), and forking a worker per run or session.
//!
//! Forking the template rather than building an engine per run gives every
//! run a pristine copy for the price of a `fork` (nothing one run defines is
//! visible to another), and keeps Steel out of the host: the host process
//! never runs a program, so none of Steel's global state is touched there.
//!
//! The template is itself forked from the host the first time it is needed
//! (or at [`ensure_started`]). It closes every descriptor it inherited but
//! its control socket, leaves the terminal's process group (Ctrl-C is the
//! host's to forward), builds its engine on a thread with a large stack, and
//! then serves requests on a `SOCK_SEQPACKET` control socket:
//!
//! | request | payload | reply |
//! |---|---|---|
//! | spawn | the worker's end of a fresh socket pair (`SCM_RIGHTS`) | its pid, and whether it is the template itself |
//! | status | a pid whose channel closed | how it ended |
//! | release | a pid the host is done with | none (killed and reaped) |
//!
//! A template started for one run (`tusk eval`) forks no worker: it
//! answers the first spawn with its own pid and becomes that worker, and
//! the host, its parent, waits for it itself. A second spawn in such a
//! process starts a new template.
//!
//! Workers are reaped only on request, so a worker's pid is never reused
//! while the host may still signal it; the host signals through a pidfd
//! anyway. When the host goes away, the control socket reads end-of-file and
//! the template exits, and its workers die with it (`PR_SET_PDEATHSIG`).

use super::primitives;
use super::worker;
use nix::sys::socket::{
    recvmsg, sendmsg, socketpair, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags,
    SockFlag, SockType,
};
use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::time::Duration;
use steel::steel_vm::engine::Engine;

const OP_READY: u8 = 0;
const OP_SPAWN: u8 = 1;
const OP_STATUS: u8 = 2;
const OP_RELEASE: u8 = 3;
const OP_FAILED: u8 = 255;
/// The last byte of a spawn reply: the worker is a fork of the template, or
/// the template itself.
const FORKED: u8 = 0;
const BECAME_WORKER: u8 = 1;

/// Descriptor of the control socket inside the template.
const CTL_FD: RawFd = 3;
/// Native stack of the template thread, and so of every worker: Steel's
/// compiler recurses on nesting (bounded by the lexical check).
const TEMPLATE_STACK: usize = 64 * 1024 * 1024;
/// How long the template may take to build its engine.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one spawn or status request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// How a worker process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    Exited(i32),
    Signaled(i32),
    Unknown,
}

struct Template {
    pid: i32,
    ctl: OwnedFd,
    /// It said its engine is built.
    ready: bool,
    /// Dropping it neither kills nor waits: it became a worker, which was
    /// waited for or released.
    reaped: bool,
}

impl Template {
    /// Waits for the template's engine (once).
    fn ready(&mut self) -> Result<(), String> {
        if self.ready {
            return Ok(());
        }
        set_timeout(self.ctl.as_raw_fd(), START_TIMEOUT);
        let mut buf = [0u8; 16];
        let n = recv(self.ctl.as_raw_fd(), &mut buf);
        set_timeout(self.ctl.as_raw_fd(), REQUEST_TIMEOUT);
        if n >= 1 && buf[0] == OP_READY {
            self.ready = true;
            return Ok(());
        }
        let why = if n > 1 && buf[0] == OP_FAILED {
            "its prepared engine failed to build"
        } else {
            "it did not start"
        };
        Err(format!("the sandbox template process failed: {why}"))
    }
}

impl Template {
    /// Kills the template and reaps it (`WNOHANG`: only if it is already gone).
    fn kill(&self, wait_flags: libc::c_int) {
        // SAFETY: signalling and reaping our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), wait_flags);
        }
    }
}

impl Drop for Template {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill(0);
        }
    }
}

static TEMPLATE: Mutex<Option<Template>> = Mutex::new(None);

/// One-run templates that became their process's worker, by pid: the host
/// is their parent, so it waits for them itself.
static BECAME_WORKERS: Mutex<Vec<Template>> = Mutex::new(Vec::new());

/// Steel resolves (and creates) a home directory for modules the first time
/// its module system is touched. The sandbox loads no modules, so point it at
/// a path that can never exist. Set in the host, before the template forks.
fn isolate_steel_home() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::env::set_var("STEEL_HOME", "/dev/null/tusk-has-no-steel-home");
        std::env::remove_var("STEEL_SEARCH_PATHS");
    });
}

/// Starts the template if it is not running.
/// Starts the template if it is not running, and waits for its engine.
pub(crate) fn ensure_started() -> Result<(), String> {
    let mut slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    ready(&mut slot)
}

/// Starts the template if it is not running, without waiting for it: its
/// engine builds while the caller goes on.
pub(crate) fn prestart() {
    let mut slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        *slot = start().ok();
    }
}

/// [`prestart`], with the prelude left to the workers (one run is wanted).
pub(crate) fn prestart_one_run() {
    let mut slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        super::prelude::set_on_demand();
        *slot = start().ok();
    }
}

/// The running template with its engine built; a failed one is dropped.
fn ready(slot: &mut Option<Template>) -> Result<(), String> {
    if slot.is_none() {
        *slot = Some(start()?);
    }
    let result = slot.as_mut().expect("started above").ready();
    if result.is_err() {
        *slot = None;
    }
    result
}

fn set_timeout(fd: RawFd, timeout: Duration) {
    let tv = libc::timeval {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_usec: timeout.subsec_micros() as libc::suseconds_t,
    };
    // SAFETY: setting a socket option from a valid struct.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
    }
}

fn start() -> Result<Template, String> {
    isolate_steel_home();
    let (host_end, template_end) = socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .map_err(|e| format!("cannot create the template's control socket: {e}"))?;
    // SAFETY: the child only runs `template_main`, which never returns; the
    // host keeps Steel out of its own threads, so no lock the child needs can
    // be held by a thread that fork left behind.
    match unsafe { libc::fork() } {
        -1 => Err(format!(
            "cannot fork the template process: {}",
            std::io::Error::last_os_error()
        )),
        0 => {
            drop(host_end);
            template_main(template_end.into_raw_fd())
        }
        pid => {
            drop(template_end);
            Ok(Template {
                pid,
                ctl: host_end,
                ready: false,
                reaped: false,
            })
        }
    }
}

fn recv(fd: RawFd, buf: &mut [u8]) -> isize {
    loop {
        // SAFETY: reading into a valid buffer.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return n;
    }
}

fn send(fd: RawFd, bytes: &[u8]) -> bool {
    // SAFETY: writing from a valid buffer.
    let n = unsafe { libc::send(fd, bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
    n == bytes.len() as isize
}

/// Forks a worker that will speak on `channel`; returns its pid.
pub(crate) fn spawn(channel: OwnedFd) -> Result<i32, String> {
    let mut slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    // One retry: a template that died (killed from outside) is replaced.
    for _ in 0..2 {
        ready(&mut slot)?;
        let template = slot.as_ref().expect("ready above");
        let fds = [channel.as_raw_fd()];
        let sent = sendmsg::<()>(
            template.ctl.as_raw_fd(),
            &[IoSlice::new(&[OP_SPAWN])],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::MSG_NOSIGNAL,
            None,
        );
        let mut buf = [0u8; 16];
        if sent.is_ok() && recv(template.ctl.as_raw_fd(), &mut buf) == 6 && buf[0] == OP_SPAWN {
            let pid = i32::from_le_bytes(buf[1..5].try_into().expect("4 bytes"));
            if pid > 0 {
                if buf[5] == BECAME_WORKER {
                    // The template is the worker now: the next spawn starts
                    // a new template.
                    let template = slot.take().expect("ready above");
                    BECAME_WORKERS
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(template);
                }
                return Ok(pid);
            }
            return Err(format!(
                "the template could not fork a worker: {}",
                std::io::Error::from_raw_os_error(-pid)
            ));
        }
        // The template is gone or out of step: replace it.
        *slot = None;
    }
    Err("the sandbox template process is not answering".to_string())
}

/// How worker `pid` ended, and its peak resident size (KiB); it must be
/// dead or dying (its channel closed or it was killed), since the template
/// waits for it. The worker is reaped: do not release it afterwards.
pub(crate) fn status(pid: i32) -> (Ended, Option<u64>) {
    if let Some(mut template) = take_became_worker(pid) {
        template.reaped = true;
        return wait_for(pid);
    }
    let slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(template) = slot.as_ref() else {
        return (Ended::Unknown, None);
    };
    let mut req = [OP_STATUS, 0, 0, 0, 0];
    req[1..5].copy_from_slice(&pid.to_le_bytes());
    let mut buf = [0u8; 16];
    if !send(template.ctl.as_raw_fd(), &req)
        || recv(template.ctl.as_raw_fd(), &mut buf) != 14
        || buf[0] != OP_STATUS
    {
        return (Ended::Unknown, None);
    }
    let code = i32::from_le_bytes(buf[2..6].try_into().expect("4 bytes"));
    let max_rss = u64::from_le_bytes(buf[6..14].try_into().expect("8 bytes"));
    let ended = match buf[1] {
        0 => Ended::Exited(code),
        1 => Ended::Signaled(code),
        _ => Ended::Unknown,
    };
    (ended, (max_rss > 0).then_some(max_rss))
}

/// Kills and reaps worker `pid` (the host is done with it). No reply.
pub(crate) fn release(pid: i32) {
    if let Some(mut template) = take_became_worker(pid) {
        // Killed, and reaped if it is already gone, but not waited for: its
        // process's teardown (the engine's whole heap) is the kernel's to
        // finish while this one-run process exits, as a forked worker's
        // was its template's. A zombie holds no memory.
        template.kill(libc::WNOHANG);
        template.reaped = true;
        return;
    }
    let slot = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(template) = slot.as_ref() {
        let mut req = [OP_RELEASE, 0, 0, 0, 0];
        req[1..5].copy_from_slice(&pid.to_le_bytes());
        send(template.ctl.as_raw_fd(), &req);
    }
}

/// The template that became worker `pid`, if one did.
fn take_became_worker(pid: i32) -> Option<Template> {
    let mut became = BECAME_WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    let at = became.iter().position(|t| t.pid == pid)?;
    Some(became.swap_remove(at))
}

/// Waits for child `pid` (dead or dying): how it ended and its peak
/// resident size (KiB).
fn wait_for(pid: i32) -> (Ended, Option<u64>) {
    let mut status = 0;
    // SAFETY: waiting for one of our children, into valid structs.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        return (Ended::Unknown, None);
    }
    let ended = if libc::WIFEXITED(status) {
        Ended::Exited(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Ended::Signaled(libc::WTERMSIG(status))
    } else {
        Ended::Unknown
    };
    let max_rss = usage.ru_maxrss.max(0) as u64;
    (ended, (max_rss > 0).then_some(max_rss))
}

// ------------------------------------------------------------------ template side

/// The template process's life, from just after `fork`. Never returns.
fn template_main(ctl: RawFd) -> ! {
    // SAFETY: plain system calls on our own process and descriptors.
    unsafe {
        // Ctrl-C in the terminal is the host's; it forwards interrupts itself.
        libc::setpgid(0, 0);
        // Steel's compiler asks for the working directory on every program;
        // the answer should not be the host's (nor differ between hosts).
        libc::chdir(c"/".as_ptr());
        for sig in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTSTP,
            libc::SIGHUP,
            libc::SIGPIPE,
        ] {
            libc::signal(sig, libc::SIG_IGN);
        }
        if ctl != CTL_FD {
            libc::dup2(ctl, CTL_FD);
            libc::close(ctl);
        }
        close_from(CTL_FD + 1);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        if null > 2 {
            libc::close(null);
        }
    }
    worker::install_panic_hook();
    // SAFETY: mallopt only tunes this process's allocator. One arena: the
    // template thread then grows the brk heap in large steps instead of a
    // thread arena by one mprotect per page run (a third of the engine's
    // build time). Workers allocate and free an envelope per host call: keep
    // freed memory instead of trimming it and faulting it in again.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
    let serve = std::thread::Builder::new()
        .name("tusk-template".into())
        .stack_size(TEMPLATE_STACK)
        .spawn(serve);
    // This thread only waits from now on: signals sent to the process (a
    // worker's stop request, when the template became the worker) are the
    // serving thread's to handle.
    // SAFETY: changing this thread's signal mask from a valid set.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
    let code = match serve.map(|t| t.join()) {
        Ok(Ok(())) => 0,
        _ => 1,
    };
    // SAFETY: leaving without running the host's atexit handlers or destructors.
    unsafe { libc::_exit(code) }
}

/// Closes every descriptor from `first` up.
pub(crate) fn close_from(first: RawFd) {
    // SAFETY: close_range(2) on our own descriptor table.
    let ok = unsafe { libc::syscall(libc::SYS_close_range, first as u32, u32::MAX, 0u32) } == 0;
    if !ok {
        // Kernels before 5.9: close them one by one.
        // SAFETY: as above.
        let max = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) }.clamp(1024, 1 << 20) as RawFd;
        for fd in first..max {
            // SAFETY: closing a descriptor we may or may not have.
            unsafe { libc::close(fd) };
        }
    }
}

fn serve() {
    // Never dropped: the template leaves with `_exit` when the host goes,
    // and tearing down the engine first cost it about a millisecond of CPU
    // per process (the host is gone by then, but a 2-core machine is not).
    let mut engine = match primitives::build_engine() {
        Ok(engine) => std::mem::ManuallyDrop::new(engine),
        Err(_) => {
            send(CTL_FD, &[OP_FAILED, 0]);
            return;
        }
    };
    // Compiled once here rather than by each worker after its fork (a
    // worker that finds it broken refuses to run). Interning the action
    // names here too was measured and dropped: building the registry in the
    // template cost each worker's warm-up more than binding saved.
    let _ = super::confine::prepare();
    if !send(CTL_FD, &[OP_READY]) {
        return;
    }
    // SAFETY: getpid has no preconditions.
    let template_pid = unsafe { libc::getpid() };
    loop {
        let mut buf = [0u8; 16];
        let (n, fd) = match receive(&mut buf) {
            Ok(received) => received,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        };
        if n == 0 {
            // The host is gone.
            return;
        }
        let op = buf[0];
        let pid_arg = || i32::from_le_bytes(buf[1..5].try_into().expect("4 bytes"));
        let served = match (op, fd) {
            (OP_SPAWN, Some(fd)) => serve_spawn(&mut engine, fd, template_pid),
            (OP_STATUS, None) if n >= 5 => serve_status(pid_arg()),
            (OP_RELEASE, None) if n >= 5 => {
                serve_release(pid_arg());
                true
            }
            (_, Some(fd)) => {
                // SAFETY: a descriptor we were sent and do not use.
                unsafe { libc::close(fd) };
                true
            }
            _ => true,
        };
        if !served {
            return;
        }
    }
}

/// Reads one request into `buf`: its length and the first descriptor sent
/// with it (any others are closed).
fn receive(buf: &mut [u8; 16]) -> nix::Result<(usize, Option<RawFd>)> {
    let mut cmsg = nix::cmsg_space!([RawFd; 1]);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<()>(
        CTL_FD,
        &mut iov,
        Some(&mut cmsg),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )?;
    let mut fd = None;
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmRights(fds) = c {
                for extra in fds.iter().skip(1) {
                    // SAFETY: closing descriptors we were sent and do not use.
                    unsafe { libc::close(*extra) };
                }
                fd = fds.first().copied();
            }
        }
    }
    Ok((msg.bytes, fd))
}

/// Forks a worker on channel `fd` and replies with its pid (or `-errno`).
/// A one-run template (see [`super::prelude::on_demand`]) forks nothing: it
/// says so, and becomes the worker itself. Its only run gets the same engine
/// either way, without a second fork and without the copy-on-write faults a
/// fork's first writes to the template's pages cost. False when the host is
/// gone.
fn serve_spawn(engine: &mut Engine, fd: RawFd, template_pid: i32) -> bool {
    if super::prelude::on_demand() {
        let mut reply = [OP_SPAWN, 0, 0, 0, 0, BECAME_WORKER];
        reply[1..5].copy_from_slice(&template_pid.to_le_bytes());
        if !send(CTL_FD, &reply) {
            return false;
        }
        // SAFETY: getppid has no preconditions.
        let host_pid = unsafe { libc::getppid() };
        worker::worker_main(engine, fd, host_pid, true);
    }
    // SAFETY: the child runs only `worker_main`, which never returns;
    // this process is single-threaded apart from a joined main thread.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        worker::worker_main(engine, fd, template_pid, false);
    }
    // SAFETY: the child has its own copy.
    unsafe { libc::close(fd) };
    let reply_pid = if pid < 0 {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EAGAIN)
    } else {
        pid
    };
    let mut reply = [OP_SPAWN, 0, 0, 0, 0, FORKED];
    reply[1..5].copy_from_slice(&reply_pid.to_le_bytes());
    send(CTL_FD, &reply)
}

/// Reaps worker `pid` and replies with how it ended and its peak RSS.
/// False when the host is gone.
fn serve_status(pid: i32) -> bool {
    let (ended, max_rss) = wait_for(pid);
    let (kind, code) = match ended {
        Ended::Exited(code) => (0u8, code),
        Ended::Signaled(signal) => (1u8, signal),
        Ended::Unknown => (2u8, 0),
    };
    let mut reply = [0u8; 14];
    reply[0] = OP_STATUS;
    reply[1] = kind;
    reply[2..6].copy_from_slice(&code.to_le_bytes());
    reply[6..14].copy_from_slice(&max_rss.unwrap_or(0).to_le_bytes());
    send(CTL_FD, &reply)
}

/// Kills and reaps worker `pid`; the host expects no reply.
fn serve_release(pid: i32) {
    // SAFETY: killing and reaping one of our children.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
}
