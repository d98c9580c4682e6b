//! The fleet backend's database layer: connections, typed errors, schema
//! migrations and the log tables of several machines in one PostgreSQL
//! database (`--store postgres://…`). It knows nothing of issues: the issue
//! store on this database is `issues::postgres`, next to the JSONL store.
//!
//! Every table keeps the exact JSONL line text of its file twin, so each rule
//! (leases, failure classes, unknown fields) is the file store's own code
//! running on the same text, and an export reproduces an import byte for byte.
//! Concurrency is the database's: one transaction per mutation, serialized by an
//! advisory lock (the file store's lock, held by the server instead of `flock`).

mod logs;
mod pool;
mod unit;
pub mod writers;

pub use logs::{
    append_fenced, append_lines, find_last, read_before, read_from, read_lines, seq_bounds,
    LogTable,
};
pub use pool::POOL_ENV;
pub use unit::{End, Unit};

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use std::fmt;
use std::time::Duration;

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: i32 = 5;

/// The migrations in order: version `i + 1` is `MIGRATIONS[i]`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_init.sql"),
    include_str!("migrations/002_route.sql"),
    include_str!("migrations/003_blocker_targets.sql"),
    include_str!("migrations/004_writers_and_edges.sql"),
    include_str!("migrations/005_idempotency_and_plans.sql"),
];

/// Advisory lock keys (one per invariant the database guards).
const SCHEMA_LOCK: i64 = 0x7475_736b_0001;
/// The advisory lock serializing issue mutations (the file store's `flock`).
pub const ISSUES_LOCK: i64 = 0x7475_736b_0002;
/// The advisory lock serializing the changes that may add a blocking edge
/// (their cycle checks read the graph; two at once could each miss the other's edge).
pub const GRAPH_LOCK: i64 = 0x7475_736b_0003;

/// How long a connection attempt may take when the URL does not say.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

crate::failure::class_enum! {
    /// The store's failure classes: the database could not be used, or a store
    /// command was refused.
    pub enum StoreClass {
        BadUrl = "store.bad_url",
        Unreachable = "store.unreachable",
        Unavailable = "store.unavailable",
        AuthFailed = "store.auth_failed",
        DatabaseMissing = "store.database_missing",
        SchemaMissing = "store.schema_missing",
        SchemaVersion = "store.schema_version",
        LockTimeout = "store.lock_timeout",
        BackendError = "store.backend_error",
        NotEmpty = "store.not_empty",
        NotSelected = "store.not_selected",
        IoError = "store.io_error",
    }
}

/// Why the database could not be used. Nothing was written when one of these is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PgError {
    #[error("{url}: not a usable PostgreSQL URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{url}: cannot reach the server ({reason}); start it, or check the host and port in the URL (a database that is restarting refuses connections for a moment: retry)")]
    Unreachable { url: String, reason: String },
    /// The database went away during the work (a restart, a terminated
    /// connection): nothing of it was kept, and a retry is the remedy.
    #[error("{url}: the database went away during the call ({reason}); nothing was written; retry once it is back (tusk reconnects by itself)")]
    Unavailable { url: String, reason: String },
    #[error("{url}: authentication failed ({reason}); check the user and password in the URL")]
    AuthFailed { url: String, reason: String },
    #[error("{url}: {reason}; create it first (createdb, or CREATE DATABASE)")]
    DatabaseMissing { url: String, reason: String },
    #[error("{url}: the database has no tusk schema; run `tusk store init --store URL`")]
    SchemaMissing { url: String },
    #[error(
        "{url}: the tusk schema is version {found}, this tusk uses version {expected}; {hint}"
    )]
    SchemaVersion {
        url: String,
        found: i32,
        expected: i32,
        hint: &'static str,
    },
    /// The store lock was held by another writer for the whole bound.
    #[error("{url}: store lock busy")]
    LockTimeout { url: String },
    #[error("{url}: {reason}")]
    Server { url: String, reason: String },
    /// This process's writer registration was closed by another process
    /// (it had lost its lock with its connection, [`writers`]): nothing was
    /// appended; the process registers anew, so a retry is the remedy.
    #[error("{url}: this process had lost its connection to the database, and another process closed its open runs as interrupted (writer {writer}); nothing was written; retry")]
    WriterClosed { url: String, writer: String },
}

