//! The feature ledger (`.premath/harness_feature_ledger.json`): the features a
//! long-running effort must close, in the reference's shape (premath-cli's
//! `harness_feature.rs`), so that a ledger written by either program is read by
//! the other:
//!
//! ```text
//! {schema: 1, ledgerKind: "premath.harness.feature_ledger.v1", sessionRef?, updatedAt,
//!  features: [{featureId, status, issueId?, summary?, instructionRefs?, verificationRefs?, updatedAt}]}
//! ```
//!
//! Reading validates the JSON shape and the header only (as the reference does);
//! the row rules are the `check` report ([`check_report`]), which `next` and the
//! session bootstrap also require to accept. The file is written in the
//! reference's key order, pretty-printed, with a trailing newline.
//!
//! Deliberate differences from the reference, each for robustness:
//! - members this version does not know (top level or in a row) are kept, after
//!   the known ones, when tusk rewrites the ledger; the reference drops them;
//! - a ledger in the old tusk shape (rows with `title`/`state`, no top-level
//!   `updatedAt`) is named as such ([`FeatureError::LegacyShape`], exit 2), not
//!   reported as a missing field;
//! - `write` holds a sidecar lock across its read-modify-write and replaces the
//!   file atomically; the reference does neither.

use super::{write_atomic, SidecarLock};
use crate::harness::HarnessClass;
use crate::host::HostClass;
use chrono::{DateTime, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::io;
use std::path::Path;

/// `schema` of the ledger document.
pub const LEDGER_SCHEMA: u32 = 1;
/// `ledgerKind` of the ledger document.
pub const LEDGER_KIND: &str = "premath.harness.feature_ledger.v1";
/// `checkKind` of the `check` output.
pub const CHECK_KIND: &str = "premath.harness.feature_ledger.check.v1";
/// The statuses a row may have.
pub const STATUSES: [&str; 4] = ["pending", "in_progress", "blocked", "completed"];

const LEDGER_KEYS: [&str; 5] = [
    "schema",
    "ledgerKind",
    "sessionRef",
    "updatedAt",
    "features",
];
const ROW_KEYS: [&str; 7] = [
    "featureId",
    "status",
    "issueId",
    "summary",
    "instructionRefs",
    "verificationRefs",
    "updatedAt",
];

/// Why a ledger could not be used. The messages are the reference's (the
/// command adds its own prefix, e.g. `failed to read harness feature ledger P: `).
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    #[error("unable to read {path}: {source}")]
    Unreadable {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("unable to parse {path}: {reason}")]
    Unparsable { path: String, reason: String },
    /// Wrong `schema` or `ledgerKind`.
    #[error("{0}")]
    Header(String),
    /// A ledger in the shape tusk used before it adopted the reference's.
    #[error("{path} is a feature ledger in the old tusk shape (rows with title/state); rewrite it in the premath shape (rows with status, see `tusk harness-feature write --help`)")]
    LegacyShape { path: String },
    /// The ledger fails its check (for `next` and the session bootstrap).
    #[error("ledger rejected: {}", .classes.join(", "))]
    Rejected { classes: Vec<String> },
    /// A write request that cannot be applied.
    #[error("{0}")]
    InvalidInput(String),
    #[error("failed to write harness feature ledger {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl FeatureError {
    /// The failure class a host action reports for this error.
    pub fn class(&self) -> &'static str {
        match self {
            FeatureError::Unreadable { .. } | FeatureError::Write { .. } => {
                HarnessClass::IoError.as_str()
            }
            FeatureError::Unparsable { .. }
            | FeatureError::Header(_)
            | FeatureError::LegacyShape { .. } => HarnessClass::FeatureLedgerCorrupt.as_str(),
            FeatureError::Rejected { .. } => HarnessClass::FeatureLedgerRejected.as_str(),
            FeatureError::InvalidInput(_) => HostClass::ArgsInvalid.as_str(),
        }
    }

    /// The exit code of a command that fails with this error: 1 as the
    /// reference, 2 for the old tusk shape (unusable input of tusk's own).
    pub fn exit_code(&self) -> i32 {
        match self {
            FeatureError::LegacyShape { .. } => 2,
            _ => 1,
        }
    }
}

/// One feature row.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    pub feature_id: String,
    /// As stored; `check` reports a value outside [`STATUSES`].
    pub status: String,
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub instruction_refs: Vec<String>,
    pub verification_refs: Vec<String>,
    pub updated_at: String,
    /// Members this version does not know, kept as they are.
    pub extra: Map<String, Value>,
}

