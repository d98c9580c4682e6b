//! `tusk observe`: a read-only web dashboard and JSON API over the issue
//! store, the effect log and the trajectory (issue 24).
//!
//! Every page is server-rendered HTML; the same path answers JSON with
//! `Accept: application/json` or `?format=json`. Pages read what they show
//! and no more: the queue and lease pages parse the store (the views the
//! commands use), the run pages read the effect log from its end
//! ([`tail`]), the trajectory page reads its newest rows. Nothing is
//! written, except that a replay re-runs a recorded program in the sandbox
//! with its host calls answered from the record.
//!
//! One file per page concern: [`queue`], [`leases`], [`runs`],
//! [`trajectory`], [`graph`] (drawn by [`graph_svg`]), [`issue`],
//! [`session`]; [`html`] escapes and lays out, [`svg`] plots.

pub mod graph;
pub mod graph_svg;
pub mod html;
pub mod issue;
pub mod leases;
pub mod plans;
pub mod queue;
pub mod run_query;
pub mod runs;
pub mod session;
pub mod svg;
pub mod tail;
pub mod trajectory;

use crate::issues::store::{IssueStore, Store};
use crate::logs::LogStore;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The stores a dashboard shows.
#[derive(Clone, Debug)]
pub struct Stores {
    pub issues: IssueStore,
    pub trajectory: LogStore,
    pub effects: LogStore,
}

pub use crate::issues::store::ParsedStore;

/// What identifies one version of the store: for the file, its device,
/// inode, length and mtime (a rewrite by temp file and rename changes the
/// inode, an edit in place the length or mtime); for the database, the
/// lines' count and newest row version ([`crate::issues::postgres::lines_version`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StoreKey {
    File {
        dev: u64,
        ino: u64,
        len: u64,
        mtime_ns: i128,
    },
    Db {
        lines: i64,
        newest: i64,
    },
}

/// A database parse is reused for at most this long even when its key is
/// unchanged (the key cannot see a change across transaction-id wraparound).
const DB_CACHE_AGE: std::time::Duration = std::time::Duration::from_secs(30);

fn store_key(store: &IssueStore) -> Option<StoreKey> {
    use std::os::unix::fs::MetadataExt;
    match store {
        IssueStore::Jsonl(path) => {
            let m = std::fs::metadata(path).ok()?;
            Some(StoreKey::File {
                dev: m.dev(),
                ino: m.ino(),
                len: m.len(),
                mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            })
        }
        IssueStore::Postgres(pg) => crate::issues::postgres::lines_version(pg)
            .ok()
            .map(|(lines, newest)| StoreKey::Db { lines, newest }),
        IssueStore::Staged(overlay) => store_key(overlay.base()),
    }
}

/// The dashboard's state: its stores, the last parse of the store file, and
/// one replay at a time (a replay runs a program; a burst of clicks must not
/// fork a worker each).
pub struct Observer {
    pub stores: Stores,
    parsed: std::sync::Mutex<Option<(StoreKey, std::time::Instant, Arc<ParsedStore>)>>,
    replays: tokio::sync::Semaphore,
}

impl Observer {
    pub fn new(stores: Stores) -> Arc<Self> {
        Arc::new(Self {
            stores,
            parsed: std::sync::Mutex::new(None),
            replays: tokio::sync::Semaphore::new(1),
        })
    }

