//! The `tusk` command line. Each subcommand group lives in its own file and
//! returns the process exit code; `main.rs` only calls [`run`].

use clap::{Parser, Subcommand};

pub mod issue;

/// tusk: bounded Scheme programs over a shared issue queue.
#[derive(Parser, Debug)]
#[command(name = "tusk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The shared issue queue: views, mutations and leases.
    Issue(issue::IssueArgs),
    /// Dependency edges between issues.
    Dep(issue::DepArgs),
}

/// Parses the command line and runs it; returns the exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Command::Issue(args) => issue::run_issue(args),
        Command::Dep(args) => issue::run_dep(args),
    }
}
