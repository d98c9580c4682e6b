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
//! form at a time.

mod text;

use crate::host::ActionSpec;
use crate::runtime::{Host, Request, RunHooks};
use crate::sandbox::{EngineMode, LimitsOverride, Sandbox};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How a server is set up (the flags of `tusk mcp`).
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Authority used when a call carries none.
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
    pub issue_id: Option<String>,
    /// Expose each host action as a tool of its own too.
    pub direct_tools: bool,
    /// Idle sessions are closed after this long.
    pub session_ttl: Duration,
    pub max_sessions: usize,
    /// Runs served at once.
    pub max_concurrency: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            policy_digest: None,
            instruction_ref: None,
            issue_id: None,
            direct_tools: false,
            session_ttl: Duration::from_secs(1800),
            max_sessions: 64,
            max_concurrency: 8,
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
    /// Lower limits for this run (the server's are the ceiling).
    pub limits: Option<EvalLimits>,
}

/// Per-run limits a call may lower.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalLimits {
    pub timeout_ms: Option<u64>,
    pub max_calls: Option<u32>,
    pub max_memory_mb: Option<u64>,
    pub max_output_bytes: Option<u64>,
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
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionCloseInput {
    pub session_id: String,
}

/// One client session: a sandbox whose session worker keeps definitions.
struct Session {
    id: String,
    issue_id: Option<String>,
    sandbox: Sandbox,
    /// Runs so far; held while a form runs (a session runs one at a time).
    runs: tokio::sync::Mutex<u64>,
    last_used: Mutex<Instant>,
}

/// The server: a host, its sessions, and the locks that keep runs apart.
#[derive(Clone)]
pub struct TuskServer {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<Host>,
    options: ServerOptions,
    tools: Vec<Tool>,
    direct: HashMap<String, ActionSpec>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    permits: Arc<tokio::sync::Semaphore>,
    issue_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

fn schema_object(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(Map::new()),
    }
}

