//! How a worker process confines itself before it reads any program text:
//! resource limits, signal handlers that report its own death, and a
//! deny-by-default system-call filter (the second wall behind the allowlist).
//!
//! The filter allows what the evaluator needs and nothing else: memory
//! management, reading and writing its channel, futexes, signal return, the
//! clock (no primitive exposes it) and exit. Every other system call — open,
//! socket, connect, execve, fork, clone, ptrace, kill, … — traps: the
//! `SIGSYS` handler writes the call's number to the channel and the worker
//! ends with [`EXIT_SYSCALL`]; the call itself never runs.

use super::limits::Limits;
use super::worker::CHANNEL_FD;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Exit code of a worker stopped by the system-call filter.
pub(crate) const EXIT_SYSCALL: i32 = 87;
/// Exit code of a worker that overflowed its native stack (or faulted).
pub(crate) const EXIT_STACK: i32 = 88;
/// Exit code of a worker that could not confine itself (it runs nothing).
pub(crate) const EXIT_CONFINE: i32 = 89;

/// Headroom of the address-space limit over the worker's size at setup and
/// its memory limit: allocator arenas and mappings that are reserved but not
/// used. The precise limit is the allocator's; this one is the OS wall.
const ADDRESS_SPACE_SLACK: u64 = 512 << 20;

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;

/// Applies every confinement; an error means the worker must not run anything.
pub(crate) fn apply(limits: &Limits, session: bool) -> Result<(), String> {
    set_rlimits(limits, session)?;
    install_signal_handlers();
    let filter = prepare()?;
    // Every thread: a one-run template that became the worker still has the
    // thread that started it (waiting, its signals blocked).
    seccompiler::apply_filter_all_threads(filter).map_err(|e| format!("seccomp: {e}"))
}

/// The system-call filter, compiled once per process: a template compiles
/// it before it forks, so its workers only install it.
pub(crate) fn prepare() -> Result<&'static BpfProgram, String> {
    static FILTER: std::sync::OnceLock<Result<BpfProgram, String>> = std::sync::OnceLock::new();
    FILTER.get_or_init(filter).as_ref().map_err(Clone::clone)
}

