//! The service desk on Telegram (`[support] chat_id`, a forum supergroup):
//! a shopper who asks for a person gets a topic of their own, opened with a
//! card (name, language, reason, recent messages, cart and orders, a close
//! button). While it is open, what staff write in that topic is copied to
//! the shopper and what the shopper writes goes to the topic (a text marked
//! `🧑 ›` and shown as written, anything else copied); the bot
//! says nothing of its own to that shopper. `/close` in the topic or the
//! card's button ends it. Staff messages come in like every update (the
//! dispatcher, the chat's lane, re-delivered update ids dropped), and reach
//! a shopper only from the desk's group and that shopper's own topic. A
//! shopper's link names the desk's group: after `support.chat_id` changes,
//! an old link is no link (a new topic is opened in the new group).

use handlers::Lang;
use teloxide::payloads::{
    CloseForumTopic, CopyMessage, CreateForumTopic, EditForumTopic, EditMessageText, ReopenForumTopic,
};
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, Message, MessageId, ThreadId};
use teloxide::{ApiError, RequestError};

use super::callback::{ButtonData, DeskAction};
use super::handle::Handle;
use super::incoming::{self, Content};
use super::send::{self, Target};
use crate::engine::support::{self, Link};

const PLATFORM: &str = "telegram";

/// How a desk message ended, for `mallbot_updates_total`.
const RELAYED: &str = "answered";
const NOBODY: &str = "ignored";

fn shopper_target(user_id: i64) -> Target {
    Target { chat: ChatId(user_id), thread: None, reply_to: None }
}

fn topic_target(chat_id: i64, thread: i32) -> Target {
    Target { chat: ChatId(chat_id), thread: Some(ThreadId(MessageId(thread))), reply_to: None }
}

fn blocked(error: &RequestError) -> bool {
    matches!(
        error,
        RequestError::Api(ApiError::BotBlocked | ApiError::UserDeactivated | ApiError::ChatNotFound)
    )
}

impl Handle {
    /// The desk's group id, when there is a desk.
    fn desk_chat(&self) -> Option<i64> {
        self.tg.app.router.desk().map(|d| d.chat_id)
    }

    /// Whether this update comes from the desk's group.
    pub(super) fn in_desk_group(&self) -> bool {
        self.desk_chat() == Some(self.target.chat.0)
    }

    /// The desk's language: the bot's.
    fn desk_lang(&self) -> Lang {
        self.tg.app.config.bot.language
    }