impl TuskServer {
    pub fn new(host: Host, options: ServerOptions) -> Self {
        let specs: Vec<ActionSpec> = host.config().registry.specs().cloned().collect();
        let mut tools = vec![
            Tool::new(
                "scheme_eval",
                text::eval_description(&specs),
                schema_object(crate::host::declare::args_schema::<EvalInput>()),
            )
            .with_raw_output_schema(schema_object(text::result_schema())),
            Tool::new(
                "describe_actions",
                "Describe host actions: kind, one-line description, JSON Schemas of the \
                 arguments and the payload, failure classes and an example call. Give `ids`, \
                 or a `query` word, or nothing for all.",
                schema_object(crate::host::declare::args_schema::<DescribeInput>()),
            ),
            Tool::new(
                "session_open",
                "Open a session: scheme_eval calls that name its sessionId run in one \
                 engine, so definitions persist between them (a REPL). Idle sessions expire.",
                schema_object(crate::host::declare::args_schema::<SessionOpenInput>()),
            ),
            Tool::new(
                "session_close",
                "Close a session and drop its definitions.",
                schema_object(crate::host::declare::args_schema::<SessionCloseInput>()),
            ),
        ];
        let mut direct = HashMap::new();
        if options.direct_tools {
            for spec in &specs {
                let name = spec.id.replace('.', "_");
                tools.push(Tool::new(
                    name.clone(),
                    format!(
                        "{} ({}) {} Returns the premath.host_effect.v0 envelope; mutations need policyDigest and instructionRef.",
                        spec.description,
                        if spec.kind == crate::host::ActionKind::Mutation { "mutation" } else { "read" },
                        spec.signature()
                    ),
                    schema_object(text::direct_input_schema(spec)),
                ));
                direct.insert(name, spec.clone());
            }
        }
        let permits = Arc::new(tokio::sync::Semaphore::new(options.max_concurrency.max(1)));
        Self {
            inner: Arc::new(Inner {
                host: Arc::new(host),
                options,
                tools,
                direct,
                sessions: Mutex::new(HashMap::new()),
                permits,
                issue_locks: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The generated description of `scheme_eval` (for the size check).
    pub fn eval_description(&self) -> String {
        self.inner.tools[0]
            .description
            .as_deref()
            .unwrap_or_default()
            .to_string()
    }

    /// Closes sessions idle longer than the TTL.
    fn sweep(&self) {
        let ttl = self.inner.options.session_ttl;
        let mut sessions = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sessions.retain(|_, s| {
            s.last_used
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .elapsed()
                < ttl
        });
    }

    fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sweep();
        let sessions = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let session = sessions.get(id).cloned()?;
        *session.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
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

    /// Runs one request: waits for a permit and for its issue, then runs it
    /// on a blocking thread (the program itself runs in a worker process).
    async fn run(
        &self,
        request: Request,
        session: Option<Arc<Session>>,
    ) -> Result<crate::runtime::RunResult, String> {
        let _permit = self
            .inner
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| e.to_string())?;
        let issue_lock = request.issue_id.as_deref().map(|i| self.issue_lock(i));
        let _issue = match &issue_lock {
            Some(lock) => Some(lock.lock().await),
            None => None,
        };
        let host = self.inner.host.clone();
        match session {
            None => tokio::task::spawn_blocking(move || host.eval(&request))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string()),
            Some(session) => {
                let mut runs = session.runs.lock().await;
                let sid = session.id.clone();
                let session2 = session.clone();
                let result = tokio::task::spawn_blocking(move || {
                    host.eval_on(
                        &session2.sandbox,
                        &request,
                        EngineMode::Session,
                        Some(&sid),
                        RunHooks::default(),
                    )
                })
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
                *runs += 1;
                Ok(result)
            }
        }
    }

    /// The request of a `scheme_eval` call, with the server's defaults and
    /// its limits as the ceiling.
    fn request(&self, input: EvalInput, session: Option<&Session>) -> Request {
        let o = &self.inner.options;
        let ceiling = self.inner.host.config().limits;
        let lower = |asked: Option<u64>, max: u64| Some(asked.map_or(max, |a| a.min(max)));
        let limits = input.limits.map(|l| LimitsOverride {
            timeout_ms: lower(l.timeout_ms, ceiling.timeout_ms),
            max_calls: l.max_calls.map(|c| c.min(ceiling.max_calls)),
            max_memory_mb: lower(l.max_memory_mb, ceiling.max_memory_mb),
            max_output_bytes: lower(l.max_output_bytes, ceiling.max_output_bytes),
            ..Default::default()
        });
        Request {
            program: input.program,
            issue_id: input
                .issue_id
                .or_else(|| session.and_then(|s| s.issue_id.clone()))
                .or_else(|| o.issue_id.clone()),
            policy_digest: input.policy_digest.or_else(|| o.policy_digest.clone()),
            instruction_ref: input.instruction_ref.or_else(|| o.instruction_ref.clone()),
            join_evidence: input.join_evidence.map(Value::Object),
            limits,
            invalid_utf8_at: None,
        }
    }

    async fn scheme_eval(&self, input: EvalInput) -> CallToolResult {
        let session = match &input.session_id {
            None => None,
            Some(sid) => match self.session(sid) {
                Some(s) => Some(s),
                None => return tool_error(format!(
                    "unknown or expired session `{sid}`: sessions expire after {} s idle; open one with session_open",
                    self.inner.options.session_ttl.as_secs()
                )),
            },
        };
        let request = self.request(input, session.as_deref());
        match self.run(request, session).await {
            Ok(result) => {
                let summary = crate::cli::eval::summary(&result.json);
                let mut out = CallToolResult::structured(result.json);
                out.content = vec![ContentBlock::text(summary)];
                out.is_error = Some(!result.accepted);
                out
            }
            Err(e) => tool_error(format!("the request could not be served: {e}")),
        }
    }

    fn describe(&self, input: DescribeInput) -> CallToolResult {
        let query = input.query.map(|q| q.to_lowercase());
        let actions: Vec<Value> = self
            .inner
            .host
            .config()
            .registry
            .specs()
            .filter(|s| input.ids.as_ref().is_none_or(|ids| ids.contains(&s.id)))
            .filter(|s| {
                query.as_ref().is_none_or(|q| {
                    s.id.to_lowercase().contains(q) || s.description.to_lowercase().contains(q)
                })
            })
            .map(ActionSpec::to_json)
            .collect();
        let count = actions.len();
        let mut out = CallToolResult::structured(json!({ "actions": actions }));
        out.content = vec![ContentBlock::text(format!("{count} action(s)"))];
        out
    }

    fn session_open(&self, input: SessionOpenInput) -> CallToolResult {
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
        let id = crate::repl::new_session_id(chrono::Utc::now());
        sessions.insert(
            id.clone(),
            Arc::new(Session {
                id: id.clone(),
                issue_id: input.issue_id,
                sandbox: self.inner.host.new_sandbox(),
                runs: tokio::sync::Mutex::new(0),
                last_used: Mutex::new(Instant::now()),
            }),
        );
        let mut out = CallToolResult::structured(json!({ "sessionId": id }));
        out.content = vec![ContentBlock::text(format!("session {id} opened"))];
        out
    }

    fn session_close(&self, input: SessionCloseInput) -> CallToolResult {
        let removed = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&input.session_id);
        match removed {
            Some(_) => {
                let mut out = CallToolResult::structured(
                    json!({ "sessionId": input.session_id, "closed": true }),
                );
                out.content = vec![ContentBlock::text(format!(
                    "session {} closed",
                    input.session_id
                ))];
                out
            }
            None => tool_error(format!("unknown or expired session `{}`", input.session_id)),
        }
    }

    /// A direct tool: the action called once, as the program
    /// `(host-call "<id>" <args>)`, so it passes the same gate and leaves the
    /// same records as any program (and replays).
    async fn direct(&self, spec: &ActionSpec, mut args: Map<String, Value>) -> CallToolResult {
        let take = |args: &mut Map<String, Value>, key: &str| {
            args.remove(key)
                .and_then(|v| v.as_str().map(str::to_string))
        };
        let policy_digest = take(&mut args, "policyDigest");
        let instruction_ref = take(&mut args, "instructionRef");
        let issue_id = take(&mut args, "issueId");
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
            limits: None,
        };
        let request = self.request(input, None);
        match self.run(request, None).await {
            Ok(result) => match result.json["effects"].get(0).cloned() {
                Some(envelope) => {
                    let accepted = envelope["resultClass"] == "accepted";
                    let line = crate::repl::format::effect_line(&envelope);
                    let mut out = CallToolResult::structured(envelope);
                    out.content = vec![ContentBlock::text(line)];
                    out.is_error = Some(!accepted);
                    out
                }
                None => {
                    let summary = crate::cli::eval::summary(&result.json);
                    let mut out = CallToolResult::structured(result.json);
                    out.content = vec![ContentBlock::text(summary)];
                    out.is_error = Some(true);
                    out
                }
            },
            Err(e) => tool_error(format!("the request could not be served: {e}")),
        }
    }
}

