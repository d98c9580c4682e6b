//! `tusk man [DIR]`: the manual, generated from the command line's own
//! definitions. Without DIR, `tusk.1` goes to stdout; with DIR, `tusk.1` and
//! one page per subcommand (`tusk-issue-add.1`, …) are written there.

use super::{CliError, Exit};
use clap::{Args, CommandFactory};
use std::path::PathBuf;

/// `tusk man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write tusk.1 and one page per subcommand into DIR (created if missing).
    pub dir: Option<PathBuf>,
}

/// How many pages `generate_to` writes: the command and every visible
/// subcommand, at every depth.
fn pages(cmd: &clap::Command) -> usize {
    1 + cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(pages)
        .sum::<usize>()
}

/// Prints or writes the pages (exit 1 on an I/O error).
pub fn run(args: &ManArgs) -> Result<Exit, CliError> {
    // `help` is not a page of its own (clap_mangen::generate_to drops it too).
    let cmd = super::Cli::command().disable_help_subcommand(true);
    match &args.dir {
        None => {
            let mut page = Vec::new();
            if let Err(e) = clap_mangen::Man::new(cmd).render(&mut page) {
                return Err(CliError::refused("tusk man", e));
            }
            super::write_stdout(&page)?;
            Ok(Exit::Accepted)
        }
        Some(dir) => {
            let count = pages(&cmd);
            match std::fs::create_dir_all(dir).and_then(|()| clap_mangen::generate_to(cmd, dir)) {
                Ok(()) => {
                    eprintln!("tusk man: {count} page(s) in {}", dir.display());
                    Ok(Exit::Accepted)
                }
                Err(e) => Err(CliError::refused(
                    "tusk man",
                    format_args!("cannot write the pages to {}: {e}", dir.display()),
                )),
            }
        }
    }
}
