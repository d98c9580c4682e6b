//! The feature ledger (`.premath/harness_feature_ledger.json`): the ordered list of
//! features a long-running effort must close.
//!
//! [`validate`] is the one definition of a valid ledger; `check` reports all its
//! problems, while `next`, `write` and `bootstrap` refuse a ledger with any (they
//! would otherwise act on a document they cannot trust). A ledger that is not JSON
//! at all is unusable input everywhere.
//!
//! Where the spec is silent: `write` keeps the fields it is not given (a new feature
//! needs a title and starts `pending`); given verification refs replace the stored
//! ones; new features go to the end of the list, updated ones keep their place.
//! A missing ledger is an error for `check`/`next`: "no ledger" and "all features
//! closed" must not look alike to a worker deciding whether it is done.

use super::{
    format_timestamp, normalize_opt, normalize_refs, parse_timestamp, write_atomic, SidecarLock,
};
use crate::canonical;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::io;
use std::path::Path;

/// `ledgerKind` of the ledger document.
pub const LEDGER_KIND: &str = "premath.harness.feature_ledger.v1";
/// `checkKind` of the `check` output.
pub const CHECK_KIND: &str = "premath.harness.feature_ledger.check.v1";

/// Why a ledger could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{path}: no feature ledger")]
    Missing { path: String },
    #[error("{path}: not valid JSON: {reason}")]
    NotJson { path: String, reason: String },
    /// The ledger parses but fails validation; names the first problem.
    #[error("{path}: invalid feature ledger: {problem} (see `tusk harness-feature check`)")]
    Invalid { path: String, problem: String },
    /// A write request that cannot be applied (bad flag values).
    #[error("{0}")]
    InvalidInput(String),
}

impl FeatureError {
    /// The failure class a host action reports for this error.
    pub fn class(&self) -> &'static str {
        match self {
            FeatureError::Io { .. } => "harness.io_error",
            FeatureError::Missing { .. } => "feature_ledger.missing",
            FeatureError::NotJson { .. } | FeatureError::Invalid { .. } => {
                "harness.feature_ledger_corrupt"
            }
            FeatureError::InvalidInput(_) => "host.args_invalid",
        }
    }
}

/// The state of one feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureState {
    Pending,
    InProgress,
    Closed,
}

impl FeatureState {
    /// Reads `pending`, `in_progress` or `closed`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "pending" => Some(FeatureState::Pending),
            "in_progress" => Some(FeatureState::InProgress),
            "closed" => Some(FeatureState::Closed),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            FeatureState::Pending => "pending",
            FeatureState::InProgress => "in_progress",
            FeatureState::Closed => "closed",
        }
    }
}

/// One feature of the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    pub feature_id: String,
    pub title: String,
    pub state: FeatureState,
    pub issue_id: Option<String>,
    pub verification_refs: Vec<String>,
    pub updated_at: String,
    /// Members this version does not know, kept as they are.
    pub extra: Map<String, Value>,
}

impl Feature {
    /// The stored form: absent `issueId` and empty `verificationRefs` left out.
    pub fn to_json(&self) -> Value {
        let mut m = self.extra.clone();
        m.insert("featureId".into(), self.feature_id.clone().into());
        m.insert("title".into(), self.title.clone().into());
        m.insert("state".into(), self.state.as_str().into());
        if let Some(issue) = &self.issue_id {
            m.insert("issueId".into(), issue.clone().into());
        }
        if !self.verification_refs.is_empty() {
            m.insert(
                "verificationRefs".into(),
                self.verification_refs.clone().into(),
            );
        }
        m.insert("updatedAt".into(), self.updated_at.clone().into());
        Value::Object(m)
    }
}

/// A valid ledger.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ledger {
    pub features: Vec<Feature>,
    /// Top-level members this version does not know, kept as they are.
    pub extra: Map<String, Value>,
}

impl Ledger {
    /// The ledger document, unknown top-level members included.
    pub fn to_json(&self) -> Value {
        let mut m = self.extra.clone();
        m.insert("schema".into(), 1.into());
        m.insert("ledgerKind".into(), LEDGER_KIND.into());
        m.insert(
            "features".into(),
            Value::Array(self.features.iter().map(Feature::to_json).collect()),
        );
        Value::Object(m)
    }

    /// The first feature that is not closed.
    pub fn next(&self) -> Option<&Feature> {
        self.features
            .iter()
            .find(|f| f.state != FeatureState::Closed)
    }

