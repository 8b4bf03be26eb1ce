//! The operator's window. This file is what the rest of the bot counts with:
//! every metric name the bot exports (only bounded label values are used,
//! never a user or chat), the process-wide Prometheus recorder, the counting
//! helpers and [`Lifecycle`]; it imports nothing of the crate, so the router,
//! the model client, the state store and the transport may all use it.
//! `transports/ops.rs` serves them: Prometheus metrics (`/metrics`, behind `ops.token`
//! when set), liveness (`/healthz`) and readiness (`/readyz`, cached, never
//! calling the model) on `ops.listen` — never on the webhook listener.
//!
//! Where things are counted: updates in `telegram/tree.rs` (every update once, as it ends,
//! and the dispatcher's default handler for what the update tree does not
//! take); answer latency in `telegram/live.rs` (the first thing shown, and
//! the whole answer in `Handle::run_live`); model calls in `router/round.rs`
//! (ok/failed, latency) and `llm/openai.rs` (each retry, the GenAI
//! histograms); tokens in `stats.rs` (`Stats::add_usage`); tool calls in
//! `router/calls.rs` (`run_tool`) and `router/round.rs` (cached); messages
//! held back in `router/access.rs` (allow-lists, rate limit, budget) and
//! `telegram/tree.rs` (a full lane, too many chats); confirmations and
//! orders in `router/confirm.rs`; Telegram errors on every failed attempt in
//! `telegram/send/call.rs`; transcriptions in `stt.rs` and, refused before
//! one, in `telegram/media.rs`; payments in `payments/ledger.rs`,
//! pre-checkouts in `telegram/pay.rs`, order events told in
//! `payments/events.rs`; hand-offs in `router/desk.rs` and `telegram/desk.rs`,
//! desk messages in `telegram/desk.rs`; report events in `report.rs`; failed
//! trace exports in `otel.rs`; state-store latency in `state/timed.rs`, which
//! `App::with_map` (where every constructor of `App` ends) wraps around the
//! store. `/metrics` reads the model's concurrency
//! (`FunctionCallRouter::model_load`) into three gauges before it renders.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// Updates by `kind` and `outcome`.
pub(crate) const UPDATES: &str = "mallbot_updates_total";
/// Seconds from a message to the first visible sign of its answer.
pub(crate) const FIRST_SIGN: &str = "mallbot_answer_first_sign_seconds";
/// Seconds from a message to its whole answer.
pub(crate) const ANSWER: &str = "mallbot_answer_seconds";
/// Model calls by `outcome` (`ok`, `retried`, `failed`).
pub(crate) const MODEL_CALLS: &str = "mallbot_model_calls_total";
/// Seconds a model call took (with its retries).
pub(crate) const MODEL_SECONDS: &str = "mallbot_model_call_seconds";
/// Model tokens by `kind` (`in`, `out`, `cached`).
pub(crate) const MODEL_TOKENS: &str = "mallbot_model_tokens_total";
/// Tool calls by `tool` and `outcome` (`ok`, `error`, `failed`, `cached`).
pub(crate) const TOOL_CALLS: &str = "mallbot_tool_calls_total";
/// Turns answered in their tools' own words, without a model round to re-word them.
pub(crate) const DIRECT_ANSWERS: &str = "mallbot_direct_answers_total";
/// Seconds a tool call took, by `tool`.
pub(crate) const TOOL_SECONDS: &str = "mallbot_tool_call_seconds";
/// Confirmations by `event` (`shown`, `approved`, `declined`, `expired`).
pub(crate) const CONFIRMATIONS: &str = "mallbot_confirmations_total";
/// Orders placed through the bot.
pub(crate) const ORDERS: &str = "mallbot_orders_created_total";
/// Messages held back, by `reason` (`rate_limited`, `over_budget`).
pub(crate) const LIMITED: &str = "mallbot_limited_messages_total";
/// The model concurrency limit now.
pub(crate) const MODEL_LIMIT: &str = "mallbot_model_concurrency_limit";
/// Model calls running now.
pub(crate) const MODEL_IN_FLIGHT: &str = "mallbot_model_in_flight";
/// Model calls waiting for a slot now.
pub(crate) const MODEL_QUEUED: &str = "mallbot_model_queued";
/// Failed Telegram Bot API calls by `code` (HTTP-like code or `network`).
pub(crate) const TELEGRAM_ERRORS: &str = "mallbot_telegram_api_errors_total";
/// Seconds a state-store operation took, by `op`.
pub(crate) const STATE_SECONDS: &str = "mallbot_state_op_seconds";
/// Voice messages by `outcome`: transcribed (`ok`, `empty`), failed (`timeout`,
/// `unavailable`, `refused`, `invalid`), or not sent (`too_long`, `too_big`, `download`).
pub(crate) const TRANSCRIPTIONS: &str = "mallbot_transcriptions_total";
/// Seconds a transcription request took.
pub(crate) const TRANSCRIPTION_SECONDS: &str = "mallbot_transcription_seconds";
/// Payments that arrived, by `outcome` of recording them in the mall
/// (`recorded`, `refused`, `waiting`).
pub(crate) const PAYMENTS: &str = "mallbot_payments_total";
/// Pre-checkout queries answered, by `outcome` (`ok` or why refused).
pub(crate) const CHECKOUTS: &str = "mallbot_pre_checkouts_total";
/// Order events told to shoppers, by `status`.
pub(crate) const EVENTS_TOLD: &str = "mallbot_order_events_told_total";
/// Stock and price alerts, by `event` (`set`, `told`, `expired`).
pub(crate) const ALERTS: &str = "mallbot_alerts_total";
/// Requests for a person, by `outcome` (`opened`, `reopened`, `no_desk`,
/// `after_hours`, `failed`).
pub(crate) const HANDOFFS: &str = "mallbot_handoffs_total";
/// Messages relayed between shoppers and the service desk, by `direction`
/// (`to_desk`, `to_shopper`) and `outcome` (`relayed`, `failed`, `blocked`, `nobody`).
pub(crate) const DESK_MESSAGES: &str = "mallbot_desk_messages_total";
/// What the report counts, by `kind` (`dont_know`, `empty_search`,
/// `tool_error`, `round_limit`, `handoff`, `thumbs_up`, `thumbs_down`): the
/// same events `mallbot report` lists.
pub(crate) const REPORT_EVENTS: &str = "mallbot_report_events_total";

/// Failed OTLP exports of spans (`[otel]`): each one a batch dropped.
pub(crate) const OTEL_EXPORT_FAILURES: &str = "mallbot_otel_export_failures_total";
/// GenAI semantic conventions' `gen_ai.client.token.usage` (histogram of
/// tokens per model call, by `gen_ai_token_type` = `input` / `output`).
pub(crate) const GEN_AI_TOKEN_USAGE: &str = "gen_ai_client_token_usage";
/// GenAI semantic conventions' `gen_ai.client.operation.duration` (seconds of
/// one model call, `error_type` set when it failed).
pub(crate) const GEN_AI_OPERATION_DURATION: &str = "gen_ai_client_operation_duration";

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
    ALERTS,
    HANDOFFS,
    DESK_MESSAGES,
    REPORT_EVENTS,
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

/// Counts a failed Telegram Bot API call by its code.
pub(crate) fn telegram_error(error: &teloxide::RequestError) {
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
pub(crate) fn count_update(kind: &'static str, outcome: &'static str) {
    metrics::counter!(UPDATES, "kind" => kind, "outcome" => outcome).increment(1);
}
