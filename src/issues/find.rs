//! Finding and counting (issue 22): `issue search`, `issue stats` and
//! `dep tree`, each a read view of the store with a host-action twin
//! (`issue.search`, `issue.stats`, `dep.tree`).

use super::model::LeaseState;
use super::store::Store;
use super::views::ready;
use super::Report;
use crate::issues::IssueClass;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// How well a stored line matches a lower-cased query: title hits weigh 3,
/// description and acceptance criteria 2, notes and comments 1 (each field
/// counts once). `None` when nothing matches.
fn score(line: &Value, query: &str) -> Option<(u32, Vec<&'static str>)> {
    let has = |v: &Value| v.as_str().is_some_and(|t| t.to_lowercase().contains(query));
    let mut total = 0;
    let mut fields = Vec::new();
    for (field, weight) in [
        ("title", 3),
        ("description", 2),
        ("acceptance_criteria", 2),
        ("notes", 1),
    ] {
        if has(&line[field]) {
            total += weight;
            fields.push(field);
        }
    }
    if line["comments"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| has(&c["text"])))
    {
        total += 1;
        fields.push("comments");
    }
    (total > 0).then_some((total, fields))
}

/// What `issue.search` looks for: the query trimmed and lower-cased (its
/// matching is case-insensitive; the database's byte search,
/// `pg_reads::search_text`, is handed the same needle).
pub fn needle(query: &str) -> String {
    query.trim().to_lowercase()
}

/// `issue.search`: issues whose title, description, acceptance criteria,
/// notes or comments contain `query` (case-insensitive), best first (then
/// priority, then id), at most `limit`.
pub fn search_payload(store: &Store<'_>, path: &str, query: &str, limit: usize) -> Report {
    let action = "issue.search";
    let needle = needle(query);
    if needle.is_empty() {
        return Report::rejected(
            action,
            path,
            &[IssueClass::InvalidQuery.as_str()],
            "an empty query",
        );
    }
    let mut hits: Vec<(u32, i64, String, SearchHit<'_>)> = Vec::new();
    for issue in store.issues() {
        let Ok(line) = serde_json::from_str::<Value>(store.raw(issue)) else {
            continue;
        };
        if let Some((s, fields)) = score(&line, &needle) {
            let item = SearchHit {
                id: issue.id.as_str(),
                title: issue.title.as_str(),
                status: issue.status.as_str(),
                priority: issue.priority,
                score: s,
                matched: fields,
            };
            hits.push((s, issue.priority, issue.id.as_str().to_string(), item));
        }
    }
    hits.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| super::views::natural_cmp(&a.2, &b.2))
    });
    let total = hits.len();
    let items: Vec<SearchHit<'_>> = hits.into_iter().take(limit).map(|h| h.3).collect();
    let found = Found {
        query,
        count: items.len(),
        total_count: total,
        items,
    };
    Report::accepted_body(action, path, found)
}

/// The members of an accepted `issue.search`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Found<'s> {
    pub query: &'s str,
    pub count: usize,
    /// Matches before the limit.
    pub total_count: usize,
    pub items: Vec<SearchHit<'s>>,
}

/// One match of `issue.search`.
#[derive(Serialize, JsonSchema)]
pub struct SearchHit<'s> {
    pub id: &'s str,
    pub title: &'s str,
    pub status: &'s str,
    pub priority: i64,
    /// title 3, description 2, notes and comments 1, summed.
    pub score: u32,
    /// The fields that matched.
    pub matched: Vec<&'static str>,
}

/// The members of an accepted `issue.stats`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stats<'s> {
    pub issue_count: usize,
    pub ready_count: usize,
    pub blocked_count: usize,
    pub in_progress_count: u64,
    pub stale_lease_ids: Vec<&'s str>,
    pub contended_lease_ids: Vec<&'s str>,
    /// The oldest ready issue (by `created_at`, then id); null when none.
    pub oldest_ready: Option<OldestReady>,
    /// Issue count by status.
    pub by_status: BTreeMap<String, u64>,
    pub by_type: BTreeMap<String, u64>,
    pub by_priority: BTreeMap<String, u64>,
    /// `(unassigned)` for issues without an assignee.
    pub by_assignee: BTreeMap<String, u64>,
    pub by_label: BTreeMap<String, u64>,
}