    /// `featureCount`, `closedCount`, `featureClosureComplete`, `nextFeatureId` and
    /// `nextFeature` (the last two absent when every feature is closed).
    pub fn next_projection(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let closed = self
            .features
            .iter()
            .filter(|f| f.state == FeatureState::Closed)
            .count();
        m.insert("featureCount".into(), self.features.len().into());
        m.insert("closedCount".into(), closed.into());
        m.insert(
            "featureClosureComplete".into(),
            self.next().is_none().into(),
        );
        if let Some(next) = self.next() {
            m.insert("nextFeatureId".into(), next.feature_id.clone().into());
            m.insert("nextFeature".into(), next.to_json());
        }
        m
    }
}

/// One validation problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub class: &'static str,
    /// Index in `features`, when the problem is in one feature.
    pub index: Option<usize>,
    pub feature_id: Option<String>,
    pub message: String,
}

impl Problem {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("class".into(), self.class.into());
        if let Some(i) = self.index {
            m.insert("index".into(), i.into());
        }
        if let Some(id) = &self.feature_id {
            m.insert("featureId".into(), id.clone().into());
        }
        m.insert("message".into(), self.message.clone().into());
        Value::Object(m)
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(i) => write!(f, "features[{i}]: {} ({})", self.message, self.class),
            None => write!(f, "{} ({})", self.message, self.class),
        }
    }
}

/// Validates a ledger document: every problem, or the typed ledger.
pub fn validate(doc: &Value) -> Result<Ledger, Vec<Problem>> {
    let mut problems = Vec::new();
    let top = |class, message: String| Problem {
        class,
        index: None,
        feature_id: None,
        message,
    };
    let Some(obj) = doc.as_object() else {
        return Err(vec![top(
            "feature_ledger.schema_invalid",
            "the ledger must be a JSON object".into(),
        )]);
    };
    if obj.get("schema") != Some(&Value::from(1)) {
        problems.push(top(
            "feature_ledger.schema_invalid",
            "schema must be 1".into(),
        ));
    }
    if obj.get("ledgerKind").and_then(Value::as_str) != Some(LEDGER_KIND) {
        problems.push(top(
            "feature_ledger.schema_invalid",
            format!("ledgerKind must be {LEDGER_KIND:?}"),
        ));
    }
    let mut features = Vec::new();
    match obj.get("features") {
        Some(Value::Array(items)) => {
            let mut seen = HashSet::new();
            for (i, item) in items.iter().enumerate() {
                match validate_feature(i, item, &mut seen) {
                    Ok(f) => features.push(f),
                    Err(mut p) => problems.append(&mut p),
                }
            }
        }
        _ => problems.push(top(
            "feature_ledger.schema_invalid",
            "features must be an array".into(),
        )),
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let extra = obj
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "schema" | "ledgerKind" | "features"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Ledger { features, extra })
}

fn validate_feature(
    index: usize,
    item: &Value,
    seen: &mut HashSet<String>,
) -> Result<Feature, Vec<Problem>> {
    let id = item
        .get("featureId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut problems = Vec::new();
    let mut problem = |class, message: String| {
        problems.push(Problem {
            class,
            index: Some(index),
            feature_id: id.clone(),
            message,
        })
    };
    let Some(obj) = item.as_object() else {
        problem(
            "feature_ledger.schema_invalid",
            "a feature must be an object".into(),
        );
        return Err(problems);
    };
    let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::trim);
    match text("featureId") {
        Some(id) if !id.is_empty() => {
            if !seen.insert(id.to_string()) {
                problem(
                    "feature_ledger.duplicate_feature_id",
                    format!("featureId {id:?} appears more than once"),
                );
            }
        }
        _ => problem(
            "feature_ledger.field_missing",
            "featureId must be a non-empty string".into(),
        ),
    }
    if text("title").is_none_or(str::is_empty) {
        problem(
            "feature_ledger.field_missing",
            "title must be a non-empty string".into(),
        );
    }
    let state = text("state").and_then(FeatureState::parse);
    if state.is_none() {
        problem(
            "feature_ledger.state_invalid",
            format!(
                "state must be pending, in_progress or closed, found {}",
                obj.get("state").map_or("nothing".into(), Value::to_string)
            ),
        );
    }
    match text("updatedAt") {
        Some(t) => {
            if let Err(e) = parse_timestamp(t) {
                problem(
                    "feature_ledger.timestamp_invalid",
                    format!("updatedAt: {e}"),
                );
            }
        }
        None => problem(
            "feature_ledger.field_missing",
            "updatedAt must be an RFC3339 string".into(),
        ),
    }
    let issue_id = match obj.get("issueId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => normalize_opt(Some(s)),
        Some(_) => {
            problem(
                "feature_ledger.schema_invalid",
                "issueId must be a string".into(),
            );
            None
        }
    };
    let refs: Vec<String> = match obj.get("verificationRefs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            let given: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let normalized = normalize_refs(&given);
            if normalized != given {
                problem(
                    "feature_ledger.refs_not_normalized",
                    "verificationRefs must be trimmed, sorted, de-duplicated and non-empty".into(),
                );
            }
            normalized
        }
        Some(_) => {
            problem(
                "feature_ledger.schema_invalid",
                "verificationRefs must be an array of strings".into(),
            );
            Vec::new()
        }
    };
    if state == Some(FeatureState::Closed) && refs.is_empty() {
        problem(
            "feature_ledger.verification_missing",
            "a closed feature needs at least one verification ref".into(),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let extra = obj
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "featureId" | "title" | "state" | "issueId" | "verificationRefs" | "updatedAt"
            )
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Feature {
        feature_id: text("featureId").unwrap_or_default().to_string(),
        title: text("title").unwrap_or_default().to_string(),
        state: state.expect("checked above"),
        issue_id,
        verification_refs: refs,
        updated_at: text("updatedAt").unwrap_or_default().to_string(),
        extra,
    })
}

