//! [`Handle`]: one update as every step of its handling sees it — the bot,
//! who the bot is, the transport, where the answer goes (chat, forum topic,
//! the message answered), who sent it, and the language, worked out once.
//! It is built once per update (a message, a button press, a pre-checkout
//! query) and passed as one value through the update's handling: messages,
//! commands, presses, payments, the live message; its answers go out
//! through the outbox. The shopper's `/lang` choice is read from the state
//! store at most once per update, when a step first needs the language (a
//! group message not addressed to the bot needs none).

use std::future::Future;
use std::sync::Arc;

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, MessageId, User};
use tokio::sync::OnceCell;

use super::outbox::Delivery;
use super::send::{self, ButtonContext, Target};
use super::{Transport, texts};
use crate::engine::context::{ChosenLang, MessageContext};
use crate::engine::reply::Reply;
use crate::engine::router::{Admitted, Knock, Way, Why};

/// One update being handled. Clones share everything, the `/lang` choice
/// once read included.
#[derive(Clone)]
pub struct Handle {
    pub bot: Bot,
    /// Who the bot is (`getMe`).
    pub me: Me,
    /// The transport's engine and memory.
    pub tg: Arc<Transport>,
    /// Where the answers go.
    pub target: Target,
    /// Who sent the update.
    pub from: User,
    /// Whether it came from a group or supergroup.
    pub is_group: bool,
    /// The shopper's `/lang` choice, read from the state store the first
    /// time it is needed (shared by the handle's clones).
    chosen: Arc<OnceCell<Option<Lang>>>,
}

impl Handle {
    /// The handle of an update from `from` answered at `target`.
    pub fn new(bot: Bot, me: Me, tg: Arc<Transport>, from: User, target: Target, is_group: bool) -> Self {
        Handle { bot, me, tg, target, from, is_group, chosen: Arc::new(OnceCell::new()) }
    }

    /// The shopper's `/lang` choice: read from the state store the first
    /// time, then remembered for the rest of the update.
    pub(super) async fn chosen(&self) -> Option<Lang> {
        *self.chosen.get_or_init(|| self.tg.app.router.chosen_lang("telegram", self.from.id.0 as i64)).await
    }

    /// The language of the update's answers: the `/lang` choice, else the
    /// sender's Telegram language, else `bot.language`.
    pub async fn lang(&self) -> Lang {
        self.chosen().await.unwrap_or_else(|| self.tg.detected_lang(&self.from, None))
    }

    /// The language to answer the text `text` of this update in: the `/lang`
    /// choice, else the language of `text`, else [`Handle::lang`]'s fallbacks.
    pub async fn lang_of_text(&self, text: &str) -> Lang {
        self.chosen().await.unwrap_or_else(|| self.tg.detected_lang(&self.from, Some(text)))
    }

    /// The sender's id.
    pub fn user_id(&self) -> i64 {
        self.from.id.0 as i64
    }

    /// The shopper's message `text` as the router takes it, in the
    /// language of [`Handle::lang_of_text`].
    pub async fn context(&self, text: String, reply_to: Option<String>) -> MessageContext {
        let lang = self.lang_of_text(&text).await;
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

    /// The door for this update's message `ctx`: `Ok` with what it admitted,
    /// else the outcome — the refusal or the "slow down" notice sent the
    /// first time, then silence.
    pub async fn admit(
        &self,
        ctx: &MessageContext,
        way: Way,
    ) -> Result<Result<Admitted, &'static str>, RequestError> {
        let knock = Knock { way, ..Knock::message(ctx, ChosenLang::Read(self.chosen().await)) };
        match self.tg.app.router.admit(knock).await {
            Ok(admitted) => Ok(Ok(admitted)),
            Err(turned) => {
                if turned.tell {
                    self.deliver(turned.lang, &turned.reply(), None).await?;
                }
                Ok(Err(match turned.why {
                    Why::NotAllowed => "refused",
                    Why::SlowDown => "limited",
                }))
            }
        }
    }

