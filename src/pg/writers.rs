//! Which process writes a database's runs, so that a run whose process died
//! is closed (issue 61): the file store's writer markers
//! ([`crate::logs::writers`]) for a log that several machines share, where
//! no `flock` reaches.
//!
//! **Liveness.** A process that writes runs to a database's effect log
//! registers a *writer*: a row of `tusk_log_writers` (its id, a lock key,
//! the footer that closes a run of it) and a session advisory lock on
//! `(WRITERS, key)` held by one of its pool's connections, which lives as
//! long as the process unless it fails. The row is inserted only by the
//! statement that takes the lock, so a row anybody sees has its lock taken. A process killed (on any machine)
//! loses its connection, and the database its lock. Each run's header names
//! the writer (`writer`), as on the file store.
//!
//! **Closing.** [`close_dead`] (a command's or a server's start, `tusk
//! doctor`) finds the writers whose lock it can take: their runs without a
//! footer get that footer (`recovered: true`, chained to the run's last
//! row), and the row goes, in one transaction that holds the writer's lock
//! and its row.
//!
//! **Fencing.** A live process can lose its lock without dying: the
//! database restarted, or its connection was cut. A closer may then close
//! its open runs. So every row a registered writer appends is appended only
//! while its writer row exists, locked `FOR SHARE` in the appending
//! statement ([`super::logs::append_fenced`]): a closer (which locks the row
//! `FOR UPDATE` before it reads the runs) and an append are serialized, and
//! a writer whose row was closed appends nothing again — its call fails as
//! `store.unavailable` (retry) and the process registers anew. No row of a
//! closed run follows its footer.
//!
//! Decided: a session advisory lock rather than a heartbeat: it is released
//! the moment the database sees the connection go, with no clock and no
//! grace period to tune, and no connection of its own (a one-command
//! process keeps the one it has).

use super::{PgError, PgStore};
use postgres::Client;
use serde_json::Value;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The advisory lock class of writers' liveness locks (`"tusk"`): the
/// two-key form, apart from the one-key locks of `super` (`ISSUES_LOCK`…).
pub const WRITERS: i32 = 0x7475_736b;

/// How long a writer's lock may go unchecked before a run asks whether
/// it is still held.
const RECHECK: Duration = Duration::from_secs(2);

/// A writer registered by this process on one database.
struct Live {
    /// The database's shown URL (one writer per database per process).
    db: String,
    /// Its store, whose pool holds the lock's connection.
    pg: PgStore,
    writer: String,
    key: i32,
    /// When the lock was last seen held.
    checked: Instant,
}

static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());

/// This process's writer id on `pg`'s database, registered on the first
/// call (and again when its lock was lost and its row closed meanwhile);
/// `footer` is what closes a run of it if the process dies.
///
/// The lock is a session lock of one of the pool's connections: it lives
/// as long as that connection, which the pool keeps while it is healthy
/// (a one-command process makes no second connection for it). A lost
/// connection loses the lock; a run more than [`RECHECK`] after the last
/// look asks the database whether it is still held, and takes it again
/// while the writer's row stands.
///
/// # Errors
/// The database could not register it (the run is written without one).
pub fn writer_id(pg: &PgStore, footer: &Value) -> Result<String, PgError> {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = live.iter().position(|l| l.db == pg.shown()) {
        let entry = &mut live[i];
        if entry.checked.elapsed() < RECHECK {
            return Ok(entry.writer.clone());
        }
        let (writer, key) = (entry.writer.clone(), entry.key);
        if held_or_retaken(pg, &writer, key)? {
            live[i].checked = Instant::now();
            return Ok(writer);
        }
        live.remove(i);
    }
    let (writer, key) = register(pg, footer)?;
    live.push(Live {
        db: pg.shown().to_string(),
        pg: pg.clone(),
        writer: writer.clone(),
        key,
        checked: Instant::now(),
    });
    Ok(writer)
}