/// The oldest ready issue of `issue.stats`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OldestReady {
    pub id: String,
    pub created_at: String,
}

/// The members of an accepted `dep.tree`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tree<'s> {
    pub id: &'s str,
    /// `down`, `up` or `both`.
    pub direction: String,
    pub max_depth: usize,
    /// Nodes in the tree (at most [`MAX_TREE_NODES`]).
    pub nodes: usize,
    /// The node budget ran out: nodes past it are marked `truncated`.
    pub node_limit_reached: bool,
    /// The title budget ran out: later nodes carry `titleOmitted`.
    pub title_limit_reached: bool,
    /// The root node: `{id, title, status, depth, children}`, each child
    /// `{id, title, status, depth, type, direction, children}`, marked
    /// `missing`, `cycle` or `truncated` where so. An issue's title is given
    /// once, where it first appears; its later appearances have `title`
    /// null and `repeat` true.
    pub tree: Value,
}

/// What `issue.stats` counts over the whole store, however it was
/// gathered: from a parsed store ([`stats_payload`]) or from a database's
/// columns (`issues::pg_reads::stats_counts`, [`stats_payload_known`]).
#[derive(Debug, Default)]
pub struct StatsCounts {
    pub issue_count: usize,
    /// `byStatus`, `byType`, `byPriority`, `byAssignee`, `byLabel`.
    pub by: BTreeMap<&'static str, BTreeMap<String, u64>>,
    pub ready_count: usize,
    pub blocked_count: usize,
    /// The oldest ready issue: its id and `created_at` as stored.
    pub oldest_ready: Option<(String, String)>,
}

/// The tables of [`StatsCounts::by`], in the payload's order.
pub const STATS_TABLES: [&str; 5] = ["byStatus", "byType", "byPriority", "byAssignee", "byLabel"];

/// `issue.stats`: counts by status, type, priority, assignee and label;
/// ready, blocked and in-progress counts; stale and contended leases; the
/// oldest ready issue (by `created_at`, then id).
pub fn stats_payload(store: &Store<'_>, path: &str, now: DateTime<Utc>) -> Report {
    let mut counts = StatsCounts::default();
    let mut bump = |table: &'static str, key: String| {
        *counts.by.entry(table).or_default().entry(key).or_default() += 1;
    };
    let mut total = 0;
    for issue in store.issues() {
        total += 1;
        bump("byStatus", issue.status.as_str().to_string());
        bump("byType", issue.issue_type.as_str().to_string());
        bump("byPriority", issue.priority.to_string());
        let assignee = issue
            .assignee
            .as_ref()
            .map(|a| a.as_str())
            .filter(|a| !a.is_empty())
            .unwrap_or("(unassigned)");
        bump("byAssignee", assignee.to_string());
        for l in &issue.labels {
            bump("byLabel", l.as_str().to_string());
        }
    }
    counts.issue_count = total;
    let ready_issues = ready(store);
    counts.ready_count = ready_issues.len();
    counts.oldest_ready = oldest_ready(ready_issues.iter().map(|i| {
        let line: Option<Value> = serde_json::from_str(store.raw(i)).ok();
        let created = line.and_then(|l| l["created_at"].as_str().map(str::to_string));
        (i.id.as_str().to_string(), created)
    }));
    counts.blocked_count = super::views::blocked(store).len();
    stats_payload_known(store, path, now, counts)
}