fn setrlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> Result<(), String> {
    let limit = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: setting a limit of our own process from a valid struct.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(format!(
            "setrlimit({resource}): {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// The worker's virtual size now, from `/proc/self/statm` (read before the
/// filter forbids opening files).
fn address_space_now() -> u64 {
    let pages: u64 = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    pages * page
}

fn set_rlimits(limits: &Limits, session: bool) -> Result<(), String> {
    let memory = limits.max_memory_bytes() as u64;
    let address_space = address_space_now()
        .saturating_add(memory.saturating_mul(2))
        .saturating_add(ADDRESS_SPACE_SLACK);
    setrlimit(libc::RLIMIT_AS, address_space, address_space)?;
    // No file can grow, no core is dumped, no descriptor can be made.
    setrlimit(libc::RLIMIT_FSIZE, 0, 0)?;
    setrlimit(libc::RLIMIT_CORE, 0, 0)?;
    setrlimit(
        libc::RLIMIT_NOFILE,
        CHANNEL_FD as u64 + 1,
        CHANNEL_FD as u64 + 1,
    )?;
    setrlimit(libc::RLIMIT_MEMLOCK, 0, 0)?;
    if !session {
        // A backstop for a host that stopped supervising: CPU seconds for the
        // whole run (a session's worker runs many programs and relies on the
        // host's kill and on dying with its template).
        let seconds = limits.timeout_ms.div_ceil(1000) + 2;
        setrlimit(libc::RLIMIT_CPU, seconds, seconds + 1)?;
    }
    Ok(())
}

extern "C" fn on_stop(_: libc::c_int) {
    super::worker::stop_requested();
}

const STACK_FRAME: &[u8] = b"\x1c\x00\x00\x00{\"fatal\":{\"reason\":\"stack\"}}";

extern "C" fn on_fault(_: libc::c_int) {
    // SAFETY: async-signal-safe calls only.
    unsafe {
        libc::send(
            CHANNEL_FD,
            STACK_FRAME.as_ptr().cast(),
            STACK_FRAME.len(),
            libc::MSG_NOSIGNAL,
        );
        libc::_exit(EXIT_STACK);
    }
}

extern "C" fn on_syscall(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // siginfo's `_sigsys` member: `_call_addr` (a pointer) at offset 16, then
    // the int `_syscall` at 24, on every 64-bit Linux.
    // SAFETY: the kernel hands us a valid siginfo for SIGSYS.
    let nr = unsafe { *(info as *const u8).add(24).cast::<i32>() };
    let mut frame = [0u8; 64];
    let head = b"{\"fatal\":{\"reason\":\"syscall:";
    let mut len = 4;
    frame[len..len + head.len()].copy_from_slice(head);
    len += head.len();
    let mut digits = [0u8; 12];
    let mut d = 0;
    let mut n = nr.unsigned_abs();
    loop {
        digits[d] = b'0' + (n % 10) as u8;
        d += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        frame[len] = digits[d];
        len += 1;
    }
    frame[len..len + 3].copy_from_slice(b"\"}}");
    len += 3;
    frame[..4].copy_from_slice(&((len - 4) as u32).to_le_bytes());
    // SAFETY: async-signal-safe calls only.
    unsafe {
        libc::send(CHANNEL_FD, frame.as_ptr().cast(), len, libc::MSG_NOSIGNAL);
        libc::_exit(EXIT_SYSCALL);
    }
}

fn install_signal_handlers() {
    // SAFETY: installing handlers that only make async-signal-safe calls.
    unsafe {
        let mut stop: libc::sigaction = std::mem::zeroed();
        stop.sa_sigaction = on_stop as *const () as usize;
        // A stop request must not break the worker's wait for a host reply.
        stop.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGUSR1, &stop, std::ptr::null_mut());

        let mut fault: libc::sigaction = std::mem::zeroed();
        fault.sa_sigaction = on_fault as *const () as usize;
        // On the alternate stack the thread inherited: the normal one is full.
        fault.sa_flags = libc::SA_ONSTACK;
        libc::sigaction(libc::SIGSEGV, &fault, std::ptr::null_mut());
        libc::sigaction(libc::SIGBUS, &fault, std::ptr::null_mut());

        let mut sys: libc::sigaction = std::mem::zeroed();
        sys.sa_sigaction = on_syscall as *const () as usize;
        sys.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigaction(libc::SIGSYS, &sys, std::ptr::null_mut());
    }
}

fn arg_eq(index: u8, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
        .map_err(|e| e.to_string())
}

fn on_fd(fd: i32) -> Result<SeccompRule, String> {
    SeccompRule::new(vec![arg_eq(0, fd as u64)?]).map_err(|e| e.to_string())
}

/// System calls the worker may make, with argument conditions where one
/// narrows a call to the worker's own channel or process.
fn allowed() -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    // Unconditional: memory, futexes, signal return, time, exit.
    for nr in [
        libc::SYS_brk,
        libc::SYS_mmap,
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_mprotect,
        libc::SYS_madvise,
        libc::SYS_futex,
        libc::SYS_sched_yield,
        libc::SYS_rt_sigreturn,
        libc::SYS_rt_sigprocmask,
        libc::SYS_sigaltstack,
        libc::SYS_clock_gettime,
        // Steel's compiler resolves module names against it; the template
        // moved to `/`, so the answer is the same everywhere.
        libc::SYS_getcwd,
        libc::SYS_restart_syscall,
        libc::SYS_getpid,
        libc::SYS_gettid,
        libc::SYS_close,
        libc::SYS_exit,
        libc::SYS_exit_group,
    ] {
        rules.insert(nr, Vec::new());
    }
    // The channel only (stdio is closed; writes there fail harmlessly).
    rules.insert(libc::SYS_read, vec![on_fd(CHANNEL_FD)?]);
    rules.insert(libc::SYS_recvfrom, vec![on_fd(CHANNEL_FD)?]);
    rules.insert(
        libc::SYS_write,
        vec![on_fd(CHANNEL_FD)?, on_fd(1)?, on_fd(2)?],
    );
    rules.insert(libc::SYS_sendto, vec![on_fd(CHANNEL_FD)?]);
    // abort(): SIGABRT to itself only.
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() } as u64;
    rules.insert(
        libc::SYS_tgkill,
        vec![
            SeccompRule::new(vec![arg_eq(0, pid)?, arg_eq(2, libc::SIGABRT as u64)?])
                .map_err(|e| e.to_string())?,
        ],
    );
    Ok(rules)
}

fn filter() -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(allowed()?, SeccompAction::Trap, SeccompAction::Allow, ARCH)
        .map_err(|e| format!("seccomp filter: {e}"))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("seccomp filter: {e}"))
}

/// The name of a system call number, for the crash message.
pub(crate) fn syscall_name(nr: i64) -> &'static str {
    match nr {
        libc::SYS_open => "open",
        libc::SYS_openat => "openat",
        libc::SYS_socket => "socket",
        libc::SYS_connect => "connect",
        libc::SYS_execve => "execve",
        libc::SYS_execveat => "execveat",
        libc::SYS_fork => "fork",
        libc::SYS_vfork => "vfork",
        libc::SYS_clone => "clone",
        libc::SYS_clone3 => "clone3",
        libc::SYS_ptrace => "ptrace",
        libc::SYS_kill => "kill",
        libc::SYS_unlink => "unlink",
        libc::SYS_unlinkat => "unlinkat",
        libc::SYS_getrandom => "getrandom",
        libc::SYS_stat => "stat",
        libc::SYS_statx => "statx",
        libc::SYS_newfstatat => "newfstatat",
        libc::SYS_ioctl => "ioctl",
        libc::SYS_prctl => "prctl",
        libc::SYS_mkdir => "mkdir",
        libc::SYS_rename => "rename",
        _ => "a system call outside the allowlist",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stack_frame_length_prefix_matches() {
        let len = u32::from_le_bytes(super::STACK_FRAME[..4].try_into().unwrap()) as usize;
        assert_eq!(len, super::STACK_FRAME.len() - 4);
    }

    #[test]
    fn filter_compiles() {
        assert!(!super::filter().unwrap().is_empty());
    }
}
