//! Heap accounting for the memory limit.
//!
//! Steel allocates through the global allocator, so tusk installs a thin
//! counting wrapper around the system allocator. The counter is process-wide:
//! a run's usage is the growth over the baseline taken when it started, which is
//! exact because one engine runs one program at a time. Allocating primitives
//! ask [`would_exceed`] *before* allocating (so `(make-vector 2000000000 0)` never
//! reaches the allocator), and the supervisor polls [`allocated`] to stop gradual
//! growth (a list consed in a loop) at the next VM instruction.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Counting wrapper around [`System`].
pub struct CountingAlloc;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
/// Bytes the host keeps for the running program's record (its effect
/// envelopes): allocated on the worker thread, but not the program's memory.
static HOST_RETAINED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Runaway guard of a worker thread: (address of its cancel flag, hard cap on
    /// process-wide allocated bytes). `(0, MAX)` = no guard.
    static GUARD: Cell<(usize, usize)> = const { Cell::new((0, usize::MAX)) };
}

/// Called on every allocation: a worker whose run was abandoned (cancelled), or
/// that blows through the hard cap before the supervisor's next look, is parked
/// for good at this allocation instead of taking the host down. Parking uses
/// `sleep`, which does not allocate.
#[inline]
fn check_runaway(size: usize) {
    let (flag, cap) = GUARD.try_with(|g| g.get()).unwrap_or((0, usize::MAX));
    if flag == 0 {
        return;
    }
    // SAFETY: the flag is a leaked `&'static AtomicBool` installed by `set_runaway_guard`.
    let cancelled = unsafe { &*(flag as *const AtomicBool) };
    if cancelled.load(Ordering::Relaxed) || program_allocated().saturating_add(size) > cap {
        cancelled.store(true, Ordering::Relaxed);
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

/// Installs the runaway guard on the current (worker) thread.
pub fn set_runaway_guard(cancelled: &'static AtomicBool, hard_cap: usize) {
    GUARD.with(|g| g.set((cancelled as *const AtomicBool as usize, hard_cap)));
}

/// Removes the runaway guard from the current thread.
pub fn clear_runaway_guard() {
    GUARD.with(|g| g.set((0, usize::MAX)));
}

/// Runs `f` with the runaway guard off: host calls and output capture hold
/// locks the supervisor needs, so they must never be parked half-way.
pub fn unguarded<R>(f: impl FnOnce() -> R) -> R {
    let saved = GUARD.with(|g| g.replace((0, usize::MAX)));
    let out = f();
    GUARD.with(|g| g.set(saved));
    out
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_runaway(layout.size());
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_runaway(layout.size());
        let ptr = System.alloc_zeroed(layout);
        if !ptr.is_null() {
            ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check_runaway(new_size.saturating_sub(layout.size()));
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            if new_size >= layout.size() {
                ALLOCATED.fetch_add(new_size - layout.size(), Ordering::Relaxed);
            } else {
                ALLOCATED.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Bytes currently allocated by the whole process.
pub fn allocated() -> usize {
    ALLOCATED.load(Ordering::Relaxed)
}

/// Bytes allocated by the process, less what the host retains for the running
/// program's record: the figure the memory limit is checked against.
pub fn program_allocated() -> usize {
    ALLOCATED
        .load(Ordering::Relaxed)
        .saturating_sub(HOST_RETAINED.load(Ordering::Relaxed))
}

/// Runs `f`, which stores host bookkeeping that lives until the run ends (an
/// effect envelope kept for the result), and credits what it allocated so a
/// program making many host calls is not charged for the host's record of them.
/// Only memory kept past the run's last call belongs here; the credit is
/// cleared by [`reset_host_retained`] when the next run starts.
pub fn host_retained<R>(f: impl FnOnce() -> R) -> R {
    let before = allocated();
    let out = f();
    let grown = allocated().saturating_sub(before);
    HOST_RETAINED.fetch_add(grown, Ordering::Relaxed);
    out
}

/// Clears the host's credit at the start of a run.
pub fn reset_host_retained() {
    HOST_RETAINED.store(0, Ordering::Relaxed);
}

thread_local! {
    /// The running program's budget on this (worker) thread: (baseline, limit).
    static BUDGET: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Sets (or clears) the budget that [`would_exceed`] checks on this thread.
pub fn set_thread_budget(budget: Option<(usize, usize)>) {
    BUDGET.with(|b| b.set(budget));
}

/// Whether allocating `extra` more bytes would take the current run over its
/// memory limit. False outside a run.
pub fn would_exceed(extra: usize) -> bool {
    BUDGET.with(|b| match b.get() {
        Some((baseline, limit)) => {
            program_allocated()
                .saturating_sub(baseline)
                .saturating_add(extra)
                > limit
        }
        None => false,
    })
}
