//! The host side of one run: answers the program's host calls through the
//! registry and the mutation gate, and records each call as an effect row and
//! a trajectory row.

use crate::canonical;
use crate::effects::EffectLog;
use crate::harness::trajectory::TrajectorySink;
use crate::host::envelope::{self, EnvelopeParts};
use crate::host::gate::{self, Authority, MutationPolicy};
use crate::host::redact;
use crate::host::registry::{self, Registry, Resolution};
use crate::host::{ActionContext, ActionKind, HostClass, HostPaths};
use crate::sandbox::convert::ConvertError;
use crate::sandbox::{Breach, HostBridge, HostReply};
use chrono::Utc;
use serde_json::{json, Value};
use std::sync::Mutex;

pub(crate) mod pending;
mod rows;
pub(crate) mod staged;

use rows::{not_applied_text, RowFacts, Step, Written};

pub(crate) struct CallHost {
    registry: Registry,
    policy: MutationPolicy,
    authority: Authority,
    paths: HostPaths,
    /// The trajectory's path as each call's envelope names it.
    trajectory_path: String,
    max_calls: u32,
    run_id: String,
    issue_id: Option<String>,
    principal: Option<String>,
    clock: Option<super::Clock>,
    on_call: Option<super::OnCall>,
    /// The run's span (telemetry): each call's span is its child.
    trace: Option<opentelemetry::Context>,
    steps: Option<super::StepNames>,
    act_as: Option<crate::host::actor::ActAs>,
    /// An operator's command: its mutation passes without the gate.
    operator: bool,
    /// The call the command already made, taken by the run's first call.
    preset: Mutex<Option<super::Preset>>,
    /// Where a mutation's recovery rows go ([`pending`]); none when its
    /// store or logs are not files side by side.
    recovery: Option<std::sync::Arc<pending::Recovery>>,
    /// The program's digest (a plan names it).
    program_digest: String,
    state: Mutex<State>,
}

/// What one run's host side is given besides the host's configuration.
pub(crate) struct RunSetup {
    /// The actions this run may call (the host's, or a narrowing of them).
    pub registry: Registry,
    pub authority: Authority,
    pub max_calls: u32,
    pub run_id: String,
    pub issue_id: Option<String>,
    pub principal: Option<String>,
    pub clock: Option<super::Clock>,
    pub on_call: Option<super::OnCall>,
    pub trace: Option<opentelemetry::Context>,
    pub steps: Option<super::StepNames>,
    /// Calls answered before this host side saw one ([`super::RunHooks::calls_before`]).
    pub calls_before: usize,
    /// [`super::RunHooks::act_as`].
    pub act_as: Option<crate::host::actor::ActAs>,
    /// The run records an operator's command ([`super::Request::command`]).
    pub operator: bool,
    /// [`super::RunHooks::preset`].
    pub preset: Option<super::Preset>,
    /// The host's [`pending::Recovery`].
    pub recovery: Option<std::sync::Arc<pending::Recovery>>,
    /// An atomic run: its issue-store changes are staged ([`staged`]), and
    /// may grow the store by this many bytes.
    pub staged: Option<u64>,
    /// The program's digest (a plan names it).
    pub program_digest: String,
}

struct State {
    calls: usize,
    executed: usize,
    /// Shared with the replies sent to the worker, which are dropped once
    /// sent: the result takes them back without a copy.
    effects: Vec<std::sync::Arc<Value>>,
    log: Option<EffectLog>,
    trajectory: Option<TrajectorySink>,
    io_errors: Vec<String>,
    finished: bool,
}

/// What a finished run leaves behind.
pub(crate) struct Ended {
    pub calls: usize,
    pub executed: usize,
    pub effects: Vec<Value>,
    pub io_errors: Vec<String>,
    pub log: EffectLog,
    /// The trajectory the calls' rows went to, still open (none if no call
    /// opened it): the run's step row goes there too.
    pub trajectory: Option<TrajectorySink>,
    /// The class of a run whose rows could not all be written.
    pub unwritable_class: &'static str,
}

/// What one call decided, before it is written down.
struct Decision {
    classes: Vec<String>,
    payload: Value,
    diagnostic: Option<String>,
    refs: Vec<String>,
    executed: bool,
    breach: Option<Breach>,
    /// The clock the action was given (none when it did not run).
    acted_at: Option<chrono::DateTime<Utc>>,
}

