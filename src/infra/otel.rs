//! OpenTelemetry traces (`[otel]`): the spans opened under the target `otel`
//! — a turn (`invoke_agent mallbot`), its model rounds (`chat {model}`), its
//! tool calls (`execute_tool {name}`), and the calls made to the mall,
//! Telegram, speech-to-text and MCP servers — exported over OTLP/HTTP in
//! batches, off the hot path, named after the GenAI semantic conventions; and
//! the W3C `traceparent` that carries a trace from one process to the next.
//!
//! Off unless `otel.endpoint` (or `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`) is
//! set: then the spans of the target `otel` (and only they: the log's own
//! spans, which name shoppers, stay in the log) go to a batch processor on
//! its own thread, whose exports run on the bot's runtime with the bot's
//! reqwest. A collector that is down costs a failed export per batch,
//! counted in `mallbot_otel_export_failures_total` and warned about at most
//! once a minute; spans beyond the queue are dropped, nothing waits.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchSpanProcessor, Sampler, SdkTracerProvider, SpanData};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

use crate::infra::config::{Config, OtelConfig, OtelProtocol};

/// The target of every span and event meant for the trace.
pub const TARGET: &str = "otel";
/// How long the exporter may take to send what is left when the bot stops.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one export may take (unless `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT` says otherwise).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// At most one warning about failed exports per this many seconds.
const WARN_EVERY_SECS: u64 = 60;

static ON: AtomicBool = AtomicBool::new(false);
static CAPTURE: AtomicBool = AtomicBool::new(false);
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();
static LAST_WARNING: AtomicU64 = AtomicU64::new(0);
static FAILED_EXPORTS: AtomicU64 = AtomicU64::new(0);

/// Why tracing could not start.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    /// The exporter refused its configuration (endpoint, headers…).
    #[error("otel: cannot build the OTLP exporter: {0}")]
    Exporter(String),
    /// The HTTP client could not be built.
    #[error("otel: cannot build the HTTP client: {0}")]
    Client(String),
}

/// Whether traces are exported: `otel.endpoint` is set, or one of the
/// standard endpoint variables is, and `OTEL_SDK_DISABLED` is not `true`.
pub(crate) fn wanted(config: &OtelConfig) -> bool {
    let set = |var: &str| std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || std::env::var("OTEL_TRACES_EXPORTER").is_ok_and(|v| v.trim().eq_ignore_ascii_case("none"));
    !disabled
        && (!config.endpoint.trim().is_empty()
            || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            || set("OTEL_EXPORTER_OTLP_ENDPOINT"))
}

/// Whether spans are being exported (the layer is installed).
pub(crate) fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Exports that failed since the start (the collector down or refusing).
pub(crate) fn failed_exports() -> u64 {
    FAILED_EXPORTS.load(Ordering::Relaxed)
}

/// Whether prompts, messages and tool arguments go into spans (`otel.capture_content`).
pub(crate) fn capture_content() -> bool {
    CAPTURE.load(Ordering::Relaxed)
}

/// The traces endpoint of `otel.endpoint`: `/v1/traces` appended to a base
/// URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` is; a URL already ending in it kept.
pub(crate) fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") { base.to_owned() } else { format!("{base}/v1/traces") }
}

/// Starts the exporter and returns the layer that feeds it, or `None` when
/// tracing is off. Call inside the runtime: exports run on it.
pub fn layer<S>(config: &Config) -> Result<Option<Box<dyn Layer<S> + Send + Sync>>, OtelError>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
{
    let token = config.telegram.token.expose();
    if !token.is_empty() {
        let _ = CONVERSATION_KEY.set(conversation_key(token));
    }
    let config = &config.otel;
    if !wanted(config) {
        return Ok(None);
    }
    let provider = provider(config)?;
    let tracer = provider.tracer("mallbot");
    let _ = PROVIDER.set(provider);
    CAPTURE.store(config.capture_content, Ordering::Relaxed);
    ON.store(true, Ordering::Relaxed);
    services::http::set_trace_context(traceparent_of);
    let only_ours = Targets::new().with_target(TARGET, LevelFilter::INFO);
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false)
        // Parents come from the span tree; no OTel context is swapped at
        // every poll (the trace context of a task is in `TRACE` instead).
        .with_context_activation(false)
        .with_filter(only_ours);
    Ok(Some(Box::new(layer)))
}