impl PgError {
    /// The failure class reported for this error.
    pub fn class(&self) -> &'static str {
        match self {
            PgError::BadUrl { .. } => StoreClass::BadUrl.as_str(),
            PgError::Unreachable { .. } => StoreClass::Unreachable.as_str(),
            PgError::Unavailable { .. } | PgError::WriterClosed { .. } => {
                StoreClass::Unavailable.as_str()
            }
            PgError::AuthFailed { .. } => StoreClass::AuthFailed.as_str(),
            PgError::DatabaseMissing { .. } => StoreClass::DatabaseMissing.as_str(),
            PgError::SchemaMissing { .. } => StoreClass::SchemaMissing.as_str(),
            PgError::SchemaVersion { .. } => StoreClass::SchemaVersion.as_str(),
            // The issue store turns its own lock's timeout into the lease
            // class (issues::postgres); the database layer knows no issues.
            PgError::LockTimeout { .. } => StoreClass::LockTimeout.as_str(),
            PgError::Server { .. } => StoreClass::BackendError.as_str(),
        }
    }
}

/// Whether `s` names a PostgreSQL store rather than a file.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// What bounds every statement of a tusk connection (issue 58): no query
/// runs past the statement timeout, and no transaction a client left open
/// (a process stopped in a debugger, a dropped network) holds its row locks
/// past the idle-in-transaction timeout. No query is compiled by the JIT:
/// the planner's estimates for the views' correlated conditions (issue 58,
/// `issues::pg_reads`) crossed its threshold, and compiling cost 440 ms of
/// a 1.3 s `issue blocked` at 100,000 issues, more than the query itself.
const SESSION_OPTIONS: &str =
    "-c statement_timeout=30000 -c idle_in_transaction_session_timeout=10000 -c jit=off";

/// One database: its parsed URL and a bounded pool of connections, opened
/// lazily and reopened after the server closes them (long-lived hosts
/// outlive connections; a restarted database closes them all).
#[derive(Clone)]
pub struct PgStore {
    shown: String,
    config: Config,
    pool: std::sync::Arc<pool::Pool>,
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgStore").field("url", &self.shown).finish()
    }
}

impl PgStore {
    /// Parses `url` (no connection yet).
    ///
    /// # Errors
    ///
    /// [`PgError::BadUrl`] when the URL does not parse or names no host.
    pub fn open(url: &str) -> Result<Self, PgError> {
        let bad = |reason: String| PgError::BadUrl {
            url: redact_unparsed(url),
            reason,
        };
        if !is_url(url) {
            return Err(bad(
                "expected postgres://USER:PASSWORD@HOST:PORT/DATABASE".into()
            ));
        }
        let mut config: Config = url.parse().map_err(|e| bad(format!("{e}")))?;
        if config.get_hosts().is_empty() {
            return Err(bad("no host".into()));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
        }
        config.application_name("tusk");
        let options = match config.get_options() {
            Some(given) if !given.trim().is_empty() => format!("{SESSION_OPTIONS} {given}"),
            _ => SESSION_OPTIONS.to_string(),
        };
        config.options(&options);
        let pool = pool::PoolConfig::from_env().map_err(bad)?;
        Ok(Self {
            shown: shown_url(&config),
            config,
            pool: std::sync::Arc::new(pool::Pool::new(pool)),
        })
    }

    /// How many connections this process keeps to the database at most.
    pub fn pool_size(&self) -> usize {
        self.pool.size()
    }