impl Decision {
    /// What an action that ran (at `acted_at`) decided.
    fn made(
        action: &str,
        outcome: Result<crate::host::ActionOutcome, crate::host::ActionError>,
        mut refs: Vec<String>,
        acted_at: chrono::DateTime<Utc>,
    ) -> Decision {
        match outcome {
            Ok(outcome) => {
                refs.extend(outcome.witness_refs);
                Decision {
                    classes: outcome.failure_classes,
                    payload: outcome.payload,
                    diagnostic: None,
                    refs,
                    executed: true,
                    breach: None,
                    acted_at: Some(acted_at),
                }
            }
            Err(e) => Decision {
                classes: vec![registry::CLASS_EXECUTION_ERROR.to_string()],
                payload: json!({"cause": e.class}),
                diagnostic: Some(format!("{action} failed: {}: {}", e.class, e.message)),
                refs,
                executed: true,
                breach: None,
                acted_at: Some(acted_at),
            },
        }
    }

    fn refuse(class: &str, diagnostic: String) -> Self {
        Decision {
            classes: vec![class.to_string()],
            payload: Value::Null,
            diagnostic: Some(diagnostic),
            refs: Vec::new(),
            executed: false,
            breach: None,
            acted_at: None,
        }
    }
}

impl CallHost {
    /// The host side of one run: `config`'s policy and paths, the run's
    /// actions, authority, issue, principal and call budget, and its log.
    pub fn new(config: &super::HostConfig, setup: RunSetup, log: EffectLog) -> Self {
        Self {
            registry: setup.registry,
            policy: config.policy.clone(),
            authority: setup.authority,
            paths: match setup.staged {
                Some(growth) => crate::host::HostPaths {
                    issues: crate::issues::IssueStore::Staged(
                        crate::issues::overlay::Overlay::new(config.paths.issues.clone(), growth),
                    ),
                    ..config.paths.clone()
                },
                None => config.paths.clone(),
            },
            trajectory_path: config.paths.trajectory.path().display().to_string(),
            max_calls: setup.max_calls,
            run_id: setup.run_id,
            issue_id: setup.issue_id,
            principal: setup.principal,
            clock: setup.clock,
            on_call: setup.on_call,
            trace: setup.trace,
            steps: setup.steps,
            act_as: setup.act_as,
            operator: setup.operator,
            preset: Mutex::new(setup.preset),
            recovery: setup.recovery,
            program_digest: setup.program_digest,
            state: Mutex::new(State {
                calls: setup.calls_before,
                executed: 0,
                effects: Vec::new(),
                log: Some(log),
                trajectory: None,
                io_errors: Vec::new(),
                finished: false,
            }),
        }
    }

    /// Closes the run: later calls (from an abandoned worker) are refused
    /// without touching any file.
    pub fn finish(&self) -> Ended {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.finished = true;
        Ended {
            calls: state.calls,
            executed: state.executed,
            effects: std::mem::take(&mut state.effects)
                .into_iter()
                .map(std::sync::Arc::unwrap_or_clone)
                .collect(),
            io_errors: std::mem::take(&mut state.io_errors),
            log: state.log.take().expect("finish is called once"),
            trajectory: state.trajectory.take(),
            unwritable_class: super::unwritable_class(&self.paths),
        }
    }

