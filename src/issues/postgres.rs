//! The issue memory in PostgreSQL: the store's lines as rows, mutated through
//! the file store's own parse and edit under one transaction.

use super::filter::IssueFilter;
use super::footprint::Footprint;
use super::model::Issue;
use super::store::{Edit, LockOptions, Store, StoreError};
use super::views::natural_key;
use crate::pg::End;
use crate::pg::{PgError, PgStore, GRAPH_LOCK, ISSUES_LOCK};
use postgres::types::Type;
use postgres::Client;
use std::path::Path;

/// Whether the file ended with a newline (restored by export).
const TRAILING_NEWLINE: &str = "issues.trailing_newline";

/// A cheap token of the issue lines' version: their count and the newest
/// row version (`xmin`) among them. Every mutation writes new row versions,
/// so the token changes with the lines; reading it scans no line text.
/// (After transaction-id wraparound a change could keep the old maximum: a
/// reader that caches on it should also bound the cache's age.)
///
/// # Errors
///
/// A connection or schema error.
pub fn lines_version(pg: &PgStore) -> Result<(i64, i64), PgError> {
    pg.with_client(|client| {
        let row = client
            .query_one(
                "SELECT count(*), coalesce(max(xmin::text::bigint), 0) FROM tusk_issue_lines",
                &[],
            )
            .map_err(|e| pg.error(e))?;
        Ok((row.get(0), row.get(1)))
    })
}

/// The store text: every line in order, joined as the file held them.
///
/// # Errors
///
/// A connection or schema error.
pub fn read_issue_text(pg: &PgStore) -> Result<String, PgError> {
    pg.transaction(|tx| Ok(End::Commit(load(pg, tx)?)))
}

