//! Every mutation attributed, the command line included (issue 57, point
//! 2): a mutating command (`tusk issue close`, `tusk dep add`, …) is
//! recorded as a one-call run of its own (`command` in the header: its
//! command line; its actor; its arguments as a program would pass them) in
//! the effect log and the trajectory, chained like any run, and `tusk
//! replay` replays it. The command keeps its own output (premath's bytes for
//! the twin commands); reads, and refused commands (nothing changed), stay
//! unrecorded.

use crate::issues::store::IssueStore;
use crate::issues::{Report, StoreError};
use serde_json::Value;

/// The command's name (`issue close`), set as the command line is parsed.
pub static COMMAND: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The command as the header records it: `tusk` and the command's name
/// (`tusk issue close`). Its values are the effect row's arguments, which
/// the policy's redaction rules cover; a command line would repeat them in
/// clear.
pub fn command_line() -> String {
    match COMMAND.get() {
        Some(name) => format!("tusk {name}"),
        None => "tusk".to_string(),
    }
}

/// A command's arguments as a program would pass them: the serialized
/// arguments, `null` members left out.
pub fn args_of<T: serde::Serialize>(args: &T) -> Value {
    let mut v = serde_json::to_value(args).unwrap_or(Value::Null);
    drop_nulls(&mut v);
    v
}

fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// Records a command's call (made already, `result` its report) as a
/// one-call run in the logs beside `store`: the database's tables, else
/// `.premath/` in the working directory, as `tusk eval` uses them. Only a
/// change is recorded: a refused command, or one the store's state kept from
/// running (`Err`), changed nothing and its caller was told.
///
/// # Errors
/// The record could not be written (the change stands; the caller says so).
pub fn record(
    store: &IssueStore,
    action: &str,
    args: Value,
    result: &Result<Report, StoreError>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    let Some(report) = result.as_ref().ok().filter(|r| r.is_accepted()) else {
        return Ok(());
    };
    let mut paths = crate::host::HostPaths::under(std::path::Path::new("."));
    paths.issues = store.clone();
    if let IssueStore::Postgres(pg) = store {
        paths.effects = crate::logs::LogStore::postgres(pg.clone(), crate::pg::LogTable::Effects);
        paths.trajectory =
            crate::logs::LogStore::postgres(pg.clone(), crate::pg::LogTable::Trajectory);
    }
    let policy =
        crate::runtime::load_policy(&crate::host::PolicyFile::Default(paths.policy.clone()))
            .map_err(|e| e.to_string())?;
    let config = crate::runtime::HostConfig {
        paths,
        policy,
        registry: crate::runtime::builtin_registry(),
        limits: Default::default(),
        signer: None,
    };
    let host = crate::runtime::Host::new(config);
    let preset = crate::runtime::Preset {
        action: action.to_string(),
        args,
        outcome: crate::host::ActionOutcome {
            failure_classes: report.failure_classes.clone(),
            payload: report.clone().into_value(),
            witness_refs: Vec::new(),
        },
        acted_at: now,
    };
    let run = host
        .record_command(&command_line(), preset)
        .map_err(|e| e.to_string())?;
    match run.json.get("error") {
        Some(e) if e["class"] == crate::host::registry::CLASS_EXECUTION_ERROR => {
            Err(e["message"].as_str().unwrap_or_default().to_string())
        }
        _ => Ok(()),
    }
}
