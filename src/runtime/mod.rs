//! One request in, exactly one result out (host-api §3, HARNESS-MVP one-in/one-out).
//!
//! A [`Host`] is built once from a [`HostConfig`] (paths, mutation policy,
//! registry, default limits) and prepares one [`Sandbox`]; [`Host::eval`] then
//! runs any number of requests. Each run writes its effect-log header, one
//! effect row and one trajectory row per host call, and a footer.

mod bridge;
pub mod idempotency;
/// An atomic run's end row (issue 59): the host's own call, not a program's.
pub use bridge::staged::{BY_HOST, COMMIT_ACTION};
mod command;
mod hooks;
mod request;

pub use command::*;
pub use hooks::*;
pub use request::*;

use crate::canonical;
use crate::effects::record::{self, Member};
use crate::effects::{self, EffectLog, EffectLogError};
use crate::harness::trajectory::StepRow;
use crate::host::HostClass;
use crate::host::{Authority, HostPaths, JoinEvidence, MutationPolicy, Registry, RegistryError};
use crate::sandbox::{
    EngineMode, EvalError, FailureClass, InterruptHandle, Limits, LimitsOverride, RunOutput,
    Sandbox, PROFILE,
};
use bridge::CallHost;
use chrono::{SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

pub use crate::effects::record::RecordedAuthority;

pub const RESULT_KIND: &str = "premath.scheme_eval.result.v0";

/// Everything a host needs besides the programs.
#[derive(Clone)]
pub struct HostConfig {
    pub paths: HostPaths,
    pub policy: MutationPolicy,
    pub registry: Registry,
    /// Defaults for every run; a request may override them.
    pub limits: Limits,
    /// Signs each run's footer (`--sign-key`); unsigned logs are still chained.
    pub signer: Option<Arc<crate::chain::Signer>>,
}

impl HostConfig {
    /// Defaults under `<root>/.premath/`, the policy file there (or the
    /// built-in default), and every built-in action registered.
    pub fn under(root: &std::path::Path) -> Result<Self, crate::host::gate::PolicyError> {
        let paths = HostPaths::under(root);
        let registry = builtin_registry();
        let policy = load_policy(&crate::host::PolicyFile::Default(paths.policy.clone()))?;
        Ok(Self {
            paths,
            policy,
            registry,
            limits: Limits::default(),
            signer: None,
        })
    }
}

/// The policy `file`; when the default location has none, the built-in
/// default: every built-in mutation allowed (the same digest whatever
/// profile a host runs). A named file that does not exist is an error.
pub fn load_policy(
    file: &crate::host::PolicyFile,
) -> Result<MutationPolicy, crate::host::gate::PolicyError> {
    let registry = builtin_registry();
    let policy = MutationPolicy::load(file, &registry.mutation_ids())?;
    policy.check_actions(&registry.ids())?;
    Ok(policy)
}

/// Every action tusk ships: typestate, harness artifacts, issue memory.
///
/// Built once per process (declaring the actions derives every schema, a
/// measurable part of a cold start); each caller gets its own copy, whose
/// actions are shared.
pub fn builtin_registry() -> Registry {
    builtin().clone()
}

pub(crate) fn builtin() -> &'static Registry {
    static BUILTIN: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    BUILTIN.get_or_init(build_builtin_registry)
}

/// An action's argument schema: `registry`'s, else the built-in one's (an
/// action a narrowed or read-only registry withholds still has its names).
pub(crate) fn action_schema<'r>(registry: &'r Registry, action: &str) -> Option<&'r Value> {
    registry
        .get(action)
        .or_else(|| builtin().get(action))
        .map(|a| &a.spec().args)
}

/// A call's arguments as the logs record them: each key under the name of
/// the property it spells (`registry::canonical_args`), then redacted by
/// `redaction`'s rules (host::redact), which see every spelling.
pub(crate) fn recorded_args(
    registry: &Registry,
    redaction: &crate::host::redact::Redaction,
    action: &str,
    args: Option<Value>,
) -> Option<Value> {
    let schema = action_schema(registry, action);
    let args = match schema {
        Some(schema) => crate::host::registry::canonical_args(schema, args),
        None => args,
    };
    match redaction.args(action, args.as_ref(), schema) {
        Some(redacted) => redacted,
        None => args,
    }
}

fn build_builtin_registry() -> Registry {
    let mut registry = Registry::new();
    let mut actions: Vec<Arc<dyn crate::host::HostAction>> =
        vec![crate::typestate::action::join_check()];
    actions.extend(crate::harness::actions::actions());
    actions.extend(crate::issues::actions());
    for action in actions {
        registry
            .register(action)
            .expect("built-in actions are valid and unique");
    }
    registry
}

/// What programs of a host with `registry` bind: its ids, its declarations
/// for `(host-describe)`, and the mutations its profile withholds.
pub fn bindings(registry: &Registry) -> crate::sandbox::Bindings {
    bindings_for(registry, None)
}

