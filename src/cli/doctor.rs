//! `tusk doctor [--json]`: is this directory ready for tusk? Each check says
//! ok, warn or fail, and what to do about anything that is not ok:
//!
//! - `store`: the issue store file is readable, parses and is writable (or the
//!   `--store`/`TUSK_STORE` database answers with this build's schema);
//! - `policy`: the mutation policy file is valid (or absent: the built-in
//!   default), its digest, and action ids it allows that do not exist;
//! - `effects`, `trajectory`: the logs are readable with no corrupt row (a torn
//!   last line, left by a writer that died mid-append, is a warning);
//! - `files`: no file of tusk's (stores, logs, session, ledger, policy and
//!   their lock files) is a symbolic link;
//! - `git`: inside a git work tree, the issue store is routed to tusk's
//!   merge driver (`.gitattributes`, `merge.tusk.driver`), and a log that git
//!   tracks to the `union` driver (issue 48; docs/issue-memory.md, "Wiring");
//! - `sandbox`: the kernel has seccomp, and a worker process forks, confines
//!   itself (resource limits, system-call filter) and runs a program;
//! - `disk`: free space under `.premath/`.
//!
//! Exit 0 when no check fails (warnings included), 1 otherwise. `--json`
//! prints `{"schema": "tusk.doctor.v0", "result", "version", "commit",
//! "directory", "checks": [{"id", "status", "message", "fix"?}]}`, where
//! `result` is the worst status. Doctor only reads: it creates no file.

use super::store::StoreFiles;
use super::{CliError, Exit};
use crate::harness::HarnessClass;
use crate::host::HostClass;
use crate::issues::store::{IssueStore, Store, DEFAULT_ISSUES_PATH};
use crate::issues::IssueClass;
use crate::logs::{LogReadError, LogStore};
use crate::pg::LogTable;
use crate::pg::StoreClass;
use clap::Args;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

mod git;

/// The `schema` member of `tusk doctor --json`.
pub const SCHEMA: &str = "tusk.doctor.v0";

/// Below this much free space a check fails: a mutation could not even write
/// its temporary copy of a small store.
const DISK_FAIL_BYTES: u64 = 16 << 20;
/// Below this much (or twice the issue store, if larger) it warns.
const DISK_WARN_BYTES: u64 = 256 << 20;

/// What to do about a corrupt line of the issue file.
const CORRUPT_FIX: &str = "repair or remove that line; the store is never rewritten while a \
                           line is corrupt (`tusk issue check` reports the rest)";

/// `tusk doctor`.
#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Print one `tusk.doctor.v0` JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub files: StoreFiles,
    /// Mutation policy file (default .premath/mutation_policy.json).
    #[arg(long)]
    pub policy: Option<PathBuf>,
}

/// How a check came out; ordered from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One finding.
#[derive(Debug, Serialize)]
pub struct Check {
    pub id: &'static str,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(id: &'static str, message: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Ok,
            message: message.into(),
            fix: None,
        }
    }

    fn warn(id: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Warn,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }

    fn fail(id: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Fail,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
}

fn shown(path: &Path) -> String {
    let path = match path.strip_prefix(".") {
        Ok(rest) if !rest.as_os_str().is_empty() => rest,
        _ => path,
    };
    crate::terminal::field(&path.display().to_string()).into_owned()
}

/// Whether this process may write `path`, or create it (then its nearest
/// existing ancestor must be writable).
fn writable(path: &Path) -> Result<(), String> {
    use nix::unistd::{access, AccessFlags};
    let mut target = path;
    while !target.exists() {
        match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => target = p,
            _ => {
                target = Path::new(".");
                break;
            }
        }
    }
    access(target, AccessFlags::W_OK)
        .map_err(|e| format!("{} is not writable ({e})", shown(target)))
}

