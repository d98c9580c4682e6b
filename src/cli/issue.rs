//! `tusk issue …` and `tusk dep …`: the issue memory on the command line.
//!
//! Exit codes: 0 accepted, 1 rejected (a failure class), 2 unusable input (bad
//! flags, a corrupt or unreadable store). `--json` prints the same payload the
//! host action returns, except `issue show --json`, which prints the issue in
//! its camelCase projection (the host action `issue.show` returns the stored
//! object; `issue show --raw` prints the stored line).

use crate::canonical::to_pretty_sorted;
use crate::cli::issue_text::{human, show_text, table};
use crate::cli::{CliClass, CliError, Exit};
use crate::issues::actions::dep_add::{self, DepAddArgs};
use crate::issues::actions::dep_remove::{self, DepArgs as DepRemoveArgs};
use crate::issues::actions::dep_replace::{self, DepReplaceArgs};
use crate::issues::actions::issue_check::{self, CheckArgs};
use crate::issues::actions::issue_claim::{self, ClaimArgs};
use crate::issues::actions::issue_claim_next::{self, ClaimNextArgs};
use crate::issues::actions::issue_close::{self, CloseArgs};
use crate::issues::actions::issue_comment::{self, CommentArgs};
use crate::issues::actions::issue_discover::DiscoverArgs;
use crate::issues::actions::issue_label::{self, LabelArgs};
use crate::issues::actions::issue_lease_projection::LeaseProjectionArgs;
use crate::issues::actions::issue_lease_release::{self, ReleaseArgs};
use crate::issues::actions::issue_lease_renew::{self, RenewArgs};
use crate::issues::actions::issue_list::ListArgs;
use crate::issues::actions::issue_search::{self, SearchArgs};
use crate::issues::actions::issue_update::UpdateArgs;
use crate::issues::actions::{issue_reopen, FilterArgs, IdArgs};
use crate::issues::filter::IssueFilter;
use crate::issues::find;
use crate::issues::footprint::Footprint;
use crate::issues::mutate::{self, MutationCtx, NewIssue};
use crate::issues::store::{IssueStore, LockOptions, Store};
use crate::issues::tracker;
use crate::issues::views::{self, ListView, Scope};
use crate::issues::{Report, StoreError};
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options shared by every issue and dep command.
#[derive(Args, Debug, Clone)]
pub struct StoreOpts {
    /// The issue store (beads JSONL; default .premath/issues.jsonl).
    #[arg(long, global = true, value_name = "PATH", help_heading = super::STORE_OPTIONS)]
    pub issues: Option<PathBuf>,
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlag,
    /// Print the JSON payload instead of a table.
    #[arg(long, global = true)]
    pub json: bool,
    /// How long a mutation waits for the store lock before `lease_mutation_lock_busy`.
    #[arg(
        long,
        global = true,
        default_value_t = 5000,
        value_name = "MS",
        help_heading = super::STORE_OPTIONS
    )]
    pub lock_timeout_ms: u64,
}

/// `tusk issue`.
#[derive(Args, Debug)]
pub struct IssueArgs {
    #[command(flatten)]
    pub opts: StoreOpts,
    #[command(subcommand)]
    pub command: IssueCommand,
}

