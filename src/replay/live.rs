//! Live replay (`tusk replay --live DIR`): re-executes recorded runs against a
//! copy of a store snapshot with the real actions, to check that this build
//! still behaves like the one that made the recording.
//!
//! The snapshot directory is laid out like `.premath/` (`issues.jsonl`,
//! `harness_trajectory.jsonl`, `harness_session.json`,
//! `harness_feature_ledger.json`, `mutation_policy.json`; any may be absent).
//! It is copied into a temporary directory that is removed afterwards, so the
//! snapshot itself is never written. Each run gets the authority its header
//! recorded (policy digest, instruction ref, issue id, join verdict) and each
//! action the clock its row recorded (`actedAt`), so timestamps in payloads
//! come out the same. Per call it compares action, argsDigest, resultClass and
//! the digest of the payload (with path-valued members masked: the copy lives
//! elsewhere), then the call count and the final value's digest.
//!
//! Live replay knows the built-in actions only: a run that called an
//! embedder's action diverges at that call.

use super::log::RecordedRun;
use super::{Divergence, RunReport, Selection, SelectionError};
use crate::canonical;
use crate::host::ActionKind;
use crate::runtime::{
    builtin_registry, CallTimes, Clock, Host, HostConfig, Request, RunHooks, RunOptions,
};
use crate::sandbox::{EngineMode, LimitsOverride};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The snapshot files a live replay copies (names as under `.premath/`).
pub const SNAPSHOT_FILES: &[&str] = &[
    "issues.jsonl",
    "harness_trajectory.jsonl",
    "harness_session.json",
    "harness_feature_ledger.json",
    "mutation_policy.json",
];

/// A snapshot that cannot be used: replay exits 2.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("snapshot {0} is not a directory")]
    NotADirectory(String),
    #[error("cannot copy the snapshot: {0}")]
    Copy(std::io::Error),
    #[error("the snapshot's mutation policy is unusable: {0}")]
    Policy(String),
}

/// Runs recorded programs against a private copy of a snapshot.
pub struct LiveReplayer {
    root: tempfile::TempDir,
    /// One host per (read-only profile, serves sessions): see [`super::Replayer`].
    hosts: HashMap<(bool, bool), Host>,
    /// The most any run may use ([`super::Replayer::with_ceiling`]).
    ceiling: crate::sandbox::Limits,
}

