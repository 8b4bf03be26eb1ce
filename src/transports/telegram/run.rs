//! Running the bot on Telegram: the token checked (`getMe`), the command
//! menu and the Mini App's menu button set, the background tasks started
//! (purging expired state, the outbox, settling payments, the mall's event
//! feed, the alerts' re-read), then long polling or the webhook until Ctrl-C
//! or SIGTERM ([`stop_signal`]). A stop takes no new updates and lets the
//! turns in flight finish (at most `tree::SHUTDOWN_GRACE`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use handlers::Lang;
use teloxide::prelude::*;
use teloxide::types::{BotCommand, Me};
use teloxide::update_listeners::Polling;
use teloxide::{ApiError, RequestError};

use super::transport::outbox_max_age;
use super::tree::{ALLOWED_UPDATES, dispatch_until};
use super::{TelegramError, outbox, pay, send, teller, trust, webhook};
use crate::engine::App;
use crate::infra::config::{TelegramConfig, TelegramMode};
use crate::infra::state::StateStore;

/// How often expired state (pending actions, update ids, counters, history,
/// hand-off links) is purged while the bot runs.
pub(crate) const PURGE_EVERY: Duration = Duration::from_secs(600);

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
pub async fn check(config: &TelegramConfig) -> crate::engine::health::Check {
    let started = std::time::Instant::now();
    let (ok, detail) = match connect(config).await {
        Ok((_, me)) => {
            (true, format!("@{} at {}", me.user.username.as_deref().unwrap_or("?"), config.api_url))
        }
        Err(e) => (false, e.to_string()),
    };
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    crate::engine::health::Check { name: "telegram", ok, detail, latency_ms }
}

/// The service desk's line of `mallbot check` (`[support] chat_id` set):
/// the bot must be an administrator of the desk's group allowed to manage
/// topics, or the owner.
pub async fn check_desk(config: &TelegramConfig, chat_id: i64) -> crate::engine::health::Check {
    let started = std::time::Instant::now();
    let (ok, detail) = match connect(config).await {
        Ok((bot, me)) => {
            let asked = teloxide::payloads::GetChatMember::new(ChatId(chat_id), me.user.id);
            match send::call(&bot, &asked).await {
                Ok(member) => match member.kind {
                    teloxide::types::ChatMemberKind::Owner(_) => {
                        (true, format!("{chat_id}: the bot owns it"))
                    }
                    teloxide::types::ChatMemberKind::Administrator(admin) if admin.can_manage_topics => {
                        (true, format!("{chat_id}: admin, manages topics"))
                    }
                    teloxide::types::ChatMemberKind::Administrator(_) => (
                        false,
                        format!(
                            "{chat_id}: the bot is an admin without \"Manage topics\" (can_manage_topics)"
                        ),
                    ),
                    _ => (
                        false,
                        format!("{chat_id}: the bot is not an admin; make it one with \"Manage topics\""),
                    ),
                },
                Err(e) => (false, format!("{chat_id}: {e}")),
            }
        }
        Err(e) => (false, e.to_string()),
    };
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    crate::engine::health::Check { name: "support desk", ok, detail, latency_ms }
}

/// Fills Telegram's command menu, in Chinese, English and the default
/// language (Telegram names menus by two-letter codes only, so a
/// Traditional Chinese menu shows where the default language is `zh-hant`). A failure is logged: the bot works without the menu.
pub async fn register_commands(bot: &Bot, default: Lang) {
    for (code, lang) in [(None, default), (Some("zh"), Lang::Zh), (Some("en"), Lang::En)] {
        let commands = crate::engine::commands::Command::menu(lang)
            .map(|(name, description)| BotCommand::new(name, description));
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
    let web = crate::transports::webapp::WebApp::new(app.clone(), Some(bot.clone()));
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = crate::transports::webapp::serve(web, listener, stop).await {
            tracing::error!(error = %e, "the Mini App stopped");
        }
    })))
}

/// Runs the bot on Telegram until Ctrl-C or SIGTERM: checks the token, sets
/// the command menu, purges expired state in the background, then long-polls
/// (or serves the webhook, `telegram.mode = "webhook"`). On a stop it takes
/// no new updates and lets the turns in flight finish (at most [`SHUTDOWN_GRACE`](super::tree::SHUTDOWN_GRACE)).
pub async fn run(app: App) -> anyhow::Result<()> {
    let signal = stop_signal();
    let config = app.config.telegram.clone();
    trust::set(app.config.link_hosts(), app.config.image_hosts());
    // The ops endpoints on their own listener, never the webhook's.
    let (ops_stop, ops_stopped) = tokio::sync::oneshot::channel::<()>();
    let ops = crate::transports::ops::spawn(&app, async move {
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
    let outbox = Arc::new(
        outbox::Outbox::new(app.state.clone(), outbox_max_age(&config))
            .paced(app.config.alerts.sends_per_sec),
    );
    let flushing = outbox.clone().spawn(bot.clone(), outbox::FLUSH_EVERY);
    let settling = pay::spawn_settling(bot.clone(), app.clone(), outbox.clone(), pay::SETTLE_EVERY);
    let events = teller::spawn_events(bot.clone(), app.clone(), outbox.clone());
    let alerting = teller::spawn_alerts(bot.clone(), app.clone(), outbox.clone());
    let stopped = match config.mode {
        TelegramMode::Polling => poll(bot, app, stop).await,
        TelegramMode::Webhook => webhook::serve(bot, app, stop).await,
    };
    purging.abort();
    flushing.abort();
    settling.abort();
    alerting.abort();
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
    let listener = Polling::builder(bot.clone())
        .timeout(Duration::from_secs(10))
        .allowed_updates(ALLOWED_UPDATES.to_vec())
        .delete_webhook()
        .await
        .build();
    let listener_errors = Arc::new(|error: RequestError| async move {
        tracing::warn!(error = %error, "getUpdates failed; retrying");
    });
    dispatch_until(bot, app, listener, listener_errors, stop).await
}

/// Purges expired state now and then every `every`, logging how many records went.
pub(crate) fn spawn_purging(state: Arc<dyn StateStore>, every: Duration) -> tokio::task::JoinHandle<()> {
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