#[derive(Subcommand, Debug)]
pub enum IssueCommand {
    /// Add an issue (creates the store if absent).
    Add(NewIssue),
    /// List issues, optionally filtered.
    List(ListArgs),
    /// Show one issue, its lease state and its blockers.
    ///
    /// With --json the issue is in camelCase, as `issue add`, `claim` and
    /// `list` print issues: issueType, owner, lease {acquiredAt, expiresAt,
    /// leaseId, owner, renewedAt} (null without one), then every other stored
    /// member under its camelCase name (acceptanceCriteria, createdAt,
    /// dependencies [{dependsOnId, issueId, type, …}], comments [{issueId,
    /// createdAt, …}], …). --raw prints the issue's line as stored (beads'
    /// snake_case JSONL), byte for byte.
    Show {
        #[command(flatten)]
        args: IdArgs,
        /// Print the issue's line as stored in the store, byte for byte
        /// (with or without --json).
        #[arg(long)]
        raw: bool,
    },
    /// Open issues whose blocking dependencies are all closed.
    Ready(FilterArgs),
    /// Non-closed issues that are blocked, with their blockers.
    Blocked(FilterArgs),
    /// Integrity check of the issue graph (premath.issue_graph.check.v1).
    Check(CheckArgs),
    /// Change fields of an issue; an empty value clears a text field.
    Update {
        #[command(flatten)]
        args: UpdateArgs,
        /// Read the notes from a file (`-`: standard input).
        #[arg(long, value_name = "PATH", conflicts_with = "notes")]
        notes_file: Option<PathBuf>,
    },
    /// Close an issue.
    Close(CloseArgs),
    /// Open a closed issue again.
    Reopen(IdArgs),
    /// Issues whose title, description, acceptance criteria, notes or comments
    /// contain TEXT (case-insensitive), best match first.
    Search(SearchArgs),
    /// Counts by status, type, priority, assignee and label; ready, blocked,
    /// in progress; stale and contended leases; the oldest ready issue.
    Stats,
    /// The store as text a person reads, one member per line: git's
    /// textconv for the store (`tusk init` wires `diff=tusk`), so `git diff`
    /// and `git log -p` show the field that changed.
    Textconv {
        /// The store file (git passes a copy of the version it shows)
        file: PathBuf,
    },
    /// What changed of each issue between two versions of the store in git:
    /// status, fields, labels and edges added or removed, comments added by
    /// whom.
    Diff {
        /// REV (against the working tree; default HEAD), or A..B
        #[arg(value_name = "REV[..REV]")]
        range: Option<String>,
    },
    /// Every change to an issue, oldest first, from the effect log: when,
    /// who (the run's principal or the command line's actor), from which
    /// run or command, each field from → to, comments, edges, and leases
    /// taken, renewed, released and expired.
    History {
        /// The issue's id.
        id: String,
        /// Skip the first N entries (the `nextAfter` of the last page).
        #[arg(long, default_value_t = 0, value_name = "N")]
        after: usize,
        /// At most N entries (1-1000).
        #[arg(long, default_value_t = 100, value_name = "N")]
        limit: usize,
        /// The effect log (default .premath/host_effects.jsonl, or the
        /// database's with --store).
        #[arg(long, value_name = "FILE")]
        effects: Option<PathBuf>,
    },
    /// Add or remove labels.
    Label {
        #[command(subcommand)]
        command: LabelCommand,
    },
    /// Comment on an issue, or list its comments.
    Comment {
        #[command(subcommand)]
        command: CommentCommand,
    },
    /// Take (or keep) the lease on an issue.
    Claim(ClaimArgs),
    /// Claim the first ready issue not leased by someone else.
    ClaimNext(ClaimNextArgs),
    /// Record a new issue found while working on PARENT_ID (`discovered-from` edge).
    Discover(DiscoverArgs),
    /// Extend an active lease.
    LeaseRenew(RenewArgs),
    /// Where the issue memory lives (file or database), premath's query
    /// projection cache and the jj workspace; never fails.
    BackendStatus {
        /// The repository whose jj workspace is reported.
        #[arg(long, default_value = ".")]
        repo: PathBuf,
        /// premath's query projection cache.
        #[arg(long, default_value = ".premath/surreal_issue_cache.json")]
        projection: PathBuf,
    },
    /// Stale and contended leases, and every leased issue with its lease state
    /// (premath's MCP tool `issue_lease_projection`).
    LeaseProjection(LeaseProjectionArgs),
    /// Write the store as premath's issue event log (`issue.event.v1`) and
    /// check that replaying the log gives the same store.
    MigrateEvents {
        /// The event log to write.
        #[arg(long, default_value = ".premath/memory/events.jsonl")]
        events: PathBuf,
    },
    /// Rebuild the store from an issue event log (skipped when the replay
    /// cache shows the store already is the log's replay).
    ReplayEvents {
        /// The event log to read.
        #[arg(long, default_value = ".premath/memory/events.jsonl")]
        events: PathBuf,
        /// The replay cache (default: replay-cache.json beside the store).
        #[arg(long)]
        cache: Option<PathBuf>,
    },
    /// Give a lease back.
    LeaseRelease(ReleaseArgs),
}

