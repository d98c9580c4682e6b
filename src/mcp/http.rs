//! `tusk mcp --http`: streamable HTTP at `/mcp`, with the hygiene a shared
//! server needs: bearer tokens (`--auth`), `Origin` validation, the shared
//! connection layer (`crate::serve`: per-phase deadlines, eviction at the
//! connection cap), and transport sessions that belong to their principal.
//!
//! Transport-session rules (docs/sandbox.md, "The HTTP layer"):
//! - the principal that opens a transport session owns it: a request naming
//!   it from another principal is answered exactly as an unknown id is
//!   (404), so a stolen id can neither be ended, nor cancelled into, nor
//!   used;
//! - a principal holds at most `per_principal_sessions`: opening one more
//!   ends its own least used one (a never-used one first);
//! - at the server's cap, an initialize ends the oldest never-used session
//!   of any principal (a flood of initializes evicts itself), else is 503;
//! - a principal holds at most `per_principal_streams` event streams
//!   (`GET /mcp`); one more is 429;
//! - a DELETE that ends a session is 200 (clients expect 200 or 204).

use super::auth;
use super::tokens::LiveTokens;
use super::TuskServer;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How `tusk mcp --http` serves.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bind a non-loopback address and accept any `Host` header.
    pub allow_remote: bool,
    /// Bearer tokens, taken live from their file; required on a
    /// non-loopback address.
    pub tokens: Option<Arc<LiveTokens>>,
    /// Browser origins allowed besides the loopback ones (`Origin` present
    /// and not listed: 403).
    pub allowed_origins: Vec<String>,
    /// The connection layer's bounds (connections, per-phase deadlines).
    pub hygiene: crate::serve::Hygiene,
    /// Transport sessions (`Mcp-Session-Id`) at once.
    pub max_transport_sessions: usize,
    /// Transport sessions one principal holds at once.
    pub per_principal_sessions: usize,
    /// Event streams (`GET /mcp`) one principal holds at once.
    pub per_principal_streams: usize,
    /// A transport session idle this long is closed.
    pub transport_idle: Duration,
}

impl HttpOptions {
    /// Defaults for `addr`.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            allow_remote: false,
            tokens: None,
            allowed_origins: Vec::new(),
            hygiene: crate::serve::Hygiene::default(),
            max_transport_sessions: 256,
            per_principal_sessions: 32,
            per_principal_streams: 16,
            transport_idle: Duration::from_secs(300),
        }
    }
}

/// Serves MCP over streamable HTTP at `options.addr` (path `/mcp`) until
/// Ctrl-C.
///
/// # Errors
/// The address cannot be bound, or is not loopback without `allow_remote`,
/// or is not loopback without tokens.
pub async fn serve_http(server: TuskServer, options: HttpOptions) -> Result<(), String> {
    let addr = options.addr;
    check_address(&options)?;
    server.spawn_housekeeping();
    let router = mcp_router(&server, &options);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("tusk mcp: serving streamable HTTP at http://{bound}/mcp");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    crate::serve::serve(listener, router, options.hygiene, shutdown).await;
    server.shutdown_token().cancel();
    server.drain(Duration::from_secs(5)).await;
    Ok(())
}

/// A non-loopback address needs `allow_remote` and tokens.
fn check_address(options: &HttpOptions) -> Result<(), String> {
    let addr = options.addr;
    if !addr.ip().is_loopback() && !options.allow_remote {
        return Err(format!(
            "{addr} is not a loopback address; pass --allow-remote to serve other hosts"
        ));
    }
    if !addr.ip().is_loopback() && options.tokens.is_none() {
        return Err(format!(
            "{addr} is not a loopback address: a remote server needs --auth FILE (bearer tokens), \
             or anyone who reaches the port could act on the queue"
        ));
    }
    Ok(())
}

/// `/mcp` with its hygiene: origins, transport sessions owned and capped,
/// ending a transport session's runs, and tokens when given.
fn mcp_router(server: &TuskServer, options: &HttpOptions) -> axum::Router {
    let mut config = StreamableHttpServerConfig::default();
    if options.allow_remote {
        config = config.disable_allowed_hosts();
    }
    // MCP transport spec: validate Origin (DNS rebinding). Requests without
    // one (non-browser clients) pass; a browser's must be listed.
    let origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_string)
        .chain(options.allowed_origins.iter().cloned())
        .collect();
    config = config
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.transport_idle);
    let manager = Arc::new(manager);
    let mcp_server = server.clone();
    let service =
        StreamableHttpService::new(move || Ok(mcp_server.clone()), manager.clone(), config);
    let sessions = Arc::new(TransportSessions {
        manager,
        server: server.clone(),
        held: Mutex::new(HashMap::new()),
        streams: Mutex::new(HashMap::new()),
        max: options.max_transport_sessions.max(1),
        per_principal: options.per_principal_sessions.max(1),
        per_principal_streams: options.per_principal_streams.max(1),
    });
    // Outermost last: tokens, then ownership and caps, then DELETE's end.
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(
            server.clone(),
            end_transport_session,
        ))
        .layer(axum::middleware::from_fn_with_state(
            sessions.clone(),
            guard_transport_sessions,
        ));
    if let Some(tokens) = options.tokens.clone() {
        watch_tokens(tokens.clone(), sessions);
        router = router.layer(axum::middleware::from_fn_with_state(
            tokens,
            auth::require_token,
        ));
    }
    router
}

