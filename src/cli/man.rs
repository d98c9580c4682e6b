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

/// One argument as a synopsis shows it: `--status STATUS`, `[-C DIR]`,
/// `ID`, `[PATH]...`.
fn synopsis_arg(arg: &clap::Arg) -> String {
    use clap::ArgAction;
    let value = arg
        .get_value_names()
        .map(|names| names.join(" "))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let takes_value = !matches!(
        arg.get_action(),
        ArgAction::SetTrue
            | ArgAction::SetFalse
            | ArgAction::Count
            | ArgAction::Help
            | ArgAction::HelpShort
            | ArgAction::HelpLong
            | ArgAction::Version
    );
    let repeated = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count);
    let mut text = match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) => format!("-{short}|--{long}"),
        (Some(short), None) => format!("-{short}"),
        (None, Some(long)) => format!("--{long}"),
        (None, None) => value.clone(),
    };
    if !arg.is_positional() && takes_value {
        text = format!("{text} {value}");
    }
    let text = if arg.is_required_set() {
        text
    } else {
        format!("[{text}]")
    };
    if repeated {
        format!("{text}...")
    } else {
        text
    }
}

/// `cmd`'s synopsis with every flag's value name (clap_mangen's own leaves
/// them out: `[-C ]`), options first, then positionals and the subcommand.
fn synopsis(path: &str, cmd: &clap::Command) -> String {
    let visible = |a: &&clap::Arg| !a.is_hide_set();
    let mut words = vec![path.to_string()];
    words.extend(
        cmd.get_arguments()
            .filter(visible)
            .filter(|a| !a.is_positional())
            .map(synopsis_arg),
    );
    words.extend(cmd.get_positionals().filter(visible).map(synopsis_arg));
    if cmd.has_subcommands() {
        words.push("COMMAND".into());
    }
    words.join(" ")
}

/// `cmd` and its subcommands, each with [`synopsis`] as its usage.
fn with_synopses(cmd: clap::Command, path: &str) -> clap::Command {
    let usage = synopsis(path, &cmd);
    cmd.override_usage(usage).mut_subcommands(|sub| {
        let name = format!("{path} {}", sub.get_name());
        with_synopses(sub, &name)
    })
}

/// Prints or writes the pages (exit 1 on an I/O error).
pub fn run(args: &ManArgs) -> Result<Exit, CliError> {
    // `help` is not a page of its own (clap_mangen::generate_to drops it too).
    let cmd = super::Cli::command().disable_help_subcommand(true);
    // Global flags are defined once and shown on every page: build first so
    // they reach the subcommands before the synopses are written.
    let mut cmd = cmd;
    cmd.build();
    let cmd = with_synopses(cmd, "tusk");
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