/// `tusk dep`.
#[derive(Args, Debug)]
pub struct DepArgs {
    #[command(flatten)]
    pub opts: StoreOpts,
    #[command(subcommand)]
    pub command: DepCommand,
}

/// `--graph-scope`: active (open or in_progress issues) or full.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScopeArg {
    Active,
    /// Every issue (`all` is accepted too).
    #[value(alias = "all")]
    Full,
}

/// `--view` of `dep project`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ViewArg {
    /// Roles blocking / informational.
    Execution,
    /// Roles next-action, project-structure, captured-work, reference, dedupe.
    Gtd,
    /// Roles constraint, generator, provenance, equivalence.
    Groupoid,
}

#[derive(Subcommand, Debug)]
pub enum DepCommand {
    /// The dependency tree from ID: what it depends on (down), what depends
    /// on it (up) or both, with cycles marked.
    Tree {
        /// The issue the tree starts from.
        id: String,
        /// down (what it depends on), up (what depends on it) or both.
        #[arg(long, value_enum, default_value = "down")]
        direction: find::Direction,
        /// How deep to walk.
        #[arg(long, default_value_t = 10)]
        max_depth: usize,
        /// text (default), json (as --json), mermaid or dot.
        #[arg(long, value_enum, default_value = "text")]
        format: TreeFormat,
    },
    /// ISSUE_ID depends on DEPENDS_ON_ID.
    Add(DepAddArgs),
    /// Remove the edge between the pair (only of --type when given).
    Remove(DepRemoveArgs),
    /// Change the type of the pair's edge of --from-type to --to-type.
    Replace(DepReplaceArgs),
    /// Every edge with its role in a view, and premath's integrity over all issues.
    Project {
        #[arg(long, value_enum, default_value = "execution")]
        view: ViewArg,
    },
    /// Dependency cycles (premath's integrity) and dangling edges; findings exit 0.
    Diagnostics {
        /// Which issues the graph holds (`--scope` is accepted too).
        #[arg(
            long = "graph-scope",
            alias = "scope",
            value_enum,
            default_value = "active"
        )]
        graph_scope: ScopeArg,
    },
}

fn now() -> DateTime<Utc> {
    Utc::now()
}

fn lock(opts: &StoreOpts) -> LockOptions {
    LockOptions {
        timeout: Duration::from_millis(opts.lock_timeout_ms),
    }
}

/// The issue memory and settings the flags name (exit 2 when unusable).
fn resolve(flags: &StoreOpts, action: &str) -> Result<Opts, CliError> {
    let store = flags
        .store
        .issues(
            flags.issues.as_deref(),
            Path::new(crate::issues::store::DEFAULT_ISSUES_PATH),
        )
        .map_err(|e| CliError::unusable(format_args!("tusk: {action}"), e))?;
    // A change a killed process left without its row is settled first
    // (issue 61); a busy store is settled by whoever next takes its lock.
    let _ = store.settle();
    Ok(Opts {
        store,
        json: flags.json,
        lock: lock(flags),
    })
}

/// The class of a read on a store file that does not exist.
pub const CLASS_STORE_NOT_FOUND: &str = CliClass::IssueStoreNotFound.as_str();

