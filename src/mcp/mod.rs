//! `tusk mcp`: the host as an MCP server, for agent frameworks.
//!
//! One execute tool, `scheme_eval`, whose description is the typed host API
//! generated from the actions' declarations (code mode); `describe_actions`
//! for the full schemas; `session_open`/`session_close` for REPL-like
//! sessions whose definitions persist; optionally one direct tool per action.
//! Every run goes through the same [`Host`] as `tusk eval`: the same gate,
//! effect log and trajectory, each program in its own confined worker.
//!
//! Harness invariants kept here: one call in, one result out; runs are
//! served concurrently up to a bound; two runs for the same issue never
//! overlap, from their effect-log header to their footer; a session runs one
//! form at a time. A call waiting for its issue's or session's turn holds no
//! concurrency permit, so unrelated calls are served meanwhile.
//!
//! Shared-server rules (docs/sandbox.md, "The server"): every call is made by
//! a [`Principal`] ([`auth`]); a session belongs to the principal (and HTTP
//! transport session) that opened it, and its id is unguessable; a cancel or
//! a disconnect stops the run (`scheme_eval.interrupted`, recorded), and no
//! host call starts after it; a call may narrow the actions its program
//! binds; every recorded request field is bounded.

pub mod auth;
mod http;
mod stdio;
mod text;
pub mod tokens;

pub use auth::{Principal, Tokens};
pub use http::{serve_http, HttpOptions};
pub use tokens::LiveTokens;

use crate::host::{ActionKind, ActionSpec};
use crate::runtime::{CallProgress, Host, Request, RunHooks, RunOptions};
use crate::sandbox::{CancelToken, EngineMode, LimitsOverride, Sandbox};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How a server is set up (the flags of `tusk mcp`).
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Authority used when a stdio call (or a token granting it) carries none.
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
    pub issue_id: Option<String>,
    /// Expose each host action as a tool of its own too.
    pub direct_tools: bool,
    /// Serve premath's `mcp-serve` tools that have a tusk twin
    /// ([`crate::premath::MCP_TOOLS`]) under premath's names; the host's
    /// registry must hold [`crate::premath::mcp_actions`].
    pub premath_tools: bool,
    /// Idle sessions are closed after this long.
    pub session_ttl: Duration,
    pub max_sessions: usize,
    /// Runs served at once.
    pub max_concurrency: usize,
    /// Runs are atomic unless a call says otherwise (issue 59).
    pub atomic: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            policy_digest: None,
            instruction_ref: None,
            issue_id: None,
            direct_tools: false,
            premath_tools: false,
            session_ttl: Duration::from_secs(1800),
            max_sessions: 64,
            max_concurrency: 8,
            atomic: false,
        }
    }
}

/// The `scheme_eval` tool's input: `tusk eval --request`'s object plus a session.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalInput {
    /// The Scheme program (one or more top-level forms; the last one's value is the result).
    pub program: String,
    /// Run in this session (from session_open): earlier definitions persist.
    pub session_id: Option<String>,
    /// The issue this run works on (trajectory rows; runs on one issue never overlap).
    pub issue_id: Option<String>,
    /// Authority for mutations: the active policy's digest (`tusk policy digest`).
    pub policy_digest: Option<String>,
    /// Authority for mutations: the instruction this run carries out.
    pub instruction_ref: Option<String>,
    /// A harness-join-check input object, when the policy requires join closure.
    pub join_evidence: Option<Map<String, Value>>,
    /// Bind only these host actions (a program naming another fails to
    /// compile as scheme_eval.effect_denied): approve a program by what it may call.
    pub actions: Option<Vec<String>>,
    /// Lower limits for this run (the server's are the ceiling).
    pub limits: Option<EvalLimits>,
    /// How much of the result to send: "summary" (the default: each call's
    /// action and result class, no payloads, digests, refs or paths; the
    /// program returns what it needs, and the effect log keeps the rest) or
    /// "full" (every envelope, as the effect log records it).
    pub detail: Option<Detail>,
    /// All or nothing: stage this run's issue changes (its own reads see
    /// them) and apply them in one commit when it ends accepted, none when
    /// it raises, hits a limit or has a call refused; `run.conflict` when an
    /// issue it read or wrote changed meanwhile. Default: the server's.
    pub atomic: Option<bool>,
    /// Change nothing: run atomically, never commit, and return in `plan`
    /// what the run would change (fields before and after, per issue).
    pub dry_run: Option<bool>,
    /// Retry safely: a second call with this key and the same program gets
    /// the first run's result (marked `idempotency.replayed`) and runs
    /// nothing; another program with the key is refused. Keys last 24 h.
    pub idempotency_key: Option<String>,
}

/// How much of a run's result `scheme_eval` sends back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// The value, output, errors and each call's class.
    #[default]
    Summary,
    /// Every member of the result, every envelope whole.
    Full,
}

/// The result as `detail` asks for it. A model pays for every byte it
/// reads: under "summary" an effect is its call id, action and result
/// class (with the failure classes and diagnostic of a refused one), and
/// the run's digests, paths and times are left to the effect log.
pub fn result_in_detail(mut json: Value, detail: Detail) -> Value {
    if detail == Detail::Full {
        return json;
    }
    if let Some(map) = json.as_object_mut() {
        for dropped in [
            "programDigest",
            "trajectoryPath",
            "startedAt",
            "finishedAt",
            "profile",
        ] {
            map.remove(dropped);
        }
        if map.get("outputTruncated") == Some(&Value::Bool(false)) {
            map.remove("outputTruncated");
        }
        if let Some(Value::Array(effects)) = map.get_mut("effects") {
            for e in effects.iter_mut() {
                let mut short = serde_json::Map::new();
                for key in ["callId", "action", "resultClass"] {
                    if let Some(v) = e.get(key) {
                        short.insert(key.into(), v.clone());
                    }
                }
                if e["resultClass"] != "accepted" {
                    short.insert("failureClasses".into(), e["failureClasses"].clone());
                    if let Some(d) = e["payload"].get("diagnostic") {
                        short.insert("diagnostic".into(), d.clone());
                    }
                }
                *e = Value::Object(short);
            }
        }
    }
    json
}

