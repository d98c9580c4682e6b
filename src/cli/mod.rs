//! The `tusk` command line. Each subcommand group lives in its own file and
//! returns `Result<Exit, CliError>` ([`error`]); [`run`] prints an error in
//! one place ([`report`]) and returns the process exit code; `main.rs` only
//! calls [`run`].

pub mod actions;
pub mod authority;
pub mod completions;
pub mod doctor;
pub mod error;
pub mod eval;
pub mod events;
pub mod harness;
pub mod init;
pub mod issue;
mod issue_text;
pub mod join_check;
pub mod keygen;
pub mod man;
pub mod mcp;
pub mod mcp_config;
pub mod merge_driver;
pub mod observe;
pub mod plan;
pub mod policy;
pub mod prime;
pub mod record;
pub mod repl;
pub mod replay;
pub mod runs;
pub mod scheme_eval;
pub mod store;
pub mod transport;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;

pub use error::{CliClass, CliError, Exit};

/// The version line of `tusk --version`: the package version and, when built
/// from a git checkout, the short commit (`0.1.0 (abc1234)`; see build.rs).
pub const VERSION: &str = env!("TUSK_VERSION_LINE");

/// The commit this binary was built from (short hash), `None` when it was
/// built outside a git checkout.
pub fn build_commit() -> Option<&'static str> {
    Some(env!("TUSK_GIT_COMMIT")).filter(|c| !c.is_empty())
}

/// The exit codes every command keeps (README, "Exit codes").
pub const EXIT_CODES: &str = "Exit codes:\n  0    accepted (the command did what was asked; a read found what it read)\n  1    rejected (a refused mutation, a rejected run, a finding, a store file that does not exist)\n  2    usage or environment: a bad flag or argument, unusable input, the store, policy or OS\n       unusable (nothing was done; with --json one error object on stdout names the class)\n  130  interrupted (SIGINT)";

/// The help section of the flags every command takes (`--otlp`), apart
/// from the command's own.
pub(crate) const GLOBAL_OPTIONS: &str = "Global options";

/// The help section of the flags that name the store (`--store`, `--issues`,
/// `--lock-timeout-ms`).
pub(crate) const STORE_OPTIONS: &str = "Store options";

/// tusk: bounded Scheme programs over a shared issue queue.
#[derive(Parser, Debug)]
#[command(name = "tusk", version = VERSION, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(flatten)]
    pub globals: Globals,
    #[command(subcommand)]
    pub command: Command,
}

/// The flags before (or, for `--otlp`, anywhere after) the subcommand.
#[derive(Args, Debug)]
pub struct Globals {
    /// Run as if started in DIR (every default path is under DIR/.premath).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// Export spans and metrics over OTLP to this collector (base URL, e.g.
    /// http://localhost:4318); the OTEL_EXPORTER_OTLP_* variables also turn
    /// export on. A caller's TRACEPARENT makes the work a child of its span.
    #[arg(long, value_name = "URL", global = true, help_heading = GLOBAL_OPTIONS)]
    pub otlp: Option<String>,
    /// Who acts: recorded on every run and mutation this command makes
    /// (else TUSK_ACTOR, else the git user's email in a work tree, else the
    /// OS user). Recorded, not proven: a server with tokens records its
    /// principals instead.
    #[arg(long, value_name = "NAME", global = true, help_heading = GLOBAL_OPTIONS)]
    pub actor: Option<String>,
}

/// The parser of a command line that parses: [`Cli`]'s flags and commands, each
/// command's own arguments built only when it is the one named. Building
/// clap's whole tree (about 80 commands) costs a one-shot command about a
/// third of its CPU (issue 25); help, version, usage errors, the manual and
/// the completions still come from [`Cli`] (see [`parse`]).
#[derive(Parser)]
#[command(name = "tusk", version = VERSION)]
#[group(id = "Cli")] // the matches name the same groups as Cli's
struct Quick {
    #[command(flatten)]
    globals: Globals,
    #[command(subcommand)]
    command: Deferred,
}

