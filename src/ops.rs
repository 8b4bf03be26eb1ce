//! The operator's window: Prometheus metrics (`/metrics`), liveness
//! (`/healthz`) and readiness (`/readyz`) over HTTP on `ops.listen`, also
//! merged into the webhook listener. Every metric name the bot exports is
//! named here, and only bounded label values are used (never a user or chat).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
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
];

/// Histogram buckets in seconds: from a fast state-store call to a slow answer.
const BUCKETS: &[f64] = &[0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// The process-wide recorder, installed on first use; its handle renders the text format.
pub fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(BUCKETS)
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

/// `/metrics`, `/healthz` and `/readyz` for `app`.
pub fn routes(app: App) -> axum::Router {
    recorder();
    axum::Router::new()
        .route("/metrics", get(metrics_text))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .with_state(app)
}

/// Serves [`routes`] on `listener` until `stop` resolves.
pub async fn serve_on(
    app: App,
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, routes(app)).with_graceful_shutdown(stop).await
}

/// Binds `ops.listen` and serves there in the background until `stop`
/// resolves; `None` when `ops.listen` is empty.
pub async fn spawn(
    app: &App,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let listen = app.config.ops.listen.trim();
    if listen.is_empty() {
        return Ok(None);
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {listen} (`ops.listen`): {e}"))?;
    tracing::info!(%listen, "ops endpoints: /metrics, /healthz, /readyz");
    let app = app.clone();
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = serve_on(app, listener, stop).await {
            tracing::error!(error = %e, "ops listener failed");
        }
    })))
}

/// The metrics in Prometheus text format, with the model's load read now.
async fn metrics_text(State(app): State<App>) -> impl IntoResponse {
    if let Some(load) = app.router.model_load() {
        metrics::gauge!(MODEL_LIMIT).set(load.limit as f64);
        metrics::gauge!(MODEL_IN_FLIGHT).set(load.in_flight as f64);
        metrics::gauge!(MODEL_QUEUED).set(load.queued as f64);
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], recorder().render())
}

/// How long each readiness check may take.
const READY_TIMEOUT: Duration = Duration::from_secs(3);

/// 200 with each part's state when the state store, mall and model answer;
/// 503 when one does not, or while stopping. Only `ok`/`failed`: no detail.
async fn ready(State(app): State<App>) -> impl IntoResponse {
    let timed = |check| async move { tokio::time::timeout(READY_TIMEOUT, check).await.is_ok_and(|ok| ok) };
    let (state, mall, model) = tokio::join!(
        timed(Box::pin(async { crate::health::state_check(&app).await.ok })
            as std::pin::Pin<Box<dyn Future<Output = bool> + Send>>),
        timed(Box::pin(async { crate::health::mall_check(&app).await.ok })),
        timed(Box::pin(async { crate::health::model_check(&app).await.ok })),
    );
    let stopping = app.lifecycle.is_stopping();
    let ready = state && mall && model && !stopping;
    let word = |ok: bool| if ok { "ok" } else { "failed" };
    let body = serde_json::json!({
        "ready": ready,
        "state": word(state),
        "mall": word(mall),
        "model": word(model),
        "stopping": stopping,
    });
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
