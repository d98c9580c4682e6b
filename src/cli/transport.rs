//! `tusk transport-dispatch`: premath's lease transport on the command line
//! (its flags, JSON and text). Exit 0 for an answer, accepted or rejected;
//! 2 for a missing action or a payload that is not JSON.

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::issues::store::LockOptions;
use crate::issues::transport;
use clap::Args;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// `tusk transport-dispatch`.
#[derive(Args, Debug)]
pub struct TransportArgs {
    /// The action: issue.claim, issue.claim_next, issue.lease_renew, issue.lease_release.
    #[arg(long)]
    pub action: String,
    /// The action's camelCase JSON payload (`issuesPath` names the store).
    #[arg(long, default_value = "{}")]
    pub payload: String,
    /// Print the JSON answer.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// How long the action waits for the store lock before `lease_mutation_lock_busy`.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub lock_timeout_ms: u64,
}

/// Runs `tusk transport-dispatch`.
pub fn run(args: &TransportArgs) -> Result<Exit, CliError> {
    let action = args.action.trim();
    if action.is_empty() {
        return Err(CliError::unusable("error", "--action is required"));
    }
    let payload: Value = serde_json::from_str(&args.payload).map_err(|e| {
        CliError::unusable("error", format_args!("failed to parse --payload JSON: {e}"))
    })?;
    let open = |path: Option<&str>| {
        args.store.issues(
            path.map(Path::new),
            Path::new(crate::issues::store::DEFAULT_ISSUES_PATH),
        )
    };
    let lock = LockOptions {
        timeout: Duration::from_millis(args.lock_timeout_ms),
    };
    let answer = transport::dispatch(action, &payload, open, lock, chrono::Utc::now());
    if args.json {
        println!("{}", to_pretty_sorted(&answer));
    } else {
        let s = |k: &str, default: &str| answer[k].as_str().unwrap_or(default).to_string();
        println!("premath transport-dispatch");
        println!("  Action: {action}");
        println!("  Action ID: {}", s("actionId", "<none>"));
        println!("  Result: {}", s("result", "unknown"));
        println!("  Semantic digest: {}", s("semanticDigest", "<none>"));
    }
    Ok(Exit::Accepted)
}
