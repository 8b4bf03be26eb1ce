//! Webhook mode (`telegram.mode = "webhook"`): Telegram posts updates to
//! `telegram.webhook_url`; the bot listens on `telegram.webhook_listen`,
//! checks the secret header, drops re-deliveries of an update it already
//! took, and always answers 200 so Telegram does not retry. On a stop the
//! listener stops accepting connections, the updates already accepted are
//! still handled, and the turns in flight finish.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use futures::Stream;
use teloxide::prelude::*;
use teloxide::stop::{StopToken, mk_stop_token};
use teloxide::update_listeners::{AsUpdateStream, UpdateListener};
use tokio::sync::mpsc;

use super::{TelegramError, dispatch_until, send};
use crate::engine::App;
use crate::infra::state::StateStore;

/// How long an update id is remembered to drop re-deliveries.
const REDELIVERY_WINDOW: Duration = Duration::from_secs(3600);

/// The header Telegram sends the secret in.
const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

type UpdateStream = Pin<Box<dyn Stream<Item = Result<Update, Infallible>> + Send>>;

#[derive(Clone)]
struct Inbox {
    secret: Arc<str>,
    state: Arc<dyn StateStore>,
    updates: mpsc::UnboundedSender<Update>,
}

/// Registers the webhook with Telegram and serves it on
/// `telegram.webhook_listen` until `stop` resolves.
pub(crate) async fn serve(
    bot: Bot,
    app: App,
    stop: impl Future<Output = &'static str>,
) -> Result<(), TelegramError> {
    let config = &app.config.telegram;
    let addr: SocketAddr = config.webhook_listen.parse().map_err(|e| {
        TelegramError::Webhook(format!(
            "config key `telegram.webhook_listen`: `{}` is not an address like 0.0.0.0:8443: {e}",
            config.webhook_listen
        ))
    })?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        TelegramError::Webhook(format!("cannot listen on {addr} (`telegram.webhook_listen`): {e}"))
    })?;
    serve_on_until(bot, app, listener, stop).await
}

/// Like [`serve`], on a listener already bound, until `stop` resolves.
pub async fn serve_on_until(
    bot: Bot,
    app: App,
    listener: tokio::net::TcpListener,
    stop: impl Future<Output = &'static str>,
) -> Result<(), TelegramError> {
    let config = app.config.telegram.clone();
    let url = reqwest::Url::parse(config.webhook_url.trim()).map_err(|e| {
        TelegramError::Webhook(format!(
            "config key `telegram.webhook_url`: `{}` is not a URL ({e}); set the public HTTPS URL Telegram \
             should post to, or use telegram.mode = \"polling\"",
            config.webhook_url
        ))
    })?;
    // Not ready from the stop on, so a load balancer stops sending here.
    let lifecycle = app.lifecycle.clone();
    let stop = async move {
        let name = stop.await;
        lifecycle.stopping();
        name
    };
    let (updates, received) = mpsc::unbounded_channel();
    let inbox =
        Inbox { secret: Arc::from(config.webhook_secret.expose()), state: app.state.clone(), updates };
    // Only the webhook path: the ops endpoints have their own listener (`ops.listen`).
    let routes = axum::Router::new().route(url.path(), post(receive)).with_state(inbox);
    // Stopping the listener stops the server: no new connections; once the
    // requests in progress are answered the queue closes and the dispatcher
    // handles what is left in it, then ends.
    let (stop_token, stop_flag) = mk_stop_token();
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, routes).with_graceful_shutdown(stop_flag).await {
            tracing::error!(error = %e, "webhook server failed");
        }
        tracing::info!("webhook listener closed");
    });

    let mut request =
        teloxide::payloads::SetWebhook::new(url.clone()).allowed_updates(super::ALLOWED_UPDATES);
    if !config.webhook_secret.is_empty() {
        request = request.secret_token(config.webhook_secret.expose().to_owned());
    }
    if let Err(e) = send::call(&bot, &request).await {
        stop_token.stop();
        return Err(TelegramError::Webhook(format!("Telegram refused setWebhook for {url}: {e}")));
    }
    tracing::info!(url = %url, "webhook registered");

    let queued =
        futures::stream::unfold(received, |mut rx| async move { rx.recv().await.map(|u| (Ok(u), rx)) });
    let listener = WebhookListener { stream: Box::pin(queued), stop_token: stop_token.clone() };
    let ignore = Arc::new(|_: Infallible| async {});
    let result = dispatch_until(bot, app, listener, ignore, stop).await;
    stop_token.stop();
    if tokio::time::timeout(Duration::from_secs(5), server).await.is_err() {
        tracing::warn!("webhook listener still has open connections; leaving them");
    }
    result
}

/// The updates the webhook received, as the dispatcher reads them.
struct WebhookListener {
    stream: UpdateStream,
    stop_token: StopToken,
}

impl<'a> AsUpdateStream<'a> for WebhookListener {
    type StreamErr = Infallible;
    type Stream = &'a mut UpdateStream;

    fn as_stream(&'a mut self) -> Self::Stream {
        &mut self.stream
    }
}

impl UpdateListener for WebhookListener {
    type Err = Infallible;

    fn stop_token(&mut self) -> StopToken {
        self.stop_token.clone()
    }
}

/// One POST from Telegram: checked, de-duplicated, queued; always 200 for Telegram.
async fn receive(State(inbox): State<Inbox>, headers: HeaderMap, body: Bytes) -> StatusCode {
    if !inbox.secret.is_empty() {
        let given = headers.get(SECRET_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
        if !services::server::same_secret(given.as_bytes(), inbox.secret.as_bytes()) {
            tracing::warn!("webhook call without the right secret token; refused");
            return StatusCode::UNAUTHORIZED;
        }
    }
    let update: Update = match serde_json::from_slice(&body) {
        Ok(update) => update,
        Err(e) => {
            tracing::warn!(error = %e, "webhook body is not an update; ignored");
            return StatusCode::OK;
        }
    };
    match inbox.state.first_delivery(update.id.0 as i64, REDELIVERY_WINDOW).await {
        Ok(false) => {
            tracing::info!(update_id = update.id.0, "update delivered again; dropped");
            return StatusCode::OK;
        }
        Ok(true) => {}
        Err(e) => tracing::warn!(error = %e, "could not check for a re-delivered update; handling it"),
    }
    if inbox.updates.send(update).is_err() {
        tracing::warn!("webhook update arrived while shutting down; dropped");
    }
    StatusCode::OK
}
