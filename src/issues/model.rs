//! The issue line format (beads JSONL): field names, defaults, dependency types and
//! the borrowed, typed view of one line that every view and mutation reads.
//!
//! Only the fields the rules need are decoded; everything else on a line is left
//! in the raw text, which is what makes round-trip fidelity free: untouched lines
//! are written back byte for byte, and a mutated line is re-encoded from its full
//! JSON object (see `mutate.rs`), so unknown fields survive there too.

use chrono::{DateTime, Utc};
use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// Status given to a line without one.
pub const DEFAULT_STATUS: &str = "open";
/// Priority given to a line without one (0 is highest).
pub const DEFAULT_PRIORITY: i64 = 2;
/// Issue type given to a line without one.
pub const DEFAULT_ISSUE_TYPE: &str = "task";
/// Priorities accepted on input (a stored value outside this range is kept as is).
pub const PRIORITY_RANGE: std::ops::RangeInclusive<i64> = 0..=4;
/// Issue types accepted on input.
pub const ISSUE_TYPES: [&str; 5] = ["task", "epic", "bug", "feature", "chore"];
/// Statuses with a defined meaning; other strings are kept and count as not closed.
pub const KNOWN_STATUSES: [&str; 4] = ["open", "in_progress", "blocked", "closed"];
/// Statuses a mutation may set without configuration: beads' built-in set.
/// Others must be declared (`status.custom` in the store's `config.json`).
pub const BUILTIN_STATUSES: [&str; 8] = [
    "open",
    "in_progress",
    "blocked",
    "deferred",
    "closed",
    "tombstone",
    "pinned",
    "hooked",
];

/// The `(id, status)` of each line of a store text whose status is neither
/// built in nor in `custom` (an import reports them; they are kept as is).
pub fn undeclared_statuses(text: &str, custom: &[String]) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| {
            let status = v.get("status")?.as_str()?.to_string();
            let known = BUILTIN_STATUSES.contains(&status.as_str()) || custom.contains(&status);
            (!known).then(|| {
                let id = v
                    .get("id")
                    .and_then(|i| i.as_str())
                    .unwrap_or("")
                    .to_string();
                (id, status)
            })
        })
        .collect()
}

/// The `config.json` of `store`: beside a JSONL store, `.premath/config.json`
/// under the working directory for a database.
pub fn config_path(store: &super::IssueStore) -> std::path::PathBuf {
    match store {
        super::IssueStore::Jsonl(p) => p
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("config.json"),
        super::IssueStore::Postgres(_) => std::path::PathBuf::from(".premath/config.json"),
        super::IssueStore::Staged(overlay) => config_path(overlay.base()),
    }
}

/// The store's `config.json` as JSON; `None` when there is no such file.
///
/// # Errors
/// An unreadable file, or one that is not JSON.
pub fn read_config(path: &std::path::Path) -> Result<Option<serde_json::Value>, String> {
    let text = match crate::files::read_to_string(path, crate::files::CONFIG_MAX) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// Sets `key` to `value` in the `config.json` at `path` (created when
/// absent; its other members kept, in their order), written atomically.
///
/// # Errors
/// A `config.json` that is not a JSON object, or a failed write.
pub fn write_setting(path: &std::path::Path, key: &str, value: &str) -> Result<(), String> {
    let mut config = match read_config(path)? {
        None => serde_json::Map::new(),
        Some(serde_json::Value::Object(m)) => m,
        Some(_) => return Err(format!("{} is not a JSON object", path.display())),
    };
    config.insert(key.into(), value.into());
    let text = serde_json::to_string_pretty(&config).expect("a JSON map always encodes") + "\n";
    crate::files::write_atomically(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The custom statuses declared for `store`: beads' `status.custom` key
/// (`"name,name:category,…"`) in the `config.json` beside a JSONL store
/// (`.premath/config.json` under the working directory for a database).
/// No file: none.
///
/// # Errors
/// The file is not JSON, `status.custom` is not a string, or a name is not
/// lower_snake_case.
/// The verification commands the store's `config.json` names
/// (`"verification.commands": "make, npm test"`, issue 60), `None` when it
/// names none (premath's list applies: `content::Commands`).
///
/// # Errors
///
/// An unreadable `config.json`, or a value that is not a string of
/// comma-separated commands (an empty list, a backtick or a line break in
/// one).
pub fn verification_commands(store: &super::IssueStore) -> Result<Option<Vec<String>>, String> {
    let path = config_path(store);
    let Some(config) = read_config(&path)? else {
        return Ok(None);
    };
    let Some(value) = config.get("verification.commands") else {
        return Ok(None);
    };
    let shape = || {
        format!(
            "{}: \"verification.commands\" must be a string of commands separated by commas, such as \"make, npm test, true\"",
            path.display()
        )
    };
    let list: Vec<String> = value
        .as_str()
        .ok_or_else(shape)?
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    if list.is_empty() || list.iter().any(|c| c.contains('`') || c.contains('\n')) {
        return Err(shape());
    }
    Ok(Some(list))
}

pub fn custom_statuses(store: &super::IssueStore) -> Result<Vec<String>, String> {
    let path = config_path(store);
    let Some(config) = read_config(&path)? else {
        return Ok(Vec::new());
    };
    let Some(custom) = config.get("status.custom") else {
        return Ok(Vec::new());
    };
    let custom = custom.as_str().ok_or_else(|| {
        format!(
            "{}: \"status.custom\" must be a string such as \"in_review,qa:wip\"",
            path.display()
        )
    })?;
    custom
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let name = entry.split(':').next().unwrap_or("").trim();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                Err(format!(
                    "{}: custom status {name:?} is not a lower_snake_case word",
                    path.display()
                ))
            } else {
                Ok(name.to_string())
            }
        })
        .collect()
}

