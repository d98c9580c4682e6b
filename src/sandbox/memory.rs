//! Heap accounting for the memory limit.
//!
//! tusk installs a thin counting wrapper around the system allocator. In the
//! host it only counts. In a worker process it is *armed* with the run's
//! budget: the program's heap is the growth over the baseline taken when the
//! worker was set up (so a session's definitions count too), and
//! - allocating primitives ask [`would_exceed`] *before* allocating, so
//!   `(make-vector 2000000000 0)` never reaches the allocator;
//! - an allocation that takes the heap past the limit interrupts the VM at
//!   its next instruction (gradual growth, a list consed in a loop);
//! - an allocation past the hard cap (limit × 1.25 + 16 MiB: work done outside
//!   the VM's loop, such as converting a huge value), or one the system
//!   refuses (the address-space rlimit), ends the worker on the spot with
//!   [`EXIT_MEMORY`], which the host reports as `scheme_eval.memory_exceeded`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use steel::steel_vm::ThreadStateController;

/// Exit code of a worker that ran out of memory.
pub(crate) const EXIT_MEMORY: i32 = 86;

/// Counting wrapper around [`System`].
pub struct CountingAlloc;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
/// Absolute figures of [`ALLOCATED`]: past `SOFT` the VM is interrupted, past
/// `HARD` the worker ends. `usize::MAX` in the host.
static SOFT: AtomicUsize = AtomicUsize::new(usize::MAX);
static HARD: AtomicUsize = AtomicUsize::new(usize::MAX);
static ARMED: AtomicBool = AtomicBool::new(false);
static SOFT_HIT: AtomicBool = AtomicBool::new(false);
static BASELINE: AtomicUsize = AtomicUsize::new(0);
/// The running engine's controller (leaked, worker only), interrupted from
/// the allocator and from signal handlers: `interrupt` is two atomic stores.
static CONTROLLER: AtomicPtr<ThreadStateController> = AtomicPtr::new(std::ptr::null_mut());

/// Pre-serialized last words for [`out_of_memory`]: nothing may allocate there.
const OOM_FRAME: &[u8] = b"\x1d\x00\x00\x00{\"fatal\":{\"reason\":\"memory\"}}";

#[cold]
fn out_of_memory() -> ! {
    // SAFETY: write(2) and _exit(2) are async-signal-safe and allocate nothing.
    unsafe {
        libc::send(
            super::worker::CHANNEL_FD,
            OOM_FRAME.as_ptr().cast(),
            OOM_FRAME.len(),
            libc::MSG_NOSIGNAL,
        );
        libc::_exit(EXIT_MEMORY)
    }
}

#[cold]
fn over_soft(now: usize) {
    if now > HARD.load(Ordering::Relaxed) {
        out_of_memory();
    }
    if !SOFT_HIT.swap(true, Ordering::Relaxed) {
        interrupt_vm();
    }
}

/// Stops the VM at its next instruction (allocator- and signal-safe).
pub(crate) fn interrupt_vm() {
    let c = CONTROLLER.load(Ordering::Acquire);
    if !c.is_null() {
        // SAFETY: set once by `set_controller` to a leaked, never-freed value.
        unsafe { (*c).interrupt() };
    }
}

/// Publishes the engine's controller for [`interrupt_vm`] (worker only).
pub(crate) fn set_controller(controller: ThreadStateController) {
    let leaked = Box::into_raw(Box::new(controller));
    CONTROLLER.store(leaked, Ordering::Release);
}

#[inline]
fn grew(size: usize) {
    let now = ALLOCATED.fetch_add(size, Ordering::Relaxed) + size;
    if now > SOFT.load(Ordering::Relaxed) {
        over_soft(now);
    }
}

#[inline]
fn refused() {
    if ARMED.load(Ordering::Relaxed) {
        out_of_memory();
    }
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if ptr.is_null() {
            refused();
        } else {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        if ptr.is_null() {
            refused();
        } else {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if new.is_null() {
            refused();
        } else if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            ALLOCATED.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
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

/// Arms the worker's budget: `limit` bytes over what is allocated now.
pub(crate) fn arm(limit: usize) {
    let baseline = allocated();
    BASELINE.store(baseline, Ordering::Relaxed);
    set_limit(limit);
    ARMED.store(true, Ordering::Relaxed);
}

/// Moves the budget to `limit` bytes over the armed baseline (a session run
/// with other limits); clears an earlier soft breach.
pub(crate) fn set_limit(limit: usize) {
    let baseline = BASELINE.load(Ordering::Relaxed);
    let soft = baseline.saturating_add(limit);
    let hard = soft.saturating_add(limit / 4).saturating_add(16 << 20);
    SOFT_HIT.store(false, Ordering::Relaxed);
    HARD.store(hard, Ordering::Relaxed);
    SOFT.store(soft, Ordering::Relaxed);
}

/// Runs `f`, tusk's own work inside a run (compiling the prelude forms the
/// program reaches), with the budget lifted, then raises the baseline by
/// what `f` kept: the program's budget is what it would be had the template
/// compiled those forms before the worker was armed.
pub(crate) fn outside_budget<R>(f: impl FnOnce() -> R) -> R {
    let soft = SOFT.swap(usize::MAX, Ordering::Relaxed);
    let hard = HARD.swap(usize::MAX, Ordering::Relaxed);
    let hit = SOFT_HIT.load(Ordering::Relaxed);
    let before = allocated();
    let result = f();
    let kept = allocated().saturating_sub(before);
    BASELINE.fetch_add(kept, Ordering::Relaxed);
    SOFT_HIT.store(hit, Ordering::Relaxed);
    HARD.store(hard.saturating_add(kept), Ordering::Relaxed);
    SOFT.store(soft.saturating_add(kept), Ordering::Relaxed);
    result
}

/// Whether the program went over its budget since [`set_limit`].
pub(crate) fn soft_hit() -> bool {
    SOFT_HIT.load(Ordering::Relaxed)
}

/// Whether allocating `extra` more bytes would take the run over its limit.
/// Always false in the host.
pub fn would_exceed(extra: usize) -> bool {
    allocated().saturating_add(extra) > SOFT.load(Ordering::Relaxed)
}

/// Records a breach found outside the allocator (a reservation refused).
pub(crate) fn note_breach() {
    SOFT_HIT.store(true, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    #[test]
    fn oom_frame_length_prefix_matches() {
        let body = &super::OOM_FRAME[4..];
        let len = u32::from_le_bytes(super::OOM_FRAME[..4].try_into().unwrap()) as usize;
        assert_eq!(len, body.len());
        let parsed: super::super::proto::FromWorker = serde_json::from_slice(body).unwrap();
        assert!(matches!(
            parsed,
            super::super::proto::FromWorker::Fatal { .. }
        ));
    }
}