/// Whether `writer`'s lock is held (by this process: nobody else takes
/// it but a closer, for the length of its transaction), or was free and
/// is taken again while its row stands. `false` when the row was closed.
fn held_or_retaken(pg: &PgStore, writer: &str, key: i32) -> Result<bool, PgError> {
    pg.with_client(|client| {
        let row = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' \
                     AND classid = $1::int::oid AND objid = $2::int::oid AND objsubid = 2 \
                     AND granted AND database = (SELECT oid FROM pg_database \
                                                 WHERE datname = current_database())), \
                        EXISTS (SELECT 1 FROM tusk_log_writers WHERE writer = $3)",
                &[&WRITERS, &key, &writer],
            )
            .map_err(|e| pg.error(e))?;
        let (held, stands): (bool, bool) = (row.get(0), row.get(1));
        if !stands {
            return Ok(false);
        }
        if held {
            return Ok(true);
        }
        // Taken on this connection; the row checked again under the lock.
        let row = client
            .query_one(
                "SELECT pg_try_advisory_lock($1, $2) \
                    AND EXISTS (SELECT 1 FROM tusk_log_writers WHERE writer = $3)",
                &[&WRITERS, &key, &writer],
            )
            .map_err(|e| pg.error(e))?;
        Ok(row.get(0))
    })
}

/// A new writer: its id and key, its lock taken on a pool connection
/// and its row inserted in one statement (the row only with the lock).
fn register(pg: &PgStore, footer: &Value) -> Result<(String, i32), PgError> {
    let host = hostname();
    let footer = footer.to_string();
    for _ in 0..8 {
        let bytes = random_bytes();
        let key = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3] & 0x7f]);
        let writer = format!(
            "{host}-{}-{}",
            std::process::id(),
            crate::canonical::hex(&bytes[4..])
        );
        // A key another live writer holds is drawn again, never waited for.
        let inserted = pg.with_client(|client| {
            client
                .execute(
                    "INSERT INTO tusk_log_writers (writer, lock_key, footer) \
                     SELECT $1, $2, $3 WHERE pg_try_advisory_lock($4, $2)",
                    &[&writer, &key, &footer, &WRITERS],
                )
                .map_err(|e| pg.error(e))
        })?;
        if inserted == 1 {
            return Ok((writer, key));
        }
    }
    Err(PgError::Server {
        url: pg.shown().to_string(),
        reason: "no free writer lock key in 8 draws".into(),
    })
}

fn random_bytes() -> [u8; 12] {
    let mut bytes = [0u8; 12];
    // The pid is in the id too: a failed draw still names this process.
    let _ = getrandom::fill(&mut bytes);
    bytes
}

/// This machine's name, for a person reading the writers table (ids are
/// unique without it).
fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let name = if ok {
        String::from_utf8_lossy(&buf[..end]).to_string()
    } else {
        String::new()
    };
    let name: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        .take(63)
        .collect();
    if name.is_empty() {
        "host".into()
    } else {
        name
    }
}

/// The writer's registration was closed by another process (its lock had
/// been lost): it is forgotten, so that the next run registers anew.
pub(super) fn forget(pg: &PgStore, writer: &str) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.retain(|l| !(l.db == pg.shown() && l.writer == writer));
}

/// Removes this process's writers: it ends, and every run it wrote ended
/// with its footer. A row that cannot be removed is closed by the next
/// closer (it finds no open run).
pub fn unregister_all() {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for l in live.drain(..) {
        let _ = l.pg.with_client(|client| {
            client
                .execute(
                    "DELETE FROM tusk_log_writers WHERE writer = $1",
                    &[&l.writer],
                )
                .map_err(|e| l.pg.error(e))
        });
    }
}

/// Closes the runs whose writer died, on `pg`'s database: the run ids
/// closed. Nothing dead costs one statement.
///
/// # Errors
/// A database error (nothing was closed).
pub fn close_dead(pg: &PgStore) -> Result<Vec<String>, PgError> {
    // Once per process and database: a command opens its store more than
    // once (its own start, then its host's), and a writer that died after
    // this process started is closed by the next one.
    static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());
    {
        let done = DONE.lock().unwrap_or_else(|e| e.into_inner());
        if done.iter().any(|d| d == pg.shown()) {
            return Ok(Vec::new());
        }
    }
    let closed = close_dead_now(pg)?;
    DONE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(pg.shown().to_string());
    Ok(closed)
}