/// The oldest of the ready issues given as `(id, created_at)`: by
/// `created_at` as an RFC 3339 instant, then id; an issue whose
/// `created_at` is missing or not such an instant is left out.
pub fn oldest_ready(
    ready: impl Iterator<Item = (String, Option<String>)>,
) -> Option<(String, String)> {
    ready
        .filter_map(|(id, created)| {
            let created = created?;
            let at = DateTime::parse_from_rfc3339(&created).ok()?;
            Some((at, id, created))
        })
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)))
        .map(|(_, id, created)| (id, created))
}

/// `issue.stats` of `counts`, with the stale and contended leases of
/// `leased` (a store holding at least every leased issue: the whole
/// store, or the lines a database found a lease in).
pub fn stats_payload_known(
    leased: &Store<'_>,
    path: &str,
    now: DateTime<Utc>,
    mut counts: StatsCounts,
) -> Report {
    let (mut stale, mut contended) = (Vec::new(), Vec::new());
    for issue in leased.issues() {
        if issue.lease_state(now) == LeaseState::Stale {
            stale.push(issue.id.as_str());
        }
        if super::projection::contended(issue, now) {
            contended.push(issue.id.as_str());
        }
    }
    let in_progress = counts
        .by
        .get("byStatus")
        .and_then(|t| t.get("in_progress"))
        .copied()
        .unwrap_or(0);
    let mut table = |name: &str| counts.by.remove(name).unwrap_or_default();
    let stats = Stats {
        issue_count: counts.issue_count,
        ready_count: counts.ready_count,
        blocked_count: counts.blocked_count,
        in_progress_count: in_progress,
        stale_lease_ids: stale,
        contended_lease_ids: contended,
        oldest_ready: counts
            .oldest_ready
            .map(|(id, created_at)| OldestReady { id, created_at }),
        by_status: table("byStatus"),
        by_type: table("byType"),
        by_priority: table("byPriority"),
        by_assignee: table("byAssignee"),
        by_label: table("byLabel"),
    };
    Report::accepted_body("issue.stats", path, stats)
}

/// Which way `dep tree` walks: `down` the issues this one depends on, `up`
/// the issues that depend on it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase", try_from = "String")]
#[schemars(extend("enum" = ["down", "up", "both"]))]
pub enum Direction {
    Down,
    Up,
    Both,
}

/// Only a string names a direction (serde's enum form would also take a
/// hash, `{"up": null}`, and refuse `{"up": true}` in its own words); the
/// names are the command line's, from one declaration.
impl TryFrom<String> for Direction {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        <Direction as clap::ValueEnum>::from_str(&s, false).map_err(|_| {
            format!(
                "direction {s:?} is not one of `down` (what it depends on), `up` (what \
                 depends on it) or `both`"
            )
        })
    }
}

/// The deepest a `dep.tree` walks (docs/sandbox.md, limits): the tree is
/// one nested value, which reaches a program as JSON, two levels of nesting
/// per tree level under the envelope's own; parsers stop at 128.
pub const MAX_TREE_DEPTH: usize = 50;
/// The most nodes one tree holds: a graph of diamonds doubles its paths with
/// each level, and a tree repeats a node once per path to it.
pub const MAX_TREE_NODES: usize = 10_000;
/// The most title bytes one tree holds (issue 55): a title is given once
/// per issue, and past this budget not at all, so a walk's size is bounded
/// by its node count whatever the titles are.
pub const MAX_TREE_TITLE_BYTES: usize = 1 << 20;

