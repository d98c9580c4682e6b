//! `tusk eval`: run one bounded program (host-api §3). Exit 0 accepted,
//! 1 rejected, 2 the request could not be read.

use super::{CliError, Exit};
use crate::canonical;
use crate::host::HostClass;
use crate::runtime::{Host, HostConfig, Request};
use crate::sandbox::LimitsOverride;
use clap::Args;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Flags of `tusk eval` (and `tusk repl`, which shares the host setup).
#[derive(Args, Debug, Clone)]
pub struct HostArgs {
    #[command(flatten)]
    pub files: crate::cli::store::StoreFiles,
    /// Mutation policy file (must exist; default .premath/mutation_policy.json, the built-in default when that is absent).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Harness session file (default .premath/harness_session.json).
    #[arg(long)]
    pub session: Option<PathBuf>,
    /// Feature ledger (default .premath/harness_feature_ledger.json).
    #[arg(long)]
    pub feature_ledger: Option<PathBuf>,
    /// Authority evidence: the active policy's digest (`tusk policy digest`).
    #[arg(long)]
    pub policy_digest: Option<String>,
    /// Authority evidence: the instruction this run carries out.
    #[arg(long)]
    pub instruction_ref: Option<String>,
    /// The issue this run works on (goes into trajectory rows).
    #[arg(long)]
    pub issue_id: Option<String>,
    /// A harness-join-check input file: join evidence for the mutation gate.
    #[arg(long)]
    pub join_evidence: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitFlags,
    /// Read-only profile: mutation actions are not registered at all.
    #[arg(long)]
    pub read_only: bool,
    /// Sign each run's effect-log footer with this ed25519 key (`tusk keygen`);
    /// `tusk replay --trust KEY.pub` checks the signatures.
    #[arg(long, value_name = "FILE")]
    pub sign_key: Option<PathBuf>,
}

/// A host configuration the flags cannot give: its class
/// (`config.file_not_found`, `config.policy_unusable`, `request.unusable`)
/// and what to fix.
#[derive(Debug)]
pub struct ConfigError {
    pub class: &'static str,
    pub message: String,
}

