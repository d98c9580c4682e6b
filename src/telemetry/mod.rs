//! OpenTelemetry export: spans and metrics of runs, host calls and store
//! mutations, sent over OTLP (HTTP/protobuf or gRPC) to a collector.
//!
//! Off unless configured: `--otlp URL` (any command), or the standard
//! variables `OTEL_EXPORTER_OTLP_ENDPOINT` (and the per-signal
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `_METRICS_ENDPOINT`), with
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `grpc`),
//! `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_TIMEOUT`
//! and `OTEL_SDK_DISABLED`. What is exported, and under which names, is
//! [`record`]'s; this module only sets the pipeline up and takes it down.
//!
//! Export never blocks or fails a run: spans wait in the SDK's bounded batch
//! queue and leave on its own thread; at exit, one flush bounded by the
//! export timeout (2 s unless the variables say otherwise). A collector that
//! is down costs the queue and the flush's timeout, and the spans it did not
//! take are counted (`tusk.telemetry.undelivered_spans`, and one line on
//! standard error at exit). A configuration tusk cannot use is one warning
//! line, and the command runs without export.
//!
//! Workers never export: programs run in forked processes that have no
//! telemetry; every span is made on the host side, before the program sees
//! the envelope of the call it describes.

pub mod record;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{RetryPolicy, WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use opentelemetry_sdk::Resource;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Whether spans and metrics are being exported (checked before any span or
/// attribute is built, so a run without export pays one load).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// How long one export may take when the variables do not say.
const DEFAULT_TIMEOUT_MS: u64 = 2000;

/// The OTLP transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// OTLP/HTTP with protobuf bodies (`/v1/traces`, `/v1/metrics`).
    HttpProtobuf,
    /// OTLP/gRPC.
    Grpc,
}

/// Where and how to export, resolved from a flag and the environment.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `--otlp`'s base URL; `None`: the exporter reads the variables.
    pub endpoint: Option<String>,
    pub protocol: Protocol,
    pub traces: bool,
    pub metrics: bool,
    /// One export's bound, and the exit flush's in all: the variables'
    /// value clamped ([`Numbers::export_timeout`]), given to the exporters
    /// so that they do not read the variables themselves.
    pub timeout: Option<Duration>,
    /// Retry a failed export (with the SDK's recommended back-off): for a
    /// long-lived server. A one-shot command does not: its exit would wait
    /// for the back-off of a collector that is down.
    pub retry: bool,
    /// Every `OTEL_*` number the pipeline takes, clamped to its range.
    pub numbers: Numbers,
    /// One line per setting that was out of range or not a number.
    pub warnings: Vec<String>,
}

/// The ranges of the `OTEL_*` numbers tusk passes to the SDK (which would
/// otherwise read them itself, unbounded: a queue of 10^11 spans is
/// allocated up front and aborts the process). docs/telemetry.md, "Bounded
/// settings", lists them.
const BOUNDS: [(&str, u64, u64, u64); 9] = [
    // (variable, least, most, default)
    ("OTEL_BSP_MAX_QUEUE_SIZE", 1, 65_536, 8192),
    ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, 8192, 2048),
    ("OTEL_BSP_SCHEDULE_DELAY", 1, 60_000, 5000),
    ("OTEL_EXPORTER_OTLP_TIMEOUT", 1, 10_000, DEFAULT_TIMEOUT_MS),
    (
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        1,
        10_000,
        DEFAULT_TIMEOUT_MS,
    ),
    ("OTEL_METRIC_EXPORT_INTERVAL", 1000, 3_600_000, 10_000),
    ("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", 0, 1024, 128),
    ("OTEL_SPAN_EVENT_COUNT_LIMIT", 0, 1024, 128),
    ("OTEL_SPAN_LINK_COUNT_LIMIT", 0, 1024, 128),
];

/// The numbers of [`BOUNDS`], resolved.
#[derive(Clone, Debug)]
pub struct Numbers {
    pub max_queue_size: usize,
    pub max_export_batch_size: usize,
    pub schedule_delay: Duration,
    /// One export's bound, and the whole shutdown's at exit.
    pub export_timeout: Duration,
    pub metric_interval: Duration,
    pub span_attributes: u32,
    pub span_events: u32,
    pub span_links: u32,
}

/// A setting as a warning may show it: at most 200 bytes, and a URL's
/// userinfo (a password) never.
pub fn shown_setting(value: &str) -> String {
    static USERINFO: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let userinfo = USERINFO.get_or_init(|| {
        regex::Regex::new(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]*@").expect("a valid pattern")
    });
    let redacted = userinfo.replace_all(value, "${1}***@");
    const MOST: usize = 200;
    if redacted.len() <= MOST {
        return redacted.into_owned();
    }
    let mut end = MOST;
    while !redacted.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &redacted[..end], value.len())
}

