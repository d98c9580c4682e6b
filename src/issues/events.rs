//! premath's issue event log (`issue.event.v1`, default
//! `.premath/memory/events.jsonl`): a store migrated to events, events replayed
//! to a store, and the refs that name both (`ev1_`, `iss1_`).
//!
//! An event line is `schema, event_id, issue_id, occurred_at, actor` (left out
//! when empty), then `"action":"upsert_issue","issue":{…}` or
//! `"action":"add_dependency","depends_on_id","type","created_by"`. Issues are
//! written in premath's form ([`super::serial`]); members premath does not know
//! ride along (an edge's extra members as extra members of its
//! `add_dependency` event, which premath ignores), so a tusk store survives a
//! migrate and replay whole.

use super::serial;
use super::store::Store;
use crate::canonical::sha256_hex;
use crate::issues::IssueClass;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The event schema this module reads and writes.
pub const SCHEMA: &str = "issue.event.v1";

/// Why an event log could not be read or replayed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventError {
    /// A line that is not an event (1-based line number).
    #[error("line {line}: parse error: {reason}")]
    Parse { line: usize, reason: String },
    /// An event of another schema.
    #[error("unsupported event schema: {0}")]
    UnsupportedSchema(String),
    /// An upsert whose issue is not the one its envelope names.
    #[error(
        "replay issue-id mismatch for event {event_id}: envelope={envelope}, payload={payload}"
    )]
    MismatchedIssueId {
        event_id: String,
        envelope: String,
        payload: String,
    },
    /// An edge whose endpoints never both exist.
    #[error("replay unresolved dependency for event {event_id}: {issue_id} -> {depends_on_id}")]
    UnresolvedDependency {
        event_id: String,
        issue_id: String,
        depends_on_id: String,
    },
}

impl EventError {
    /// The failure class reported for this error.
    pub fn class(&self) -> &'static str {
        match self {
            EventError::Parse { .. } => IssueClass::EventParseError.as_str(),
            EventError::UnsupportedSchema(_) => IssueClass::EventUnsupportedSchema.as_str(),
            EventError::MismatchedIssueId { .. } => IssueClass::EventIssueIdMismatch.as_str(),
            EventError::UnresolvedDependency { .. } => {
                IssueClass::EventUnresolvedDependency.as_str()
            }
        }
    }
}

/// What an event does.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Insert or replace the whole issue (edges included).
    Upsert { issue: Map<String, Value> },
    /// Add one edge from the envelope's issue; `extra` holds the edge's members
    /// premath does not know.
    AddDependency {
        depends_on_id: String,
        dep_type: String,
        created_by: String,
        extra: Map<String, Value>,
    },
}

/// One event of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub schema: String,
    pub event_id: String,
    pub issue_id: String,
    /// premath's rendering of the instant.
    pub occurred_at: String,
    pub actor: String,
    pub action: Action,
}

const ENVELOPE_KEYS: [&str; 7] = [
    "schema",
    "event_id",
    "issue_id",
    "occurred_at",
    "actor",
    "action",
    "issue",
];
const EDGE_KEYS: [&str; 4] = ["depends_on_id", "type", "dep_type", "created_by"];

/// An edge's members in premath's order (`created_by` left out when empty),
/// then the members premath does not know: the same in an `add_dependency`
/// event and in the edge replay makes of it.
fn put_edge(
    m: &mut Map<String, Value>,
    depends_on_id: &str,
    dep_type: &str,
    created_by: &str,
    extra: &Map<String, Value>,
) {
    m.insert("depends_on_id".into(), depends_on_id.into());
    m.insert("type".into(), dep_type.into());
    if !created_by.is_empty() {
        m.insert("created_by".into(), created_by.into());
    }
    for (k, v) in extra {
        m.insert(k.clone(), v.clone());
    }
}

impl Event {
    /// The event's line (no newline): premath's serialization, which the
    /// stream ref hashes.
    pub fn to_line(&self) -> String {
        let mut m = Map::new();
        m.insert("schema".into(), self.schema.clone().into());
        m.insert("event_id".into(), self.event_id.clone().into());
        m.insert("issue_id".into(), self.issue_id.clone().into());
        m.insert("occurred_at".into(), self.occurred_at.clone().into());
        if !self.actor.is_empty() {
            m.insert("actor".into(), self.actor.clone().into());
        }
        match &self.action {
            Action::Upsert { issue } => {
                m.insert("action".into(), "upsert_issue".into());
                m.insert("issue".into(), Value::Object(serial::issue(issue, false)));
            }
            Action::AddDependency {
                depends_on_id,
                dep_type,
                created_by,
                extra,
            } => {
                m.insert("action".into(), "add_dependency".into());
                put_edge(&mut m, depends_on_id, dep_type, created_by, extra);
            }
        }
        serde_json::to_string(&Value::Object(m)).expect("JSON values serialize")
    }