/// What to do about a database that cannot be used, by its failure class.
fn database_fix(class: &str) -> &'static str {
    match StoreClass::parse(class) {
        Some(StoreClass::BadUrl) => "give a URL of the form postgres://USER:PASSWORD@HOST:PORT/DATABASE (--store or TUSK_STORE)",
        Some(StoreClass::Unreachable) => "start the PostgreSQL server, or correct the host and port in the URL",
        Some(StoreClass::AuthFailed) => "correct the user and password in the URL",
        Some(StoreClass::DatabaseMissing) => "create the database first (createdb NAME, or CREATE DATABASE)",
        Some(StoreClass::SchemaMissing) => "run `tusk store init --store URL`",
        Some(StoreClass::SchemaVersion) => "run `tusk store init --store URL` to migrate an older schema; a newer one needs a newer tusk",
        _ => "check the server's log; `tusk store status --store URL` shows the same error",
    }
}

/// The database `--store`/`TUSK_STORE` names must at least be a usable URL.
fn database_url(id: &'static str, args: &DoctorArgs) -> Result<(), Check> {
    match args.files.store.database() {
        Ok(_) => Ok(()),
        Err(e) => Err(Check::fail(id, e.to_string(), database_fix(e.class()))),
    }
}

fn check_store(args: &DoctorArgs) -> (Check, u64) {
    const ID: &str = "store";
    if let Err(check) = database_url(ID, args) {
        return (check, 0);
    }
    let store = match args.files.issues(Path::new(DEFAULT_ISSUES_PATH)) {
        Ok(s) => s,
        Err(e) => {
            return (
                Check::fail(ID, e, "give --store URL or --issues FILE, not both"),
                0,
            )
        }
    };
    let store = store.unstaged().clone();
    match &store {
        IssueStore::Postgres(pg) => check_database_store(&store, pg),
        IssueStore::Jsonl(path) => check_file_store(&store, path),
        // A command line names a real store (`unstaged` above).
        IssueStore::Staged(overlay) => check_file_store(&store, overlay.base().path()),
    }
}

/// The store on a database: reachable, parseable, and its counts.
fn check_database_store(store: &IssueStore, pg: &crate::pg::PgStore) -> (Check, u64) {
    const ID: &str = "store";
    let counts = match pg.counts() {
        Ok(c) => c,
        Err(e) => return (Check::fail(ID, e.to_string(), database_fix(e.class())), 0),
    };
    let text = match store.read_text() {
        Ok(t) => t,
        Err(e) => return (Check::fail(ID, e.to_string(), database_fix(e.class())), 0),
    };
    if let Err(e) = Store::parse(store.path(), &text) {
        return (
            Check::fail(ID, e.to_string(), "repair that issue line (`tusk store export` writes the store as JSONL; `tusk store import --replace` loads a repaired one)"),
            0,
        );
    }
    let n = |name: &str| {
        counts
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(0, |(_, v)| *v)
    };
    let message = format!(
        "{}: schema version {}, {} issue line(s), {} trajectory row(s), {} effect row(s)",
        pg.shown(),
        crate::pg::SCHEMA_VERSION,
        n("issueLines"),
        n("trajectoryRows"),
        n("effectRows")
    );
    (Check::ok(ID, message), 0)
}

/// The store file: there, a file, parseable, writable with its directory; and
/// its size.
fn check_file_store(store: &IssueStore, path: &Path) -> (Check, u64) {
    const ID: &str = "store";
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (
                Check::warn(
                    ID,
                    format!(
                        "no issue store at {} (this directory is not set up)",
                        shown(path)
                    ),
                    "run `tusk init` here (an absent store reads as empty until then)",
                ),
                0,
            )
        }
        Err(e) => {
            return (
                Check::fail(
                    ID,
                    format!("{}: {e}", shown(path)),
                    "check the permissions of the file and its directory",
                ),
                0,
            )
        }
    };
    if !meta.is_file() {
        return (
            Check::fail(
                ID,
                format!("{} is not a file", shown(path)),
                "move it aside and run `tusk init`",
            ),
            0,
        );
    }
    let text = match store.read_text() {
        Ok(t) => t,
        Err(e) => {
            let fix = match IssueClass::parse(e.class()) {
                Some(IssueClass::MemoryStoreCorrupt) => CORRUPT_FIX,
                _ => "give this user read permission on the file",
            };
            return (Check::fail(ID, e.to_string(), fix), meta.len());
        }
    };
    let parsed = match Store::parse(path, &text) {
        Ok(s) => s,
        Err(e) => return (Check::fail(ID, e.to_string(), CORRUPT_FIX), meta.len()),
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Err(why) = writable(path).and_then(|()| writable(dir)) {
        return (
            Check::fail(
                ID,
                format!("{} is readable but mutations cannot write it: {why}", shown(path)),
                "give this user write permission on the file and its directory (a mutation writes a temporary file beside it and renames it)",
            ),
            meta.len(),
        );
    }
    (
        Check::ok(
            ID,
            format!(
                "{}: {} issue(s), readable and writable",
                shown(path),
                parsed.issue_count()
            ),
        ),
        meta.len(),
    )
}

