//! The issue memory in PostgreSQL: the store's lines as rows, mutated through
//! the file store's own parse and edit under one transaction.

use super::{PgError, PgStore, ISSUES_LOCK};
use crate::issues::store::{Edit, LockOptions, Store, StoreError};
use postgres::Transaction;
use std::path::Path;

/// Whether the file ended with a newline (restored by export).
const TRAILING_NEWLINE: &str = "issues.trailing_newline";

/// The store text: every line in order, joined as the file held them.
///
/// # Errors
///
/// A connection or schema error.
pub fn read_issue_text(pg: &PgStore) -> Result<String, PgError> {
    pg.with_client(|client| {
        let mut tx = client.transaction().map_err(|e| pg.error(e))?;
        let text = load(pg, &mut tx)?;
        tx.commit().map_err(|e| pg.error(e))?;
        Ok(text)
    })
}

fn load(pg: &PgStore, tx: &mut Transaction<'_>) -> Result<String, PgError> {
    let rows = tx
        .query("SELECT line FROM tusk_issue_lines ORDER BY ord", &[])
        .map_err(|e| pg.error(e))?;
    let trailing = tx
        .query_opt(
            "SELECT value FROM tusk_meta WHERE key = $1",
            &[&TRAILING_NEWLINE],
        )
        .map_err(|e| pg.error(e))?
        .is_some_and(|row| row.get::<_, &str>(0) == "1");
    let mut text = String::with_capacity(rows.len() * 256);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(row.get(0));
    }
    if trailing && !rows.is_empty() {
        text.push('\n');
    }
    Ok(text)
}

fn set_trailing(pg: &PgStore, tx: &mut Transaction<'_>, trailing: bool) -> Result<(), PgError> {
    let value = if trailing { "1" } else { "0" };
    tx.execute(
        "INSERT INTO tusk_meta (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&TRAILING_NEWLINE, &value],
    )
    .map_err(|e| pg.error(e))?;
    Ok(())
}

/// One mutation as one transaction: lock, re-read, apply, write the edited line.
///
/// # Errors
///
/// [`StoreError::LockBusy`] past the lock bound, a corrupt store, or a database error;
/// nothing is written in any of these cases.
pub fn mutate_issues<T>(
    pg: &PgStore,
    lock: LockOptions,
    apply: impl FnOnce(&Store<'_>) -> (T, Option<Edit>),
) -> Result<T, StoreError> {
    let shown = pg.shown().to_string();
    let started = std::time::Instant::now();
    let busy = |e: PgError| match e {
        PgError::LockTimeout { .. } => StoreError::LockBusy {
            path: shown.clone(),
            waited_ms: started.elapsed().as_millis(),
        },
        other => StoreError::Backend(other),
    };
    pg.with_client(|client| {
        let mut tx = client.transaction().map_err(|e| busy(pg.error(e)))?;
        // The bound covers waiting for the advisory lock only, like the file lock's.
        tx.batch_execute(&format!(
            "SET LOCAL lock_timeout = '{}ms'",
            lock.timeout.as_millis().max(1)
        ))
        .map_err(|e| busy(pg.error(e)))?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ISSUES_LOCK])
            .map_err(|e| busy(pg.error(e)))?;
        tx.batch_execute("SET LOCAL lock_timeout = 0")
            .map_err(|e| busy(pg.error(e)))?;
        let text = load(pg, &mut tx).map_err(busy)?;
        let store = Store::parse(Path::new(&shown), &text)?;
        let (out, edit) = apply(&store);
        match edit {
            None => return Ok(out),
            Some(Edit::Replace { line_index, json }) => {
                let ord = store.lines[line_index].line as i64;
                tx.execute(
                    "UPDATE tusk_issue_lines SET line = $2 WHERE ord = $1",
                    &[&ord, &json],
                )
                .map_err(|e| busy(pg.error(e)))?;
            }
            Some(Edit::Append { json }) => {
                tx.execute(
                    "INSERT INTO tusk_issue_lines (ord, line) \
                     SELECT coalesce(max(ord), 0) + 1, $1 FROM tusk_issue_lines",
                    &[&json],
                )
                .map_err(|e| busy(pg.error(e)))?;
                set_trailing(pg, &mut tx, true).map_err(busy)?;
            }
        }
        tx.commit().map_err(|e| busy(pg.error(e)))?;
        Ok(out)
    })
}

/// What `import` does to a database that already holds issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportMode {
    /// Refuse (nothing is written).
    IntoEmpty,
    /// Replace every line.
    Replace,
}

/// Loads a JSONL store line for line (after checking every line, so a corrupt
/// file writes nothing). Returns the number of issues.
///
/// # Errors
///
/// A corrupt store, [`StoreError::NotEmpty`] for `IntoEmpty` on a non-empty
/// database, or a database error.
pub fn import_issues(
    pg: &PgStore,
    source: &Path,
    text: &str,
    mode: ImportMode,
) -> Result<usize, StoreError> {
    let store = Store::parse(source, text)?;
    let count = store.issue_count();
    pg.with_client(|client| {
        let mut tx = client.transaction().map_err(|e| pg.error(e))?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ISSUES_LOCK])
            .map_err(|e| pg.error(e))?;
        let present: i64 = tx
            .query_one("SELECT count(*) FROM tusk_issue_lines", &[])
            .map_err(|e| pg.error(e))?
            .get(0);
        if present > 0 && mode == ImportMode::IntoEmpty {
            return Err(StoreError::NotEmpty {
                path: pg.shown().to_string(),
                lines: present as u64,
            });
        }
        tx.execute("DELETE FROM tusk_issue_lines", &[])
            .map_err(|e| pg.error(e))?;
        let body = text.strip_suffix('\n');
        let lines: Vec<&str> = match body {
            Some(b) => b.split('\n').collect(),
            None if text.is_empty() => Vec::new(),
            None => text.split('\n').collect(),
        };
        let insert = tx
            .prepare("INSERT INTO tusk_issue_lines (ord, line) SELECT * FROM unnest($1::bigint[], $2::text[])")
            .map_err(|e| pg.error(e))?;
        for (k, chunk) in lines.chunks(5000).enumerate() {
            let ords: Vec<i64> = (0..chunk.len())
                .map(|i| (k * 5000 + i + 1) as i64)
                .collect();
            tx.execute(&insert, &[&ords, &chunk])
                .map_err(|e| pg.error(e))?;
        }
        set_trailing(pg, &mut tx, body.is_some())?;
        tx.commit().map_err(|e| pg.error(e))?;
        Ok(count)
    })
}

/// The store as the JSONL file it would be (an import's exact bytes).
///
/// # Errors
///
/// A connection or schema error.
pub fn export_issues(pg: &PgStore) -> Result<String, PgError> {
    read_issue_text(pg)
}
