//! `tusk mcp --http`: streamable HTTP at `/mcp`, with the hygiene a shared
//! server needs: bearer tokens (`--auth`), `Origin` validation, a cap on
//! connections and on transport sessions (503 past either), a header-read
//! timeout (a half-sent request cannot hold a connection), and idle expiry
//! of transport sessions.

use super::auth::{self, Tokens};
use super::TuskServer;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How `tusk mcp --http` serves.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bind a non-loopback address and accept any `Host` header.
    pub allow_remote: bool,
    /// Bearer tokens; required on a non-loopback address.
    pub tokens: Option<Arc<Tokens>>,
    /// Browser origins allowed besides the loopback ones (`Origin` present
    /// and not listed: 403).
    pub allowed_origins: Vec<String>,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Transport sessions (legacy `Mcp-Session-Id`) at once; a request that
    /// would open another is 503.
    pub max_transport_sessions: usize,
    /// A transport session idle this long is closed.
    pub transport_idle: Duration,
    /// A request's headers must arrive within this.
    pub header_timeout: Duration,
}

impl HttpOptions {
    /// Defaults for `addr`.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            allow_remote: false,
            tokens: None,
            allowed_origins: Vec::new(),
            max_connections: 256,
            max_transport_sessions: 256,
            transport_idle: Duration::from_secs(300),
            header_timeout: Duration::from_secs(10),
        }
    }
}

/// A minimal response for a connection refused at the door.
fn busy_response() -> Vec<u8> {
    let body = r#"{"error":"busy","message":"the server holds its maximum of connections"}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
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
    let mut connections = Connections::new(options.max_connections.max(1));
    let shutdown = tokio::signal::ctrl_c();
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of descriptors and the like: wait a little, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        if !connections.make_room() {
            tokio::spawn(refuse_busy(stream));
            continue;
        }
        let started = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(serve_connection(
            router.clone(),
            stream,
            options.header_timeout,
            started.clone(),
        ));
        connections.add(started, task.abort_handle());
    }
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

/// `/mcp` with its hygiene: origins, the transport-session cap, ending a
/// transport session's runs, and tokens when given.
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
    let cap = options.max_transport_sessions;
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(
            (manager, cap),
            cap_transport_sessions,
        ))
        .layer(axum::middleware::from_fn_with_state(
            server.clone(),
            end_transport_session,
        ));
    if let Some(tokens) = options.tokens.clone() {
        router = router.layer(axum::middleware::from_fn_with_state(
            tokens,
            auth::require_token,
        ));
    }
    router
}

/// Answers a connection past the cap 503 (for at most a second) and closes it.
async fn refuse_busy(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let busy = busy_response();
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&busy)).await;
}

/// Serves one connection; `started` is set once a request's headers are in.
async fn serve_connection(
    router: axum::Router,
    stream: tokio::net::TcpStream,
    header_timeout: Duration,
    started: Arc<AtomicBool>,
) {
    let service =
        hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
            // Headers are in: this connection is no slowloris.
            started.store(true, Ordering::Relaxed);
            tower::ServiceExt::oneshot(router.clone(), request)
        });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// The open connections, oldest first. At the cap, a new connection takes
/// the place of the oldest one that has not yet sent the headers of a
/// request (a half-sent request is what a slowloris holds), so a client
/// that sends whole requests is served however many half-open connections
/// an attacker keeps; only when every connection is mid-request is a new
/// one answered 503.
struct Connections {
    max: usize,
    open: std::collections::VecDeque<(Arc<AtomicBool>, tokio::task::AbortHandle)>,
}

impl Connections {
    fn new(max: usize) -> Self {
        Self {
            max,
            open: std::collections::VecDeque::new(),
        }
    }

    /// Whether a new connection may be served (evicting a stalled one if
    /// needed).
    fn make_room(&mut self) -> bool {
        self.open.retain(|(_, task)| !task.is_finished());
        if self.open.len() < self.max {
            return true;
        }
        match self
            .open
            .iter()
            .position(|(started, _)| !started.load(Ordering::Relaxed))
        {
            Some(at) => {
                if let Some((_, task)) = self.open.remove(at) {
                    task.abort();
                }
                true
            }
            None => false,
        }
    }

    fn add(&mut self, started: Arc<AtomicBool>, task: tokio::task::AbortHandle) {
        self.open.push_back((started, task));
    }
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

/// Refuses (503) a request that would open a transport session past the cap
/// (an `initialize` without `Mcp-Session-Id`); other requests go through.
async fn cap_transport_sessions(
    axum::extract::State((manager, cap)): axum::extract::State<(Arc<LocalSessionManager>, usize)>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let may_open =
        request.method() == http::Method::POST && !request.headers().contains_key("mcp-session-id");
    if !may_open || manager.sessions.read().await.len() < cap {
        return next.run(request).await;
    }
    // At the cap: look at the body (bounded) to tell an initialize from a
    // stateless call, which opens nothing and is served.
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, PEEK_LIMIT).await else {
        return axum::response::Response::builder()
            .status(http::StatusCode::PAYLOAD_TOO_LARGE)
            .body(axum::body::Body::empty())
            .unwrap_or_default();
    };
    let initialize = serde_json::from_slice::<serde_json::Value>(&bytes)
        .is_ok_and(|v| v["method"] == "initialize");
    if !initialize {
        let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
        return next.run(request).await;
    }
    axum::response::Response::builder()
        .status(http::StatusCode::SERVICE_UNAVAILABLE)
        .header(http::header::RETRY_AFTER, "1")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(axum::body::Body::from(
            r#"{"error":"busy","message":"the server holds its maximum of transport sessions"}"#,
        ))
        .unwrap_or_default()
}