/// What a principal's token limits its runs to (issue 57, point 5): a
/// program that names what they leave out is told so in the caller's terms
/// (`authority.read_only` naming the principal; the token's own actions
/// list, not the run's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrincipalTerms {
    pub principal: String,
    pub read_only: bool,
    /// The token's `actions` (`None`: no list).
    pub actions: Option<Vec<String>>,
}

/// [`bindings`], with each action `terms` leave out explained as theirs.
pub fn bindings_for(
    registry: &Registry,
    terms: Option<&PrincipalTerms>,
) -> crate::sandbox::Bindings {
    let described = registry.clone();
    let narrowed = registry.narrowed_out();
    let reasons = terms.map_or_else(Vec::new, |t| narrowing_reasons(&narrowed, t));
    crate::sandbox::Bindings {
        ids: registry.ids(),
        catalogue: crate::sandbox::Catalogue::new(move || catalogue(&described)),
        withheld: registry.withheld(),
        narrowed,
        reasons,
    }
}

/// Why each of `narrowed` is left out, when `terms` left it out.
pub(crate) fn narrowing_reasons(
    narrowed: &[String],
    terms: &PrincipalTerms,
) -> Vec<(String, FailureClass, String)> {
    let who = &terms.principal;
    narrowed
        .iter()
        .filter_map(|id| {
            let mutation = builtin()
                .get(id)
                .is_some_and(|a| a.spec().kind == crate::host::ActionKind::Mutation);
            if terms.read_only && mutation {
                return Some((
                    id.clone(),
                    FailureClass::ReadOnly,
                    format!(
                        "`{id}` is a mutation, and principal `{who}`'s token is read-only \
                         (readOnly in the server's token file): its runs bind reads only \
                         ((host-actions) lists them). Ask for a token without readOnly to \
                         change the queue"
                    ),
                ));
            }
            let listed = terms.actions.as_ref()?;
            (!listed.contains(id)).then(|| {
                (
                    id.clone(),
                    FailureClass::EffectDenied,
                    format!(
                        "`{id}` is not in principal `{who}`'s token actions list (actions in the \
                         server's token file); that token may call: {}",
                        echoed_ids(listed)
                    ),
                )
            })
        })
        .collect()
}

/// `registry`'s declarations as one JSON object keyed by action id, the text
/// a worker's first `(host-describe)` receives.
pub fn catalogue(registry: &Registry) -> String {
    catalogue_of(registry.specs())
}

/// These declarations as one JSON object keyed by action id.
pub(crate) fn catalogue_of<'a>(specs: impl Iterator<Item = &'a crate::host::ActionSpec>) -> String {
    let catalogue: serde_json::Map<String, Value> =
        specs.map(|s| (s.id.clone(), s.to_json())).collect();
    Value::Object(catalogue).to_string()
}

/// Registers the built-in actions into an embedder's registry.
pub fn register_builtins(registry: &mut Registry) -> Result<(), RegistryError> {
    let builtins = builtin_registry();
    for id in builtins.ids() {
        registry.register(builtins.get(&id).cloned().expect("listed"))?;
    }
    Ok(())
}

/// The result of one run.
pub struct RunResult {
    /// The `premath.scheme_eval.result.v0` object.
    pub json: Value,
    pub accepted: bool,
    /// The sandbox worker had to be abandoned: the session engine, and every
    /// definition made in it, is gone (the next session run starts afresh).
    pub worker_abandoned: bool,
}

/// A prepared host: one sandbox, any number of runs.
pub struct Host {
    config: HostConfig,
    sandbox: Sandbox,
    /// Where recovery settles this host's calls (issue 61), found once.
    recovery: Option<Arc<bridge::pending::Recovery>>,
}

