//! `tusk replay`: re-run recorded runs against their recorded envelopes
//! (host-api §7), or with `--live DIR` against a copy of a store snapshot.
//! Exit 0 parity, 1 divergence (or a log that fails its own integrity
//! checks), 2 unreadable input, an unusable snapshot or a selection that names
//! nothing.

use super::{CliError, Exit};
use crate::canonical;
use crate::replay::{self, log, RunReport, Selection};
use clap::Args;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("select").args(["run", "session", "trace", "all"])))]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReplayArgs {
    #[command(subcommand)]
    pub command: Option<ReplayCommand>,
    /// The effect log to replay (default .premath/host_effects.jsonl).
    #[arg(long)]
    pub effects: Option<PathBuf>,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// Replay one run; prints one `premath.scheme_eval.replay.v0` object.
    #[arg(long, value_name = "RUNID")]
    pub run: Option<String>,
    /// Replay every run of one REPL session, in order, in one session engine.
    #[arg(long, value_name = "SID")]
    pub session: Option<String>,
    /// Replay the runs of one OpenTelemetry trace (the trace id their
    /// effect-log header records), each in a fresh engine.
    #[arg(long, value_name = "TRACEID")]
    pub trace: Option<String>,
    /// Replay every run in the log (the default).
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of one line per run.
    #[arg(long)]
    pub json: bool,
    /// Re-execute with the real actions against a copy of the snapshot DIR
    /// (laid out like .premath/), comparing results and payload digests.
    #[arg(long, value_name = "DIR")]
    pub live: Option<PathBuf>,
    /// How many runs to replay at once (default: one per two processors, up
    /// to 4). The output does not depend on it. Not with `--live`, which
    /// replays one run after another: its runs share one copy of the snapshot.
    #[arg(long, short = 'j', value_name = "N", conflicts_with = "live",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// The highest limits a recorded run may ask for (defaults: `tusk eval`'s).
    /// A run whose header asks for more is a `log.limits` divergence and is
    /// not executed; raise a flag to replay it.
    #[command(flatten)]
    pub limits: crate::cli::eval::LimitFlags,
    /// Check the log only (each run's chain, its own digests and, with
    /// `--trust`, its signature) without running anything. A replay makes the
    /// same checks before it runs a run.
    #[arg(long)]
    pub verify: bool,
    /// A public key (`tusk keygen`'s `.pub`) whose footer signatures are
    /// accepted; given once or more, every selected run must be signed by one.
    #[arg(long, value_name = "KEYFILE")]
    pub trust: Vec<PathBuf>,
}

/// What `tusk replay` does besides replaying.
#[derive(clap::Subcommand, Debug)]
pub enum ReplayCommand {
    /// The first difference between two recorded runs: call by call (action,
    /// arguments, result class, payload), then value, output, failure classes
    /// and result. Exit 0 identical, 1 different, 2 a run not in the log.
    Diff(DiffArgs),
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first run's id.
    #[arg(value_name = "RUN_A")]
    pub run_a: String,
    /// The second run's id, compared with the first.
    #[arg(value_name = "RUN_B")]
    pub run_b: String,
    /// The effect log holding both runs (default .premath/host_effects.jsonl).
    #[arg(long)]
    pub effects: Option<PathBuf>,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// Print one `tusk.replay.diff.v0` object.
    #[arg(long)]
    pub json: bool,
}

fn unusable(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk replay", message)
}

fn open_log(
    store: &crate::cli::store::StoreFlag,
    effects: Option<&std::path::Path>,
    only: Option<log::Only<'_>>,
) -> Result<(crate::logs::LogStore, log::Log), String> {
    let default = crate::host::HostPaths::under(std::path::Path::new(".")).effects;
    let source = store
        .log(crate::pg::LogTable::Effects, effects, default.path())
        .map_err(|e| e.to_string())?;
    let log = match only {
        // One run or one session: only its rows are read (a large log is
        // streamed, never held whole).
        Some(only) => log::read_only(&source, only),
        None => log::read_store(&source),
    }
    .map_err(|e| e.to_string())?;
    for warning in &log.warnings {
        eprintln!("{warning}");
    }
    Ok((source, log))
}