    /// Opens (or reopens) the shopper's topic after the "connecting" answer:
    /// the card, the link kept in the state store, the reminder. When the
    /// desk cannot be reached, the shopper is told where the service desk is.
    pub(super) async fn open_desk(&self, lang: Lang, reason: &str) -> Result<(), RequestError> {
        let Some(desk) = self.tg.app.router.desk().cloned() else { return Ok(()) };
        let state = self.tg.app.state.clone();
        let user = self.user_id();
        let name = self.from.full_name();
        // A link to the desk's group only: after `chat_id` changed, a new topic in the new group.
        let earlier = support::link_of(state.as_ref(), PLATFORM, user, desk.chat_id).await;
        // The shopper's own topic again; a new one only the first time, or
        // when staff deleted theirs.
        let reopened = match &earlier {
            Some(link) => {
                let reopen = ReopenForumTopic::new(ChatId(desk.chat_id), ThreadId(MessageId(link.thread)));
                match send::call(&self.bot, &reopen).await {
                    Ok(_) => Some(link.thread),
                    // It was open: fine.
                    Err(e) if e.to_string().contains("TOPIC_NOT_MODIFIED") => Some(link.thread),
                    Err(e) => {
                        tracing::warn!(error = %e, thread = link.thread, "the shopper's topic is gone; opening another");
                        None
                    }
                }
            }
            None => None,
        };
        let (thread, outcome) = match reopened {
            Some(thread) => (thread, "reopened"),
            None => {
                let create = CreateForumTopic::new(ChatId(desk.chat_id), support::topic_name(&name, user));
                match send::call(&self.bot, &create).await {
                    Ok(topic) => (topic.thread_id.0.0, "opened"),
                    Err(e) => {
                        tracing::error!(error = %e, desk = desk.chat_id, "could not open a topic at the service desk");
                        self.tg.app.stats.record_error("could not open a topic at the service desk");
                        metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "failed").increment(1);
                        return self
                            .deliver_text(&handlers::mall::no_desk(self.tg.app.mall.as_ref(), lang).await)
                            .await
                            .map(drop);
                    }
                }
            }
        };
        let conversation = crate::engine::context::conversation_key(PLATFORM, self.target.chat.0, user);
        let history = state.load_history(&conversation).await.unwrap_or_default();
        let shopping =
            support::shopping_summary(self.tg.app.mall.as_ref(), PLATFORM, user, self.desk_lang()).await;
        let card = support::markdown_card(self.desk_lang(), &name, lang, reason, &history, &shopping);
        let close = ButtonData::Desk(DeskAction::Close(user)).encode();
        let markup = InlineKeyboardMarkup::new([[InlineKeyboardButton::callback(
            self.desk_lang().texts().support.close_button,
            close,
        )]]);
        let link = Link {
            user_id: user,
            chat_id: desk.chat_id,
            thread,
            name,
            open: true,
            answered: false,
            opened_ms: crate::infra::state::unix_now_ms(),
            lang: lang.as_str().to_owned(),
        };
        if let Err(e) = support::save_link(state.as_ref(), PLATFORM, desk.chat_id, &link).await {
            tracing::error!(error = %e, "could not keep the shopper's link to the service desk");
            metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "failed").increment(1);
            return self
                .deliver_text(&handlers::mall::no_desk(self.tg.app.mall.as_ref(), lang).await)
                .await
                .map(drop);
        }
        metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => outcome).increment(1);
        self.tg
            .outbox
            .deliver_with_markup(&self.bot, &topic_target(desk.chat_id, thread), &card, Some(markup))
            .await?;
        tracing::info!(thread, outcome, "the shopper's conversation went to the service desk");
        if let Some(after) = desk.answer_within {
            self.remind_later(link.opened_ms, after);
        }
        Ok(())
    }

    /// After `after`, a shopper still waiting for their first answer is told
    /// and may keep waiting or go on with the bot.
    fn remind_later(&self, opened_ms: i64, after: std::time::Duration) {
        let handle = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let user = handle.user_id();
            let Some(desk) = handle.desk_chat() else { return };
            let Some(link) = support::link_of(handle.tg.app.state.as_ref(), PLATFORM, user, desk).await
            else {
                return;
            };
            if !link.open || link.answered || link.opened_ms != opened_ms {
                return;
            }
            let lang = Lang::parse(&link.lang).unwrap_or(handle.desk_lang());
            let texts = &lang.texts().support;
            let markup = InlineKeyboardMarkup::new([[
                InlineKeyboardButton::callback(
                    texts.keep_waiting,
                    ButtonData::Desk(DeskAction::Wait).encode(),
                ),
                InlineKeyboardButton::callback(
                    texts.back_to_bot,
                    ButtonData::Desk(DeskAction::Back).encode(),
                ),
            ]]);
            let target = shopper_target(user);
            if let Err(e) = handle
                .tg
                .outbox
                .deliver_with_markup(&handle.bot, &target, texts.no_answer_yet, Some(markup))
                .await
            {
                tracing::warn!(error = %e, "could not tell the shopper nobody answered yet");
            }
        });
    }

    /// A shopper's message (past the door as any message) while their
    /// conversation with the desk is open: copied to their topic; `None`
    /// when there is no open conversation (the bot answers).
    pub(super) async fn to_desk(&self, msg: &Message) -> Result<Option<&'static str>, RequestError> {
        let Some(desk) = self.desk_chat() else { return Ok(None) };
        if matches!(incoming::content(msg), Content::Service) {
            return Ok(None);
        }
        let state = self.tg.app.state.clone();
        let Some(mut link) = support::link_of(state.as_ref(), PLATFORM, self.user_id(), desk).await else {
            return Ok(None);
        };
        if !link.open {
            return Ok(None);
        }
        // A text is relayed marked as the shopper's (`🧑 › …`, shown as written): it cannot
        // pass for a note of the bot's. A photo, voice or file is copied as it is.
        let relayed = match msg.text() {
            Some(text) => self
                .tg
                .outbox
                .deliver_text(&self.bot, &topic_target(desk, link.thread), &support::relayed(text))
                .await
                .map(drop)
                .map_err(|e| e.to_string()),
            None => {
                let copy = CopyMessage::new(ChatId(desk), msg.chat.id, msg.id)
                    .message_thread_id(ThreadId(MessageId(link.thread)));
                send::call(&self.bot, &copy).await.map(drop).map_err(|e| e.to_string())
            }
        };
        match relayed {
            Ok(()) => {
                metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_desk", "outcome" => "relayed")
                    .increment(1);
                Ok(Some(RELAYED))
            }
            Err(e) => {
                // The topic is gone or the desk refuses the bot: the bot answers again.
                tracing::error!(error = %e, thread = link.thread, "could not copy the shopper's message to the desk");
                self.tg.app.stats.record_error("could not copy a message to the service desk");
                metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_desk", "outcome" => "failed")
                    .increment(1);
                link.open = false;
                let _ = support::save_link(state.as_ref(), PLATFORM, desk, &link).await;
                Ok(None)
            }
        }
    }

    /// A suggestion button the shopper pressed while talking to a person:
    /// shown in their topic instead of answered by the bot; `false` when no
    /// conversation is open.
    pub(super) async fn pressed_to_desk(&self, text: &str) -> Result<bool, RequestError> {
        let Some(desk) = self.desk_chat() else { return Ok(false) };
        let Some(link) = support::link_of(self.tg.app.state.as_ref(), PLATFORM, self.user_id(), desk).await
        else {
            return Ok(false);
        };
        if !link.open || self.is_group {
            return Ok(false);
        }
        self.tg
            .outbox
            .deliver_text(&self.bot, &topic_target(desk, link.thread), &support::relayed(text))
            .await?;
        metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_desk", "outcome" => "relayed")
            .increment(1);
        Ok(true)
    }

    /// A message in the desk's group, past the door as staff's: in a
    /// shopper's open topic it is copied to that shopper (`/close` ends the
    /// conversation); anywhere else it reaches nobody.
    pub(super) async fn staff_message(&self, msg: &Message) -> Result<&'static str, RequestError> {
        let nobody = || {
            metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_shopper", "outcome" => "nobody")
                .increment(1);
            Ok(NOBODY)
        };
        if matches!(incoming::content(msg), Content::Service) {
            return Ok(NOBODY);
        }
        let Some(thread) = msg.thread_id.filter(|_| msg.is_topic_message).map(|t| t.0.0) else {
            return nobody();
        };
        let state = self.tg.app.state.clone();
        let desk = self.target.chat.0;
        let Some(user) = support::shopper_of_topic(state.as_ref(), desk, thread).await else {
            return nobody();
        };
        let Some(mut link) = support::link_of(state.as_ref(), PLATFORM, user, desk).await else {
            return nobody();
        };
        if link.thread != thread || !link.open {
            return nobody();
        }
        let text = msg.text().unwrap_or_default().trim();
        let command = text.split_whitespace().next().unwrap_or_default();
        let is_close = command
            .split_once('@')
            .map_or(command, |(name, bot)| {
                if self.me.user.username.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(bot)) {
                    name
                } else {
                    ""
                }
            })
            .eq_ignore_ascii_case("/close");
        if is_close {
            self.close_desk(link, self.desk_lang().texts().support.closed_note, true).await?;
            return Ok(RELAYED);
        }
        let lang = Lang::parse(&link.lang).unwrap_or(self.desk_lang());
        let shopper = shopper_target(user);
        if !link.answered {
            link.answered = true;
            let _ = support::save_link(state.as_ref(), PLATFORM, desk, &link).await;
            if let Err(e) =
                self.tg.outbox.deliver_text(&self.bot, &shopper, lang.texts().support.joined).await
            {
                if blocked(&e) {
                    return self.shopper_blocked(link).await;
                }
                return Err(e);
            }
        }
        let copy = CopyMessage::new(ChatId(user), ChatId(desk), msg.id);
        match send::call(&self.bot, &copy).await {
            Ok(_) => {
                metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_shopper", "outcome" => "relayed")
                    .increment(1);
                Ok(RELAYED)
            }
            Err(failure) if blocked(&failure.error) => self.shopper_blocked(link).await,
            Err(failure) => {
                metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_shopper", "outcome" => "failed")
                    .increment(1);
                Err(failure.error)
            }
        }
    }

    /// The shopper blocked the bot: the conversation ends, its topic says so
    /// (a note and a ⛔ before its name).
    async fn shopper_blocked(&self, mut link: Link) -> Result<&'static str, RequestError> {
        metrics::counter!(crate::infra::ops::DESK_MESSAGES, "direction" => "to_shopper", "outcome" => "blocked")
            .increment(1);
        let Some(desk) = self.desk_chat() else { return Ok(NOBODY) };
        link.open = false;
        let _ = support::save_link(self.tg.app.state.as_ref(), PLATFORM, desk, &link).await;
        let note = self.desk_lang().texts().support.blocked_note;
        self.tg.outbox.deliver_text(&self.bot, &topic_target(desk, link.thread), note).await?;
        let rename = EditForumTopic::new(ChatId(desk), ThreadId(MessageId(link.thread)))
            .name(format!("⛔ {}", support::topic_name(&link.name, link.user_id)));
        if let Err(e) = send::call(&self.bot, &rename).await {
            tracing::warn!(error = %e, "could not mark the topic of a shopper who blocked the bot");
        }
        Ok(RELAYED)
    }

    /// Ends the conversation: the shopper is told (`tell_shopper`), the topic
    /// gets `note` and is closed; the bot answers the shopper again.
    async fn close_desk(&self, mut link: Link, note: &str, tell_shopper: bool) -> Result<(), RequestError> {
        let Some(desk) = self.desk_chat() else { return Ok(()) };
        link.open = false;
        if let Err(e) = support::save_link(self.tg.app.state.as_ref(), PLATFORM, desk, &link).await {
            tracing::error!(error = %e, "could not end the conversation with the service desk");
            return Ok(());
        }
        tracing::info!(thread = link.thread, "the conversation with the service desk ended");
        if tell_shopper {
            let lang = Lang::parse(&link.lang).unwrap_or(self.desk_lang());
            let told = self
                .tg
                .outbox
                .deliver_text(&self.bot, &shopper_target(link.user_id), lang.texts().support.closed)
                .await;
            if let Err(e) = told
                && !blocked(&e)
            {
                tracing::warn!(error = %e, "could not tell the shopper the conversation ended");
            }
        }
        self.tg.outbox.deliver_text(&self.bot, &topic_target(desk, link.thread), note).await?;
        if let Err(e) =
            send::call(&self.bot, &CloseForumTopic::new(ChatId(desk), ThreadId(MessageId(link.thread)))).await
        {
            tracing::debug!(error = %e, "closing the shopper's topic");
        }
        Ok(())
    }

    /// The desk's buttons, past the door (staff's close as staff's, at the
    /// desk only; the shopper's as any press): staff's close on the card;
    /// the shopper's "keep waiting" / "go on with the bot".
    pub(super) async fn on_desk_button(
        &self,
        query: &CallbackQuery,
        message: &Message,
        action: DeskAction,
    ) -> Result<&'static str, RequestError> {
        let state = self.tg.app.state.clone();
        match action {
            DeskAction::Close(user) => {
                let desk = self.desk_chat().unwrap_or_default();
                let link = support::link_of(state.as_ref(), PLATFORM, user, desk).await;
                let in_topic = message.thread_id.map(|t| t.0.0);
                let link = link.filter(|l| self.in_desk_group() && in_topic == Some(l.thread) && l.open);
                let Some(link) = link else {
                    let already = self.desk_lang().texts().support.already_closed;
                    send::answer_press(&self.bot, query, Some(already), false).await;
                    return Ok(RELAYED);
                };
                send::answer_press(&self.bot, query, None, false).await;
                let note = self.desk_lang().texts().support.closed_note;
                self.close_desk(link, note, true).await?;
            }
            DeskAction::Wait => {
                // The message says so and keeps the way back to the bot.
                let texts = &self.lang().texts().support;
                send::answer_press(&self.bot, query, None, false).await;
                let back = ButtonData::Desk(DeskAction::Back).encode();
                let markup =
                    InlineKeyboardMarkup::new([[InlineKeyboardButton::callback(texts.back_to_bot, back)]]);
                let edit =
                    EditMessageText::new(message.chat.id, message.id, texts.waiting).reply_markup(markup);
                if let Err(e) = send::call(&self.bot, &edit).await {
                    tracing::warn!(error = %e, "could not show that the shopper keeps waiting");
                }
            }
            DeskAction::Back => {
                let lang = self.lang();
                send::answer_press(&self.bot, query, None, false).await;
                send::close_buttons(&self.bot, message, lang.texts().support.back).await;
                if let Some(desk) = self.desk_chat()
                    && let Some(link) = support::link_of(state.as_ref(), PLATFORM, self.user_id(), desk).await
                    && link.open
                {
                    let note = self.desk_lang().texts().support.went_back_note;
                    self.close_desk(link, note, false).await?;
                }
            }
        }
        Ok(RELAYED)
    }
}