impl Host {
    pub fn new(config: HostConfig) -> Self {
        // What a killed process left is settled before this host writes
        // (issue 61); a busy store is settled by the next taker of its lock.
        let _ = config.paths.issues.settle();
        if let (crate::logs::LogStore::Postgres { pg, .. }, false) = (
            &config.paths.effects,
            matches!(config.paths.issues, crate::issues::IssueStore::Postgres(_)),
        ) {
            // Logs on a database beside a file store: its dead writers too.
            let _ = crate::pg::writers::close_dead(pg);
        }
        let sandbox = Sandbox::with_bindings(bindings(&config.registry));
        let recovery = bridge::pending::Recovery::of(&config.paths).map(Arc::new);
        Self {
            config,
            sandbox,
            recovery,
        }
    }

    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// The host's own sandbox (fresh runs without a narrowing).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// A handle that interrupts the run in progress from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.sandbox.interrupt_handle()
    }

    /// Builds the prepared engine now (otherwise the first run does).
    pub fn warm_up(&self) -> Result<(), String> {
        self.sandbox.warm_up()
    }

    /// Runs one request in a fresh engine.
    pub fn eval(&self, request: &Request) -> Result<RunResult, RequestError> {
        self.run(request, RunOptions::default())
    }

    /// A sandbox with this host's bindings, for a session of its own (a
    /// server holds one per client session; runs in it persist definitions).
    pub fn new_sandbox(&self) -> Sandbox {
        Sandbox::with_bindings(bindings(&self.config.registry))
    }

    /// The registry a run with `actions` sees: this host's, narrowed to the
    /// list when there is one.
    ///
    /// # Errors
    /// The list names an action this host does not offer.
    pub fn registry_for(&self, actions: Option<&[String]>) -> Result<Registry, RequestError> {
        match actions {
            None => Ok(self.config.registry.clone()),
            Some(list) => self
                .config
                .registry
                .narrowed(list)
                .map_err(RequestError::UnknownActions),
        }
    }

    /// A sandbox binding exactly `registry`'s actions (a narrowed session),
    /// naming what `terms` leave out as theirs.
    pub fn sandbox_for(&self, registry: &Registry, terms: Option<&PrincipalTerms>) -> Sandbox {
        Sandbox::with_bindings(bindings_for(registry, terms))
    }

    /// Runs one request: the one entry point every front end uses
    /// ([`Host::eval`] is its default). `options` picks the sandbox (a
    /// session's, from [`Host::new_sandbox`]), the engine mode, the session
    /// the run is recorded under, and the hooks (cancel, progress, a given
    /// join verdict and clock for live replay). A session run in
    /// [`EngineMode::ResetSession`] marks its header `sessionReset: true` so
    /// a replay of the session drops its definitions at the same point.
    pub fn run(
        &self,
        request: &Request,
        options: RunOptions<'_>,
    ) -> Result<RunResult, RequestError> {
        let RunOptions {
            sandbox,
            mode,
            session_id,
            hooks,
        } = options;
        let sandbox = sandbox.unwrap_or(&self.sandbox);
        request.check_bounds(session_id)?;
        let limits = request.limits.unwrap_or_default().apply(self.config.limits);
        let registry = self.registry_for(request.actions.as_deref())?;
        // A narrowed fresh run gets a sandbox binding only the listed
        // actions; a session's sandbox was built for its list when it opened.
        let narrowed_sandbox;
        let sandbox =
            if request.actions.is_none() || sandbox.action_ids() == registry.ids().as_slice() {
                sandbox
            } else if mode == EngineMode::Fresh {
                narrowed_sandbox = self.sandbox_for(&registry, request.terms.as_ref());
                &narrowed_sandbox
            } else {
                return Err(RequestError::SessionActions);
            };
        // A retry of a keyed request gets the first run's result (issue 59).
        let ticket = match &request.idempotency_key {
            Some(key) => match idempotency::claim(
                &self.config.paths.issues,
                request.principal.as_deref().unwrap_or_default(),
                key,
                &canonical::sha256_text(&request.program),
                limits.timeout(),
            )? {
                idempotency::Claim::Done(json) => {
                    let accepted = json["result"] == "accepted";
                    return Ok(RunResult {
                        json,
                        accepted,
                        worker_abandoned: false,
                    });
                }
                idempotency::Claim::Fresh(ticket) => Some(ticket),
            },
            None => None,
        };
        let mut result =
            self.run_claimed(request, limits, registry, sandbox, mode, session_id, hooks)?;
        if let Some(ticket) = ticket {
            ticket.finish(&mut result.json);
        }
        Ok(result)
    }

    /// [`Host::run`] once the request's key (if any) is its own.
    #[allow(clippy::too_many_arguments)]
    fn run_claimed(
        &self,
        request: &Request,
        limits: Limits,
        registry: Registry,
        sandbox: &Sandbox,
        mode: EngineMode,
        session_id: Option<&str>,
        mut hooks: RunHooks,
    ) -> Result<RunResult, RequestError> {
        let started = Utc::now();
        if let Err(error) = Sandbox::check_size(&request.program, &limits) {
            // Refused before anything is recorded: an oversized program is
            // never copied into the log (host-api §2's class all the same).
            let trajectory = self.config.paths.trajectory.path().display().to_string();
            return Ok(unrecorded(request, error, started, trajectory));
        }
        let authority = run_authority(request, hooks.join.take())?;
        let run_id = new_run_id(&request.program, started);
        let program_digest = canonical::sha256_text(&request.program);
        let caller = hooks
            .traceparent
            .as_ref()
            .and_then(|(parent, state)| crate::telemetry::parent_from(parent, state.as_deref()))
            .unwrap_or_else(opentelemetry::Context::current);
        let span = crate::telemetry::record::run_started(
            &caller,
            &crate::telemetry::record::RunStart {
                run_id: &run_id,
                program_digest: &program_digest,
                issue_id: request.issue_id.as_deref(),
                principal: request.principal.as_deref(),
                session: session_id.map(public_session_ref),
            },
        );
        let run = RunRecord {
            config: &self.config,
            recovery: self.recovery.clone(),
            request,
            session_id,
            mode,
            limits,
            run_id,
            program_digest,
            started,
            span,
        };
        let mut log = EffectLog::open_store(&self.config.paths.effects)?;
        let mut header = run.header(sandbox.action_ids(), &authority, &caller);
        header.extra = std::mem::take(&mut hooks.header_extra);
        self.append_header(&mut log, &mut header)?;

        let named_steps = hooks.steps.is_some();
        let direct = hooks
            .preset
            .as_ref()
            .map(|p| (p.action.clone(), p.args.clone()));
        let cancel = hooks.cancel.take();
        let wrap = hooks.wrap.take();
        let host = run.host_side(registry, authority, hooks, log);
        let bridge: Arc<dyn crate::sandbox::HostBridge> = match wrap {
            Some(wrap) => wrap(host.clone()),
            None => host.clone(),
        };
        let output = match (request.invalid_utf8_at, direct) {
            (Some(at), _) => RunOutput::failed(invalid_utf8(at), std::time::Instant::now()),
            (None, Some((action, args))) => command::direct_call(bridge.as_ref(), &action, args),
            (None, None) => {
                sandbox.run_cancellable(&request.program, limits, mode, bridge, cancel.as_ref())
            }
        };
        host.end_atomic(run.atomic(), output.error.is_none());
        let finished = Utc::now();
        let (mut outcome, mut log) = Outcome::new(output, finished, host.finish());
        run.write_step(&mut outcome, named_steps);
        let accepted = outcome.failure_classes.is_empty();
        run.write_footer(&mut outcome, &mut log);
        let result = run.result(outcome, accepted);
        sandbox.ran(mode, &limits);
        Ok(result)
    }
}

