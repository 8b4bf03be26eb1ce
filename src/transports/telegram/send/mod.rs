//! Sending to Telegram, one job per module: [`call`] (the Bot API call and
//! its one retry and flood rule: every request of the bot, photos and the
//! live message included, goes through it), [`message`] (an answer's parts,
//! the edits and answers after a press), [`keyboard`] (an answer's buttons)
//! and [`typing`] (the "typing…" loop); and [`Target`], where an answer goes.

use serde::{Deserialize, Serialize};
use teloxide::types::{ChatId, Message, MessageId, ThreadId};

pub(crate) mod call;
pub(crate) mod keyboard;
pub(crate) mod message;
pub(crate) mod typing;

pub use call::TELEGRAM_RETRY;
pub(crate) use call::call;

pub(crate) use call::call_uploading;
pub(crate) use call::{SendFailure, Upload};
pub use keyboard::ButtonContext;
pub(crate) use keyboard::pressed_suggestion;
pub use message::{Outgoing, send_text};
pub(crate) use message::{answer_press, close_buttons, send_now};
pub use typing::ChatTyping;
pub(crate) use typing::Typing;

/// Where an answer goes: the chat, the forum topic, and (in groups) the
/// message it answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub chat: ChatId,
    /// The forum topic, when the message came from one.
    pub thread: Option<ThreadId>,
    /// The message to reply to (groups, so it is clear whom the bot answers).
    pub reply_to: Option<MessageId>,
}

impl Target {
    /// The target answering `msg`: same chat, same forum topic, and in
    /// groups a reply to it.
    pub(crate) fn answering(msg: &Message) -> Self {
        let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
        Target {
            chat: msg.chat.id,
            thread: msg.thread_id.filter(|_| msg.is_topic_message),
            reply_to: is_group.then_some(msg.id),
        }
    }
}