fn tool_error(message: String) -> CallToolResult {
    let mut out = CallToolResult::error(vec![ContentBlock::text(message)]);
    out.is_error = Some(true);
    out
}

/// Parses a tool's arguments into its input type; a mismatch is a tool
/// error the caller can read (not a protocol error), with every bad key
/// named at once.
fn parse<T: serde::de::DeserializeOwned + JsonSchema>(
    args: Option<Map<String, Value>>,
) -> Result<T, String> {
    let value = Value::Object(args.unwrap_or_default());
    let schema = crate::host::declare::args_schema::<T>();
    let value = crate::host::registry::validate_args(&schema, Some(&value))
        .map_err(|e| format!("invalid arguments: {e}"))?;
    serde_json::from_value(value).map_err(|e| format!("invalid arguments: {e}"))
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            "scheme_eval" => match parse::<EvalInput>(request.arguments) {
                Ok(input) => self.scheme_eval(input).await,
                Err(e) => tool_error(e),
            },
            "describe_actions" => match parse::<DescribeInput>(request.arguments) {
                Ok(input) => self.describe(input),
                Err(e) => tool_error(e),
            },
            "session_open" => match parse::<SessionOpenInput>(request.arguments) {
                Ok(input) => self.session_open(input),
                Err(e) => tool_error(e),
            },
            "session_close" => match parse::<SessionCloseInput>(request.arguments) {
                Ok(input) => self.session_close(input),
                Err(e) => tool_error(e),
            },
            name => match self.inner.direct.get(name) {
                Some(spec) => {
                    let spec = spec.clone();
                    self.direct(&spec, request.arguments.unwrap_or_default())
                        .await
                }
                None => return Err(ErrorData::invalid_params(format!("no tool `{name}`"), None)),
            },
        };
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
                let specs: Vec<Value> = self
                    .inner
                    .host
                    .config()
                    .registry
                    .specs()
                    .map(ActionSpec::to_json)
                    .collect();
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
                    format!("no resource `{other}`"),
                    None,
                ))
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Serves MCP over streamable HTTP at `addr` (path `/mcp`) until Ctrl-C.
/// `allow_remote` lets a non-loopback address be bound and any `Host`
/// header through; otherwise only loopback is served.
///
/// # Errors
/// The address cannot be bound, or is not loopback without `allow_remote`.
pub async fn serve_http(
    server: TuskServer,
    addr: std::net::SocketAddr,
    allow_remote: bool,
) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(format!(
            "{addr} is not a loopback address; pass --allow-remote to serve other hosts"
        ));
    }
    let mut config = StreamableHttpServerConfig::default();
    if allow_remote {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("tusk mcp: serving streamable HTTP at http://{bound}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}

/// Serves MCP on stdin/stdout until the client goes away.
///
/// # Errors
/// The transport failed.
pub async fn serve_stdio(server: TuskServer) -> Result<(), String> {
    use rmcp::ServiceExt;
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}