    /// The URL without its password: what reports and messages print.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Runs `f` on a connection whose schema is this build's version.
    ///
    /// # Errors
    ///
    /// A connection or schema error as `E`, or whatever `f` returns.
    pub fn with_client<T, E: From<PgError>>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        self.with_connection(true, f)
    }

    fn with_connection<T, E: From<PgError>>(
        &self,
        check_schema: bool,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        // Inside a unit (a call whose change and rows are one transaction),
        // every statement on this database is the unit's.
        if check_schema && unit::active_for(self) {
            return unit::run(self, true, f);
        }
        let mut conn = self.checkout(check_schema)?;
        let client = conn.client.as_mut().expect("held until dropped");
        let out = f(client);
        if client.is_closed() {
            // The server closed it (a restart, a terminated backend): the
            // idle ones are most likely gone too.
            self.pool.drain_idle();
        }
        out
    }

    /// Runs `f` as one transaction: committed or rolled back as it says
    /// (and rolled back on an error). Inside a unit it is a savepoint of
    /// the unit's transaction, which commits the whole at the unit's end.
    ///
    /// # Errors
    ///
    /// A connection error, or whatever `f` returns.
    pub fn transaction<T, E: From<PgError>>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<End<T>, E>,
    ) -> Result<T, E> {
        let nested = unit::active_for(self);
        let (begin, commit, rollback) = if nested {
            (
                "SAVEPOINT tusk_tx",
                "RELEASE SAVEPOINT tusk_tx",
                "ROLLBACK TO SAVEPOINT tusk_tx",
            )
        } else {
            ("BEGIN", "COMMIT", "ROLLBACK")
        };
        let body = |client: &mut Client| {
            client.batch_execute(begin).map_err(|e| self.error(e))?;
            match f(client) {
                Ok(End::Commit(out)) => {
                    client.batch_execute(commit).map_err(|e| self.error(e))?;
                    Ok(out)
                }
                Ok(End::Rollback(out)) => {
                    client.batch_execute(rollback).map_err(|e| self.error(e))?;
                    Ok(out)
                }
                Err(e) => {
                    // A closed connection rolled back already; a unit whose
                    // savepoint cannot be rolled back to cannot commit.
                    if let Err(failed) = client.batch_execute(rollback) {
                        if nested {
                            unit::poison(self.error(failed));
                        }
                    }
                    Err(e)
                }
            }
        };
        if nested {
            // The body recovers its own errors (its savepoint).
            unit::run(self, false, body)
        } else {
            self.with_connection(true, body)
        }
    }

    /// A connection of the pool; a use that skips the schema check
    /// (`store init`, `store status`) takes one of its own, never pooled.
    fn checkout(&self, check_schema: bool) -> Result<Conn, PgError> {
        if !check_schema {
            let client = self.config.connect(NoTls).map_err(|e| self.error(e))?;
            return Ok(Conn {
                pool: None,
                client: Some(client),
            });
        }
        match self.pool.checkout() {
            None => Err(PgError::Server {
                url: self.shown.clone(),
                reason: format!(
                    "all {} connections of this process stayed busy for {} s; retry, or raise {POOL_ENV}",
                    self.pool.size(),
                    pool::DEFAULT_WAIT.as_secs()
                ),
            }),
            Some(pool::Slot::Reused(client)) => Ok(Conn {
                pool: Some(self.pool.clone()),
                client: Some(*client),
            }),
            Some(pool::Slot::Open) => self.open_connection(),
        }
    }

    fn open_connection(&self) -> Result<Conn, PgError> {
        let opened = (|| {
            let mut client = self.config.connect(NoTls).map_err(|e| self.error(e))?;
            self.check_schema(&mut client)?;
            Ok(client)
        })();
        match opened {
            Ok(client) => Ok(Conn {
                pool: Some(self.pool.clone()),
                client: Some(client),
            }),
            Err(e) => {
                self.pool.failed();
                Err(e)
            }
        }
    }

    fn check_schema(&self, client: &mut Client) -> Result<(), PgError> {
        match schema_version(client).map_err(|e| self.error(e))? {
            None => Err(PgError::SchemaMissing {
                url: self.shown.clone(),
            }),
            Some(v) if v == SCHEMA_VERSION => Ok(()),
            Some(found) => Err(self.version_error(found)),
        }
    }

    /// The error of a schema of another version than this build's.
    pub fn version_error(&self, found: i32) -> PgError {
        PgError::SchemaVersion {
            url: self.shown.clone(),
            found,
            expected: SCHEMA_VERSION,
            hint: if found < SCHEMA_VERSION {
                "run `tusk store init --store URL` to migrate it"
            } else {
                "it was written by a newer tusk; upgrade this one"
            },
        }
    }

    /// Classifies a client error by what the user can do about it.
    pub fn error(&self, e: postgres::Error) -> PgError {
        let url = self.shown.clone();
        if let Some(db) = e.as_db_error() {
            let reason = db.message().to_string();
            let code = db.code();
            return if *code == SqlState::INVALID_PASSWORD
                || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
            {
                PgError::AuthFailed { url, reason }
            } else if *code == SqlState::INVALID_CATALOG_NAME {
                PgError::DatabaseMissing { url, reason }
            } else if *code == SqlState::UNDEFINED_TABLE {
                PgError::SchemaMissing { url }
            } else if *code == SqlState::LOCK_NOT_AVAILABLE {
                PgError::LockTimeout { url }
            } else if code.code().starts_with("57P") || code.code().starts_with("08") {
                // Shut down, restarting, or the connection failed.
                PgError::Unavailable { url, reason }
            } else {
                PgError::Server {
                    url,
                    reason: format!("{reason} (SQLSTATE {})", code.code()),
                }
            };
        }
        let reason =
            std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| format!("{e}: {s}"));
        if e.is_closed() {
            PgError::Unavailable { url, reason }
        } else if reason.contains("timed out") || has_io_source(&e) {
            PgError::Unreachable { url, reason }
        } else {
            PgError::Server { url, reason }
        }
    }

    /// Creates or migrates the schema; idempotent. Returns the versions before and after.
    ///
    /// # Errors
    ///
    /// A connection error, or [`PgError::SchemaVersion`] for a newer schema.
    pub fn init(&self) -> Result<(i32, i32), PgError> {
        self.with_connection(false, |client| {
            let mut tx = client.transaction().map_err(|e| self.error(e))?;
            let run = |tx: &mut postgres::Transaction<'_>| -> Result<(i32, i32), PgError> {
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
                    .map_err(|e| self.error(e))?;
                tx.batch_execute(
                    "CREATE TABLE IF NOT EXISTS tusk_schema_version (version integer NOT NULL)",
                )
                .map_err(|e| self.error(e))?;
                let found: Option<i32> = tx
                    .query_opt("SELECT max(version) FROM tusk_schema_version", &[])
                    .map_err(|e| self.error(e))?
                    .and_then(|row| row.get(0));
                let from = found.unwrap_or(0);
                if from > SCHEMA_VERSION {
                    return Err(self.version_error(from));
                }
                for (i, sql) in MIGRATIONS.iter().enumerate().skip(from as usize) {
                    tx.batch_execute(sql).map_err(|e| self.error(e))?;
                    let version = i as i32 + 1;
                    tx.execute("DELETE FROM tusk_schema_version", &[])
                        .map_err(|e| self.error(e))?;
                    tx.execute(
                        "INSERT INTO tusk_schema_version (version) VALUES ($1)",
                        &[&version],
                    )
                    .map_err(|e| self.error(e))?;
                }
                Ok((from, SCHEMA_VERSION))
            };
            let out = run(&mut tx)?;
            tx.commit().map_err(|e| self.error(e))?;
            Ok(out)
        })
    }

    /// Row counts of every table, for `tusk store status`.
    ///
    /// # Errors
    ///
    /// A connection or schema error.
    pub fn counts(&self) -> Result<Vec<(&'static str, i64)>, PgError> {
        // Every schema version has these tables: an old one is counted too.
        self.with_connection(false, |client| {
            let mut out = Vec::new();
            for (name, sql) in [
                ("issueLines", "SELECT count(*) FROM tusk_issue_lines"),
                ("trajectoryRows", "SELECT count(*) FROM tusk_trajectory"),
                ("effectRows", "SELECT count(*) FROM tusk_effects"),
            ] {
                let n: i64 = client
                    .query_one(sql, &[])
                    .map_err(|e| self.error(e))?
                    .get(0);
                out.push((name, n));
            }
            Ok(out)
        })
    }

    /// The schema version found, `None` without a schema.
    ///
    /// # Errors
    ///
    /// A connection error.
    pub fn found_version(&self) -> Result<Option<i32>, PgError> {
        self.with_connection(false, |client| {
            schema_version(client).map_err(|e| self.error(e))
        })
    }
}