/// One recorded run: what its header, rows, footer and result name it by.
struct RunRecord<'r> {
    config: &'r HostConfig,
    recovery: Option<Arc<bridge::pending::Recovery>>,
    request: &'r Request,
    session_id: Option<&'r str>,
    mode: EngineMode,
    limits: Limits,
    run_id: String,
    program_digest: String,
    started: chrono::DateTime<Utc>,
    /// The run's span (telemetry), when it is traced.
    span: Option<opentelemetry::Context>,
}

/// How a run ended, as its step row, footer and result report it.
struct Outcome {
    output: RunOutput,
    finished: chrono::DateTime<Utc>,
    calls: usize,
    executed: usize,
    effects: Vec<Value>,
    /// Sorted, without repeats, until the footer adds its own.
    failure_classes: Vec<String>,
    error: Option<Value>,
    /// The trajectory as the calls left it open (one open a run, not two).
    trajectory: Option<crate::harness::trajectory::TrajectorySink>,
}

/// The gate's evidence for a run: the request's, with the join verdict
/// given by the caller or checked from the request's evidence.
fn run_authority(request: &Request, join: Option<JoinEvidence>) -> Result<Authority, RequestError> {
    let join = match join {
        Some(verdict) => Some(verdict),
        None => request
            .join_evidence
            .as_ref()
            .map(JoinEvidence::check)
            .transpose()
            .map_err(RequestError::JoinEvidence)?,
    };
    Ok(Authority {
        policy_digest: request.policy_digest.clone(),
        instruction_ref: request.instruction_ref.clone(),
        join,
        capability_claims: request.capability_claims.clone(),
    })
}

impl Outcome {
    /// The run's failure classes and error: its calls', the program's, and
    /// any record its host side could not write; also the effect log, for
    /// the footer.
    fn new(
        output: RunOutput,
        finished: chrono::DateTime<Utc>,
        ended: bridge::Ended,
    ) -> (Self, EffectLog) {
        let mut failure_classes: Vec<String> = ended
            .effects
            .iter()
            .flat_map(|e| e["failureClasses"].as_array().cloned().unwrap_or_default())
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
        let mut error = output.error.clone().map(|e| {
            let mut err = json!({"class": e.class.as_str(), "message": e.message});
            if let (Some(line), Some(column)) = (e.line, e.column) {
                err["line"] = json!(line);
                err["column"] = json!(column);
            }
            err
        });
        if let Some(e) = &output.error {
            failure_classes.push(e.class.to_string());
        }
        if !ended.io_errors.is_empty() {
            failure_classes.push(ended.unwritable_class.to_string());
            if error.is_none() {
                error = Some(json!({
                    "class": ended.unwritable_class,
                    "message": ended.io_errors.join("; "),
                }));
            }
        }
        failure_classes.sort();
        failure_classes.dedup();
        let outcome = Outcome {
            output,
            finished,
            calls: ended.calls,
            executed: ended.executed,
            effects: ended.effects,
            failure_classes,
            error,
            trajectory: ended.trajectory,
        };
        (outcome, ended.log)
    }
}