/// A read of a store file that does not exist is an error, not an empty
/// queue (a typo in `--issues` must not look like "nothing to do"):
/// premath's message and exit 1; with `--json`, one error object on stdout.
/// `Ok` when the store is there (or is a database).
fn missing_store(opts: &Opts, action: &str) -> Result<(), CliError> {
    let IssueStore::Jsonl(path) = &opts.store else {
        return Ok(());
    };
    if path.exists() {
        return Ok(());
    }
    let message = format!("issues file not found: {}", path.display());
    let hint = "run `tusk init` to create the store here, or point --issues (or PREMATH_ISSUES_PATH) at it";
    let error = CliError::refused(format_args!("tusk: {action}"), &message)
        .with_hint(hint)
        .with_class(CLASS_STORE_NOT_FOUND);
    Err(if opts.json {
        error.with_json(serde_json::json!({
            "action": action,
            "result": "rejected",
            "failureClasses": [CLASS_STORE_NOT_FOUND],
            "class": CLASS_STORE_NOT_FOUND,
            "message": message,
            "diagnostic": message,
            "hint": hint,
            "issuesPath": path.display().to_string(),
        }))
    } else {
        error
    })
}

/// The filter the flags describe, or exit 2 with the reason (a usage error:
/// nothing was read).
fn checked_flags(
    opts: &Opts,
    action: &str,
    filter: Option<IssueFilter>,
) -> Result<IssueFilter, CliError> {
    match IssueFilter::checked(filter) {
        Ok(filter) => Ok(filter),
        Err(message) => Err(refused_flag(
            opts,
            action,
            CliClass::InvalidValue.as_str(),
            &message,
        )),
    }
}

/// A flag value the command cannot mean: exit 2 with `class` and `message`
/// (first as JSON under `--json`).
fn refused_flag(opts: &Opts, action: &str, class: &'static str, message: &str) -> CliError {
    let error = CliError::unusable(format_args!("tusk: {action}"), message).with_class(class);
    if opts.json {
        error.with_json_first(serde_json::json!({
            "action": action,
            "result": "rejected",
            "class": class,
            "failureClasses": [class],
            "message": message,
        }))
    } else {
        error
    }
}

/// How `dep tree` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TreeFormat {
    Text,
    Json,
    Mermaid,
    Dot,
}

/// `tusk issue label …`: premath's two subcommands with the labels
/// positional, a shape the host action's keys (`id`, `add`, `remove`) cannot
/// have; [`LabelCommand::args`] makes the action's arguments of them.
#[derive(Subcommand, Debug)]
pub enum LabelCommand {
    /// Add labels (at the end, once each).
    Add {
        /// The issue.
        id: String,
        /// The labels to add.
        #[arg(required = true, value_name = "LABEL")]
        labels: Vec<String>,
    },
    /// Remove labels.
    Remove {
        /// The issue.
        id: String,
        /// The labels to remove.
        #[arg(required = true, value_name = "LABEL")]
        labels: Vec<String>,
    },
}

impl LabelCommand {
    /// The host action's arguments.
    fn args(self) -> LabelArgs {
        match self {
            LabelCommand::Add { id, labels } => LabelArgs {
                id,
                add: labels,
                remove: Vec::new(),
            },
            LabelCommand::Remove { id, labels } => LabelArgs {
                id,
                add: Vec::new(),
                remove: labels,
            },
        }
    }
}

/// `tusk issue comment …`.
#[derive(Subcommand, Debug)]
pub enum CommentCommand {
    /// Append a comment.
    Add(CommentArgs),
    /// An issue's comments, in order.
    List(IdArgs),
}

/// Runs `tusk issue …`.
pub fn run_issue(args: IssueArgs) -> Result<Exit, CliError> {
    if let IssueCommand::Textconv { file } = &args.command {
        return textconv(file);
    }
    let opts = resolve(&args.opts, "issue")?;
    if let IssueCommand::Diff { range } = &args.command {
        return diff(&opts, range.as_deref());
    }
    if let Some(action) = read_action(&args.command) {
        missing_store(&opts, action)?;
    }
    let now = now();
    let outcome = match args.command {
        IssueCommand::List(_) | IssueCommand::Ready(_) | IssueCommand::Blocked(_) => {
            return list_command(&opts, args.command, now)
        }
        IssueCommand::History {
            id,
            after,
            limit,
            effects,
        } => return history(&args.opts, &opts, &id, after, limit, effects.as_deref()),
        IssueCommand::BackendStatus { repo, projection } => {
            let v = crate::issues::backend::backend_status(&opts.store, &repo, &projection);
            if opts.json {
                println!("{}", to_pretty_sorted(&v));
            } else {
                print!("{}", crate::issues::backend::backend_status_text(&v));
            }
            return Ok(Exit::Accepted);
        }
        IssueCommand::Show { args, raw } => return show(&opts, &args.id, raw, now),
        IssueCommand::MigrateEvents { events } => {
            return crate::cli::events::migrate(&opts.store, &events, opts.json, now);
        }
        IssueCommand::ReplayEvents { events, cache } => {
            let cache = cache.as_deref();
            return crate::cli::events::replay(&opts.store, &events, cache, opts.json, opts.lock);
        }
        command if read_action(&command).is_some() => read_report(&opts, command, now),
        command => mutation_report(&opts, command, now),
    };
    let (action, result) = outcome?;
    finish(&opts, action, result)
}

