//! The `tusk` command line. Each subcommand group lives in its own file and
//! returns the process exit code; `main.rs` only calls [`run`].

pub mod actions;
pub mod eval;
pub mod events;
pub mod harness;
pub mod init;
pub mod join_check;
pub mod mcp;
pub mod policy;
pub mod repl;
pub mod replay;
pub mod store;
pub mod transport;

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
    /// Run one bounded Scheme program against the host functions.
    ///
    /// A run is accepted when every host call it made was accepted and the
    /// program ended without an error. A rejected host call rejects the run
    /// even when the program handled it and went on; the result's
    /// `decidedBy` names the call (or the error) that decided it. Exit 0
    /// accepted, 1 rejected, 2 the request could not be served (nothing ran).
    Eval(eval::EvalArgs),
    /// The host action catalogue: ids, arguments, payloads, failure classes.
    Actions(actions::ActionsArgs),
    /// Re-run recorded runs with host calls answered from the effect log.
    Replay(replay::ReplayArgs),
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
    /// premath's lease transport: one lease action with a JSON payload, answered
    /// with premath's envelope (exit 0 accepted or rejected).
    TransportDispatch(transport::TransportArgs),
}

/// Parses the command line and runs it; returns the exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Actions(args) => actions::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Repl(args) => repl::run(args),
        Command::Mcp(args) => mcp::run(args),
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
        Command::TransportDispatch(args) => transport::run(&args),
    }
}