/// Looks at the token file every [`super::tokens::WATCH_EVERY`]: a change
/// is taken at once, and a principal whose token was revoked or changed has
/// its transport sessions ended (its next request is 401).
fn watch_tokens(tokens: Arc<LiveTokens>, sessions: Arc<TransportSessions>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(super::tokens::WATCH_EVERY);
        loop {
            tick.tick().await;
            let t = tokens.clone();
            let ended = tokio::task::spawn_blocking(move || t.refresh())
                .await
                .unwrap_or_default();
            for principal in ended {
                sessions.end_principal(&principal).await;
            }
        }
    });
}

/// A DELETE of a transport session stops its runs at once (the MCP service
/// would let them finish first) and closes the tusk sessions it opened.
async fn end_transport_session(
    axum::extract::State(server): axum::extract::State<TuskServer>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.method() == http::Method::DELETE {
        if let Some(sid) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            // The token layer sits outside this one: only an admitted caller
            // gets here, with its principal.
            let principal = request
                .extensions()
                .get::<Arc<super::Principal>>()
                .map(|p| p.name.clone());
            server.end_transport(sid, principal.as_deref());
        }
    }
    next.run(request).await
}

/// Largest body looked into when deciding whether a request opens a session.
const PEEK_LIMIT: usize = 4 * 1024 * 1024;

/// The transport sessions this server's principals hold, and their open
/// event streams.
struct TransportSessions {
    manager: Arc<LocalSessionManager>,
    server: TuskServer,
    held: Mutex<HashMap<String, Held>>,
    /// Open `GET /mcp` streams by principal.
    streams: Mutex<HashMap<String, usize>>,
    max: usize,
    per_principal: usize,
    per_principal_streams: usize,
}

/// One transport session: whose, and how it has been used.
struct Held {
    principal: String,
    opened: Instant,
    last_used: Instant,
    /// POSTs after the initialize (the handshake's `initialized` is one).
    posts: u32,
}