impl RunRecord<'_> {
    /// How the run's issue-store changes land, when it is atomic.
    fn atomic(&self) -> Option<bridge::staged::Atomic> {
        if self.request.dry_run {
            Some(bridge::staged::Atomic::DryRun)
        } else if self.request.atomic {
            Some(bridge::staged::Atomic::Commit)
        } else {
            None
        }
    }

    /// The run's header row, before anything runs.
    fn header(
        &self,
        host_actions: &[String],
        authority: &Authority,
        caller: &opentelemetry::Context,
    ) -> record::Header {
        let request = self.request;
        let redaction = &self.config.policy.redaction;
        record::Header {
            kind: effects::RUN_KIND.to_string(),
            run_id: self.run_id.clone(),
            program_digest: Member::Typed(self.program_digest.clone()),
            program: Member::Typed(request.program.clone()),
            limits: Member::Typed(self.limits),
            profile: Member::Typed(PROFILE.to_string()),
            started_at: Member::Typed(rfc3339(self.started)),
            host_actions: Member::Typed(host_actions.to_vec()),
            json_encoding: Member::Typed(effects::JSON_ENCODING),
            authority: Member::Typed(RecordedAuthority::of(
                authority,
                request.issue_id.as_deref(),
            )),
            invalid_utf8_at: request.invalid_utf8_at.into(),
            redact: (!redaction.is_empty()).then(|| redaction.to_json()).into(),
            principal: request.principal.clone().into(),
            command: request.command.clone().into(),
            principal_terms: request
                .terms
                .as_ref()
                .map(|t| record::RecordedTerms {
                    read_only: t.read_only,
                    actions: t.actions.clone(),
                })
                .into(),
            session_id: self.session_id.map(str::to_string).into(),
            session_reset: (self.session_id.is_some() && self.mode == EngineMode::ResetSession)
                .then_some(true)
                .into(),
            atomic: self.atomic().map(|a| a.as_str().to_string()).into(),
            trace: trace_record(self.span.as_ref(), caller).into(),
            // Set by `EffectLog::append_header`.
            prev_row_digest: Member::Absent,
            extra: Default::default(),
        }
    }

    /// The host side the program's calls go to, writing to `log`.
    fn host_side(
        &self,
        registry: Registry,
        authority: Authority,
        hooks: RunHooks,
        log: EffectLog,
    ) -> Arc<CallHost> {
        Arc::new(CallHost::new(
            self.config,
            bridge::RunSetup {
                registry,
                authority,
                max_calls: self.limits.max_calls,
                run_id: self.run_id.clone(),
                issue_id: self.request.issue_id.clone(),
                principal: self.request.principal.clone(),
                clock: hooks.clock,
                on_call: hooks.on_call,
                calls_before: hooks.calls_before,
                trace: self.span.clone(),
                steps: hooks.steps.clone(),
                act_as: hooks.act_as,
                operator: self.request.command.is_some(),
                preset: hooks.preset,
                recovery: self.recovery.clone(),
                staged: self.atomic().map(|_| self.limits.max_memory_bytes() as u64),
                program_digest: self.program_digest.clone(),
            },
            log,
        ))
    }

    /// Writes the run's one step row (none under named steps: premath's rows
    /// are the calls' own); a failure to write it rejects the run.
    fn write_step(&self, outcome: &mut Outcome, named_steps: bool) {
        let run_id = &self.run_id;
        let request = self.request;
        let failure_classes = &mut outcome.failure_classes;
        // One step row per run, whatever its outcome (the per-call rows are
        // the run's host calls): what retry projections and the KPI read.
        let step = StepRow {
            step_id: format!("scheme_eval.run.{run_id}"),
            action: crate::harness::trajectory::RUN_STEP_ACTION.to_string(),
            result_class: failure_classes
                .first()
                .cloned()
                .unwrap_or_else(|| "accepted".to_string()),
            finished_at: rfc3339(outcome.finished),
            issue_id: request.issue_id.clone(),
            instruction_refs: request.instruction_ref.iter().cloned().collect(),
            witness_refs: std::iter::once(format!("run://{run_id}"))
                .chain((1..=outcome.calls).map(|seq| format!("effect-row://{run_id}/{seq}")))
                // A rejected run that still holds a lease names it, so the
                // next boot on that issue can resume it.
                .chain(if failure_classes.is_empty() {
                    Vec::new()
                } else {
                    held_leases(&outcome.effects)
                })
                .collect(),
            lineage_refs: self
                .session_id
                .map(|sid| format!("session://{}", public_session_ref(sid)))
                .into_iter()
                .chain(
                    request
                        .principal
                        .as_ref()
                        .map(|p| format!("principal://{p}")),
                )
                .collect(),
            started_at: Some(rfc3339(self.started)),
        };
        let step_written = if named_steps {
            // premath's rows are the calls' own; it writes no run row.
            Ok(Value::Null)
        } else if let Some(sink) = outcome.trajectory.as_mut() {
            sink.append(&step)
        } else {
            crate::harness::trajectory::append_to(&self.config.paths.trajectory, &step)
        };
        if let Err(e) = step_written {
            let class = unwritable_class(&self.config.paths);
            failure_classes.push(class.to_string());
            outcome.error.get_or_insert_with(
                || json!({"class": class, "message": format!("the run's step row: {e}")}),
            );
            failure_classes.sort();
            failure_classes.dedup();
        }
    }

    /// Writes the run's footer row; a failure to write it is reported in the
    /// result (the run happened) without changing whether it was accepted.
    fn write_footer(&self, outcome: &mut Outcome, log: &mut EffectLog) {
        let result = if outcome.failure_classes.is_empty() {
            "accepted"
        } else {
            "rejected"
        };
        let output = &outcome.output;
        let mut footer = record::Footer {
            kind: effects::RUN_END_KIND.to_string(),
            run_id: self.run_id.clone(),
            result: Member::Typed(result.to_string()),
            failure_classes: Member::Typed(outcome.failure_classes.clone()),
            value_digest: Member::Typed(canonical::sha256_digest(&output.value)),
            output_digest: Member::Typed(canonical::sha256_text(&output.output)),
            output_truncated: Member::Typed(output.output_truncated),
            finished_at: Member::Typed(rfc3339(outcome.finished)),
            session_id: self.session_id.map(str::to_string).into(),
            ..Default::default()
        };
        if let Err(e) = log.append_footer(&mut footer, self.config.signer.as_deref()) {
            // The run happened; say so in the result rather than losing it.
            let class = unwritable_class(&self.config.paths);
            outcome.failure_classes.push(class.to_string());
            outcome
                .error
                .get_or_insert_with(|| json!({"class": class, "message": e.to_string()}));
        }
    }

    /// The run's result JSON; the run's span ends here.
    fn result(&self, outcome: Outcome, accepted: bool) -> RunResult {
        let Outcome {
            output,
            finished,
            calls,
            executed,
            effects,
            failure_classes,
            error,
            trajectory: _,
        } = outcome;
        let result = if accepted { "accepted" } else { "rejected" };
        let mut json = json!({
            "schema": 1,
            "kind": RESULT_KIND,
            "profile": PROFILE,
            "result": result,
            "failureClasses": failure_classes,
            "value": null,
            "output": output.output,
            "outputTruncated": output.output_truncated,
            "executedCallCount": executed,
            "effects": [],
            "usage": {"hostCalls": calls, "elapsedMs": output.elapsed.as_millis() as u64},
            "runId": self.run_id,
            "programDigest": self.program_digest,
            "trajectoryPath": self.config.paths.trajectory.path().display().to_string(),
            "startedAt": rfc3339(self.started),
            "finishedAt": rfc3339(finished),
        });
        // Moved in, not through `json!`, which would deep-copy the value and
        // every envelope (a ready queue's, 27 KB each, was 6% of a warm MCP
        // call's time on the server).
        json["value"] = output.value;
        // An atomic run's end (issue 59): what became of its staged
        // changes, and a dry run's plan, at the top of the result.
        if let Some(end) = effects
            .last()
            .filter(|e| e["action"] == bridge::staged::COMMIT_ACTION)
        {
            let payload = &end["payload"];
            json["commit"] = json!({
                "outcome": payload["outcome"],
                "issues": payload["issues"],
            });
            if let Some(conflicts) = payload.get("conflicts") {
                json["commit"]["conflicts"] = conflicts.clone();
            }
            if let Some(plan) = payload.get("plan") {
                json["plan"] = plan.clone();
            }
        }
        json["effects"] = Value::Array(effects);
        if let Some(kb) = output.peak_memory_kb {
            json["usage"]["peakMemoryKb"] = json!(kb);
        }
        if !accepted {
            json["decidedBy"] = decided_by(&json["effects"], error.as_ref());
            let unexamined = unexamined(&json["effects"], &output.examined);
            // Handled: the program finished, a call was refused (the run
            // is rejected for nothing else) and it examined every refusal.
            let refused = json["decidedBy"]["kind"] == "call";
            json["handled"] = json!(error.is_none() && refused && unexamined.is_empty());
            if error.is_none() && !unexamined.is_empty() {
                json["unexamined"] = json!(unexamined);
            }
        }
        crate::telemetry::record::run_finished(
            self.span.as_ref(),
            &crate::telemetry::record::RunEnd {
                result,
                failure_classes: &failure_classes,
                host_calls: calls,
                duration: output.elapsed,
                peak_memory_kb: output.peak_memory_kb,
            },
        );
        if let Some(error) = error {
            json["error"] = error;
        }
        if let Some(sid) = self.session_id {
            json["sessionId"] = json!(sid);
        }
        RunResult {
            json,
            accepted,
            worker_abandoned: output.worker_abandoned,
        }
    }
}

