//! [`Handle`]: one update as every step of its handling sees it — the bot,
//! who the bot is, the transport, where the answer goes (chat, forum topic,
//! the message answered), who sent it, and its language as the door found
//! it. The door stage (`tree.rs`) builds it once per update, after the
//! knock, and hands it to the update's endpoint with the [`Admitted`] the
//! door gave; it is passed as one value through the rest of the handling.
//!
//! The shopper's `/lang` choice is read once per update, by the door stage,
//! and kept here with the conversation's language the door found: no step
//! after the door reads either again.
//!
//! Also here: the outcomes an update ends with, for `mallbot_updates_total`.
//!
//! [`Admitted`]: crate::engine::router::Admitted

use std::sync::Arc;

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, User};

use super::outbox::Delivery;
use super::send::{self, Target};
use super::{Transport, texts};
use crate::engine::context::MessageContext;

/// How an update ended, for `mallbot_updates_total`.
pub(crate) type Outcome = &'static str;
/// Something was done for it.
pub(crate) const ANSWERED: Outcome = "answered";
/// Nothing was to be done (not addressed to the bot, nothing to read…).
pub(crate) const IGNORED: Outcome = "ignored";
/// The door turned it away: not allowed.
pub(crate) const REFUSED: Outcome = "refused";
/// The door turned it away: over the rate limit.
pub(crate) const LIMITED: Outcome = "limited";
/// It was answered, but what it asked for failed.
pub(crate) const FAILED: Outcome = "failed";

/// What the door stage knows of the update's language: the `/lang`
/// choice (read once) and the conversation's language as the door found it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Langs {
    pub(crate) chosen: Option<Lang>,
    pub(crate) talking: Option<Lang>,
}

/// One update being handled. Clones share everything.
#[derive(Clone)]
pub(crate) struct Handle {
    pub(crate) bot: Bot,
    /// Who the bot is (`getMe`).
    pub(crate) me: Me,
    /// The transport's engine and memory.
    pub(crate) tg: Arc<Transport>,
    /// Where the answers go.
    pub(crate) target: Target,
    /// Who sent the update.
    pub(crate) from: User,
    /// Whether it came from a group or supergroup.
    pub(crate) is_group: bool,
    langs: Langs,
}

impl Handle {
    /// The handle of an update from `from` answered at `target`, in the
    /// languages the door stage read.
    pub(crate) fn new(
        bot: Bot,
        me: Me,
        tg: Arc<Transport>,
        from: User,
        target: Target,
        is_group: bool,
    ) -> Self {
        Handle { bot, me, tg, target, from, is_group, langs: Langs::default() }
    }

    /// The same handle, knowing the update's languages.
    pub(crate) fn knowing(mut self, langs: Langs) -> Self {
        self.langs = langs;
        self
    }

    /// The language of the update's answers: the `/lang` choice, else the
    /// conversation's, else the sender's Telegram language, else `bot.language`.
    pub(crate) fn lang(&self) -> Lang {
        match (self.langs.chosen, self.langs.talking) {
            (Some(chosen), _) => chosen,
            (None, Some(talking)) => talking,
            (None, None) => self.tg.detected_lang(&self.from, None),
        }
    }

    /// The language to answer the text `text` of this update in: the `/lang`
    /// choice, else the conversation's after `text` (which keeps it unless
    /// `text` is clearly in another language), else [`Handle::lang`]'s fallbacks.
    pub(crate) fn lang_of_text(&self, text: &str) -> Lang {
        match (self.langs.chosen, self.langs.talking) {
            (Some(chosen), _) => chosen,
            (None, Some(talking)) => Lang::detect_or(text, talking),
            (None, None) => self.tg.detected_lang(&self.from, Some(text)),
        }
    }

    /// The sender's id.
    pub(crate) fn user_id(&self) -> i64 {
        self.from.id.0 as i64
    }

    /// The shopper's message `text` as the router takes it, in the
    /// language of [`Handle::lang_of_text`].
    pub(crate) fn context(&self, text: String, reply_to: Option<String>) -> MessageContext {
        let lang = self.lang_of_text(&text);
        MessageContext {
            platform: "telegram",
            user_id: self.user_id(),
            user_name: Some(self.from.full_name()),
            chat_id: self.target.chat.0,
            is_group: self.is_group,
            mentioned: true,
            text,
            reply_to,
            lang,
            image: None,
        }
    }

    /// Sends the transport's own text (no buttons).
    pub(crate) async fn say(&self, text: &str) -> Result<(), RequestError> {
        self.deliver_text(text).await.map(drop)
    }

    /// Sends a text of the bot's own through the outbox, not counted.
    pub(crate) async fn deliver_text(&self, text: &str) -> Result<Delivery, RequestError> {
        self.tg.outbox.deliver_text(&self.bot, &self.target, text).await
    }

    /// Logs a failure to answer, counts it, and tells the shopper briefly.
    pub(crate) async fn apologise(&self, error: &RequestError) {
        tracing::error!(error = %error, chat = self.target.chat.0, "could not answer on telegram");
        self.tg.app.stats.record_error("could not answer on telegram");
        if let Err(e) = send::send_text(&self.bot, &self.target, texts::apology(self.lang()), None).await {
            tracing::warn!(error = %e, "could not send the apology either");
        }
    }
}
