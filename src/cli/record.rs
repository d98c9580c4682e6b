//! Every mutation attributed, the command line included (issue 57, point
//! 2): a mutating command (`tusk issue close`, `tusk dep add`, …) is
//! recorded as a one-call run of its own (`command` in the header: its
//! command line; its actor; its arguments as a program would pass them) in
//! the effect log and the trajectory, chained like any run, and `tusk
//! replay` replays it. The command keeps its own output (premath's bytes for
//! the twin commands); reads stay unrecorded. The call is made inside its
//! run (issue 61): a change is journaled before it is made, and a command
//! whose run cannot be written changes nothing.

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

/// A command's mutation, made when its run asks for it.
pub type Mutation = Box<dyn FnOnce() -> Result<Report, StoreError> + Send>;

/// Why a command's run could not be recorded (nothing changed): the
/// store's class when it is the shared store that cannot be used.
#[derive(Debug)]
pub struct NotRecorded {
    pub class: Option<&'static str>,
    pub message: String,
}

impl NotRecorded {
    fn other(message: impl Into<String>) -> Self {
        NotRecorded {
            class: None,
            message: message.into(),
        }
    }
}

/// Makes a command's call inside a one-call run in the logs beside `store`
/// (the database's tables, else `.premath/` in the working directory, as
/// `tusk eval` uses them): the header is written, then `mutate` runs as the
/// run's call (journaled on the file store, issue 61), then its rows and
/// the footer. Refused and failed calls are recorded too: the log says who
/// tried what. A mutation of a file store that does not exist, other than
/// one adding an issue, can change nothing: it runs unrecorded, and creates
/// nothing (not even the logs).
///
/// # Errors
/// The run could not be recorded before the call (a policy that cannot be
/// read, a log that cannot be written): `mutate` did not run, nothing
/// changed.
pub fn run_recorded(
    store: &IssueStore,
    action: &str,
    args: Value,
    now: chrono::DateTime<chrono::Utc>,
    mutate: Mutation,
) -> Result<Result<Report, StoreError>, NotRecorded> {
    if let IssueStore::Jsonl(path) = store {
        if !path.exists() && !matches!(action, "issue.add" | "issue.discover") {
            return Ok(mutate());
        }
    }
    let mut paths = crate::host::HostPaths::under(std::path::Path::new("."));
    paths.issues = store.clone();
    if let IssueStore::Postgres(pg) = store {
        paths.effects = crate::logs::LogStore::postgres(pg.clone(), crate::pg::LogTable::Effects);
        paths.trajectory =
            crate::logs::LogStore::postgres(pg.clone(), crate::pg::LogTable::Trajectory);
    }
    let policy =
        crate::runtime::load_policy(&crate::host::PolicyFile::Default(paths.policy.clone()))
            .map_err(|e| NotRecorded::other(e.to_string()))?;
    let config = crate::runtime::HostConfig {
        paths,
        policy,
        registry: crate::runtime::builtin_registry(),
        limits: Default::default(),
        signer: None,
    };
    let host = crate::runtime::Host::new(config);
    let made: std::sync::Arc<std::sync::Mutex<Option<Result<Report, StoreError>>>> =
        Default::default();
    let cell = made.clone();
    let make = move || {
        let result = mutate();
        let outcome = match &result {
            Ok(report) => Ok(crate::host::ActionOutcome {
                failure_classes: report.failure_classes.clone(),
                payload: report.clone().into_value(),
                witness_refs: Vec::new(),
            }),
            Err(e) => Err(crate::host::ActionError::new(e.class(), e.to_string())),
        };
        *cell.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        (outcome, now)
    };
    let preset = crate::runtime::Preset {
        action: action.to_string(),
        args,
        make: std::sync::Arc::new(std::sync::Mutex::new(Some(Box::new(make)))),
    };
    let run = host.record_command(&command_line(), preset);
    let result = made.lock().unwrap_or_else(|e| e.into_inner()).take();
    match (result, run) {
        (Some(result), Ok(run)) => {
            if let Some(e) = run.json.get("error").filter(|e| {
                e["class"] == crate::host::registry::CLASS_EXECUTION_ERROR && result.is_ok()
            }) {
                eprintln!(
                    "tusk: {action}: the change was made, but its run could not be completed in the log: {}",
                    e["message"].as_str().unwrap_or_default()
                );
            }
            Ok(result)
        }
        (Some(result), Err(e)) => {
            eprintln!("tusk: {action}: the change was made, but its run could not be completed in the log: {e}");
            Ok(result)
        }
        (None, Err(e)) => Err(NotRecorded {
            class: Some(e.class()),
            message: e.to_string(),
        }),
        (None, Ok(run)) => Err(NotRecorded::other(
            run.json
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("the run ended before its call was made"),
        )),
    }
}