/// The host action a reading command twins (its store must exist).
fn read_action(command: &IssueCommand) -> Option<&'static str> {
    Some(match command {
        IssueCommand::List(_) => "issue.list",
        IssueCommand::Show { .. } => "issue.show",
        IssueCommand::Ready(_) => "issue.ready",
        IssueCommand::Blocked(_) => "issue.blocked",
        IssueCommand::Check(_) => "issue.check",
        IssueCommand::Search(_) => "issue.search",
        IssueCommand::Stats => "issue.stats",
        IssueCommand::Comment {
            command: CommentCommand::List { .. },
        } => "issue.comments",
        IssueCommand::LeaseProjection(_) => "issue.lease_projection",
        _ => return None,
    })
}

mod read;
use read::{history, list_command, read_report, read_view, show};

/// What a command reports: its action and its report, or a usage error.
type Outcome = Result<(&'static str, Result<Report, StoreError>), CliError>;

/// The mutating commands, each through its action's domain function, each
/// recorded as a one-call run ([`super::record`]).
fn mutation_report(opts: &Opts, command: IssueCommand, now: DateTime<Utc>) -> Outcome {
    use super::record::args_of;
    let call = |f: OnStore| on_store(opts, now, f);
    let (action, args, mutation) = match command {
        IssueCommand::Add(new) => (
            "issue.add",
            args_of(&new),
            call(Box::new(move |ctx| mutate::add(ctx, &new))),
        ),
        IssueCommand::Discover(a) => {
            let args = args_of(&a);
            let (parent_id, new) = a.split();
            (
                "issue.discover",
                args,
                call(Box::new(move |ctx| mutate::discover(ctx, &parent_id, &new))),
            )
        }
        IssueCommand::Update { args, notes_file } => {
            let mut recorded = args_of(&args);
            let (id, mut changes) = args.split();
            if let Some(file) = notes_file {
                let text =
                    read_notes(&file).map_err(|e| CliError::unusable("tusk: issue.update", e))?;
                recorded["notes"] = Value::String(text.clone());
                changes.notes = Some(text);
            }
            // `--labels ""` means "no labels", not one empty label.
            changes.labels = changes
                .labels
                .map(|l| l.into_iter().filter(|x| !x.is_empty()).collect());
            if let Some(labels) = &changes.labels {
                recorded["labels"] = serde_json::json!(labels);
            }
            (
                "issue.update",
                recorded,
                call(Box::new(move |ctx| mutate::update(ctx, &id, &changes))),
            )
        }
        IssueCommand::Close(a) => (
            "issue.close",
            args_of(&a),
            call(Box::new(move |ctx| issue_close::report(ctx, a))),
        ),
        IssueCommand::Reopen(a) => (
            "issue.reopen",
            args_of(&a),
            call(Box::new(move |ctx| issue_reopen::report(ctx, a))),
        ),
        IssueCommand::Label { command } => {
            let a = command.args();
            (
                "issue.label",
                args_of(&a),
                call(Box::new(move |ctx| issue_label::report(ctx, a))),
            )
        }
        IssueCommand::Comment {
            command: CommentCommand::Add(a),
        } => (
            "issue.comment",
            args_of(&a),
            call(Box::new(move |ctx| issue_comment::report(ctx, a))),
        ),
        IssueCommand::Claim(a) => (
            "issue.claim",
            args_of(&a),
            call(Box::new(move |ctx| issue_claim::report(ctx, a))),
        ),
        IssueCommand::ClaimNext(mut a) => {
            let filter = checked_flags(opts, "issue.claim_next", a.filter.take())?;
            let mut args = args_of(&a);
            if filter != Default::default() {
                args["filter"] = super::record::args_of(&filter);
            }
            (
                "issue.claim_next",
                args,
                call(Box::new(move |ctx| {
                    issue_claim_next::report(ctx, a, &filter)
                })),
            )
        }
        IssueCommand::LeaseRenew(a) => (
            "issue.lease_renew",
            args_of(&a),
            call(Box::new(move |ctx| issue_lease_renew::report(ctx, a))),
        ),
        IssueCommand::LeaseRelease(a) => (
            "issue.lease_release",
            args_of(&a),
            call(Box::new(move |ctx| issue_lease_release::report(ctx, a))),
        ),
        _ => unreachable!("mutation_report takes the mutating commands"),
    };
    Ok((action, recorded(opts, action, args, now, mutation)?))
}

/// A command's mutation on the flags' store, made inside its recorded run
/// and printed as the issue commands print theirs (`tusk plan apply`).
pub(crate) fn run_recorded_action(
    flags: &StoreOpts,
    action: &'static str,
    args: Value,
    f: OnStore,
) -> Result<Exit, CliError> {
    let opts = resolve(flags, action)?;
    let now = now();
    let result = recorded(&opts, action, args, now, on_store(&opts, now, f))?;
    finish(&opts, action, result)
}

/// A command's mutation, given the store's mutation context.
type OnStore = Box<dyn FnOnce(&MutationCtx<'_>) -> Result<Report, StoreError> + Send>;

/// `f` as the mutation a command's run makes, on the command's store.
fn on_store(opts: &Opts, now: DateTime<Utc>, f: OnStore) -> super::record::Mutation {
    let (store, lock) = (opts.store.clone(), opts.lock);
    Box::new(move || f(&MutationCtx::new(&store, lock, now)))
}

/// Makes a command's call inside its recorded run ([`super::record`]); a run
/// that cannot be recorded makes no change.
fn recorded(
    opts: &Opts,
    action: &str,
    args: Value,
    now: DateTime<Utc>,
    mutation: super::record::Mutation,
) -> Result<Result<Report, StoreError>, CliError> {
    super::record::run_recorded(&opts.store, action, args, now, mutation).map_err(|e| {
        let message = format!(
            "nothing was changed: the command's run could not be recorded: {}",
            e.message
        );
        let Some(class) = e.class else {
            return CliError::unusable(format_args!("tusk: {action}"), message);
        };
        let failed =
            CliError::unusable(format_args!("tusk: {action}: {class}"), &message).with_class(class);
        if opts.json {
            let path = opts.store.path().display().to_string();
            let report = Report::rejected(action, &path, &[class], message);
            failed.with_json_first(report.into_value())
        } else {
            failed
        }
    })
}

/// The text of `--notes-file` (`-` reads standard input to its end), as is.
fn read_notes(file: &Path) -> Result<String, String> {
    if file == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("failed to read notes from stdin: {e}"))?;
        Ok(text)
    } else {
        crate::files::read_to_string(file, crate::files::INPUT_MAX)
            .map_err(|e| format!("failed to read notes file `{}`: {e}", file.display()))
    }
}