    fn parse(line: &str) -> Result<Event, String> {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let Value::Object(mut m) = v else {
            return Err("an event is a JSON object".into());
        };
        let text = |m: &Map<String, Value>, key: &str, required: bool| -> Result<String, String> {
            match m.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                None if !required => Ok(String::new()),
                None => Err(format!("missing field `{key}`")),
                Some(other) => Err(format!("`{key}` must be a string, not {other}")),
            }
        };
        let schema = match m.get("schema") {
            None => SCHEMA.to_string(),
            Some(_) => text(&m, "schema", true)?,
        };
        let event_id = text(&m, "event_id", true)?;
        let issue_id = text(&m, "issue_id", true)?;
        let when = text(&m, "occurred_at", true)?;
        let occurred_at = serial::instant(&when)
            .ok_or_else(|| format!("`occurred_at` is not an RFC 3339 instant: {when:?}"))?;
        let actor = text(&m, "actor", false)?;
        let action = match text(&m, "action", true)?.as_str() {
            "upsert_issue" => match m.shift_remove("issue") {
                Some(Value::Object(issue)) => {
                    for key in ["id", "title"] {
                        if !issue.get(key).is_some_and(Value::is_string) {
                            return Err(format!("the issue's `{key}` must be a string"));
                        }
                    }
                    Action::Upsert { issue }
                }
                Some(_) => return Err("`issue` must be an object".into()),
                None => return Err("missing field `issue`".into()),
            },
            "add_dependency" => {
                let depends_on_id = text(&m, "depends_on_id", true)?;
                let dep_type = match (m.get("type"), m.get("dep_type")) {
                    (Some(_), _) => text(&m, "type", true)?,
                    (None, Some(_)) => text(&m, "dep_type", true)?,
                    (None, None) => return Err("missing field `type`".into()),
                };
                if super::model::dep_type_info(&dep_type).is_none() {
                    return Err(format!("unknown dependency type `{dep_type}`"));
                }
                let created_by = text(&m, "created_by", false)?;
                let extra = m
                    .into_iter()
                    .filter(|(k, _)| {
                        !ENVELOPE_KEYS.contains(&k.as_str()) && !EDGE_KEYS.contains(&k.as_str())
                    })
                    .collect();
                Action::AddDependency {
                    depends_on_id,
                    dep_type,
                    created_by,
                    extra,
                }
            }
            other => {
                return Err(format!(
                    "unknown action `{other}`, expected `upsert_issue` or `add_dependency`"
                ))
            }
        };
        Ok(Event {
            schema,
            event_id,
            issue_id,
            occurred_at,
            actor,
            action,
        })
    }
}

/// Reads an event log: one event per line; blank lines and lines starting
/// with `#` are skipped.
///
/// # Errors
///
/// The first line that is not an event.
pub fn parse(text: &str) -> Result<Vec<Event>, EventError> {
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        events.push(Event::parse(line).map_err(|reason| EventError::Parse {
            line: i + 1,
            reason,
        })?);
    }
    Ok(events)
}

/// The log's text: each event's line and a newline.
pub fn to_text(events: &[Event]) -> String {
    let mut text = String::new();
    for e in events {
        text.push_str(&e.to_line());
        text.push('\n');
    }
    text
}

/// `ev1_` + hex SHA-256 of the events as re-serialized (premath's
/// `event_stream_ref`: aliases, key order and instants normalized).
pub fn stream_ref(events: &[Event]) -> String {
    format!("ev1_{}", sha256_hex(to_text(events).as_bytes()))
}

/// An issue memory as replay builds it: issues by id (byte order, as premath).
pub type Memory = BTreeMap<String, Map<String, Value>>;

/// The store's issues by id (the last line of a repeated id wins).
pub fn memory_of(store: &Store<'_>) -> Memory {
    store
        .issues()
        .map(|issue| {
            let Value::Object(m) = super::views::full_object(store, issue) else {
                unreachable!("a decoded issue line is an object")
            };
            (issue.id.as_str().to_string(), m)
        })
        .collect()
}

