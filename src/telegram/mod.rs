//! The Telegram transport: long polling (or a webhook), the update tree that
//! turns messages and button presses into router calls, and the delivery of
//! answers with their buttons.
//!
//! In private chats every text message goes to the router; in groups only
//! messages addressed to the bot (an @mention, a reply to the bot, or
//! `/command@bot`). Risky actions show Confirm / Cancel buttons whose press is
//! answered first, then shown in place of the buttons, then carried out.
//!
//! `run` stops on Ctrl-C or SIGTERM: it takes no new updates, lets the turns
//! in flight finish (at most [`SHUTDOWN_GRACE`]) and returns. Meanwhile it
//! purges expired state every [`PURGE_EVERY`].

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use handlers::Lang;
use teloxide::dispatching::{DefaultKey, DispatcherBuilder, UpdateHandler};
use teloxide::error_handlers::ErrorHandler;
use teloxide::prelude::*;
use teloxide::types::{BotCommand, Me, User};
use teloxide::update_listeners::{Polling, UpdateListener};
use teloxide::{ApiError, RequestError};

use crate::app::App;
use crate::config::{TelegramConfig, TelegramMode};
use crate::state::StateStore;

pub mod callback;
mod commands;
pub mod files;
pub mod format;
pub mod handle;
pub mod inbound;
pub mod lanes;
pub mod links;
pub mod live;
pub mod markdown;
pub mod outbox;
pub mod pay;
pub mod photos;
pub mod send;
pub mod texts;
pub mod trust;
mod update;
pub mod webhook;

pub use format::{escape_html, split_message};

/// How long a stop waits for the turns in flight before giving up on them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// How often expired state (pending actions, update ids, counters, history,
/// hand-off links) is purged while the bot runs.
pub const PURGE_EVERY: Duration = Duration::from_secs(600);

/// Why the Telegram transport cannot start or could not answer.
#[derive(Debug, thiserror::Error)]
pub enum TelegramError {
    /// No token configured.
    #[error(
        "no Telegram bot token: set `telegram.token` in the config file or the MALLBOT_TELEGRAM__TOKEN \
         environment variable (create a bot and get its token from @BotFather)"
    )]
    MissingToken,
    /// Telegram refused the token (`getMe` answered 401 Unauthorized).
    #[error(
        "Telegram refused the bot token (getMe at {api_url} answered 401 Unauthorized): check `telegram.token` \
         / MALLBOT_TELEGRAM__TOKEN — copy the token again from @BotFather"
    )]
    InvalidToken { api_url: String },
    /// `telegram.api_url` is not a URL.
    #[error("config key `telegram.api_url`: `{url}` is not a valid URL: {reason}")]
    BadApiUrl { url: String, reason: String },
    /// The Bot API server could not be reached at start.
    #[error("cannot reach the Telegram Bot API at {api_url} (`telegram.api_url`): {source}")]
    Unreachable { api_url: String, source: RequestError },
    /// The webhook could not be set up.
    #[error("webhook: {0}")]
    Webhook(String),
    /// A request to Telegram failed.
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// What the update handlers share: the bot's engine and the transport's own memory.
pub struct Transport {
    /// The assembled bot.
    pub app: App,
    /// Group requests waiting to continue in a private chat (in the state
    /// store, shared by every instance that shares it).
    pub handoffs: links::HandoffLinks,
    /// The "typing…" loops, one per chat being answered.
    pub typing: send::ChatTyping,
    /// Whether the Bot API server takes `sendMessageDraft`.
    pub drafts: live::DraftSupport,
    /// Answers kept until Telegram took them.
    pub outbox: outbox::Outbox,
    /// The chats whose updates are being handled, one lane each.
    pub lanes: lanes::Lanes,
    /// Payments kept until the mall recorded them.
    pub ledger: crate::payments::Ledger,
}

impl Transport {
    /// The transport around `app`.
    pub fn new(app: App) -> Self {
        let handoffs = links::HandoffLinks::new(app.state.clone());
        let outbox = outbox::Outbox::new(app.state.clone(), outbox_max_age(&app.config.telegram));
        let ledger = pay::ledger(&app);
        Transport {
            ledger,
            app,
            handoffs,
            outbox,
            typing: send::ChatTyping::default(),
            drafts: live::DraftSupport::default(),
            lanes: lanes::Lanes::default(),
        }
    }

    /// The language of `text`, else the user's Telegram language, else `bot.language`.
    pub fn detected_lang(&self, user: &User, text: Option<&str>) -> Lang {
        let preferred =
            user.language_code.as_deref().and_then(Lang::parse).unwrap_or(self.app.config.bot.language);
        Lang::detect_or(text.unwrap_or_default(), preferred)
    }