fn close_dead_now(pg: &PgStore) -> Result<Vec<String>, PgError> {
    // Outside a transaction first: a lock taken here is released at the
    // statement's end, so the common case (every writer alive) is one
    // round trip.
    let any: bool = pg.with_client(|client| {
        client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM tusk_log_writers \
                 WHERE pg_try_advisory_xact_lock($1, lock_key))",
                &[&WRITERS],
            )
            .map(|r| r.get(0))
            .map_err(|e| pg.error(e))
    })?;
    if !any {
        return Ok(Vec::new());
    }
    pg.transaction(|client| {
        // A writer appending holds its row FOR SHARE: it lives, skip it.
        let dead = client
            .query(
                "SELECT writer, footer FROM tusk_log_writers \
                 WHERE pg_try_advisory_xact_lock($1, lock_key) \
                 ORDER BY writer FOR UPDATE SKIP LOCKED",
                &[&WRITERS],
            )
            .map_err(|e| pg.error(e))?;
        let mut closed = Vec::new();
        for row in &dead {
            let (writer, footer): (String, String) = (row.get(0), row.get(1));
            let footer: Value = serde_json::from_str(&footer).unwrap_or(Value::Null);
            let end_kind = footer["kind"].as_str().unwrap_or_default().to_string();
            let mut lines = Vec::new();
            for (run_id, last) in open_runs(pg, client, &writer, &end_kind)? {
                lines.push(crate::logs::writers::seal(&footer, &run_id, &last));
                closed.push(run_id);
            }
            if !lines.is_empty() {
                client
                    .execute(super::logs::LogTable::Effects.insert_sql(), &[&lines])
                    .map_err(|e| pg.error(e))?;
            }
            client
                .execute("DELETE FROM tusk_log_writers WHERE writer = $1", &[&writer])
                .map_err(|e| pg.error(e))?;
        }
        Ok(super::End::Commit(closed))
    })
}

/// The runs of `writer` without a footer, each with its last row's digest:
/// its headers found by the writer's id, then every row of those runs.
fn open_runs(
    pg: &PgStore,
    client: &mut Client,
    writer: &str,
    end_kind: &str,
) -> Result<Vec<(String, String)>, PgError> {
    let headers = client
        .query(
            "SELECT seq, line FROM tusk_effects WHERE strpos(line, $1) > 0 ORDER BY seq",
            &[&writer],
        )
        .map_err(|e| pg.error(e))?;
    let mut runs: Vec<(String, String, bool)> = Vec::new();
    let mut first = None;
    for h in &headers {
        let (seq, line): (i64, &str) = (h.get(0), h.get(1));
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if row.get("writer").and_then(Value::as_str) != Some(writer) {
            continue;
        }
        if let Some(run_id) = row.get("runId").and_then(Value::as_str) {
            first.get_or_insert(seq);
            runs.push((run_id.to_string(), String::new(), false));
        }
    }
    let Some(first) = first else {
        return Ok(Vec::new());
    };
    let ids: Vec<&str> = runs.iter().map(|(id, ..)| id.as_str()).collect();
    let rows = client
        .query(
            "SELECT line FROM tusk_effects \
             WHERE seq >= $1 AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS id \
                                         WHERE strpos(line, id) > 0) \
             ORDER BY seq",
            &[&first, &ids],
        )
        .map_err(|e| pg.error(e))?;
    for r in &rows {
        let line: &str = r.get(0);
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(run_id) = row.get("runId").and_then(Value::as_str) else {
            continue;
        };
        if let Some(run) = runs.iter_mut().find(|(id, ..)| id == run_id) {
            run.1 = crate::chain::row_digest(line.as_bytes());
            run.2 |= row.get("kind").and_then(Value::as_str) == Some(end_kind);
        }
    }
    Ok(runs
        .into_iter()
        .filter(|(_, last, ended)| !ended && !last.is_empty())
        .map(|(id, last, _)| (id, last))
        .collect())
}
