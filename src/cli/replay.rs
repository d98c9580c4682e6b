//! `tusk replay`: re-run recorded runs against their recorded envelopes
//! (host-api §7), or with `--live DIR` against a copy of a store snapshot.
//! Exit 0 parity, 1 divergence (or a log that fails its own integrity
//! checks), 2 unreadable input, an unusable snapshot or a selection that names
//! nothing.

use crate::canonical;
use crate::replay::{self, log, RunReport, Selection};
use clap::Args;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("select").args(["run", "session", "all"])))]
pub struct ReplayArgs {
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
    /// The highest limits a recorded run may ask for (defaults: `tusk eval`'s).
    /// A run whose header asks for more is a `log.limits` divergence and is
    /// not executed; raise a flag to replay it.
    #[command(flatten)]
    pub limits: crate::cli::eval::LimitFlags,
}

fn unusable(message: impl std::fmt::Display) -> i32 {
    eprintln!("tusk replay: {message}");
    2
}

pub fn run(args: ReplayArgs) -> i32 {
    let default = crate::host::HostPaths::under(std::path::Path::new(".")).effects;
    let source = match args.store.log(
        crate::pg::LogTable::Effects,
        args.effects.as_deref(),
        default.path(),
    ) {
        Ok(source) => source,
        Err(e) => return unusable(e),
    };
    let mut log = match log::read_store(&source) {
        Ok(log) => log,
        Err(e) => return unusable(e),
    };
    for warning in &log.warnings {
        eprintln!("{warning}");
    }
    let selection = match (&args.run, &args.session) {
        (Some(id), _) => Selection::Run(id.clone()),
        (_, Some(sid)) => Selection::Session(sid.clone()),
        _ => Selection::All,
    };
    let mut runs = std::mem::take(&mut log.runs);
    let ceiling = args.limits.to_override().apply(Default::default());
    replay::enforce_ceiling(&mut runs, &ceiling);
    let replayed = match &args.live {
        None => replay::Replayer::new().replay(runs, &selection),
        Some(dir) => match replay::live::LiveReplayer::new(dir) {
            Ok(mut live) => live.replay(runs, &selection),
            Err(e) => return unusable(e),
        },
    };
    let reports = match replayed {
        Ok(r) => r,
        Err(e) => return unusable(e),
    };
    // Rows that belong to no run only concern a replay of the whole log.
    let stray: Vec<Value> = match selection {
        Selection::All => log
            .stray
            .iter()
            .map(
                |p| json!({"line": p.line, "field": p.field, "expected": p.expected, "got": p.got}),
            )
            .collect(),
        _ => {
            for p in &log.stray {
                eprintln!(
                    "warning: {}, line {}: a row of no run ({})",
                    source.path().display(),
                    p.line,
                    p.got
                );
            }
            Vec::new()
        }
    };
    let parity = reports.iter().all(RunReport::parity) && stray.is_empty();
    let text = if args.json {
        let value = match selection {
            Selection::Run(_) => reports[0].to_json(),
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
    if parity {
        0
    } else {
        1
    }
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
            None if r.replayed => format!(
                "{}{session}: parity · {} call(s) checked",
                r.run_id, r.checked_calls
            ),
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
    out.push_str(&format!(
        "{} run(s): {} parity, {} not\n",
        reports.len(),
        reports.len() - diverged,
        diverged
    ));
    out
}