    /// The issue store, parsed (an absent file is the empty store). A store
    /// unchanged since the last page ([`StoreKey`]) is not read again.
    pub(crate) fn store(&self) -> Result<Arc<ParsedStore>, PageError> {
        // The readiness rule is read each time (a small file): a changed
        // setting shows on the next page.
        let rule = self
            .stores
            .issues
            .readiness()
            .map_err(|e| PageError::Store(e.to_string()))?;
        // Taken before the read: a change after it shows as a new key next time.
        let key = store_key(&self.stores.issues);
        if let Some(key) = key {
            let cached = self.parsed.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((k, at, parsed)) = cached.as_ref() {
                let fresh = matches!(k, StoreKey::File { .. }) || at.elapsed() < DB_CACHE_AGE;
                if *k == key && fresh {
                    parsed.borrow_dependent().set_readiness(rule);
                    return Ok(parsed.clone());
                }
            }
        }
        let text = self
            .stores
            .issues
            .read_text()
            .map_err(|e| PageError::Store(e.to_string()))?;
        let path = self.stores.issues.path();
        let parsed = Arc::new(
            ParsedStore::try_new(text, |t| Store::parse(path, t))
                .map_err(|e| PageError::Store(e.to_string()))?,
        );
        parsed.borrow_dependent().set_readiness(rule);
        if let Some(key) = key {
            *self.parsed.lock().unwrap_or_else(|e| e.into_inner()) =
                Some((key, std::time::Instant::now(), parsed.clone()));
        }
        Ok(parsed)
    }
}

crate::failure::class_enum! {
    /// `tusk observe`'s error classes (JSON error bodies).
    pub enum ObserveClass {
        BadRequest = "observe.bad_request",
        NotFound = "observe.not_found",
        StoreUnusable = "observe.store_unusable",
        Busy = "observe.busy",
        Host = "observe.host",
        Origin = "observe.origin",
    }
}

/// Why a page could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// A bad query parameter.
    #[error("{0}")]
    BadRequest(String),
    /// No such run or issue.
    #[error("{0}")]
    NotFound(String),
    /// The store or a log could not be read.
    #[error("{0}")]
    Store(String),
    /// Too many replays waiting.
    #[error("{0}")]
    Busy(String),
}

impl PageError {
    fn status(&self) -> StatusCode {
        match self {
            PageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            PageError::NotFound(_) => StatusCode::NOT_FOUND,
            PageError::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    fn class(&self) -> &'static str {
        match self {
            PageError::BadRequest(_) => ObserveClass::BadRequest.as_str(),
            PageError::NotFound(_) => ObserveClass::NotFound.as_str(),
            PageError::Store(_) => ObserveClass::StoreUnusable.as_str(),
            PageError::Busy(_) => ObserveClass::Busy.as_str(),
        }
    }
}

impl From<tail::TailError> for PageError {
    fn from(e: tail::TailError) -> Self {
        PageError::Store(e.to_string())
    }
}

/// A rendered page: its title, navigation entry, HTML body and JSON twin.
pub struct Page {
    pub title: String,
    pub nav: &'static str,
    pub body: String,
    pub json: Value,
}

/// The query parameters of a request.
pub type Params = HashMap<String, String>;

/// A non-negative integer parameter, `default` when absent, at most `max`.
pub(crate) fn number(
    params: &Params,
    name: &str,
    default: u64,
    max: u64,
) -> Result<u64, PageError> {
    match params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(v) => v.parse::<u64>().map(|n| n.min(max)).map_err(|_| {
            PageError::BadRequest(format!("{name}: {v:?} is not a non-negative integer"))
        }),
    }
}

/// A text parameter, `None` when absent or empty.
pub(crate) fn text<'p>(params: &'p Params, name: &str) -> Option<&'p str> {
    params
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// Whether the client asked for JSON.
fn wants_json(headers: &HeaderMap, params: &Params) -> bool {
    if let Some(f) = params.get("format") {
        return f == "json";
    }
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| {
            let first = accept.split(',').next().unwrap_or("").trim();
            first.starts_with("application/json")
        })
}

/// What every response carries: no inline script or style may run (a value
/// that escaped escaping still could not execute), no sniffing, no framing.
fn harden(response: &mut Response) {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let body = serde_json::to_vec_pretty(value).unwrap_or_default();
    let mut r = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    harden(&mut r);
    r
}

