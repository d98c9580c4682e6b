//! The HTTP connection layer both servers share (`tusk mcp --http` and
//! `tusk observe`): no connection can be held for free (docs/sandbox.md,
//! "The HTTP layer").
//!
//! Every connection is in one phase at a time (HTTP/1.1 serves one request
//! at a time on a connection):
//!
//! - `Headers`: opened, the first request's headers not yet whole;
//! - `Body`: headers in, the request body not yet whole;
//! - `Busy`: a request being served (its handler, its response body: an
//!   event stream stays here, and is bounded by the MCP layer's caps);
//! - `Idle`: between requests on a kept-alive connection.
//!
//! Rules:
//! - each phase but `Busy` has a deadline (`header_timeout`,
//!   `body_timeout`, `idle_timeout`); a connection past it is closed;
//! - at the connection cap, a new connection takes the place of the
//!   connection most likely to be an attacker's: the oldest in `Headers`,
//!   then the oldest in `Body`, then the oldest `Idle`; only when every
//!   connection is `Busy` is it answered 503;
//! - a request with two `Authorization` headers is answered 400 (which one
//!   decides would be up to each layer).

use hyper::body::{Body, Frame, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The connection layer's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Hygiene {
    /// Connections served at once.
    pub max_connections: usize,
    /// A new connection's first request headers must be whole within this.
    pub header_timeout: Duration,
    /// A request body must be whole within this of its headers.
    pub body_timeout: Duration,
    /// A kept-alive connection with no request for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for Hygiene {
    fn default() -> Self {
        Self {
            max_connections: 256,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// Where a connection is; see the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Headers,
    Body,
    Busy,
    Idle,
}

/// One connection's phase and since when, shared by its task and the
/// accept loop.
#[derive(Debug)]
struct Slot(Mutex<(Phase, Instant)>);

impl Slot {
    fn new() -> Arc<Self> {
        Arc::new(Slot(Mutex::new((Phase::Headers, Instant::now()))))
    }

    fn set(&self, phase: Phase) {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if s.0 != phase {
            *s = (phase, Instant::now());
        }
    }

    fn get(&self) -> (Phase, Instant) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A minimal response for a connection refused at the door.
fn busy_response() -> Vec<u8> {
    let body = r#"{"error":"busy","message":"the server holds its maximum of connections, each serving a request; retry in a second"}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Serves `router` on `listener` under `hygiene` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    hygiene: Hygiene,
    shutdown: impl Future<Output = ()>,
) {
    let mut connections = Connections::new(hygiene);
    let mut sweep = tokio::time::interval(Duration::from_millis(200));
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // A response's last chunk is small: under Nagle it waits
                    // for the ACK of the one before, which a keep-alive
                    // client delays 40 ms (measured: bench/fleet_mcp.py's
                    // ping took 44 ms, 1.4 ms with a fresh connection).
                    let _ = stream.set_nodelay(true);
                    stream
                }
                // Out of descriptors and the like: close what is past its
                // deadline, wait a little, go on.
                Err(_) => {
                    connections.sweep();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = sweep.tick() => {
                connections.sweep();
                continue;
            }
            _ = &mut shutdown => break,
        };
        if !connections.make_room() {
            tokio::spawn(refuse_busy(stream));
            continue;
        }
        let slot = Slot::new();
        let task = tokio::spawn(serve_connection(
            router.clone(),
            stream,
            hygiene.header_timeout,
            slot.clone(),
        ));
        connections.add(slot, task.abort_handle());
    }
}

/// Answers a connection past the cap 503 (for at most a second) and closes it.
async fn refuse_busy(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let busy = busy_response();
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&busy)).await;
}

/// Serves one connection, keeping `slot` up to date.
async fn serve_connection(
    router: axum::Router,
    stream: tokio::net::TcpStream,
    header_timeout: Duration,
    slot: Arc<Slot>,
) {
    let service =
        hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
            let slot = slot.clone();
            let router = router.clone();
            async move {
                if request
                    .headers()
                    .get_all(http::header::AUTHORIZATION)
                    .iter()
                    .count()
                    > 1
                {
                    slot.set(Phase::Busy);
                    return Ok(tracked(two_authorizations(), slot));
                }
                slot.set(if request.body().is_end_stream() {
                    Phase::Busy
                } else {
                    Phase::Body
                });
                let request = request.map(|body| {
                    axum::body::Body::new(Tracked {
                        inner: body,
                        slot: slot.clone(),
                        end: Phase::Busy,
                    })
                });
                let response = tower::ServiceExt::oneshot(router, request).await;
                // The handler answered (it may not have read the whole body).
                slot.set(Phase::Busy);
                response.map(|r| tracked(r, slot))
            }
        });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// `response` with its body tracked: the connection is `Idle` once it ends.
fn tracked(
    response: axum::response::Response,
    slot: Arc<Slot>,
) -> http::Response<Tracked<axum::body::Body>> {
    response.map(|body| Tracked {
        inner: body,
        slot,
        end: Phase::Idle,
    })
}

