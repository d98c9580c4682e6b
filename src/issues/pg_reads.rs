//! The store's views on the database read by index (issue 58): each view
//! asks for just the lines that can be in its answer (a superset the view
//! itself narrows), and the file store's own view code runs on them, so
//! the answer is the file store's byte for byte. Every function answers
//! `None` when the database cannot tell (lines another tool wrote, whose
//! columns are not derived yet): the caller then reads the whole store.
//! Premath's readiness rule only: under beads' the caller reads the whole
//! store (a blocked parent blocks its children, transitively).

use super::filter::IssueFilter;
use super::find::{oldest_ready, Direction, StatsCounts, MAX_TREE_DEPTH, STATS_TABLES};
use super::footprint::Footprint;
use super::postgres::{route_sql, ANY_UNINDEXED, READY, READY_ORDER};
use super::views::ListFilter;
use crate::pg::{PgError, PgStore};
use postgres::types::{ToSql, Type};
use std::collections::BTreeSet;

type Params = Vec<Box<dyn ToSql + Sync>>;

/// The lines a query selects (its first column), as a store text, when
/// every line is indexed; the query's second column, when it has one,
/// says which of them are the answer's own (`only`).
fn lines_of(
    pg: &PgStore,
    sql: &str,
    params: &Params,
) -> Result<Option<(String, BTreeSet<String>)>, PgError> {
    let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
    pg.with_client(|client| {
        // Lines another tool wrote have no columns yet: the whole store decides.
        let unindexed: bool = client
            .query_one(ANY_UNINDEXED, &[])
            .map_err(|e| pg.error(e))?
            .get(0);
        if unindexed {
            return Ok(None);
        }
        let rows = client.query(sql, &params).map_err(|e| pg.error(e))?;
        let mut text = String::with_capacity(rows.len() * 256);
        let mut own = BTreeSet::new();
        for row in &rows {
            let line: &str = row.get(0);
            text.push_str(line);
            text.push('\n');
            if row.len() > 1 {
                if let Some(id) = row.get::<_, Option<String>>(1) {
                    own.insert(id);
                }
            }
        }
        Ok(Some((text, own)))
    })
}

/// The winning lines a read of `scope` needs, in file order, as a store
/// text: an issue's own line, and for [`Footprint::WithTargets`] the lines
/// of its blocking edges' targets (the blocker rows). One statement, so
/// one snapshot.
///
/// # Errors
///
/// A connection or schema error.
pub fn scope_text(pg: &PgStore, scope: Footprint<'_>) -> Result<Option<String>, PgError> {
    let (Some(own), with_targets) = (scope.own(), matches!(scope, Footprint::WithTargets(_)))
    else {
        return Ok(None);
    };
    const OWN: &str = "SELECT ord, line FROM tusk_issue_lines \
        WHERE issue_id = $1 AND NOT superseded ORDER BY ord";
    // `= ANY` of one array, not `= $1 OR IN (…)`: the OR made the planner
    // scan every line (6.6 ms at 10,000 issues against 0.15 ms).
    const WITH_TARGETS: &str = "SELECT ord, line FROM tusk_issue_lines \
        WHERE NOT superseded AND issue_id = ANY (ARRAY( \
            SELECT b.depends_on FROM tusk_issue_blockers b \
            JOIN tusk_issue_lines l ON b.ord = l.ord \
            WHERE l.issue_id = $1 AND NOT l.superseded) || $1) \
        ORDER BY ord";
    pg.with_client(|client| {
        let replies = client
            .simple_query(ANY_UNINDEXED)
            .map_err(|e| pg.error(e))?;
        let indexed = replies.iter().any(
            |m| matches!(m, postgres::SimpleQueryMessage::Row(row) if row.get(0) == Some("f")),
        );
        if !indexed {
            return Ok(None);
        }
        let sql = if with_targets { WITH_TARGETS } else { OWN };
        let rows = client
            .query_typed(sql, &[(&own, Type::TEXT)])
            .map_err(|e| pg.error(e))?;
        let mut text = String::new();
        for row in &rows {
            text.push_str(row.get::<_, &str>(1));
            text.push('\n');
        }
        Ok(Some(text))
    })
}

/// The ready lines `filter` may pass, in ready order: the same ready query
/// claim-next walks, without a lock. Every line it gives is ready; the
/// filter's text and time members are left to the view (the query's
/// conditions are a superset for them).
///
/// # Errors
///
/// A connection or schema error.
pub fn ready_text(pg: &PgStore, filter: &IssueFilter) -> Result<Option<String>, PgError> {
    let (routed, params) = route_sql(filter);
    let sql = format!(
        "SELECT i.line FROM tusk_issue_lines i WHERE {READY}{routed} ORDER BY {READY_ORDER}"
    );
    Ok(lines_of(pg, &sql, &params)?.map(|(text, _)| text))
}