/// Dependency types that gate readiness.
pub const BLOCKING_DEP_TYPES: [&str; 4] =
    ["blocks", "parent-child", "conditional-blocks", "waits-for"];
/// Dependency types that only record a relation.
pub const INFORMATIONAL_DEP_TYPES: [&str; 6] = [
    "related",
    "relates-to",
    "discovered-from",
    "replies-to",
    "duplicates",
    "supersedes",
];

/// The canonical spelling of a known dependency type and whether it blocks;
/// `None` for a type the format does not know.
pub fn dep_type_info(dep_type: &str) -> Option<(&'static str, bool)> {
    if let Some(t) = BLOCKING_DEP_TYPES.iter().find(|t| **t == dep_type) {
        Some((t, true))
    } else {
        INFORMATIONAL_DEP_TYPES
            .iter()
            .find(|t| **t == dep_type)
            .map(|t| (*t, false))
    }
}

/// The type member of a stored edge object: `type`, or its input alias `dep_type`.
pub fn edge_type_value(dep: &serde_json::Value) -> Option<&serde_json::Value> {
    dep.get("type").or_else(|| dep.get("dep_type"))
}

/// [`edge_type_value`] as text.
pub fn edge_type(dep: &serde_json::Value) -> Option<&str> {
    edge_type_value(dep).and_then(serde_json::Value::as_str)
}

/// Whether a dependency type is blocking; `None` for a type the format does not know.
pub fn dep_type_blocks(dep_type: &str) -> Option<bool> {
    dep_type_info(dep_type).map(|(_, blocking)| blocking)
}

/// A JSON string that borrows from the store text when it has no escapes.
///
/// `Option<Cow<str>>` always allocates under serde; this wrapper keeps the
/// borrowed case, which matters when a 100k-issue store is parsed per command.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text<'a>(pub Cow<'a, str>);

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The same text, owning its bytes (for a line kept apart from the file text).
    pub fn into_owned(self) -> Text<'static> {
        Text(Cow::Owned(self.0.into_owned()))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }
        deserializer.deserialize_str(TextVisitor).map(Text)
    }
}

/// The decoded part of one issue line, as serde reads it (unknown fields are
/// skipped here but still syntax-checked).
#[derive(Deserialize)]
pub(crate) struct RawIssue<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub title: Text<'a>,
    #[serde(borrow, default)]
    pub status: Option<Text<'a>>,
    #[serde(default)]
    pub priority: Option<i64>,
    #[serde(borrow, default)]
    pub issue_type: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub assignee: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub notes: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub labels: Option<Vec<Text<'a>>>,
    #[serde(borrow, default)]
    pub dependencies: Option<Vec<RawDep<'a>>>,
    #[serde(borrow, default)]
    pub lease: Option<RawLease<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct RawDep<'a> {
    #[serde(borrow)]
    pub depends_on_id: Text<'a>,
    #[serde(borrow, rename = "type", alias = "dep_type")]
    pub dep_type: Text<'a>,
}

#[derive(Deserialize)]
pub(crate) struct RawLease<'a> {
    #[serde(borrow)]
    pub lease_id: Text<'a>,
    #[serde(borrow)]
    pub owner: Text<'a>,
    #[serde(borrow)]
    pub acquired_at: Text<'a>,
    #[serde(borrow)]
    pub expires_at: Text<'a>,
    #[serde(borrow, default)]
    pub renewed_at: Option<Text<'a>>,
}