fn load(pg: &PgStore, tx: &mut Client) -> Result<String, PgError> {
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

fn set_trailing(pg: &PgStore, tx: &mut Client, trailing: bool) -> Result<(), PgError> {
    let value = if trailing { "1" } else { "0" };
    tx.execute(
        "INSERT INTO tusk_meta (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&TRAILING_NEWLINE, &value],
    )
    .map_err(|e| pg.error(e))?;
    Ok(())
}

/// What the file store's parser reads from one line: the columns that let
/// claim-next find ready issues in SQL.
struct Derived {
    issue_id: Option<String>,
    status: Option<String>,
    closed: Option<bool>,
    priority: Option<i64>,
    id_key: Option<Vec<u8>>,
    blockers: Vec<String>,
    /// Every edge's target and type, in the line's order (migration 004).
    edge_targets: Vec<String>,
    edge_types: Vec<String>,
    /// The routing columns as JSON text (migration 002): what a filter reads.
    route: Option<String>,
}

impl Derived {
    const BLANK: Derived = Derived {
        issue_id: None,
        status: None,
        closed: None,
        priority: None,
        id_key: None,
        blockers: Vec::new(),
        edge_targets: Vec::new(),
        edge_types: Vec::new(),
        route: None,
    };

    fn of(issue: &Issue<'_>) -> Self {
        Derived {
            issue_id: Some(issue.id.as_str().to_string()),
            status: Some(issue.status.as_str().to_string()),
            closed: Some(issue.is_closed()),
            priority: Some(issue.priority),
            id_key: Some(natural_key(issue.id.as_str())),
            blockers: issue
                .blocking_deps()
                .map(|d| d.depends_on.as_str().to_string())
                .collect(),
            edge_targets: issue
                .deps
                .iter()
                .map(|d| d.depends_on.as_str().to_string())
                .collect(),
            edge_types: issue.deps.iter().map(|d| d.dep_type.to_string()).collect(),
            route: Some(route_of(issue)),
        }
    }

    /// The columns of a line about to be written (a line tusk wrote parses).
    fn of_line(json: &str) -> Self {
        match Store::parse(Path::new(""), json) {
            Ok(store) => store.issues().next().map_or(Derived::BLANK, Derived::of),
            Err(_) => Derived::BLANK,
        }
    }
}

/// The `route` column of an issue: the members a routing filter reads, as
/// the parser reads them.
fn route_of(issue: &Issue<'_>) -> String {
    serde_json::json!({
        "labels": issue.labels.iter().map(|l| l.as_str()).collect::<Vec<_>>(),
        "type": issue.issue_type.as_str(),
        "assignee": issue.assignee.as_ref().map(|a| a.as_str()),
        "parents": issue
            .deps
            .iter()
            .filter(|d| d.dep_type == "parent-child")
            .map(|d| d.depends_on.as_str())
            .collect::<Vec<_>>(),
    })
    .to_string()
}

/// SQL conditions on a ready line (`i`) that every issue `filter` passes
/// meets, with their parameters (numbered from `$1`). Exact for every member
/// but the text and time ones (`titleContains`, `descriptionContains`,
/// `created…`, `updated…`), which the database could decide differently
/// from the parser (case folding, timestamp forms): they are left to the
/// filter itself, run on the candidates (a superset is enough; see
/// [`mutate_ready`]).
pub(super) fn route_sql(
    filter: &IssueFilter,
) -> (String, Vec<Box<dyn postgres::types::ToSql + Sync>>) {
    let mut sql = String::new();
    let mut params: Vec<Box<dyn postgres::types::ToSql + Sync>> = Vec::new();
    let mut add = |cond: &str, param: Option<Box<dyn postgres::types::ToSql + Sync>>| {
        let n = params.len() + 1;
        sql.push_str(" AND ");
        sql.push_str(&cond.replace("$?", &format!("${n}")));
        if let Some(p) = param {
            params.push(p);
        }
    };
    if !filter.labels.is_empty() {
        add(
            "(i.route -> 'labels') ?& $?::text[]",
            Some(Box::new(filter.labels.clone())),
        );
    }
    if !filter.labels_any.is_empty() {
        add(
            "(i.route -> 'labels') ?| $?::text[]",
            Some(Box::new(filter.labels_any.clone())),
        );
    }
    if !filter.exclude_labels.is_empty() {
        add(
            "NOT ((i.route -> 'labels') ?| $?::text[])",
            Some(Box::new(filter.exclude_labels.clone())),
        );
    }
    if !filter.types.is_empty() {
        add(
            "(i.route ->> 'type') = ANY($?::text[])",
            Some(Box::new(filter.types.clone())),
        );
    }
    if let Some(p) = filter.priority_min {
        add("i.priority >= $?", Some(Box::new(p)));
    }
    if let Some(p) = filter.priority_max {
        add("i.priority <= $?", Some(Box::new(p)));
    }
    if let Some(a) = &filter.assignee {
        add("(i.route ->> 'assignee') = $?", Some(Box::new(a.clone())));
    }
    if filter.unassigned {
        add("coalesce(i.route ->> 'assignee', '') = ''", None);
    }
    if let Some(p) = &filter.id_prefix {
        add("starts_with(i.issue_id, $?)", Some(Box::new(p.clone())));
    }
    if let Some(p) = &filter.parent {
        add("(i.route -> 'parents') ? $?", Some(Box::new(p.clone())));
    }
    (sql, params)
}

/// Writes line `ord` with its derived columns and blockers.
fn write_line(
    tx: &mut Client,
    ord: i64,
    json: &str,
    d: &Derived,
    insert: bool,
) -> Result<(), postgres::Error> {
    let sql = if insert {
        "INSERT INTO tusk_issue_lines \
         (ord, line, indexed, issue_id, status, closed, priority, id_key, route) \
         VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8::text::jsonb)"
    } else {
        "UPDATE tusk_issue_lines SET line = $2, indexed = true, issue_id = $3, status = $4, \
         closed = $5, priority = $6, id_key = $7, route = $8::text::jsonb WHERE ord = $1"
    };
    // Typed: one round trip each (no prepare), on the path of every mutation.
    tx.execute_typed(
        sql,
        &[
            (&ord, Type::INT8),
            (&json, Type::TEXT),
            (&d.issue_id, Type::TEXT),
            (&d.status, Type::TEXT),
            (&d.closed, Type::BOOL),
            (&d.priority, Type::INT8),
            (&d.id_key, Type::BYTEA),
            (&d.route, Type::TEXT),
        ],
    )?;
    // The line's blockers and edges replaced in one statement (one round
    // trip: the deletes cannot see the inserted rows, all share a snapshot).
    if !insert || !d.edge_targets.is_empty() {
        tx.execute_typed(
            "WITH gone_b AS (DELETE FROM tusk_issue_blockers WHERE ord = $1), \
                  gone_e AS (DELETE FROM tusk_issue_edges WHERE ord = $1), \
                  new_b AS (INSERT INTO tusk_issue_blockers (ord, depends_on) \
                            SELECT $1, * FROM unnest($2::text[])) \
             INSERT INTO tusk_issue_edges (ord, depends_on, dep_type) \
             SELECT $1, t, k FROM unnest($3::text[], $4::text[]) AS u(t, k)",
            &[
                (&ord, Type::INT8),
                (&d.blockers, Type::TEXT_ARRAY),
                (&d.edge_targets, Type::TEXT_ARRAY),
                (&d.edge_types, Type::TEXT_ARRAY),
            ],
        )?;
    }
    Ok(())
}

/// Recomputes which lines are superseded by a later line with the same id.
fn mark_superseded(tx: &mut Client) -> Result<(), postgres::Error> {
    tx.batch_execute(
        "UPDATE tusk_issue_lines l SET superseded = (l.ord < m.last) \
         FROM (SELECT issue_id, max(ord) AS last FROM tusk_issue_lines \
               WHERE issue_id IS NOT NULL GROUP BY issue_id) m \
         WHERE l.issue_id = m.issue_id AND l.superseded <> (l.ord < m.last)",
    )
}

/// Sets the derived columns of lines another tool wrote, from the parsed store.
fn index_unindexed(tx: &mut Client, store: &Store<'_>) -> Result<(), postgres::Error> {
    let ords: Vec<i64> = tx
        .query(
            "SELECT ord FROM tusk_issue_lines WHERE NOT indexed ORDER BY ord",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if ords.is_empty() {
        return Ok(());
    }
    let by_line: rustc_hash::FxHashMap<usize, &Issue<'_>> =
        store.lines.iter().map(|i| (i.line, i)).collect();
    for ord in ords {
        let d = by_line
            .get(&(ord as usize))
            .map_or(Derived::BLANK, |i| Derived::of(i));
        let line: String = tx
            .query_one("SELECT line FROM tusk_issue_lines WHERE ord = $1", &[&ord])?
            .get(0);
        write_line(tx, ord, &line, &d, false)?;
    }
    mark_superseded(tx)
}

/// Takes the issue lock: exclusive for a mutation of the whole store, shared
/// for claims that row-lock their one line (they run side by side).
fn lock_issues(tx: &mut Client, lock: LockOptions, shared: bool) -> Result<(), postgres::Error> {
    // The bound covers waiting for the advisory lock only, like the file lock's.
    tx.batch_execute(&format!(
        "SET LOCAL lock_timeout = '{}ms'",
        lock.timeout.as_millis().max(1)
    ))?;
    let sql = if shared {
        "SELECT pg_advisory_xact_lock_shared($1)"
    } else {
        "SELECT pg_advisory_xact_lock($1)"
    };
    let waiting = std::time::Instant::now();
    tx.execute(sql, &[&ISSUES_LOCK])?;
    crate::telemetry::record::lock_waited(waiting.elapsed());
    tx.batch_execute("SET LOCAL lock_timeout = 0")
}

/// Maps a lock timeout to the store's busy error, anything else to a backend error.
fn busy_error(pg: &PgStore, started: std::time::Instant) -> impl Fn(PgError) -> StoreError + '_ {
    move |e| match e {
        PgError::LockTimeout { .. } => StoreError::LockBusy {
            path: pg.shown().to_string(),
            waited_ms: started.elapsed().as_millis(),
        },
        other => StoreError::Backend(other),
    }
}

/// Derives the columns of every line marked for it (a migration's, or
/// lines another tool wrote): a whole-store pass that edits nothing.
///
/// # Errors
///
/// As [`mutate_issues`].
pub fn derive_columns(pg: &PgStore) -> Result<(), StoreError> {
    mutate_issues(pg, LockOptions::default(), |_| ((), None))
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
    let busy = busy_error(pg, std::time::Instant::now());
    let db = |e: postgres::Error| busy(pg.error(e));
    pg.transaction(|tx| {
        lock_issues(tx, lock, false).map_err(db)?;
        let text = load(pg, tx).map_err(&busy)?;
        let store = Store::parse(Path::new(&shown), &text)?;
        index_unindexed(tx, &store).map_err(db)?;
        let (out, edit) = apply(&store);
        if let Some(edit) = &edit {
            crate::telemetry::record::rows_touched(edit.rows());
        }
        match edit {
            None => {}
            Some(Edit::Replace { line_index, json }) => {
                let ord = store.lines[line_index].line as i64;
                write_line(tx, ord, &json, &Derived::of_line(&json), false).map_err(db)?;
            }
            Some(Edit::Append { json }) => {
                append_line(tx, &json).map_err(db)?;
                set_trailing(pg, tx, true).map_err(&busy)?;
            }
            Some(Edit::ReplaceAll { text }) => {
                let new = Store::parse(Path::new(&shown), &text)?;
                replace_all(pg, tx, &new, &text)?;
            }
            Some(Edit::Batch { replace, append }) => {
                // Every line checked before any is written (as the file
                // store's batch): a bad line fails the whole batch.
                for json in replace.iter().map(|(_, j)| j).chain(&append) {
                    Store::parse(Path::new(&shown), json)?;
                }
                for (line_index, json) in &replace {
                    let ord = store.lines[*line_index].line as i64;
                    write_line(tx, ord, json, &Derived::of_line(json), false).map_err(db)?;
                }
                for json in &append {
                    append_line(tx, json).map_err(db)?;
                }
                if !append.is_empty() {
                    set_trailing(pg, tx, true).map_err(&busy)?;
                }
            }
        }
        Ok(End::Commit(out))
    })
}

/// Appends `json` as the store's last line; an earlier line of its id is
/// superseded.
fn append_line(tx: &mut Client, json: &str) -> Result<(), postgres::Error> {
    let ord: i64 = tx
        .query_one(
            "SELECT coalesce(max(ord), 0) + 1 FROM tusk_issue_lines",
            &[],
        )?
        .get(0);
    let d = Derived::of_line(json);
    write_line(tx, ord, json, &d, true)?;
    if d.issue_id.is_some() {
        tx.execute(
            "UPDATE tusk_issue_lines SET superseded = true \
             WHERE issue_id = $1 AND ord < $2",
            &[&d.issue_id, &ord],
        )?;
    }
    Ok(())
}

/// Whether a line another tool wrote is there (its derived columns and
/// blocker rows not set yet): every path that reads by index asks first,
/// and leaves such a store to the whole-store path, which indexes it.
pub(super) const ANY_UNINDEXED: &str =
    "SELECT EXISTS (SELECT 1 FROM tusk_issue_lines WHERE NOT indexed)";

/// The winning line of one issue, row-locked (`FOR UPDATE`).
const OWN_LINE: &str = "SELECT ord, line FROM tusk_issue_lines \
    WHERE issue_id = $1 AND NOT superseded FOR UPDATE";

/// The winning lines of the given ids.
const LINES_OF: &str = "SELECT ord, line FROM tusk_issue_lines \
    WHERE issue_id = ANY($1) AND NOT superseded";

/// The winning lines of every issue `$1` reaches by blocking edges, `$1`'s own
/// included (the blocker rows hold exactly the blocking edges the cycle check
/// follows, `graph::cycle_if_added`).
const REACHED_LINES: &str = "WITH RECURSIVE reach(id) AS ( \
        SELECT $1::text \
        UNION \
        SELECT b.depends_on FROM reach r \
        JOIN tusk_issue_lines l ON l.issue_id = r.id AND NOT l.superseded \
        JOIN tusk_issue_blockers b ON b.ord = l.ord) \
    SELECT l.ord, l.line FROM tusk_issue_lines l JOIN reach r ON l.issue_id = r.id \
    WHERE NOT l.superseded";

/// The targets of the blocking edges of the given issues' winning lines.
const STEP_FORWARD: &str = "SELECT DISTINCT b.depends_on FROM tusk_issue_lines l \
    JOIN tusk_issue_blockers b ON b.ord = l.ord \
    WHERE l.issue_id = ANY($1) AND NOT l.superseded";

/// The issues whose winning lines have a blocking edge to one of the given ids.
const STEP_BACK: &str = "SELECT DISTINCT l.issue_id FROM tusk_issue_blockers b \
    JOIN tusk_issue_lines l ON l.ord = b.ord AND NOT l.superseded \
    WHERE b.depends_on = ANY($1)";

/// Whether `to` is reachable from `from` by blocking edges: a search from
/// both ends, a level at a time, always widening the smaller frontier, so
/// that an edge near either end of a long chain is decided in a few small
/// queries instead of a walk of everything `from` reaches (a new issue
/// depending on an old one, the usual direction, is decided at once).
fn reaches(tx: &mut Client, from: &str, to: &str) -> Result<bool, postgres::Error> {
    use rustc_hash::FxHashSet;
    if from == to {
        return Ok(true);
    }
    let mut seen_from: FxHashSet<String> = FxHashSet::from_iter([from.to_string()]);
    let mut seen_to: FxHashSet<String> = FxHashSet::from_iter([to.to_string()]);
    let mut forward = vec![from.to_string()];
    let mut back = vec![to.to_string()];
    while !forward.is_empty() && !back.is_empty() {
        let (sql, frontier, seen, other) = if forward.len() <= back.len() {
            (STEP_FORWARD, &mut forward, &mut seen_from, &seen_to)
        } else {
            (STEP_BACK, &mut back, &mut seen_to, &seen_from)
        };
        let next: Vec<String> = tx
            .query(sql, &[&*frontier])?
            .iter()
            .map(|r| r.get::<_, String>(0))
            .filter(|id| seen.insert(id.clone()))
            .collect();
        if next.iter().any(|id| other.contains(id)) {
            return Ok(true);
        }
        *frontier = next;
    }
    Ok(false)
}

/// A mutation that reads only its [`Footprint`] (issue 58): the issue lock taken
/// shared (only a whole-store change excludes it), the issue's own line
/// row-locked, the lines its checks need read, and at most that one line
/// written. Mutations of different issues never wait for each other; two of
/// one issue wait for its row, within the lock bound. `apply` runs on a store
/// of just those lines, and decides as on the whole store because it reads
/// nothing else (each scope's rule, `issues::footprint`). Whenever that could not
/// hold (lines another tool wrote, an edit of another line, a whole-store
/// edit) the transaction is rolled back unwritten and the whole store decides,
/// as [`mutate_issues`].
///
/// # Errors
///
/// As [`mutate_issues`].
pub fn mutate_scoped<T>(
    pg: &PgStore,
    lock: LockOptions,
    scope: Footprint<'_>,
    mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
) -> Result<T, StoreError> {
    let Some(own) = scope.own() else {
        return mutate_issues(pg, lock, apply);
    };
    let shown = pg.shown().to_string();
    let busy = busy_error(pg, std::time::Instant::now());
    let db = |e: postgres::Error| busy(pg.error(e));
    let attempt = pg.transaction(|tx| -> Result<End<Option<T>>, StoreError> {
        // The bound covers every wait: the shared lock, the graph lock, the
        // row. One round trip for the three (the simple protocol).
        let waiting = std::time::Instant::now();
        let replies = tx
            .simple_query(&format!(
                "SET LOCAL lock_timeout = '{}ms'; SELECT pg_advisory_xact_lock_shared({ISSUES_LOCK}); \
                 {ANY_UNINDEXED}",
                lock.timeout.as_millis().max(1)
            ))
            .map_err(db)?;
        let unindexed = replies.iter().rev().find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(row) => Some(row.get(0) == Some("t")),
            _ => None,
        });
        if unindexed != Some(false) {
            return Ok(End::Rollback(None));
        }
        let cycle = matches!(scope, Footprint::Edge { cycle: true, .. });
        if cycle {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&GRAPH_LOCK])
                .map_err(db)?;
        }
        let own_rows = tx
            .query_typed(OWN_LINE, &[(&own, Type::TEXT)])
            .map_err(db)?;
        crate::telemetry::record::lock_waited(waiting.elapsed());
        let mut rows: Vec<(i64, String)> = own_rows
            .iter()
            .map(|r| (r.get(0), r.get::<_, String>(1)))
            .collect();
        let others = match (scope, rows.first()) {
            // No such issue: the apply says so, on an empty store.
            (_, None) | (Footprint::Issue(_), _) | (Footprint::Whole, _) => Vec::new(),
            (Footprint::WithTargets(_), Some((_, line))) => {
                let targets: Vec<String> = match Store::parse(Path::new(&shown), line) {
                    Ok(one) => one
                        .issues()
                        .flat_map(|i| i.deps.iter().map(|d| d.depends_on.as_str().to_string()))
                        .collect(),
                    Err(_) => return Ok(End::Rollback(None)),
                };
                tx.query(LINES_OF, &[&targets]).map_err(db)?
            }
            (Footprint::Edge { depends_on, .. }, Some(_))
                if cycle && reaches(tx, depends_on, own).map_err(db)? =>
            {
                // A cycle: its path is the whole store's (every issue the
                // target reaches, as `graph::cycle_if_added` searches them).
                tx.query(REACHED_LINES, &[&depends_on]).map_err(db)?
            }
            (Footprint::Edge { depends_on, .. }, Some(_)) => {
                tx.query(LINES_OF, &[&vec![depends_on]]).map_err(db)?
            }
        };
        rows.extend(others.iter().map(|r| (r.get(0), r.get::<_, String>(1))));
        rows.sort_by_key(|r| r.0);
        rows.dedup_by_key(|r| r.0);
        let mut text = String::new();
        for (_, line) in &rows {
            text.push_str(line);
            text.push('\n');
        }
        let store = Store::parse(Path::new(&shown), &text)?;
        let (out, edit) = apply(&store);
        match edit {
            None => {}
            Some(Edit::Replace { line_index, json })
                if store.lines[line_index].id.as_str() == own =>
            {
                let ord = rows[store.lines[line_index].line - 1].0;
                write_line(tx, ord, &json, &Derived::of_line(&json), false).map_err(db)?;
                crate::telemetry::record::rows_touched(1);
            }
            // An edit this scope does not make: the whole store decides.
            Some(_) => return Ok(End::Rollback(None)),
        }
        Ok(End::Commit(Some(out)))
    })?;
    match attempt {
        Some(out) => Ok(out),
        None => mutate_issues(pg, lock, apply),
    }
}