impl LiveReplayer {
    /// Copies the snapshot at `dir` into a fresh temporary directory.
    pub fn new(dir: &Path) -> Result<Self, LiveError> {
        if !dir.is_dir() {
            return Err(LiveError::NotADirectory(dir.display().to_string()));
        }
        let root = tempfile::tempdir().map_err(LiveError::Copy)?;
        let premath = root.path().join(".premath");
        std::fs::create_dir_all(&premath).map_err(LiveError::Copy)?;
        // Regular files only, never through a link: a log names the
        // snapshot, and a link in it must not make replay read (and show)
        // another project's store.
        for name in SNAPSHOT_FILES {
            let from = dir.join(name);
            match std::fs::symlink_metadata(&from) {
                Ok(meta) if meta.file_type().is_file() => {
                    let bytes = crate::files::read(&from).map_err(LiveError::Copy)?;
                    std::fs::write(premath.join(name), bytes).map_err(LiveError::Copy)?;
                }
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(LiveError::Copy(crate::files::symlink_refused(&from)))
                }
                _ => {}
            }
        }
        // Fail here, once, rather than on every run.
        HostConfig::under(root.path()).map_err(|e| LiveError::Policy(e.to_string()))?;
        Ok(Self {
            root,
            hosts: HashMap::new(),
            ceiling: crate::sandbox::Limits::default(),
        })
    }

    /// The most any run may use (`tusk eval`'s defaults unless set).
    pub fn with_ceiling(mut self, ceiling: crate::sandbox::Limits) -> Self {
        self.ceiling = ceiling;
        self
    }

    /// Replays the selected runs live, in the order [`super::Replayer`] would.
    pub fn replay(
        &mut self,
        mut runs: Vec<RecordedRun>,
        selection: &Selection,
    ) -> Result<Vec<RunReport>, SelectionError> {
        super::enforce_ceiling(&mut runs, &self.ceiling);
        super::replay_selected(runs, selection, |run, mode| self.replay_run(run, mode))
    }

    /// The host a run is re-executed by, on this replayer's copy.
    pub(crate) fn host_for(&mut self, run: &RecordedRun, session: bool) -> &Host {
        // A recording whose bound ids include no mutation ran read-only.
        let full = builtin_registry();
        let read_only = run.host_actions.as_ref().is_some_and(|ids| {
            !ids.iter().any(|id| {
                full.get(id)
                    .is_some_and(|a| a.kind() == ActionKind::Mutation)
            })
        });
        let root = self.root.path().to_path_buf();
        self.hosts.entry((read_only, session)).or_insert_with(|| {
            let mut config = HostConfig::under(&root).expect("checked in new");
            if read_only {
                config.registry = config.registry.read_only();
            }
            Host::new(config)
        })
    }

    fn replay_run(&mut self, mut run: RecordedRun, mode: EngineMode) -> RunReport {
        let calls = std::mem::take(&mut run.calls);
        let mut report = RunReport {
            live: true,
            ..RunReport::new(&run)
        };
        if let Some(problem) = &run.problem {
            report.divergence = Some(problem.clone().into());
            return report;
        }
        let footer = run.footer.clone().unwrap_or(Value::Null);
        let untimed_stop = super::untimed_stop(&footer);
        let request = match live_request(&run, mode, untimed_stop, &self.ceiling) {
            Ok(request) => request,
            Err(d) => {
                report.divergence = Some(*d);
                return report;
            }
        };
        let hooks = RunHooks {
            join: run.authority.join_evidence.clone(),
            clock: Some(recorded_clock(&calls)),
            ..Default::default()
        };
        let host = self.host_for(&run, mode != EngineMode::Fresh);
        let options = RunOptions {
            mode,
            session_id: run.session_id.as_deref(),
            hooks,
            ..Default::default()
        };
        let result = match host.run(&request, options) {
            Ok(r) => r,
            Err(e) => {
                report.divergence = Some(Divergence {
                    line: None,
                    seq: None,
                    field: "live.request".into(),
                    expected: json!("a request the host can serve"),
                    got: json!(e.to_string()),
                });
                return report;
            }
        };
        let live = result.json["effects"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (i, recorded) in calls.iter().enumerate() {
            let seq = i + 1;
            let Some(envelope) = live.get(i) else {
                if !untimed_stop {
                    report.divergence = Some(count_divergence(seq, calls.len(), live.len()));
                }
                return report;
            };
            if let Some(divergence) = call_divergence(&run, recorded, envelope, seq) {
                report.divergence = Some(divergence);
                return report;
            }
            report.checked_calls = seq;
        }
        if untimed_stop {
            // The recording was cut off; there is no final value to compare.
            return report;
        }
        if live.len() > calls.len() {
            report.divergence = Some(count_divergence(calls.len() + 1, calls.len(), live.len()));
            return report;
        }
        let host = self.host_for(&run, mode != EngineMode::Fresh);
        report.divergence =
            end_divergence(&run, &calls, &host.config().paths, &footer, &result.json);
        report
    }
}

/// The request the run's header recorded, with the authority it recorded.
pub(crate) fn live_request(
    run: &RecordedRun,
    mode: EngineMode,
    untimed_stop: bool,
    ceiling: &crate::sandbox::Limits,
) -> Result<Request, Box<Divergence>> {
    let limits = super::replay_limits(run, untimed_stop, ceiling)?;
    let authority = &run.authority;
    Ok(Request {
        program: run.program.clone(),
        issue_id: authority.issue_id.clone(),
        policy_digest: authority.policy_digest.clone(),
        instruction_ref: authority.instruction_ref.clone(),
        capability_claims: authority.capability_claims.clone(),
        join_evidence: None,
        limits: Some(LimitsOverride::from(limits)),
        invalid_utf8_at: run.invalid_utf8_at,
        // Bind what the header recorded (a narrowed run stays narrowed;
        // a session's engine was built with its host's set).
        actions: run
            .host_actions
            .clone()
            .filter(|_| mode == EngineMode::Fresh),
        principal: None,
        terms: run.terms.clone(),
        // A command's run replays as the operator's (no gate), on the
        // replay's own copy of the store.
        command: run.command.clone(),
        atomic: run.atomic.as_deref() == Some("commit"),
        dry_run: run.atomic.as_deref() == Some("dryRun"),
        // A replay runs the recorded program again, never a retry.
        idempotency_key: None,
    })
}

/// Each action gets the clock its row recorded, so that timestamps in
/// payloads come out the same.
fn recorded_clock(calls: &[super::log::RecordedCall]) -> Clock {
    let times: Vec<CallTimes> = calls
        .iter()
        .map(|c| CallTimes {
            acted_at: c.acted_at,
            finished_at: c.envelope.value()["trajectoryRow"]["finishedAt"]
                .as_str()
                .map(str::to_string),
        })
        .collect();
    Arc::new(move |seq| times.get(seq - 1).cloned().unwrap_or_default())
}