fn provider(config: &OtelConfig) -> Result<SdkTracerProvider, OtelError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|e| OtelError::Client(e.to_string()))?;
    let client = reqwest::Client::builder()
        .timeout(export_timeout())
        .user_agent(concat!("mallbot/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| OtelError::Client(e.to_string()))?;
    let mut builder = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(OnRuntime { client, runtime });
    if !config.endpoint.trim().is_empty() {
        builder = builder.with_endpoint(traces_url(&config.endpoint));
    }
    // The standard variable decides when the key is left at its default.
    let protocol_from_env = ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]
        .iter()
        .any(|var| std::env::var(var).is_ok_and(|v| !v.trim().is_empty()));
    if config.protocol != OtelProtocol::default() || !protocol_from_env {
        builder = builder.with_protocol(match config.protocol {
            OtelProtocol::HttpProtobuf => Protocol::HttpBinary,
            OtelProtocol::HttpJson => Protocol::HttpJson,
        });
    }
    let exporter = builder.build().map_err(|e| OtelError::Exporter(e.to_string()))?;
    // The queue (2 048 spans), batch (512) and delay (5 s) of the SDK, or OTEL_BSP_*.
    let processor = BatchSpanProcessor::builder(Counted(exporter)).build();
    let service = match std::env::var("OTEL_SERVICE_NAME") {
        Ok(name) if config.service_name == OtelConfig::default().service_name && !name.is_empty() => name,
        _ => config.service_name.clone(),
    };
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(service)
        .with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    let ratio = config.sample_ratio.clamp(0.0, 1.0);
    Ok(SdkTracerProvider::builder()
        .with_span_processor(processor)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(ratio))))
        .with_resource(resource)
        .build())
}

/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or `OTEL_EXPORTER_OTLP_TIMEOUT` (ms), else 10 s.
fn export_timeout() -> Duration {
    ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"]
        .iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(EXPORT_TIMEOUT)
}

/// Sends what is still queued and stops the exporter (at most 5 s). Call
/// outside the runtime, before it is dropped: the last exports run on it.
pub fn shutdown() {
    if let Some(provider) = PROVIDER.get()
        && let Err(e) = provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT)
    {
        tracing::warn!(error = %e, "otel: the last spans may not have been sent");
    }
}

/// The W3C `traceparent` of `span` (for the next process), when it is traced.
pub(crate) fn traceparent_of(span: &tracing::Span) -> Option<String> {
    if !is_on() {
        return None;
    }
    let context = span.context();
    let otel_span = context.span();
    let sc = otel_span.span_context();
    sc.is_valid().then(|| format!("00-{}-{}-{:02x}", sc.trace_id(), sc.span_id(), sc.trace_flags().to_u8()))
}

tokio::task_local! {
    /// The `traceparent` of the turn a task works for (its answer's
    /// delivery included), when traced.
    static TRACE: Option<String>;
}

/// Runs `work` as part of the trace `traceparent` (a turn's): what it asks
/// for [`current_traceparent`] and the client spans it opens with
/// [`client_span_in_trace`] belong to that trace.
pub(crate) fn in_trace<F: std::future::Future>(
    traceparent: Option<String>,
    work: F,
) -> tokio::task::futures::TaskLocalFuture<Option<String>, F> {
    TRACE.scope(traceparent.filter(|_| is_on()), work)
}

/// The `traceparent` of the turn this task works for, when traced.
pub(crate) fn current_traceparent() -> Option<String> {
    TRACE.try_with(|trace| trace.clone()).ok().flatten()
}

/// Makes `span` a child of the `traceparent` (and `tracestate`) a caller sent;
/// nothing when tracing is off or the header is unreadable.
pub(crate) fn continue_from(span: &tracing::Span, traceparent: Option<&str>, tracestate: Option<&str>) {
    let Some(traceparent) = traceparent.filter(|_| is_on()) else { return };
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_owned(), traceparent.to_owned());
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_owned(), state.to_owned());
    }
    let context = TraceContextPropagator::new().extract(&carrier);
    if context.span().span_context().is_valid() {
        let _ = span.set_parent(context);
    }
}