/// Declares [`Command`] and, from the same variants, `Deferred`: the same
/// commands with `defer`, for [`Quick`]. One list, so the two cannot drift
/// (and `quick_tree_matches_the_full_tree` checks the built trees agree).
macro_rules! commands {
    ($(#[$meta:meta])* pub enum Command { $($(#[$vmeta:meta])* $variant:ident $body:tt,)* }) => {
        $(#[$meta])*
        pub enum Command { $($(#[$vmeta])* $variant $body,)* }

        #[derive(Subcommand)]
        #[command(defer = true)]
        #[allow(dead_code)] // only its parser is used: [`Cli`] reads the matches
        enum Deferred { $($(#[$vmeta])* $variant $body,)* }
    };
}

commands! {
    #[derive(Subcommand, Debug)]
    pub enum Command {
        /// Run one bounded Scheme program against the host functions.
        ///
        /// A run is accepted when every host call it made was accepted and the
        /// program ended without an error. A rejected host call rejects the run
        /// even when the program handled it and went on; the result's
        /// `decidedBy` names the call (or the error) that decided it, and
        /// `handled: true` says the program finished having read every
        /// refusal (else `unexamined` lists the refused calls it ignored).
        /// Exit 0 accepted, 1 rejected, 2 the request could not be served
        /// (nothing ran).
        Eval(eval::EvalArgs),
        /// The host action catalogue: ids, arguments, payloads, failure classes.
        Actions(actions::ActionsArgs),
        /// Re-run recorded runs with host calls answered from the effect log.
        Replay(replay::ReplayArgs),
        /// The recorded runs, newest first: filter by result, principal, issue, session, start.
        Runs(runs::RunsArgs),
        /// Apply a dry run's plan (`tusk plan apply ID|FILE`): exactly its
        /// changes, when what its dry run read still holds.
        Plan(plan::PlanArgs),
        /// Serve the host over MCP (stdio): scheme_eval, describe_actions, sessions.
        Mcp(mcp::McpArgs),
        /// Interactive host: each top-level form is one run, definitions persist.
        Repl(repl::ReplArgs),
        /// Mutation policy: print its digest.
        Policy {
            #[command(subcommand)]
            command: policy::PolicyCommand,
        },
        /// Check one turn's tool-calling evidence for typestate join closure.
        HarnessJoinCheck(join_check::JoinCheckArgs),
        /// Session handoff artifact: write, read, bootstrap.
        HarnessSession {
            #[command(subcommand)]
            command: harness::SessionCommand,
        },
        /// Trajectory step rows: append, query.
        HarnessTrajectory {
            #[command(subcommand)]
            command: harness::TrajectoryCommand,
        },
        /// Feature ledger: write, check, next.
        HarnessFeature {
            #[command(subcommand)]
            command: harness::FeatureCommand,
        },
        /// The retry and escalation policy of a worker's step: decide, escalate.
        HarnessRetry {
            #[command(subcommand)]
            command: harness::RetryCommand,
        },
        /// Multithread throughput KPI over the trajectory.
        HarnessKpi(harness::KpiArgs),
        /// Run a conformance vector suite.
        Conformance {
            #[command(subcommand)]
            suite: join_check::ConformanceSuite,
        },
        /// Lay out `.premath/` with an issue store (migrating a legacy `.beads/` store).
        Init(init::InitArgs),
        /// The shared issue queue: views, mutations and leases.
        Issue(issue::IssueArgs),
        /// Dependency edges between issues.
        Dep(issue::DepArgs),
        /// The shared PostgreSQL store: init (schema), import, export, status.
        Store(store::StoreArgs),
        /// Three-way merge of an issue store (git's merge driver: %O %A %B %P).
        ///
        /// Record by record, keyed by id; fields from the side that changed
        /// them, the later `updated_at` when both did; labels, dependencies and
        /// comments merged as sets. The result replaces OURS; every decision
        /// is printed on stderr. Exit 0 merged, 2 an input is not a store
        /// (nothing written).
        MergeDriver(merge_driver::MergeDriverArgs),
        /// premath's lease transport: one lease action with a JSON payload, answered
        /// with premath's envelope (exit 0 accepted or rejected).
        TransportDispatch(transport::TransportArgs),
        /// premath's JSON programs: host calls with capability claims against a
        /// contract-derived allowlist, premath's result JSON; recorded as a tusk run.
        SchemeEval(scheme_eval::SchemeEvalArgs),
        /// Check this directory's set-up: store, policy, logs, sandbox, disk space.
        Doctor(doctor::DoctorArgs),
        /// A read-only web dashboard and JSON API: queue, leases, runs, replay,
        /// trajectory and KPI, dependency graphs.
        Observe(observe::ObserveArgs),
        /// A Markdown guide for agents, from the action catalogue (for AGENTS.md).
        Prime(prime::PrimeArgs),
        /// Print a shell completion script.
        Completions(completions::CompletionsArgs),
        /// Print the manual page, or write one page per command into DIR.
        Man(man::ManArgs),
        /// A new ed25519 key pair for signed effect logs (`--sign-key`, `replay --trust`).
        Keygen(keygen::KeygenArgs),
    }
}

/// Writes `bytes` to stdout; a reader that went away (`| head`) is not an error.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::refused(
            "tusk",
            format_args!("cannot write to stdout: {e}"),
        )),
    }
}

/// Prints what a command could not do, where that command has always printed
/// it (its text on stderr; under `--json` its JSON object on stdout, before
/// or after the text as the command always did), and returns the exit code.
/// The one place that prints a [`CliError`].
pub fn report(error: CliError) -> i32 {
    let code = error.code();
    match error {
        CliError::Usage(e) => {
            // As clap's own `exit` prints it (help and version on stdout).
            let _ = e.print();
        }
        CliError::Refused(failure) | CliError::Unusable(failure) => {
            // Under `--json` every failure answers in JSON: the command's own
            // object, or the CLI's error contract when it has none.
            let json = failure.json.clone().or_else(|| {
                wants_json().then(|| {
                    let class = failure.class.unwrap_or(if code == 1 {
                        CliClass::Refused.as_str()
                    } else {
                        CliClass::Unusable.as_str()
                    });
                    error::error_object(class, &failure.message)
                })
            });
            let json = json.map(|v| format!("{}\n", crate::canonical::to_pretty_sorted(&v)));
            let print_json = |json: &Option<String>| {
                if let Some(text) = json {
                    if let Err(e) = write_stdout(text.as_bytes()) {
                        report(e);
                    }
                }
            };
            if failure.json_first {
                print_json(&json);
            }
            eprint!("{}", failure.text);
            if !failure.json_first {
                print_json(&json);
            }
        }
    }
    code
}

/// Whether the command line asks for JSON (so that an error before any
/// command runs is JSON too).
fn wants_json() -> bool {
    std::env::args_os().skip(1).any(|a| a == "--json")
}

/// A command line clap refused: with `--json`, one JSON object on stdout
/// (`result`, `class`, `message`, `hint` with the nearest valid name when
/// clap has one) and exit 2; otherwise clap's own text. Help and version
/// requests print as usual.
fn usage_error(e: clap::Error) -> CliError {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) || !wants_json()
    {
        return CliError::Usage(e);
    }
    let class = match e.kind() {
        ErrorKind::InvalidSubcommand => CliClass::UnknownSubcommand.as_str(),
        ErrorKind::UnknownArgument => CliClass::UnknownFlag.as_str(),
        ErrorKind::MissingRequiredArgument | ErrorKind::MissingSubcommand => {
            CliClass::MissingArgument.as_str()
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => CliClass::InvalidValue.as_str(),
        _ => CliClass::Usage.as_str(),
    };
    let rendered = e.render().to_string();
    let mut message = rendered
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string();
    // clap names the missing arguments on the lines after the first.
    if let (ErrorKind::MissingRequiredArgument, Some(ContextValue::Strings(missing))) =
        (e.kind(), e.get(ContextKind::InvalidArg))
    {
        message = format!("{} {}", message, missing.join(", "));
    }
    let suggestion = [ContextKind::SuggestedSubcommand, ContextKind::SuggestedArg]
        .into_iter()
        .find_map(|kind| match e.get(kind) {
            Some(ContextValue::String(s)) => Some(s.clone()),
            Some(ContextValue::Strings(v)) => v.first().cloned(),
            _ => None,
        });
    let mut object = error::error_object(class, &message);
    object["usage"] = serde_json::json!(rendered.trim_end());
    object["hint"] = match suggestion {
        Some(s) => serde_json::json!(format!("did you mean `{s}`?")),
        None => serde_json::json!("see `tusk --help` (or `tusk COMMAND --help`)"),
    };
    CliError::usage_text(rendered, message)
        .with_class(class)
        .with_json(object)
}

/// The template a command wants, by the command's name: `Some(true)` for
/// one run (its template compiles no more of the prelude than that program
/// reaches), `Some(false)` for many, `None` when it runs no program.
fn template_for(command: &str) -> Option<bool> {
    match command {
        "eval" | "scheme-eval" => Some(true),
        "repl" | "mcp" | "replay" => Some(false),
        _ => None,
    }
}

/// Forks the sandbox's template before the command line is parsed, from a
/// look at its first word that is not a global option: building the
/// template's engine takes longer than anything a command does before its
/// first run, and parsing comes off that path (about half a millisecond of
/// a cold `tusk eval`). The fork comes before telemetry starts its exporter
/// (a fork copies only the forking thread). clap stays the judge of the
/// command line: a wrong guess costs an idle template, never a result.
fn start_template_early() {
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else { return };
        match arg {
            "-C" | "--otlp" => {
                args.next();
            }
            _ if arg.starts_with("-C") || arg.starts_with("--otlp=") => {}
            _ => {
                match template_for(arg) {
                    Some(true) => crate::sandbox::prestart_one_run(),
                    Some(false) => crate::sandbox::prestart(),
                    None => {}
                }
                return;
            }
        }
    }
}

/// The command line as [`Cli`] and its matches: [`quick`]'s when it parses
/// the line; otherwise (help, version, a usage error) [`Cli`]'s whole tree
/// parses it again, so what clap prints is what it always printed.
fn parse(args: &[std::ffi::OsString]) -> Result<(Cli, clap::ArgMatches), clap::Error> {
    if let Some(parsed) = quick(args) {
        return Ok(parsed);
    }
    let matches = help_command().try_get_matches_from(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    Ok((cli, matches))
}

/// The commands in `tusk --help`'s sections, in order. A command missing
/// here is listed under "Other commands" (a unit test keeps that empty).
const COMMAND_GROUPS: &[(&str, &[&str])] = &[
    (
        "Queue commands",
        &["issue", "dep", "plan", "store", "merge-driver"],
    ),
    (
        "Program commands",
        &[
            "eval",
            "repl",
            "replay",
            "runs",
            "actions",
            "prime",
            "scheme-eval",
        ],
    ),
    ("Server commands", &["mcp", "observe"]),
    (
        "Harness commands",
        &[
            "harness-session",
            "harness-trajectory",
            "harness-feature",
            "harness-retry",
            "harness-kpi",
            "harness-join-check",
            "conformance",
            "transport-dispatch",
        ],
    ),
    (
        "Setup commands",
        &[
            "init",
            "doctor",
            "policy",
            "keygen",
            "completions",
            "man",
            "help",
        ],
    ),
];

/// The commands of `cmd` in [`COMMAND_GROUPS`]' sections, as help text,
/// aligned as clap aligns them.
fn grouped_commands(cmd: &clap::Command) -> String {
    let commands: Vec<(String, String)> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            (c.get_name().to_string(), about)
        })
        .collect();
    let width = commands.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut out = String::new();
    let mut section = |title: &str, names: &mut dyn Iterator<Item = &(String, String)>| {
        let lines: Vec<String> = names
            .map(|(name, about)| format!("  {name:width$}  {about}").trim_end().to_string())
            .collect();
        if !lines.is_empty() {
            out.push_str(&format!("{title}:\n{}\n\n", lines.join("\n")));
        }
    };
    for (title, names) in COMMAND_GROUPS {
        section(
            title,
            &mut names
                .iter()
                .filter_map(|n| commands.iter().find(|(name, _)| name == n)),
        );
    }
    let grouped = |name: &str| COMMAND_GROUPS.iter().any(|(_, ns)| ns.contains(&name));
    section(
        "Other commands",
        &mut commands.iter().filter(|(n, _)| !grouped(n)),
    );
    out
}

/// [`Cli`]'s tree with the top-level help's commands in sections (queue,
/// programs, servers, harness, setup) instead of one list.
pub(crate) fn help_command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    let groups = grouped_commands(&cmd);
    let template = format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{groups}\
         Options:\n{{options}}{{after-help}}"
    );
    cmd.help_template(template)
}

