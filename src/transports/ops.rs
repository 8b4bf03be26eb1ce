//! The ops endpoints over HTTP: `/metrics` (behind `ops.token` when set),
//! `/healthz` and `/readyz` (cached, never calling the model), served on
//! `ops.listen` — never on the webhook listener.
//!
//! `/readyz` checks the state store and the mall (each under a 3 s timeout);
//! the answer is kept for 5 s and probes that arrive during a check wait for
//! it. It also reads `App::lifecycle`: `telegram::run` and the webhook server
//! mark the instance stopping when the stop signal arrives, before the grace
//! period for the turns in flight, so a load balancer stops sending it work.
//! Without `ops.listen`, a webhook bot serves these on `127.0.0.1:9464`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::engine::App;
use crate::infra::ops::{MODEL_IN_FLIGHT, MODEL_LIMIT, MODEL_QUEUED, recorder};

/// What the ops routes share: the app, the metrics token and the last readiness answer.
#[derive(Clone)]
struct Ops {
    app: App,
    token: Arc<str>,
    ready: Arc<tokio::sync::Mutex<Option<(Instant, bool, serde_json::Value)>>>,
}

/// `/metrics`, `/healthz` and `/readyz` for `app`.
pub(crate) fn routes(app: App) -> axum::Router {
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
pub(crate) fn listen_address(config: &crate::infra::config::Config) -> Option<(String, bool)> {
    let listen = config.ops.listen.trim();
    if !listen.is_empty() {
        Some((listen.to_owned(), true))
    } else if config.telegram.mode == crate::infra::config::TelegramMode::Webhook {
        Some((DEFAULT_LISTEN.to_owned(), false))
    } else {
        None
    }
}

/// The ops address with a webhook when `ops.listen` is empty: loopback only.
pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// Binds the ops address ([`listen_address`]) and serves there in the
/// background until `stop` resolves; `None` when there is none (or the
/// default address is taken, which is logged).
pub(crate) async fn spawn(
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

/// The metrics in Prometheus text format, with the model's load read now;
/// `401` without `ops.token` when one is set.
async fn metrics_text(State(ops): State<Ops>, headers: HeaderMap) -> axum::response::Response {
    if !ops.token.is_empty() && !services::server::bearer_is(&headers, &ops.token) {
        return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "ops.token required\n")
            .into_response();
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
pub(crate) const READY_CACHE: Duration = Duration::from_secs(5);

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
                timed(Box::pin(async { crate::engine::health::state_check(app).await.ok })
                    as std::pin::Pin<Box<dyn Future<Output = bool> + Send>>),
                timed(Box::pin(async { crate::engine::health::mall_check(app).await.ok })),
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