impl Feature {
    /// The stored form, in the reference's key order (absent optionals and empty
    /// ref lists left out), unknown members after.
    pub fn doc(&self) -> FeatureDoc<'_> {
        FeatureDoc {
            feature_id: &self.feature_id,
            status: &self.status,
            issue_id: self.issue_id.as_deref(),
            summary: self.summary.as_deref(),
            instruction_refs: &self.instruction_refs,
            verification_refs: &self.verification_refs,
            updated_at: &self.updated_at,
            extra: &self.extra,
        }
    }

    /// [`Feature::doc`] as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(&self.doc())
    }
}

/// A feature row as stored, in the reference's key order.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeatureDoc<'a> {
    pub feature_id: &'a str,
    /// `pending`, `in_progress`, `blocked` or `completed`.
    pub status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub instruction_refs: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub verification_refs: &'a [String],
    pub updated_at: &'a str,
    /// Members this version does not know, kept as they are.
    #[serde(flatten)]
    pub extra: &'a Map<String, Value>,
}

/// The ledger document as stored, in the reference's key order.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LedgerDoc<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.feature_ledger.v1`.
    pub ledger_kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_ref: Option<&'a str>,
    pub updated_at: &'a str,
    pub features: Vec<FeatureDoc<'a>>,
    /// Top-level members this version does not know, kept as they are.
    #[serde(flatten)]
    pub extra: &'a Map<String, Value>,
}

/// A ledger whose shape and header are valid.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    pub session_ref: Option<String>,
    pub updated_at: String,
    pub features: Vec<Feature>,
    /// Top-level members this version does not know, kept as they are.
    pub extra: Map<String, Value>,
}

impl Ledger {
    /// A new, empty ledger.
    pub fn new(updated_at: String) -> Self {
        Self {
            session_ref: None,
            updated_at,
            features: Vec::new(),
            extra: Map::new(),
        }
    }

    /// The ledger document in the reference's key order, unknown members after.
    pub fn doc(&self) -> LedgerDoc<'_> {
        LedgerDoc {
            schema: LEDGER_SCHEMA,
            ledger_kind: LEDGER_KIND,
            session_ref: self.session_ref.as_deref(),
            updated_at: &self.updated_at,
            features: self.features.iter().map(Feature::doc).collect(),
            extra: &self.extra,
        }
    }

    /// [`Ledger::doc`] as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(&self.doc())
    }

    /// The file's bytes: pretty JSON in the reference's key order plus `\n`.
    pub fn to_file_text(&self) -> String {
        let mut text =
            serde_json::to_string_pretty(&self.to_json()).expect("a Value always serializes");
        text.push('\n');
        text
    }
}

// The reference's serde shape, used to parse so that every shape error is the
// reference's message, byte for byte.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct HarnessFeatureLedger {
    schema: u32,
    ledger_kind: String,
    #[serde(default)]
    session_ref: Option<String>,
    updated_at: String,
    #[serde(default)]
    features: Vec<HarnessFeatureRow>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HarnessFeatureRow {
    feature_id: String,
    status: String,
    #[serde(default)]
    issue_id: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    instruction_refs: Vec<String>,
    #[serde(default)]
    verification_refs: Vec<String>,
    updated_at: String,
}

