//! The operator's window: Prometheus metrics (`/metrics`, behind `ops.token`
//! when set), liveness (`/healthz`) and readiness (`/readyz`, cached, never
//! calling the model) over HTTP on `ops.listen` — never on the webhook
//! listener. Every metric name the bot exports is named here, and only
//! bounded label values are used (never a user or chat).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use crate::app::App;

/// Updates by `kind` and `outcome`.
pub const UPDATES: &str = "mallbot_updates_total";
/// Seconds from a message to the first visible sign of its answer.
pub const FIRST_SIGN: &str = "mallbot_answer_first_sign_seconds";
/// Seconds from a message to its whole answer.
pub const ANSWER: &str = "mallbot_answer_seconds";
/// Model calls by `outcome` (`ok`, `retried`, `failed`).
pub const MODEL_CALLS: &str = "mallbot_model_calls_total";
/// Seconds a model call took (with its retries).
pub const MODEL_SECONDS: &str = "mallbot_model_call_seconds";
/// Model tokens by `kind` (`in`, `out`, `cached`).
pub const MODEL_TOKENS: &str = "mallbot_model_tokens_total";
/// Tool calls by `tool` and `outcome` (`ok`, `error`, `failed`, `cached`).
pub const TOOL_CALLS: &str = "mallbot_tool_calls_total";
/// Seconds a tool call took, by `tool`.
pub const TOOL_SECONDS: &str = "mallbot_tool_call_seconds";
/// Confirmations by `event` (`shown`, `approved`, `declined`, `expired`).
pub const CONFIRMATIONS: &str = "mallbot_confirmations_total";
/// Orders placed through the bot.
pub const ORDERS: &str = "mallbot_orders_created_total";
/// Messages held back, by `reason` (`rate_limited`, `over_budget`).
pub const LIMITED: &str = "mallbot_limited_messages_total";
/// The model concurrency limit now.
pub const MODEL_LIMIT: &str = "mallbot_model_concurrency_limit";
/// Model calls running now.
pub const MODEL_IN_FLIGHT: &str = "mallbot_model_in_flight";
/// Model calls waiting for a slot now.
pub const MODEL_QUEUED: &str = "mallbot_model_queued";
/// Failed Telegram Bot API calls by `code` (HTTP-like code or `network`).
pub const TELEGRAM_ERRORS: &str = "mallbot_telegram_api_errors_total";
/// Seconds a state-store operation took, by `op`.
pub const STATE_SECONDS: &str = "mallbot_state_op_seconds";
/// Voice messages by `outcome`: transcribed (`ok`, `empty`), failed (`timeout`,
/// `unavailable`, `refused`, `invalid`), or not sent (`too_long`, `too_big`, `download`).
pub const TRANSCRIPTIONS: &str = "mallbot_transcriptions_total";
/// Seconds a transcription request took.
pub const TRANSCRIPTION_SECONDS: &str = "mallbot_transcription_seconds";
/// Payments that arrived, by `outcome` of recording them in the mall
/// (`recorded`, `refused`, `waiting`).
pub const PAYMENTS: &str = "mallbot_payments_total";
/// Pre-checkout queries answered, by `outcome` (`ok` or why refused).
pub const CHECKOUTS: &str = "mallbot_pre_checkouts_total";
/// Order events told to shoppers, by `status`.
pub const EVENTS_TOLD: &str = "mallbot_order_events_told_total";

/// Failed OTLP exports of spans (`[otel]`): each one a batch dropped.
pub const OTEL_EXPORT_FAILURES: &str = "mallbot_otel_export_failures_total";
/// GenAI semantic conventions' `gen_ai.client.token.usage` (histogram of
/// tokens per model call, by `gen_ai_token_type` = `input` / `output`).
pub const GEN_AI_TOKEN_USAGE: &str = "gen_ai_client_token_usage";
/// GenAI semantic conventions' `gen_ai.client.operation.duration` (seconds of
/// one model call, `error_type` set when it failed).
pub const GEN_AI_OPERATION_DURATION: &str = "gen_ai_client_operation_duration";