impl Held {
    /// No request beyond the handshake.
    fn never_used(&self) -> bool {
        self.posts <= 1
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What rmcp answers for an unknown transport session, byte for byte: a
/// session of another principal must look the same.
fn unknown_session() -> axum::response::Response {
    axum::response::Response::builder()
        .status(http::StatusCode::NOT_FOUND)
        .body(axum::body::Body::from("Not Found: Session not found"))
        .unwrap_or_default()
}

fn refused(status: http::StatusCode, message: &str) -> axum::response::Response {
    axum::response::Response::builder()
        .status(status)
        .header(http::header::RETRY_AFTER, "1")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(axum::body::Body::from(
            serde_json::json!({"error": "busy", "message": message}).to_string(),
        ))
        .unwrap_or_default()
}

impl TransportSessions {
    /// Forgets sessions the manager no longer has (expired, closed).
    async fn prune(&self) {
        let live = self.manager.sessions.read().await;
        locked(&self.held).retain(|sid, _| live.contains_key(sid.as_str()));
    }

    /// Ends a session: its runs stop, its tusk sessions close.
    async fn end(&self, sid: String, principal: &str) {
        locked(&self.held).remove(&sid);
        self.server.end_transport(&sid, Some(principal));
        let _ = self.manager.close_session(&sid.clone().into()).await;
    }

    /// Ends every session `principal` holds (its token was revoked).
    async fn end_principal(&self, principal: &str) {
        let sids: Vec<String> = locked(&self.held)
            .iter()
            .filter(|(_, h)| h.principal == principal)
            .map(|(sid, _)| sid.clone())
            .collect();
        for sid in sids {
            self.end(sid, principal).await;
        }
    }

    /// The session to end so that `principal` may open one: its own least
    /// used at its cap, else at the server's cap the oldest never-used one.
    /// `Err(())` when the server is full of used sessions.
    fn victim(&self, principal: &str) -> Result<Option<(String, String)>, ()> {
        let held = locked(&self.held);
        let own = held.values().filter(|h| h.principal == principal).count();
        let pick = |only_own: bool| {
            held.iter()
                .filter(|(_, h)| !only_own || h.principal == principal)
                .filter(|(_, h)| only_own || h.never_used())
                .min_by_key(|(_, h)| (!h.never_used(), h.last_used, h.opened))
                .map(|(sid, h)| (sid.clone(), h.principal.clone()))
        };
        if own >= self.per_principal {
            return Ok(pick(true));
        }
        if held.len() >= self.max {
            return pick(false).map(Some).ok_or(());
        }
        Ok(None)
    }

    /// Whether `principal` is at a cap where opening a session ends another.
    fn at_a_cap(&self, principal: &str) -> bool {
        let held = locked(&self.held);
        held.len() >= self.max
            || held.values().filter(|h| h.principal == principal).count() >= self.per_principal
    }
}

/// Ownership and caps of transport sessions and event streams (the rules in
/// the module doc). The token layer sits outside: the principal is known.
async fn guard_transport_sessions(
    axum::extract::State(ts): axum::extract::State<Arc<TransportSessions>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let principal = request
        .extensions()
        .get::<Arc<super::Principal>>()
        .map_or_else(|| auth::ANONYMOUS.to_string(), |p| p.name.clone());
    let sid = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let method = request.method().clone();
    let Some(sid) = sid else {
        return if method == http::Method::POST {
            open_session(&ts, principal, request, next).await
        } else {
            next.run(request).await
        };
    };
    {
        let mut held = locked(&ts.held);
        match held.get_mut(&sid) {
            Some(h) if h.principal != principal => return unknown_session(),
            Some(h) => {
                h.last_used = Instant::now();
                if method == http::Method::POST {
                    h.posts = h.posts.saturating_add(1);
                }
            }
            // Every session opens through this layer: one it does not hold
            // is unknown (rmcp would answer a DELETE of it 202).
            None => return unknown_session(),
        }
    }
    if method == http::Method::DELETE {
        let response = next.run(request).await;
        if response.status().is_success() {
            locked(&ts.held).remove(&sid);
            // Clients expect 200 or 204 (the Python SDK logs 202 as a
            // failed termination).
            let (mut parts, body) = response.into_parts();
            parts.status = http::StatusCode::OK;
            return axum::response::Response::from_parts(parts, body);
        }
        return response;
    }
    if method == http::Method::GET {
        return open_stream(&ts, principal, request, next).await;
    }
    next.run(request).await
}

/// A POST without a session id: an initialize opens a session (owned by
/// `principal`), making room at a cap; any other is served as it is.
async fn open_session(
    ts: &Arc<TransportSessions>,
    principal: String,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut request = request;
    // Forgetting expired sessions matters only when a cap is near; a
    // stateless call should not pay the manager's lock for it.
    if ts.at_a_cap(&principal) {
        ts.prune().await;
    }
    if ts.at_a_cap(&principal) {
        // Look at the body (bounded) to tell an initialize from a stateless
        // call, which opens nothing and is served.
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, PEEK_LIMIT).await else {
            return axum::response::Response::builder()
                .status(http::StatusCode::PAYLOAD_TOO_LARGE)
                .body(axum::body::Body::empty())
                .unwrap_or_default();
        };
        let initialize = serde_json::from_slice::<serde_json::Value>(&bytes)
            .is_ok_and(|v| v["method"] == "initialize");
        request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
        if initialize {
            match ts.victim(&principal) {
                Ok(Some((sid, owner))) => ts.end(sid, &owner).await,
                Ok(None) => {}
                Err(()) => {
                    return refused(
                        http::StatusCode::SERVICE_UNAVAILABLE,
                        "the server holds its maximum of transport sessions, all in use",
                    )
                }
            }
        }
    }
    let response = next.run(request).await;
    if let Some(sid) = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        let now = Instant::now();
        locked(&ts.held).insert(
            sid.to_string(),
            Held {
                principal,
                opened: now,
                last_used: now,
                posts: 0,
            },
        );
    }
    response
}

/// A `GET /mcp` event stream, counted against its principal while open.
async fn open_stream(
    ts: &Arc<TransportSessions>,
    principal: String,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    {
        let mut streams = locked(&ts.streams);
        let open = streams.entry(principal.clone()).or_insert(0);
        if *open >= ts.per_principal_streams {
            return refused(
                http::StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "principal `{principal}` holds its maximum of {} event streams; close one first",
                    ts.per_principal_streams
                ),
            );
        }
        *open += 1;
    }
    let counted = StreamCount {
        ts: ts.clone(),
        principal,
    };
    let response = next.run(request).await;
    response.map(|body| {
        axum::body::Body::new(Counted {
            body,
            _count: counted,
        })
    })
}

/// One open event stream of a principal; uncounted when dropped.
struct StreamCount {
    ts: Arc<TransportSessions>,
    principal: String,
}

impl Drop for StreamCount {
    fn drop(&mut self) {
        let mut streams = locked(&self.ts.streams);
        if let Some(open) = streams.get_mut(&self.principal) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                streams.remove(&self.principal);
            }
        }
    }
}

/// A response body that holds its stream's count while it lives.
struct Counted {
    body: axum::body::Body,
    _count: StreamCount,
}

impl hyper::body::Body for Counted {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}