impl Numbers {
    /// The numbers the variables give, each clamped into its range; a line
    /// in `warnings` for each that was not usable as given.
    fn resolve(warnings: &mut Vec<String>) -> Self {
        let mut get = |name: &str| -> u64 {
            let (_, least, most, default) = BOUNDS
                .iter()
                .copied()
                .find(|b| b.0 == name)
                .expect("a bounded variable");
            let Some(text) = var(name) else {
                return default;
            };
            match text.trim().parse::<u128>() {
                Ok(n) if n < u128::from(least) || n > u128::from(most) => {
                    let used = if n < u128::from(least) { least } else { most };
                    warnings.push(format!(
                        "{name}={} is outside {least}-{most}; using {used}",
                        shown_setting(&text)
                    ));
                    used
                }
                Ok(n) => u64::try_from(n).unwrap_or(most),
                Err(_) => {
                    warnings.push(format!(
                        "{name}={} is not a whole number; using {default}",
                        shown_setting(&text)
                    ));
                    default
                }
            }
        };
        let general_timeout = get("OTEL_EXPORTER_OTLP_TIMEOUT");
        let traces_timeout = if var("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT").is_some() {
            get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
        } else {
            general_timeout
        };
        let as_u32 = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Numbers {
            max_queue_size: as_usize(get("OTEL_BSP_MAX_QUEUE_SIZE")),
            max_export_batch_size: as_usize(get("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")),
            schedule_delay: Duration::from_millis(get("OTEL_BSP_SCHEDULE_DELAY")),
            export_timeout: Duration::from_millis(traces_timeout),
            metric_interval: Duration::from_millis(get("OTEL_METRIC_EXPORT_INTERVAL")),
            span_attributes: as_u32(get("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT")),
            span_events: as_u32(get("OTEL_SPAN_EVENT_COUNT_LIMIT")),
            span_links: as_u32(get("OTEL_SPAN_LINK_COUNT_LIMIT")),
        }
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    /// The settings `flag` (`--otlp URL`) and the standard variables give;
    /// `Ok(None)` when export is off.
    ///
    /// # Errors
    /// A protocol tusk does not speak (`http/json`), or a flag that is not
    /// an `http://` or `https://` URL.
    pub fn resolve(flag: Option<&str>) -> Result<Option<Settings>, String> {
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let off = |name: &str| var(name).is_some_and(|v| v.eq_ignore_ascii_case("none"));
        let base = flag.is_some() || var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
        let traces = (base || var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some())
            && !off("OTEL_TRACES_EXPORTER");
        let metrics = (base || var("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT").is_some())
            && !off("OTEL_METRICS_EXPORTER");
        if !traces && !metrics {
            return Ok(None);
        }
        let protocol = match var("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
            None | Some("http/protobuf") => Protocol::HttpProtobuf,
            Some("grpc") => Protocol::Grpc,
            Some(other) => {
                return Err(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={} is not supported (use http/protobuf or grpc)",
                    shown_setting(other)
                ))
            }
        };
        if let Some(url) = flag {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "--otlp {}: expected an http:// or https:// URL",
                    shown_setting(url)
                ));
            }
        }
        let mut warnings = Vec::new();
        let numbers = Numbers::resolve(&mut warnings);
        Ok(Some(Settings {
            endpoint: flag.map(|u| u.trim_end_matches('/').to_string()),
            protocol,
            traces,
            metrics,
            timeout: Some(numbers.export_timeout),
            retry: false,
            numbers,
            warnings,
        }))
    }

    fn retry_policy(&self) -> RetryPolicy {
        if self.retry {
            RetryPolicy::recommended()
        } else {
            RetryPolicy::disabled()
        }
    }

    fn url(&self, signal: &str) -> Option<String> {
        let base = self.endpoint.as_ref()?;
        Some(match self.protocol {
            Protocol::HttpProtobuf => format!("{base}/v1/{signal}"),
            Protocol::Grpc => base.clone(),
        })
    }
}

/// What a collector did not take.
#[derive(Debug, Default)]
struct Undelivered {
    spans: AtomicU64,
    last_error: Mutex<Option<String>>,
}

