//! The append-only logs (trajectory, effect log) in PostgreSQL: one row per
//! JSONL line, in commit order.

use super::{PgError, PgStore};

/// Which log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogTable {
    Trajectory,
    Effects,
}

impl LogTable {
    pub(super) fn insert_sql(self) -> &'static str {
        match self {
            LogTable::Trajectory => {
                "INSERT INTO tusk_trajectory (line) SELECT * FROM unnest($1::text[])"
            }
            LogTable::Effects => "INSERT INTO tusk_effects (line) SELECT * FROM unnest($1::text[])",
        }
    }

    /// [`Self::insert_sql`] only while `$2`'s writer row stands, locked
    /// for the statement ([`append_fenced`]).
    fn fenced_insert_sql(self) -> &'static str {
        match self {
            LogTable::Trajectory => {
                "INSERT INTO tusk_trajectory (line) SELECT l FROM unnest($1::text[]) AS l \
                 WHERE EXISTS (SELECT 1 FROM tusk_log_writers WHERE writer = $2 FOR SHARE)"
            }
            LogTable::Effects => {
                "INSERT INTO tusk_effects (line) SELECT l FROM unnest($1::text[]) AS l \
                 WHERE EXISTS (SELECT 1 FROM tusk_log_writers WHERE writer = $2 FOR SHARE)"
            }
        }
    }

    fn select_sql(self) -> &'static str {
        match self {
            LogTable::Trajectory => "SELECT line FROM tusk_trajectory ORDER BY seq",
            LogTable::Effects => "SELECT line FROM tusk_effects ORDER BY seq",
        }
    }
}

/// Appends `lines` (without newlines) in one statement: each line stays whole,
/// and the lines of one call are committed together and keep their order.
///
/// # Errors
///
/// A connection or schema error; then nothing was appended.
pub fn append_lines(pg: &PgStore, table: LogTable, lines: &[&str]) -> Result<(), PgError> {
    if lines.is_empty() {
        return Ok(());
    }
    pg.with_client(|client| {
        // Typed: one round trip (no prepare), twice per call.
        client
            .execute_typed(
                table.insert_sql(),
                &[(&lines, postgres::types::Type::TEXT_ARRAY)],
            )
            .map_err(|e| pg.error(e))?;
        Ok(())
    })
}

/// [`append_lines`] for a run of a registered writer ([`super::writers`]):
/// appended only while the writer's row stands, locked for the statement
/// (a closer locks it before it reads the runs it closes). A writer whose
/// row was closed appends nothing: the error says to retry, and the
/// process's next run registers anew.
///
/// # Errors
///
/// A connection or schema error, or the writer was closed; then nothing
/// was appended.
pub fn append_fenced(
    pg: &PgStore,
    table: LogTable,
    lines: &[&str],
    writer: &str,
) -> Result<(), PgError> {
    if lines.is_empty() {
        return Ok(());
    }
    let closed = || PgError::WriterClosed {
        url: pg.shown().to_string(),
        writer: writer.to_string(),
    };
    pg.with_client(|client| {
        let n = client
            .execute_typed(
                table.fenced_insert_sql(),
                &[
                    (&lines, postgres::types::Type::TEXT_ARRAY),
                    (&writer, postgres::types::Type::TEXT),
                ],
            )
            .map_err(|e| pg.error(e))?;
        if n == 0 {
            // Inside a call's unit, its change is not kept either.
            super::unit::poison(closed());
            return Err(closed());
        }
        Ok(())
    })
    .inspect_err(|e| {
        if matches!(e, PgError::WriterClosed { .. }) {
            super::writers::forget(pg, writer);
        }
    })
}

/// The log as the JSONL bytes its file twin would hold.
///
/// # Errors
///
/// A connection or schema error.
pub fn read_lines(pg: &PgStore, table: LogTable) -> Result<Vec<u8>, PgError> {
    pg.with_client(|client| {
        let rows = client
            .query(table.select_sql(), &[])
            .map_err(|e| pg.error(e))?;
        let mut out = Vec::with_capacity(rows.len() * 256);
        for row in &rows {
            out.extend_from_slice(row.get::<_, &str>(0).as_bytes());
            out.push(b'\n');
        }
        Ok(out)
    })
}

impl LogTable {
    fn table_name(self) -> &'static str {
        match self {
            LogTable::Trajectory => "tusk_trajectory",
            LogTable::Effects => "tusk_effects",
        }
    }
}

/// Up to `limit` rows `(seq, line)` with `seq < before` (all rows when
/// `before` is `None`), newest first: a page read from the log's end without
/// reading the rest (the primary key orders and bounds it).
///
/// # Errors
///
/// A connection or schema error.
pub fn read_before(
    pg: &PgStore,
    table: LogTable,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<(i64, String)>, PgError> {
    let sql = format!(
        "SELECT seq, line FROM {} WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
        table.table_name()
    );
    let before = before.unwrap_or(i64::MAX);
    pg.with_client(|client| {
        let rows = client
            .query(&sql, &[&before, &limit])
            .map_err(|e| pg.error(e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    })
}

/// Up to `limit` rows `(seq, line)` with `seq >= from`, oldest first.
///
/// # Errors
///
/// A connection or schema error.
pub fn read_from(
    pg: &PgStore,
    table: LogTable,
    from: i64,
    limit: i64,
) -> Result<Vec<(i64, String)>, PgError> {
    let sql = format!(
        "SELECT seq, line FROM {} WHERE seq >= $1 ORDER BY seq LIMIT $2",
        table.table_name()
    );
    pg.with_client(|client| {
        let rows = client
            .query(&sql, &[&from, &limit])
            .map_err(|e| pg.error(e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    })
}

/// The newest row whose line contains `needle`, if any (a sequential scan:
/// for finding a run nobody gave the position of).
///
/// # Errors
///
/// A connection or schema error.
pub fn find_last(pg: &PgStore, table: LogTable, needle: &str) -> Result<Option<i64>, PgError> {
    let sql = format!(
        "SELECT seq FROM {} WHERE strpos(line, $1) > 0 ORDER BY seq DESC LIMIT 1",
        table.table_name()
    );
    pg.with_client(|client| {
        let rows = client.query(&sql, &[&needle]).map_err(|e| pg.error(e))?;
        Ok(rows.first().map(|r| r.get(0)))
    })
}

/// The first and last `seq` of a log table (`None` when it is empty): the
/// range a search by position bisects.
///
/// # Errors
///
/// A connection or schema error.
pub fn seq_bounds(pg: &PgStore, table: LogTable) -> Result<Option<(i64, i64)>, PgError> {
    let sql = format!("SELECT min(seq), max(seq) FROM {}", table.table_name());
    pg.with_client(|client| {
        let row = client.query_one(&sql, &[]).map_err(|e| pg.error(e))?;
        let (min, max): (Option<i64>, Option<i64>) = (row.get(0), row.get(1));
        Ok(min.zip(max))
    })
}
