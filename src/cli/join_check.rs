//! `tusk harness-join-check` and `tusk conformance harness-typestate`.

use crate::canonical;
use crate::typestate::{self, conformance};
use clap::{Args, Subcommand};
use serde_json::Value;
use std::io::Read as _;
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
pub fn run_join_check(args: &JoinCheckArgs) -> i32 {
    let input = match read_input(&args.input) {
        Ok(v) => v,
        Err(e) => return invalid(&e),
    };
    let verdict = match typestate::check(&input) {
        Ok(v) => v,
        Err(e) => return invalid(&e.to_string()),
    };
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
    0
}

fn invalid(message: &str) -> i32 {
    eprintln!("harness_join_check_invalid: {message}");
    2
}

fn read_input(path: &Path) -> Result<Value, String> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("input: cannot read stdin: {e}"))?;
        text
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("input: cannot read {}: {e}", path.display()))?
    };
    serde_json::from_str(&text).map_err(|e| format!("input: not valid JSON: {e}"))
}

/// Prints one line per vector and a final `N passed, N failed`; exit 0 iff all
/// pass, 1 if any fails, 2 if the suite cannot be read or is empty.
pub fn run_conformance(suite: &ConformanceSuite) -> i32 {
    let ConformanceSuite::HarnessTypestate { dir } = suite;
    let outcomes = match conformance::run_suite(dir) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("conformance: {e}");
            return 2;
        }
    };
    if outcomes.is_empty() {
        eprintln!("conformance: no vectors found in {}", dir.display());
        return 2;
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
    i32::from(failed > 0)
}