/// Per-run limits a call may lower.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalLimits {
    pub timeout_ms: Option<u64>,
    pub max_calls: Option<u32>,
    pub max_memory_mb: Option<u64>,
    pub max_output_bytes: Option<u64>,
    pub max_value_bytes: Option<u64>,
}

/// `describe_actions`: all actions, or those named, or those matching a word.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeInput {
    /// Action ids to describe.
    pub ids: Option<Vec<String>>,
    /// Only actions whose id or description contains this (case-insensitive).
    pub query: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionOpenInput {
    /// The issue the session works on (its runs' default issue id).
    pub issue_id: Option<String>,
    /// Bind only these host actions in every form of the session.
    pub actions: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionCloseInput {
    pub session_id: String,
}

/// Who a session belongs to: the principal, and the HTTP transport session
/// (`Mcp-Session-Id`) when the transport has one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Owner {
    principal: String,
    transport: Option<String>,
}

/// One client session: a sandbox whose session worker keeps definitions.
struct Session {
    id: String,
    owner: Owner,
    issue_id: Option<String>,
    /// The actions list it was opened with (each form binds these).
    actions: Option<Vec<String>>,
    sandbox: Sandbox,
    /// Runs so far; held while a form runs (a session runs one at a time).
    runs: tokio::sync::Mutex<u64>,
    last_used: Mutex<Instant>,
}

/// The active-sessions gauge goes down however a session ends (closed,
/// expired, its transport gone).
impl Drop for Session {
    fn drop(&mut self) {
        crate::telemetry::record::sessions(-1);
    }
}

impl Session {
    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// Idle past `ttl` and not running a form.
    fn expired(&self, ttl: Duration) -> bool {
        let idle = self
            .last_used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            >= ttl;
        idle && self.runs.try_lock().is_ok()
    }
}

/// The server: a host, its sessions, and the locks that keep runs apart.
#[derive(Clone)]
pub struct TuskServer {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<Host>,
    options: ServerOptions,
    /// The stdio principal (the server's default authority).
    local: Arc<Principal>,
    anonymous: Arc<Principal>,
    /// Who the stdio client's runs are recorded as (issue 57).
    local_actor: String,
    specs: Vec<ActionSpec>,
    eval_description: String,
    direct: HashMap<String, ActionSpec>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    permits: Arc<tokio::sync::Semaphore>,
    issue_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Runs in progress (a shutdown waits for their footers).
    running: AtomicUsize,
    /// A run finished since the last heap trim.
    trim_due: AtomicBool,
    /// Cancelled when the server's client is gone (stdio end of input) or
    /// the server stops: every run in progress is interrupted.
    shutdown: tokio_util::sync::CancellationToken,
    /// Runs in progress per HTTP transport session, so that ending the
    /// transport session (DELETE) stops them.
    transport_runs: Mutex<HashMap<Owner, Vec<(u64, CancelToken)>>>,
    next_run: std::sync::atomic::AtomicU64,
}

fn schema_object(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(mut map) => {
            // A model reads the tool list every turn: the dialect URI and
            // Rust's integer widths tell it nothing.
            map.remove("$schema");
            strip_formats(&mut map);
            Arc::new(map)
        }
        _ => Arc::new(Map::new()),
    }
}

/// Removes `format` (`uint64`, `int64`…) from every schema inside `map`.
fn strip_formats(map: &mut Map<String, Value>) {
    if map.get("format").is_some_and(|f| {
        f.as_str()
            .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
    }) {
        map.remove("format");
    }
    for v in map.values_mut() {
        match v {
            Value::Object(inner) => strip_formats(inner),
            Value::Array(items) => items.iter_mut().for_each(|i| {
                if let Value::Object(inner) = i {
                    strip_formats(inner)
                }
            }),
            _ => {}
        }
    }
}

/// A tool's hints for a client's permission system; no tool reaches outside
/// the host (`openWorld` false).
fn hints(read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

/// 128 bits from the operating system's generator, as hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random generator");
    crate::canonical::hex(&bytes)
}

/// A session id: `mcp-<time>-<public>.<secret>`. What precedes the last dot
/// is what the trajectory (readable by programs) records
/// ([`crate::runtime::public_session_ref`]); the secret is only in the
/// caller's hands and the operator's effect log.
fn new_session_id() -> String {
    let secret = random_hex();
    let public = &crate::canonical::sha256_hex(secret.as_bytes())[..12];
    format!(
        "mcp-{}-{public}.{secret}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    )
}

/// Sessions the server keeps per run while waiting: decrements on drop.
struct Running<'a>(&'a Inner);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        self.0.trim_due.store(true, Ordering::SeqCst);
    }
}