fn unknown_members(value: Option<&Value>, known: &[&str]) -> Map<String, Value> {
    value
        .and_then(Value::as_object)
        .map(|obj| {
            obj.iter()
                .filter(|(k, _)| !known.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// True for the shape tusk wrote before it adopted the reference's: no
/// top-level `updatedAt`, rows with `state` instead of `status`.
fn is_legacy_shape(doc: &Value) -> bool {
    let Some(obj) = doc.as_object() else {
        return false;
    };
    !obj.contains_key("updatedAt")
        && obj
            .get("features")
            .and_then(Value::as_array)
            .is_some_and(|rows| {
                rows.iter().any(|r| {
                    r.as_object()
                        .is_some_and(|r| r.contains_key("state") && !r.contains_key("status"))
                })
            })
}

/// Parses ledger bytes: shape, then header (`path` names the file in messages).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Ledger, FeatureError> {
    let shown = path.display().to_string();
    let unparsable = |e: serde_json::Error| FeatureError::Unparsable {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let raw: Option<Value> = serde_json::from_slice(bytes).ok();
    if raw.as_ref().is_some_and(is_legacy_shape) {
        return Err(FeatureError::LegacyShape { path: shown });
    }
    let doc: HarnessFeatureLedger = serde_json::from_slice(bytes).map_err(unparsable)?;
    if doc.schema != LEDGER_SCHEMA {
        return Err(FeatureError::Header(format!(
            "invalid schema {} (expected {LEDGER_SCHEMA})",
            doc.schema
        )));
    }
    if doc.ledger_kind != LEDGER_KIND {
        return Err(FeatureError::Header(format!(
            "invalid ledger kind {} (expected {LEDGER_KIND})",
            doc.ledger_kind
        )));
    }
    let raw_rows = raw
        .as_ref()
        .and_then(|r| r.get("features"))
        .and_then(Value::as_array);
    let features = doc
        .features
        .into_iter()
        .enumerate()
        .map(|(i, row)| Feature {
            feature_id: row.feature_id,
            status: row.status,
            issue_id: row.issue_id,
            summary: row.summary,
            instruction_refs: row.instruction_refs,
            verification_refs: row.verification_refs,
            updated_at: row.updated_at,
            extra: unknown_members(raw_rows.and_then(|rows| rows.get(i)), &ROW_KEYS),
        })
        .collect();
    Ok(Ledger {
        session_ref: doc.session_ref,
        updated_at: doc.updated_at,
        features,
        extra: unknown_members(raw.as_ref(), &LEDGER_KEYS),
    })
}

/// Reads and parses the ledger at `path`, which must exist.
pub fn read(path: &Path) -> Result<Ledger, FeatureError> {
    let bytes = crate::files::read(path).map_err(|e| FeatureError::Unreadable {
        path: path.display().to_string(),
        source: e,
    })?;
    parse(path, &bytes)
}

/// Reads the ledger at `path`; `None` when nothing exists there.
pub fn read_if_exists(path: &Path) -> Result<Option<Ledger>, FeatureError> {
    if !path.exists() {
        return Ok(None);
    }
    read(path).map(Some)
}

/// One finding of the check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub class: &'static str,
    pub feature_id: Option<String>,
    pub message: String,
}

impl Finding {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("class".into(), self.class.into());
        if let Some(id) = &self.feature_id {
            m.insert("featureId".into(), id.clone().into());
        }
        m.insert("message".into(), self.message.clone().into());
        Value::Object(m)
    }
}

/// The check report (`premath.harness.feature_ledger.check.v1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    pub errors: Vec<Finding>,
    /// Sorted, unique classes of `errors`.
    pub failure_classes: Vec<String>,
    pub feature_count: usize,
    pub pending_count: usize,
    pub in_progress_count: usize,
    pub blocked_count: usize,
    pub completed_count: usize,
    pub closure_complete: bool,
    pub next_feature_id: Option<String>,
}

impl CheckReport {
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }

    /// The `check --json` output.
    pub fn to_json(&self, path: &Path, require_closure: bool) -> Value {
        serde_json::json!({
            "action": "harness-feature.check",
            "path": path.display().to_string(),
            "checkKind": CHECK_KIND,
            "result": if self.accepted() { "accepted" } else { "rejected" },
            "requireClosure": require_closure,
            "failureClasses": self.failure_classes,
            "errors": self.errors.iter().map(Finding::to_json).collect::<Vec<_>>(),
            "summary": {
                "featureCount": self.feature_count,
                "pendingCount": self.pending_count,
                "inProgressCount": self.in_progress_count,
                "blockedCount": self.blocked_count,
                "completedCount": self.completed_count,
                "closureComplete": self.closure_complete,
            },
            "nextFeatureId": self.next_feature_id,
        })
    }
}

/// The findings of one check, in the order the rules found them.
#[derive(Default)]
struct Findings(Vec<Finding>);

impl Findings {
    fn push(&mut self, class: HarnessClass, feature_id: Option<&str>, message: impl Into<String>) {
        self.0.push(Finding {
            class: class.as_str(),
            feature_id: feature_id.map(str::to_string),
            message: message.into(),
        })
    }
}

/// The rows by status: the ids that may be next, counts of the rest.
#[derive(Default)]
struct StatusTally<'a> {
    pending: Vec<&'a str>,
    in_progress: Vec<&'a str>,
    blocked: usize,
    completed: usize,
}

