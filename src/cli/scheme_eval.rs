//! `tusk scheme-eval --program FILE`: premath's JSON programs (a list of host
//! calls with capability claims) with premath's flags, result JSON, text and
//! exit codes (0 accepted, 1 rejected or a refused program), each run as a
//! tusk run (effect-log header, rows, footer) that `tusk replay` replays.
//! Exit 2: a program tusk cannot run as one faithful run, or an unusable
//! policy or log (nothing ran).

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::premath::{self, Contract, Frame, Program, ProgramError};
use crate::runtime::{CallStep, Host, HostConfig, Request, RunHooks, RunOptions, StepNames};
use crate::sandbox::LimitsOverride;
use clap::Args;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Flags of `tusk scheme-eval` (premath's, plus where tusk keeps its logs).
#[derive(Args, Debug)]
pub struct SchemeEvalArgs {
    /// Program JSON path.
    #[arg(long)]
    pub program: String,
    /// Control-plane contract JSON path used to derive the host-action allowlist.
    #[arg(
        long,
        default_value = "specs/premath/draft/CONTROL-PLANE-CONTRACT.json"
    )]
    pub control_plane_contract: String,
    /// Harness trajectory JSONL path where host effects are bound.
    #[arg(long, default_value = ".premath/harness_trajectory.jsonl")]
    pub trajectory_path: String,
    /// Step-id prefix for emitted trajectory rows.
    #[arg(long, default_value = "scheme_eval")]
    pub step_prefix: String,
    /// Maximum host calls per program.
    #[arg(long, default_value_t = 32)]
    pub max_calls: usize,
    /// Default issue id for emitted rows.
    #[arg(long)]
    pub issue_id: Option<String>,
    /// Default policy digest (mutations need the active policy's: `tusk policy digest`).
    #[arg(long)]
    pub policy_digest: Option<String>,
    /// Default instruction ref (required for mutations).
    #[arg(long)]
    pub instruction_ref: Option<String>,
    /// Capability claim (repeatable).
    #[arg(long = "capability-claim")]
    pub capability_claims: Vec<String>,
    /// Output as JSON.
    #[arg(long)]
    pub json: bool,
    /// tusk: the issue store (default .premath/issues.jsonl).
    #[arg(long)]
    pub issues: Option<PathBuf>,
    /// tusk: the effect log the run is recorded in (default .premath/host_effects.jsonl).
    #[arg(long)]
    pub effects: Option<PathBuf>,
    /// tusk: the mutation policy file (default .premath/mutation_policy.json).
    #[arg(long)]
    pub policy: Option<PathBuf>,
}

/// premath's refusal: `error: TEXT (CLASS)` on stderr, exit 1.
fn premath_error(class: &'static str, message: &str) -> CliError {
    CliError::refused("error", format_args!("{message} ({class})")).with_class(class)
}

/// A file read and parsed as JSON, with premath's messages.
fn read_json(path: &str, label: &str) -> Result<Value, CliError> {
    let bytes = crate::files::read_capped(std::path::Path::new(path), crate::files::INPUT_MAX)
        .map_err(|e| {
            CliError::refused(
                "error",
                format_args!("failed to read {label} at {path}: {e}"),
            )
        })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        CliError::refused(
            "error",
            format_args!("failed to parse {label} JSON at {path}: {e}"),
        )
    })
}

fn unsupported(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk scheme-eval", message)
}

/// Runs `tusk scheme-eval`.
pub fn run(args: &SchemeEvalArgs) -> Result<Exit, CliError> {
    run_inner(args)
}

fn run_inner(args: &SchemeEvalArgs) -> Result<Exit, CliError> {
    let program_json = read_json(&args.program, "scheme-eval program")?;
    let mut program: Program = serde_json::from_value(program_json).map_err(|e| {
        premath_error(
            premath::FAILURE_INVALID_PROGRAM,
            &format!("invalid evaluator program shape: {e}"),
        )
    })?;
    apply_flags(&mut program, args);
    // Authority stated once (issue 57): what the program and flags lack.
    let config =
        crate::issues::model::config_path(&crate::issues::IssueStore::Jsonl(issues_path(args)));
    let defaults = super::authority::defaults(&config)
        .map_err(|e| premath_error(premath::FAILURE_INVALID_PROGRAM, &e))?;
    if premath::non_empty(program.policy_digest.as_deref()).is_none() {
        program.policy_digest = defaults.policy_digest.map(|(v, _)| v);
    }
    if premath::non_empty(program.instruction_ref.as_deref()).is_none() {
        program.instruction_ref = defaults.instruction_ref.map(|(v, _)| v);
    }
    let contract_json = read_json(&args.control_plane_contract, "control-plane contract")?;
    premath::check(&program, args.max_calls).map_err(refusal)?;
    let contract = Contract::parse(&contract_json).map_err(refusal)?;
    let allowlist = contract.allowlist();
    let issue_id = premath::non_empty(program.issue_id.as_deref());
    let policy_digest = premath::non_empty(program.policy_digest.as_deref());
    let instruction_ref = premath::non_empty(program.instruction_ref.as_deref());

    let host = premath_host(args, &contract)?;
    let call_ids = premath::call_ids(&program);
    let scopes = premath::call_scopes(&program);
    let steps = step_names(args, &program, &call_ids, &scopes);
    let request = Request {
        program: premath::scheme_program(&program),
        issue_id,
        policy_digest: policy_digest.clone(),
        instruction_ref: instruction_ref.clone(),
        capability_claims: Some(program.capability_claims.clone()),
        limits: Some(LimitsOverride {
            max_calls: Some(u32::try_from(args.max_calls).unwrap_or(u32::MAX)),
            ..Default::default()
        }),
        ..Default::default()
    };
    let options = RunOptions {
        hooks: RunHooks {
            steps: Some(steps),
            ..Default::default()
        },
        ..Default::default()
    };
    let result = host.run(&request, options).map_err(unsupported)?;
    let frame = Frame {
        program_path: &args.program,
        contract_path: &args.control_plane_contract,
        trajectory_path: &args.trajectory_path,
        allowlist: &allowlist,
        call_ids: &call_ids,
        scopes: &scopes,
    };
    let output = premath::premath_result(&frame, &result.json);
    if args.json {
        println!("{}", to_pretty_sorted(&output));
    } else {
        print_text(args, &output);
    }
    Ok(Exit::accepted_if(output["result"] == "accepted"))
}