impl TuskServer {
    pub fn new(host: Host, options: ServerOptions) -> Self {
        let specs: Vec<ActionSpec> = host.config().registry.specs().cloned().collect();
        // The store's readiness rule as the server starts (an unreadable
        // config.json is each call's error; the description then states
        // the rule `tusk init` writes).
        let readiness = host.config().paths.issues.readiness().ok();
        let eval_description = text::eval_description(&specs, readiness);
        let direct = if options.direct_tools {
            specs
                .iter()
                .map(|spec| (spec.id.replace('.', "_"), spec.clone()))
                .collect()
        } else {
            HashMap::new()
        };
        let permits = Arc::new(tokio::sync::Semaphore::new(options.max_concurrency.max(1)));
        let local = Arc::new(Principal::local(
            options.policy_digest.clone(),
            options.instruction_ref.clone(),
        ));
        Self {
            inner: Arc::new(Inner {
                host: Arc::new(host),
                options,
                local,
                anonymous: Arc::new(Principal::anonymous()),
                local_actor: crate::host::actor::local_actor()
                    .map_or_else(|_| auth::LOCAL.to_string(), |a| a.name),
                specs,
                eval_description,
                direct,
                sessions: Mutex::new(HashMap::new()),
                permits,
                issue_locks: Mutex::new(HashMap::new()),
                running: AtomicUsize::new(0),
                trim_due: AtomicBool::new(false),
                shutdown: tokio_util::sync::CancellationToken::new(),
                transport_runs: Mutex::new(HashMap::new()),
                next_run: std::sync::atomic::AtomicU64::new(0),
            }),
        }
    }

    /// The generated description of `scheme_eval` (for the size check).
    pub fn eval_description(&self) -> String {
        self.inner.eval_description.clone()
    }

    /// The tools `principal` sees: what it may use, annotated so a client's
    /// permission system can tell reads from writes.
    fn tools_for(&self, principal: &Principal) -> Vec<Tool> {
        let mutates = self
            .inner
            .specs
            .iter()
            .any(|s| s.kind == ActionKind::Mutation && self.principal_allows(principal, &s.id));
        let mut tools = self.own_tools(mutates);
        if self.inner.options.premath_tools {
            tools.extend(self.premath_tools(principal));
        }
        tools.extend(self.direct_tools(principal));
        tools
    }

    /// `scheme_eval` (a write when `mutates`: the principal may bind a
    /// mutation), `describe_actions` and the two session tools.
    fn own_tools(&self, mutates: bool) -> Vec<Tool> {
        vec![
            Tool::new(
                "scheme_eval",
                self.inner.eval_description.clone(),
                schema_object(crate::host::declare::args_schema::<EvalInput>()),
            )
            .with_raw_output_schema(schema_object(text::result_schema()))
            .with_annotations(hints(!mutates, mutates, false)),
            Tool::new(
                "describe_actions",
                "Describe host actions: kind, one-line description, JSON Schemas of the \
                 arguments and the payload, failure classes and an example call. Give `ids`, \
                 or a `query` word, or nothing for all.",
                schema_object(crate::host::declare::args_schema::<DescribeInput>()),
            )
            .with_annotations(hints(true, false, true)),
            Tool::new(
                "session_open",
                "Open a session: scheme_eval calls that name its sessionId run in one \
                 engine, so definitions persist between them (a REPL). Idle sessions expire; \
                 a session is usable only by the client that opened it.",
                schema_object(crate::host::declare::args_schema::<SessionOpenInput>()),
            )
            .with_annotations(hints(false, false, false)),
            Tool::new(
                "session_close",
                "Close a session and drop its definitions.",
                schema_object(crate::host::declare::args_schema::<SessionCloseInput>()),
            )
            .with_annotations(hints(false, false, true)),
        ]
    }

    /// premath's tools (`--premath-tools`) the principal may use, with
    /// premath's hints: reads, the idempotent init, and mutations.
    fn premath_tools(&self, principal: &Principal) -> Vec<Tool> {
        crate::premath::MCP_TOOLS
            .iter()
            .filter(|t| self.principal_allows(principal, &t.action_id()))
            .map(|tool| {
                let effect = tool.effect;
                let read = effect == crate::premath::Effect::Read;
                Tool::new(
                    tool.name,
                    tool.description,
                    schema_object(tool.input_schema()),
                )
                .with_annotations(hints(
                    read,
                    false,
                    read || effect == crate::premath::Effect::Init,
                ))
            })
            .collect()
    }

    /// One tool per action (`--direct-tools`) the principal may use, by name.
    fn direct_tools(&self, principal: &Principal) -> Vec<Tool> {
        let mut direct: Vec<(&String, &ActionSpec)> = self.inner.direct.iter().collect();
        direct.sort_by(|a, b| a.0.cmp(b.0));
        direct
            .into_iter()
            .filter(|(_, s)| self.principal_allows(principal, &s.id))
            .map(|(name, spec)| {
                let mutation = spec.kind == ActionKind::Mutation;
                Tool::new(
                    name.clone(),
                    format!(
                        "{} ({}) {} Returns the premath.host_effect.v0 envelope; mutations need policyDigest and instructionRef.",
                        spec.description,
                        if mutation { "mutation" } else { "read" },
                        spec.signature()
                    ),
                    schema_object(text::direct_input_schema(spec)),
                )
                .with_annotations(hints(!mutation, mutation, !mutation))
            })
            .collect()
    }

    /// Whether `principal` may bind action `id` at all.
    fn principal_allows(&self, principal: &Principal, id: &str) -> bool {
        let read = self
            .inner
            .specs
            .iter()
            .any(|s| s.id == id && s.kind == ActionKind::Read);
        (!principal.read_only || read)
            && principal
                .actions
                .as_ref()
                .is_none_or(|list| list.iter().any(|a| a == id))
    }

