//! premath's serialization of an issue: its key order, which members it leaves
//! out when empty, the defaults it fills in, and its rendering of instants
//! (UTC, `Z`, fractional seconds only as needed). A line premath wrote comes
//! out byte for byte as it went in. Unlike premath, members it does not know
//! are kept (after the known ones, in their order), and an absent
//! `created_at`/`updated_at` stays absent where premath would invent the load
//! time.
//!
//! The snapshot ref (`iss1_`), the event log and replayed stores all use this
//! form, so they agree with premath's on premath's data.

use crate::canonical::sha256_hex;
use chrono::{DateTime, FixedOffset, SecondsFormat, Utc};
use serde_json::{Map, Value};

/// How a present member is written.
#[derive(Clone, Copy)]
enum Rule {
    /// Left out when it is the empty string (or absent).
    Text,
    /// Always written; `default` when absent.
    Default(fn() -> Value),
    /// An instant, re-rendered; left out when absent.
    Instant,
    /// An instant or null; left out when absent or null.
    OptInstant,
    /// Left out when absent or null.
    Opt,
}

const ISSUE_KEYS: [(&str, Rule); 20] = [
    ("id", Rule::Opt),
    ("title", Rule::Opt),
    ("description", Rule::Text),
    ("design", Rule::Text),
    ("acceptance_criteria", Rule::Text),
    ("notes", Rule::Text),
    ("status", Rule::Default(|| Value::from("open"))),
    ("priority", Rule::Default(|| Value::from(2))),
    ("issue_type", Rule::Default(|| Value::from("task"))),
    ("assignee", Rule::Text),
    ("owner", Rule::Text),
    ("lease", Rule::Opt),
    ("created_at", Rule::Instant),
    ("updated_at", Rule::Instant),
    ("closed_at", Rule::OptInstant),
    ("ephemeral", Rule::Default(|| Value::Bool(false))),
    ("mol_type", Rule::Text),
    ("labels", Rule::Opt),
    ("dependencies", Rule::Opt),
    ("metadata", Rule::Opt),
];

const LEASE_KEYS: [(&str, Rule); 5] = [
    ("lease_id", Rule::Opt),
    ("owner", Rule::Opt),
    ("acquired_at", Rule::Instant),
    ("expires_at", Rule::Instant),
    ("renewed_at", Rule::OptInstant),
];

/// premath's issue type: `epic` or `task`, trimmed and case-insensitive;
/// `None` for anything else (premath refuses such a line; tusk keeps it).
pub fn premath_issue_type(raw: &str) -> Option<&'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "epic" => Some("epic"),
        "task" => Some("task"),
        _ => None,
    }
}

/// premath's rendering of an instant (chrono's `DateTime<Utc>` serialization),
/// or `None` when the text is not an RFC 3339 instant.
pub fn instant(text: &str) -> Option<String> {
    let t: DateTime<FixedOffset> = text.parse().ok()?;
    Some(
        t.with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::AutoSi, true),
    )
}

fn instant_value(v: &Value) -> Value {
    match v.as_str().and_then(instant) {
        Some(t) => Value::String(t),
        // Not an instant: kept as it is (premath would refuse the line).
        None => v.clone(),
    }
}

fn write_known(src: &Map<String, Value>, keys: &[(&str, Rule)], out: &mut Map<String, Value>) {
    for (key, rule) in keys {
        let v = src.get(*key);
        let written = match (rule, v) {
            (Rule::Default(default), None) => Some(default()),
            (_, None) => None,
            (Rule::Text, Some(Value::String(s))) if s.is_empty() => None,
            (Rule::Opt | Rule::OptInstant, Some(Value::Null)) => None,
            (Rule::Instant | Rule::OptInstant, Some(v)) => Some(instant_value(v)),
            (_, Some(v)) => Some(v.clone()),
        };
        if let Some(v) = written {
            out.insert((*key).to_string(), v);
        }
    }
}

