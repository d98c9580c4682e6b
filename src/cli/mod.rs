//! The `tusk` command line. Each subcommand group lives in its own file and
//! returns the process exit code; `main.rs` only calls [`run`].

use clap::{Parser, Subcommand};

/// tusk: bounded Scheme programs over a shared issue queue.
#[derive(Parser, Debug)]
#[command(name = "tusk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {}

/// Parses the command line and runs it; returns the exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    match cli.command {}
}