    /// The actions list a run binds: the host's actions the principal may
    /// use, intersected with the call's list; `None` when that is all of
    /// them. An id the host does not offer at all is refused.
    fn effective_actions(
        &self,
        principal: &Principal,
        asked: Option<&[String]>,
    ) -> Result<Option<Vec<String>>, String> {
        if let Some(asked) = asked {
            crate::runtime::check_actions_bound(asked).map_err(|e| {
                format!(
                    "{}: {e}",
                    crate::host::HostClass::RequestFieldTooLarge.as_str()
                )
            })?;
            let offered: BTreeSet<&str> = self.inner.specs.iter().map(|s| s.id.as_str()).collect();
            let unknown: Vec<&str> = asked
                .iter()
                .map(String::as_str)
                .filter(|id| !offered.contains(id))
                .collect();
            if !unknown.is_empty() {
                return Err(format!(
                    "request.unknown_action: the actions list names what this server does not offer: {}",
                    crate::runtime::echoed_ids(&unknown)
                ));
            }
        }
        let all: Vec<String> = self.inner.specs.iter().map(|s| s.id.clone()).collect();
        let bound: Vec<String> = all
            .iter()
            .filter(|id| self.principal_allows(principal, id))
            .filter(|id| asked.is_none_or(|list| list.contains(id)))
            .cloned()
            .collect();
        Ok((bound != all).then_some(bound))
    }

    /// Closes sessions idle longer than the TTL (their workers end with them).
    fn sweep(&self) {
        let ttl = self.inner.options.session_ttl;
        self.close_sessions(|s| s.expired(ttl));
    }

    /// Removes the sessions `doomed` picks; they are dropped outside the
    /// table's lock, since each drop kills a worker.
    fn close_sessions(&self, doomed: impl Fn(&Session) -> bool) {
        let closed: Vec<Arc<Session>> = {
            let mut sessions = self
                .inner
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let ids: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| doomed(s))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        drop(closed);
    }

    /// The session `id` if it exists and belongs to `owner`; another
    /// owner's session is reported exactly like an unknown one.
    fn session(&self, id: &str, owner: &Owner) -> Option<Arc<Session>> {
        self.sweep();
        let sessions = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let session = sessions.get(id).filter(|s| s.owner == *owner).cloned()?;
        session.touch();
        Some(session)
    }

    fn issue_lock(&self, issue: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self
            .inner
            .issue_locks
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        locks.retain(|_, l| Arc::strong_count(l) > 1);
        locks.entry(issue.to_string()).or_default().clone()
    }