/// `dep.tree`: the dependency tree from `id`, each node `{id, title,
/// status, type (of the edge that led here), depth, direction, children}`,
/// to `max_depth` (at most [`MAX_TREE_DEPTH`]); a node already on the path
/// is marked `cycle` and not expanded; one reached at the depth limit, or
/// past [`MAX_TREE_NODES`], with more below is `truncated`.
pub fn tree_payload(
    store: &Store<'_>,
    path: &str,
    id: &str,
    direction: Direction,
    max_depth: usize,
) -> Report {
    let action = "dep.tree";
    if max_depth > MAX_TREE_DEPTH {
        return Report::rejected(
            action,
            path,
            &[crate::host::HostClass::ArgsInvalid.as_str()],
            format!(
                "maxDepth {max_depth} is over the limit of {MAX_TREE_DEPTH}: a tree deeper than \
                 that cannot reach a program as one value; ask for at most {MAX_TREE_DEPTH}, and \
                 walk again from a node at the edge (its `truncated` mark) to see further"
            ),
        );
    }
    if store.get(id).is_none() {
        return super::mutate::not_found(action, path, id);
    }
    // Edges both ways, in stored order.
    let mut down: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    let mut up: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for issue in store.issues() {
        for d in &issue.deps {
            down.entry(issue.id.as_str())
                .or_default()
                .push((d.depends_on.as_str(), d.dep_type));
            up.entry(d.depends_on.as_str())
                .or_default()
                .push((issue.id.as_str(), d.dep_type));
        }
    }
    let mut walk = Walk {
        store,
        max_depth,
        budget: MAX_TREE_NODES - 1,
        on_path: BTreeSet::from([id.to_string()]),
        cut: false,
        titled: BTreeSet::new(),
        title_bytes: MAX_TREE_TITLE_BYTES,
        titles_cut: false,
    };
    let mut root = walk.node(id, None, 0, None);
    let mut kids = Vec::new();
    if direction != Direction::Up {
        kids.extend(walk.children(&down, id, "down", 1));
    }
    if direction != Direction::Down {
        kids.extend(walk.children(&up, id, "up", 1));
    }
    root["children"] = Value::Array(kids);
    let tree = Tree {
        id,
        direction: format!("{direction:?}").to_lowercase(),
        max_depth,
        nodes: MAX_TREE_NODES - walk.budget,
        node_limit_reached: walk.cut,
        title_limit_reached: walk.titles_cut,
        tree: root,
    };
    Report::accepted_body(action, path, tree)
}

/// One `dep.tree` walk: its bounds (recursion at most `max_depth` deep,
/// at most [`MAX_TREE_NODES`] nodes) and the path it is on.
struct Walk<'w, 's> {
    store: &'w Store<'s>,
    max_depth: usize,
    /// Nodes still allowed.
    budget: usize,
    on_path: BTreeSet<String>,
    /// The budget ran out somewhere.
    cut: bool,
    /// Issues whose title the tree already gives.
    titled: BTreeSet<String>,
    /// Title bytes still allowed.
    title_bytes: usize,
    titles_cut: bool,
}

impl Walk<'_, '_> {
    /// A node: the issue's title at its first appearance (within the title
    /// budget), `repeat` at the later ones.
    fn node(&mut self, id: &str, edge: Option<&str>, depth: usize, dir: Option<&str>) -> Value {
        let issue = self.store.get(id);
        let mut n = json!({
            "id": id,
            "title": null,
            "status": issue.map(|i| i.status.as_str()),
            "depth": depth,
        });
        match issue {
            None => n["missing"] = json!(true),
            Some(_) if self.titled.contains(id) => n["repeat"] = json!(true),
            Some(i) => {
                let title = i.title.as_str();
                if title.len() <= self.title_bytes {
                    self.title_bytes -= title.len();
                    n["title"] = json!(title);
                    self.titled.insert(id.to_string());
                } else {
                    n["titleOmitted"] = json!(true);
                    self.titles_cut = true;
                }
            }
        }
        if let Some(e) = edge {
            n["type"] = json!(e);
        }
        if let Some(d) = dir {
            n["direction"] = json!(d);
        }
        n
    }