/// The lines `issue list` with `filter` may list: the winning lines whose
/// columns meet the list's own fields and the routing filter's exact
/// members (the view decides the rest, and orders).
///
/// # Errors
///
/// A connection or schema error.
pub fn list_text(pg: &PgStore, filter: &ListFilter) -> Result<Option<String>, PgError> {
    let (mut conds, mut params) = route_sql(&filter.filter);
    let mut add = |cond: &str, param: Box<dyn ToSql + Sync>| {
        params.push(param);
        conds.push_str(&format!(
            " AND {}",
            cond.replace("$?", &format!("${}", params.len()))
        ));
    };
    if let Some(s) = &filter.status {
        add("i.status = $?", Box::new(s.clone()));
    }
    if let Some(a) = &filter.assignee {
        add("(i.route ->> 'assignee') = $?", Box::new(a.clone()));
    }
    if let Some(t) = &filter.issue_type {
        add("(i.route ->> 'type') = $?", Box::new(t.clone()));
    }
    if let Some(l) = &filter.label {
        add("(i.route -> 'labels') ? $?", Box::new(l.clone()));
    }
    if let Some(p) = filter.priority {
        add("i.priority = $?", Box::new(p));
    }
    let sql = format!(
        "SELECT i.line FROM tusk_issue_lines i \
         WHERE NOT i.superseded AND i.issue_id IS NOT NULL{conds} ORDER BY i.ord"
    );
    Ok(lines_of(pg, &sql, &params)?.map(|(text, _)| text))
}

/// A blocked line (`i`): not closed, and manually `blocked` or with a
/// blocking edge to a target that is missing or not closed.
const BLOCKED: &str = "NOT i.superseded AND i.issue_id IS NOT NULL AND NOT i.closed \
    AND (i.status = 'blocked' OR EXISTS (SELECT 1 FROM tusk_issue_blockers x \
        WHERE x.ord = i.ord AND NOT EXISTS (SELECT 1 FROM tusk_issue_lines t \
            WHERE t.issue_id = x.depends_on AND NOT t.superseded AND t.closed)))";

/// A line that may hold a lease: its text names the member (or may, in a
/// `\u` escape).
const LEASED: &str = "(strpos(i.line, '\"lease\"') > 0 OR strpos(i.line, '\\u') > 0)";

/// The blocked lines `filter` may pass (not closed, and manually `blocked`
/// or with a blocking edge to a target that is missing or not closed) and
/// the lines of their edges' targets, which the view reads for each
/// blocker; with the ids of the blocked ones. The view judges each line
/// again and lists only those ids: a target's own targets are not read.
///
/// # Errors
///
/// A connection or schema error.
pub fn blocked_text(
    pg: &PgStore,
    filter: &IssueFilter,
) -> Result<Option<(String, BTreeSet<String>)>, PgError> {
    let (routed, params) = route_sql(filter);
    let sql = format!(
        "WITH b AS (SELECT i.ord FROM tusk_issue_lines i WHERE {BLOCKED}{routed}) \
         SELECT l.line, CASE WHEN l.ord IN (SELECT ord FROM b) THEN l.issue_id END \
         FROM tusk_issue_lines l WHERE NOT l.superseded AND (l.ord IN (SELECT ord FROM b) \
             OR l.issue_id IN (SELECT x.depends_on FROM tusk_issue_blockers x \
                               WHERE x.ord IN (SELECT ord FROM b))) \
         ORDER BY l.ord"
    );
    lines_of(pg, &sql, &params)
}

/// The lines `issue search` may find `needle` (lowercased, trimmed) in: a
/// byte search of the lines, exact for a needle of plain ASCII — no quote,
/// backslash, slash or control character, which a line may hold escaped —
/// with every line that holds other characters or a `\u` escape kept for
/// the view (their case folding is Unicode's, not the database's). Any
/// other needle reads the whole store (`None`).
///
/// # Errors
///
/// A connection or schema error.
pub fn search_text(pg: &PgStore, needle: &str) -> Result<Option<String>, PgError> {
    let plain = !needle.is_empty()
        && needle
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'/'));
    if !plain {
        return Ok(None);
    }
    let sql = "SELECT i.line FROM tusk_issue_lines i \
         WHERE NOT i.superseded AND i.issue_id IS NOT NULL \
         AND (strpos(lower(i.line COLLATE \"C\"), $1) > 0 \
              OR octet_length(i.line) <> char_length(i.line) \
              OR strpos(i.line, '\\u') > 0) \
         ORDER BY i.ord";
    let params: Params = vec![Box::new(needle.to_string())];
    Ok(lines_of(pg, sql, &params)?.map(|(text, _)| text))
}

/// The lines that may hold a lease, in file order: what the lease
/// projection and `issue.stats`' stale and contended leases read (every
/// other line is unleased).
///
/// # Errors
///
/// A connection or schema error.
pub fn leased_text(pg: &PgStore) -> Result<Option<String>, PgError> {
    let sql = format!(
        "SELECT i.line FROM tusk_issue_lines i \
         WHERE NOT i.superseded AND i.issue_id IS NOT NULL AND {LEASED} ORDER BY i.ord"
    );
    Ok(lines_of(pg, &sql, &Params::new())?.map(|(text, _)| text))
}

