//! What tusk exports: one place for every span name, attribute and metric.
//!
//! Spans:
//!
//! | span | parent | attributes |
//! |---|---|---|
//! | `tusk.run` | the caller's (`_meta.traceparent`, `TRACEPARENT`) or none | `tusk.run.id`, `tusk.program.digest`, `tusk.issue.id`, `tusk.principal`, `tusk.session.id`, `tusk.run.result`, `tusk.run.failure_classes`, `tusk.run.host_calls`, `tusk.run.duration_ms`, `tusk.run.peak_memory_kb` |
//! | `tusk.host_call ACTION` | its run | `tusk.action.id`, `tusk.action.kind`, `tusk.call.seq`, `tusk.args.digest`, `tusk.result_class`, `tusk.call.duration_ms` |
//! | `tusk.store.mutate` | the host call (or the command) | `db.system.name` (`postgresql` on the database), `db.operation.name`, `tusk.store.backend`, `tusk.store.lock_wait_ms`, `tusk.store.rows_touched`, `tusk.result_class` on failure |
//! | `tusk.replay` | the caller's or none | `tusk.run.id`, `tusk.replay.verdict` |
//! | `tusk COMMAND` | the caller's or none | `tusk.command`, `process.exit.code` (issue, dep, store and harness commands) |
//!
//! Metrics (names and units after the OpenTelemetry conventions):
//! `tusk.runs` and `tusk.host_calls` (by result class), `tusk.run.duration`,
//! `tusk.issue.claims` (by result class),
//! `tusk.lease.contentions`, `tusk.store.lock_wait`, `tusk.store.duration`
//! (by backend and operation), `tusk.worker.crashes` (by how the worker
//! ended), `tusk.mcp.sessions.active`, and `tusk.telemetry.undelivered_spans`.
//!
//! Every function here returns at once when export is off.

use super::enabled;
use crate::issues::IssueClass;
use opentelemetry::metrics::{Counter, Histogram, UpDownCounter};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SCOPE: &str = "tusk";

struct Instruments {
    runs: Counter<u64>,
    host_calls: Counter<u64>,
    run_duration: Histogram<f64>,
    claims: Counter<u64>,
    contentions: Counter<u64>,
    lock_wait: Histogram<f64>,
    store_duration: Histogram<f64>,
    crashes: Counter<u64>,
    sessions: UpDownCounter<i64>,
    undelivered: Counter<u64>,
}

fn instruments() -> &'static Instruments {
    static I: OnceLock<Instruments> = OnceLock::new();
    I.get_or_init(|| {
        let m = opentelemetry::global::meter(SCOPE);
        Instruments {
            runs: m
                .u64_counter("tusk.runs")
                .with_description("Runs, by result")
                .build(),
            host_calls: m
                .u64_counter("tusk.host_calls")
                .with_description("Host calls, by action and result class")
                .build(),
            run_duration: m.f64_histogram("tusk.run.duration").with_unit("s").build(),
            claims: m
                .u64_counter("tusk.issue.claims")
                .with_description("Lease claims, by result class")
                .build(),
            contentions: m
                .u64_counter("tusk.lease.contentions")
                .with_description("Claims refused because another worker holds the lease")
                .build(),
            lock_wait: m
                .f64_histogram("tusk.store.lock_wait")
                .with_unit("s")
                .with_description("Time waiting for the issue store's lock")
                .build(),
            store_duration: m
                .f64_histogram("tusk.store.duration")
                .with_unit("s")
                .with_description("Issue store mutations, lock to commit")
                .build(),
            crashes: m
                .u64_counter("tusk.worker.crashes")
                .with_description("Sandbox workers that died during a run")
                .build(),
            sessions: m
                .i64_up_down_counter("tusk.mcp.sessions.active")
                .with_description("Open MCP sessions")
                .build(),
            undelivered: m
                .u64_counter("tusk.telemetry.undelivered_spans")
                .with_description("Spans the collector did not accept")
                .build(),
        }
    })
}

/// The tracer, looked up once: the global lookup takes a lock and boxes a
/// new tracer each time, a cost every host call would pay.
fn tracer() -> &'static opentelemetry::global::BoxedTracer {
    static T: OnceLock<opentelemetry::global::BoxedTracer> = OnceLock::new();
    T.get_or_init(|| opentelemetry::global::tracer(SCOPE))
}

fn strings(items: &[String]) -> Value {
    Value::Array(Array::String(
        items.iter().cloned().map(StringValue::from).collect(),
    ))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Who and what a run is, for its span.
pub struct RunStart<'a> {
    pub run_id: &'a str,
    pub program_digest: &'a str,
    pub issue_id: Option<&'a str>,
    pub principal: Option<&'a str>,
    /// The public part of the session id.
    pub session: Option<&'a str>,
}

