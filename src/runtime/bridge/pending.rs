//! What a call leaves for recovery before its mutation runs (issue 61):
//! the rows a dead process's call gets when its change reached the store
//! and its rows did not ([`crate::issues::journal`]).

use super::{witness_refs, CallHost, State, Step};
use crate::effects::record::{CallRow, Member};
use crate::effects::{self};
use crate::host::envelope::{self, EnvelopeParts};
use crate::issues::journal::{Call, PendingCall};
use crate::issues::IssueStore;
use crate::logs::LogStore;
use chrono::Utc;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

/// What a recovered call's envelope says in place of its payload.
pub const RECOVERED: &str = "recovered: the change was made, but the process that made it ended before its row was written; its payload is not known";

/// The rows' members that mark them recovered.
fn marked() -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("recovered".into(), Value::Bool(true));
    extra
}

/// Where recovery settles a host's calls: the store's journal directory
/// and its logs' absolute paths. Recovery writes only logs beside the store
/// (a journal is input, `issues::journal`); a host whose logs are elsewhere,
/// or on a database, has none and writes as before.
#[derive(Debug)]
pub(crate) struct Recovery {
    pub journals: PathBuf,
    pub effects: PathBuf,
    pub trajectory: PathBuf,
}

impl Recovery {
    pub(crate) fn of(paths: &crate::host::HostPaths) -> Option<Recovery> {
        let (IssueStore::Jsonl(store), LogStore::File(effects), LogStore::File(trajectory)) =
            (&paths.issues, &paths.effects, &paths.trajectory)
        else {
            return None;
        };
        let store = std::path::absolute(store).ok()?;
        let dir = store.parent()?;
        let effects = std::path::absolute(effects).ok()?;
        let trajectory = std::path::absolute(trajectory).ok()?;
        (effects.parent() == Some(dir) && trajectory.parent() == Some(dir)).then(|| Recovery {
            journals: crate::issues::journal::dir_of(&store),
            effects,
            trajectory,
        })
    }
}

/// The facts of a call that recovery records.
#[derive(Clone, Copy)]
pub(super) struct CallFacts<'a> {
    pub n: usize,
    pub action: &'a str,
    pub args_digest: &'a str,
    pub args: Option<&'a Value>,
    pub named: Option<&'a crate::runtime::CallStep>,
    pub scope: Option<&'a crate::runtime::CallScope>,
}

impl CallHost {
    /// `decide` with the call's recovery rows in the journal of the write
    /// that carries its change (a mutation on the file store); the call is
    /// settled once its own rows are written.
    pub(super) fn decide_journaled(
        &self,
        state: &mut State,
        facts: CallFacts<'_>,
        span: Option<&crate::telemetry::record::CallSpan>,
        args: Option<&Value>,
        args_error: Option<crate::sandbox::convert::ConvertError>,
        host: Option<super::HostDecision<'_>>,
    ) -> (super::Decision, Option<Arc<Call>>) {
        let (n, action, scope) = (facts.n, facts.action, facts.scope);
        let pending = self.pending_call(state, facts);
        let decide = |state: &mut State| match host {
            Some(decide) => {
                let _current = span.map(|s| s.enter());
                decide(state)
            }
            None => self.decide_within(state, span, n, action, args, args_error, scope),
        };
        let decision = match &pending {
            Some(call) => crate::issues::journal::during(call, || decide(state)),
            None => decide(state),
        };
        (decision, pending)
    }

    /// The pending call of a mutation on the file store whose logs are
    /// files (a program's, or a command's); none for a read, or on the
    /// database.
    pub(super) fn pending_call(&self, state: &State, call: CallFacts<'_>) -> Option<Arc<Call>> {
        let CallFacts {
            n,
            action,
            args_digest,
            args,
            named,
            scope,
        } = call;
        // An atomic run's calls change only its overlay: its commit is
        // the one write recovery may have to record.
        let staged = self.overlay().is_some() && action != super::staged::COMMIT_ACTION;
        let recovery = self
            .recovery
            .as_ref()
            .filter(|_| self.is_mutation(action) && !staged)?;
        let finished_at = self.stamp(Utc::now());
        let refs = witness_refs(&[], action, args_digest, n, named);
        let (policy_digest, instruction_ref) = self.mutation_authority(action, scope);
        let step = self.step_row(Step {
            n,
            action,
            args_digest,
            result_class: "accepted",
            started_at: None,
            finished_at: finished_at.clone(),
            refs: &refs,
            instruction_ref,
            named,
        });
        let trajectory_row = step.line().ok()?;
        let envelope = envelope::build(EnvelopeParts {
            n,
            action,
            args_digest,
            failure_classes: Vec::new(),
            payload: Value::Null,
            diagnostic: Some(RECOVERED.to_string()),
            witness_refs: refs.clone(),
            policy_digest,
            instruction_ref,
            trajectory_row: json!({
                "path": self.trajectory_path,
                "stepId": step.step_id,
                "resultClass": "accepted",
                "finishedAt": finished_at,
            }),
        });
        let prev = state
            .log
            .as_ref()
            .and_then(|log| log.last_row_digest())
            .unwrap_or_default()
            .to_string();
        let row = CallRow {
            kind: effects::ROW_KIND.to_string(),
            run_id: self.run_id.clone(),
            seq: Member::Typed(n),
            action: Member::Typed(action.to_string()),
            args: args.map(Cow::Borrowed),
            args_digest: Member::Typed(args_digest.to_string()),
            envelope: Cow::Borrowed(&envelope),
            prev_row_digest: Member::Typed(prev),
            // When the row was made ready: the change came just after.
            acted_at: Member::Typed(Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)),
            extra: {
                let mut extra = marked();
                if action == super::staged::COMMIT_ACTION {
                    extra.extend(super::staged::by_host());
                }
                extra
            },
        };
        Some(Call::new(
            PendingCall {
                run_id: self.run_id.clone(),
                seq: n,
                effects: recovery.effects.clone(),
                trajectory: recovery.trajectory.clone(),
                effect_row: serde_json::to_string(&row).ok()?,
                step_id: step.step_id,
                trajectory_row,
                end_kind: effects::RUN_END_KIND.to_string(),
            },
            recovery.journals.clone(),
        ))
    }
}
