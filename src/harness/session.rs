//! The session handoff artifact (`premath.harness.session.v1`, seed §11) and the
//! `bootstrap` projection a fresh-context worker boots from.
//!
//! A session file that exists but cannot be read as a session is an error, never
//! a silent fresh start: a worker that lost its handoff must notice.
//!
//! Where the spec is silent: fields not given to `write` keep their stored values
//! (given ref lists replace the stored ones); `stoppedAt` is set when the state
//! becomes `stopped` and kept while it stays stopped; members this version does
//! not know are kept; `bootstrap` reads the feature ledger next to the session
//! unless told otherwise, and `fresh` still reports the ledger.
//!
//! As the reference (`--issues`, parity notes §6.1): every write records
//! `issuesPath` (the flag's value, default `.premath/issues.jsonl`) and the
//! store's `issuesSnapshotRef` when the store exists and loads, none otherwise.
//! The feature projection of `bootstrap` is the reference's: a ledger that its
//! check rejects (an empty one included) is an error, never a silent null.

use super::feature::{self, FeatureError};
use super::{normalize_opt, normalize_refs, parse_timestamp, write_atomic, SidecarLock};
use crate::harness::HarnessClass;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io;
use std::path::Path;

/// `sessionKind` of the session artifact.
pub const SESSION_KIND: &str = "premath.harness.session.v1";
/// `bootstrapKind` of the `bootstrap` output.
pub const BOOTSTRAP_KIND: &str = "premath.harness.bootstrap.v1";

/// Why a session could not be read, written or bootstrapped from.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{path}: malformed session: {reason}")]
    Malformed { path: String, reason: String },
    #[error("failed to project harness feature ledger {path}: {source}")]
    FeatureLedger {
        path: String,
        #[source]
        source: FeatureError,
    },
}

impl SessionError {
    /// The failure class a host action reports for this error.
    pub fn class(&self) -> &'static str {
        match self {
            SessionError::Io { .. } => HarnessClass::IoError.as_str(),
            SessionError::Malformed { .. } => HarnessClass::SessionCorrupt.as_str(),
            SessionError::FeatureLedger { source, .. } => source.class(),
        }
    }
}

/// `active` or `stopped`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionState {
    Active,
    Stopped,
}

impl SessionState {
    /// Reads `active` or `stopped`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "active" => Some(SessionState::Active),
            "stopped" => Some(SessionState::Stopped),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::Active => "active",
            SessionState::Stopped => "stopped",
        }
    }
}

/// A session as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub session_id: String,
    pub state: SessionState,
    pub started_at: String,
    pub updated_at: String,
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub next_step: Option<String>,
    pub instruction_refs: Vec<String>,
    pub witness_refs: Vec<String>,
    pub lineage_refs: Vec<String>,
    pub stopped_at: Option<String>,
    pub issues_path: Option<String>,
    pub issues_snapshot_ref: Option<String>,
    /// Members this version does not know, kept as they are.
    pub extra: Map<String, Value>,
}

const KNOWN_KEYS: [&str; 15] = [
    "schema",
    "sessionKind",
    "sessionId",
    "state",
    "startedAt",
    "updatedAt",
    "issueId",
    "summary",
    "nextStep",
    "instructionRefs",
    "witnessRefs",
    "lineageRefs",
    "stoppedAt",
    "issuesPath",
    "issuesSnapshotRef",
];