    /// Runs one request: waits for its issue (and session), then for a
    /// permit, then runs it on a blocking thread (the program itself runs in
    /// a worker process). A cancel while waiting runs nothing; a cancel
    /// while running stops the run.
    async fn run(
        &self,
        request: Request,
        session: Option<Arc<Session>>,
        call: &CallContext,
    ) -> Result<crate::runtime::RunResult, String> {
        let cancelled =
            || "the request was cancelled before it ran; nothing was recorded".to_string();
        let issue_lock = request.issue_id.as_deref().map(|i| self.issue_lock(i));
        let _issue = match &issue_lock {
            Some(lock) => tokio::select! {
                guard = lock.lock() => Some(guard),
                _ = call.ct.cancelled() => return Err(cancelled()),
            },
            None => None,
        };
        let mut session_turn = match &session {
            Some(s) => tokio::select! {
                guard = s.runs.lock() => Some(guard),
                _ = call.ct.cancelled() => return Err(cancelled()),
            },
            None => None,
        };
        // Only now a permit: a call waiting for its issue's or session's
        // turn never keeps an unrelated one from running.
        let _permit = tokio::select! {
            permit = self.inner.permits.clone().acquire_owned() => permit.map_err(|e| e.to_string())?,
            _ = call.ct.cancelled() => return Err(cancelled()),
        };
        let cancel = CancelToken::new();
        let watcher = {
            let cancel = cancel.clone();
            let ct = call.ct.clone();
            let shutdown = self.inner.shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    _ = ct.cancelled() => {}
                    _ = shutdown.cancelled() => {}
                }
                cancel.cancel();
            })
        };
        let _registered = call
            .owner
            .transport
            .as_ref()
            .map(|_| TransportRun::register(&self.inner, &call.owner, &cancel));
        let hooks = RunHooks {
            cancel: Some(cancel),
            on_call: call.progress.as_ref().map(|p| p.on_call.clone()),
            traceparent: call.traceparent.clone(),
            act_as: call.principal.acting(),
            ..Default::default()
        };
        self.inner.running.fetch_add(1, Ordering::SeqCst);
        let inner = self.inner.clone();
        let result = match session.clone() {
            None => tokio::task::spawn_blocking(move || {
                let _running = Running(&inner);
                inner.host.run(
                    &request,
                    RunOptions {
                        hooks,
                        ..Default::default()
                    },
                )
            })
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("{}: {e}", e.class())),
            Some(session) => {
                let result = tokio::task::spawn_blocking(move || {
                    let _running = Running(&inner);
                    inner.host.run(
                        &request,
                        RunOptions {
                            sandbox: Some(&session.sandbox),
                            mode: EngineMode::Session,
                            session_id: Some(&session.id),
                            hooks,
                        },
                    )
                })
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| format!("{}: {e}", e.class()));
                if let Some(runs) = session_turn.as_mut() {
                    **runs += 1;
                }
                result
            }
        };
        watcher.abort();
        if let Some(s) = &session {
            s.touch();
        }
        result
    }

    /// The request of a `scheme_eval` call: the caller's authority, else its
    /// principal's default; the server's limits as the ceiling.
    fn request(
        &self,
        input: EvalInput,
        session: Option<&Session>,
        principal: &Principal,
    ) -> Result<Request, String> {
        let o = &self.inner.options;
        let ceiling = self.inner.host.config().limits;
        let lower = |asked: Option<u64>, max: u64| Some(asked.map_or(max, |a| a.min(max)));
        let limits = input.limits.map(|l| LimitsOverride {
            timeout_ms: lower(l.timeout_ms, ceiling.timeout_ms),
            max_calls: l.max_calls.map(|c| c.min(ceiling.max_calls)),
            max_memory_mb: lower(l.max_memory_mb, ceiling.max_memory_mb),
            max_output_bytes: lower(l.max_output_bytes, ceiling.max_output_bytes),
            max_value_bytes: lower(l.max_value_bytes, ceiling.max_value_bytes),
            ..Default::default()
        });
        let actions = match session {
            // A session's list was fixed (and checked) when it opened.
            Some(s) => {
                if input.actions.is_some() && input.actions != s.actions {
                    return Err(
                        "request.unknown_action: this session was opened with another actions list; \
                         a session's actions are fixed by session_open"
                            .to_string(),
                    );
                }
                s.actions.clone()
            }
            None => self.effective_actions(principal, input.actions.as_deref())?,
        };
        Ok(Request {
            program: input.program,
            issue_id: input
                .issue_id
                .or_else(|| session.and_then(|s| s.issue_id.clone()))
                .or_else(|| o.issue_id.clone()),
            policy_digest: input
                .policy_digest
                .or_else(|| principal.policy_digest.clone()),
            instruction_ref: input
                .instruction_ref
                .or_else(|| principal.instruction_ref.clone()),
            join_evidence: input.join_evidence.map(Value::Object),
            limits,
            actions,
            // The stdio client is recorded as the local actor (--actor,
            // TUSK_ACTOR, git, the OS user); a token's principal as itself.
            principal: Some(if principal.name == auth::LOCAL {
                self.inner.local_actor.clone()
            } else {
                principal.name.clone()
            }),
            invalid_utf8_at: None,
            capability_claims: None,
            terms: principal.terms(),
            command: None,
            atomic: input.atomic.unwrap_or(o.atomic),
            dry_run: input.dry_run.unwrap_or(false),
            idempotency_key: input.idempotency_key,
        })
    }

    async fn scheme_eval(&self, input: EvalInput, call: &CallContext) -> CallToolResult {
        let session = match &input.session_id {
            None => None,
            Some(sid) => match self.session(sid, &call.owner) {
                Some(s) => Some(s),
                None => return tool_error(format!(
                    "unknown or expired session `{}`: sessions expire after {} s idle and belong to the client that opened them; open one with session_open",
                    shown(sid),
                    self.inner.options.session_ttl.as_secs()
                )),
            },
        };
        let detail = input.detail.unwrap_or_default();
        let request = match self.request(input, session.as_deref(), &call.principal) {
            Ok(r) => r,
            Err(e) => return tool_error(e),
        };
        match self.run(request, session, call).await {
            Ok(result) => {
                let summary = crate::render::summary(&result.json);
                let handled = result.json["handled"] == true;
                let mut out = structured(result_in_detail(result.json, detail), summary);
                // A run that examined every refusal and finished is not
                // an error (issue 56); its result stays `rejected`.
                out.is_error = Some(!result.accepted && !handled);
                out
            }
            Err(e) => tool_error(format!("the request could not be served: {e}")),
        }
    }

    fn describe(&self, input: DescribeInput) -> CallToolResult {
        let query = input.query.map(|q| q.to_lowercase());
        let actions: Vec<Value> = self
            .inner
            .specs
            .iter()
            .filter(|s| input.ids.as_ref().is_none_or(|ids| ids.contains(&s.id)))
            .filter(|s| {
                query.as_ref().is_none_or(|q| {
                    s.id.to_lowercase().contains(q) || s.description.to_lowercase().contains(q)
                })
            })
            .map(ActionSpec::to_json)
            .collect();
        let count = actions.len();
        structured(json!({ "actions": actions }), format!("{count} action(s)"))
    }

    fn session_open(&self, input: SessionOpenInput, call: &CallContext) -> CallToolResult {
        let actions = match self.effective_actions(&call.principal, input.actions.as_deref()) {
            Ok(a) => a,
            Err(e) => return tool_error(e),
        };
        if let Some(issue) = &input.issue_id {
            let max = crate::runtime::field_limit("issueId");
            if issue.len() > max {
                return tool_error(format!(
                    "request.field_too_large: issueId is {} bytes, over its {max}-byte limit",
                    issue.len()
                ));
            }
        }
        let sandbox = match &actions {
            None => self.inner.host.new_sandbox(),
            Some(list) => match self.inner.host.registry_for(Some(list)) {
                Ok(registry) => self
                    .inner
                    .host
                    .sandbox_for(&registry, call.principal.terms().as_ref()),
                Err(e) => return tool_error(format!("{}: {e}", e.class())),
            },
        };
        self.sweep();
        let mut sessions = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if sessions.len() >= self.inner.options.max_sessions {
            return tool_error(format!(
                "the server holds its maximum of {} sessions; close one with session_close",
                self.inner.options.max_sessions
            ));
        }
        let id = new_session_id();
        sessions.insert(
            id.clone(),
            Arc::new(Session {
                id: id.clone(),
                owner: call.owner.clone(),
                issue_id: input.issue_id,
                actions,
                sandbox,
                runs: tokio::sync::Mutex::new(0),
                last_used: Mutex::new(Instant::now()),
            }),
        );
        crate::telemetry::record::sessions(1);
        structured(json!({ "sessionId": id }), format!("session {id} opened"))
    }

    fn session_close(&self, input: SessionCloseInput, call: &CallContext) -> CallToolResult {
        let removed = {
            let mut sessions = self
                .inner
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match sessions.get(&input.session_id) {
                Some(s) if s.owner == call.owner => sessions.remove(&input.session_id),
                _ => None,
            }
        };
        match removed {
            Some(_) => {
                let text = format!("session {} closed", input.session_id);
                structured(
                    json!({ "sessionId": input.session_id, "closed": true }),
                    text,
                )
            }
            None => tool_error(format!(
                "unknown or expired session `{}`",
                shown(&input.session_id)
            )),
        }
    }

    /// One of premath's tools: its arguments mapped to its `premath.<tool>`
    /// action's, the action called once as the program `(host-call
    /// "premath.<tool>" <args>)` (recorded, replayable), and premath's
    /// answer: the payload as pretty JSON, or the refusal's diagnostic as a
    /// tool error.
    ///
    /// Authority for a mutation tool: premath's `instruction_id` is the
    /// request's `instructionRef`, admitted first by premath's rules on its
    /// instruction witness ([`crate::premath::instruction_link`]; refused
    /// before any run, as premath refuses before it writes), the witness's
    /// capability claims are the request's, and the policy digest is the
    /// caller's default (the server's `--policy-digest`, or its token's):
    /// tusk's gate then admits the call as any other mutation. `init_tool`
    /// takes no instruction: it runs on the caller's default authority.
    async fn premath_tool(
        &self,
        tool: &crate::premath::McpTool,
        args: Map<String, Value>,
        call: &CallContext,
    ) -> CallToolResult {
        use crate::premath::Effect;
        let served = self
            .inner
            .host
            .config()
            .paths
            .issues
            .path()
            .display()
            .to_string();
        let crate::premath::ToolArgs {
            args: mut action_args,
            instruction_id,
        } = match tool.action_args(&args, &served) {
            Ok(a) => a,
            Err(e) => return tool_error(e),
        };
        let mut instruction_ref = None;
        let mut claims = None;
        if let Effect::Mutation { action, join } = tool.effect {
            let Some(id) = instruction_id else {
                return tool_error(crate::premath::INSTRUCTION_REQUIRED.into());
            };
            let root = match crate::premath::server_root() {
                Ok(r) => r,
                Err(e) => return tool_error(format!("the server's directory: {e}")),
            };
            let link = match crate::premath::instruction_link(&root, &id, action, join) {
                Ok(l) => l,
                Err(e) => return tool_error(e),
            };
            action_args.insert("instruction".into(), json!(link.json.to_string()));
            claims = Some(link.claims);
            instruction_ref = Some(id);
        }
        if tool.effect == Effect::Init {
            let absent = crate::premath::server_root().is_ok_and(|r| !r.join(".premath").exists());
            action_args.insert("layoutAbsent".into(), json!(absent));
        }
        let id = tool.action_id();
        let input = EvalInput {
            program: format!(
                "(host-call \"{id}\" {})",
                text::scheme_literal(&Value::Object(action_args))
            ),
            session_id: None,
            issue_id: None,
            policy_digest: None,
            instruction_ref,
            join_evidence: None,
            actions: Some(vec![id]),
            limits: None,
            detail: None,
            // One call: atomic already, and answered as its action's.
            atomic: Some(false),
            dry_run: None,
            idempotency_key: None,
        };
        let mut request = match self.request(input, None, &call.principal) {
            Ok(r) => r,
            Err(e) => return tool_error(e),
        };
        request.capability_claims = claims;
        match self.run(request, None, call).await {
            Ok(result) => {
                let envelope = &result.json["effects"][0];
                if envelope["resultClass"] == "accepted" {
                    let text = crate::canonical::to_pretty_sorted(&envelope["payload"]);
                    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
                    out.is_error = Some(false);
                    out
                } else {
                    let diagnostic = envelope["payload"]["diagnostic"]
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| crate::render::summary(&result.json));
                    tool_error(diagnostic)
                }
            }
            Err(e) => tool_error(format!("the request could not be served: {e}")),
        }
    }

    /// A direct tool: the action called once, as the program
    /// `(host-call "<id>" <args>)`, so it passes the same gate and leaves the
    /// same records as any program (and replays).
    async fn direct(
        &self,
        spec: &ActionSpec,
        mut args: Map<String, Value>,
        call: &CallContext,
    ) -> CallToolResult {
        let mut take = |key: &str| -> Result<Option<String>, String> {
            match args.remove(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(format!("invalid arguments: `{key}` must be a string")),
            }
        };
        let (policy_digest, instruction_ref, issue_id) = match (
            take("policyDigest"),
            take("instructionRef"),
            take("issueId"),
        ) {
            (Ok(p), Ok(i), Ok(s)) => (p, i, s),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return tool_error(e),
        };
        let program = format!(
            "(host-call \"{}\" {})",
            spec.id,
            text::scheme_literal(&Value::Object(args))
        );
        let input = EvalInput {
            program,
            session_id: None,
            issue_id,
            policy_digest,
            instruction_ref,
            join_evidence: None,
            actions: Some(vec![spec.id.clone()]),
            limits: None,
            detail: None,
            // One call: atomic already, and answered as its action's.
            atomic: Some(false),
            dry_run: None,
            idempotency_key: None,
        };
        let request = match self.request(input, None, &call.principal) {
            Ok(r) => r,
            Err(e) => return tool_error(e),
        };
        match self.run(request, None, call).await {
            Ok(result) => match result.json["effects"].get(0).cloned() {
                Some(envelope) => {
                    let accepted = envelope["resultClass"] == "accepted";
                    let line = crate::repl::format::effect_line(&envelope);
                    let mut out = structured(envelope, line);
                    out.is_error = Some(!accepted);
                    out
                }
                None => {
                    let summary = crate::render::summary(&result.json);
                    let mut out = structured(result.json, summary);
                    out.is_error = Some(true);
                    out
                }
            },
            Err(e) => tool_error(format!("the request could not be served: {e}")),
        }
    }

    /// The principal and session owner of a request, from the transport:
    /// stdio calls are the local principal; HTTP calls carry theirs (put
    /// there by the token layer) or are anonymous.
    fn caller(&self, context: &RequestContext<RoleServer>) -> (Arc<Principal>, Owner) {
        match context.extensions.get::<::http::request::Parts>() {
            None => (
                self.inner.local.clone(),
                Owner {
                    principal: auth::LOCAL.to_string(),
                    transport: None,
                },
            ),
            Some(parts) => {
                let principal = parts
                    .extensions
                    .get::<Arc<Principal>>()
                    .cloned()
                    .unwrap_or_else(|| self.inner.anonymous.clone());
                let transport = parts
                    .headers
                    .get("mcp-session-id")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                let owner = Owner {
                    principal: principal.name.clone(),
                    transport,
                };
                (principal, owner)
            }
        }
    }

    /// Ends an HTTP transport session for `principal` (the caller of the
    /// DELETE; `None` without `--auth`): the runs it has in progress are
    /// stopped and the tusk sessions it opened are closed. Another
    /// principal's runs under the same transport id are left alone.
    pub fn end_transport(&self, transport: &str, principal: Option<&str>) {
        let owner = Owner {
            principal: principal.unwrap_or(auth::ANONYMOUS).to_string(),
            transport: Some(transport.to_string()),
        };
        let runs = self
            .inner
            .transport_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&owner)
            .unwrap_or_default();
        for (_, cancel) in runs {
            cancel.cancel();
        }
        self.close_sessions(|s| s.owner == owner);
    }

    /// Cancelled when the server's client is gone or the server stops.
    pub fn shutdown_token(&self) -> tokio_util::sync::CancellationToken {
        self.inner.shutdown.clone()
    }

    /// Waits (up to `limit`) for the runs in progress to write their footers.
    pub async fn drain(&self, limit: Duration) {
        let until = Instant::now() + limit;
        while self.inner.running.load(Ordering::SeqCst) > 0 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The server's housekeeping, until the runtime stops: expired sessions
    /// (and their workers) end at expiry, not at the next call; the heap
    /// freed by large results goes back to the operating system.
    pub fn spawn_housekeeping(&self) {
        let server = self.clone();
        let tick = (self.inner.options.session_ttl / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(5));
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(tick.min(Duration::from_millis(500)));
            let mut since_sweep = Duration::ZERO;
            loop {
                interval.tick().await;
                since_sweep += interval.period();
                if since_sweep >= tick {
                    since_sweep = Duration::ZERO;
                    let server = server.clone();
                    let _ = tokio::task::spawn_blocking(move || server.sweep()).await;
                }
                if server.inner.running.load(Ordering::SeqCst) == 0
                    && server.inner.trim_due.swap(false, Ordering::SeqCst)
                {
                    trim_heap();
                }
            }
        });
    }
}