/// What `issue.stats` counts, from the columns: the tables by status,
/// type, priority, assignee and label, the ready and blocked counts (the
/// queries `issue.ready` and `issue.blocked` read by), and the oldest
/// ready issue from the ready lines' `created_at`; with the leased lines'
/// text ([`leased_text`]) for the leases the view judges.
///
/// # Errors
///
/// A connection or schema error.
pub fn stats_counts(pg: &PgStore) -> Result<Option<(StatsCounts, String)>, PgError> {
    let Some(leased) = leased_text(pg)? else {
        return Ok(None);
    };
    const TABLES: &str = "WITH w AS (SELECT * FROM tusk_issue_lines i \
            WHERE NOT i.superseded AND i.issue_id IS NOT NULL) \
        SELECT 'byStatus', status, count(*) FROM w GROUP BY 2 \
        UNION ALL SELECT 'byType', route ->> 'type', count(*) FROM w GROUP BY 2 \
        UNION ALL SELECT 'byPriority', priority::text, count(*) FROM w GROUP BY 2 \
        UNION ALL SELECT 'byAssignee', coalesce(nullif(route ->> 'assignee', ''), '(unassigned)'), \
            count(*) FROM w GROUP BY 2 \
        UNION ALL SELECT 'byLabel', l, count(*) \
            FROM w, jsonb_array_elements_text(w.route -> 'labels') AS l GROUP BY 2";
    let ready = format!(
        "SELECT i.issue_id, i.line::json ->> 'created_at' FROM tusk_issue_lines i WHERE {READY}"
    );
    let blocked = format!("SELECT count(*) FROM tusk_issue_lines i WHERE {BLOCKED}");
    pg.with_client(|client| {
        let mut counts = StatsCounts::default();
        for row in client.query(TABLES, &[]).map_err(|e| pg.error(e))? {
            let (table, key, n): (&str, Option<String>, i64) = (row.get(0), row.get(1), row.get(2));
            let Some(table) = STATS_TABLES.into_iter().find(|t| *t == table) else {
                continue;
            };
            if table == "byStatus" {
                counts.issue_count += n as usize;
            }
            counts
                .by
                .entry(table)
                .or_default()
                .insert(key.unwrap_or_default(), n as u64);
        }
        let ready = client.query(&ready, &[]).map_err(|e| pg.error(e))?;
        counts.ready_count = ready.len();
        counts.oldest_ready = oldest_ready(ready.iter().map(|r| (r.get::<_, String>(0), r.get(1))));
        let blocked: i64 = client
            .query_one(&blocked, &[])
            .map_err(|e| pg.error(e))?
            .get(0);
        counts.blocked_count = blocked as usize;
        Ok(Some((counts, leased)))
    })
}

/// The lines `dep tree` from `id` walks: the root's, and the lines
/// reachable from it by edges (down: an issue's edges; up: the edges that
/// name it) within one level past `max_depth` (the view looks one level
/// further to mark a node `truncated`), by a recursive query over the
/// edges' index. A depth over the limit reads nothing (the view refuses
/// it before it reads the store).
///
/// # Errors
///
/// A connection or schema error.
pub fn tree_text(
    pg: &PgStore,
    id: &str,
    direction: Direction,
    max_depth: usize,
) -> Result<Option<String>, PgError> {
    if max_depth > MAX_TREE_DEPTH {
        return Ok(Some(String::new()));
    }
    const SQL: &str = "WITH RECURSIVE \
        down(id, depth) AS ( \
            SELECT $1::text, 0 WHERE $3 \
            UNION SELECT e.depends_on, d.depth + 1 FROM down d \
                JOIN tusk_issue_lines l ON l.issue_id = d.id AND NOT l.superseded \
                JOIN tusk_issue_edges e ON e.ord = l.ord \
            WHERE d.depth < $2), \
        up(id, depth) AS ( \
            SELECT $1::text, 0 WHERE $4 \
            UNION SELECT l.issue_id, u.depth + 1 FROM up u \
                JOIN tusk_issue_edges e ON e.depends_on = u.id \
                JOIN tusk_issue_lines l ON l.ord = e.ord AND NOT l.superseded \
            WHERE u.depth < $2) \
        SELECT l.line FROM tusk_issue_lines l WHERE NOT l.superseded AND l.issue_id IN \
            (SELECT id FROM down UNION SELECT id FROM up UNION SELECT $1::text) \
        ORDER BY l.ord";
    let params: Params = vec![
        Box::new(id.to_string()),
        Box::new(max_depth as i32 + 1),
        Box::new(direction != Direction::Up),
        Box::new(direction != Direction::Down),
    ];
    Ok(lines_of(pg, SQL, &params)?.map(|(text, _)| text))
}