/// Runs `tusk dep …`.
pub fn run_dep(args: DepArgs) -> Result<Exit, CliError> {
    let opts = resolve(&args.opts, "dep")?;
    let read = match &args.command {
        DepCommand::Project { .. } => Some("dep.project"),
        DepCommand::Tree { .. } => Some("dep.tree"),
        DepCommand::Diagnostics { .. } => Some("dep.diagnostics"),
        _ => None,
    };
    if let Some(action) = read {
        missing_store(&opts, action)?;
    }
    let path_str = opts.store.path().display().to_string();
    let now = now();
    let call = |f: OnStore| on_store(&opts, now, f);
    let mutation = |action: &'static str, args: Value, m: super::record::Mutation| {
        recorded(&opts, action, args, now, m).map(|result| (action, result))
    };
    use super::record::args_of;
    let (action, result) = match args.command {
        DepCommand::Add(a) => mutation(
            "dep.add",
            args_of(&a),
            call(Box::new(move |ctx| dep_add::report(ctx, a))),
        )?,
        DepCommand::Remove(a) => mutation(
            "dep.remove",
            args_of(&a),
            call(Box::new(move |ctx| dep_remove::report(ctx, a))),
        )?,
        DepCommand::Replace(a) => mutation(
            "dep.replace",
            args_of(&a),
            call(Box::new(move |ctx| dep_replace::report(ctx, a))),
        )?,
        DepCommand::Project { view } => {
            let view = match view {
                ViewArg::Execution => views::DepView::Execution,
                ViewArg::Gtd => views::DepView::Gtd,
                ViewArg::Groupoid => views::DepView::Groupoid,
            };
            (
                "dep.project",
                read_view(&opts, |s| views::project_payload(s, &path_str, view)),
            )
        }
        DepCommand::Tree {
            id,
            direction,
            max_depth,
            format,
        } => {
            // On a database, just the lines the walk reaches (a read by index).
            let result = match opts.store.tree_text(&id, direction, max_depth) {
                Ok(Some(text)) => opts
                    .store
                    .parse(&text)
                    .map(|s| find::tree_payload(&s, &path_str, &id, direction, max_depth)),
                Ok(None) => read_view(&opts, |s| {
                    find::tree_payload(s, &path_str, &id, direction, max_depth)
                }),
                Err(e) => Err(e),
            };
            let graph = match (&result, format) {
                (Ok(r), TreeFormat::Mermaid | TreeFormat::Dot) if r.is_accepted() && !opts.json => {
                    let v = r.clone().into_value();
                    Some(find::tree_graph(&v["tree"], format == TreeFormat::Dot))
                }
                _ => None,
            };
            if let Some(text) = graph {
                print!("{text}");
                return Ok(Exit::Accepted);
            }
            ("dep.tree", result)
        }
        DepCommand::Diagnostics { graph_scope } => {
            let scope = match graph_scope {
                ScopeArg::Active => Scope::Active,
                ScopeArg::Full => Scope::Full,
            };
            (
                "dep.diagnostics",
                read_view(&opts, |s| views::diagnostics_payload(s, &path_str, scope)),
            )
        }
    };
    finish(&opts, action, result)
}