/// The row rules, in the reference's order (parity notes §6.6).
pub fn check_report(ledger: &Ledger, require_closure: bool) -> CheckReport {
    let mut findings = Findings::default();
    if ledger.updated_at.trim().is_empty() {
        findings.push(
            HarnessClass::LedgerUpdatedAtEmpty,
            None,
            "ledger.updatedAt must be non-empty",
        );
    }
    if ledger.features.is_empty() {
        findings.push(
            HarnessClass::LedgerEmpty,
            None,
            "ledger.features must contain at least one row",
        );
    }
    let mut seen = HashSet::new();
    let mut tally = StatusTally::default();
    for row in &ledger.features {
        let id = row.feature_id.trim();
        if id.is_empty() {
            findings.push(
                HarnessClass::LedgerFeatureIdEmpty,
                None,
                "featureId must be non-empty",
            );
            continue;
        }
        if !seen.insert(id) {
            findings.push(
                HarnessClass::LedgerFeatureIdDuplicate,
                Some(id),
                "featureId must be unique",
            );
        }
        check_row(row, id, &mut tally, &mut findings);
    }
    let StatusTally {
        mut pending,
        mut in_progress,
        blocked: blocked_count,
        completed: completed_count,
    } = tally;
    if in_progress.len() > 1 {
        findings.push(
            HarnessClass::LedgerInProgressNonContractible,
            None,
            "at most one feature may be in_progress",
        );
    }
    in_progress.sort_unstable();
    pending.sort_unstable();
    let next_feature_id = in_progress
        .first()
        .or(pending.first())
        .map(|id| id.to_string());
    let closure_complete = findings.0.is_empty()
        && !ledger.features.is_empty()
        && completed_count == ledger.features.len();
    if require_closure && !closure_complete {
        findings.push(
            HarnessClass::LedgerClosureIncomplete,
            None,
            "require-closure set but ledger is not closed",
        );
    }
    let errors = findings.0;
    let failure_classes = errors
        .iter()
        .map(|f| f.class.to_string())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    CheckReport {
        errors,
        failure_classes,
        feature_count: ledger.features.len(),
        pending_count: pending.len(),
        in_progress_count: in_progress.len(),
        blocked_count,
        completed_count,
        closure_complete,
        next_feature_id,
    }
}

/// The rules of one row whose id `id` is non-empty, after its uniqueness.
fn check_row<'a>(row: &Feature, id: &'a str, tally: &mut StatusTally<'a>, findings: &mut Findings) {
    if row.updated_at.trim().is_empty() {
        findings.push(
            HarnessClass::LedgerFeatureUpdatedAtEmpty,
            Some(id),
            "feature.updatedAt must be non-empty",
        );
    }
    match row.status.as_str() {
        "pending" => tally.pending.push(id),
        "in_progress" => tally.in_progress.push(id),
        "blocked" => tally.blocked += 1,
        "completed" => tally.completed += 1,
        other => findings.push(
            HarnessClass::LedgerStatusInvalid,
            Some(id),
            format!(
                "feature status `{other}` is invalid (expected pending|in_progress|blocked|completed)"
            ),
        ),
    }
    if row.status == "completed" && row.verification_refs.is_empty() {
        findings.push(
            HarnessClass::LedgerCompletedMissingVerificationRef,
            Some(id),
            "completed feature requires at least one verificationRef",
        );
    }
    let ref_lists = [
        (
            &row.instruction_refs,
            HarnessClass::LedgerInstructionRefEmpty,
            "instructionRef",
        ),
        (
            &row.verification_refs,
            HarnessClass::LedgerVerificationRefEmpty,
            "verificationRef",
        ),
    ];
    for (refs, class, name) in ref_lists {
        if refs.iter().any(|r| r.trim().is_empty()) {
            findings.push(class, Some(id), format!("{name} entries must be non-empty"));
        }
    }
}

/// What `next` and the session bootstrap project from an accepted ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextFeature {
    pub next_feature_id: Option<String>,
    pub closure_complete: bool,
    pub feature_count: usize,
}

