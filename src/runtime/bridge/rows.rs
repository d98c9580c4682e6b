//! A call's rows (issue 61's order of writes): its trajectory row and its
//! effect row for what it decided, the reply once they are written (or
//! could not be), and the unit that makes a mutation and its rows one
//! transaction on a database.

use super::{redact, result_class, witness_refs, CallHost, Decision, State};
use crate::effects;
use crate::effects::record::{CallRow, Member};
use crate::harness::trajectory::{StepRow, TrajectorySink};
use crate::host::envelope::{self, EnvelopeParts};
use crate::host::HostClass;
use crate::sandbox::{Breach, EnvelopeJson, HostReply};
use chrono::Utc;
use serde_json::{json, Value};
use std::borrow::Cow;

/// What a call's rows say of it besides its decision.
pub(super) struct RowFacts<'a> {
    pub(super) n: usize,
    pub(super) action: &'a str,
    pub(super) args_digest: &'a str,
    pub(super) recorded_args: Option<&'a Value>,
    pub(super) started_at: Option<String>,
    pub(super) named: Option<&'a crate::runtime::CallStep>,
    pub(super) scope: Option<&'a crate::runtime::CallScope>,
    pub(super) hidden: &'a [(String, String)],
}

/// The diagnostic of a call whose transaction did not commit.
pub(super) fn not_applied_text(action: &str, e: &crate::pg::PgError) -> String {
    format!(
        "{action} was not applied: its change and its rows are one transaction, and the \
         database did not commit it ({e}); nothing changed; run the program again"
    )
}

/// A call's reply once its rows are written (or could not be).
pub(super) struct Written<'a> {
    pub(super) n: usize,
    pub(super) action: &'a str,
    pub(super) args_digest: &'a str,
    pub(super) executed: bool,
    pub(super) envelope: std::sync::Arc<Value>,
    pub(super) text: Option<Box<serde_json::value::RawValue>>,
    pub(super) breach: Option<Breach>,
    /// The call's part of a store write's journal, settled here.
    pub(super) pending: Option<std::sync::Arc<crate::issues::journal::Call>>,
    /// The class and diagnostic of a call whose transaction did not
    /// commit: what it answers even when its refusal's rows cannot be
    /// written either (the database is away: retrying is the remedy).
    pub(super) not_applied: Option<(&'static str, String)>,
}

impl Written<'_> {
    /// The reply, kept among the run's effects. A call whose rows could not
    /// be written is not accepted, whatever it did: the program is told,
    /// and the run is rejected.
    pub(super) fn checked(
        self,
        state: &mut State,
        failed_before: usize,
        logs_on_db: bool,
    ) -> HostReply {
        if let Some(call) = &self.pending {
            call.settle(state.io_errors.len() == failed_before);
        }
        let (envelope, text) = match state.io_errors.get(failed_before..) {
            Some(errors) if !errors.is_empty() => {
                let unrecorded = match self.not_applied {
                    Some((class, diagnostic)) => refused_unrecorded(
                        self.n,
                        self.action,
                        self.args_digest,
                        class,
                        format!(
                            "{diagnostic}; its refusal's rows could not be written either ({})",
                            errors.join("; ")
                        ),
                    ),
                    None => unrecorded(
                        self.n,
                        self.action,
                        self.args_digest,
                        self.executed,
                        errors,
                        logs_on_db,
                    ),
                };
                (std::sync::Arc::new(unrecorded), None)
            }
            _ => (self.envelope, self.text),
        };
        state.effects.push(envelope.clone());
        HostReply {
            envelope,
            text,
            breach: self.breach,
        }
    }
}

/// The envelope of a call whose rows could not be written.
pub(super) fn unrecorded(
    n: usize,
    action: &str,
    args_digest: &str,
    executed: bool,
    errors: &[String],
    logs_on_db: bool,
) -> Value {
    let what = if executed {
        "ran, but its effect or trajectory row"
    } else {
        "did not run, and its refusal's row"
    };
    // Logs in a database fail when the database is away: a retry is the
    // remedy, as for any call it could not serve.
    let (class, remedy) = if logs_on_db {
        (
            crate::pg::StoreClass::Unavailable.as_str(),
            "retry once the database is back",
        )
    } else {
        (
            HostClass::RecordUnwritable.as_str(),
            "free space for the logs",
        )
    };
    envelope::build(EnvelopeParts {
        n,
        action,
        args_digest,
        failure_classes: vec![class.to_string()],
        payload: json!({}),
        diagnostic: Some(format!(
            "{action} {what} could not be written ({}); the call is not accepted and the run \
             is rejected; {remedy}",
            errors.join("; ")
        )),
        witness_refs: Vec::new(),
        policy_digest: None,
        instruction_ref: None,
        trajectory_row: Value::Null,
    })
}