/// Opens a run's span under `parent`; the context it returns is the parent
/// of the run's host calls. `None` when export is off.
pub fn run_started(parent: &Context, run: &RunStart<'_>) -> Option<Context> {
    if !enabled() {
        return None;
    }
    let mut attrs = vec![
        KeyValue::new("tusk.run.id", run.run_id.to_string()),
        KeyValue::new("tusk.program.digest", run.program_digest.to_string()),
    ];
    for (key, value) in [
        ("tusk.issue.id", run.issue_id),
        ("tusk.principal", run.principal),
        ("tusk.session.id", run.session),
    ] {
        if let Some(v) = value {
            attrs.push(KeyValue::new(key, v.to_string()));
        }
    }
    let span = tracer()
        .span_builder("tusk.run")
        .with_kind(SpanKind::Internal)
        .with_attributes(attrs)
        .start_with_context(tracer(), parent);
    Some(parent.with_span(span))
}

/// How a run ended, for its span and the run metrics.
pub struct RunEnd<'a> {
    pub result: &'a str,
    pub failure_classes: &'a [String],
    pub host_calls: usize,
    pub duration: Duration,
    pub peak_memory_kb: Option<u64>,
}

/// Closes a run's span (when there is one) and counts the run.
pub fn run_finished(cx: Option<&Context>, end: &RunEnd<'_>) {
    if !enabled() {
        return;
    }
    let first = end
        .failure_classes
        .first()
        .map_or("accepted", String::as_str);
    let i = instruments();
    let labels = [
        KeyValue::new("tusk.run.result", end.result.to_string()),
        KeyValue::new("tusk.result_class", first.to_string()),
    ];
    i.runs.add(1, &labels);
    i.run_duration.record(end.duration.as_secs_f64(), &labels);
    let Some(cx) = cx else { return };
    let span = cx.span();
    span.set_attribute(KeyValue::new("tusk.run.result", end.result.to_string()));
    span.set_attribute(KeyValue::new(
        "tusk.run.failure_classes",
        strings(end.failure_classes),
    ));
    span.set_attribute(KeyValue::new("tusk.run.host_calls", end.host_calls as i64));
    span.set_attribute(KeyValue::new("tusk.run.duration_ms", ms(end.duration)));
    if let Some(kb) = end.peak_memory_kb {
        span.set_attribute(KeyValue::new("tusk.run.peak_memory_kb", kb as i64));
    }
    if end.result != "accepted" {
        span.set_status(Status::error(first.to_string()));
    }
    span.end();
}

/// One host call's span, open while the call is decided and recorded.
pub struct CallSpan {
    cx: Context,
    started: Instant,
    action: String,
}

/// Opens a host call's span under its run's; `None` when export is off.
pub fn call_started(
    run: Option<&Context>,
    action: &str,
    kind: &str,
    seq: usize,
    args_digest: &str,
) -> Option<CallSpan> {
    if !enabled() {
        return None;
    }
    let parent = run.cloned().unwrap_or_else(Context::current);
    let span = tracer()
        .span_builder(format!("tusk.host_call {action}"))
        .with_kind(SpanKind::Internal)
        .with_attributes([
            KeyValue::new("tusk.action.id", action.to_string()),
            KeyValue::new("tusk.action.kind", kind.to_string()),
            KeyValue::new("tusk.call.seq", seq as i64),
            KeyValue::new("tusk.args.digest", args_digest.to_string()),
        ])
        .start_with_context(tracer(), &parent);
    Some(CallSpan {
        cx: parent.with_span(span),
        started: Instant::now(),
        action: action.to_string(),
    })
}

impl CallSpan {
    /// Makes this call the current context (store spans nest under it).
    pub fn enter(&self) -> opentelemetry::ContextGuard {
        self.cx.clone().attach()
    }

    /// Closes the span with the call's result class, and counts the call.
    pub fn finish(self, result_class: &str) {
        let elapsed = self.started.elapsed();
        let labels = [
            KeyValue::new("tusk.action.id", self.action.clone()),
            KeyValue::new("tusk.result_class", result_class.to_string()),
        ];
        instruments().host_calls.add(1, &labels);
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("tusk.result_class", result_class.to_string()));
        span.set_attribute(KeyValue::new("tusk.call.duration_ms", ms(elapsed)));
        if result_class != "accepted" {
            span.set_status(Status::error(result_class.to_string()));
        }
        span.end();
    }
}

thread_local! {
    /// The lock wait and rows of the store mutation running on this thread:
    /// the store's backends report them from deep inside their critical
    /// sections, which [`store_mutation`] wraps.
    static MUTATION: Cell<(Duration, u64)> = const { Cell::new((Duration::ZERO, 0)) };
}

/// Told by a store backend how long it waited for its lock.
pub fn lock_waited(wait: Duration) {
    if enabled() {
        MUTATION.with(|m| m.set((m.get().0 + wait, m.get().1)));
    }
}

/// Told by a store backend how many rows (lines) a mutation wrote.
pub fn rows_touched(rows: u64) {
    if enabled() {
        MUTATION.with(|m| m.set((m.get().0, m.get().1 + rows)));
    }
}

