//! `mallbot mall-server`: the embedded mall behind the contract's REST API
//! (`services::server`), guarded for a listener others can reach: without
//! `mall.api_key` it listens on loopback only, and every request's `Host`
//! must be localhost, 127.0.0.1, ::1 or one of `mall.allowed_hosts` (a page
//! in a shopper's browser cannot reach it through a rebound DNS name).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use crate::infra::config::Config;

/// Host names always accepted: the machine itself.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why `listen` may not be used with `config`, if it may not.
pub(crate) fn refusal(config: &Config, listen: SocketAddr) -> Option<String> {
    (config.mall.api_key.is_empty() && !listen.ip().is_loopback()).then(|| {
        format!(
            "mall-server will not listen on {listen} without mall.api_key: anyone who reaches it could read \
             and change every shopper's cart and orders. Set mall.api_key (MALLBOT_MALL__API_KEY), or listen \
             on 127.0.0.1"
        )
    })
}

/// The host part of a `Host` header value, lower-case (`[::1]:8080` → `::1`).
fn host_name(value: &str) -> String {
    let value = value.trim();
    let host = match value.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => value
            .rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(value, |(h, _)| h),
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether a `Host` header value names one of `allowed` (or loopback).
pub(crate) fn host_allowed(value: &str, allowed: &[String]) -> bool {
    let host = host_name(value);
    LOOPBACK_HOSTS.contains(&host.as_str()) || allowed.iter().any(|a| a.eq_ignore_ascii_case(&host))
}

async fn check_host(State(allowed): State<Arc<Vec<String>>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).map(str::to_owned);
    match host {
        Some(host) if host_allowed(&host, &allowed) => next.run(request).await,
        host => {
            tracing::warn!(
                host = host.as_deref().unwrap_or(""),
                "mall request refused: Host not in mall.allowed_hosts"
            );
            let body = serde_json::json!({"error": {"code": "forbidden",
                "message": "this Host is not one of the mall's (mall.allowed_hosts)"}});
            (StatusCode::FORBIDDEN, axum::Json(body)).into_response()
        }
    }
}

/// Serves the embedded mall on `listen` until `shutdown` completes.
pub async fn serve(
    config: &Config,
    listen: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    if let Some(why) = refusal(config, listen) {
        anyhow::bail!(why);
    }
    // The demo mall, or the mall's own data (mall.data), read again when it changes.
    let mall = crate::infra::mall_data::open_embedded(config)?.with_policy(config.order_policy());
    // A mall.info_dir (or the data folder's info/) replaces the mall's information with the folder's.
    let served = crate::app::with_info_dir(config, Arc::new(mall.clone()))?;
    let listener =
        tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    let key = (!config.mall.api_key.is_empty()).then(|| config.mall.api_key.expose().to_owned());
    let staff_key = (!config.mall.staff_key.is_empty()).then(|| config.mall.staff_key.expose().to_owned());
    let allowed: Vec<String> = config.mall.allowed_hosts.iter().map(|h| host_name(h)).collect();
    tracing::info!(%listen, auth = key.is_some(), staff = staff_key.is_some(), hosts = ?allowed, "mall server listening");
    eprintln!("mall server listening on http://{listen}");
    // Unpaid orders expire on every order request; this brings their stock
    // back when nobody asks.
    let sweeper = mall.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(30));
        loop {
            every.tick().await;
            let mall = sweeper.clone();
            match tokio::task::spawn_blocking(move || mall.sweep_expired()).await {
                Ok(Ok(0)) => {}
                Ok(Ok(expired)) => tracing::info!(expired, "unpaid orders expired"),
                Ok(Err(error)) => tracing::warn!(%error, "expiring unpaid orders failed"),
                Err(error) => tracing::warn!(%error, "the expiry task failed"),
            }
        }
    });
    let routes = services::server::router(served, key, staff_key)
        .layer(middleware::from_fn_with_state(Arc::new(allowed), check_host))
        .layer(middleware::from_fn(trace_request));
    axum::serve(listener, routes).with_graceful_shutdown(shutdown).await?;
    tracing::info!(%listen, "mall server stopped");
    Ok(())
}

/// The trace's server span of one request (`GET /api/products/{id}`),
/// a child of the caller's `traceparent` when it sent one: the bot's mall
/// calls and the mall's answers in one trace.
async fn trace_request(request: Request, next: Next) -> Response {
    if !crate::infra::otel::is_on() {
        return next.run(request).await;
    }
    let route = services::http::route_template(request.uri().path());
    let span = tracing::info_span!(
        target: "otel",
        "mall_request",
        otel.name = %format!("{} {route}", request.method()),
        otel.kind = "server",
        http.request.method = %request.method(),
        http.route = %route,
        http.response.status_code = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
        crate::infra::otel::continue_from(&span, header("traceparent"), header("tracestate"));
    }
    let response = tracing::Instrument::instrument(next.run(request), span.clone()).await;
    span.record("http.response.status_code", i64::from(response.status().as_u16()));
    if response.status().is_server_error() {
        span.record("otel.status_code", "error");
    }
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn host_names_with_ports_and_brackets() {
        let allowed = vec!["mall.example".to_owned()];
        for ok in ["127.0.0.1:8080", "localhost", "[::1]:80", "MALL.example:443", "mall.example."] {
            assert!(host_allowed(ok, &allowed), "{ok}");
        }
        for refused in ["attacker.example:8080", "mall.example.attacker.example", "", "10.0.0.5"] {
            assert!(!host_allowed(refused, &allowed), "{refused}");
        }
    }

    #[test]
    fn no_key_means_loopback_only() {
        let mut config = Config::default();
        assert!(
            refusal(&config, "0.0.0.0:8080".parse().unwrap()).is_some_and(|w| w.contains("mall.api_key"))
        );
        assert!(refusal(&config, "127.0.0.1:8080".parse().unwrap()).is_none());
        config.mall.api_key = "k".into();
        assert!(refusal(&config, "0.0.0.0:8080".parse().unwrap()).is_none());
    }
}
