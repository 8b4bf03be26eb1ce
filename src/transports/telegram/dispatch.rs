//! The update tree and dispatching it until a stop.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::dispatching::{DefaultKey, DispatcherBuilder, UpdateHandler};
use teloxide::error_handlers::ErrorHandler;
use teloxide::prelude::*;
use teloxide::update_listeners::UpdateListener;

use super::transport::{TelegramError, Transport};
use super::{pay, update};
use crate::app::App;

/// How long a stop waits for the turns in flight before giving up on them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The update tree: messages (a `successful_payment` among them), button
/// presses, pre-checkout queries and reactions to the bot's answers. Everything else (edited
/// messages, channel posts…) is not asked for and ignored if it arrives.
pub fn schema() -> UpdateHandler<TelegramError> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(update::on_message))
        .branch(Update::filter_callback_query().endpoint(update::on_button))
        .branch(Update::filter_pre_checkout_query().endpoint(pay::on_pre_checkout))
        .branch(Update::filter_message_reaction_updated().endpoint(update::on_reaction))
}

/// The updates the bot asks Telegram for (by polling or webhook): without
/// the list Telegram leaves out reactions.
pub const ALLOWED_UPDATES: [teloxide::types::AllowedUpdate; 4] = [
    teloxide::types::AllowedUpdate::Message,
    teloxide::types::AllowedUpdate::CallbackQuery,
    teloxide::types::AllowedUpdate::PreCheckoutQuery,
    teloxide::types::AllowedUpdate::MessageReaction,
];

/// A dispatcher for `bot` around `app`: the update tree, its dependencies,
/// an error handler that logs, and quiet ignoring of unhandled updates.
/// Updates of one chat are handled one at a time, in order (in the
/// transport's [`lanes::Lanes`]).
pub fn dispatcher(bot: Bot, app: App) -> DispatcherBuilder<Bot, TelegramError, DefaultKey> {
    dispatcher_for(bot, Arc::new(Transport::new(app)))
}

fn dispatcher_for(bot: Bot, transport: Arc<Transport>) -> DispatcherBuilder<Bot, TelegramError, DefaultKey> {
    Dispatcher::builder(bot, schema())
        .dependencies(dptree::deps![transport])
        .default_handler(|update| async move {
            let kind = match update.kind {
                teloxide::types::UpdateKind::EditedMessage(_) => "edited",
                _ => "other",
            };
            crate::infra::ops::count_update(kind, "ignored");
            tracing::debug!(update_id = update.id.0, "update ignored");
        })
        .error_handler(Arc::new(|error: TelegramError| async move {
            tracing::error!(error = %error, "telegram update handler failed");
        }))
}

/// Listens, from this call on, for Ctrl-C (SIGINT) and SIGTERM (what `kill`,
/// systemd and container runtimes send); the future resolves with the name
/// of the first that arrives, even if it arrived before the future was awaited.
#[cfg(unix)]
pub fn stop_signal() -> impl Future<Output = &'static str> + Send {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        tokio::select! {
            name = next_signal(interrupt, "Ctrl-C") => name,
            name = next_signal(terminate, "SIGTERM") => name,
        }
    }
}

/// Resolves with `"Ctrl-C"` when Ctrl-C is pressed (the only stop signal
/// where there is no SIGTERM).
#[cfg(not(unix))]
pub fn stop_signal() -> impl Future<Output = &'static str> + Send {
    async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
        "Ctrl-C"
    }
}

/// `name` once the signal arrives; never if it could not be listened for (logged).
#[cfg(unix)]
async fn next_signal(
    listening: std::io::Result<tokio::signal::unix::Signal>,
    name: &'static str,
) -> &'static str {
    match listening {
        Ok(mut signal) => {
            signal.recv().await;
        }
        Err(e) => {
            tracing::warn!(error = %e, signal = name, "cannot listen for the signal");
            std::future::pending::<()>().await;
        }
    }
    name
}

/// Dispatches the updates of `listener` to `app` until `stop` resolves; then
/// takes no new updates and waits for the turns in flight, at most
/// [`SHUTDOWN_GRACE`].
pub(crate) async fn dispatch_until<L, E>(
    bot: Bot,
    app: App,
    mut listener: L,
    listener_errors: Arc<E>,
    stop: impl Future<Output = &'static str>,
) -> Result<(), TelegramError>
where
    L: UpdateListener + Send,
    L::Err: Debug,
    E: ErrorHandler<L::Err> + Send + Sync,
{
    let transport = Arc::new(Transport::new(app));
    let lanes = transport.lanes.clone();
    let mut dispatcher = dispatcher_for(bot, transport).build();
    let token = dispatcher.shutdown_token();
    // Stopping the listener too ends the dispatching even when the dispatcher
    // misses the shutdown notice while it is busy handing out an update.
    let listener_stop = listener.stop_token();
    // Done when the dispatcher has handed out its last update and every
    // lane has handled what it was given.
    let dispatching = async {
        let ended = dispatcher.try_dispatch_with_listener(listener, listener_errors).await;
        lanes.wait().await;
        ended
    };
    tokio::pin!(dispatching, stop);
    let signal = tokio::select! {
        ended = &mut dispatching => return ended.map_err(TelegramError::from),
        signal = &mut stop => signal,
    };
    tracing::info!(
        signal,
        grace_secs = SHUTDOWN_GRACE.as_secs(),
        "stop requested: taking no new updates, finishing the turns in flight"
    );
    if token.shutdown().is_err() {
        tracing::info!("stopped before any update was taken");
        return Ok(());
    }
    listener_stop.stop();
    let started = Instant::now();
    match tokio::time::timeout(SHUTDOWN_GRACE, &mut dispatching).await {
        Ok(ended) => {
            tracing::info!(waited_ms = started.elapsed().as_millis() as u64, "turns in flight finished");
            ended.map_err(TelegramError::from)
        }
        Err(_) => {
            tracing::warn!(
                grace_secs = SHUTDOWN_GRACE.as_secs(),
                "turns still running after the grace period; stopping without them"
            );
            Ok(())
        }
    }
}