/// `tusk replay diff RUN_A RUN_B`.
fn diff(args: &DiffArgs) -> Result<Exit, CliError> {
    let (_, log) = open_log(&args.store, args.effects.as_deref(), None).map_err(unusable)?;
    let find = |id: &str| log.runs.iter().find(|r| r.run_id == id);
    let (a, b) = match (find(&args.run_a), find(&args.run_b)) {
        (Some(a), Some(b)) => (a, b),
        (a, _) => {
            let missing = if a.is_none() {
                &args.run_a
            } else {
                &args.run_b
            };
            return Err(unusable(format!("no run {missing} in the log"))
                .with_class(super::CliClass::NothingSelected.as_str()));
        }
    };
    for run in [a, b] {
        if let Some(p) = &run.problem {
            eprintln!(
                "warning: run {} fails the log's own checks at line {} ({}): its record may not be what ran",
                run.run_id, p.line, p.field
            );
        }
    }
    let difference = replay::diff::first_difference(a, b);
    let text = if args.json {
        let mut value = replay::diff::to_json(a, b, difference.as_ref());
        for (key, run) in [("problemA", a), ("problemB", b)] {
            if let Some(p) = &run.problem {
                value[key] = problem_json(p);
            }
        }
        format!("{}\n", canonical::to_pretty_sorted(&value))
    } else {
        let mut out = format!(
            "{} ({} call(s)) vs {} ({} call(s)){}\n",
            a.run_id,
            a.calls.len(),
            b.run_id,
            b.calls.len(),
            if a.program == b.program {
                ", same program"
            } else {
                ", different programs"
            }
        );
        match &difference {
            None => {
                out.push_str("identical: every call, the value, the output and the result agree\n")
            }
            Some(d) => {
                let place = match (d.seq, &d.action) {
                    (Some(seq), Some(action)) => format!("call {seq} ({action})"),
                    (Some(seq), None) => format!("call {seq}"),
                    _ => "the run's end".into(),
                };
                out.push_str(&format!(
                    "first difference at {place}: {}: {} vs {}\n",
                    d.field, d.a, d.b
                ));
                if let Some((path, x, y)) = &d.at {
                    out.push_str(&format!("  at {path}: {x} vs {y}\n"));
                }
            }
        }
        out.lines()
            .map(|l| format!("{}\n", crate::terminal::field(l)))
            .collect()
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(Exit::accepted_if(difference.is_none()))
}

/// Rows that belong to no run: part of the report for a replay of the whole
/// log, a warning on stderr otherwise.
fn stray_rows(
    selection: &Selection,
    stray: &[log::Problem],
    source: &crate::logs::LogStore,
) -> Vec<Value> {
    match selection {
        Selection::All => stray
            .iter()
            .map(
                |p| json!({"line": p.line, "field": p.field, "expected": p.expected, "got": p.got}),
            )
            .collect(),
        _ => {
            for p in stray {
                eprintln!(
                    "warning: {}, line {}: a row of no run ({})",
                    source.path().display(),
                    p.line,
                    p.got
                );
            }
            Vec::new()
        }
    }
}

pub fn run(args: ReplayArgs) -> Result<Exit, CliError> {
    if let Some(ReplayCommand::Diff(diff_args)) = &args.command {
        return diff(diff_args);
    }
    let selection = match (&args.run, &args.session, &args.trace) {
        (Some(id), _, _) => Selection::Run(id.clone()),
        (_, Some(sid), _) => Selection::Session(sid.clone()),
        (_, _, Some(trace)) => Selection::Trace(trace.to_ascii_lowercase()),
        _ => Selection::All,
    };
    let only = match &selection {
        Selection::Run(id) => Some(log::Only::Run(id)),
        Selection::Session(sid) => Some(log::Only::Session(sid)),
        _ => None,
    };
    let (source, mut log) =
        open_log(&args.store, args.effects.as_deref(), only).map_err(unusable)?;
    let mut runs = std::mem::take(&mut log.runs);
    if !args.trust.is_empty() {
        let trust = crate::chain::Trust::load(&args.trust).map_err(unusable)?;
        replay::check_signatures(&mut runs, &trust);
    }
    if args.verify {
        return verify(&args, &source, runs, &log.stray, &selection);
    }
    // Every path that executes a recorded run holds it to this ceiling.
    let ceiling = args.limits.to_override().apply(Default::default());
    let replayed = match &args.live {
        None => {
            let mut replayer = replay::Replayer::new().with_ceiling(ceiling);
            if let Some(jobs) = args.jobs {
                replayer = replayer.with_lanes(jobs.into());
            }
            replayer.replay(runs, &selection)
        }
        Some(dir) => replay::live::LiveReplayer::new(dir)
            .map_err(unusable)?
            .with_ceiling(ceiling)
            .replay(runs, &selection),
    };
    let reports =
        replayed.map_err(|e| unusable(e).with_class(super::CliClass::NothingSelected.as_str()))?;
    let stray = stray_rows(&selection, &log.stray, &source);
    let parity = reports.iter().all(RunReport::parity) && stray.is_empty();
    let text = if args.json {
        let value = match selection {
            Selection::Run(id) => {
                // The form's own report; a session form not replayed because
                // an earlier form diverged names that form's report.
                let own = reports
                    .iter()
                    .find(|r| r.run_id == *id)
                    .unwrap_or(&reports[0]);
                let mut value = own.to_json();
                if let Some(earlier) = reports.iter().find(|r| r.run_id != *id) {
                    value["earlierDivergence"] = earlier.to_json();
                }
                value
            }
            _ => {
                let mut set = json!({
                    "kind": replay::REPLAY_SET_KIND,
                    "effectsPath": source.path().display().to_string(),
                    "parity": parity,
                    "runCount": reports.len(),
                    "checkedCalls": reports.iter().map(|r| r.checked_calls).sum::<usize>(),
                    "runs": reports.iter().map(RunReport::to_json).collect::<Vec<_>>(),
                });
                if !stray.is_empty() {
                    set["strayRows"] = Value::Array(stray);
                }
                set
            }
        };
        format!("{}\n", canonical::to_pretty_sorted(&value))
    } else {
        readable(&reports, &stray)
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(Exit::accepted_if(parity))
}

fn readable(reports: &[RunReport], stray: &[Value]) -> String {
    let mut out = String::new();
    for r in reports {
        let session = r
            .session_id
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let line = match &r.divergence {
            None if r.replayed => {
                format!(
                    "{}{session}: parity{} · {} call(s) checked",
                    r.run_id,
                    if r.chained {
                        ""
                    } else {
                        " · unchained (an older log: its rows are not linked, so a removed or \
                     reordered row would not show)"
                    },
                    r.checked_calls
                ) + if r.recovered {
                    " · recovered (its process died; recovery closed the run after its last recorded call)"
                } else {
                    ""
                }
            }
            None => format!(
                "{}{session}: not replayed (an earlier run of its session diverged)",
                r.run_id
            ),
            Some(d) => format!(
                "{}{session}: DIVERGED{} · {}: expected {}, got {} · {} call(s) checked before",
                r.run_id,
                d.seq.map(|s| format!(" at call {s}")).unwrap_or_default(),
                d.field,
                d.expected,
                d.got,
                r.checked_calls
            ),
        };
        // Ids and values come from the log, which programs wrote into.
        out.push_str(&crate::terminal::field(&line));
        out.push('\n');
    }
    for s in stray {
        let line = format!(
            "line {}: a row of no run · {}: expected {}, got {}",
            s["line"], s["field"], s["expected"], s["got"]
        );
        out.push_str(&crate::terminal::field(&line));
        out.push('\n');
    }
    let diverged = reports.iter().filter(|r| !r.parity()).count();
    let unchained = reports.iter().filter(|r| !r.chained).count();
    out.push_str(&format!(
        "{} run(s): {} parity, {} not{}\n",
        reports.len(),
        reports.len() - diverged,
        diverged,
        if unchained > 0 {
            format!(", {unchained} unchained")
        } else {
            String::new()
        }
    ));
    out
}

fn problem_json(p: &log::Problem) -> Value {
    json!({"line": p.line, "seq": p.seq, "field": p.field, "expected": p.expected, "got": p.got})
}

/// `tusk replay --verify`: the log's own checks, nothing executed. Exit 0
/// when every selected run checks out (unchained runs included: older logs
/// hold no chain to check), 1 otherwise, 2 when the selection names nothing.
fn verify(
    args: &ReplayArgs,
    source: &crate::logs::LogStore,
    runs: Vec<log::RecordedRun>,
    stray: &[log::Problem],
    selection: &Selection,
) -> Result<Exit, CliError> {
    let selected: Vec<&log::RecordedRun> = runs.iter().filter(|r| selection.matches(r)).collect();
    if selected.is_empty() && !matches!(selection, Selection::All) {
        return Err(unusable("the selection names no run in the log"));
    }
    let stray: Vec<&log::Problem> = match selection {
        Selection::All => stray.iter().collect(),
        _ => Vec::new(),
    };
    let verified = selected.iter().all(|r| r.problem.is_none()) && stray.is_empty();
    let text = if args.json {
        let value = json!({
            "kind": replay::VERIFY_KIND,
            "effectsPath": source.path().display().to_string(),
            "verified": verified,
            "runCount": selected.len(),
            "runs": selected.iter().map(|r| {
                let mut out = json!({"runId": r.run_id, "chained": r.chained, "ok": r.problem.is_none()});
                if let Some(sid) = &r.session_id {
                    out["sessionId"] = json!(sid);
                }
                if let Some(key) = &r.signed_by {
                    out["signedBy"] = json!(key);
                }
                if let Some(p) = &r.problem {
                    out["problem"] = problem_json(p);
                }
                out
            }).collect::<Vec<_>>(),
            "strayRows": stray.iter().map(|p| problem_json(p)).collect::<Vec<_>>(),
        });
        format!("{}\n", canonical::to_pretty_sorted(&value))
    } else {
        let mut out = String::new();
        for r in &selected {
            let line = match (&r.problem, r.chained) {
                (Some(p), _) => format!(
                    "{}: FAILED at line {} · {}: expected {}, got {}",
                    r.run_id, p.line, p.field, p.expected, p.got
                ),
                (None, true) => format!(
                    "{}: chain verified{}",
                    r.run_id,
                    r.signed_by
                        .as_deref()
                        .map(|k| format!(" · signed by {k}"))
                        .unwrap_or_default()
                ),
                (None, false) => {
                    format!("{}: unchained (an older log) · digests verified", r.run_id)
                }
            };
            out.push_str(&crate::terminal::field(&line));
            out.push('\n');
        }
        for p in &stray {
            let line = format!(
                "line {}: a row of no run · {}: expected {}, got {}",
                p.line, p.field, p.expected, p.got
            );
            out.push_str(&crate::terminal::field(&line));
            out.push('\n');
        }
        let broken = selected.iter().filter(|r| r.problem.is_some()).count();
        let unchained = selected
            .iter()
            .filter(|r| r.problem.is_none() && !r.chained)
            .count();
        out.push_str(&format!(
            "{} run(s): {} verified, {} unchained, {} failed\n",
            selected.len(),
            selected.len() - broken - unchained,
            unchained,
            broken
        ));
        out
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(Exit::accepted_if(verified))
}