/// The envelope of a call refused with `class` whose rows could not be written.
pub(super) fn refused_unrecorded(
    n: usize,
    action: &str,
    args_digest: &str,
    class: &str,
    diagnostic: String,
) -> Value {
    envelope::build(EnvelopeParts {
        n,
        action,
        args_digest,
        failure_classes: vec![class.to_string()],
        payload: json!({}),
        diagnostic: Some(diagnostic),
        witness_refs: Vec::new(),
        policy_digest: None,
        instruction_ref: None,
        trajectory_row: Value::Null,
    })
}

/// What one call's trajectory row is made of.
pub(super) struct Step<'a> {
    pub(super) n: usize,
    pub(super) action: &'a str,
    pub(super) args_digest: &'a str,
    pub(super) result_class: &'a str,
    pub(super) started_at: Option<String>,
    pub(super) finished_at: String,
    pub(super) refs: &'a [String],
    pub(super) instruction_ref: Option<&'a str>,
    pub(super) named: Option<&'a crate::runtime::CallStep>,
}

/// What one call's effect row is made of.
pub(super) struct Effect<'a> {
    pub(super) n: usize,
    pub(super) action: &'a str,
    pub(super) args: Option<&'a Value>,
    pub(super) args_digest: &'a str,
    pub(super) envelope: &'a Value,
    pub(super) acted_at: Option<chrono::DateTime<Utc>>,
    /// Values the redaction rules hid from the arguments ([`redact::hidden`]).
    pub(super) hidden: &'a [(String, String)],
}

impl CallHost {
    /// Writes the call's trajectory row and effect row for `decision`:
    /// the envelope, and its text when the log holds it unredacted.
    pub(super) fn record(
        &self,
        state: &mut State,
        facts: &RowFacts<'_>,
        decision: Decision,
    ) -> (
        std::sync::Arc<Value>,
        Option<Box<serde_json::value::RawValue>>,
    ) {
        let RowFacts {
            n,
            action,
            args_digest,
            ..
        } = *facts;
        let result_class = result_class(&decision.classes);
        let refs = witness_refs(&decision.refs, action, args_digest, n, facts.named);
        let (policy_digest, instruction_ref) = self.mutation_authority(action, facts.scope);
        let finished_at = self.finished_at(n);
        let trajectory_row = self.write_step(
            state,
            Step {
                n,
                action,
                args_digest,
                result_class: &result_class,
                started_at: facts.started_at.clone(),
                finished_at,
                refs: &refs,
                instruction_ref,
                named: facts.named,
            },
        );
        crate::fault::point("rows.after_trajectory");
        let envelope = std::sync::Arc::new(envelope::build(EnvelopeParts {
            n,
            action,
            args_digest,
            failure_classes: decision.classes,
            payload: decision.payload,
            diagnostic: decision.diagnostic,
            witness_refs: refs,
            policy_digest,
            instruction_ref,
            trajectory_row,
        }));
        let text = self.write_effect(
            state,
            Effect {
                n,
                action,
                args: facts.recorded_args,
                args_digest,
                envelope: &envelope,
                acted_at: decision.acted_at,
                hidden: facts.hidden,
            },
        );
        (envelope, text)
    }

    /// Whether the run's logs are in a database (their failures are the
    /// database's, not the disk's).
    pub(super) fn logs_on_db(&self) -> bool {
        matches!(self.paths.effects, crate::logs::LogStore::Postgres { .. })
    }

    /// A unit for a mutation whose store and logs are one database.
    pub(super) fn unit_for(&self, action: &str) -> Option<crate::pg::Unit> {
        use crate::logs::LogStore;
        let mutation = self.is_mutation(action);
        // An atomic run's calls stage; its commit is the unit.
        let issues = match &self.paths.issues {
            crate::issues::IssueStore::Staged(overlay)
                if action == super::staged::COMMIT_ACTION =>
            {
                overlay.base()
            }
            other => other,
        };
        let (
            crate::issues::IssueStore::Postgres(pg),
            LogStore::Postgres { pg: effects, .. },
            LogStore::Postgres { pg: trajectory, .. },
        ) = (issues, &self.paths.effects, &self.paths.trajectory)
        else {
            return None;
        };
        let one = effects.shown() == pg.shown() && trajectory.shown() == pg.shown();
        (mutation && one)
            .then(|| crate::pg::Unit::begin(pg))
            .flatten()
    }