/// The span of a turn, `invoke_agent mallbot` (GenAI agent span): the
/// conversation as a hash, the turn's id; the shopper's words only with
/// `capture_content`. [`tracing::Span::none`] when tracing is off.
pub(crate) fn turn_span(platform: &str, chat_id: i64, turn: &str, text: &str) -> tracing::Span {
    if !is_on() {
        return tracing::Span::none();
    }
    let span = tracing::info_span!(
        target: "otel",
        "invoke_agent",
        otel.name = "invoke_agent mallbot",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = "mallbot",
        gen_ai.conversation.id = conversation_id(platform, chat_id).as_str(),
        mallbot.turn = turn,
        mallbot.platform = platform,
        mallbot.resumed = false,
        gen_ai.input.messages = tracing::field::Empty,
        gen_ai.output.messages = tracing::field::Empty,
    );
    if capture_content() && !text.is_empty() {
        span.record("gen_ai.input.messages", messages_json("user", text).as_str());
    }
    span
}

/// The span of a turn resumed by a confirmation press: `invoke_agent
/// mallbot` again, continuing the trace of the turn that asked.
pub(crate) fn resumed_turn_span(
    platform: &str,
    chat_id: i64,
    turn: &str,
    asked_in: Option<&str>,
) -> tracing::Span {
    let span = turn_span(platform, chat_id, turn, "");
    span.record("mallbot.resumed", true);
    continue_from(&span, asked_in, None);
    span
}

/// Records the answer of a turn on its span (only with `capture_content`).
pub(crate) fn record_answer(span: &tracing::Span, text: &str) {
    if capture_content() && !text.is_empty() {
        span.record("gen_ai.output.messages", messages_json("assistant", text).as_str());
    }
}

/// One message in the conventions' JSON shape: `[{"role":…,"parts":[{"type":"text","content":…}]}]`.
fn messages_json(role: &str, text: &str) -> String {
    serde_json::json!([{"role": role, "parts": [{"type": "text", "content": text}]}]).to_string()
}

