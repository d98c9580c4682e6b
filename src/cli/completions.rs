//! `tusk completions SHELL`: a completion script for bash, zsh, fish, elvish
//! or PowerShell, generated from the command line's own definitions.

use super::{CliError, Exit};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// `tusk completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the script (exit 1 when stdout fails).
pub fn run(args: &CompletionsArgs) -> Result<Exit, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::Cli::command(), "tusk", &mut script);
    super::write_stdout(&script)?;
    Ok(Exit::Accepted)
}
