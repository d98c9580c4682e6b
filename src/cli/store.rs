//! Choosing the shared-state backend (`--store URL`, `TUSK_STORE`) and
//! `tusk store init|import|export|status`.
//!
//! Exit codes: 0 done, 2 unusable input or an unusable database (nothing written).

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::issues::postgres::ImportMode;
use crate::issues::store::{read_text, IssueStore};
use crate::issues::StoreError;
use crate::logs::LogStore;
use crate::pg::StoreClass;
use crate::pg::{LogTable, PgError, PgStore};
use clap::{Args, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environment variable naming the store when `--store` is not given.
pub const STORE_ENV: &str = "TUSK_STORE";

/// The shared store chosen on the command line.
#[derive(Args, Debug, Clone, Default)]
pub struct StoreFlag {
    /// Shared store: a postgres:// URL puts the issues, trajectory and effect log in
    /// that database (default: TUSK_STORE, else the files under .premath/).
    #[arg(long, global = true, value_name = "URL", help_heading = super::STORE_OPTIONS)]
    pub store: Option<String>,
}

impl StoreFlag {
    /// The database chosen by `--store` or `TUSK_STORE`, if any.
    ///
    /// # Errors
    ///
    /// A value that is not a usable `postgres://` URL.
    pub fn database(&self) -> Result<Option<Arc<PgStore>>, PgError> {
        let chosen = self.store.clone().or_else(|| {
            std::env::var(STORE_ENV)
                .ok()
                .filter(|v| !v.trim().is_empty())
        });
        chosen
            .map(|url| PgStore::open(&url).map(Arc::new))
            .transpose()
    }

    /// The issue memory: the database, else the file (`file`, or `default`).
    /// Naming both a database on the command line and a file is refused.
    ///
    /// # Errors
    ///
    /// A bad URL, or `--store` together with an explicit issue file.
    pub fn issues(&self, file: Option<&Path>, default: &Path) -> Result<IssueStore, String> {
        if self.store.is_some() && file.is_some() {
            return Err("give --store or an issue file (--issues), not both".into());
        }
        match file {
            // An explicit file beats the environment's database.
            Some(path) => Ok(IssueStore::Jsonl(path.to_path_buf())),
            None => Ok(match self.database().map_err(|e| e.to_string())? {
                Some(pg) => IssueStore::Postgres(pg),
                None => IssueStore::Jsonl(default.to_path_buf()),
            }),
        }
    }
}

impl StoreFlag {
    /// A log (trajectory, effect log): the database's table, else the file
    /// (`file`, or `default`). `--store` together with an explicit file is refused.
    ///
    /// # Errors
    ///
    /// A bad URL, or `--store` together with an explicit file.
    pub fn log(
        &self,
        table: LogTable,
        file: Option<&Path>,
        default: &Path,
    ) -> Result<LogStore, String> {
        if self.store.is_some() && file.is_some() {
            return Err(format!(
                "give --store or a {} file, not both",
                match table {
                    LogTable::Trajectory => "trajectory",
                    LogTable::Effects => "effect log",
                }
            ));
        }
        match file {
            Some(path) => Ok(LogStore::File(path.to_path_buf())),
            None => Ok(match self.database().map_err(|e| e.to_string())? {
                Some(pg) => LogStore::postgres(pg, table),
                None => LogStore::File(default.to_path_buf()),
            }),
        }
    }
}

/// Where a command that opens the issue store and both logs finds them
/// (`eval`, `repl`, `mcp`, `doctor`, `observe`): the flags declared once.
#[derive(Args, Debug, Clone)]
pub struct StoreFiles {
    /// Issue store file (default .premath/issues.jsonl).
    #[arg(long)]
    pub issues: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreFlag,
    /// Harness trajectory (default .premath/harness_trajectory.jsonl).
    #[arg(long)]
    pub trajectory: Option<PathBuf>,
    /// Effect log (default .premath/host_effects.jsonl).
    #[arg(long)]
    pub effects: Option<PathBuf>,
}

impl StoreFiles {
    /// The issue memory ([`StoreFlag::issues`] with `--issues`).
    ///
    /// # Errors
    ///
    /// As [`StoreFlag::issues`].
    pub fn issues(&self, default: &Path) -> Result<IssueStore, String> {
        self.store.issues(self.issues.as_deref(), default)
    }

    /// The trajectory or the effect log ([`StoreFlag::log`] with its flag).
    ///
    /// # Errors
    ///
    /// As [`StoreFlag::log`].
    pub fn log(&self, table: LogTable, default: &Path) -> Result<LogStore, String> {
        let file = match table {
            LogTable::Trajectory => &self.trajectory,
            LogTable::Effects => &self.effects,
        };
        self.store.log(table, file.as_deref(), default)
    }
}

impl StoreFlag {
    /// The trajectory of the chosen database, else the file at `path` (the
    /// harness commands' `--path`, which has a default).
    ///
    /// # Errors
    ///
    /// A bad URL.
    pub fn trajectory_or(&self, path: &Path) -> Result<LogStore, String> {
        Ok(match self.database().map_err(|e| e.to_string())? {
            Some(pg) => LogStore::postgres(pg, LogTable::Trajectory),
            None => LogStore::File(path.to_path_buf()),
        })
    }
}

/// `tusk store`.
#[derive(Args, Debug)]
pub struct StoreArgs {
    #[command(flatten)]
    pub flag: StoreFlag,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: StoreCommand,
}

#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// Create or migrate the schema (idempotent).
    Init,
    /// Load a beads/premath JSONL issue store into the database, line for line.
    Import {
        /// The JSONL file.
        file: PathBuf,
        /// Replace the issues the database already holds.
        #[arg(long)]
        replace: bool,
    },
    /// Write the database's issue store as JSONL (stdout, or a file written atomically).
    Export {
        /// Output file (default: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// The backend, its schema version and row counts.
    Status,
}

/// Exit 2, `tusk: ACTION: CLASS: MESSAGE` on stderr; under `--json` first
/// the rejection on stdout.
fn fail<T>(json: bool, action: &str, class: &'static str, message: &str) -> Result<T, CliError> {
    let error =
        CliError::unusable(format_args!("tusk: {action}: {class}"), message).with_class(class);
    Err(if json {
        error.with_json_first(json!({
            "action": action,
            "result": "rejected",
            "failureClasses": [class],
            "diagnostic": message,
        }))
    } else {
        error
    })
}

/// Runs `tusk store …`.
pub fn run(args: StoreArgs) -> Result<Exit, CliError> {
    let action = match &args.command {
        StoreCommand::Init => "store.init",
        StoreCommand::Import { .. } => "store.import",
        StoreCommand::Export { .. } => "store.export",
        StoreCommand::Status => "store.status",
    };
    let pg = match args.flag.database() {
        Ok(pg) => pg,
        Err(e) => return fail(args.json, action, e.class(), &e.to_string()),
    };
    let Some(pg) = pg else {
        if let StoreCommand::Status = args.command {
            return status_files(args.json);
        }
        return fail(
            args.json,
            action,
            StoreClass::NotSelected.as_str(),
            "no database: pass --store postgres://USER:PASSWORD@HOST:PORT/DB or set TUSK_STORE",
        );
    };
    let pg_failure = |e: PgError| (e.class(), e.to_string());
    let printed = match args.command {
        StoreCommand::Init => pg.init().map_err(pg_failure).and_then(|(from, to)| {
            // A migration that adds derived columns marks the lines for
            // deriving: done now, so views read by index at once.
            if from != 0 && from != to {
                crate::issues::postgres::derive_columns(&pg)
                    .map_err(|e| (e.class(), e.to_string()))?;
            }
            Ok(
                json!({"action": action, "backend": "postgres", "store": pg.shown(),
                   "schemaVersionBefore": from, "schemaVersion": to, "migrated": from != to}),
            )
        }),
        StoreCommand::Status => status_pg(&pg).map_err(pg_failure),
        StoreCommand::Import { file, replace } => {
            import(&pg, action, &file, replace).map_err(|e| (e.class(), e.to_string()))
        }
        StoreCommand::Export { output } => return export(&pg, action, output, args.json),
    };
    match printed {
        Ok(value) => print(args.json, &value),
        Err((class, message)) => fail(args.json, action, class, &message),
    }
}

/// `store import`: the file's lines into the database, byte for byte.
fn import(
    pg: &Arc<PgStore>,
    action: &str,
    file: &Path,
    replace: bool,
) -> Result<serde_json::Value, StoreError> {
    let mode = if replace {
        ImportMode::Replace
    } else {
        ImportMode::IntoEmpty
    };
    let (count, text) = read_text(file).and_then(|text| {
        if !file.exists() {
            return Err(StoreError::Io {
                path: file.display().to_string(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
        crate::issues::postgres::import_issues(pg, file, &text, mode).map(|count| (count, text))
    })?;
    // Lines are imported byte for byte; a status no one
    // declared is reported, not dropped or silently taken.
    let store = crate::issues::IssueStore::Postgres(pg.clone());
    let custom = crate::issues::model::custom_statuses(&store).unwrap_or_default();
    let undeclared: Vec<serde_json::Value> =
        crate::issues::model::undeclared_statuses(&text, &custom)
            .into_iter()
            .map(|(id, status)| json!({"id": id, "status": status}))
            .collect();
    for u in &undeclared {
        eprintln!(
            "tusk store import: warning: issue {} has status {} that is neither built in nor declared (status.custom in .premath/config.json)",
            u["id"], u["status"]
        );
    }
    Ok(json!({"action": action, "store": pg.shown(),
        "source": file.display().to_string(), "issueCount": count,
        "undeclaredStatuses": undeclared}))
}

/// `store export`: the issues as JSONL on stdout (a closed pipe is no
/// failure), or in `output`, written atomically.
fn export(
    pg: &PgStore,
    action: &str,
    output: Option<PathBuf>,
    json: bool,
) -> Result<Exit, CliError> {
    let text = match crate::issues::postgres::export_issues(pg) {
        Ok(t) => t,
        Err(e) => return fail(json, action, e.class(), &e.to_string()),
    };
    match output {
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => Ok(Exit::Accepted),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Exit::Accepted),
                Err(e) => fail(false, action, StoreClass::IoError.as_str(), &e.to_string()),
            }
        }
        Some(path) => match crate::harness::write_atomic(&path, text.as_bytes()) {
            Ok(()) => Ok(Exit::Accepted),
            Err(e) => fail(
                json,
                action,
                StoreClass::IoError.as_str(),
                &format!("{}: {e}", path.display()),
            ),
        },
    }
}

/// A command's result: JSON, or its text.
fn print(json: bool, value: &serde_json::Value) -> Result<Exit, CliError> {
    if json {
        println!("{}", to_pretty_sorted(value));
    } else {
        print_text(value);
    }
    Ok(Exit::Accepted)
}

/// The store's state: the schema version it holds (an older one is named,
/// with the command that upgrades it, rather than refused) and its counts.
fn status_pg(pg: &PgStore) -> Result<serde_json::Value, PgError> {
    let found = pg.found_version()?;
    let version = match found {
        None => {
            return Err(PgError::SchemaMissing {
                url: pg.shown().to_string(),
            })
        }
        // Written by a newer tusk: this one cannot say what it holds.
        Some(v) if v > crate::pg::SCHEMA_VERSION => return Err(pg.version_error(v)),
        Some(v) => v,
    };
    let counts = pg.counts()?;
    let mut value = json!({"action": "store.status", "backend": "postgres", "store": pg.shown(),
                           "schemaVersion": version,
                           "schemaVersionExpected": crate::pg::SCHEMA_VERSION});
    if version < crate::pg::SCHEMA_VERSION {
        value["upgrade"] = json!(
            "run `tusk store init --store URL`: it upgrades the schema in place and keeps the data"
        );
    }
    for (name, n) in counts {
        value[name] = json!(n);
    }
    Ok(value)
}

fn status_files(json: bool) -> Result<Exit, CliError> {
    let store = IssueStore::Jsonl(PathBuf::from(crate::issues::store::DEFAULT_ISSUES_PATH));
    let value = match store.read_text().and_then(|text| {
        crate::issues::store::Store::parse(store.path(), &text).map(|s| s.issue_count())
    }) {
        Ok(count) => json!({"action": "store.status", "backend": "jsonl",
                            "store": store.path().display().to_string(), "issueCount": count}),
        Err(e) => return fail(json, "store.status", e.class(), &e.to_string()),
    };
    print(json, &value)
}

fn print_text(value: &serde_json::Value) {
    if let Some(map) = value.as_object() {
        for (k, v) in map {
            if k == "action" {
                continue;
            }
            let shown = match v {
                serde_json::Value::String(s) => crate::terminal::field(s).into_owned(),
                other => other.to_string(),
            };
            println!("{k}: {shown}");
        }
    }
}