/// The next-feature projection: `None` when no ledger exists at `path`; an
/// error when the ledger cannot be read or its check rejects it.
pub fn project_next(path: &Path) -> Result<Option<NextFeature>, FeatureError> {
    let Some(ledger) = read_if_exists(path)? else {
        return Ok(None);
    };
    let report = check_report(&ledger, false);
    if !report.accepted() {
        return Err(FeatureError::Rejected {
            classes: report.failure_classes,
        });
    }
    Ok(Some(NextFeature {
        next_feature_id: report.next_feature_id,
        closure_complete: report.closure_complete,
        feature_count: report.feature_count,
    }))
}

/// The `next --json` output (the payload of `harness.feature.next`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NextOutput {
    /// `harness-feature.next`.
    pub action: &'static str,
    pub path: String,
    /// Whether a ledger exists; the members after it are `null` when not.
    pub exists: bool,
    pub next_feature_id: Option<String>,
    pub closure_complete: Option<bool>,
    pub feature_count: Option<usize>,
}

/// The `next --json` output.
pub fn next_json(path: &Path, projection: Option<&NextFeature>) -> Value {
    crate::host::payload_json(&NextOutput {
        action: "harness-feature.next",
        path: path.display().to_string(),
        exists: projection.is_some(),
        next_feature_id: projection.and_then(|p| p.next_feature_id.clone()),
        closure_complete: projection.map(|p| p.closure_complete),
        feature_count: projection.map(|p| p.feature_count),
    })
}

/// The `read --json` output.
pub fn read_json(path: &Path, ledger: &Ledger) -> Value {
    serde_json::json!({
        "action": "harness-feature.read",
        "path": path.display().to_string(),
        "ledger": ledger.to_json(),
    })
}

/// One upsert request, as the reference's flags: `None` means the flag was not
/// given; a given blank string clears the field.
#[derive(Clone, Debug, Default)]
pub struct FeatureWrite {
    pub feature_id: String,
    /// One of [`STATUSES`] (the caller parses it).
    pub status: String,
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub session_ref: Option<String>,
    pub instruction_refs: Vec<String>,
    pub verification_refs: Vec<String>,
}