    fn is_admin(&self, user_id: i64) -> bool {
        self.app.config.telegram.admins.contains(&user_id)
    }

    /// The `/health` text: the engine's report and the Telegram part
    /// (privacy mode as `getMe` reports it now, and what to do about it).
    async fn health_report(&self, bot: &Bot, me: &Me, lang: Lang) -> String {
        let report = crate::health::collect(&self.app).await;
        let fresh = send::call(bot, &teloxide::payloads::GetMe::new()).await.ok();
        let me = fresh.as_ref().unwrap_or(me);
        let mode = match self.app.config.telegram.mode {
            TelegramMode::Polling => "long polling",
            TelegramMode::Webhook => "webhook",
        };
        let username = me.user.username.as_deref().unwrap_or_default();
        let telegram = texts::health_telegram(lang, username, mode, me.can_read_all_group_messages);
        format!("{}\n\n{telegram}", report.render(lang))
    }
}

/// The update tree: messages (a `successful_payment` among them), button
/// presses and pre-checkout queries. Everything else (edited
/// messages, channel posts…) is not asked for and ignored if it arrives.
pub fn schema() -> UpdateHandler<TelegramError> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(update::on_message))
        .branch(Update::filter_callback_query().endpoint(update::on_button))
        .branch(Update::filter_pre_checkout_query().endpoint(pay::on_pre_checkout))
}

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
            crate::ops::count_update(kind, "ignored");
            tracing::debug!(update_id = update.id.0, "update ignored");
        })
        .error_handler(Arc::new(|error: TelegramError| async move {
            tracing::error!(error = %error, "telegram update handler failed");
        }))
}

/// Checks the token with `getMe` against `telegram.api_url`; returns the bot
/// and who it is.
pub async fn connect(config: &TelegramConfig) -> Result<(Bot, Me), TelegramError> {
    let token = config.token.expose().trim();
    if token.is_empty() {
        return Err(TelegramError::MissingToken);
    }
    let api_url = reqwest::Url::parse(config.api_url.trim())
        .map_err(|e| TelegramError::BadApiUrl { url: config.api_url.clone(), reason: e.to_string() })?;
    let bot = Bot::new(token).set_api_url(api_url);
    match send::call(&bot, &teloxide::payloads::GetMe::new()).await {
        Ok(me) => Ok((bot, me)),
        Err(send::SendFailure { error: RequestError::Api(ApiError::InvalidToken), .. }) => {
            Err(TelegramError::InvalidToken { api_url: config.api_url.clone() })
        }
        Err(failure) => {
            Err(TelegramError::Unreachable { api_url: config.api_url.clone(), source: failure.error })
        }
    }
}

/// The Telegram line of `mallbot check`: the token checked with `getMe`.
pub async fn check(config: &TelegramConfig) -> crate::health::Check {
    let started = std::time::Instant::now();
    let (ok, detail) = match connect(config).await {
        Ok((_, me)) => {
            (true, format!("@{} at {}", me.user.username.as_deref().unwrap_or("?"), config.api_url))
        }
        Err(e) => (false, e.to_string()),
    };
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    crate::health::Check { name: "telegram", ok, detail, latency_ms }
}

/// Fills Telegram's command menu, in Chinese, English and the default
/// language (Telegram names menus by two-letter codes only, so a
/// Traditional Chinese menu shows where the default language is `zh-hant`). A failure is logged: the bot works without the menu.
pub async fn register_commands(bot: &Bot, default: Lang) {
    for (code, lang) in [(None, default), (Some("zh"), Lang::Zh), (Some("en"), Lang::En)] {
        let commands =
            inbound::Command::menu(lang).map(|(name, description)| BotCommand::new(name, description));
        let mut payload = teloxide::payloads::SetMyCommands::new(commands);
        if let Some(code) = code {
            payload = payload.language_code(code);
        }
        if let Err(e) = send::call(bot, &payload).await {
            tracing::warn!(error = %e, language = code.unwrap_or("default"), "could not set the command menu");
        }
    }
}

/// With `webapp.public_url` set, the chat's menu button opens the Mini App.
async fn set_menu_button(bot: &Bot, app: &App) {
    let Some(url) = app.config.webapp_url() else { return };
    let button = teloxide::types::MenuButton::WebApp {
        text: app.config.bot.language.texts().tools.menu_button.to_owned(),
        web_app: teloxide::types::WebAppInfo { url },
    };
    let payload = teloxide::payloads::SetChatMenuButton::new().menu_button(button);
    match send::call(bot, &payload).await {
        Ok(_) => tracing::info!("the menu button opens the Mini App"),
        Err(e) => tracing::warn!(error = %e, "could not set the Mini App menu button"),
    }
}