fn check_policy(args: &DoctorArgs) -> Check {
    const ID: &str = "policy";
    let file = crate::host::PolicyFile::from_flag(
        args.policy.as_deref(),
        &crate::host::HostPaths::under(Path::new(".")).policy,
    );
    let path = file.path().to_path_buf();
    let policy = match crate::runtime::load_policy(&file) {
        Ok(p) => p,
        Err(e @ crate::host::gate::PolicyError::NotFound { .. }) => {
            return Check::fail(
                ID,
                e.to_string(),
                "give the path of an existing policy file, or omit --policy",
            )
        }
        Err(e) => {
            return Check::fail(
                ID,
                e.to_string(),
                format!(
                    "correct the file (`tusk policy digest --policy {0}` shows the error), or remove it to use the built-in default",
                    shown(&path)
                ),
            )
        }
    };
    let Some(source) = &policy.source else {
        return Check::ok(
            ID,
            format!(
                "no policy file at {}: the built-in default is active (every mutation allowed), digest {}",
                shown(&path),
                policy.digest
            ),
        );
    };
    let known = crate::runtime::builtin_registry().mutation_ids();
    let unknown: Vec<&str> = policy
        .allowed_actions
        .iter()
        .filter(|id| !known.contains(id))
        .map(String::as_str)
        .collect();
    let summary = format!(
        "{}: digest {}, {} action(s) allowed{}",
        shown(source),
        policy.digest,
        policy.allowed_actions.len(),
        if policy.require_join_closed {
            ", join closure required"
        } else {
            ""
        }
    );
    if unknown.is_empty() {
        Check::ok(ID, summary)
    } else {
        Check::warn(
            ID,
            format!("{summary}; allows id(s) that are no mutation of this tusk: {}", unknown.join(", ")),
            "correct or remove them (`tusk actions` lists the mutations); the digest changes with the file",
        )
    }
}

/// Who acts and the authority runs get by default (issue 57): each value
/// with where it comes from, and a digest that would be refused.
fn check_authority(args: &DoctorArgs) -> Check {
    const ID: &str = "authority";
    let actor = match crate::host::actor::local_actor() {
        Ok(a) => format!("actor {} (from {})", a.name, a.source.as_str()),
        Err(e) => return Check::fail(ID, e, "name the actor: --actor NAME or TUSK_ACTOR=NAME"),
    };
    let config = match args.files.issues(Path::new(DEFAULT_ISSUES_PATH)) {
        Ok(store) => crate::issues::model::config_path(&store),
        Err(_) => PathBuf::from(".premath/config.json"),
    };
    let defaults = match super::authority::defaults(&config) {
        Ok(d) => d,
        Err(e) => {
            return Check::fail(
                ID,
                e,
                "correct the variable or the member, or remove it (flags still give authority)",
            )
        }
    };
    let shown = |v: &Option<(String, super::authority::Source)>, what: &str| match v {
        Some((value, source)) => format!("{what} {value} (from {source})"),
        None => format!("no default {what} (give it per run)"),
    };
    let summary = format!(
        "{}; {}; {}",
        actor,
        shown(&defaults.policy_digest, "policyDigest"),
        shown(&defaults.instruction_ref, "instructionRef")
    );
    let file = crate::host::PolicyFile::from_flag(
        args.policy.as_deref(),
        &crate::host::HostPaths::under(Path::new(".")).policy,
    );
    match (&defaults.policy_digest, crate::runtime::load_policy(&file)) {
        (Some((digest, source)), Ok(policy)) if *digest != policy.digest => Check::fail(
            ID,
            format!(
                "{summary}: the default policyDigest (from {source}) is not the active policy's                  ({}), so every mutation would be refused mutation.policy_digest_mismatch",
                policy.digest
            ),
            format!("set it to `tusk policy digest` ({})", policy.digest),
        ),
        _ => Check::ok(ID, summary),
    }
}