/// The timestamp form of the ledger: UTC, whole seconds, `Z`.
pub fn ledger_timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn clean(value: &str) -> Option<String> {
    let v = value.trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn clean_refs(refs: &[String]) -> Vec<String> {
    refs.iter()
        .filter_map(|r| clean(r))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Upserts one row (creating the ledger when absent) and returns the feature id
/// written and the ledger as written. The reference's rules: the status always
/// replaces; `issueId`/`summary` only when given; ref lists only when the given
/// list normalizes to something; rows sorted by id; both `updatedAt` refreshed.
pub fn write(
    path: &Path,
    req: &FeatureWrite,
    now: DateTime<Utc>,
) -> Result<(String, Ledger), FeatureError> {
    let write_err = |e: io::Error| FeatureError::Write {
        path: path.display().to_string(),
        source: e,
    };
    let Some(feature_id) = clean(&req.feature_id) else {
        // Refused before anything is created; a ledger that cannot be read is
        // still reported first, as the reference does.
        read_if_exists(path)?;
        return Err(FeatureError::InvalidInput(
            "feature-id must be non-empty".into(),
        ));
    };
    let _lock = SidecarLock::acquire(path).map_err(write_err)?;
    let now = ledger_timestamp(now);
    let mut ledger = read_if_exists(path)?.unwrap_or_else(|| Ledger::new(now.clone()));
    if let Some(raw) = &req.session_ref {
        ledger.session_ref = clean(raw);
    }
    let instruction_refs = clean_refs(&req.instruction_refs);
    let verification_refs = clean_refs(&req.verification_refs);
    match ledger
        .features
        .iter_mut()
        .find(|f| f.feature_id == feature_id)
    {
        Some(row) => {
            row.status = req.status.clone();
            if let Some(v) = &req.issue_id {
                row.issue_id = clean(v);
            }
            if let Some(v) = &req.summary {
                row.summary = clean(v);
            }
            if !instruction_refs.is_empty() {
                row.instruction_refs = instruction_refs;
            }
            if !verification_refs.is_empty() {
                row.verification_refs = verification_refs;
            }
            row.updated_at = now.clone();
        }
        None => ledger.features.push(Feature {
            feature_id: feature_id.clone(),
            status: req.status.clone(),
            issue_id: req.issue_id.as_deref().and_then(clean),
            summary: req.summary.as_deref().and_then(clean),
            instruction_refs,
            verification_refs,
            updated_at: now.clone(),
            extra: Map::new(),
        }),
    }
    ledger
        .features
        .sort_by(|a, b| a.feature_id.cmp(&b.feature_id));
    ledger.updated_at = now;
    write_atomic(path, ledger.to_file_text().as_bytes()).map_err(write_err)?;
    Ok((feature_id, ledger))
}

/// The `write --json` output (the payload of `harness.feature.write`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteOutput<'a> {
    /// `harness-feature.write`.
    pub action: &'static str,
    pub path: String,
    pub feature_id: &'a str,
    /// The ledger as written.
    pub ledger: LedgerDoc<'a>,
}

/// The `write --json` output.
pub fn write_json(path: &Path, feature_id: &str, ledger: &Ledger) -> Value {
    crate::host::payload_json(&WriteOutput {
        action: "harness-feature.write",
        path: path.display().to_string(),
        feature_id,
        ledger: ledger.doc(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ledger(rows: Value) -> Ledger {
        let doc =
            json!({"schema": 1, "ledgerKind": LEDGER_KIND, "updatedAt": "t", "features": rows});
        parse(Path::new("l.json"), doc.to_string().as_bytes()).unwrap()
    }

    fn row(id: &str, status: &str) -> Value {
        json!({"featureId": id, "status": status, "updatedAt": "t"})
    }

    #[test]
    fn next_prefers_in_progress_then_smallest_pending() {
        let l = ledger(json!([
            row("c", "pending"),
            row("b", "pending"),
            row("z", "blocked")
        ]));
        let r = check_report(&l, false);
        assert!(r.accepted());
        assert_eq!(r.next_feature_id.as_deref(), Some("b"));
        let l = ledger(json!([row("a", "pending"), row("y", "in_progress")]));
        assert_eq!(
            check_report(&l, false).next_feature_id.as_deref(),
            Some("y")
        );
    }

    #[test]
    fn every_finding_class_in_order() {
        let mut done = row("d", "completed");
        done["instructionRefs"] = json!([" "]);
        let mut bad_ref = row("e", "pending");
        bad_ref["verificationRefs"] = json!([""]);
        let l = ledger(json!([
            row(" ", "pending"),
            row("a", "in_progress"),
            row("a", "in_progress"),
            {"featureId": "b", "status": "done", "updatedAt": " "},
            done,
            bad_ref
        ]));
        let classes: Vec<_> = check_report(&l, true)
            .errors
            .iter()
            .map(|f| f.class)
            .collect();
        assert_eq!(
            classes,
            [
                "harness_feature_ledger.feature_id.empty",
                "harness_feature_ledger.feature_id.duplicate",
                "harness_feature_ledger.feature.updated_at.empty",
                "harness_feature_ledger.status.invalid",
                "harness_feature_ledger.completed_missing_verification_ref",
                "harness_feature_ledger.instruction_ref.empty",
                "harness_feature_ledger.verification_ref.empty",
                "harness_feature_ledger.in_progress.non_contractible",
                "harness_feature_ledger.closure_incomplete",
            ]
        );
        let mut empty = ledger(json!([]));
        empty.updated_at = " ".into();
        let classes: Vec<_> = check_report(&empty, false)
            .errors
            .iter()
            .map(|f| f.class)
            .collect();
        assert_eq!(
            classes,
            [
                "harness_feature_ledger.updated_at.empty",
                "harness_feature_ledger.empty"
            ]
        );
    }

    #[test]
    fn unknown_members_survive_and_follow_the_known_ones() {
        let text = r#"{"x":1,"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","updatedAt":"t","features":[{"note":"n","featureId":"a","status":"pending","updatedAt":"t"}]}"#;
        let l = parse(Path::new("l"), text.as_bytes()).unwrap();
        let out = l.to_json();
        let keys: Vec<_> = out.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["schema", "ledgerKind", "updatedAt", "features", "x"]);
        let row_keys: Vec<_> = out["features"][0]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(row_keys, ["featureId", "status", "updatedAt", "note"]);
    }

    #[test]
    fn legacy_shape_is_named() {
        let text = r#"{"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","features":[{"featureId":"a","title":"t","state":"closed","updatedAt":"t"}]}"#;
        let err = parse(Path::new("l"), text.as_bytes()).unwrap_err();
        assert!(matches!(err, FeatureError::LegacyShape { .. }), "{err}");
        assert_eq!(err.exit_code(), 2);
    }
}
