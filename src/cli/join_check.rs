//! `tusk harness-join-check` and `tusk conformance harness-typestate`.

use super::{CliError, Exit};
use crate::canonical;
use crate::typestate::{self, conformance};
use clap::{Args, Subcommand};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Check one turn's tool-calling evidence for typestate join closure.
#[derive(Args, Debug)]
pub struct JoinCheckArgs {
    /// The input JSON object (`{"evidence": …, …Constraints}`); `-` reads stdin.
    #[arg(long)]
    pub input: PathBuf,
    /// Print the complete JSON output instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Run a conformance vector suite.
#[derive(Subcommand, Debug)]
pub enum ConformanceSuite {
    /// Run every harness-typestate vector of DIR (manifest.json or directory walk).
    HarnessTypestate {
        /// A directory in the shared vector layout.
        dir: PathBuf,
    },
}

/// Exit 0 for accepted and rejected verdicts alike; 2 when the input is unusable.
pub fn run_join_check(args: &JoinCheckArgs) -> Result<Exit, CliError> {
    let input = read_input(&args.input).map_err(invalid)?;
    let verdict = typestate::check(&input).map_err(invalid)?;
    if args.json {
        println!("{}", canonical::to_pretty_sorted(&verdict.output));
    } else {
        println!(
            "harness-join-check: {}",
            if verdict.accepted {
                "accepted"
            } else {
                "rejected"
            }
        );
        println!("joinClosed: {}", verdict.join_closed);
        if verdict.failure_classes.is_empty() {
            println!("failureClasses: (none)");
        } else {
            println!("failureClasses: {}", verdict.failure_classes.join(", "));
        }
        println!("joinSetDigest: {}", verdict.join_set_digest);
    }
    Ok(Exit::Accepted)
}

fn invalid(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("harness_join_check_invalid", message)
        .with_class("harness_join_check_invalid")
}

fn read_input(path: &Path) -> Result<Value, String> {
    let text = if path.as_os_str() == "-" {
        let bytes = crate::files::read_stdin(crate::files::INPUT_MAX)
            .map_err(|e| format!("input: cannot read stdin: {e}"))?;
        String::from_utf8(bytes).map_err(|e| format!("input: stdin is not UTF-8: {e}"))?
    } else {
        crate::files::read_to_string(path, crate::files::INPUT_MAX)
            .map_err(|e| format!("input: cannot read {}: {e}", path.display()))?
    };
    serde_json::from_str(&text).map_err(|e| format!("input: not valid JSON: {e}"))
}

/// Prints one line per vector and a final `N passed, N failed`; exit 0 iff all
/// pass, 1 if any fails, 2 if the suite cannot be read or is empty.
pub fn run_conformance(suite: &ConformanceSuite) -> Result<Exit, CliError> {
    let ConformanceSuite::HarnessTypestate { dir } = suite;
    let outcomes = conformance::run_suite(dir).map_err(|e| CliError::unusable("conformance", e))?;
    if outcomes.is_empty() {
        return Err(CliError::unusable(
            "conformance",
            format_args!("no vectors found in {}", dir.display()),
        ));
    }
    let mut failed = 0;
    for o in &outcomes {
        if o.passed() {
            println!("PASS {}", o.id);
        } else {
            failed += 1;
            println!("FAIL {}: {}", o.id, o.problems.join("; "));
        }
    }
    println!("{} passed, {} failed", outcomes.len() - failed, failed);
    Ok(Exit::accepted_if(failed == 0))
}