impl Session {
    /// Validates a stored session document.
    pub fn from_json(doc: &Value) -> Result<Self, String> {
        let obj = doc.as_object().ok_or("the session must be a JSON object")?;
        if obj.get("schema") != Some(&Value::from(1)) {
            return Err("schema must be 1".into());
        }
        if obj.get("sessionKind").and_then(Value::as_str) != Some(SESSION_KIND) {
            return Err(format!("sessionKind must be {SESSION_KIND:?}"));
        }
        let opt_str = |key: &str| -> Result<Option<String>, String> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(normalize_opt(Some(s))),
                Some(_) => Err(format!("{key} must be a string")),
            }
        };
        let required = |key: &str| -> Result<String, String> {
            opt_str(key)?.ok_or_else(|| format!("{key} is required"))
        };
        let timestamp = |key: &str, value: Option<String>| -> Result<Option<String>, String> {
            if let Some(t) = &value {
                parse_timestamp(t).map_err(|e| format!("{key}: {e}"))?;
            }
            Ok(value)
        };
        let refs = |key: &str| -> Result<Vec<String>, String> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| v.as_str().ok_or(()))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|refs| normalize_refs(&refs))
                    .map_err(|()| format!("{key} must be an array of strings")),
                Some(_) => Err(format!("{key} must be an array of strings")),
            }
        };
        let state_text = required("state")?;
        let state = SessionState::parse(&state_text)
            .ok_or_else(|| format!("state must be active or stopped, found {state_text:?}"))?;
        Ok(Session {
            session_id: required("sessionId")?,
            state,
            started_at: timestamp("startedAt", Some(required("startedAt")?))?.unwrap_or_default(),
            updated_at: timestamp("updatedAt", Some(required("updatedAt")?))?.unwrap_or_default(),
            issue_id: opt_str("issueId")?,
            summary: opt_str("summary")?,
            next_step: opt_str("nextStep")?,
            instruction_refs: refs("instructionRefs")?,
            witness_refs: refs("witnessRefs")?,
            lineage_refs: refs("lineageRefs")?,
            stopped_at: timestamp("stoppedAt", opt_str("stoppedAt")?)?,
            issues_path: opt_str("issuesPath")?,
            issues_snapshot_ref: opt_str("issuesSnapshotRef")?,
            extra: obj
                .iter()
                .filter(|(k, _)| !KNOWN_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }

    /// The stored form in the reference's key order (absent optionals and empty
    /// ref lists left out), members this version does not know after.
    pub fn doc(&self) -> SessionDoc<'_> {
        SessionDoc {
            schema: 1,
            session_kind: SESSION_KIND,
            session_id: &self.session_id,
            state: self.state.as_str(),
            issue_id: self.issue_id.as_deref(),
            summary: self.summary.as_deref(),
            next_step: self.next_step.as_deref(),
            instruction_refs: &self.instruction_refs,
            witness_refs: &self.witness_refs,
            lineage_refs: &self.lineage_refs,
            started_at: &self.started_at,
            updated_at: &self.updated_at,
            stopped_at: self.stopped_at.as_deref(),
            issues_path: self.issues_path.as_deref(),
            issues_snapshot_ref: self.issues_snapshot_ref.as_deref(),
            extra: &self.extra,
        }
    }

    /// [`Session::doc`] as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(&self.doc())
    }
}