fn log_error(e: LogReadError) -> (String, &'static str) {
    match e {
        LogReadError::Io(e) => (e.to_string(), "give this user read permission on the file"),
        LogReadError::Store(e) => {
            let class = e.class();
            (e.to_string(), database_fix(class))
        }
    }
}

fn check_effects(args: &DoctorArgs) -> Check {
    const ID: &str = "effects";
    if let Err(check) = database_url(ID, args) {
        return check;
    }
    let default = crate::host::HostPaths::under(Path::new("."));
    let log = match args.files.log(LogTable::Effects, default.effects.path()) {
        Ok(l) => l,
        Err(e) => return Check::fail(ID, e, "give --store URL or --effects FILE, not both"),
    };
    let bytes = match log.read() {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Check::ok(
                ID,
                format!(
                    "no effect log yet ({} appears with the first run)",
                    shown(log.path())
                ),
            )
        }
        Err(e) => {
            let (message, fix) = log_error(e);
            return Check::fail(ID, message, fix);
        }
    };
    let contents = match crate::effects::parse_log(log.path(), &bytes) {
        Ok(c) => c,
        Err(e) => {
            return Check::fail(
                ID,
                e.to_string(),
                format!(
                    "repair that line, or move the log aside (mv {0} {0}.bad) and start a new \
                     one; until then `tusk replay` refuses it",
                    shown(log.path())
                ),
            )
        }
    };
    let runs = contents
        .rows
        .iter()
        .filter(|r| r.row["kind"] == crate::effects::RUN_KIND)
        .count();
    let summary = format!(
        "{}: {} row(s), {} run(s)",
        shown(log.path()),
        contents.rows.len(),
        runs
    );
    if let LogStore::File(path) = &log {
        if let Some(check) = check_effects_file(path, &bytes, &contents, &summary) {
            return check;
        }
    }
    check_effects_chain(contents, summary)
}

/// A torn last line, skipped lines, or a log runs cannot append to.
fn check_effects_file(
    path: &Path,
    bytes: &[u8],
    contents: &crate::effects::LogContents,
    summary: &str,
) -> Option<Check> {
    const ID: &str = "effects";
    if bytes.last().is_some_and(|b| *b != b'\n') && !contents.warnings.is_empty() {
        let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        return Some(Check::warn(
            ID,
            format!("{summary}; its last line is torn (a writer died mid-append)"),
            format!(
                "cut the fragment off (the next run starts a new line after it, but readers \
                 warn about it each time): truncate -s {whole} {}",
                shown(path)
            ),
        ));
    }
    if let Some(first) = contents.warnings.first() {
        return Some(Check::warn(
            ID,
            format!(
                "{summary}; {} line(s) are not rows and are skipped ({first})",
                contents.warnings.len()
            ),
            "`tusk replay --verify` names the runs that lost a row to them",
        ));
    }
    if let Err(why) = writable(path) {
        return Some(Check::fail(
            ID,
            format!("{summary}, but runs cannot append: {why}"),
            "give this user write permission on the log",
        ));
    }
    None
}

/// The log's own checks (digests, seqs, the row chain), as `replay --verify`,
/// on the rows already read.
fn check_effects_chain(contents: crate::effects::LogContents, summary: String) -> Check {
    const ID: &str = "effects";
    let log_runs = crate::replay::log::group(contents);
    let broken: Vec<&crate::replay::log::RecordedRun> = log_runs
        .runs
        .iter()
        .filter(|r| r.problem.is_some())
        .collect();
    let unchained = log_runs.runs.iter().filter(|r| !r.chained).count();
    let summary = if unchained > 0 {
        format!("{summary} ({unchained} written before the row chain)")
    } else {
        summary
    };
    if let Some(run) = broken.first() {
        let p = run.problem.as_ref().expect("filtered on a problem");
        return Check::warn(
            ID,
            format!(
                "{summary}; {} run(s) fail the log's own checks, first {} at line {} ({})",
                broken.len(),
                run.run_id,
                p.line,
                p.field
            ),
            format!(
                "`tusk replay --verify --run {}` shows what does not hold (a run still \
                 going has no footer yet)",
                run.run_id
            ),
        );
    }
    Check::ok(ID, summary)
}