    /// Appends the call's trajectory row; what the envelope says of it
    /// (null when it could not be written, the error kept for the result).
    pub(super) fn write_step(&self, state: &mut State, step: Step) -> Value {
        let (result_class, finished_at) = (step.result_class, step.finished_at.clone());
        let row = self.step_row(step);
        let step_id = row.step_id.clone();
        match self.append_trajectory(state, &row) {
            Ok(()) => json!({
                "path": self.trajectory_path,
                "stepId": step_id,
                "resultClass": result_class,
                "finishedAt": finished_at,
            }),
            Err(e) => {
                state.io_errors.push(e);
                Value::Null
            }
        }
    }

    /// The call's trajectory row.
    pub(super) fn step_row(&self, step: Step) -> StepRow {
        let Step {
            n,
            action,
            args_digest,
            result_class,
            started_at,
            finished_at,
            refs,
            instruction_ref,
            named,
        } = step;
        // The spec's shape, then the run: unique across runs (premath's own
        // step ids under `tusk scheme-eval`).
        let step_id = match named {
            Some(named) => named.step_id.clone(),
            None => format!(
                "scheme_eval.{n}.call-{n}.{action}.{args_digest}.{}",
                self.run_id
            ),
        };
        let principal_refs = self.principal.iter().map(|p| format!("principal://{p}"));
        StepRow {
            step_id,
            action: format!("scheme_eval.{action}"),
            result_class: result_class.to_string(),
            finished_at,
            issue_id: self
                .issue_for(named.and_then(|n| n.scope.as_ref()))
                .map(str::to_string),
            instruction_refs: match named {
                Some(named) => named.instruction_refs.clone(),
                None => instruction_ref
                    .map(|r| vec![r.to_string()])
                    .unwrap_or_default(),
            },
            witness_refs: refs.to_vec(),
            lineage_refs: match named {
                Some(named) => named
                    .lineage_refs
                    .iter()
                    .cloned()
                    .chain(principal_refs)
                    .collect(),
                None => principal_refs.collect(),
            },
            started_at: named.and(started_at),
        }
    }

    /// Appends the call's effect row, chained to the one before; the log
    /// gets the envelope with its payload redacted. Returns the envelope's
    /// JSON text when the row holds it unredacted: the program is sent the
    /// same text rather than a second serialization.
    pub(super) fn write_effect(
        &self,
        state: &mut State,
        effect: Effect,
    ) -> Option<Box<serde_json::value::RawValue>> {
        let prev_row_digest = state
            .log
            .as_ref()
            .and_then(|log| log.last_row_digest())
            .unwrap_or_default()
            .to_string();
        let envelope = effect.envelope;
        // The program gets the payload; the log, its redacted form, with
        // every value the argument rules hid scrubbed from it too.
        let mut redacted_envelope = self
            .policy
            .redaction
            .payload(effect.action, &envelope["payload"])
            .map(|payload| {
                let mut e = envelope.clone();
                e["payload"] = payload;
                e
            });
        if !effect.hidden.is_empty() {
            let mut e = redacted_envelope.take().unwrap_or_else(|| envelope.clone());
            redact::scrub(&mut e["payload"], effect.hidden);
            redacted_envelope = Some(e);
        }
        let text = match redacted_envelope {
            None => serde_json::value::to_raw_value(envelope).ok(),
            Some(_) => None,
        };
        let row = CallRow {
            kind: effects::ROW_KIND.to_string(),
            run_id: self.run_id.clone(),
            seq: Member::Typed(effect.n),
            action: Member::Typed(effect.action.to_string()),
            args: effect.args.map(Cow::Borrowed),
            args_digest: Member::Typed(effect.args_digest.to_string()),
            envelope: match &text {
                Some(text) => EnvelopeJson::Text(text),
                None => EnvelopeJson::Value(redacted_envelope.as_ref().unwrap_or(envelope)),
            },
            prev_row_digest: Member::Typed(prev_row_digest),
            acted_at: effect
                .acted_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true))
                .into(),
            extra: if effect.action == super::staged::COMMIT_ACTION && self.host_made() {
                super::staged::by_host()
            } else {
                Default::default()
            },
        };
        if let Some(log) = state.log.as_mut() {
            if let Err(e) = log.append(&row) {
                state.io_errors.push(e.to_string());
            }
        }
        text
    }

    pub(super) fn append_trajectory(&self, state: &mut State, row: &StepRow) -> Result<(), String> {
        if state.trajectory.is_none() {
            state.trajectory =
                Some(TrajectorySink::open(&self.paths.trajectory).map_err(|e| e.to_string())?);
        }
        let writer = state.trajectory.as_mut().expect("opened above");
        writer.record(row).map_err(|e| e.to_string())
    }
}