/// The span exporter, counting the spans of every batch the collector did
/// not accept (the SDK drops them; the count is what an operator can see).
#[derive(Debug)]
struct Counted<E> {
    inner: E,
    undelivered: Arc<Undelivered>,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    fn export(
        &self,
        batch: Vec<SpanData>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        let n = batch.len() as u64;
        let export = self.inner.export(batch);
        let undelivered = self.undelivered.clone();
        async move {
            let result = export.await;
            if let Err(e) = &result {
                undelivered.spans.fetch_add(n, Ordering::Relaxed);
                *undelivered
                    .last_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                record::undelivered(n);
            }
            result
        }
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The running export pipeline; [`Telemetry::finish`] flushes it.
pub struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
    undelivered: Arc<Undelivered>,
    timeout: Duration,
    /// gRPC's client runs on its own small runtime, kept for the process.
    runtime: Option<tokio::runtime::Runtime>,
}

fn resource() -> Resource {
    let named = var("OTEL_SERVICE_NAME").is_some()
        || var("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|a| a.contains("service.name="));
    let mut builder = Resource::builder();
    if !named {
        builder = builder.with_service_name("tusk");
    }
    builder
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Starts export as `settings` say and makes it the process's telemetry.
///
/// # Errors
/// An exporter that cannot be built (an unparsable endpoint).
pub fn start(settings: &Settings) -> Result<Telemetry, String> {
    let runtime = match settings.protocol {
        Protocol::Grpc => Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("tusk-otlp")
                .enable_all()
                .build()
                .map_err(|e| format!("the gRPC exporter's runtime: {e}"))?,
        ),
        Protocol::HttpProtobuf => None,
    };
    // tonic's channel binds to the runtime it is built in.
    let _entered = runtime.as_ref().map(|r| r.enter());
    let undelivered = Arc::new(Undelivered::default());
    let timeout = settings
        .timeout
        .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    let resource = resource();
    let tracer = if settings.traces {
        let exporter = span_exporter(settings)?;
        let processor = opentelemetry_sdk::trace::BatchSpanProcessor::builder(Counted {
            inner: exporter,
            undelivered: undelivered.clone(),
        })
        .with_batch_config(batch_config(&settings.numbers))
        .build();
        let n = &settings.numbers;
        Some(
            SdkTracerProvider::builder()
                .with_span_processor(processor)
                .with_resource(resource.clone())
                .with_max_attributes_per_span(n.span_attributes)
                .with_max_events_per_span(n.span_events)
                .with_max_links_per_span(n.span_links)
                .build(),
        )
    } else {
        None
    };
    let meter = if settings.metrics {
        let exporter = metric_exporter(settings)?;
        let reader = opentelemetry_sdk::metrics::PeriodicReader::builder(exporter)
            .with_interval(settings.numbers.metric_interval)
            .build();
        Some(
            SdkMeterProvider::builder()
                .with_reader(reader)
                .with_resource(resource)
                .build(),
        )
    } else {
        None
    };
    if let Some(t) = &tracer {
        opentelemetry::global::set_tracer_provider(t.clone());
    }
    if let Some(m) = &meter {
        opentelemetry::global::set_meter_provider(m.clone());
    }
    ENABLED.store(true, Ordering::Relaxed);
    Ok(Telemetry {
        tracer,
        meter,
        undelivered,
        timeout,
        runtime,
    })
}

/// The batch processor's bounds, every one given (the SDK would read the
/// `OTEL_BSP_*` variables unbounded). Tusk's defaults are a queue of 8192
/// and batches of 2048 spans: a program makes a span per host call, tens of
/// thousands a second, and the SDK's 2048 and 512 would drop spans of a busy
/// run and send many small requests.
fn batch_config(n: &Numbers) -> opentelemetry_sdk::trace::BatchConfig {
    opentelemetry_sdk::trace::BatchConfigBuilder::default()
        .with_max_queue_size(n.max_queue_size)
        .with_max_export_batch_size(n.max_export_batch_size)
        .with_scheduled_delay(n.schedule_delay)
        .build()
}

/// The endpoint and timeout every exporter takes from `settings`.
fn configured<B: WithExportConfig>(mut b: B, settings: &Settings, signal: &str) -> B {
    if let Some(url) = settings.url(signal) {
        b = b.with_endpoint(url);
    }
    if let Some(t) = settings.timeout {
        b = b.with_timeout(t);
    }
    b
}

/// One signal's exporter over the transport `settings` name (the two
/// signals' builders are different types with the same methods).
macro_rules! exporter {
    ($kind:ty, $settings:expr, $signal:literal) => {{
        let s: &Settings = $settings;
        match s.protocol {
            Protocol::HttpProtobuf => configured(
                <$kind>::builder()
                    .with_http()
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                    .with_retry_policy(s.retry_policy()),
                s,
                $signal,
            )
            .build(),
            Protocol::Grpc => configured(
                <$kind>::builder()
                    .with_tonic()
                    .with_retry_policy(s.retry_policy()),
                s,
                $signal,
            )
            .build(),
        }
        .map_err(|e| {
            format!(
                "the {} exporter: {}",
                $signal,
                shown_setting(&e.to_string())
            )
        })
    }};
}

fn span_exporter(settings: &Settings) -> Result<opentelemetry_otlp::SpanExporter, String> {
    exporter!(opentelemetry_otlp::SpanExporter, settings, "traces")
}

fn metric_exporter(settings: &Settings) -> Result<opentelemetry_otlp::MetricExporter, String> {
    exporter!(opentelemetry_otlp::MetricExporter, settings, "metrics")
}

impl Telemetry {
    /// Flushes what is queued (bounded by the export timeout) and stops the
    /// pipeline; says on standard error how many spans the collector did
    /// not take, if any.
    pub fn finish(mut self) {
        ENABLED.store(false, Ordering::Relaxed);
        // Shutting down exports what is queued (spans) and the last reading
        // (metrics); the two run at once and the exit waits for them at most
        // one export timeout in all (the meter provider ignores its timeout,
        // and a collector that never answers must not hold the exit for a
        // bound per step). What is still going then dies with the process.
        let deadline = std::time::Instant::now() + self.timeout;
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let mut pending = 0;
        if let Some(t) = self.tracer.take() {
            let (done, timeout) = (done.clone(), self.timeout);
            pending += 1;
            std::thread::spawn(move || {
                let _ = t.shutdown_with_timeout(timeout);
                let _ = done.send(());
            });
        }
        if let Some(m) = self.meter.take() {
            let (done, timeout) = (done.clone(), self.timeout);
            pending += 1;
            std::thread::spawn(move || {
                let _ = m.shutdown_with_timeout(timeout);
                let _ = done.send(());
            });
        }
        while pending > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if finished.recv_timeout(left).is_err() {
                eprintln!(
                    "tusk: telemetry: the collector did not take the last export within {} ms; \
                     exiting without it",
                    self.timeout.as_millis()
                );
                break;
            }
            pending -= 1;
        }
        let lost = self.undelivered.spans.load(Ordering::Relaxed);
        if lost > 0 {
            let why = self
                .undelivered
                .last_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .unwrap_or_default();
            eprintln!(
                "tusk: telemetry: {lost} span(s) not exported ({})",
                shown_setting(&why)
            );
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(deadline.saturating_duration_since(std::time::Instant::now()));
        }
    }
}

/// Starts export for one command from `--otlp` and the environment (after
/// the CLI has forked the sandbox's template, which must not inherit an
/// exporter whose threads it lacks). A configuration that cannot be used is
/// one warning, never a failure.
pub fn start_for_command(flag: Option<&str>, long_lived: bool) -> Option<Telemetry> {
    let started = Settings::resolve(flag).and_then(|settings| match settings {
        None => Ok(None),
        Some(mut s) => {
            s.retry = long_lived;
            for warning in &s.warnings {
                eprintln!("tusk: telemetry: {warning}");
            }
            start(&s).map(Some)
        }
    });
    started.unwrap_or_else(|e| {
        eprintln!("tusk: telemetry off: {}", shown_setting(&e));
        None
    })
}

/// The context a W3C `traceparent` (and `tracestate`) names; `None` for a
/// missing or malformed header (the run then starts its own trace).
pub fn parent_from(traceparent: &str, tracestate: Option<&str>) -> Option<Context> {
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_string(), traceparent.to_string());
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_string(), state.to_string());
    }
    let cx = TraceContextPropagator::new().extract(&carrier);
    cx.span().span_context().is_valid().then_some(cx)
}

/// The caller's context from `TRACEPARENT` / `TRACESTATE` in the environment
/// (the CLI's counterpart of an MCP request's `_meta.traceparent`).
pub fn parent_from_env() -> Option<Context> {
    let parent = var("TRACEPARENT")?;
    parent_from(&parent, var("TRACESTATE").as_deref())
}

/// The trace a context belongs to, as the effect-log header records it:
/// `{traceId, spanId}` (32 and 16 lowercase hex digits) of its span.
pub fn trace_ref(cx: &Context) -> Option<serde_json::Value> {
    let span = cx.span();
    let sc = span.span_context();
    sc.is_valid().then(|| {
        serde_json::json!({
            "traceId": sc.trace_id().to_string(),
            "spanId": sc.span_id().to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_traceparent_names_its_trace() {
        let cx = parent_from(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            None,
        )
        .unwrap();
        let r = trace_ref(&cx).unwrap();
        assert_eq!(r["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(r["spanId"], "00f067aa0ba902b7");
    }

    #[test]
    fn a_malformed_traceparent_is_ignored() {
        for bad in [
            "",
            "garbage",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "zz-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert!(parent_from(bad, None).is_none(), "{bad}");
        }
    }
}