    /// Asks the router about an admitted message, showing its progress
    /// meanwhile (typing, a status message, the answer as it streams), and
    /// delivers its answer in place of the progress.
    pub async fn route(&self, admitted: Admitted, ctx: MessageContext) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let router = self.tg.app.router.clone();
        self.run_live(lang, move |progress| async move { router.answer(&admitted, &ctx, &progress).await })
            .await
    }

    /// Runs router work in its own task with the typing indicator on; a
    /// panic becomes a logged error and an apology.
    pub async fn run_guarded<F>(&self, work: F) -> Reply
    where
        F: Future<Output = Reply> + Send + 'static,
    {
        let _typing = self.tg.typing.hold(&self.bot, &self.target);
        match tokio::spawn(work).await {
            Ok(reply) => reply,
            Err(e) => self.failed_turn(self.lang().await, e),
        }
    }

    pub(super) fn failed_turn(&self, lang: Lang, error: tokio::task::JoinError) -> Reply {
        tracing::error!(error = %error, chat = self.target.chat.0, "answering a message failed");
        self.tg.app.stats.record_error("answering a message failed (panic)");
        Reply::text(texts::apology(lang))
    }

    /// What the buttons of `reply` need; a group hand-off gets its deep link
    /// for the sender.
    async fn buttons(&self, lang: Lang, reply: &Reply) -> ButtonContext<'_> {
        let handoff_payload = match reply.open_private.as_deref().filter(|r| !r.trim().is_empty()) {
            Some(request) => self.tg.handoffs.put(self.user_id(), request).await,
            None => None,
        };
        let username = self.me.user.username.as_deref().unwrap_or_default();
        let webapp = self.tg.app.config.webapp_url();
        ButtonContext {
            lang,
            bot_username: username,
            handoff_payload,
            webapp,
            in_group: self.target.chat.0 < 0,
        }
    }

    /// Sends a router reply (its buttons in `lang`) through the outbox, its
    /// first part replacing the message `replace` when given (a status
    /// message); then the invoice it asks for, when orders are paid in Telegram.
    pub async fn deliver(
        &self,
        lang: Lang,
        reply: &Reply,
        replace: Option<MessageId>,
    ) -> Result<(), RequestError> {
        let paying = self.tg.payments_on() && self.target.reply_to.is_none();
        let stripped;
        let reply = if reply.payable.is_empty() || paying {
            reply
        } else {
            // Paid at the store: no pay buttons.
            stripped = Reply { payable: Vec::new(), ..reply.clone() };
            &stripped
        };
        // In the turn's trace, when it was traced: the sends of its answer.
        let delivering = async {
            let buttons = self.buttons(lang, reply).await;
            let delivery = self.tg.outbox.deliver(&self.bot, &self.target, reply, &buttons, replace).await?;
            if let (false, Some(rated), super::outbox::Delivery::Sent(ids)) =
                (self.is_group, &reply.rated, &delivery)
                && let Some(last) = ids.last()
            {
                // What a 👍/👎 on this answer will be about.
                let key = rated_key(self.target.chat.0, last.0);
                let value = serde_json::to_string(rated).unwrap_or_default();
                if let Err(e) =
                    self.tg.app.state.put_value(&key, &value, self.tg.app.router.report_keep()).await
                {
                    tracing::warn!(error = %e, "could not keep what the answer was about");
                }
            }
            if let (false, Some(reason)) = (self.is_group, reply.handoff.as_deref()) {
                // Boxed: a hand-off is rare, and its future is large.
                Box::pin(self.open_desk(lang, reason)).await?;
            }
            if let (true, Some(order_id)) = (paying, reply.invoice.as_deref()) {
                // Boxed: most answers send no invoice, and its future would
                // otherwise add 3 KB to every delivery's.
                Box::pin(self.send_invoice(lang, order_id)).await?;
            }
            Ok(())
        };
        crate::infra::otel::in_trace(reply.trace.clone(), delivering).await
    }

    /// Sends the transport's own text (no buttons).
    pub async fn say(&self, text: &str) -> Result<(), RequestError> {
        self.deliver_text(text).await.map(drop)
    }

    /// Sends a text of the bot's own through the outbox, not counted.
    pub async fn deliver_text(&self, text: &str) -> Result<Delivery, RequestError> {
        self.tg.outbox.deliver_text(&self.bot, &self.target, text).await
    }

    /// Logs a failure to answer, counts it, and tells the shopper briefly.
    pub async fn apologise(&self, error: &RequestError) {
        tracing::error!(error = %error, chat = self.target.chat.0, "could not answer on telegram");
        self.tg.app.stats.record_error("could not answer on telegram");
        if let Err(e) =
            send::send_text(&self.bot, &self.target, texts::apology(self.lang().await), None).await
        {
            tracing::warn!(error = %e, "could not send the apology either");
        }
    }
}

/// The key under which an answer's question and tools are kept, by its message.
pub(super) fn rated_key(chat: i64, message_id: i32) -> String {
    format!("rated:{chat}:{message_id}")
}