/// A line that parses, parsed by [`Quick`], which builds only the named
/// command. Both parsers declare the same arguments with the same ids, so
/// [`Cli`] reads [`Quick`]'s matches.
fn quick(args: &[std::ffi::OsString]) -> Option<(Cli, clap::ArgMatches)> {
    let matches = Quick::command().try_get_matches_from(args).ok()?;
    let cli = Cli::from_arg_matches(&matches).ok()?;
    Some((cli, matches))
}

/// Parses the command line and runs it; returns the exit code.
pub fn run() -> i32 {
    start_template_early();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (cli, matches) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(e) => return report(usage_error(e)),
    };
    if let Some(dir) = &cli.globals.directory {
        if let Err(e) = std::env::set_current_dir(dir) {
            return report(CliError::unusable(
                "tusk",
                format_args!("cannot change to {}: {e}", dir.display()),
            ));
        }
    }
    if let Some(actor) = &cli.globals.actor {
        let _ = crate::host::actor::ACTOR_FLAG.set(actor.clone());
    }
    // Runs are their own spans (tusk.run, tusk.replay); every other command
    // is one span, the parent of its store mutations.
    let runs_programs = matches!(
        cli.command,
        Command::Eval(_) | Command::Repl(_) | Command::Mcp(_) | Command::Replay(_)
    );
    let long_lived = matches!(cli.command, Command::Repl(_) | Command::Mcp(_));
    let telemetry = crate::telemetry::start_for_command(cli.globals.otlp.as_deref(), long_lived);
    let _caller = crate::telemetry::parent_from_env().map(|cx| cx.attach());
    let name = command_name(&matches);
    let _ = record::COMMAND.set(name.clone());
    let span = if runs_programs {
        None
    } else {
        crate::telemetry::record::command_started(&name)
    };
    let code = match dispatch(cli.command, &matches) {
        Ok(exit) => exit.code(),
        Err(error) => report(error),
    };
    if let Some(span) = span {
        span.finish(code);
    }
    if let Some(t) = telemetry {
        t.finish();
    }
    code
}