/// premath's migration: per issue in id order, an upsert without its edges
/// (occurred at its `updated_at`), then one `add_dependency` per edge in
/// (depends_on_id, type, created_by, issue_id) order. An issue without a
/// readable `updated_at` gets `now`, as premath's load would give it.
pub fn migrate(memory: &Memory, now: DateTime<Utc>) -> Vec<Event> {
    let mut events = Vec::new();
    for (id, issue) in memory {
        let occurred_at = issue
            .get("updated_at")
            .and_then(Value::as_str)
            .and_then(serial::instant)
            .unwrap_or_else(|| now.to_rfc3339_opts(SecondsFormat::AutoSi, true));
        let mut upsert = issue.clone();
        let deps = match upsert.shift_remove("dependencies") {
            Some(Value::Array(deps)) => deps,
            _ => Vec::new(),
        };
        events.push(Event {
            schema: SCHEMA.into(),
            event_id: format!("issue.upsert:{id}"),
            issue_id: id.clone(),
            occurred_at: occurred_at.clone(),
            actor: String::new(),
            action: Action::Upsert { issue: upsert },
        });
        let mut deps: Vec<Value> = deps.iter().map(serial::dependency).collect();
        deps.sort_by_cached_key(serial::dependency_key);
        for dep in deps {
            let Value::Object(mut dep) = dep else {
                continue;
            };
            let take = |dep: &mut Map<String, Value>, k: &str| match dep.shift_remove(k) {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let depends_on_id = take(&mut dep, "depends_on_id");
            let dep_type = take(&mut dep, "type");
            let created_by = take(&mut dep, "created_by");
            dep.shift_remove("issue_id");
            events.push(Event {
                schema: SCHEMA.into(),
                event_id: format!("issue.add_dependency:{id}:{depends_on_id}:{dep_type}"),
                issue_id: id.clone(),
                occurred_at: occurred_at.clone(),
                actor: String::new(),
                action: Action::AddDependency {
                    depends_on_id,
                    dep_type,
                    created_by,
                    extra: dep,
                },
            });
        }
    }
    events
}

/// Adds the edge unless one of the same target and type exists (which counts
/// as applied); `false` while an endpoint is missing.
fn apply_edge(memory: &mut Memory, event: &Event) -> bool {
    let Action::AddDependency {
        depends_on_id,
        dep_type,
        created_by,
        extra,
    } = &event.action
    else {
        return true;
    };
    if !memory.contains_key(depends_on_id) {
        return false;
    }
    let Some(issue) = memory.get_mut(&event.issue_id) else {
        return false;
    };
    let deps = issue
        .entry("dependencies")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !deps.is_array() {
        *deps = Value::Array(Vec::new());
    }
    let deps = deps.as_array_mut().expect("made an array above");
    let same = |d: &Value| {
        d.get("depends_on_id").and_then(Value::as_str) == Some(depends_on_id)
            && super::model::edge_type(d) == Some(dep_type)
    };
    if deps.iter().any(same) {
        return true;
    }
    let mut dep = Map::new();
    dep.insert("issue_id".into(), event.issue_id.clone().into());
    put_edge(&mut dep, depends_on_id, dep_type, created_by, extra);
    deps.push(Value::Object(dep));
    true
}

/// premath's replay from an empty memory, in file order: an upsert replaces
/// the whole issue; an edge waits until both endpoints exist, and waiting
/// edges are retried until a pass makes no progress.
///
/// # Errors
///
/// Another schema, an upsert of another issue than its envelope names, or an
/// edge whose endpoints never both exist.
pub fn replay(events: &[Event]) -> Result<Memory, EventError> {
    let mut memory = Memory::new();
    let mut pending: Vec<&Event> = Vec::new();
    for event in events {
        if event.schema != SCHEMA {
            return Err(EventError::UnsupportedSchema(event.schema.clone()));
        }
        match &event.action {
            Action::Upsert { issue } => {
                let payload = issue.get("id").and_then(Value::as_str).unwrap_or("");
                if payload != event.issue_id {
                    return Err(EventError::MismatchedIssueId {
                        event_id: event.event_id.clone(),
                        envelope: event.issue_id.clone(),
                        payload: payload.to_string(),
                    });
                }
                memory.insert(event.issue_id.clone(), issue.clone());
            }
            Action::AddDependency { .. } => {
                if !apply_edge(&mut memory, event) {
                    pending.push(event);
                }
            }
        }
    }
    let mut progress = true;
    while progress && !pending.is_empty() {
        let before = pending.len();
        pending.retain(|event| !apply_edge(&mut memory, event));
        progress = pending.len() < before;
    }
    if let Some(event) = pending.first() {
        if let Action::AddDependency { depends_on_id, .. } = &event.action {
            return Err(EventError::UnresolvedDependency {
                event_id: event.event_id.clone(),
                issue_id: event.issue_id.clone(),
                depends_on_id: depends_on_id.clone(),
            });
        }
    }
    Ok(memory)
}

/// The store text of a memory as premath writes it: issues in id order, one
/// line each in premath's form, edges in their order.
pub fn store_text(memory: &Memory) -> String {
    let mut text = String::new();
    for issue in memory.values() {
        let line = serde_json::to_string(&Value::Object(serial::issue(issue, false)))
            .expect("JSON values serialize");
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// premath's `stores_equivalent`: the same canonical line per issue.
pub fn equivalent(a: &Memory, b: &Memory) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ia, a), (ib, b))| {
            ia == ib && serial::canonical_line(a) == serial::canonical_line(b)
        })
}