    /// The authority a call is judged under: the run's, or its own scope's.
    fn authority_for(&self, scope: Option<&super::CallScope>) -> std::borrow::Cow<'_, Authority> {
        match scope {
            None => std::borrow::Cow::Borrowed(&self.authority),
            Some(scope) => std::borrow::Cow::Owned(Authority {
                policy_digest: scope.policy_digest.clone(),
                instruction_ref: scope.instruction_ref.clone(),
                join: self.authority.join.clone(),
                capability_claims: Some(scope.capability_claims.clone()),
            }),
        }
    }

    /// What an action called at `now` is given: `paths`, the call's issue,
    /// the run, its principal and the policy's rules.
    fn action_context<'p>(
        &'p self,
        paths: &'p HostPaths,
        now: chrono::DateTime<Utc>,
        scope: Option<&'p super::CallScope>,
    ) -> ActionContext<'p> {
        ActionContext {
            paths,
            now,
            issue_id: self.issue_for(scope),
            run_id: Some(&self.run_id),
            principal: self.principal.as_deref(),
            approval: Some(&self.policy.approval),
            allowed: Some(&self.policy.allowed_actions),
        }
    }

    /// The issue a call acts for: the run's, or its own scope's.
    fn issue_for<'a>(&'a self, scope: Option<&'a super::CallScope>) -> Option<&'a str> {
        match scope {
            None => self.issue_id.as_deref(),
            Some(scope) => scope.issue_id.as_deref(),
        }
    }

    fn decide(
        &self,
        n: usize,
        action: &str,
        args: Option<&Value>,
        args_error: Option<ConvertError>,
        scope: Option<&super::CallScope>,
        reserve: &mut dyn FnMut(u64) -> Result<(), String>,
    ) -> Decision {
        if n > self.max_calls as usize {
            let mut d = Decision::refuse(
                crate::sandbox::CLASS_CALL_BUDGET,
                format!(
                    "host call {n} is over the run's budget of {} calls; the run ends here",
                    self.max_calls
                ),
            );
            d.breach = Some(Breach::CallBudget);
            return d;
        }
        let action_impl = match self.registry.resolve(action) {
            Resolution::Denied(reason) => return Decision::refuse(crate::sandbox::CLASS_EFFECT_DENIED, reason),
            Resolution::Unallowlisted => {
                return Decision::refuse(
                    registry::CLASS_UNALLOWLISTED,
                    format!("no host action `{action}` is registered; (host-actions) lists the available ones"),
                )
            }
            Resolution::Action(a) => a,
        };
        if let Some(e) = args_error {
            return Decision::refuse(registry::CLASS_ARGS_INVALID, e.to_string());
        }
        let args = without_own_store(args, &self.paths.issues);
        let args = match registry::validate_args(&action_impl.spec().args, args.as_deref()) {
            Ok(args) => args,
            Err(diagnostic) => return Decision::refuse(registry::CLASS_ARGS_INVALID, diagnostic),
        };
        let mutation = action_impl.kind() == ActionKind::Mutation;
        if let Some(refused) = self.staged_refusal(action, mutation, &args) {
            return refused;
        }
        let refs = match self.admit(action, &action_impl, &args, scope, reserve) {
            Ok(refs) => refs,
            Err(refused) => return *refused,
        };
        // The policy's approval rules (issue 59): this principal's call of
        // this action goes through an approved plan.
        let gated = mutation
            && self
                .policy
                .approval
                .requires(self.principal.as_deref(), action);
        // A command's call was made already: its outcome is recorded as
        // the action's would be.
        let preset = self
            .preset
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .filter(|p| p.action == action)
            .and_then(|p| p.make.lock().unwrap_or_else(|e| e.into_inner()).take());
        let now = self
            .clock
            .as_ref()
            .and_then(|clock| clock(n).acted_at)
            .unwrap_or_else(Utc::now);
        if gated {
            match self.overlay() {
                // Staged: the run's commit waits for the approval.
                Some(overlay) => overlay.note_action(action, true),
                // The command's own change is never made.
                None => {
                    return self.approval_required(action, &action_impl, args, scope, refs, now)
                }
            }
        }
        if let Some(make) = preset {
            let (outcome, acted_at) = make();
            return Decision::made(action, outcome, refs, acted_at);
        }
        let ctx = self.action_context(&self.paths, now, scope);
        Decision::made(action, action_impl.call(&ctx, args), refs, now)
    }

    /// Who acts, the mutation gate and room for the rows: the refusal, or
    /// the join's witness refs.
    fn admit(
        &self,
        action: &str,
        action_impl: &std::sync::Arc<dyn crate::host::HostAction>,
        args: &Value,
        scope: Option<&super::CallScope>,
        reserve: &mut dyn FnMut(u64) -> Result<(), String>,
    ) -> Result<Vec<String>, Box<Decision>> {
        let refuse = |class: &str, why: String| Err(Box::new(Decision::refuse(class, why)));
        if let Some(why) = self
            .act_as
            .as_ref()
            .and_then(|a| a.refusal(action, &action_impl.spec().args, args))
        {
            return refuse(HostClass::ActAsDenied.as_str(), why);
        }
        let mut refs = Vec::new();
        // An operator's command is not a program's: no gate (the command
        // never needed evidence), but room for its rows all the same.
        if action_impl.kind() == ActionKind::Mutation {
            if !self.operator {
                match gate::admit(
                    &self.policy,
                    &self.authority_for(scope),
                    action_impl.governed_as(),
                ) {
                    Ok(join_refs) => refs.extend(join_refs),
                    Err(rejection) => return refuse(rejection.class, rejection.diagnostic),
                }
            }
            // Rows before envelopes, and no mutation without its rows: the
            // logs must have room for this call's rows before it changes
            // anything (a full disk, a file-size limit).
            let args_bytes = args.to_string().len() as u64;
            if let Err(e) = reserve(ROW_RESERVE + 2 * args_bytes) {
                return refuse(
                    HostClass::RecordUnwritable.as_str(),
                    format!(
                        "{action} was not made: its effect and trajectory rows could not be \
                         written ({e}); free space for the logs, or raise the file-size limit"
                    ),
                );
            }
        }
        Ok(refs)
    }

    /// A call's arguments as the logs record them: under their canonical
    /// names (tusk's own runs), redacted; what the redaction hid; their
    /// digest. The first member is what the action is given.
    fn recorded_args(&self, action: &str, args: Option<Value>) -> Recorded {
        // Every key under its property's name (what the action receives
        // and the logs record), then redacted before the digest is taken
        // (host::redact): the envelope, the row and the trajectory name the
        // same, recorded, arguments. premath's named steps digest the
        // arguments as written (its twin's bytes).
        let schema = super::action_schema(&self.registry, action);
        let args = match schema.filter(|_| self.steps.is_none()) {
            Some(schema) => crate::host::registry::canonical_args(schema, args),
            None => args,
        };
        let redacted_args = self.policy.redaction.args(action, args.as_ref(), schema);
        // What the rules hid, so that an envelope repeating it is scrubbed.
        let hidden = match (&args, &redacted_args) {
            (Some(original), Some(Some(redacted))) => redact::hidden(original, redacted),
            _ => Vec::new(),
        };
        let digest = canonical::args_digest(match &redacted_args {
            Some(redacted) => redacted.as_ref(),
            None => args.as_ref(),
        });
        Recorded {
            args,
            redacted: redacted_args,
            hidden,
            digest,
        }
    }
}

