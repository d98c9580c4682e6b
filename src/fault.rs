//! Fault points: places a test build can be told to die at, as a `kill -9`
//! would kill it there (issue 61's crash tests). `TUSK_FAULT=NAME` kills the
//! process the first time it passes point NAME, `NAME@N` the N-th time.
//! Release builds have no fault points: [`point`] is empty there.

/// The points a call writing the file store passes, for the crash tests and
/// this module's readers:
/// - `store.before_rename`: the journal is synced, the store not yet changed;
/// - `store.after_rename`: the store changed, no row written yet;
/// - `rows.after_trajectory`: the call's trajectory row written, its effect
///   row not.
pub const FILE_POINTS: &[&str] = &[
    "store.before_rename",
    "store.after_rename",
    "rows.after_trajectory",
];

/// The point a call replacing a file beside the store passes (the harness's
/// session file, its feature ledger): `file.after_rename`, the file
/// replaced, no row written yet.
pub const HARNESS_FILE_POINTS: &[&str] = &["file.after_rename"];

/// The points a call on a database passes (its change and rows are one
/// transaction):
/// - `rows.after_trajectory`: the call's change and trajectory row written
///   inside its transaction, its effect row not;
/// - `unit.before_commit`: all three written, not yet committed.
pub const DATABASE_POINTS: &[&str] = &["rows.after_trajectory", "unit.before_commit"];

/// The point an atomic run passes just before its commit takes the store
/// (issue 59): where a test makes a change under the run
/// ([`meanwhile`]).
pub const BEFORE_COMMIT: &str = "commit.before";

/// Runs `sh -c COMMAND` here, once, when `TUSK_FAULT_MEANWHILE` is
/// `NAME=COMMAND` and names this point (debug builds only): what another
/// process does between two steps of this one, made to happen exactly
/// there (the conflict tests of atomic runs).
#[inline]
pub fn meanwhile(name: &str) {
    #[cfg(debug_assertions)]
    armed::meanwhile(name);
    #[cfg(not(debug_assertions))]
    let _ = name;
}

/// Dies here when `TUSK_FAULT` names this point (debug builds only).
#[inline]
pub fn point(name: &str) {
    #[cfg(debug_assertions)]
    armed::point(name);
    #[cfg(not(debug_assertions))]
    let _ = name;
}

#[cfg(debug_assertions)]
mod armed {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;

    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    static MEANWHILE_DONE: std::sync::atomic::AtomicBool =
        std::sync::atomic::AtomicBool::new(false);

    pub(super) fn meanwhile(name: &str) {
        let Ok(spec) = std::env::var("TUSK_FAULT_MEANWHILE") else {
            return;
        };
        let Some((point, command)) = spec.split_once('=') else {
            return;
        };
        if point != name || MEANWHILE_DONE.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .env_remove("TUSK_FAULT_MEANWHILE")
            .status();
    }
    static PASSED: AtomicU64 = AtomicU64::new(0);

    pub(super) fn point(name: &str) {
        let armed = ARMED.get_or_init(|| {
            let spec = std::env::var("TUSK_FAULT").ok()?;
            let (point, nth) = match spec.split_once('@') {
                Some((p, n)) => (p.to_string(), n.parse().ok()?),
                None => (spec, 1),
            };
            Some((point, nth))
        });
        let Some((point, nth)) = armed else {
            return;
        };
        if point != name {
            return;
        }
        if PASSED.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
            // SIGKILL: no destructor, no flush, as a kill -9 from outside.
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::this(), nix::sys::signal::Signal::SIGKILL);
            std::process::abort();
        }
    }
}
