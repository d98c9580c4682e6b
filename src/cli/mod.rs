//! The `tusk` command line. Each subcommand group lives in its own file and
//! returns the process exit code; `main.rs` only calls [`run`].

pub mod join_check;

use clap::{Parser, Subcommand};

/// tusk: bounded Scheme programs over a shared issue queue.
#[derive(Parser, Debug)]
#[command(name = "tusk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check one turn's tool-calling evidence for typestate join closure.
    HarnessJoinCheck(join_check::JoinCheckArgs),
    /// Run a conformance vector suite.
    Conformance {
        #[command(subcommand)]
        suite: join_check::ConformanceSuite,
    },
}

/// Parses the command line and runs it; returns the exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Command::HarnessJoinCheck(args) => join_check::run_join_check(&args),
        Command::Conformance { suite } => join_check::run_conformance(&suite),
    }
}