fn html_response(status: StatusCode, body: String) -> Response {
    let mut r = (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response();
    harden(&mut r);
    r
}

fn respond(json: bool, made: Result<Page, PageError>) -> Response {
    match made {
        Ok(page) if json => json_response(StatusCode::OK, &page.json),
        Ok(page) => html_response(
            StatusCode::OK,
            html::page(&page.title, page.nav, &page.body),
        ),
        Err(e) if json => json_response(
            e.status(),
            &json!({"error": e.class(), "message": e.to_string()}),
        ),
        Err(e) => html_response(
            e.status(),
            html::page(
                "Error",
                "",
                &format!(
                    "<p class=\"error\" id=\"error\">{}</p>",
                    html::esc(&e.to_string())
                ),
            ),
        ),
    }
}

/// Runs a page function on a blocking thread (store and log reads block).
async fn blocking(
    f: impl FnOnce() -> Result<Page, PageError> + Send + 'static,
) -> Result<Page, PageError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(PageError::Store(format!("the page failed: {e}"))))
}

type Shared = State<Arc<Observer>>;

async fn queue_page(State(o): Shared, Query(p): Query<Params>, h: HeaderMap) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || queue::page(&o, &p)).await)
}

async fn leases_page(State(o): Shared, Query(p): Query<Params>, h: HeaderMap) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || leases::page(&o, &p)).await)
}

async fn runs_page(State(o): Shared, Query(p): Query<Params>, h: HeaderMap) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || runs::list_page(&o, &p)).await)
}

async fn run_page(
    State(o): Shared,
    UrlPath(id): UrlPath<String>,
    Query(p): Query<Params>,
    h: HeaderMap,
) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || runs::run_page(&o, &id, &p)).await)
}

async fn replay_run(
    State(o): Shared,
    UrlPath(id): UrlPath<String>,
    Query(p): Query<Params>,
) -> Response {
    // One replay at a time; a second waits a little, then is told to retry.
    let permit =
        match tokio::time::timeout(std::time::Duration::from_secs(30), o.replays.acquire()).await {
            Ok(Ok(permit)) => permit,
            _ => {
                return respond(
                    true,
                    Err(PageError::Busy(
                        "another replay is running; try again".into(),
                    )),
                )
            }
        };
    let observer = o.clone();
    let made = blocking(move || runs::replay(&observer, &id, &p)).await;
    drop(permit);
    respond(true, made)
}

async fn plans_page(State(o): Shared, Query(p): Query<Params>, h: HeaderMap) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || plans::list_page(&o, &p)).await)
}

async fn trajectory_page(State(o): Shared, Query(p): Query<Params>, h: HeaderMap) -> Response {
    let json = wants_json(&h, &p);
    respond(json, blocking(move || trajectory::page(&o, &p)).await)
}

/// The route of a page about one thing (`/issues/{id}`, its graph,
/// `/sessions/{id}`): `make` builds it off the async threads.
fn page_by_id(
    make: fn(&Observer, &str, &Params) -> Result<Page, PageError>,
) -> axum::routing::MethodRouter<Arc<Observer>> {
    get(
        move |State(o): Shared,
              UrlPath(id): UrlPath<String>,
              Query(p): Query<Params>,
              h: HeaderMap| async move {
            let json = wants_json(&h, &p);
            respond(json, blocking(move || make(&o, &id, &p)).await)
        },
    )
}

/// [`page_by_id`] with the id in the query (`?id=…`).
fn page_by_query(
    make: fn(&Observer, &str, &Params) -> Result<Page, PageError>,
) -> axum::routing::MethodRouter<Arc<Observer>> {
    get(
        move |State(o): Shared, Query(p): Query<Params>, h: HeaderMap| async move {
            let json = wants_json(&h, &p);
            let Some(id) = text(&p, "id").map(str::to_string) else {
                return respond(
                    json,
                    Err(PageError::BadRequest(
                        "name the thing: ?id=… (or the path /…/ID)".into(),
                    )),
                );
            };
            respond(json, blocking(move || make(&o, &id, &p)).await)
        },
    )
}