/// Every metric name above, for the dashboard check.
pub const ALL: &[&str] = &[
    UPDATES,
    FIRST_SIGN,
    ANSWER,
    MODEL_CALLS,
    MODEL_SECONDS,
    MODEL_TOKENS,
    TOOL_CALLS,
    TOOL_SECONDS,
    CONFIRMATIONS,
    ORDERS,
    LIMITED,
    MODEL_LIMIT,
    MODEL_IN_FLIGHT,
    MODEL_QUEUED,
    TELEGRAM_ERRORS,
    STATE_SECONDS,
    TRANSCRIPTIONS,
    TRANSCRIPTION_SECONDS,
    PAYMENTS,
    CHECKOUTS,
    EVENTS_TOLD,
    OTEL_EXPORT_FAILURES,
    GEN_AI_TOKEN_USAGE,
    GEN_AI_OPERATION_DURATION,
];

/// Token buckets of [`GEN_AI_TOKEN_USAGE`], as the GenAI conventions advise.
const TOKEN_BUCKETS: &[f64] =
    &[1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0];

/// Histogram buckets in seconds: from a fast state-store call to a slow answer.
const BUCKETS: &[f64] = &[0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// The process-wide recorder, installed on first use; its handle renders the text format.
pub fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(BUCKETS)
            .and_then(|b| {
                b.set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Full(GEN_AI_TOKEN_USAGE.to_owned()),
                    TOKEN_BUCKETS,
                )
            })
            .map(|b| b.build_recorder())
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed; /metrics shows nothing");
        }
        handle
    })
}

/// Whether this instance is stopping (then `/readyz` answers 503).
#[derive(Debug, Default)]
pub struct Lifecycle {
    stopping: AtomicBool,
}

impl Lifecycle {
    /// The instance is shutting down: no longer ready.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// True once [`Lifecycle::stopping`] was called.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }
}

/// What the ops routes share: the app, the metrics token and the last readiness answer.
#[derive(Clone)]
struct Ops {
    app: App,
    token: Arc<str>,
    ready: Arc<tokio::sync::Mutex<Option<(Instant, bool, serde_json::Value)>>>,
}

/// `/metrics`, `/healthz` and `/readyz` for `app`.
pub fn routes(app: App) -> axum::Router {
    recorder();
    let token = Arc::from(app.config.ops.token.expose().trim());
    let ops = Ops { app, token, ready: Arc::default() };
    axum::Router::new()
        .route("/metrics", get(metrics_text))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .with_state(ops)
}

/// Serves [`routes`] on `listener` until `stop` resolves.
pub async fn serve_on(
    app: App,
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, routes(app)).with_graceful_shutdown(stop).await
}

/// Where the ops endpoints listen for `mallbot run`: `ops.listen`, or with a
/// webhook and no `ops.listen`, [`DEFAULT_LISTEN`]. The flag says whether the
/// operator chose the address (then failing to bind it is fatal).
pub fn listen_address(config: &crate::config::Config) -> Option<(String, bool)> {
    let listen = config.ops.listen.trim();
    if !listen.is_empty() {
        Some((listen.to_owned(), true))
    } else if config.telegram.mode == crate::config::TelegramMode::Webhook {
        Some((DEFAULT_LISTEN.to_owned(), false))
    } else {
        None
    }
}

/// The ops address with a webhook when `ops.listen` is empty: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// Binds the ops address ([`listen_address`]) and serves there in the
/// background until `stop` resolves; `None` when there is none (or the
/// default address is taken, which is logged).
pub async fn spawn(
    app: &App,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let Some((listen, chosen)) = listen_address(&app.config) else { return Ok(None) };
    let listener = match tokio::net::TcpListener::bind(&listen).await {
        Ok(listener) => listener,
        Err(e) if !chosen => {
            tracing::warn!(%listen, error = %e, "ops endpoints off: the default address is taken (set ops.listen)");
            return Ok(None);
        }
        Err(e) => return Err(anyhow::anyhow!("cannot listen on {listen} (`ops.listen`): {e}")),
    };
    let protected = !app.config.ops.token.is_empty();
    tracing::info!(%listen, metrics_token = protected, "ops endpoints: /metrics, /healthz, /readyz");
    let app = app.clone();
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = serve_on(app, listener, stop).await {
            tracing::error!(error = %e, "ops listener failed");
        }
    })))
}