/// Reads the ledger document; `None` when the file does not exist.
fn read_doc(path: &Path) -> Result<Option<Value>, FeatureError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(FeatureError::Io {
                path: path.display().to_string(),
                source: e,
            })
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| FeatureError::NotJson {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
}

/// Loads a valid ledger; `None` when the file does not exist.
pub fn load(path: &Path) -> Result<Option<Ledger>, FeatureError> {
    let Some(doc) = read_doc(path)? else {
        return Ok(None);
    };
    validate(&doc)
        .map(Some)
        .map_err(|problems| FeatureError::Invalid {
            path: path.display().to_string(),
            problem: problems[0].to_string(),
        })
}

/// Loads a valid ledger that must exist.
pub fn load_existing(path: &Path) -> Result<Ledger, FeatureError> {
    load(path)?.ok_or_else(|| FeatureError::Missing {
        path: path.display().to_string(),
    })
}

/// The `check` report (`premath.harness.feature_ledger.check.v1`) and whether the
/// ledger is valid.
pub fn check(path: &Path) -> Result<(bool, Value), FeatureError> {
    let doc = read_doc(path)?.ok_or_else(|| FeatureError::Missing {
        path: path.display().to_string(),
    })?;
    let mut out = Map::new();
    out.insert("schema".into(), 1.into());
    out.insert("checkKind".into(), CHECK_KIND.into());
    out.insert("path".into(), path.display().to_string().into());
    let accepted = match validate(&doc) {
        Ok(ledger) => {
            out.insert("result".into(), "accepted".into());
            out.insert("failureClasses".into(), Value::Array(Vec::new()));
            out.insert("errors".into(), Value::Array(Vec::new()));
            out.extend(ledger.next_projection());
            true
        }
        Err(problems) => {
            let classes: BTreeSet<&str> = problems.iter().map(|p| p.class).collect();
            out.insert("result".into(), "rejected".into());
            out.insert(
                "failureClasses".into(),
                classes.into_iter().collect::<Vec<_>>().into(),
            );
            out.insert(
                "errors".into(),
                Value::Array(problems.iter().map(Problem::to_json).collect()),
            );
            let count = doc
                .get("features")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            out.insert("featureCount".into(), count.into());
            false
        }
    };
    Ok((accepted, Value::Object(out)))
}

/// The `next` output: the ledger's next projection plus `schema` and `path`.
pub fn next(path: &Path) -> Result<Value, FeatureError> {
    let ledger = load_existing(path)?;
    let mut out = Map::new();
    out.insert("schema".into(), 1.into());
    out.insert("path".into(), path.display().to_string().into());
    out.extend(ledger.next_projection());
    Ok(Value::Object(out))
}

/// One upsert request.
#[derive(Clone, Debug, Default)]
pub struct FeatureWrite {
    pub feature_id: String,
    pub title: Option<String>,
    pub state: Option<FeatureState>,
    pub issue_id: Option<String>,
    pub verification_refs: Vec<String>,
}

/// What a write did.
#[derive(Debug)]
pub enum WriteOutcome {
    /// Written; the output object (`feature` plus the next projection).
    Written(Value),
    /// Refused by a ledger rule; nothing was written.
    Rejected {
        class: &'static str,
        diagnostic: String,
    },
}