/// 400: which of two `Authorization` headers counts is not for a layer to
/// guess.
fn two_authorizations() -> axum::response::Response {
    axum::response::Response::builder()
        .status(http::StatusCode::BAD_REQUEST)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(axum::body::Body::from(
            r#"{"error":"bad_request","message":"the request has more than one Authorization header; send exactly one"}"#,
        ))
        .unwrap_or_default()
}

/// A body that moves its connection to `end` once it has ended (or is
/// dropped unfinished).
struct Tracked<B> {
    inner: B,
    slot: Arc<Slot>,
    end: Phase,
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.slot.set(self.end);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B> Drop for Tracked<B> {
    fn drop(&mut self) {
        // A response body dropped (sent, or its client gone) leaves the
        // connection between requests; a request body dropped unread leaves
        // the handler's phase to the response.
        if self.end == Phase::Idle {
            self.slot.set(Phase::Idle);
        }
    }
}

/// The open connections, oldest first.
struct Connections {
    hygiene: Hygiene,
    open: std::collections::VecDeque<(Arc<Slot>, tokio::task::AbortHandle)>,
}

impl Connections {
    fn new(hygiene: Hygiene) -> Self {
        Self {
            hygiene,
            open: std::collections::VecDeque::new(),
        }
    }

    /// Closes every connection past its phase's deadline and forgets the
    /// finished ones.
    fn sweep(&mut self) {
        let now = Instant::now();
        let h = self.hygiene;
        self.open.retain(|(slot, task)| {
            if task.is_finished() {
                return false;
            }
            let (phase, since) = slot.get();
            let limit = match phase {
                Phase::Headers => h.header_timeout,
                Phase::Body => h.body_timeout,
                Phase::Idle => h.idle_timeout,
                Phase::Busy => return true,
            };
            if now.duration_since(since) > limit {
                task.abort();
                return false;
            }
            true
        });
    }

    /// Whether a new connection may be served, closing the most suspect
    /// one at the cap.
    fn make_room(&mut self) -> bool {
        self.open.retain(|(_, task)| !task.is_finished());
        if self.open.len() < self.hygiene.max_connections.max(1) {
            return true;
        }
        for wanted in [Phase::Headers, Phase::Body, Phase::Idle] {
            let oldest = self
                .open
                .iter()
                .enumerate()
                .filter_map(|(i, (slot, _))| {
                    let (phase, since) = slot.get();
                    (phase == wanted).then_some((since, i))
                })
                .min();
            if let Some((_, at)) = oldest {
                if let Some((_, task)) = self.open.remove(at) {
                    task.abort();
                }
                return true;
            }
        }
        false
    }

    fn add(&mut self, slot: Arc<Slot>, task: tokio::task::AbortHandle) {
        self.open.push_back((slot, task));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(phase: Phase, age: Duration) -> Arc<Slot> {
        Arc::new(Slot(Mutex::new((phase, Instant::now() - age))))
    }

    #[tokio::test]
    async fn eviction_order_and_deadlines() {
        let hygiene = Hygiene {
            max_connections: 4,
            ..Hygiene::default()
        };
        let mut c = Connections::new(hygiene);
        let mut tasks = Vec::new();
        let phases = [
            (Phase::Busy, 50),
            (Phase::Idle, 40),
            (Phase::Body, 3),
            (Phase::Body, 5),
        ];
        for (phase, age) in phases {
            let task = tokio::spawn(std::future::pending::<()>());
            c.add(slot(phase, Duration::from_secs(age)), task.abort_handle());
            tasks.push(task);
        }
        // At the cap: the oldest Body goes before any Idle or Busy one.
        assert!(c.make_room());
        let left: Vec<Phase> = c.open.iter().map(|(s, _)| s.get().0).collect();
        assert_eq!(left, [Phase::Busy, Phase::Idle, Phase::Body]);
        // A Headers one, however young, goes first.
        let task = tokio::spawn(std::future::pending::<()>());
        c.add(slot(Phase::Headers, Duration::ZERO), task.abort_handle());
        assert!(c.make_room());
        let left: Vec<Phase> = c.open.iter().map(|(s, _)| s.get().0).collect();
        assert_eq!(left, [Phase::Busy, Phase::Idle, Phase::Body]);
        // Deadlines: the 40 s idle one stays (60 s), nothing else is past.
        c.sweep();
        assert_eq!(c.open.len(), 3);
        // Only Busy left at the cap: refused.
        let mut full = Connections::new(Hygiene {
            max_connections: 1,
            ..hygiene
        });
        let task = tokio::spawn(std::future::pending::<()>());
        full.add(
            slot(Phase::Busy, Duration::from_secs(999)),
            task.abort_handle(),
        );
        assert!(!full.make_room());
        full.sweep();
        assert_eq!(full.open.len(), 1, "a busy connection has no deadline");
        // A body past its deadline is closed by the sweep.
        let task = tokio::spawn(std::future::pending::<()>());
        let mut c = Connections::new(hygiene);
        c.add(
            slot(Phase::Body, Duration::from_secs(11)),
            task.abort_handle(),
        );
        c.sweep();
        assert!(c.open.is_empty());
    }
}