/// The bearer token of an `Authorization` header (scheme matched in any case).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The metrics in Prometheus text format, with the model's load read now;
/// `401` without `ops.token` when one is set.
async fn metrics_text(State(ops): State<Ops>, headers: HeaderMap) -> axum::response::Response {
    if !ops.token.is_empty() {
        let offered = bearer(&headers).unwrap_or_default();
        if !services::server::same_secret(offered.as_bytes(), ops.token.as_bytes()) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "ops.token required\n",
            )
                .into_response();
        }
    }
    if let Some(load) = ops.app.router.model_load() {
        metrics::gauge!(MODEL_LIMIT).set(load.limit as f64);
        metrics::gauge!(MODEL_IN_FLIGHT).set(load.in_flight as f64);
        metrics::gauge!(MODEL_QUEUED).set(load.queued as f64);
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], recorder().render()).into_response()
}

/// How long each readiness check may take.
const READY_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a readiness answer is reused: a burst of probes costs one check.
pub const READY_CACHE: Duration = Duration::from_secs(5);

/// 200 when the state store and the mall answer; 503 when one does not, or
/// while stopping. The model is not readiness (basic mode answers without it)
/// and is never called here. The answer is reused for [`READY_CACHE`], and
/// probes arriving during a check wait for it. Only `ok`/`failed`: no detail.
async fn ready(State(ops): State<Ops>) -> impl IntoResponse {
    let stopping = ops.app.lifecycle.is_stopping();
    let mut cached = ops.ready.lock().await;
    let fresh = cached.as_ref().filter(|(at, _, _)| at.elapsed() < READY_CACHE).cloned();
    let (parts_ok, mut body) = match fresh {
        Some((_, ok, body)) => (ok, body),
        None => {
            let app = &ops.app;
            let timed =
                |check| async move { tokio::time::timeout(READY_TIMEOUT, check).await.is_ok_and(|ok| ok) };
            let (state, mall) = tokio::join!(
                timed(Box::pin(async { crate::health::state_check(app).await.ok })
                    as std::pin::Pin<Box<dyn Future<Output = bool> + Send>>),
                timed(Box::pin(async { crate::health::mall_check(app).await.ok })),
            );
            let word = |ok: bool| if ok { "ok" } else { "failed" };
            let body = serde_json::json!({ "state": word(state), "mall": word(mall) });
            *cached = Some((Instant::now(), state && mall, body.clone()));
            (state && mall, body)
        }
    };
    drop(cached);
    let ready = parts_ok && !stopping;
    body["ready"] = ready.into();
    body["stopping"] = stopping.into();
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, axum::Json(body))
}

/// Counts a failed Telegram Bot API call by its code.
pub fn telegram_error(error: &teloxide::RequestError) {
    use teloxide::RequestError;
    let code = match error {
        RequestError::RetryAfter(_) => "429",
        RequestError::Api(api) => {
            let text = api.to_string();
            if text.starts_with("Forbidden") {
                "403"
            } else if text.starts_with("Unauthorized") {
                "401"
            } else if text.starts_with("Not Found") {
                "404"
            } else if text.starts_with("Conflict") {
                "409"
            } else {
                "400"
            }
        }
        RequestError::MigrateToChatId(_) => "400",
        RequestError::Network(_) => "network",
        RequestError::InvalidJson { .. } => "invalid_json",
        RequestError::Io(_) => "io",
    };
    metrics::counter!(TELEGRAM_ERRORS, "code" => code).increment(1);
}

/// Counts an update by `kind` (`message`, `command`, `button`, `edited`,
/// `other`) and `outcome` (`answered`, `ignored`, `refused`, `failed`).
pub fn count_update(kind: &'static str, outcome: &'static str) {
    metrics::counter!(UPDATES, "kind" => kind, "outcome" => outcome).increment(1);
}
