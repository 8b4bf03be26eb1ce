//! Where an answer goes.

use serde::{Deserialize, Serialize};
use teloxide::types::{ChatId, Message, MessageId, ThreadId};

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
