//! `tusk runs`: the recorded runs, newest first, filtered (issue 60: what
//! failed, whose, on which issue, since when) — the dashboard's runs list
//! on the command line, with the same filters (`observe::run_query`).
//! Exit 0 with the list (empty or not), 2 when a filter is not one the
//! flag takes or the log cannot be read.

use super::store::StoreFlag;
use super::{CliError, Exit};
use crate::observe::run_query::RunQuery;
use crate::pg::LogTable;
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunResult {
    Accepted,
    Rejected,
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    /// Only runs that ended so (a run still going has neither)
    #[arg(long, value_enum, conflicts_with = "failed")]
    pub result: Option<RunResult>,
    /// Only runs that ended rejected (`--result rejected`)
    #[arg(long)]
    pub failed: bool,
    /// Only runs of this principal (an MCP token's, or the command line's actor)
    #[arg(long, value_name = "NAME")]
    pub principal: Option<String>,
    /// Only runs that touched this issue (the run's issue, or any call's arguments)
    #[arg(long, value_name = "ID")]
    pub issue: Option<String>,
    /// Only runs of this session (an MCP session's or a REPL's id)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only runs that started since WHEN: an RFC 3339 instant, or a span back from now (90s, 30m, 2h, 7d, 2w)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// At most this many runs
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub limit: u64,
    /// Go on from this cursor (printed after a full page): older runs
    #[arg(long, value_name = "POS")]
    pub before: Option<u64>,
    /// Print the list as JSON (the dashboard's `/runs?format=json` items)
    #[arg(long)]
    pub json: bool,
    /// Effect log (default .premath/host_effects.jsonl)
    #[arg(long, value_name = "FILE")]
    pub effects: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreFlag,
}

fn unusable(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk runs", message)
}

pub fn run(args: RunsArgs) -> Result<Exit, CliError> {
    let defaults = crate::host::HostPaths::under(Path::new("."));
    if let Some(file) = args.effects.as_deref().filter(|f| !f.exists()) {
        return Err(unusable(format!(
            "--effects {}: no such file; name an effect log, or leave the flag out for {}",
            file.display(),
            defaults.effects.path().display()
        )));
    }
    let log = args
        .store
        .log(
            LogTable::Effects,
            args.effects.as_deref(),
            defaults.effects.path(),
        )
        .map_err(unusable)?;
    let result = match (args.result, args.failed) {
        (_, true) | (Some(RunResult::Rejected), _) => Some("rejected".to_string()),
        (Some(RunResult::Accepted), _) => Some("accepted".to_string()),
        (None, false) => None,
    };
    let query = RunQuery::new(
        result,
        args.principal,
        args.issue,
        args.session,
        args.since,
        chrono::Utc::now(),
    )
    .map_err(|e| unusable(format!("--{e}")))?;
    let found = query
        .find(&log, args.before, args.limit as usize)
        .map_err(unusable)?;
    let path = log.path().display().to_string();
    if args.json {
        let out = json!({
            "kind": "tusk.runs.v0",
            "effectsPath": path,
            "filter": query.to_json(),
            "items": found.items,
            "next": found.next,
        });
        super::write_stdout(
            format!(
                "{}\n",
                serde_json::to_string_pretty(&out).unwrap_or_default()
            )
            .as_bytes(),
        )?;
        return Ok(Exit::Accepted);
    }
    let mut text = String::new();
    for item in &found.items {
        text.push_str(&line_of(item));
        text.push('\n');
    }
    let runs = found.items.iter().filter(|i| i["kind"] == "run").count();
    text.push_str(&format!("{runs} run(s) from {path}"));
    if let Some(next) = found.next {
        text.push_str(&format!(
            "; older: tusk runs --before {next}{}",
            query
                .params()
                .iter()
                .map(|(k, v)| format!(" --{k} {}", crate::observe::shell_word(v)))
                .collect::<String>()
        ));
    }
    text.push('\n');
    super::write_stdout(text.as_bytes())?;
    Ok(Exit::Accepted)
}

/// One run on one line: id, start, how it ended (and why), calls, time,
/// principal, issue, the program's first line.
fn line_of(item: &Value) -> String {
    let s = |v: &Value| crate::terminal::field(v.as_str().unwrap_or("")).into_owned();
    if item["kind"] == "error" {
        return format!("bad row at {}: {}", item["pos"], s(&item["message"]));
    }
    let ended = match item["result"].as_str() {
        Some("rejected") => {
            let classes: Vec<&str> = item["failureClasses"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            format!("rejected ({})", crate::terminal::field(&classes.join(", ")))
        }
        Some(r) => s(&Value::String(r.to_string())),
        None => "running".into(),
    };
    let mut cells = vec![
        s(&item["runId"]),
        s(&item["startedAt"]),
        ended,
        format!("{} call(s)", item["callCount"].as_u64().unwrap_or(0)),
    ];
    if let Some(ms) = item["durationMs"].as_i64() {
        cells.push(format!("{ms} ms"));
    }
    for key in ["principal", "issueId"] {
        if let Some(v) = item[key].as_str() {
            cells.push(s(&Value::String(v.to_string())));
        }
    }
    cells.push(s(&item["programHead"]));
    cells.join("  ")
}