/// A program or contract refused: premath's refusal (exit 1), or one tusk
/// cannot run faithfully (exit 2).
fn refusal(e: ProgramError) -> CliError {
    match e {
        ProgramError::Premath { class, message } => premath_error(class, &message),
        ProgramError::Unsupported(m) => unsupported(m),
    }
}

/// The flags override the program's defaults; claims merge (premath's rule).
fn apply_flags(program: &mut Program, args: &SchemeEvalArgs) {
    let flag = |v: &Option<String>| premath::non_empty(v.as_deref());
    if let Some(v) = flag(&args.issue_id) {
        program.issue_id = Some(v);
    }
    if let Some(v) = flag(&args.policy_digest) {
        program.policy_digest = Some(v);
    }
    if let Some(v) = flag(&args.instruction_ref) {
        program.instruction_ref = Some(v);
    }
    program.capability_claims = premath::merge_refs(
        program
            .capability_claims
            .iter()
            .chain(&args.capability_claims),
    );
}

/// The host the program runs on: premath's paths and flags, the contract's
/// registry.
fn premath_host(args: &SchemeEvalArgs, contract: &Contract) -> Result<Host, CliError> {
    let mut paths = crate::host::HostPaths::under(std::path::Path::new("."));
    paths.issues = crate::issues::IssueStore::Jsonl(issues_path(args));
    paths.trajectory = crate::logs::LogStore::File(PathBuf::from(&args.trajectory_path));
    paths.effects = crate::logs::LogStore::File(
        args.effects
            .clone()
            .unwrap_or_else(|| PathBuf::from(".premath/host_effects.jsonl")),
    );
    let file = crate::host::PolicyFile::from_flag(args.policy.as_deref(), &paths.policy);
    if let Some(p) = &args.policy {
        paths.policy = p.clone();
    }
    let policy = crate::runtime::load_policy(&file).map_err(unsupported)?;
    let config = HostConfig {
        paths,
        policy,
        registry: premath::registry(contract),
        limits: crate::sandbox::Limits::default(),
        signer: None,
    };
    Ok(Host::new(config))
}

/// The issue store the program runs against (`--issues`, else premath's default).
fn issues_path(args: &SchemeEvalArgs) -> PathBuf {
    args.issues
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::issues::store::DEFAULT_ISSUES_PATH))
}

/// Each call's premath step: its id, witness and lineage refs, and its own
/// issue and authority (`scopes`, premath's precedence), recorded on its rows.
fn step_names(
    args: &SchemeEvalArgs,
    program: &Program,
    call_ids: &[String],
    scopes: &[crate::runtime::CallScope],
) -> StepNames {
    let prefix = args.step_prefix.clone();
    let per_call: Vec<(String, Vec<String>, Vec<String>, crate::runtime::CallScope)> = program
        .calls
        .iter()
        .zip(call_ids)
        .zip(scopes)
        .map(|((c, id), scope)| {
            (
                id.clone(),
                premath::merge_refs(&c.witness_refs),
                premath::merge_refs(&c.lineage_refs),
                scope.clone(),
            )
        })
        .collect();
    Arc::new(move |n, action, digest| {
        let (id, witness, lineage, scope) = per_call.get(n - 1).cloned().unwrap_or_default();
        CallStep {
            step_id: premath::step_id(&prefix, &id, action, digest, n),
            witness_refs: witness,
            lineage_refs: lineage,
            instruction_refs: scope.instruction_ref.iter().cloned().collect(),
            scope: Some(scope),
        }
    })
}

/// premath's text summary (with the first refusal's class, stage, action
/// and diagnostic).
fn print_text(args: &SchemeEvalArgs, output: &Value) {
    println!("premath scheme-eval");
    println!("  Program: {}", args.program);
    println!(
        "  Result: {}",
        output["result"].as_str().unwrap_or("unknown")
    );
    println!(
        "  Executed calls: {}",
        output["executedCallCount"].as_u64().unwrap_or(0)
    );
    println!("  Trajectory path: {}", args.trajectory_path);
    if output["result"] != "rejected" {
        return;
    }
    let Some(effect) = output["effects"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["resultClass"] != "accepted")
    else {
        return;
    };
    let trimmed = |v: &Value| premath::non_empty(v.as_str());
    let class = trimmed(&effect["resultClass"])
        .or_else(|| trimmed(&output["failureClasses"][0]))
        .unwrap_or_else(|| premath::FAILURE_EXECUTION_ERROR.to_string());
    let action = trimmed(&effect["action"]).unwrap_or_else(|| "unknown".into());
    let diagnostic = trimmed(&effect["payload"]["diagnostic"])
        .unwrap_or_else(|| "no diagnostic provided".into());
    println!("  Failure class: {class}");
    println!(
        "  Failure stage: {}",
        premath::rejection_stage(&class, &diagnostic)
    );
    println!("  Failed action: {action}");
    println!("  Diagnostic: {diagnostic}");
    println!("  Hint: rerun with --json for full failure envelope");
}