/// A run registered under its HTTP transport session while it runs.
struct TransportRun<'a> {
    inner: &'a Inner,
    owner: Owner,
    id: u64,
}

impl<'a> TransportRun<'a> {
    fn register(inner: &'a Inner, owner: &Owner, cancel: &CancelToken) -> Self {
        let id = inner.next_run.fetch_add(1, Ordering::SeqCst);
        inner
            .transport_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(owner.clone())
            .or_default()
            .push((id, cancel.clone()));
        Self {
            inner,
            owner: owner.clone(),
            id,
        }
    }
}

impl Drop for TransportRun<'_> {
    fn drop(&mut self) {
        let mut runs = self
            .inner
            .transport_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(list) = runs.get_mut(&self.owner) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                runs.remove(&self.owner);
            }
        }
    }
}

/// Makes a long-lived server's large allocations give their memory back
/// when freed: glibc serves a block of 128 KiB or more with its own mapping,
/// unmapped on free, but raises that threshold to the size of each such
/// block freed, so after one 6 MB result the next ones come from the heap,
/// whose pages a trim cannot always return (a server of 14 MiB idle stayed
/// at 56 MiB). A fixed threshold keeps large results on their own mappings.
pub fn keep_large_allocations_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tuning.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Returns freed heap to the operating system, so a server's resident size
/// comes back down after large results instead of staying at its peak.
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// What one tool call brings besides its arguments.
struct CallContext {
    principal: Arc<Principal>,
    owner: Owner,
    /// Cancelled by `notifications/cancelled`, a disconnect, or the end of
    /// the HTTP transport session.
    ct: tokio_util::sync::CancellationToken,
    /// Sends a progress notification per host call, when the request asked.
    progress: Option<Progress>,
    /// The request's `_meta.traceparent` and `tracestate` (W3C trace context).
    traceparent: Option<(String, Option<String>)>,
}