/// What the output of a command depends on once its flags are resolved.
struct Opts {
    store: IssueStore,
    json: bool,
    lock: LockOptions,
}

/// Prints a report (exit 0 accepted, 1 rejected); a store that could not be
/// read or written is an error (exit 2), under `--json` first its rejection
/// on stdout.
fn finish(opts: &Opts, action: &str, result: Result<Report, StoreError>) -> Result<Exit, CliError> {
    match result {
        Ok(report) => {
            let exit = Exit::accepted_if(report.is_accepted());
            let value = report.into_value();
            if opts.json {
                println!("{}", to_pretty_sorted(&value));
            } else {
                // issue show escapes its pieces itself: a text's lines stay lines.
                if action == "issue.show" && value["result"] != "rejected" {
                    print!("{}", show_text(&value));
                } else {
                    print!("{}", human(action, &crate::terminal::value(&value)));
                }
            }
            Ok(exit)
        }
        Err(error) => {
            let class = error.class();
            let failed = CliError::unusable(format_args!("tusk: {action}: {class}"), &error)
                .with_class(class);
            Err(if opts.json {
                let path = opts.store.path().display().to_string();
                let report = Report::from_error(action, &path, &error);
                failed.with_json_first(report.into_value())
            } else {
                failed
            })
        }
    }
}