/// The header's `trace`: `traceId`, the run's own `spanId` when its span is
/// exported, and the caller's span as `parentSpanId`; `None` outside a trace.
fn trace_record(
    span: Option<&opentelemetry::Context>,
    caller: &opentelemetry::Context,
) -> Option<record::Trace> {
    let run = span.and_then(crate::telemetry::trace_ref);
    let parent = crate::telemetry::trace_ref(caller);
    let id = |r: &Value, key: &str| Member::from(r[key].as_str().map(str::to_string));
    let trace_id = id(run.as_ref().or(parent.as_ref())?, "traceId");
    Some(record::Trace {
        trace_id,
        span_id: run.map(|r| id(&r, "spanId")).unwrap_or_default(),
        parent_span_id: parent.map(|p| id(&p, "spanId")).unwrap_or_default(),
        extra: Default::default(),
    })
}

/// What made a run rejected: the first host call whose envelope was rejected
/// (a rejected call rejects the run even when the program handled it), else
/// the run's own error. Named in the result as `decidedBy`.
/// The refused calls whose envelopes the program never examined (issue 56:
/// a handled refusal is not a failure, an ignored one stays impossible to
/// miss). `examined` is sorted.
fn unexamined(effects: &Value, examined: &[String]) -> Vec<Value> {
    effects
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["resultClass"] != "accepted")
        // An atomic run's end is the host's: no program could examine it.
        .filter(|e| e["action"] != COMMIT_ACTION)
        .filter(|e| {
            e["callId"]
                .as_str()
                .is_none_or(|id| examined.binary_search_by(|x| x.as_str().cmp(id)).is_err())
        })
        .map(|e| e["callId"].clone())
        .collect()
}