/// A caller-supplied name as an error message shows it: at most 128 bytes.
fn shown(text: &str) -> String {
    if text.len() <= 128 {
        return text.to_string();
    }
    let mut end = 128;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

fn tool_error(message: String) -> CallToolResult {
    let mut out = CallToolResult::error(vec![ContentBlock::text(message)]);
    out.is_error = Some(true);
    out
}

/// Parses a tool's arguments into its input type; a mismatch is a tool
/// error the caller can read (not a protocol error), with every bad key
/// named at once.
fn parse<T: serde::de::DeserializeOwned + JsonSchema + 'static>(
    args: Option<Map<String, Value>>,
) -> Result<T, String> {
    let value = Value::Object(args.unwrap_or_default());
    let schema = input_schema::<T>();
    let value = crate::host::registry::validate_args(&schema, Some(&value))
        .map_err(|e| format!("invalid arguments: {e}"))?;
    serde_json::from_value(value).map_err(|e| format!("invalid arguments: {e}"))
}

/// A tool input's schema, derived once per process (deriving it took a
/// tenth of a warm `scheme_eval` round trip).
fn input_schema<T: JsonSchema + 'static>() -> Arc<Value> {
    type Schemas = Mutex<HashMap<std::any::TypeId, Arc<Value>>>;
    static SCHEMAS: std::sync::OnceLock<Schemas> = std::sync::OnceLock::new();
    let schemas = SCHEMAS.get_or_init(Schemas::default);
    let mut schemas = schemas.lock().unwrap_or_else(|e| e.into_inner());
    schemas
        .entry(std::any::TypeId::of::<T>())
        .or_insert_with(|| Arc::new(crate::host::declare::args_schema::<T>()))
        .clone()
}