/// A checked-out connection: back to its pool when dropped (after a panic
/// it is closed and its place freed: a transaction may be open on it).
/// One of its own (`pool: None`) is closed.
pub(crate) struct Conn {
    pool: Option<std::sync::Arc<pool::Pool>>,
    client: Option<Client>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let (Some(client), Some(pool)) = (self.client.take(), self.pool.take()) else {
            return;
        };
        if std::thread::panicking() {
            drop(client);
            pool.failed();
        } else {
            pool.checkin(client);
        }
    }
}

fn schema_version(client: &mut Client) -> Result<Option<i32>, postgres::Error> {
    // One statement (it is on every new connection's path): a database
    // without the table answers UNDEFINED_TABLE, which means no schema.
    match client.simple_query("SELECT max(version) FROM tusk_schema_version") {
        Ok(replies) => Ok(replies.iter().find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(row) => row.get(0).and_then(|v| v.parse().ok()),
            _ => None,
        })),
        Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => Ok(None),
        Err(e) => Err(e),
    }
}

fn has_io_source(e: &postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// `postgres://user@host:port/db`: the URL as configured, without the password.
fn shown_url(config: &Config) -> String {
    let mut out = String::from("postgres://");
    if let Some(user) = config.get_user() {
        out.push_str(user);
        out.push('@');
    }
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let host = match h {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    out.push_str(&hosts.join(","));
    out.push('/');
    out.push_str(config.get_dbname().unwrap_or(""));
    out
}

/// A URL that did not parse, with anything between `:` and `@` blanked.
fn redact_unparsed(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.chars().take(80).collect();
    };
    let rest = &url[scheme_end + 3..];
    match (rest.find('@'), rest.find(':')) {
        (Some(at), Some(colon)) if colon < at => {
            format!(
                "{}{}:***{}",
                &url[..scheme_end + 3],
                &rest[..colon],
                &rest[at..]
            )
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_never_carry_the_password() {
        let pg = PgStore::open("postgres://alice:s3cret@db.example:6543/queue").unwrap();
        assert_eq!(pg.shown(), "postgres://alice@db.example:6543/queue");
        let bad = PgStore::open("postgres://alice:s3cret@/x?port=notaport").unwrap_err();
        assert!(!bad.to_string().contains("s3cret"), "{bad}");
        assert_eq!(bad.class(), "store.bad_url");
        assert_eq!(
            PgStore::open("mysql://x").unwrap_err().class(),
            "store.bad_url"
        );
    }
}
