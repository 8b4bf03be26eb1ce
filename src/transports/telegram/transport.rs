//! What the update handlers share: the transport's errors and memory.

use std::time::Duration;

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, User};

use super::drafts::DraftSupport;
use super::{lanes, outbox, send, texts};
use crate::engine::App;
use crate::engine::payments::Ledger;
use crate::infra::config::{TelegramConfig, TelegramMode};

/// How long recording a payment with the mall may take before it is left
/// to the ledger's retries.
pub(crate) const RECORD_TIMEOUT: Duration = Duration::from_secs(5);

/// The payments kept until the mall recorded them, for `app`.
pub(crate) fn ledger(app: &App) -> Ledger {
    Ledger::new(app.state.clone(), app.mall.clone(), RECORD_TIMEOUT)
}

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
pub(crate) struct Transport {
    /// The assembled bot.
    pub(crate) app: App,
    /// Group requests waiting to continue in a private chat (in the state
    /// store, shared by every instance that shares it).
    pub(crate) handoffs: crate::engine::handoff::HandoffLinks,
    /// The "typing…" loops, one per chat being answered.
    pub(crate) typing: send::ChatTyping,
    /// Whether the Bot API server takes `sendMessageDraft`.
    pub(crate) drafts: DraftSupport,
    /// Answers kept until Telegram took them.
    pub(crate) outbox: outbox::Outbox,
    /// The chats whose updates are being handled, one lane each.
    pub(crate) lanes: lanes::Lanes,
    /// Payments kept until the mall recorded them.
    pub(crate) ledger: crate::engine::payments::Ledger,
}

impl Transport {
    /// The transport around `app`.
    pub(crate) fn new(app: App) -> Self {
        let handoffs = crate::engine::handoff::HandoffLinks::new(app.state.clone());
        let outbox = outbox::Outbox::new(app.state.clone(), outbox_max_age(&app.config.telegram));
        let ledger = ledger(&app);
        Transport {
            ledger,
            app,
            handoffs,
            outbox,
            typing: send::ChatTyping::default(),
            drafts: DraftSupport::default(),
            lanes: lanes::Lanes::default(),
        }
    }

    /// The language of `text`, else the user's Telegram language, else `bot.language`.
    pub(crate) fn detected_lang(&self, user: &User, text: Option<&str>) -> Lang {
        let preferred =
            user.language_code.as_deref().and_then(Lang::parse).unwrap_or(self.app.config.bot.language);
        Lang::detect_or(text.unwrap_or_default(), preferred)
    }

    /// The `/health` text: the engine's report and the Telegram part
    /// (privacy mode as `getMe` reports it now, and what to do about it).
    pub(super) async fn health_report(&self, bot: &Bot, me: &Me, lang: Lang) -> String {
        let report = crate::engine::health::collect(&self.app).await;
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

/// `telegram.outbox_max_age_secs` as a duration.
pub(crate) fn outbox_max_age(config: &TelegramConfig) -> Duration {
    Duration::from_secs(config.outbox_max_age_secs)
}