/// `issue claim`, `harness-session write`, …: the command path a span names.
fn command_name(matches: &clap::ArgMatches) -> String {
    let mut names = Vec::new();
    let mut m = matches;
    while let Some((name, sub)) = m.subcommand() {
        names.push(name.to_string());
        m = sub;
    }
    names.join(" ")
}

fn dispatch(command: Command, matches: &clap::ArgMatches) -> Result<Exit, CliError> {
    match command {
        Command::Eval(args) => eval::run(args),
        Command::Actions(args) => actions::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Runs(args) => runs::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Repl(args) => repl::run(args),
        Command::Mcp(mut args) => match (args.command.take(), args.print_config) {
            (Some(command), _) => mcp::run_command(command),
            (None, Some(client)) => {
                mcp_config::run(client, &args, matches.subcommand_matches("mcp"))
            }
            (None, None) => mcp::run(args),
        },
        Command::Policy { command } => policy::run(command),
        Command::HarnessJoinCheck(args) => join_check::run_join_check(&args),
        Command::HarnessSession { command } => harness::run_session(&command),
        Command::HarnessTrajectory { command } => harness::run_trajectory(&command),
        Command::HarnessFeature { command } => harness::run_feature(&command),
        Command::HarnessKpi(args) => harness::run_kpi(&args),
        Command::HarnessRetry { command } => harness::run_retry(&command),
        Command::Conformance { suite } => join_check::run_conformance(&suite),
        Command::Init(args) => init::run(args),
        Command::Issue(args) => issue::run_issue(args),
        Command::Dep(args) => issue::run_dep(args),
        Command::Store(args) => store::run(args),
        Command::MergeDriver(args) => merge_driver::run(&args),
        Command::TransportDispatch(args) => transport::run(&args),
        Command::SchemeEval(args) => scheme_eval::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Observe(args) => observe::run(args),
        Command::Prime(args) => prime::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Man(args) => man::run(&args),
        Command::Keygen(args) => keygen::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_help_section() {
        let help = grouped_commands(&{
            let mut c = Cli::command();
            c.build();
            c
        });
        assert!(!help.contains("Other commands"), "{help}");
        assert!(help.contains("  help "), "{help}");
    }

    /// Each command's name, its parse settings and its arguments (sorted by
    /// id: `Quick` adds a global flag before a deferred command's own), then
    /// its subcommands, depth first.
    fn shape(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        let path = format!("{path} {}", cmd.get_name());
        out.push(format!(
            "{path}: required={} external={} conflicts={} negates={} groups={:?}",
            cmd.is_subcommand_required_set(),
            cmd.is_allow_external_subcommands_set(),
            cmd.is_args_conflicts_with_subcommands_set(),
            cmd.is_subcommand_negates_reqs_set(),
            cmd.get_groups().collect::<Vec<_>>(),
        ));
        // clap words its own help flag by whether any argument has long
        // help, which a deferred command learns late; help is printed by the
        // full tree, so only the flag itself must agree.
        let mut args: Vec<String> = cmd
            .get_arguments()
            .map(|a| match a.get_action() {
                clap::ArgAction::Help | clap::ArgAction::HelpShort | clap::ArgAction::HelpLong => {
                    format!(
                        "{path}: help {:?} {:?} {:?}",
                        a.get_id(),
                        a.get_short(),
                        a.get_long()
                    )
                }
                _ => format!("{path}: {a:?}"),
            })
            .collect();
        args.sort();
        out.extend(args);
        let mut subs: Vec<&clap::Command> = cmd.get_subcommands().collect();
        subs.sort_by_key(|s| s.get_name());
        // `help CMD…` always ends in clap's help (an error to `parse`), which
        // the full tree prints; a deferred tree's help mirror is shallower.
        for sub in subs.into_iter().filter(|s| s.get_name() != "help") {
            shape(sub, &path, out);
        }
    }

    #[test]
    fn quick_tree_matches_the_full_tree() {
        let (mut full, mut quick) = (Cli::command(), Quick::command());
        full.build();
        quick.build();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        shape(&full, "", &mut a);
        shape(&quick, "", &mut b);
        assert!(
            a.len() > 400,
            "the walk saw the whole tree ({} lines)",
            a.len()
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y);
        }
        assert_eq!(a.len(), b.len());
    }

    #[test]
    fn a_parsed_command_line_is_what_the_full_tree_parses() {
        let lines: [&[&str]; 5] = [
            &[
                "tusk", "-C", "/tmp", "eval", "--json", "p.scm", "--otlp", "http://x",
            ],
            &[
                "tusk",
                "harness-trajectory",
                "append",
                "--path",
                "t.jsonl",
                "--step-id",
                "s",
                "--action",
                "a",
                "--result-class",
                "accepted",
                "--json",
            ],
            &[
                "tusk",
                "issue",
                "claim",
                "bd-1",
                "--assignee",
                "w",
                "--json",
            ],
            &["tusk", "harness-join-check", "--input", "j.json", "--json"],
            &["tusk", "dep", "add", "bd-1", "bd-2"],
        ];
        for line in lines {
            let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
            // The quick parser must answer a valid line itself: a fallback
            // to the full tree would hide a broken Quick and its cost.
            let (q, _) = quick(&args).unwrap_or_else(|| panic!("Quick parses {line:?}"));
            let full = Cli::command()
                .try_get_matches_from(line)
                .expect("full parses");
            let f = Cli::from_arg_matches(&full).unwrap();
            assert_eq!(format!("{q:?}"), format!("{f:?}"), "{line:?}");
        }
    }

    #[test]
    fn help_version_and_usage_errors_are_the_full_trees() {
        let lines: [&[&str]; 6] = [
            &["tusk", "--help"],
            &["tusk", "--version"],
            &["tusk", "help", "issue", "add"],
            &["tusk", "issue", "add", "-h"],
            &["tusk", "harness-trajectory", "append", "--bogus"],
            &["tusk", "bogus"],
        ];
        for line in lines {
            let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
            assert!(quick(&args).is_none(), "{line:?} is not a parsed line");
            let ours = parse(&args).expect_err("help, version or an error");
            let full = help_command()
                .try_get_matches_from(line)
                .expect_err("help, version or an error");
            assert_eq!(ours.kind(), full.kind(), "{line:?}");
            assert_eq!(
                ours.render().to_string(),
                full.render().to_string(),
                "{line:?}"
            );
        }
    }
}
