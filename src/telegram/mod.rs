//! The Telegram transport: long polling (or a webhook), the update tree that
//! turns messages and button presses into router calls, and the delivery of
//! answers with their buttons.
//!
//! In private chats every text message goes to the router; in groups only
//! messages addressed to the bot (an @mention, a reply to the bot, or
//! `/command@bot`). Risky actions show Confirm / Cancel buttons whose press is
//! answered first, then shown in place of the buttons, then carried out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handlers::Lang;
use teloxide::dispatching::{DefaultKey, DispatcherBuilder, UpdateHandler};
use teloxide::prelude::*;
use teloxide::types::{BotCommand, Me, User};
use teloxide::update_listeners::Polling;
use teloxide::{ApiError, RequestError};

use crate::app::App;
use crate::config::{TelegramConfig, TelegramMode};

pub mod callback;
mod commands;
pub mod format;
pub mod handoff;
pub mod inbound;
pub mod send;
pub mod texts;
mod update;
pub mod webhook;

pub use format::{escape_html, split_message};

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
    /// Group requests waiting to continue in a private chat.
    pub handoffs: handoff::Handoffs,
    /// Languages chosen with `/lang`, by Telegram user id.
    languages: Mutex<HashMap<i64, Lang>>,
}

impl Transport {
    /// The transport around `app`.
    pub fn new(app: App) -> Self {
        Transport { app, handoffs: handoff::Handoffs::default(), languages: Mutex::new(HashMap::new()) }
    }

    /// The language to answer `user` in: their `/lang` choice, else the
    /// language of `text`, else their Telegram language, else `bot.language`.
    pub fn lang_of(&self, user: &User, text: Option<&str>) -> Lang {
        let chosen = self.languages.lock().ok().and_then(|m| m.get(&(user.id.0 as i64)).copied());
        chosen
            .or_else(|| text.and_then(Lang::detect))
            .or_else(|| user.language_code.as_deref().and_then(Lang::parse))
            .unwrap_or(self.app.config.bot.language)
    }

    fn set_lang(&self, user_id: i64, lang: Lang) {
        if let Ok(mut map) = self.languages.lock() {
            map.insert(user_id, lang);
        }
    }

    fn is_admin(&self, user_id: i64) -> bool {
        self.app.config.telegram.admins.contains(&user_id)
    }

    /// The `/health` text: the engine's report and the Telegram part
    /// (privacy mode as `getMe` reports it now, and what to do about it).
    async fn health_report(&self, bot: &Bot, me: &Me, lang: Lang) -> String {
        let report = crate::health::collect(&self.app).await;
        let fresh = send::retrying(&bot.get_me()).await.ok();
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

/// The update tree: messages and button presses. Everything else (edited
/// messages, channel posts…) is not asked for and ignored if it arrives.
pub fn schema() -> UpdateHandler<TelegramError> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(update::on_message))
        .branch(Update::filter_callback_query().endpoint(update::on_button))
}

/// A dispatcher for `bot` around `app`: the update tree, its dependencies,
/// an error handler that logs, and quiet ignoring of unhandled updates.
/// Updates of one chat are handled one at a time, in order.
pub fn dispatcher(bot: Bot, app: App) -> DispatcherBuilder<Bot, TelegramError, DefaultKey> {
    let transport = Arc::new(Transport::new(app));
    Dispatcher::builder(bot, schema())
        .dependencies(dptree::deps![transport])
        .default_handler(|update| async move {
            tracing::debug!(update_id = update.id.0, "update ignored");
        })
        .error_handler(Arc::new(|error: TelegramError| async move {
            tracing::error!(error = %error, "telegram update handler failed");
        }))
}

/// Checks the token with `getMe` against `telegram.api_url`; returns the bot
/// and who it is.
pub async fn connect(config: &TelegramConfig) -> Result<(Bot, Me), TelegramError> {
    let token = config.token.trim();
    if token.is_empty() {
        return Err(TelegramError::MissingToken);
    }
    let api_url = reqwest::Url::parse(config.api_url.trim())
        .map_err(|e| TelegramError::BadApiUrl { url: config.api_url.clone(), reason: e.to_string() })?;
    let bot = Bot::new(token).set_api_url(api_url);
    match send::retrying(&bot.get_me()).await {
        Ok(me) => Ok((bot, me)),
        Err(RequestError::Api(ApiError::InvalidToken)) => {
            Err(TelegramError::InvalidToken { api_url: config.api_url.clone() })
        }
        Err(source) => Err(TelegramError::Unreachable { api_url: config.api_url.clone(), source }),
    }
}

/// Fills Telegram's command menu, in Chinese, English and the default
/// language. A failure is logged: the bot works without the menu.
pub async fn register_commands(bot: &Bot, default: Lang) {
    for (code, lang) in [(None, default), (Some("zh"), Lang::Zh), (Some("en"), Lang::En)] {
        let commands =
            inbound::Command::MENU.iter().map(|(name, zh, en)| BotCommand::new(*name, lang.pick(zh, en)));
        let mut request = bot.set_my_commands(commands);
        if let Some(code) = code {
            request = request.language_code(code);
        }
        if let Err(e) = send::retrying(&request).await {
            tracing::warn!(error = %e, language = code.unwrap_or("default"), "could not set the command menu");
        }
    }
}

/// Runs the bot on Telegram until Ctrl-C: checks the token, sets the command
/// menu, then long-polls (or serves the webhook, `telegram.mode = "webhook"`).
pub async fn run(app: App) -> anyhow::Result<()> {
    let config = app.config.telegram.clone();
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
    match config.mode {
        TelegramMode::Polling => poll(bot, app).await?,
        TelegramMode::Webhook => webhook::serve(bot, app).await?,
    }
    tracing::info!("telegram transport stopped");
    Ok(())
}

/// Long polling until Ctrl-C.
async fn poll(bot: Bot, app: App) -> Result<(), TelegramError> {
    let listener =
        Polling::builder(bot.clone()).timeout(Duration::from_secs(10)).delete_webhook().await.build();
    let listener_errors = Arc::new(|error: RequestError| async move {
        tracing::warn!(error = %error, "getUpdates failed; retrying");
    });
    dispatcher(bot, app)
        .enable_ctrlc_handler()
        .build()
        .try_dispatch_with_listener(listener, listener_errors)
        .await?;
    Ok(())
}