fn check_trajectory(args: &DoctorArgs) -> Check {
    const ID: &str = "trajectory";
    if let Err(check) = database_url(ID, args) {
        return check;
    }
    let default = crate::host::HostPaths::under(Path::new("."));
    let log = match args
        .files
        .log(LogTable::Trajectory, default.trajectory.path())
    {
        Ok(l) => l,
        Err(e) => return Check::fail(ID, e, "give --store URL or --trajectory FILE, not both"),
    };
    if let LogStore::File(path) = &log {
        if !path.exists() {
            return Check::ok(
                ID,
                format!(
                    "no trajectory yet ({} appears with the first host call)",
                    shown(path)
                ),
            );
        }
    }
    let scanned = log.with_file(
        |e| crate::harness::trajectory::TrajectoryError::from_log(&log, e),
        |path| {
            crate::harness::trajectory::scan_file(path, || 0usize, |n, _, _| *n += 1, |a, b| a + b)
        },
    );
    match scanned {
        Ok(scan) => {
            let summary = format!("{}: {} step row(s)", shown(log.path()), scan.acc);
            if scan.warnings.is_empty() {
                match &log {
                    LogStore::File(path) => match writable(path) {
                        Ok(()) => Check::ok(ID, summary),
                        Err(why) => Check::fail(
                            ID,
                            format!("{summary}, but rows cannot be appended: {why}"),
                            "give this user write permission on the file",
                        ),
                    },
                    LogStore::Postgres { .. } => Check::ok(ID, summary),
                }
            } else {
                Check::warn(
                    ID,
                    format!("{summary}; its last line is torn (a writer died mid-append)"),
                    format!(
                        "nothing to repair by hand: the next append moves the fragment to {}.torn",
                        shown(log.path())
                    ),
                )
            }
        }
        Err(e) => {
            let fix = match e.class() {
                class if class == HarnessClass::TrajectoryCorrupt.as_str() => format!(
                    "repair that line, or move the trajectory aside (mv {0} {0}.bad); queries and the KPI refuse it until then",
                    shown(log.path())
                ),
                class if class == HarnessClass::IoError.as_str() => "give this user read permission on the file".to_string(),
                class => database_fix(class).to_string(),
            };
            Check::fail(ID, e.to_string(), fix)
        }
    }
}

/// Answers the (never made) host calls of the doctor's probe program.
struct NoCalls;

impl crate::sandbox::HostBridge for NoCalls {
    fn call(
        &self,
        action: &str,
        _: Option<Value>,
        _: Option<crate::sandbox::convert::ConvertError>,
    ) -> crate::sandbox::HostReply {
        crate::sandbox::HostReply {
            envelope: json!({
                "resultClass": HostClass::Unallowlisted.as_str(),
                "failureClasses": [HostClass::Unallowlisted.as_str()],
                "payload": {"diagnostic": format!("the doctor's probe binds no action ({action})")},
            })
            .into(),
            text: None,
            breach: None,
        }
    }
}