/// Runs one store mutation under a `tusk.store.mutate` span (a child of the
/// current context), with its lock wait, rows and duration.
pub fn store_mutation<T, E: StoreClass>(
    backend: &str,
    operation: &str,
    mutate: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if !enabled() {
        return mutate();
    }
    MUTATION.with(|m| m.set((Duration::ZERO, 0)));
    let mut attrs = vec![
        KeyValue::new("tusk.store.backend", backend.to_string()),
        KeyValue::new("db.operation.name", operation.to_string()),
    ];
    if backend == "postgresql" {
        attrs.push(KeyValue::new("db.system.name", "postgresql"));
    }
    let span = tracer()
        .span_builder("tusk.store.mutate")
        .with_kind(if backend == "postgresql" {
            SpanKind::Client
        } else {
            SpanKind::Internal
        })
        .with_attributes(attrs)
        .start_with_context(tracer(), &Context::current());
    let cx = Context::current().with_span(span);
    let started = Instant::now();
    let out = mutate();
    let elapsed = started.elapsed();
    let (wait, rows) = MUTATION.with(|m| m.replace((Duration::ZERO, 0)));
    let labels = [
        KeyValue::new("tusk.store.backend", backend.to_string()),
        KeyValue::new("db.operation.name", operation.to_string()),
    ];
    let i = instruments();
    i.lock_wait.record(wait.as_secs_f64(), &labels);
    i.store_duration.record(elapsed.as_secs_f64(), &labels);
    let span = cx.span();
    span.set_attribute(KeyValue::new("tusk.store.lock_wait_ms", ms(wait)));
    span.set_attribute(KeyValue::new("tusk.store.rows_touched", rows as i64));
    if let Err(e) = &out {
        span.set_attribute(KeyValue::new("tusk.result_class", e.class().to_string()));
        span.set_status(Status::error(e.class().to_string()));
    }
    span.end();
    out
}

/// An error with a failure class (what a failed mutation's span records).
pub trait StoreClass {
    fn class(&self) -> &'static str;
}

/// Counts one lease claim by its result class.
pub fn claim(result_class: &str) {
    if !enabled() {
        return;
    }
    let i = instruments();
    i.claims.add(
        1,
        &[KeyValue::new("tusk.result_class", result_class.to_string())],
    );
    if result_class == IssueClass::LeaseContentionActive.as_str() {
        i.contentions.add(1, &[]);
    }
}

/// Counts a sandbox worker that died during a run (`how`: memory, stack,
/// syscall, signal, garbled).
pub fn worker_crashed(how: &str) {
    if enabled() {
        instruments()
            .crashes
            .add(1, &[KeyValue::new("tusk.worker.end", how.to_string())]);
    }
}

/// An MCP session opened (`+1`) or closed (`-1`).
pub fn sessions(delta: i64) {
    if enabled() {
        instruments().sessions.add(delta, &[]);
    }
}

/// Spans a collector did not take.
pub(super) fn undelivered(n: u64) {
    if enabled() {
        instruments().undelivered.add(n, &[]);
    }
}

/// A span for one replayed run (from `started` to now), with its verdict
/// and the trace the recorded run belonged to.
pub fn replayed(run_id: &str, recorded_trace: Option<&str>, verdict: &str, started: Instant) {
    if !enabled() {
        return;
    }
    let mut attrs = vec![
        KeyValue::new("tusk.run.id", run_id.to_string()),
        KeyValue::new("tusk.replay.verdict", verdict.to_string()),
    ];
    if let Some(trace) = recorded_trace {
        attrs.push(KeyValue::new("tusk.run.trace_id", trace.to_string()));
    }
    let mut span = tracer()
        .span_builder("tusk.replay")
        .with_start_time(std::time::SystemTime::now() - started.elapsed())
        .with_attributes(attrs)
        .start_with_context(tracer(), &Context::current());
    if verdict != "parity" {
        opentelemetry::trace::Span::set_status(&mut span, Status::error(verdict.to_string()));
    }
    opentelemetry::trace::Span::end(&mut span);
}

/// A command's span (`tusk issue claim`, …), current while the command runs.
pub struct CommandSpan {
    cx: Context,
    _guard: opentelemetry::ContextGuard,
}

/// Opens the span of one CLI command and makes it current; `None` when
/// export is off.
pub fn command_started(name: &str) -> Option<CommandSpan> {
    if !enabled() {
        return None;
    }
    let parent = Context::current();
    let span = tracer()
        .span_builder(format!("tusk {name}"))
        .with_attributes([KeyValue::new("tusk.command", name.to_string())])
        .start_with_context(tracer(), &parent);
    let cx = parent.with_span(span);
    Some(CommandSpan {
        _guard: cx.clone().attach(),
        cx,
    })
}

impl CommandSpan {
    /// Closes the span with the command's exit code.
    pub fn finish(self, code: i32) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new("process.exit.code", code as i64));
        if code != 0 {
            span.set_status(Status::error(format!("exit {code}")));
        }
        span.end();
    }
}