/// A call's arguments as [`CallHost::recorded_args`] gives them.
struct Recorded {
    /// What the action is given (under canonical names).
    args: Option<Value>,
    /// What the logs record, when a redaction rule applied.
    redacted: Option<Option<Value>>,
    /// `(path, value)` of each value the redaction hid.
    hidden: Vec<(String, String)>,
    /// The digest of what the logs record.
    digest: String,
}

impl CallHost {
    /// [`CallHost::decide`] inside the call's span (the store's mutation
    /// spans nest under it), reserving log room under the run's lock.
    #[allow(clippy::too_many_arguments)]
    fn decide_within(
        &self,
        state: &mut State,
        span: Option<&crate::telemetry::record::CallSpan>,
        n: usize,
        action: &str,
        args: Option<&Value>,
        args_error: Option<ConvertError>,
        scope: Option<&super::CallScope>,
    ) -> Decision {
        let _current = span.map(|s| s.enter());
        let mut reserve = |more: u64| self.reserve(state, more);
        self.decide(n, action, args, args_error, scope, &mut reserve)
    }
}

impl HostBridge for CallHost {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        args_error: Option<ConvertError>,
    ) -> HostReply {
        self.call_made(action, args, args_error, None)
    }
}

thread_local! {
    /// Set while [`CallHost::host_call`] records the host's own call.
    static HOST_MADE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How the host decides a call it makes itself ([`CallHost::host_call`]).
type HostDecision<'a> = &'a dyn Fn(&mut State) -> Decision;

impl CallHost {
    /// A call the host makes itself (an atomic run's `run.commit`): recorded
    /// as a program's call is, decided by `decide` instead of an action.
    fn host_call(&self, action: &str, decide: HostDecision<'_>) {
        HOST_MADE.with(|h| h.set(true));
        let _ = self.call_made(action, None, None, Some(decide));
        HOST_MADE.with(|h| h.set(false));
    }

    /// Whether the call being recorded on this thread is the host's own.
    fn host_made(&self) -> bool {
        HOST_MADE.with(std::cell::Cell::get)
    }

    /// Whether `action` changes anything: a mutation of the registry, or
    /// the host's own commit.
    fn is_mutation(&self, action: &str) -> bool {
        action == staged::COMMIT_ACTION
            || self
                .registry
                .get(action)
                .is_some_and(|a| a.kind() == ActionKind::Mutation)
    }

    /// One call: decided (by its action, or by the host for its own),
    /// recorded, and answered.
    fn call_made(
        &self,
        action: &str,
        args: Option<Value>,
        args_error: Option<ConvertError>,
        host: Option<HostDecision<'_>>,
    ) -> HostReply {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let rec = self.recorded_args(action, args);
        let (args, args_digest) = (&rec.args, &rec.digest);
        let recorded_args = match &rec.redacted {
            Some(redacted) => redacted.as_ref(),
            None => args.as_ref(),
        };
        if state.finished {
            // The run already has its result; an abandoned worker's late call changes nothing.
            return late_reply(state.calls + 1, action, args_digest);
        }
        state.calls += 1;
        let n = state.calls;
        // Only premath's named steps record when a call started.
        let started_at = self.steps.as_ref().map(|_| self.stamp(Utc::now()));
        let named = self.steps.as_ref().map(|f| f(n, action, args_digest));
        let scope = named.as_ref().and_then(|s| s.scope.as_ref());
        let span = crate::telemetry::record::call_started(
            self.trace.as_ref(),
            action,
            self.call_kind(action),
            n,
            args_digest,
        );
        let facts = pending::CallFacts {
            n,
            action,
            args_digest,
            args: recorded_args,
            named: named.as_ref(),
            scope,
        };
        // On a database holding the store and both logs, the change and
        // its rows commit as one transaction (issue 61).
        let unit = self.unit_for(action);
        let chain_before = state
            .log
            .as_ref()
            .and_then(|log| log.last_row_digest())
            .map(str::to_string);
        let (mut decision, pending) = self.decide_journaled(
            &mut state,
            facts,
            span.as_ref(),
            args.as_ref(),
            args_error,
            host,
        );
        let failed_before = state.io_errors.len();
        let breach = decision.breach.take();
        let facts = RowFacts {
            n,
            action,
            args_digest,
            recorded_args,
            started_at,
            named: named.as_ref(),
            scope,
            hidden: &rec.hidden,
        };
        let (mut executed, mut class) = (decision.executed, result_class(&decision.classes));
        let (mut envelope, mut text) = self.record(&mut state, &facts, decision);
        let mut not_applied = None;
        if let Some(Err(e)) = unit.map(crate::pg::Unit::commit) {
            // Nothing of the call was kept, its rows neither: the run's
            // chain goes on from the row before, and the call is recorded
            // (outside the transaction) as not applied.
            state.io_errors.truncate(failed_before);
            if let Some(log) = state.log.as_mut() {
                log.rewind(chain_before);
            }
            let diagnostic = not_applied_text(action, &e);
            let refused = Decision::refuse(e.class(), diagnostic.clone());
            (executed, class) = (false, result_class(&refused.classes));
            (envelope, text) = self.record(&mut state, &facts, refused);
            not_applied = Some((e.class(), diagnostic));
        }
        state.executed += usize::from(executed);
        let reply = Written {
            n,
            action,
            args_digest,
            executed,
            envelope,
            text,
            breach,
            pending,
            not_applied,
        }
        .checked(&mut state, failed_before, self.logs_on_db());
        self.announce(span, n, action, class);
        reply
    }
}

/// Room asked of each log before a mutation, beyond twice its arguments
/// (the row holds them twice: as given and in the envelope's digest input).
const ROW_RESERVE: u64 = 64 * 1024;

/// The reply to a call that arrives after its run ended: nothing is done
/// or recorded.
fn late_reply(n: usize, action: &str, args_digest: &str) -> HostReply {
    let envelope = envelope::build(EnvelopeParts {
        n,
        action,
        args_digest,
        failure_classes: vec![crate::sandbox::CLASS_TIMEOUT.to_string()],
        payload: Value::Null,
        diagnostic: Some("the run has already ended".into()),
        witness_refs: Vec::new(),
        policy_digest: None,
        instruction_ref: None,
        trajectory_row: Value::Null,
    });
    HostReply {
        envelope: envelope.into(),
        text: None,
        breach: Some(Breach::Timeout),
    }
}

/// A call's result class: the first of its failure classes, in order.
fn result_class(classes: &[String]) -> String {
    let mut classes = classes.to_vec();
    classes.sort();
    classes.dedup();
    classes
        .first()
        .cloned()
        .unwrap_or_else(|| "accepted".to_string())
}

/// `args` without an `issues_path` (`issuesPath`) that names `store`, the
/// store the run already uses: premath's programs name it in every call. Any
/// other path stays, for the registry to refuse (a program never chooses a
/// file). The call's digest and rows keep the argument as the program gave it.
fn without_own_store<'a>(
    args: Option<&'a Value>,
    store: &crate::issues::IssueStore,
) -> Option<std::borrow::Cow<'a, Value>> {
    let own = |key: &str, value: &Value| {
        matches!(key, "issues_path" | "issuesPath")
            && matches!(store, crate::issues::IssueStore::Jsonl(path)
            if value.as_str().is_some_and(|named| {
                crate::files::same_file(std::path::Path::new(named), path)
            }))
    };
    match args {
        Some(Value::Object(map)) if map.iter().any(|(k, v)| own(k, v)) => {
            let kept = map
                .iter()
                .filter(|(k, v)| !own(k, v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Some(std::borrow::Cow::Owned(Value::Object(kept)))
        }
        other => other.map(std::borrow::Cow::Borrowed),
    }
}

/// A call's witness refs: the action's own, the call's host effect, and
/// under named steps theirs too (sorted, without repeats).
fn witness_refs(
    decided: &[String],
    action: &str,
    args_digest: &str,
    n: usize,
    named: Option<&super::CallStep>,
) -> Vec<String> {
    let mut refs = decided.to_vec();
    refs.push(envelope::host_effect_ref(action, args_digest, n));
    if let Some(named) = named {
        refs.extend(named.witness_refs.iter().cloned());
        refs.sort();
        refs.dedup();
    }
    refs
}

impl CallHost {
    /// A step row's time: premath's rows carry whole seconds; tusk's own,
    /// milliseconds.
    fn stamp(&self, t: chrono::DateTime<Utc>) -> String {
        match self.steps {
            Some(_) => t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            None => crate::runtime::rfc3339(t),
        }
    }

    /// When call `n` finished: the run's clock's, else now.
    fn finished_at(&self, n: usize) -> String {
        self.clock
            .as_ref()
            .and_then(|clock| clock(n).finished_at)
            .unwrap_or_else(|| self.stamp(Utc::now()))
    }

    /// What the call's span calls its action.
    fn call_kind(&self, action: &str) -> &'static str {
        match self.registry.get(action).map(|a| a.kind()) {
            Some(ActionKind::Mutation) => "mutation",
            Some(_) => "read",
            None => "unbound",
        }
    }

    /// The run's policy digest and instruction for a mutation (a withheld
    /// action counts as one); none for a read.
    fn mutation_authority<'a>(
        &'a self,
        action: &str,
        scope: Option<&'a super::CallScope>,
    ) -> (Option<&'a str>, Option<&'a str>) {
        let is_mutation =
            self.is_mutation(action) || self.registry.withheld().iter().any(|id| id == action);
        if is_mutation {
            let authority = scope.map_or(
                (
                    &self.authority.policy_digest,
                    &self.authority.instruction_ref,
                ),
                |s| (&s.policy_digest, &s.instruction_ref),
            );
            (authority.0.as_deref(), authority.1.as_deref())
        } else {
            (None, None)
        }
    }

    /// Ends the call's span and reports its progress.
    fn announce(
        &self,
        span: Option<crate::telemetry::record::CallSpan>,
        seq: usize,
        action: &str,
        result_class: String,
    ) {
        if let Some(span) = span {
            span.finish(&result_class);
        }
        if let Some(on_call) = &self.on_call {
            on_call(super::CallProgress {
                seq,
                action: action.to_string(),
                result_class,
            });
        }
    }

    /// Asks both logs for room for `more` bytes each.
    fn reserve(&self, state: &mut State, more: u64) -> Result<(), String> {
        if let Some(log) = state.log.as_ref() {
            log.reserve(more).map_err(|e| e.to_string())?;
        }
        if state.trajectory.is_none() {
            state.trajectory =
                Some(TrajectorySink::open(&self.paths.trajectory).map_err(|e| e.to_string())?);
        }
        let writer = state.trajectory.as_ref().expect("opened above");
        writer
            .reserve(more / 4 + 16 * 1024)
            .map_err(|e| e.to_string())
    }
}