/// The session artifact as stored, in the reference's key order: the file's
/// document and the payload of `harness.session.read` and `.write`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Session"))]
pub struct SessionDoc<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.session.v1`.
    pub session_kind: &'a str,
    pub session_id: &'a str,
    /// `active` or `stopped`.
    pub state: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_step: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub instruction_refs: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub witness_refs: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub lineage_refs: &'a [String],
    pub started_at: &'a str,
    pub updated_at: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issues_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issues_snapshot_ref: Option<&'a str>,
    /// Members this version does not know, kept as they are.
    #[serde(flatten)]
    pub extra: &'a Map<String, Value>,
}

/// Reads the session at `path`; `None` when the file does not exist.
pub fn read(path: &Path) -> Result<Option<Session>, SessionError> {
    let text = match crate::files::read_to_string(path, crate::files::INPUT_MAX) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(SessionError::Io {
                path: path.display().to_string(),
                source: e,
            })
        }
    };
    let malformed = |reason: String| SessionError::Malformed {
        path: path.display().to_string(),
        reason,
    };
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| malformed(format!("not valid JSON: {e}")))?;
    Session::from_json(&doc).map(Some).map_err(malformed)
}

/// One `write` request; blank strings and empty ref lists mean "not given".
#[derive(Clone, Debug)]
pub struct SessionWrite {
    pub state: SessionState,
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub next_step: Option<String>,
    pub instruction_refs: Vec<String>,
    pub witness_refs: Vec<String>,
    pub lineage_refs: Vec<String>,
    /// The issue store to record (its path, or its URL without the password;
    /// absent when blank) and take the snapshot ref of.
    pub issues: crate::issues::IssueStore,
    pub session_id: Option<String>,
}

/// Creates or updates the session at `path` in place and returns what was written.
pub fn write(path: &Path, req: &SessionWrite, now: DateTime<Utc>) -> Result<Session, SessionError> {
    let io_err = |e: io::Error| SessionError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let _lock = SidecarLock::acquire(path).map_err(io_err)?;
    let prev = read(path)?;
    // Whole seconds, as the reference writes its harness artifacts.
    let now_text = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let given_or = |given: &Option<String>, stored: Option<&Option<String>>| {
        normalize_opt(given.as_deref()).or_else(|| stored.cloned().flatten())
    };
    let refs_or = |given: &[String], stored: Option<&Vec<String>>| {
        let given = normalize_refs(given);
        if given.is_empty() {
            stored.cloned().unwrap_or_default()
        } else {
            given
        }
    };
    let issue_id = given_or(&req.issue_id, prev.as_ref().map(|p| &p.issue_id));
    let session_id = normalize_opt(req.session_id.as_deref())
        .or_else(|| prev.as_ref().map(|p| p.session_id.clone()))
        .unwrap_or_else(|| new_session_id(now, issue_id.as_deref()));
    let issues_path = normalize_opt(Some(&req.issues.path().display().to_string()));
    let issues_snapshot_ref = issues_path
        .as_ref()
        .and_then(|_| loadable_store_ref(&req.issues));
    let stopped_at = match (req.state, &prev) {
        (SessionState::Active, _) => None,
        (SessionState::Stopped, Some(p)) if p.state == SessionState::Stopped => {
            p.stopped_at.clone().or_else(|| Some(now_text.clone()))
        }
        (SessionState::Stopped, _) => Some(now_text.clone()),
    };
    let session = Session {
        session_id,
        state: req.state,
        started_at: prev
            .as_ref()
            .map_or_else(|| now_text.clone(), |p| p.started_at.clone()),
        updated_at: now_text,
        summary: given_or(&req.summary, prev.as_ref().map(|p| &p.summary)),
        next_step: given_or(&req.next_step, prev.as_ref().map(|p| &p.next_step)),
        instruction_refs: refs_or(
            &req.instruction_refs,
            prev.as_ref().map(|p| &p.instruction_refs),
        ),
        witness_refs: refs_or(&req.witness_refs, prev.as_ref().map(|p| &p.witness_refs)),
        lineage_refs: refs_or(&req.lineage_refs, prev.as_ref().map(|p| &p.lineage_refs)),
        issue_id,
        stopped_at,
        issues_path,
        issues_snapshot_ref,
        extra: prev.map(|p| p.extra).unwrap_or_default(),
    };
    let mut text =
        serde_json::to_string_pretty(&session.to_json()).expect("a Value always serializes");
    text.push('\n');
    write_atomic(path, text.as_bytes()).map_err(io_err)?;
    Ok(session)
}

/// `hs1_<UTC yyyymmddThhmmssZ>_<issue id token or "none">` (the spec's
/// `none`; the token by the reference's rule).
pub fn new_session_id(now: DateTime<Utc>, issue_id: Option<&str>) -> String {
    format!(
        "hs1_{}_{}",
        now.format("%Y%m%dT%H%M%SZ"),
        issue_id.map_or_else(|| "none".to_string(), session_token)
    )
}

/// An issue id as a session-id token, by the reference's rule: ASCII letters
/// and digits lowercased, `-` and `_` kept, anything else `_`, then outer
/// `_` trimmed (`BD 7` → `bd_7`); `session` when nothing is left.
fn session_token(issue_id: &str) -> String {
    let token: String = issue_id
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() => c.to_ascii_lowercase(),
            '-' | '_' => c,
            _ => '_',
        })
        .collect();
    match token.trim_matches('_') {
        "" => "session".to_string(),
        trimmed => trimmed.to_string(),
    }
}

/// The `premath.harness.bootstrap.v1` projection (the payload of
/// `harness.session.bootstrap`): the reference's members in its order, every
/// one present, `null` where the session or the ledger has none; then tusk's
/// additions, the spec's `schema`, `state` and `issueId`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Bootstrap"))]
pub struct Bootstrap {
    /// `harness-session.bootstrap`.
    pub action: &'static str,
    /// `premath.harness.bootstrap.v1`.
    pub bootstrap_kind: &'static str,
    pub session_ref: String,
    pub session_id: Option<String>,
    /// `fresh`, `resume` or `attach`.
    pub mode: &'static str,
    pub resume_issue_id: Option<String>,
    pub next_step: Option<String>,
    pub summary: Option<String>,
    pub instruction_refs: Vec<String>,
    pub witness_refs: Vec<String>,
    pub lineage_refs: Vec<String>,
    pub issues_path: Option<String>,
    pub issues_snapshot_ref: Option<String>,
    pub feature_ledger_ref: String,
    pub next_feature_id: Option<String>,
    pub feature_closure_complete: Option<bool>,
    pub feature_count: Option<usize>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub stopped_at: Option<String>,
    /// Always 1.
    pub schema: u32,
    /// `active` or `stopped`; `null` when fresh.
    pub state: Option<&'static str>,
    pub issue_id: Option<String>,
}

impl Bootstrap {
    /// The projection as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(self)
    }
}

/// The bootstrap projection: mode `resume` (stopped), `attach` (active) or
/// `fresh` (no session), the session's continuation fields, and the feature
/// projection when a ledger exists at `ledger_path`.
pub fn bootstrap(path: &Path, ledger_path: &Path) -> Result<Bootstrap, SessionError> {
    let session = read(path)?;
    let features =
        feature::project_next(ledger_path).map_err(|source| SessionError::FeatureLedger {
            path: ledger_path.display().to_string(),
            source,
        })?;
    let mode = match &session {
        None => "fresh",
        Some(s) if s.state == SessionState::Stopped => "resume",
        Some(_) => "attach",
    };
    let s = session.as_ref();
    let opt = |pick: fn(&Session) -> &Option<String>| s.and_then(|s| pick(s).clone());
    let refs = |pick: fn(&Session) -> &Vec<String>| s.map(pick).cloned().unwrap_or_default();
    let f = features.as_ref();
    Ok(Bootstrap {
        action: "harness-session.bootstrap",
        bootstrap_kind: BOOTSTRAP_KIND,
        session_ref: path.display().to_string(),
        session_id: s.map(|s| s.session_id.clone()),
        mode,
        resume_issue_id: opt(|s| &s.issue_id),
        next_step: opt(|s| &s.next_step),
        summary: opt(|s| &s.summary),
        instruction_refs: refs(|s| &s.instruction_refs),
        witness_refs: refs(|s| &s.witness_refs),
        lineage_refs: refs(|s| &s.lineage_refs),
        issues_path: opt(|s| &s.issues_path),
        issues_snapshot_ref: opt(|s| &s.issues_snapshot_ref),
        feature_ledger_ref: ledger_path.display().to_string(),
        next_feature_id: f.and_then(|p| p.next_feature_id.clone()),
        feature_closure_complete: f.map(|p| p.closure_complete),
        feature_count: f.map(|p| p.feature_count),
        started_at: s.map(|s| s.started_at.clone()),
        updated_at: s.map(|s| s.updated_at.clone()),
        stopped_at: opt(|s| &s.stopped_at),
        schema: 1,
        state: s.map(|s| s.state.as_str()),
        issue_id: opt(|s| &s.issue_id),
    })
}

/// The feature ledger `bootstrap` reads by default: the one next to the session.
pub fn sibling_ledger_path(session_path: &Path) -> std::path::PathBuf {
    session_path.with_file_name("harness_feature_ledger.json")
}

// ---------------------------------------------------------------------------
// Issue-store snapshot ref

/// Why the issue store's snapshot ref could not be computed.
pub type SnapshotError = crate::issues::StoreError;

/// The issue store's snapshot ref. The rule (issue-memory.md) lives in the
/// issue module; the session only records it.
pub fn issues_snapshot_ref(store: &crate::issues::IssueStore) -> Result<String, SnapshotError> {
    crate::issues::snapshot_ref(store)
}

/// The snapshot ref a session records: that of a store that exists and loads,
/// none otherwise (the reference's `derive_issue_snapshot_ref`).
fn loadable_store_ref(store: &crate::issues::IssueStore) -> Option<String> {
    if let crate::issues::IssueStore::Jsonl(path) = store {
        if !path.exists() {
            return None;
        }
    }
    issues_snapshot_ref(store).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_id_format() {
        let t = parse_timestamp("2026-02-03T04:05:06Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(new_session_id(t, Some("bd-7")), "hs1_20260203T040506Z_bd-7");
        assert_eq!(new_session_id(t, None), "hs1_20260203T040506Z_none");
        assert_eq!(new_session_id(t, Some("BD 7")), "hs1_20260203T040506Z_bd_7");
        assert_eq!(
            new_session_id(t, Some(" ?")),
            "hs1_20260203T040506Z_session"
        );
    }

    #[test]
    fn from_json_validates_and_keeps_unknown_members() {
        let doc = json!({"schema": 1, "sessionKind": SESSION_KIND, "sessionId": "s", "state": "active",
            "startedAt": "2026-02-01T00:00:00Z", "updatedAt": "2026-02-01T00:00:00Z",
            "witnessRefs": ["b", "a", "a"], "summary": " ", "custom": {"x": 1}});
        let s = Session::from_json(&doc).unwrap();
        assert_eq!(s.witness_refs, vec!["a", "b"]);
        assert_eq!(s.summary, None);
        assert_eq!(s.to_json()["custom"], json!({"x": 1}));
        for (key, bad) in [
            ("state", json!("paused")),
            ("startedAt", json!("today")),
            ("schema", json!(2)),
            ("witnessRefs", json!("a")),
            ("issueId", json!(5)),
            ("sessionId", json!("")),
        ] {
            let mut d = doc.clone();
            d[key] = bad;
            let err = Session::from_json(&d).unwrap_err();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn empty_store_ref_is_sha_of_nothing() {
        let r = issues_snapshot_ref(&crate::issues::IssueStore::Jsonl(
            "/nonexistent/issues.jsonl".into(),
        ))
        .unwrap();
        assert_eq!(
            r,
            "iss1_e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