fn check_sandbox() -> Check {
    const ID: &str = "sandbox";
    let fix_os =
        "tusk runs each program in a forked worker that sets resource limits and installs a \
                  seccomp filter on itself: it needs Linux with seccomp (x86_64 or aarch64); in a \
                  container, do not deny seccomp, prctl or setrlimit to tusk";
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if !status.lines().any(|l| l.starts_with("Seccomp:")) {
        return Check::fail(
            ID,
            "this kernel reports no seccomp support (/proc/self/status has no Seccomp line)",
            fix_os,
        );
    }
    let started = Instant::now();
    let sandbox = crate::sandbox::Sandbox::new(Vec::new());
    let out = sandbox.run(
        "(display \"ok\") (+ 40 2)",
        crate::sandbox::Limits::default(),
        crate::sandbox::EngineMode::Fresh,
        Arc::new(NoCalls),
    );
    let elapsed = started.elapsed().as_millis();
    match out.error {
        None if out.value == json!(42) && out.output == "ok" => Check::ok(
            ID,
            format!(
                "a worker forked, confined itself (resource limits, system-call filter) and ran a program in {elapsed} ms"
            ),
        ),
        None => Check::fail(
            ID,
            format!("the probe program returned {} with output {:?}, not 42 and \"ok\"", out.value, out.output),
            "report this as a bug of tusk (with `tusk --version`)",
        ),
        Some(e) => Check::fail(ID, format!("the probe program did not run: {}: {}", e.class.as_str(), e.message), fix_os),
    }
}

fn check_disk(store_bytes: u64) -> Check {
    const ID: &str = "disk";
    let premath = Path::new(".premath");
    let at = if premath.is_dir() {
        premath
    } else {
        Path::new(".")
    };
    let stat = match nix::sys::statvfs::statvfs(at) {
        Ok(s) => s,
        Err(e) => {
            return Check::warn(
                ID,
                format!("cannot read the free space of {}: {e}", shown(at)),
                "check the filesystem with df",
            )
        }
    };
    // Both are 64-bit on the platforms the sandbox supports (x86_64, aarch64).
    let free: u64 = stat.blocks_available().saturating_mul(stat.fragment_size());
    let mib = |b: u64| b >> 20;
    let want = DISK_WARN_BYTES.max(store_bytes.saturating_mul(2));
    let message = format!("{} MiB free under {}", mib(free), shown(at));
    let fix = "free space on that filesystem: each mutation writes a whole new copy of the issue store before renaming it, and every run appends to the logs";
    if free < DISK_FAIL_BYTES {
        Check::fail(ID, message, fix)
    } else if free < want {
        Check::warn(ID, format!("{message} (less than {} MiB)", mib(want)), fix)
    } else {
        Check::ok(ID, message)
    }
}

/// tusk's own files and their lock files: none may be a symbolic link (tusk
/// refuses to read or write through one; docs/sandbox.md, "Files").
fn check_files(args: &DoctorArgs) -> Check {
    const ID: &str = "files";
    let default = crate::host::HostPaths::under(Path::new("."));
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(IssueStore::Jsonl(path)) = args.files.issues(default.issues.path()) {
        files.push(crate::issues::store::lock_path(&path));
        files.push(path);
    }
    for (table, path) in [
        (LogTable::Effects, default.effects.path()),
        (LogTable::Trajectory, default.trajectory.path()),
    ] {
        if let Ok(LogStore::File(path)) = args.files.log(table, path) {
            files.push(path);
        }
    }
    for path in [
        &default.session,
        &default.feature_ledger,
        &default.retry_policy,
    ] {
        files.push(path.clone());
        files.push(crate::harness::SidecarLock::path_of(path));
    }
    files.push(args.policy.clone().unwrap_or(default.policy));
    let links: Vec<String> = files
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()))
        .map(|p| shown(p))
        .collect();
    if links.is_empty() {
        return Check::ok(ID, "no file of tusk's is a symbolic link");
    }
    Check::fail(
        ID,
        format!(
            "{} a symbolic link; tusk refuses to read or write through it",
            if links.len() == 1 {
                format!("{} is", links[0])
            } else {
                format!("{} are each", links.join(", "))
            }
        ),
        format!(
            "replace each link with the file itself (`cp --remove-destination \"$(readlink -f F)\" F`), \
             or remove it and let tusk create it: {}",
            links.join(" ")
        ),
    )
}