/// Open issues whose blockers are all closed (ordered by [`READY_ORDER`]).
pub(super) const READY: &str = "i.status = 'open' AND NOT i.superseded AND i.issue_id IS NOT NULL \
    AND NOT EXISTS (SELECT 1 FROM tusk_issue_blockers b WHERE b.ord = i.ord \
        AND NOT EXISTS (SELECT 1 FROM tusk_issue_lines t \
            WHERE t.issue_id = b.depends_on AND NOT t.superseded AND t.closed))";

/// The file store's ready order: priority, then the id in natural order
/// (`natural_key`, ties by the id's bytes as `natural_cmp` breaks them).
pub(super) const READY_ORDER: &str = "i.priority, i.id_key, i.issue_id COLLATE \"C\"";

/// How many ready lines one claim row-locks and considers at once.
const CANDIDATES: i64 = 8;

/// A mutation that needs only the ready frontier (claim-next): it takes the
/// issue lock shared and row-locks a few ready lines with `SKIP LOCKED`, so
/// concurrent claims neither wait for each other nor read the whole store. The
/// same `apply` runs on a store of those lines and their blockers; whenever that
/// could decide differently from the whole store (lines another tool wrote,
/// every candidate refused, candidates all locked by other claims) it runs on
/// the whole store instead, as [`mutate_issues`].
///
/// # Errors
///
/// As [`mutate_issues`].
pub fn mutate_ready<T>(
    pg: &PgStore,
    lock: LockOptions,
    filter: &IssueFilter,
    mut apply: impl FnMut(&Store<'_>) -> (T, Option<Edit>),
) -> Result<T, StoreError> {
    let (routed, route_params) = route_sql(filter);
    let params: Vec<&(dyn postgres::types::ToSql + Sync)> =
        route_params.iter().map(|p| p.as_ref()).collect();
    let shown = pg.shown().to_string();
    let busy = busy_error(pg, std::time::Instant::now());
    let db = |e: postgres::Error| busy(pg.error(e));
    // `None`: the whole store decides (the transaction is rolled back unwritten).
    let attempt = pg.transaction(|tx| -> Result<End<Option<T>>, StoreError> {
        lock_issues(tx, lock, true).map_err(db)?;
        let unindexed: bool = tx.query_one(ANY_UNINDEXED, &[]).map_err(db)?.get(0);
        if unindexed {
            return Ok(End::Rollback(None));
        }
        let rows = tx
            .query(
                &format!(
                    "SELECT i.ord, i.line FROM tusk_issue_lines i WHERE {READY}{routed} \
                     ORDER BY {READY_ORDER} LIMIT {CANDIDATES} FOR UPDATE OF i SKIP LOCKED"
                ),
                &params,
            )
            .map_err(db)?;
        if rows.is_empty() {
            let any_ready: bool = tx
                .query_one(
                    &format!(
                        "SELECT EXISTS (SELECT 1 FROM tusk_issue_lines i WHERE {READY}{routed})"
                    ),
                    &params,
                )
                .map_err(db)?
                .get(0);
            if any_ready {
                // Ready lines exist but other claims hold them: their outcome decides.
                return Ok(End::Rollback(None));
            }
        }
        let ords: Vec<i64> = rows.iter().map(|r| r.get(0)).collect();
        let blockers = tx
            .query(
                "SELECT t.line FROM tusk_issue_lines t WHERE NOT t.superseded AND t.issue_id IN \
                 (SELECT depends_on FROM tusk_issue_blockers WHERE ord = ANY($1))",
                &[&ords],
            )
            .map_err(db)?;
        let mut text = String::new();
        let lines = rows
            .iter()
            .map(|r| r.get::<_, &str>(1))
            .chain(blockers.iter().map(|r| r.get::<_, &str>(0)));
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
        let store = Store::parse(Path::new(&shown), &text)?;
        let (out, edit) = apply(&store);
        match edit {
            None if rows.is_empty() => {}
            Some(Edit::Replace { line_index, json })
                if store.lines[line_index].line <= ords.len() =>
            {
                let ord = ords[store.lines[line_index].line - 1];
                write_line(tx, ord, &json, &Derived::of_line(&json), false).map_err(db)?;
                crate::telemetry::record::rows_touched(1);
            }
            // Every candidate refused (or an edit this path does not make).
            _ => return Ok(End::Rollback(None)),
        }
        Ok(End::Commit(Some(out)))
    })?;
    match attempt {
        Some(out) => Ok(out),
        None => mutate_issues(pg, lock, apply),
    }
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
    pg.transaction(|tx| {
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
        replace_all(pg, tx, &store, text)?;
        Ok(End::Commit(count))
    })?;
    // Every line was rewritten: the dead rows go now, and the planner sees
    // the new table (a claim's walk of the ready order otherwise steps over
    // every dead index entry until autovacuum comes by). Outside the
    // import's transaction, as VACUUM must be; a failure here loses nothing.
    let _ = pg.with_client(|client| {
        client
            .batch_execute(
                "VACUUM (ANALYZE) tusk_issue_lines, tusk_issue_blockers, tusk_issue_edges",
            )
            .map_err(|e| pg.error(e))
    });
    Ok(count)
}

/// Replaces every line with the lines of `text` (parsed as `store`), inside
/// the caller's transaction, which holds the store lock.
fn replace_all(
    pg: &PgStore,
    tx: &mut Client,
    store: &Store<'_>,
    text: &str,
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM tusk_issue_lines", &[])
        .map_err(|e| pg.error(e))?;
    let body = text.strip_suffix('\n');
    let lines: Vec<&str> = match body {
        Some(b) => b.split('\n').collect(),
        None if text.is_empty() => Vec::new(),
        None => text.split('\n').collect(),
    };
    let by_line: rustc_hash::FxHashMap<usize, &Issue<'_>> =
        store.lines.iter().map(|i| (i.line, i)).collect();
    let insert = tx
        .prepare(
            "INSERT INTO tusk_issue_lines \
             (ord, line, indexed, issue_id, status, closed, priority, superseded, id_key, route) \
             SELECT o, l, true, i, s, c, p, x, k, r::jsonb FROM unnest($1::bigint[], $2::text[], \
             $3::text[], $4::text[], $5::bool[], $6::bigint[], $7::bool[], $8::bytea[], \
             $9::text[]) AS u(o, l, i, s, c, p, x, k, r)",
        )
        .map_err(|e| pg.error(e))?;
    let insert_blockers = tx
        .prepare(
            "INSERT INTO tusk_issue_blockers (ord, depends_on) \
             SELECT * FROM unnest($1::bigint[], $2::text[])",
        )
        .map_err(|e| pg.error(e))?;
    let insert_edges = tx
        .prepare(
            "INSERT INTO tusk_issue_edges (ord, depends_on, dep_type) \
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])",
        )
        .map_err(|e| pg.error(e))?;
    const CHUNK: usize = 5000;
    for (k, chunk) in lines.chunks(CHUNK).enumerate() {
        let first = k * CHUNK + 1;
        let ords: Vec<i64> = (0..chunk.len()).map(|i| (first + i) as i64).collect();
        let issues: Vec<Option<&Issue<'_>>> = (0..chunk.len())
            .map(|i| by_line.get(&(first + i)).copied())
            .collect();
        let ids: Vec<Option<&str>> = issues.iter().map(|i| i.map(|i| i.id.as_str())).collect();
        let statuses: Vec<Option<&str>> = issues
            .iter()
            .map(|i| i.map(|i| i.status.as_str()))
            .collect();
        let closed: Vec<Option<bool>> = issues.iter().map(|i| i.map(|i| i.is_closed())).collect();
        let priorities: Vec<Option<i64>> = issues.iter().map(|i| i.map(|i| i.priority)).collect();
        let superseded: Vec<bool> = issues
            .iter()
            .map(|i| i.is_some_and(|i| i.superseded))
            .collect();
        let keys: Vec<Option<Vec<u8>>> = issues
            .iter()
            .map(|i| i.map(|i| natural_key(i.id.as_str())))
            .collect();
        let routes: Vec<Option<String>> = issues.iter().map(|i| i.map(route_of)).collect();
        tx.execute(
            &insert,
            &[
                &ords,
                &chunk,
                &ids,
                &statuses,
                &closed,
                &priorities,
                &superseded,
                &keys,
                &routes,
            ],
        )
        .map_err(|e| pg.error(e))?;
        let mut b_ords = Vec::new();
        let mut b_targets = Vec::new();
        for (ord, issue) in ords.iter().zip(&issues) {
            for dep in issue.iter().flat_map(|i| i.blocking_deps()) {
                b_ords.push(*ord);
                b_targets.push(dep.depends_on.as_str());
            }
        }
        tx.execute(&insert_blockers, &[&b_ords, &b_targets])
            .map_err(|e| pg.error(e))?;
        let (mut e_ords, mut e_targets, mut e_types) = (Vec::new(), Vec::new(), Vec::new());
        for (ord, issue) in ords.iter().zip(&issues) {
            for dep in issue.iter().flat_map(|i| i.deps.iter()) {
                e_ords.push(*ord);
                e_targets.push(dep.depends_on.as_str());
                e_types.push(dep.dep_type);
            }
        }
        tx.execute(&insert_edges, &[&e_ords, &e_targets, &e_types])
            .map_err(|e| pg.error(e))?;
    }
    set_trailing(pg, tx, body.is_some())?;
    Ok(())
}

/// The store as the JSONL file it would be (an import's exact bytes).
///
/// # Errors
///
/// A connection or schema error.
pub fn export_issues(pg: &PgStore) -> Result<String, PgError> {
    read_issue_text(pg)
}