impl ConfigError {
    fn request(message: String) -> Self {
        Self {
            class: HostClass::RequestUnusable.as_str(),
            message,
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The run-limit flags, declared once for every command that runs programs:
/// `tusk eval` and `tusk repl` run under them, `tusk replay` takes them as
/// the ceiling a recorded run's limits may not exceed.
#[derive(Args, Debug, Clone, Default)]
pub struct LimitFlags {
    /// Wall-clock limit in milliseconds (default 5000).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Host-call budget (default 64).
    #[arg(long)]
    pub max_calls: Option<u32>,
    /// Memory limit in MiB (default 256).
    #[arg(long)]
    pub max_memory_mb: Option<u64>,
    /// Captured output limit in bytes (default 65536).
    #[arg(long)]
    pub max_output_bytes: Option<u64>,
    /// Size cap of one host call's arguments as JSON, in bytes (default 1048576).
    #[arg(long)]
    pub max_call_args_bytes: Option<u64>,
    /// Size cap of the program's final value as JSON, in bytes (default 8388608).
    #[arg(long)]
    pub max_value_bytes: Option<u64>,
}

impl LimitFlags {
    /// The flags given, as a partial override.
    pub fn to_override(&self) -> LimitsOverride {
        LimitsOverride {
            timeout_ms: self.timeout_ms,
            max_calls: self.max_calls,
            max_memory_mb: self.max_memory_mb,
            max_output_bytes: self.max_output_bytes,
            max_call_args_bytes: self.max_call_args_bytes,
            max_value_bytes: self.max_value_bytes,
            ..Default::default()
        }
    }
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Program file, or `-` for stdin.
    pub file: Option<PathBuf>,
    /// Read a JSON request object (`program`, `issueId`, `policyDigest`,
    /// `instructionRef`, `joinEvidence`, `limits`) from FILE or `-`.
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// Print the full result envelope as JSON.
    #[arg(long)]
    pub json: bool,
    /// All or nothing: stage the program's issue changes and apply them in
    /// one commit when the run ends accepted, none otherwise (`run.conflict`
    /// when an issue it read or wrote changed meanwhile).
    #[arg(long)]
    pub atomic: bool,
    /// Change nothing: run atomically, never commit, and print the plan of
    /// what the run would change (`tusk.plan.v1`).
    #[arg(long)]
    pub dry_run: bool,
    /// Retry safely: run again with the same KEY and program, this prints
    /// the first run's result (marked as replayed) and runs nothing; another
    /// program with the KEY is refused. Keys last 24 hours.
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
    /// With --dry-run: also write the plan to FILE.
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    pub plan_out: Option<PathBuf>,
    #[command(flatten)]
    pub host: HostArgs,
}

/// The kind of the one JSON object `tusk eval --json` prints when a request
/// cannot be served (exit 2).
pub const REQUEST_ERROR_KIND: &str = "premath.scheme_eval.request_error.v0";

/// A request that cannot be served: nothing ran, nothing was written; exit 2.
/// With `--json`, one JSON object on stdout says why (a caller parsing
/// stdout always gets JSON); the message also goes to stderr.
fn unusable(json: bool, message: impl std::fmt::Display) -> CliError {
    unusable_as(json, HostClass::RequestUnusable.as_str(), message)
}

/// [`unusable`] with a more precise class (an unusable shared store's).
fn unusable_as(json: bool, class: &'static str, message: impl std::fmt::Display) -> CliError {
    let error = CliError::unusable("tusk eval", &message).with_class(class);
    if !json {
        return error;
    }
    // The CLI's one error contract (`result`, `class`, `message`) on top of
    // the request-error object callers already read.
    error.with_json(serde_json::json!({
        "schema": 1,
        "kind": REQUEST_ERROR_KIND,
        "result": "rejected",
        "class": class,
        "message": message.to_string(),
        "error": {"class": class, "message": message.to_string()},
    }))
}

/// The bytes of FILE, or of stdin for `-`.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    if path == Path::new("-") {
        crate::files::read_stdin(crate::files::INPUT_MAX)
            .map_err(|e| format!("cannot read stdin: {e}"))
    } else {
        crate::files::read_capped(path, crate::files::INPUT_MAX)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
    }
}

/// The text of FILE (or stdin); not UTF-8 is an error.
pub(crate) fn read_source(path: &Path) -> Result<String, String> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        format!(
            "{} is not UTF-8 (first invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

impl HostArgs {
    /// The host configuration: defaults under `.premath/`, overridden by flags.
    /// A file a flag names must exist (a missing `--policy` never falls back
    /// to the allow-all default).
    pub fn config(&self) -> Result<HostConfig, ConfigError> {
        let mut paths = crate::host::HostPaths::under(Path::new("."));
        let set = |slot: &mut PathBuf, flag: &Option<PathBuf>| {
            if let Some(p) = flag {
                *slot = p.clone();
            }
        };
        paths.issues = self
            .files
            .issues(paths.issues.path())
            .map_err(ConfigError::request)?;
        paths.trajectory = self
            .files
            .log(crate::pg::LogTable::Trajectory, paths.trajectory.path())
            .map_err(ConfigError::request)?;
        paths.effects = self
            .files
            .log(crate::pg::LogTable::Effects, paths.effects.path())
            .map_err(ConfigError::request)?;
        let policy_file = crate::host::PolicyFile::from_flag(self.policy.as_deref(), &paths.policy);
        set(&mut paths.policy, &self.policy);
        set(&mut paths.session, &self.session);
        set(&mut paths.feature_ledger, &self.feature_ledger);
        let policy = crate::runtime::load_policy(&policy_file).map_err(|e| ConfigError {
            class: e.class(),
            message: e.to_string(),
        })?;
        let mut registry = crate::runtime::builtin_registry();
        if self.read_only {
            registry = registry.read_only();
        }
        let signer = match &self.sign_key {
            Some(path) => Some(std::sync::Arc::new(
                crate::chain::Signer::load(path).map_err(|e| ConfigError {
                    class: if path.exists() {
                        HostClass::RequestUnusable.as_str()
                    } else {
                        HostClass::ConfigNotFound.as_str()
                    },
                    message: e.to_string(),
                })?,
            )),
            None => None,
        };
        Ok(HostConfig {
            paths,
            policy,
            registry,
            limits: Default::default(),
            signer,
        })
    }

    /// The limit flags alone.
    pub fn limit_flags(&self) -> LimitsOverride {
        self.limits.to_override()
    }

    /// Flags that fill (or override) a request's fields.
    pub fn apply_to(&self, request: &mut Request) -> Result<(), String> {
        if self.policy_digest.is_some() {
            request.policy_digest = self.policy_digest.clone();
        }
        if self.instruction_ref.is_some() {
            request.instruction_ref = self.instruction_ref.clone();
        }
        if self.issue_id.is_some() {
            request.issue_id = self.issue_id.clone();
        }
        if let Some(path) = &self.join_evidence {
            let text = read_source(path)?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| format!("join evidence {} is not JSON: {e}", path.display()))?;
            request.join_evidence = Some(value);
        }
        request.limits = Some(self.limit_flags().or(request.limits.unwrap_or_default()));
        Ok(())
    }
}

pub fn run(args: EvalArgs) -> Result<Exit, CliError> {
    // The template was started by `cli::run` (one-run mode): its engine
    // builds while this process reads the request and opens the logs.
    let json = args.json;
    let cannot_serve = |e: String| unusable(json, e);
    let mut request = match (&args.request, &args.file) {
        (Some(_), Some(_)) => {
            return Err(cannot_serve(
                "give either a program FILE or --request, not both".into(),
            ))
        }
        (Some(path), None) => {
            let text = read_source(path).map_err(cannot_serve)?;
            serde_json::from_str::<Request>(&text).map_err(|e| {
                cannot_serve(format!(
                    "the request is not a valid JSON request object: {e}"
                ))
            })?
        }
        // A program file that is not UTF-8 is the program's problem, not the
        // request's: it becomes a recorded invalid_program run.
        (None, Some(path)) => Request::from_program_bytes(read_bytes(path).map_err(cannot_serve)?),
        (None, None) => {
            return Err(cannot_serve(
                "no program: give a FILE, `-` for stdin, or --request".into(),
            ))
        }
    };
    args.host.apply_to(&mut request).map_err(cannot_serve)?;
    request.atomic |= args.atomic;
    request.dry_run |= args.dry_run;
    if args.idempotency_key.is_some() {
        request.idempotency_key = args.idempotency_key.clone();
    }
    let config = args
        .host
        .config()
        .map_err(|e| unusable_as(json, e.class, &e))?;
    super::authority::complete(
        &mut request,
        &crate::issues::model::config_path(&config.paths.issues),
    )
    .map_err(cannot_serve)?;
    let host = Host::new(config);
    let result = host
        .eval(&request)
        .map_err(|e| unusable_as(json, e.class(), e))?;
    if let Some(path) = &args.plan_out {
        let plan = &result.json["plan"];
        if plan.is_null() {
            eprintln!(
                "tusk eval: no plan to write to {}: the dry run did not end accepted",
                path.display()
            );
        } else {
            let text = format!("{}\n", canonical::to_pretty_sorted(plan));
            crate::files::write_atomically(path, text.as_bytes()).map_err(|e| {
                cannot_serve(format!("cannot write the plan to {}: {e}", path.display()))
            })?;
        }
    }
    let text = if json {
        format!("{}\n", canonical::to_pretty_sorted(&result.json))
    } else {
        summary(&result.json)
    };
    // A closed pipe (`| head`) is the reader's choice, not an error of the run.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(Exit::accepted_if(result.accepted))
}

pub use crate::render::summary;