/// What a process killed mid-change left (issue 61): settled now, and said.
fn check_recovery(args: &DoctorArgs) -> Check {
    const ID: &str = "recovery";
    let Ok(store) = args.files.issues(Path::new(DEFAULT_ISSUES_PATH)) else {
        return Check::ok(ID, "no store to settle");
    };
    if !matches!(store, IssueStore::Jsonl(_)) {
        // A change and its rows commit together; what a dead process can
        // leave is only its runs without a footer.
        const DB: &str = "a database store: a change and its rows commit together";
        return match store.settle() {
            Err(e) => Check::warn(
                ID,
                format!("{DB}; could not close the runs of processes that died: {e}"),
                "run `tusk doctor` again once the database answers",
            ),
            Ok(s) if s.closed.is_empty() => {
                Check::ok(ID, format!("{DB}; no run left open by a process that died"))
            }
            Ok(s) => Check::warn(
                ID,
                format!(
                    "{DB}; closed run(s) {} whose process died",
                    s.closed.join(", ")
                ),
                "nothing to do: closed now; `tusk replay` shows each closed run as recovered",
            ),
        };
    }
    let settled = match store.settle() {
        Ok(settled) => settled,
        Err(e) => {
            return Check::warn(
                ID,
                format!("could not settle what a killed process left: {e}"),
                "run `tusk doctor` again once the store's lock is free",
            )
        }
    };
    let live = if settled.in_flight > 0 {
        format!(
            "; {} write(s) of a live process not yet settled",
            settled.in_flight
        )
    } else {
        String::new()
    };
    if !settled.problems.is_empty() {
        return Check::fail(
            ID,
            format!("could not settle: {}{live}", settled.problems.join("; ")),
            "the journal is kept under the store's `.pending` directory; the effect log's run \
             already ended, so the change stands without its row: note it, then remove the journal",
        );
    }
    let acted = settled.applied + settled.not_applied + settled.closed.len();
    if acted == 0 {
        return Check::ok(
            ID,
            format!("nothing left unsettled by a killed process{live}"),
        );
    }
    let mut what = vec![format!(
        "settled {} write(s) a killed process left ({} in the store, {} never made)",
        settled.applied + settled.not_applied,
        settled.applied,
        settled.not_applied
    )];
    if !settled.recovered.is_empty() {
        what.push(format!(
            "recovered the rows of {}",
            settled.recovered.join(", ")
        ));
    }
    if !settled.closed.is_empty() {
        what.push(format!("closed run(s) {}", settled.closed.join(", ")));
    }
    Check::warn(
        ID,
        format!("{}{live}", what.join("; ")),
        "nothing to do: settled now; `tusk replay` shows each closed run as recovered",
    )
}

/// Runs every check, in the order they are reported.
pub fn checks(args: &DoctorArgs) -> Vec<Check> {
    let (store, store_bytes) = check_store(args);
    vec![
        store,
        check_recovery(args),
        check_policy(args),
        check_authority(args),
        check_effects(args),
        check_trajectory(args),
        check_files(args),
        git::check_git(args),
        check_sandbox(),
        check_disk(store_bytes),
    ]
}

/// Runs `tusk doctor`: exit 0 nothing failed, 1 something did.
pub fn run(args: &DoctorArgs) -> Result<Exit, CliError> {
    let checks = checks(args);
    let result = checks.iter().map(|c| c.status).max().unwrap_or(Status::Ok);
    let directory = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let text = if args.json {
        let value = json!({
            "schema": SCHEMA,
            "result": result,
            "version": env!("CARGO_PKG_VERSION"),
            "commit": super::build_commit(),
            "directory": directory,
            "checks": checks,
        });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        )
    } else {
        let mut out = format!(
            "tusk {} doctor in {}\n",
            super::VERSION,
            crate::terminal::field(&directory)
        );
        for c in &checks {
            out.push_str(&format!(
                "{:<4}  {:<10}  {}\n",
                c.status.word(),
                c.id,
                c.message
            ));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("{:<4}  {:<10}  fix: {fix}\n", "", ""));
            }
        }
        let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
        out.push_str(&format!(
            "{}: {} ok, {} warning(s), {} failed\n",
            result.word(),
            count(Status::Ok),
            count(Status::Warn),
            count(Status::Fail)
        ));
        out
    };
    super::write_stdout(text.as_bytes())?;
    Ok(Exit::accepted_if(result != Status::Fail))
}