fn decided_by(effects: &Value, error: Option<&Value>) -> Value {
    // An atomic run's abort follows from what rejected it; a conflict at
    // its commit decides it.
    let first = effects.as_array().into_iter().flatten().find(|e| {
        e["resultClass"] != "accepted"
            && !(e["action"] == COMMIT_ACTION && e["payload"]["outcome"] == "aborted")
    });
    match (first, error) {
        (Some(e), _) if e["action"] == COMMIT_ACTION => json!({
            "kind": "commit",
            "callId": e["callId"],
            "action": e["action"],
            "resultClass": e["resultClass"],
        }),
        (Some(e), _) => json!({
            "kind": "call",
            "callId": e["callId"],
            "action": e["action"],
            "resultClass": e["resultClass"],
        }),
        (None, Some(err)) => json!({"kind": "error", "resultClass": err["class"]}),
        (None, None) => Value::Null,
    }
}

/// `lease://held/<issueId>/<leaseId>` for each lease the run's calls
/// acquired or renewed and did not give back.
fn held_leases(effects: &[Value]) -> Vec<String> {
    let mut held: Vec<(String, String)> = Vec::new();
    for e in effects.iter().filter(|e| e["resultClass"] == "accepted") {
        let p = &e["payload"];
        let issue = p["issue"]["id"]
            .as_str()
            .or_else(|| p["id"].as_str())
            .or_else(|| p["issueId"].as_str())
            .unwrap_or_default()
            .to_string();
        match e["action"].as_str().unwrap_or_default() {
            "issue.claim" | "issue.claim_next" | "issue.lease_renew" => {
                // Claims carry premath's camelCase lease inside `issue`;
                // renewals the stored lease.
                let lease = p["issue"]["lease"]["leaseId"]
                    .as_str()
                    .or_else(|| p["lease"]["lease_id"].as_str());
                if let Some(lease) = lease {
                    held.retain(|(i, _)| *i != issue);
                    held.push((issue, lease.to_string()));
                }
            }
            "issue.lease_release" | "issue.close" => held.retain(|(i, _)| *i != issue),
            "harness.stop" if p["lease"]["state"] == "released" => {
                held.retain(|(i, _)| *i != issue)
            }
            _ => {}
        }
    }
    held.into_iter()
        .map(|(issue, lease)| format!("lease://held/{issue}/{lease}"))
        .collect()
}

impl RecordedAuthority {
    /// What the header records of a run's `authority` and issue.
    fn of(authority: &Authority, issue_id: Option<&str>) -> Self {
        Self {
            policy_digest: authority.policy_digest.clone(),
            instruction_ref: authority.instruction_ref.clone(),
            issue_id: issue_id.map(str::to_string),
            join_evidence: authority.join.clone(),
            capability_claims: authority.capability_claims.clone(),
        }
    }
}

/// What the trajectory (readable by programs) records of a session id: an
/// MCP session's id `mcp-<time>-<public>.<secret>` loses its secret, the
/// 32 hex digits after the last `.`; other ids are recorded whole.
pub fn public_session_ref(session_id: &str) -> &str {
    match session_id.rsplit_once('.') {
        Some((public, secret))
            if session_id.starts_with("mcp-")
                && secret.len() == 32
                && secret.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            public
        }
        _ => session_id,
    }
}