/// `issue textconv FILE`: the store as text ([`crate::issues::diff::render`]).
fn textconv(file: &Path) -> Result<Exit, CliError> {
    let bytes = crate::files::read(file).map_err(|e| {
        CliError::unusable(
            "tusk issue textconv",
            format_args!("cannot read {}: {e}", file.display()),
        )
    })?;
    let text = String::from_utf8_lossy(&bytes);
    super::write_stdout(crate::issues::diff::render(&text).as_bytes())?;
    Ok(Exit::Accepted)
}

/// `issue diff [REV[..REV]]`: the store's changes between two versions in
/// git (REV alone: against the working tree; nothing: HEAD against it).
fn diff(opts: &Opts, range: Option<&str>) -> Result<Exit, CliError> {
    use crate::issues::git;
    let unusable = |m: String| CliError::unusable("tusk issue diff", m);
    let IssueStore::Jsonl(store) = &opts.store else {
        return Err(unusable(
            "the store is a database: git holds no versions of it".into(),
        ));
    };
    let dir = store.parent().filter(|p| !p.as_os_str().is_empty());
    let top = git::work_tree(dir.unwrap_or(Path::new(".")))
        .ok_or_else(|| unusable(format!("{} is not in a git work tree", store.display())))?;
    let rel = git::relative(&top, store)
        .ok_or_else(|| unusable(format!("{} is outside the work tree", store.display())))?;
    let (from, to) = match range {
        None => ("HEAD", None),
        Some(r) => match r.split_once("..") {
            Some((a, b)) if !a.is_empty() && !b.is_empty() => (a, Some(b)),
            Some(_) => {
                return Err(unusable(format!(
                    "{r:?}: write REV..REV with both revisions, or one REV"
                )))
            }
            None => (r, None),
        },
    };
    let old = git::show(&top, from, &rel).map_err(unusable)?;
    let new = match to {
        Some(rev) => git::show(&top, rev, &rel).map_err(unusable)?,
        None => match crate::files::read(store) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(unusable(format!("cannot read {}: {e}", store.display()))),
        },
    };
    let changes = crate::issues::diff::changes(&old, &new);
    if opts.json {
        let v = serde_json::json!({
            "kind": "tusk.issue_diff.v0",
            "path": rel,
            "from": from,
            "to": to.unwrap_or("working tree"),
            "changes": changes,
        });
        println!("{}", to_pretty_sorted(&v));
    } else {
        super::write_stdout(crate::issues::diff::changes_text(&changes).as_bytes())?;
    }
    Ok(Exit::Accepted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn issue(args: &[&str]) -> IssueCommand {
        let argv = ["tusk", "issue"].iter().chain(args);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Issue(a) => a.command,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn command_line_defaults_are_the_actions_defaults() {
        // The flags' defaults are spelled out for their help; they are the
        // defaults the host actions apply to an absent key.
        let IssueCommand::Check(a) = issue(&["check"]) else {
            panic!()
        };
        assert_eq!(a.note_warn_threshold, Some(views::NOTES_WARN_CHARS));
        let IssueCommand::Search(a) = issue(&["search", "x"]) else {
            panic!()
        };
        assert_eq!(a.limit, Some(issue_search::DEFAULT_LIMIT));
    }

    #[test]
    fn filter_flags_fill_the_actions_filter() {
        let IssueCommand::ClaimNext(a) = issue(&[
            "claim-next",
            "--assignee",
            "w",
            "--label",
            "a",
            "--label",
            "b",
            "--type",
            "bug",
            "--unassigned",
        ]) else {
            panic!()
        };
        let filter = a.filter.unwrap_or_default();
        assert_eq!(filter.labels, ["a", "b"]);
        assert_eq!(filter.types, ["bug"]);
        assert!(filter.unassigned);
        assert_eq!(filter.assignee, None);
        let IssueCommand::List(a) = issue(&["list", "--assignee", "w", "--issue-type", "bug"])
        else {
            panic!()
        };
        assert_eq!(a.assignee.as_deref(), Some("w"));
        assert_eq!(a.label, None);
        assert!(a.filter.unwrap_or_default().is_empty());
    }
}