/// The snapshot ref of a memory (see [`serial::snapshot_ref`]).
pub fn snapshot_ref(memory: &Memory) -> String {
    serial::snapshot_ref(memory.values())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const STORE: &str = concat!(
        r#"{"id":"b","title":"B","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z","ephemeral":false,"dependencies":[{"issue_id":"b","depends_on_id":"c","type":"related","created_at":"x"},{"issue_id":"b","depends_on_id":"a","type":"blocks"}],"x_custom":{"k":1}}"#,
        "\n",
        r#"{"id":"a","title":"A","status":"closed","priority":1,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","ephemeral":false}"#,
        "\n",
        r#"{"id":"c","title":"C","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","ephemeral":false,"dependencies":[{"issue_id":"c","depends_on_id":"b","type":"blocks"}]}"#,
        "\n",
    );

    fn memory() -> Memory {
        memory_of(&Store::parse(Path::new("s"), STORE).unwrap())
    }

    #[test]
    fn migrate_then_replay_is_the_same_memory_with_unknown_members() {
        let m = memory();
        let events = migrate(&m, Utc::now());
        assert_eq!(events.len(), 6);
        let text = to_text(&events);
        let back = replay(&parse(&text).unwrap()).unwrap();
        assert!(equivalent(&m, &back));
        assert_eq!(back["b"]["x_custom"], serde_json::json!({"k": 1}));
        assert_eq!(back["b"]["dependencies"][1]["created_at"], "x");
        assert_eq!(snapshot_ref(&m), snapshot_ref(&back));
        // The stream ref is over re-serialized events: aliases normalize.
        let aliased = text.replace("\"type\":\"blocks\"", "\"dep_type\":\"blocks\"");
        assert_eq!(stream_ref(&parse(&aliased).unwrap()), stream_ref(&events));
    }

    #[test]
    fn replay_failures_are_typed() {
        let up = |env: &str, id: &str| {
            format!(
                r#"{{"event_id":"e","issue_id":"{env}","occurred_at":"2026-01-01T00:00:00Z","action":"upsert_issue","issue":{{"id":"{id}","title":"t"}}}}"#
            )
        };
        let err = replay(&parse(&up("a", "b")).unwrap()).unwrap_err();
        assert_eq!(err.class(), "issue_event.issue_id_mismatch");
        let edge = r#"{"event_id":"d","issue_id":"a","occurred_at":"2026-01-01T00:00:00Z","action":"add_dependency","depends_on_id":"zz","type":"blocks"}"#;
        let err = replay(&parse(&format!("{}\n{edge}\n", up("a", "a"))).unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "replay unresolved dependency for event d: a -> zz"
        );
        let other = up("a", "a").replace("{\"event_id\"", "{\"schema\":\"v9\",\"event_id\"");
        assert_eq!(
            replay(&parse(&other).unwrap()).unwrap_err(),
            EventError::UnsupportedSchema("v9".into())
        );
        let bad = parse("# c\n\n{\"event_id\":1}\n").unwrap_err();
        assert_eq!(bad.class(), "issue_event.parse_error");
        assert!(
            bad.to_string().starts_with("line 3: parse error: "),
            "{bad}"
        );
    }
}
