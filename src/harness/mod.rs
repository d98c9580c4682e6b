//! Harness artifacts (spec `harness-artifacts.md`, seed TUSK-HARNESS-CONTRACT §§3–4, 11–13):
//! the files that let a fresh-context worker resume where the last one stopped, and
//! let an operator see how the fleet is doing.
//!
//! - [`session`]: the handoff artifact (`premath.harness.session.v1`) and `bootstrap`.
//! - [`trajectory`]: append-only step rows (`premath.harness.step.v1`), the
//!   projection query, and the writer the evaluator uses for its per-call rows.
//! - [`feature`]: the ordered feature ledger a long-running effort must close.
//! - [`kpi`]: the multithread throughput KPI (`premath.multithread.throughput.v1`).
//! - [`actions`]: all of the above as host actions.
//!
//! Rules shared by every artifact live here, once: ref and optional-string
//! normalization, RFC3339 timestamps, and crash-safe whole-file replacement.
//!
//! Where the spec is silent, these modules choose:
//! - Timestamps are RFC3339 as `chrono` reads them (which also takes a lower-case
//!   `t`/`z` and a space separator, as RFC3339 §5.6 allows); they are stored as
//!   given (trimmed) and compared as instants, never as strings. Timestamps this
//!   program makes are UTC with `Z` and only as many fraction digits as needed.
//! - An update in place keeps every field the caller does not give: an absent or
//!   blank optional string, or an empty ref list, means "unchanged", never "clear".
//! - Read-modify-write of the session and the feature ledger holds an exclusive
//!   lock on a sidecar `<file>.lock`, so concurrent writers serialize and none
//!   loses another's update; the file itself is replaced by rename.

pub mod actions;
pub mod feature;
pub mod feature_merge;
pub mod hooks;
pub mod kpi;
pub mod retry;
pub mod session;
pub mod trajectory;

pub use actions::actions;

use chrono::{DateTime, FixedOffset, SecondsFormat, Utc};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Default artifact paths, relative to the working directory.
pub const DEFAULT_SESSION_PATH: &str = ".premath/harness_session.json";
pub const DEFAULT_TRAJECTORY_PATH: &str = ".premath/harness_trajectory.jsonl";
pub const DEFAULT_FEATURE_LEDGER_PATH: &str = ".premath/harness_feature_ledger.json";
pub use crate::issues::store::DEFAULT_ISSUES_PATH;

crate::failure::class_enum! {
    /// The harness artifacts' failure classes (harness-artifacts spec): session,
    /// trajectory, feature ledger, escalation and retry policy.
    pub enum HarnessClass {
        IoError = "harness.io_error",
        SessionCorrupt = "harness.session_corrupt",
        SessionMissing = "harness.session_missing",
        TrajectoryCorrupt = "harness.trajectory_corrupt",
        FeatureLedgerCorrupt = "harness.feature_ledger_corrupt",
        FeatureLedgerRejected = "harness.feature_ledger_rejected",
        LedgerEmpty = "harness_feature_ledger.empty",
        LedgerUpdatedAtEmpty = "harness_feature_ledger.updated_at.empty",
        LedgerFeatureIdEmpty = "harness_feature_ledger.feature_id.empty",
        LedgerFeatureIdDuplicate = "harness_feature_ledger.feature_id.duplicate",
        LedgerFeatureUpdatedAtEmpty = "harness_feature_ledger.feature.updated_at.empty",
        LedgerStatusInvalid = "harness_feature_ledger.status.invalid",
        LedgerCompletedMissingVerificationRef = "harness_feature_ledger.completed_missing_verification_ref",
        LedgerInstructionRefEmpty = "harness_feature_ledger.instruction_ref.empty",
        LedgerVerificationRefEmpty = "harness_feature_ledger.verification_ref.empty",
        LedgerInProgressNonContractible = "harness_feature_ledger.in_progress.non_contractible",
        LedgerClosureIncomplete = "harness_feature_ledger.closure_incomplete",
        EscalationIssueCommandFailed = "escalation_issue_command_failed",
        EscalationIssueContextAmbiguous = "escalation_issue_context_ambiguous",
        EscalationIssueContextUnbound = "escalation_issue_context_unbound",
        EscalationIssueNotFound = "escalation_issue_not_found",
        EscalationSessionInvalid = "escalation_session_invalid",
        EscalationSessionReadFailed = "escalation_session_read_failed",
        EscalationUnknownAction = "escalation_unknown_action",
        RetryPolicyInvalidDigest = "retry_policy_invalid_digest",
        RetryPolicyInvalidJson = "retry_policy_invalid_json",
        RetryPolicyInvalidShape = "retry_policy_invalid_shape",
        RetryPolicyIoError = "retry_policy_io_error",
        PipelineMissingFailureClass = "pipeline_missing_failure_class",
    }
}