/// A request's progress notifications: one per host call (`progress` =
/// calls so far; the message names the action and its result class), sent
/// in order from one task.
struct Progress {
    on_call: crate::runtime::OnCall,
    queue: tokio::sync::mpsc::UnboundedSender<ProgressItem>,
}

enum ProgressItem {
    Call(CallProgress),
    /// Answered once every notification before it has been sent.
    Flush(tokio::sync::oneshot::Sender<()>),
}

impl Progress {
    /// Waits until every notification of the calls so far is sent: the
    /// result must follow them, or a client that drops a request's progress
    /// once it has its answer would miss the last ones.
    async fn flushed(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.queue.send(ProgressItem::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// The progress of a request that asked for it (a progress token).
fn progress_listener(context: &RequestContext<RoleServer>) -> Option<Progress> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressItem>();
    tokio::spawn(async move {
        let mut open = true;
        while let Some(item) = rx.recv().await {
            match item {
                ProgressItem::Call(p) if open => {
                    let note = ProgressNotificationParam::new(token.clone(), p.seq as f64)
                        .with_message(format!("call {} {} → {}", p.seq, p.action, p.result_class));
                    // A peer that is gone gets no more; flushes still answer.
                    open = peer.notify_progress(note).await.is_ok();
                }
                ProgressItem::Call(_) => {}
                ProgressItem::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    });
    let queue = tx.clone();
    Some(Progress {
        on_call: Arc::new(move |p: CallProgress| {
            let _ = tx.send(ProgressItem::Call(p));
        }),
        queue,
    })
}

impl ServerHandler for TuskServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        );
        info.server_info.name = "tusk".into();
        info.server_info.version = env!("CARGO_PKG_VERSION").into();
        info.instructions = Some(
            "Act on the shared issue queue by running bounded Scheme programs with scheme_eval; \
             host functions are the only effects and each returns a typed envelope. \
             describe_actions gives full schemas."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (principal, _) = self.caller(&context);
        Ok(ListToolsResult::with_all_items(self.tools_for(&principal)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (principal, owner) = self.caller(&context);
        let call = CallContext {
            principal,
            owner,
            ct: context.ct.clone(),
            progress: progress_listener(&context),
            traceparent: context.meta.0.get_traceparent().map(|parent| {
                (
                    parent.to_string(),
                    context.meta.0.get_tracestate().map(str::to_string),
                )
            }),
        };
        let result = match request.name.as_ref() {
            "scheme_eval" => match parse::<EvalInput>(request.arguments) {
                Ok(input) => self.scheme_eval(input, &call).await,
                Err(e) => tool_error(e),
            },
            "describe_actions" => match parse::<DescribeInput>(request.arguments) {
                Ok(input) => self.describe(input),
                Err(e) => tool_error(e),
            },
            "session_open" => match parse::<SessionOpenInput>(request.arguments) {
                Ok(input) => self.session_open(input, &call),
                Err(e) => tool_error(e),
            },
            "session_close" => match parse::<SessionCloseInput>(request.arguments) {
                Ok(input) => self.session_close(input, &call),
                Err(e) => tool_error(e),
            },
            name if self.inner.options.premath_tools
                && crate::premath::MCP_TOOLS.iter().any(|t| t.name == name) =>
            {
                let tool = crate::premath::MCP_TOOLS
                    .iter()
                    .find(|t| t.name == name)
                    .expect("listed");
                self.premath_tool(tool, request.arguments.unwrap_or_default(), &call)
                    .await
            }
            name => match self
                .inner
                .direct
                .get(name)
                .filter(|spec| self.principal_allows(&call.principal, &spec.id))
            {
                Some(spec) => {
                    let spec = spec.clone();
                    self.direct(&spec, request.arguments.unwrap_or_default(), &call)
                        .await
                }
                None => {
                    return Err(ErrorData::invalid_params(
                        format!("no tool `{}`", shown(name)),
                        None,
                    ))
                }
            },
        };
        if let Some(progress) = &call.progress {
            progress.flushed().await;
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new("tusk://actions", "actions")
                .with_description("The host action catalogue: every action's declaration")
                .with_mime_type("application/json"),
            Resource::new("tusk://prelude", "prelude")
                .with_description("The Scheme prelude every program sees")
                .with_mime_type("text/x-scheme"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = match request.uri.as_str() {
            "tusk://actions" => {
                let specs: Vec<Value> = self.inner.specs.iter().map(ActionSpec::to_json).collect();
                ResourceContents::text(
                    crate::canonical::to_pretty_sorted(&Value::Array(specs)),
                    "tusk://actions",
                )
                .with_mime_type("application/json")
            }
            "tusk://prelude" => {
                ResourceContents::text(crate::sandbox::prelude_source(), "tusk://prelude")
                    .with_mime_type("text/x-scheme")
            }
            other => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource `{}`", shown(other)),
                    None,
                ))
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Serves MCP on stdin/stdout until the client goes away; then waits for
/// the runs the disconnect interrupted to write their footers.
///
/// # Errors
/// The transport failed.
pub async fn serve_stdio(server: TuskServer) -> Result<(), String> {
    stdio::serve(server).await
}

/// A tool result with `value` as its structured content and `text` as its
/// text. Not rmcp's `CallToolResult::structured`, which also serializes the
/// value as text: a whole run result (27 KB for a ready queue of 365 issues)
/// written only to be replaced.
fn structured(value: Value, text: String) -> CallToolResult {
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = Some(value);
    out
}