/// The result of a run refused before anything was recorded (a program over
/// its size limit): the spec's class, no run id in any log.
fn unrecorded(
    request: &Request,
    error: EvalError,
    started: chrono::DateTime<Utc>,
    trajectory_path: String,
) -> RunResult {
    let class = error.class.as_str();
    let program_digest = canonical::sha256_text(&request.program);
    let json = json!({
        "schema": 1,
        "kind": RESULT_KIND,
        "profile": PROFILE,
        "result": "rejected",
        "failureClasses": [class],
        "value": Value::Null,
        "output": "",
        "outputTruncated": false,
        "executedCallCount": 0,
        "effects": [],
        "usage": {"hostCalls": 0, "elapsedMs": 0},
        "runId": new_run_id(&request.program, started),
        "recorded": false,
        "programDigest": program_digest,
        "trajectoryPath": trajectory_path,
        "startedAt": rfc3339(started),
        "finishedAt": rfc3339(Utc::now()),
        "error": {"class": class, "message": error.message},
    });
    RunResult {
        json,
        accepted: false,
        worker_abandoned: false,
    }
}

/// The error of a program whose text is not UTF-8 (recorded runs replay it).
pub fn invalid_utf8(at: usize) -> EvalError {
    EvalError::new(
        FailureClass::InvalidProgram,
        format!("the program is not valid UTF-8: the byte at offset {at} is not part of a UTF-8 character"),
    )
}

impl Host {
    /// Appends a run's header naming this process's writer, the log
    /// fenced by it. A writer closed while idle (its lock went with a lost
    /// connection) has written no row of this run: it starts again as a
    /// new writer.
    fn append_header(
        &self,
        log: &mut EffectLog,
        header: &mut record::Header,
    ) -> Result<(), EffectLogError> {
        for _ in 0..2 {
            let writer = self.writer();
            log.fence(writer.as_deref());
            match writer {
                Some(w) => header.extra.insert("writer".into(), Value::String(w)),
                None => header.extra.remove("writer"),
            };
            match log.append_header(header) {
                Err(EffectLogError::Store(crate::pg::PgError::WriterClosed { .. })) => continue,
                other => return other,
            }
        }
        log.fence(None);
        header.extra.remove("writer");
        log.append_header(header)
    }

    /// This process's writer id for the effect log (issue 61): with the
    /// file store and its logs beside it, a marker beside the store's
    /// journals; with the logs on a database, a registered writer whose
    /// lock the process holds ([`crate::pg::writers`]). Either lets
    /// recovery close a run whose process died. None elsewhere, or when
    /// neither can be made (the run is written without one).
    fn writer(&self) -> Option<String> {
        let footer = json!({
            "kind": effects::RUN_END_KIND,
            "result": "rejected",
            "failureClasses": [crate::sandbox::CLASS_INTERRUPTED],
            "recovered": true,
        });
        if let crate::logs::LogStore::Postgres { pg, .. } = &self.config.paths.effects {
            return crate::pg::writers::writer_id(pg, &footer).ok();
        }
        let recovery = self.recovery.as_ref()?;
        crate::logs::writers::writer_id(&recovery.journals, &recovery.effects, &footer).ok()
    }
}

pub(crate) fn rfc3339(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `run-<UTC timestamp>-<12 hex>`: sortable by start, unique per process and program.
fn new_run_id(program: &str, started: chrono::DateTime<Utc>) -> String {
    stamped_id("run", started, &canonical::sha256_text(program))
}

/// `<prefix>-<UTC timestamp>-<12 hex>`: sortable by time; the hex mixes the
/// process, the nanosecond, a per-process counter and `seed`, so ids made in
/// the same millisecond (or by two processes) still differ.
pub(crate) fn stamped_id(prefix: &str, at: chrono::DateTime<Utc>, seed: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = format!(
        "{}|{}|{}|{seed}",
        std::process::id(),
        at.timestamp_nanos_opt().unwrap_or_default(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
    );
    format!(
        "{prefix}-{}-{}",
        at.format("%Y%m%dT%H%M%S%.3fZ"),
        &canonical::sha256_hex(seed.as_bytes())[..12]
    )
}

/// The class of a run whose rows could not all be written: the database's
/// when the logs are in one (it is away: a retry is the remedy), else the
/// host's execution error (a file the run could not write).
pub(crate) fn unwritable_class(paths: &crate::host::HostPaths) -> &'static str {
    match paths.effects {
        crate::logs::LogStore::Postgres { .. } => crate::pg::StoreClass::Unavailable.as_str(),
        crate::logs::LogStore::File(_) => crate::host::registry::CLASS_EXECUTION_ERROR,
    }
}

#[cfg(test)]
mod session_ref_tests {
    use super::public_session_ref;

    #[test]
    fn only_an_mcp_session_loses_its_secret() {
        let secret = "0123456789abcdef0123456789abcdef";
        let mcp = format!("mcp-20261125T020000.123Z-a1b2c3d4e5f6.{secret}");
        assert_eq!(
            public_session_ref(&mcp),
            "mcp-20261125T020000.123Z-a1b2c3d4e5f6"
        );
        // A REPL session's id has a '.' in its time and keeps it.
        let repl = "session-20261125T020000.123Z-a1b2c3d4e5f6";
        assert_eq!(public_session_ref(repl), repl);
        assert_eq!(public_session_ref("mcp-x.short"), "mcp-x.short");
    }
}