/// The span of one model call, `chat {model}` (GenAI inference span, kind client).
pub(crate) fn chat_span(
    model: &str,
    provider: &'static str,
    url: &reqwest::Url,
    stream: bool,
) -> tracing::Span {
    if !is_on() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "otel",
        "chat",
        otel.name = format!("chat {model}").as_str(),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        gen_ai.request.stream = stream,
        server.address = url.host_str().unwrap_or(""),
        server.port = int(url.port_or_known_default().unwrap_or(0)),
        gen_ai.response.model = tracing::field::Empty,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        gen_ai.usage.cache_read.input_tokens = tracing::field::Empty,
        gen_ai.response.time_to_first_chunk = tracing::field::Empty,
        mallbot.tool_calls = tracing::field::Empty,
        gen_ai.input.messages = tracing::field::Empty,
        gen_ai.output.messages = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// `gen_ai.response.finish_reasons` (a string array) on a chat span.
pub(crate) fn record_finish_reasons(span: &tracing::Span, reasons: &[&str]) {
    if !is_on() {
        return;
    }
    let reasons: Vec<opentelemetry::StringValue> = reasons.iter().map(|r| r.to_string().into()).collect();
    span.set_attribute(
        "gen_ai.response.finish_reasons",
        opentelemetry::Value::Array(opentelemetry::Array::String(reasons)),
    );
}

/// The span of one tool call, `execute_tool {name}` (GenAI tool span).
pub(crate) fn tool_span(name: &str, call_id: &str, level: &str) -> tracing::Span {
    if !is_on() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "otel",
        "execute_tool",
        otel.name = format!("execute_tool {name}").as_str(),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = "function",
        mallbot.tool.level = level,
        mallbot.tool.outcome = tracing::field::Empty,
        gen_ai.tool.call.arguments = tracing::field::Empty,
        gen_ai.tool.call.result = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// A client span around a call to another service (`telegram sendMessage`,
/// `stt transcribe`, `tools/call parking`…): its name, kind client, the
/// `rpc.system`-like `mallbot.peer` and an outcome recorded later.
pub(crate) fn client_span(name: &str, peer: &'static str) -> tracing::Span {
    if !is_on() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "otel",
        "client_call",
        otel.name = name,
        otel.kind = "client",
        mallbot.peer = peer,
        server.address = tracing::field::Empty,
        http.response.status_code = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// [`client_span`] only for a task working for a traced turn (see
/// [`in_trace`]), a child of that turn; else none: for calls made all the
/// time (Bot API calls: the typing loop, the outbox), traced only as part of
/// a turn.
pub(crate) fn client_span_in_trace(name: impl FnOnce() -> String, peer: &'static str) -> tracing::Span {
    let Some(traceparent) = current_traceparent() else { return tracing::Span::none() };
    let span = client_span(&name(), peer);
    continue_from(&span, Some(&traceparent), None);
    span
}

/// The span of an MCP `tools/call` (MCP semantic conventions): kind client
/// when the bot calls a server's tool, server when a client calls the bot's.
pub(crate) fn mcp_span(tool: &str, server: bool) -> tracing::Span {
    if !is_on() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "otel",
        "mcp",
        otel.name = format!("tools/call {tool}").as_str(),
        otel.kind = if server { "server" } else { "client" },
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        gen_ai.operation.name = "execute_tool",
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// A count or size as the OTLP exporter types it: `tracing-opentelemetry`
/// exports `i64` (and `f64`, `bool`, `&str`) with their type, but any
/// unsigned integer as its `Debug` string — so numbers go through this.
pub(crate) fn int(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

/// Marks a span failed with an `error.type`.
pub(crate) fn record_error(span: &tracing::Span, error_type: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
}

/// `gen_ai.conversation.id` of a chat: an HMAC-SHA256 (ring) of the platform
/// and chat id under a key derived from the bot's token — or, with no token
/// (the terminal chat), from the installation's secret ([`key_conversations`])
/// — cut to 128 bits of hex: stable across restarts and instances, never the
/// id itself, and not found again by hashing every chat id without the key.
/// Before either is known, a key of this process alone.
pub(crate) fn conversation_id(platform: &str, chat_id: i64) -> String {
    let key = CONVERSATION_KEY.get_or_init(|| conversation_key(&new_secret()));
    let tag = ring::hmac::sign(key, format!("{platform}:{chat_id}").as_bytes());
    let mut hex = String::with_capacity(32);
    for b in &tag.as_ref()[..16] {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

static CONVERSATION_KEY: OnceLock<ring::hmac::Key> = OnceLock::new();

/// Where the installation's secret is kept in the state store.
use crate::infra::state::keys::INSTALLATION_SECRET;
/// How long it is kept.
const INSTALLATION_SECRET_TTL: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// Keys conversation ids with the installation's secret when there is no
/// bot token to derive them from: 256 random bits made once and kept in the
/// state store, so ids stay stable across restarts (and instances on one
/// store) without an empty key anyone could hash chat ids under. Only
/// while tracing is on; with a token, the token's key stays.
pub(crate) async fn key_conversations(values: &dyn crate::infra::state::ValueStore) {
    if !is_on() || CONVERSATION_KEY.get().is_some() {
        return;
    }
    let secret = match values.get_value(INSTALLATION_SECRET).await {
        Ok(Some(secret)) if secret.len() >= 32 => secret,
        Ok(_) => {
            let secret = new_secret();
            if let Err(e) = values.put_value(INSTALLATION_SECRET, &secret, INSTALLATION_SECRET_TTL).await {
                tracing::warn!(error = %e, "could not keep the installation's secret: conversation ids change at restart");
            }
            secret
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not read the installation's secret: conversation ids change at restart");
            new_secret()
        }
    };
    let _ = CONVERSATION_KEY.set(conversation_key(&secret));
}

/// 256 random bits as hex.
fn new_secret() -> String {
    let mut hex = String::with_capacity(64);
    for _ in 0..4 {
        let _ = write!(hex, "{:016x}", rand::random::<u64>());
    }
    hex
}

fn conversation_key(token: &str) -> ring::hmac::Key {
    let derived = ring::hmac::sign(
        &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, b"mallbot otel conversation id"),
        token.as_bytes(),
    );
    ring::hmac::Key::new(ring::hmac::HMAC_SHA256, derived.as_ref())
}

/// The `gen_ai.provider.name` of an OpenAI-compatible base URL: the
/// well-known value of its host, `openai` for anything else.
pub(crate) fn provider_name(base_url: &str) -> &'static str {
    let host = reqwest::Url::parse(base_url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase));
    let host = host.as_deref().unwrap_or("");
    const KNOWN: &[(&str, &str)] = &[
        ("deepseek", "deepseek"),
        ("dashscope", "alibaba.qwen"),
        ("groq", "groq"),
        ("googleapis", "gcp.gemini"),
        ("mistral", "mistral_ai"),
        ("anthropic", "anthropic"),
        ("x.ai", "x_ai"),
        ("openrouter", "openrouter"),
        ("azure", "azure.ai.openai"),
    ];
    KNOWN.iter().find(|(part, _)| host.contains(part)).map(|(_, name)| *name).unwrap_or("openai")
}

/// The HTTP client of the exporter: the bot's reqwest, each request run on
/// the bot's runtime (the batch processor's thread has none).
#[derive(Debug)]
struct OnRuntime {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait]
impl HttpClient for OnRuntime {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let task = self.runtime.spawn(async move {
            let request = reqwest::Request::try_from(request)?;
            // The collector's URL may carry credentials: errors show it without them.
            let response = client.execute(request).await.map_err(crate::infra::redact::reqwest_error)?;
            let mut answer = Response::new(Bytes::new());
            *answer.status_mut() = response.status();
            *answer.headers_mut() = response.headers().clone();
            *answer.body_mut() = response.bytes().await.map_err(crate::infra::redact::reqwest_error)?;
            Ok::<_, HttpError>(answer)
        });
        task.await?
    }
}

/// The OTLP exporter, counting and (at most once a minute) warning about failed exports.
#[derive(Debug)]
struct Counted(opentelemetry_otlp::SpanExporter);

impl opentelemetry_sdk::trace::SpanExporter for Counted {
    fn export(&self, batch: Vec<SpanData>) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        let spans = batch.len();
        let exporting = self.0.export(batch);
        async move {
            let result = exporting.await;
            if let Err(error) = &result {
                metrics::counter!(crate::infra::ops::OTEL_EXPORT_FAILURES).increment(1);
                FAILED_EXPORTS.fetch_add(1, Ordering::Relaxed);
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
                let last = LAST_WARNING.load(Ordering::Relaxed);
                if now >= last + WARN_EVERY_SECS
                    && LAST_WARNING.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
                {
                    tracing::warn!(%error, spans, "otel: could not send spans to the collector (dropped; counted in mallbot_otel_export_failures_total; next warning in a minute at the soonest)");
                }
            }
            result
        }
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.0.set_resource(resource);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(traces_url("http://127.0.0.1:4318"), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("http://127.0.0.1:4318/"), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("https://c.example/otlp/v1/traces"), "https://c.example/otlp/v1/traces");
    }

    #[test]
    fn the_conversation_id_is_a_hash_not_the_chat() {
        let id = conversation_id("telegram", 4242);
        assert_eq!(id.len(), 32);
        assert!(!id.contains("4242"));
        assert_eq!(id, conversation_id("telegram", 4242), "stable");
        assert_ne!(id, conversation_id("telegram", 4243));
        assert_ne!(id, conversation_id("console", 4242));
    }

    #[test]
    fn providers_by_host() {
        assert_eq!(provider_name("https://api.deepseek.com/v1"), "deepseek");
        assert_eq!(provider_name("https://api.openai.com/v1"), "openai");
        assert_eq!(provider_name("http://127.0.0.1:11434/v1"), "openai");
    }
}
