//! Sending to Telegram, one job per module: [`call`] (the Bot API call and
//! its one retry and flood rule: every request of the bot, photos and the
//! live message included, goes through it), [`message`] (an answer's parts,
//! the edits and answers after a press), [`keyboard`] (an answer's buttons)
//! and [`typing`] (the "typing…" loop); and [`Target`], where an answer goes.

use serde::{Deserialize, Serialize};
use teloxide::types::{ChatId, Message, MessageId, ThreadId};

pub mod call;
pub mod keyboard;
pub mod message;
pub mod typing;

pub use call::{SendFailure, TELEGRAM_RETRY, Upload, call, call_uploading, network_error};
pub use keyboard::{ButtonContext, keyboard, pressed_suggestion};
pub use message::{Outgoing, Undelivered, answer_press, close_buttons, send_now, send_picture, send_text};
pub use typing::{ChatTyping, Typing};

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
    pub fn answering(msg: &Message) -> Self {
        let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
        Target {
            chat: msg.chat.id,
            thread: msg.thread_id.filter(|_| msg.is_topic_message),
            reply_to: is_group.then_some(msg.id),
        }
    }
}