/// One dependency edge of an issue: the issue depends on `depends_on`. The edge
/// belongs to the line that carries it, whatever its `issue_id` says.
#[derive(Clone, Debug)]
pub struct Dep<'a> {
    pub depends_on: Text<'a>,
    pub dep_type: &'static str,
    pub blocking: bool,
}

impl Dep<'_> {
    pub fn into_owned(self) -> Dep<'static> {
        Dep {
            depends_on: self.depends_on.into_owned(),
            dep_type: self.dep_type,
            blocking: self.blocking,
        }
    }
}

/// A lease as stored, with its expiry decoded.
#[derive(Clone, Debug)]
pub struct Lease<'a> {
    pub lease_id: Text<'a>,
    pub owner: Text<'a>,
    pub acquired_at: Text<'a>,
    pub expires_at: DateTime<Utc>,
    pub expires_at_text: Text<'a>,
    pub renewed_at: Option<Text<'a>>,
}

impl Lease<'_> {
    pub fn into_owned(self) -> Lease<'static> {
        Lease {
            lease_id: self.lease_id.into_owned(),
            owner: self.owner.into_owned(),
            acquired_at: self.acquired_at.into_owned(),
            expires_at: self.expires_at,
            expires_at_text: self.expires_at_text.into_owned(),
            renewed_at: self.renewed_at.map(Text::into_owned),
        }
    }
}

/// Where a lease stands at a given instant. A lease is active while `now < expires_at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseState {
    Unleased,
    Active,
    Stale,
}

impl LeaseState {
    pub fn as_str(self) -> &'static str {
        match self {
            LeaseState::Unleased => "unleased",
            LeaseState::Active => "active",
            LeaseState::Stale => "stale",
        }
    }
}

/// One issue line of the store, decoded.
#[derive(Clone, Debug)]
pub struct Issue<'a> {
    /// 1-based line number in the file.
    pub line: usize,
    /// Byte range of the line's JSON text (no newline, no trailing `\r`).
    pub span: std::ops::Range<usize>,
    pub id: Text<'a>,
    pub title: Text<'a>,
    pub status: Text<'a>,
    pub priority: i64,
    pub issue_type: Text<'a>,
    pub assignee: Option<Text<'a>>,
    pub notes_chars: usize,
    pub labels: Vec<Text<'a>>,
    pub deps: Vec<Dep<'a>>,
    /// Boxed: few issues hold a lease, and the line vector of a big store stays small.
    pub lease: Option<Box<Lease<'a>>>,
    /// A later line repeats this id (the last line wins).
    pub superseded: bool,
}

impl Issue<'_> {
    /// The same issue, owning its texts: a line edited in memory is kept
    /// apart from the text the store was parsed from (see the store's group
    /// commit).
    pub fn into_owned(self) -> Issue<'static> {
        Issue {
            line: self.line,
            span: self.span,
            id: self.id.into_owned(),
            title: self.title.into_owned(),
            status: self.status.into_owned(),
            priority: self.priority,
            issue_type: self.issue_type.into_owned(),
            assignee: self.assignee.map(Text::into_owned),
            notes_chars: self.notes_chars,
            labels: self.labels.into_iter().map(Text::into_owned).collect(),
            deps: self.deps.into_iter().map(Dep::into_owned).collect(),
            lease: self.lease.map(|l| Box::new(l.into_owned())),
            superseded: self.superseded,
        }
    }

    /// Only `closed` is closed; other statuses (`deferred`, …) count as not closed.
    pub fn is_closed(&self) -> bool {
        self.status.as_str() == "closed"
    }

    /// The lease's state at `now`: active while `now < expires_at`.
    pub fn lease_state(&self, now: DateTime<Utc>) -> LeaseState {
        match &self.lease {
            None => LeaseState::Unleased,
            Some(lease) if now < lease.expires_at => LeaseState::Active,
            Some(_) => LeaseState::Stale,
        }
    }

    /// The edges that gate readiness (see [`BLOCKING_DEP_TYPES`]).
    pub fn blocking_deps(&self) -> impl Iterator<Item = &Dep<'_>> {
        self.deps.iter().filter(|d| d.blocking)
    }
}

/// Parses an RFC3339 timestamp into UTC.
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Formats a timestamp the way this program writes them (`2026-01-01T00:00:00Z`).
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Normalizes a caller's clock to whole seconds, the precision written to the store,
/// so that what is compared is what is written.
pub fn truncate_to_seconds(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}