    fn children(
        &mut self,
        edges: &BTreeMap<&str, Vec<(&str, &str)>>,
        from: &str,
        dir: &str,
        depth: usize,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        for &(to, dep_type) in edges.get(from).into_iter().flatten() {
            if self.budget == 0 {
                self.cut = true;
                break;
            }
            self.budget -= 1;
            let mut n = self.node(to, Some(dep_type), depth, Some(dir));
            let more_below = edges.get(to).is_some_and(|e| !e.is_empty());
            if self.on_path.contains(to) {
                n["cycle"] = json!(true);
            } else if depth >= self.max_depth || self.budget == 0 {
                if more_below {
                    n["truncated"] = json!(true);
                    self.cut |= self.budget == 0;
                }
            } else {
                self.on_path.insert(to.to_string());
                let below = self.children(edges, to, dir, depth + 1);
                self.on_path.remove(to);
                if below.len() < edges.get(to).map_or(0, Vec::len) {
                    n["truncated"] = json!(true);
                }
                if !below.is_empty() {
                    n["children"] = Value::Array(below);
                }
            }
            out.push(n);
        }
        out
    }
}

/// The tree as text: one line per node, indented by depth.
pub fn tree_text(tree: &Value) -> String {
    fn line(n: &Value, out: &mut String) {
        let depth = n["depth"].as_u64().unwrap_or(0) as usize;
        let arrow = match n["direction"].as_str() {
            Some("up") => "← ",
            Some(_) => "→ ",
            None => "",
        };
        let mut text = format!(
            "{}{arrow}{} [{}] {}",
            "  ".repeat(depth),
            n["id"].as_str().unwrap_or("?"),
            n["status"].as_str().unwrap_or("missing"),
            match n["title"].as_str() {
                Some(t) => t,
                None if n["repeat"] == true => "(see above)",
                None => "",
            }
        );
        if let Some(t) = n["type"].as_str() {
            text.push_str(&format!(" ({t})"));
        }
        if n["cycle"] == true {
            text.push_str(" (cycle)");
        }
        if n["truncated"] == true {
            text.push_str(" (…)");
        }
        out.push_str(&crate::terminal::field(&text));
        out.push('\n');
        for c in n["children"].as_array().into_iter().flatten() {
            line(c, out);
        }
    }
    let mut out = String::new();
    line(tree, &mut out);
    out
}

/// The tree as a Mermaid flowchart or a Graphviz digraph (edges point from
/// the dependent issue to the one it depends on).
pub fn tree_graph(tree: &Value, dot: bool) -> String {
    fn edges(n: &Value, out: &mut BTreeSet<(String, String, String)>) {
        let me = n["id"].as_str().unwrap_or("?").to_string();
        for c in n["children"].as_array().into_iter().flatten() {
            let other = c["id"].as_str().unwrap_or("?").to_string();
            let t = c["type"].as_str().unwrap_or("").to_string();
            let edge = if c["direction"] == "up" {
                (other, me.clone(), t)
            } else {
                (me.clone(), other, t)
            };
            out.insert(edge);
            edges(c, out);
        }
    }
    let mut all = BTreeSet::new();
    edges(tree, &mut all);
    // Ids come from the store: quote them for the target language (DOT
    // honours backslash escapes in a quoted string; Mermaid does not).
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let m = |s: &str| mermaid_text(s);
    let mut out = String::new();
    if dot {
        out.push_str("digraph deps {\n");
        for (a, b, t) in &all {
            out.push_str(&format!("  {} -> {} [label={}];\n", q(a), q(b), q(t)));
        }
        out.push_str("}\n");
    } else {
        out.push_str("flowchart TD\n");
        let ids: BTreeSet<&String> = all.iter().flat_map(|(a, b, _)| [a, b]).collect();
        let index: BTreeMap<&String, usize> =
            ids.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        for id in &ids {
            out.push_str(&format!("  n{}[{}]\n", index[id], m(id)));
        }
        for (a, b, t) in &all {
            out.push_str(&format!("  n{} -->|{}| n{}\n", index[a], m(t), index[b]));
        }
    }
    out
}

/// `text` as a quoted Mermaid label: Mermaid has no backslash escapes (a
/// `"` ends the label, and what follows is read as syntax), so every
/// character but letters, digits and ` .,_:/-` is written as its entity
/// code `#NNN;`, which Mermaid renders as the character.
pub fn mermaid_text(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || " .,_:/-".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("#{};", c as u32));
        }
    }
    out.push('"');
    out
}