/// The first of action, argsDigest, resultClass and payload digest in which
/// the live call `seq` differs from its recording.
fn call_divergence(
    run: &RecordedRun,
    recorded: &super::log::RecordedCall,
    envelope: &Value,
    seq: usize,
) -> Option<Divergence> {
    // The record holds the redacted payload (host::redact).
    let live_payload = run
        .redaction
        .payload(&recorded.action, &envelope["payload"]);
    let live_payload = live_payload.as_ref().unwrap_or(&envelope["payload"]);
    let fields = [
        ("action", json!(recorded.action), envelope["action"].clone()),
        (
            "argsDigest",
            json!(recorded.args_digest),
            envelope["argsDigest"].clone(),
        ),
        (
            "resultClass",
            recorded.envelope.value()["resultClass"].clone(),
            envelope["resultClass"].clone(),
        ),
        (
            "payloadDigest",
            json!(payload_digest(&recorded.envelope.value()["payload"])),
            json!(payload_digest(live_payload)),
        ),
    ];
    let recorded_payload = &recorded.envelope.value()["payload"];
    // A recovered row knows the call, not its outcome (issue 61).
    let compared = if recorded.recovered { 2 } else { fields.len() };
    let (field, expected, got) = fields.into_iter().take(compared).find(|(field, e, g)| {
        // A payload the log holds scrubbed (host::redact::scrub) matches the
        // live one that still says the hidden value.
        e != g
            && !(*field == "payloadDigest"
                && crate::host::redact::matches_scrubbed(recorded_payload, live_payload))
    })?;
    Some(Divergence {
        line: None,
        seq: Some(seq),
        field: field.into(),
        expected,
        got,
    })
}

/// The final value (then the failure classes) of the live run `result`
/// against the recording's footer.
fn end_divergence(
    run: &RecordedRun,
    calls: &[super::log::RecordedCall],
    paths: &crate::host::HostPaths,
    footer: &Value,
    result: &Value,
) -> Option<Divergence> {
    // The value may hold envelopes, which name the files they wrote: name
    // the recording's files again before comparing.
    let mut renames = recorded_paths(calls, paths);
    if let Some(live_run) = result["runId"].as_str() {
        renames.insert(live_run.to_string(), run.run_id.clone());
    }
    let value = rename_paths(&result["value"], &renames);
    super::value_divergence(footer, &value, run.legacy_json).or_else(|| {
        let expected = footer["failureClasses"].clone();
        let got = result["failureClasses"].clone();
        (expected != got).then(|| Divergence {
            line: None,
            seq: None,
            field: "failureClasses".into(),
            expected,
            got,
        })
    })
}

/// Live path → the recording's path, for the files whose recorded names the
/// envelopes reveal (the trajectory in `trajectoryRow`, the store in
/// `issuesPath`).
fn recorded_paths(
    calls: &[super::log::RecordedCall],
    live: &crate::host::HostPaths,
) -> HashMap<String, String> {
    let mut renames = HashMap::new();
    for call in calls {
        if let Some(p) = call.envelope.value()["trajectoryRow"]["path"].as_str() {
            renames.insert(live.trajectory.path().display().to_string(), p.to_string());
        }
        if let Some(p) = call.envelope.value()["payload"]["issuesPath"].as_str() {
            renames.insert(live.issues.path().display().to_string(), p.to_string());
        }
    }
    renames
}

fn rename_paths(v: &Value, renames: &HashMap<String, String>) -> Value {
    match v {
        // Whole or in part: a step id ends with its run id.
        Value::String(s) => Value::String(
            renames
                .iter()
                .fold(s.clone(), |acc, (from, to)| acc.replace(from, to)),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| rename_paths(i, renames)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), rename_paths(v, renames)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn count_divergence(seq: usize, expected: usize, got: usize) -> Divergence {
    Divergence {
        line: None,
        seq: Some(seq),
        field: "callCount".into(),
        expected: json!(expected),
        got: json!(got),
    }
}

/// `sha256:` of the payload with path-valued members (`path`, `…Path`)
/// masked: a live replay's store copy lives in another directory.
pub fn payload_digest(payload: &Value) -> String {
    fn mask(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let masked = if k == "path" || k.ends_with("Path") {
                            json!("<path>")
                        } else {
                            mask(v)
                        };
                        (k.clone(), masked)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(mask).collect()),
            other => other.clone(),
        }
    }
    canonical::sha256_digest(&mask(payload))
}