async fn asset(UrlPath(name): UrlPath<String>) -> Response {
    let (kind, body) = match name.as_str() {
        "observe.css" => (
            "text/css; charset=utf-8",
            include_str!("assets/observe.css"),
        ),
        "observe.js" => (
            "text/javascript; charset=utf-8",
            include_str!("assets/observe.js"),
        ),
        _ => return respond(false, Err(PageError::NotFound(format!("no asset {name}")))),
    };
    let mut r = (StatusCode::OK, [(header::CONTENT_TYPE, kind)], body).into_response();
    harden(&mut r);
    r
}

async fn not_found(h: HeaderMap, Query(p): Query<Params>) -> Response {
    respond(
        wants_json(&h, &p),
        Err(PageError::NotFound("no such page".into())),
    )
}

/// `/` is the queue; the query goes along (`/?format=json` answers JSON,
/// as docs/observe.md says every path does).
async fn home(uri: axum::http::Uri) -> Response {
    let location = match uri.query() {
        Some(q) if !q.is_empty() => format!("/queue?{q}"),
        _ => "/queue".to_string(),
    };
    let Ok(location) = header::HeaderValue::from_str(&location) else {
        return respond(
            false,
            Err(PageError::BadRequest("a malformed query".into())),
        );
    };
    let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, location)], "").into_response();
    harden(&mut r);
    r
}

/// The dashboard's routes.
pub fn router(observer: Arc<Observer>) -> axum::Router {
    axum::Router::new()
        .route("/", get(home))
        .route("/queue", get(queue_page))
        .route("/leases", get(leases_page))
        .route("/runs", get(runs_page))
        .route("/runs/{id}", get(run_page))
        .route("/runs/{id}/replay", post(replay_run))
        .route("/trajectory", get(trajectory_page))
        .route("/issues/{id}", page_by_id(issue::page))
        .route("/issues/{id}/graph", page_by_id(graph::page))
        .route("/sessions/{id}", page_by_id(session::page))
        .route("/plans", get(plans_page))
        .route("/plans/{id}", page_by_id(plans::page))
        // The same pages for an id a browser reads as a dot segment
        // (`html::thing_href`).
        .route("/issue", page_by_query(issue::page))
        .route("/issue/graph", page_by_query(graph::page))
        .route("/session", page_by_query(session::page))
        .route("/assets/{name}", get(asset))
        .fallback(not_found)
        .with_state(observer)
}

/// Refuses requests whose `Host` is not a loopback name (a page on another
/// site could otherwise reach a loopback dashboard through DNS rebinding),
/// and cross-site POSTs (a replay triggered from another origin).
pub async fn loopback_only(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    if !matches!(name, "localhost" | "127.0.0.1" | "[::1]") {
        return json_response(
            StatusCode::FORBIDDEN,
            &json!({"error": ObserveClass::Host.as_str(), "message": "a loopback dashboard answers loopback host names only"}),
        );
    }
    same_origin(request, next).await
}

/// Refuses a POST whose `Origin` names another host than the request's.
pub async fn same_origin(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if request.method() == axum::http::Method::POST {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if let Some(origin) = request
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
        {
            let origin_host = origin.split_once("://").map_or(origin, |(_, h)| h);
            if origin_host != host {
                return json_response(
                    StatusCode::FORBIDDEN,
                    &json!({"error": ObserveClass::Origin.as_str(), "message": "a replay must come from this dashboard's own pages"}),
                );
            }
        }
    }
    next.run(request).await
}

/// Serves `router` on `listener` until Ctrl-C or SIGTERM, through the
/// connection layer `tusk mcp --http` uses (deadlines, eviction, caps).
pub async fn serve(listener: tokio::net::TcpListener, router: axum::Router) {
    let shutdown = async {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = async {
                match term.as_mut() {
                    Some(t) => { t.recv().await; }
                    None => std::future::pending::<()>().await,
                }
            } => {}
        }
    };
    crate::serve::serve(listener, router, crate::serve::Hygiene::default(), shutdown).await;
}

/// A JSON value as display text: a string as it is, null as nothing.
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `word` as one POSIX shell word, for a command a page shows to copy: as it
/// is when it holds only `[A-Za-z0-9._:-]`, else single-quoted (ids come
/// from logs and stores, which are input).
pub(crate) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