/// The Mini App on `webapp.listen`, when set, until `stop`.
async fn spawn_webapp(
    app: &App,
    bot: &Bot,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let listen = app.config.webapp.listen.trim();
    if listen.is_empty() {
        return Ok(None);
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on webapp.listen = {listen}: {e}"))?;
    let web = crate::webapp::WebApp::new(app.clone(), Some(bot.clone()));
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = crate::webapp::serve(web, listener, stop).await {
            tracing::error!(error = %e, "the Mini App stopped");
        }
    })))
}

/// Runs the bot on Telegram until Ctrl-C or SIGTERM: checks the token, sets
/// the command menu, purges expired state in the background, then long-polls
/// (or serves the webhook, `telegram.mode = "webhook"`). On a stop it takes
/// no new updates and lets the turns in flight finish (at most [`SHUTDOWN_GRACE`]).
pub async fn run(app: App) -> anyhow::Result<()> {
    let signal = stop_signal();
    let config = app.config.telegram.clone();
    trust::set(app.config.link_hosts(), app.config.image_hosts());
    // The ops endpoints on their own listener, never the webhook's.
    let (ops_stop, ops_stopped) = tokio::sync::oneshot::channel::<()>();
    let ops = crate::ops::spawn(&app, async move {
        let _ = ops_stopped.await;
    })
    .await?;
    // Not ready from the stop on, so a load balancer stops sending.
    let lifecycle = app.lifecycle.clone();
    let stop = async move {
        let name = signal.await;
        lifecycle.stopping();
        name
    };
    let (bot, me) = connect(&config).await?;
    let username = me.user.username.clone().unwrap_or_default();
    tracing::info!(bot = %username, api_url = %config.api_url, "connected to telegram");
    if !me.can_read_all_group_messages {
        tracing::warn!(
            "privacy mode is on: in groups the bot sees only commands and replies to it, not @mentions; \
             in @BotFather send /setprivacy → Disable, or make the bot a group admin"
        );
    }
    register_commands(&bot, app.config.bot.language).await;
    set_menu_button(&bot, &app).await;
    let (webapp_stop, webapp_stopped) = tokio::sync::oneshot::channel::<()>();
    let webapp = spawn_webapp(&app, &bot, async move {
        let _ = webapp_stopped.await;
    })
    .await?;
    let purging = spawn_purging(app.state.clone(), PURGE_EVERY);
    let outbox = Arc::new(outbox::Outbox::new(app.state.clone(), outbox_max_age(&config)));
    let flushing = outbox.clone().spawn(bot.clone(), outbox::FLUSH_EVERY);
    let settling = pay::spawn_settling(bot.clone(), app.clone(), outbox.clone(), pay::SETTLE_EVERY);
    let events = pay::spawn_events(bot.clone(), app.clone(), outbox.clone());
    let stopped = match config.mode {
        TelegramMode::Polling => poll(bot, app, stop).await,
        TelegramMode::Webhook => webhook::serve(bot, app, stop).await,
    };
    purging.abort();
    flushing.abort();
    settling.abort();
    if let Some(events) = events {
        events.abort();
    }
    drop(ops_stop);
    drop(webapp_stop);
    for server in [ops, webapp].into_iter().flatten() {
        let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
    }
    stopped?;
    tracing::info!("telegram transport stopped");
    Ok(())
}

/// Long polling until `stop` resolves.
async fn poll(bot: Bot, app: App, stop: impl Future<Output = &'static str>) -> Result<(), TelegramError> {
    let listener =
        Polling::builder(bot.clone()).timeout(Duration::from_secs(10)).delete_webhook().await.build();
    let listener_errors = Arc::new(|error: RequestError| async move {
        tracing::warn!(error = %error, "getUpdates failed; retrying");
    });
    dispatch_until(bot, app, listener, listener_errors, stop).await
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

/// `telegram.outbox_max_age_secs` as a duration.
pub fn outbox_max_age(config: &TelegramConfig) -> Duration {
    Duration::from_secs(config.outbox_max_age_secs)
}

/// Purges expired state now and then every `every`, logging how many records went.
pub fn spawn_purging(state: Arc<dyn StateStore>, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match state.purge_expired().await {
                Ok(purged) => tracing::info!(purged, store = %state.describe(), "expired state purged"),
                Err(e) => tracing::warn!(error = %e, "purging expired state failed; trying again later"),
            }
        }
    })
}