fn write_unknown(src: &Map<String, Value>, keys: &[&str], out: &mut Map<String, Value>) {
    for (k, v) in src {
        if !keys.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
}

/// Objects with their keys sorted, at every depth (premath's `metadata`).
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// One dependency in premath's form: `issue_id, depends_on_id, type,
/// created_by` (left out when empty), then unknown members. `dep_type` is
/// written as `type`.
pub fn dependency(dep: &Value) -> Value {
    let Value::Object(src) = dep else {
        return dep.clone();
    };
    let mut out = Map::new();
    for key in ["issue_id", "depends_on_id"] {
        if let Some(v) = src.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(t) = super::model::edge_type_value(dep) {
        out.insert("type".into(), t.clone());
    }
    match src.get("created_by") {
        None => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(v) => {
            out.insert("created_by".into(), v.clone());
        }
    }
    write_unknown(
        src,
        &[
            "issue_id",
            "depends_on_id",
            "type",
            "dep_type",
            "created_by",
        ],
        &mut out,
    );
    Value::Object(out)
}

/// The (depends_on_id, type, created_by, issue_id) order premath sorts edges by.
pub fn dependency_key(dep: &Value) -> (String, String, String, String) {
    let s = |k: &str| dep.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    (
        s("depends_on_id"),
        super::model::edge_type(dep).unwrap_or("").to_string(),
        s("created_by"),
        s("issue_id"),
    )
}

/// An issue object in premath's form; with `sort_deps`, its edges in premath's
/// snapshot order (the canonical form the snapshot ref and equivalence use).
pub fn issue(src: &Map<String, Value>, sort_deps: bool) -> Map<String, Value> {
    let mut out = Map::new();
    write_known(src, &ISSUE_KEYS, &mut out);
    if let Some(Value::String(t)) = out.get("issue_type") {
        if let Some(norm) = premath_issue_type(t) {
            out.insert("issue_type".into(), norm.into());
        } else if t.is_empty() {
            out.shift_remove("issue_type");
        }
    }
    if let Some(Value::Object(lease)) = out.get("lease") {
        let mut l = Map::new();
        write_known(lease, &LEASE_KEYS, &mut l);
        let known: Vec<&str> = LEASE_KEYS.iter().map(|(k, _)| *k).collect();
        write_unknown(lease, &known, &mut l);
        out.insert("lease".into(), Value::Object(l));
    }
    if let Some(Value::Array(labels)) = out.get("labels") {
        if labels.is_empty() {
            out.shift_remove("labels");
        }
    }
    if let Some(Value::Array(deps)) = out.get("dependencies") {
        if deps.is_empty() {
            out.shift_remove("dependencies");
        } else {
            let mut deps: Vec<Value> = deps.iter().map(dependency).collect();
            if sort_deps {
                deps.sort_by_cached_key(dependency_key);
            }
            out.insert("dependencies".into(), Value::Array(deps));
        }
    }
    if let Some(m) = out.get("metadata") {
        let m = sorted(m);
        out.insert("metadata".into(), m);
    }
    let known: Vec<&str> = ISSUE_KEYS.iter().map(|(k, _)| *k).collect();
    write_unknown(src, &known, &mut out);
    out
}

/// The canonical line of an issue: premath's form with sorted edges, compact.
pub fn canonical_line(src: &Map<String, Value>) -> String {
    serde_json::to_string(&Value::Object(issue(src, true))).expect("JSON values serialize")
}

/// `iss1_` + hex SHA-256 over the canonical lines (each ending in `\n`) of
/// the issues, which the caller gives in id order (premath's `store_snapshot_ref`).
pub fn snapshot_ref<'a>(issues: impl IntoIterator<Item = &'a Map<String, Value>>) -> String {
    let mut text = String::new();
    for issue in issues {
        text.push_str(&canonical_line(issue));
        text.push('\n');
    }
    format!("iss1_{}", sha256_hex(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(v: Value) -> String {
        canonical_line(v.as_object().unwrap())
    }

    #[test]
    fn a_premath_line_is_its_own_form() {
        let line = r#"{"id":"bd-1","title":"T","description":"d","notes":"n","status":"closed","priority":1,"issue_type":"task","assignee":"codex","lease":{"lease_id":"L","owner":"w","acquired_at":"2026-02-21T21:41:39.724462Z","expires_at":"2026-02-22T00:00:00Z"},"created_at":"2026-02-21T21:41:39.724462Z","updated_at":"2026-02-22T00:22:51.923596Z","closed_at":"2026-02-22T00:22:51.923598Z","ephemeral":false,"labels":["x"],"dependencies":[{"issue_id":"bd-1","depends_on_id":"bd-5","type":"blocks"}],"metadata":{"a":1,"b":{"c":2,"d":3}}}"#;
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(form(v), line);
    }

    #[test]
    fn defaults_order_instants_and_unknown_members() {
        let v = json!({"zeta": 1, "title": "T", "id": "a", "assignee": "", "issue_type": " Epic ",
            "created_at": "2026-01-01T01:00:00.500+01:00", "closed_at": null, "labels": [],
            "metadata": {"b": 1, "a": {"y": 1, "x": 2}},
            "dependencies": [
                {"issue_id": "a", "depends_on_id": "c", "dep_type": "related", "created_by": "", "at": 1},
                {"issue_id": "a", "depends_on_id": "b", "type": "blocks", "created_by": "me"}]});
        assert_eq!(
            form(v),
            r#"{"id":"a","title":"T","status":"open","priority":2,"issue_type":"epic","created_at":"2026-01-01T00:00:00.500Z","ephemeral":false,"dependencies":[{"issue_id":"a","depends_on_id":"b","type":"blocks","created_by":"me"},{"issue_id":"a","depends_on_id":"c","type":"related","at":1}],"metadata":{"a":{"x":2,"y":1},"b":1},"zeta":1}"#
        );
    }

    #[test]
    fn instants_render_as_premath_does() {
        assert_eq!(
            instant("2026-01-01T00:00:00+00:00").unwrap(),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            instant("2026-01-01T00:00:00.120Z").unwrap(),
            "2026-01-01T00:00:00.120Z"
        );
        assert_eq!(
            instant("2026-01-01T00:00:00.1234Z").unwrap(),
            "2026-01-01T00:00:00.123400Z"
        );
        assert_eq!(
            instant("2026-01-01T00:00:00.000000001Z").unwrap(),
            "2026-01-01T00:00:00.000000001Z"
        );
        assert!(instant("yesterday").is_none());
    }
}