/// Upserts one feature (creating the ledger when absent). Closing requires at least
/// one verification ref, given now or stored before.
pub fn write(
    path: &Path,
    req: &FeatureWrite,
    now: DateTime<Utc>,
) -> Result<WriteOutcome, FeatureError> {
    let feature_id = normalize_opt(Some(&req.feature_id))
        .ok_or_else(|| FeatureError::InvalidInput("featureId must not be empty".into()))?;
    let io_err = |e: io::Error| FeatureError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let _lock = SidecarLock::acquire(path).map_err(io_err)?;
    let mut ledger = load(path)?.unwrap_or_default();
    let position = ledger
        .features
        .iter()
        .position(|f| f.feature_id == feature_id);
    let previous = position.map(|i| ledger.features[i].clone());
    let title = normalize_opt(req.title.as_deref())
        .or_else(|| previous.as_ref().map(|f| f.title.clone()))
        .ok_or_else(|| {
            FeatureError::InvalidInput(format!(
                "feature {feature_id:?} is new: a title is required"
            ))
        })?;
    let refs = normalize_refs(&req.verification_refs);
    let feature = Feature {
        feature_id: feature_id.clone(),
        title,
        state: req
            .state
            .or(previous.as_ref().map(|f| f.state))
            .unwrap_or(FeatureState::Pending),
        issue_id: normalize_opt(req.issue_id.as_deref())
            .or_else(|| previous.as_ref().and_then(|f| f.issue_id.clone())),
        verification_refs: if refs.is_empty() {
            previous
                .as_ref()
                .map(|f| f.verification_refs.clone())
                .unwrap_or_default()
        } else {
            refs
        },
        updated_at: format_timestamp(now),
        extra: previous.map(|f| f.extra).unwrap_or_default(),
    };
    if feature.state == FeatureState::Closed && feature.verification_refs.is_empty() {
        return Ok(WriteOutcome::Rejected {
            class: "feature_ledger.verification_missing",
            diagnostic: format!(
                "feature {feature_id:?} cannot be closed without at least one verification ref"
            ),
        });
    }
    let feature_json = feature.to_json();
    match position {
        Some(i) => ledger.features[i] = feature,
        None => ledger.features.push(feature),
    }
    let mut text = canonical::to_pretty_sorted(&ledger.to_json());
    text.push('\n');
    write_atomic(path, text.as_bytes()).map_err(io_err)?;
    let mut out = Map::new();
    out.insert("schema".into(), 1.into());
    out.insert("path".into(), path.display().to_string().into());
    out.insert("feature".into(), feature_json);
    out.extend(ledger.next_projection());
    Ok(WriteOutcome::Written(Value::Object(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn feature(id: &str, state: &str, refs: Value) -> Value {
        json!({"featureId": id, "title": "t", "state": state, "verificationRefs": refs,
               "updatedAt": "2026-02-01T00:00:00Z"})
    }

    #[test]
    fn valid_ledger_and_next() {
        let doc = json!({"schema": 1, "ledgerKind": LEDGER_KIND, "features": [
            feature("a", "closed", json!(["ci://1"])), feature("b", "pending", json!([])),
            feature("c", "in_progress", json!(null))]});
        let ledger = validate(&doc).unwrap();
        assert_eq!(ledger.next().unwrap().feature_id, "b");
        let p = ledger.next_projection();
        assert_eq!(p["featureCount"], 3);
        assert_eq!(p["closedCount"], 1);
        assert_eq!(p["featureClosureComplete"], false);
    }

    #[test]
    fn every_problem_is_reported() {
        let doc = json!({"schema": 2, "ledgerKind": LEDGER_KIND, "features": [
            feature("a", "closed", json!([])), feature("a", "done", json!(["b", "a"])),
            {"featureId": "", "title": "t", "state": "pending", "updatedAt": "soon"}, 7]});
        let problems = validate(&doc).unwrap_err();
        let classes: Vec<_> = problems.iter().map(|p| p.class).collect();
        assert_eq!(
            classes,
            vec![
                "feature_ledger.schema_invalid",
                "feature_ledger.verification_missing",
                "feature_ledger.duplicate_feature_id",
                "feature_ledger.state_invalid",
                "feature_ledger.refs_not_normalized",
                "feature_ledger.field_missing",
                "feature_ledger.timestamp_invalid",
                "feature_ledger.schema_invalid",
            ]
        );
    }
}