/// How long a writer waits for another writer's lock before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// Trims, drops empties, sorts and de-duplicates a list of refs.
pub fn normalize_refs<S: AsRef<str>>(refs: &[S]) -> Vec<String> {
    normalized_refs(refs)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// [`normalize_refs`] without copies (a trajectory row per host call).
pub fn normalized_refs<S: AsRef<str>>(refs: &[S]) -> Vec<&str> {
    let mut out: Vec<&str> = refs.iter().filter_map(|r| trimmed(r.as_ref())).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// An optional string input: trimmed, and absent when blank.
pub fn normalize_opt(value: Option<&str>) -> Option<String> {
    value.and_then(trimmed).map(str::to_string)
}

/// A string input trimmed; `None` when blank.
pub fn trimmed(value: &str) -> Option<&str> {
    Some(value.trim()).filter(|v| !v.is_empty())
}

/// Parses an RFC3339 timestamp; the error says what was wrong with it.
pub fn parse_timestamp(text: &str) -> Result<DateTime<FixedOffset>, String> {
    DateTime::parse_from_rfc3339(text.trim())
        .map_err(|e| format!("not an RFC3339 timestamp ({e}): {text:?}"))
}

/// The form of every timestamp this program makes: UTC, `Z`, minimal fraction digits.
pub fn format_timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Replaces `path` with `bytes` so that a crash at any instant leaves either the old
/// or the new file: temp file in the same directory, fsync, rename, fsync the directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(&dir)?;
    crate::files::refuse_symlink(path)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(crate::files::REPLACE_TEMP_PREFIX)
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    // Keep the file's mode; a new one gets 0644 like premath's, not the temp file's 0600.
    let permissions = match fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => new_file_permissions(),
    };
    fs::set_permissions(tmp.path(), permissions)?;
    tmp.as_file().sync_all()?;
    // A call's replacing a file beside the store is journaled like a store
    // write (issue 61): its rows are owed once the rename is made.
    let guard = crate::issues::journal::before_replace(tmp.path())?;
    if let Err(e) = tmp.persist(path) {
        if let Some(guard) = guard {
            guard.failed(false);
        }
        return Err(e.error);
    }
    crate::fault::point("file.after_rename");
    // The rename is durable only once the directory entry is; not every platform
    // lets a directory be opened for this, and the data itself is already synced.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    if let Some(guard) = guard {
        guard.replaced();
    }
    Ok(())
}

fn new_file_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o644)
}

/// The directory a file lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// An exclusive lock on `<path>.lock`, held until dropped.
pub struct SidecarLock {
    file: File,
}

impl SidecarLock {
    /// The lock file of `path`: `<path>.lock`.
    pub fn path_of(path: &Path) -> PathBuf {
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        PathBuf::from(lock_path)
    }

    /// Waits up to [`LOCK_TIMEOUT`] for the lock; creates the directory and lock file.
    pub fn acquire(path: &Path) -> io::Result<Self> {
        let lock_path = Self::path_of(path);
        fs::create_dir_all(parent_dir(&lock_path))?;
        let file = crate::files::open(
            OpenOptions::new().create(true).truncate(false).write(true),
            &lock_path,
        )?;
        lock_with_timeout(&file, &lock_path)?;
        Ok(Self { file })
    }
}

impl Drop for SidecarLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Takes an exclusive lock on `file`, retrying until [`LOCK_TIMEOUT`]; a holder that
/// never lets go (a stopped process) becomes an error instead of a hang.
pub(crate) fn lock_with_timeout(file: &File, what: &Path) -> io::Result<()> {
    let deadline = Instant::now() + LOCK_TIMEOUT;
    let mut pause = Duration::from_micros(50);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) => {
                if Instant::now() >= deadline {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "lock on {} still held by another process after {} s",
                            what.display(),
                            LOCK_TIMEOUT.as_secs()
                        ),
                    ));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_trimmed_sorted_deduplicated_without_empties() {
        assert_eq!(
            normalize_refs(&[" b ", "a", "", "  ", "b", "a "]),
            vec!["a".to_string(), "b".to_string()]
        );
    }

    #[test]
    fn blank_optional_is_absent() {
        assert_eq!(normalize_opt(Some("  ")), None);
        assert_eq!(normalize_opt(Some(" x ")), Some("x".into()));
        assert_eq!(normalize_opt(None), None);
    }

    #[test]
    fn timestamps_validate_and_format() {
        assert!(parse_timestamp("2026-02-01T10:00:00Z").is_ok());
        assert!(parse_timestamp("2026-02-01T10:00:00.5+02:00").is_ok());
        assert!(parse_timestamp("2026-02-30T10:00:00Z").is_err());
        assert!(parse_timestamp("yesterday").is_err());
        let t = parse_timestamp("2026-02-01T10:00:00+02:00").unwrap();
        assert_eq!(
            format_timestamp(t.with_timezone(&Utc)),
            "2026-02-01T08:00:00Z"
        );
    }
}
