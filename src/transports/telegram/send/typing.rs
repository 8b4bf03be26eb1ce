//! The "typing…" indicator: one loop per chat (and forum topic) being
//! answered, sent through [`call`] like every other request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use teloxide::payloads::SendChatActionSetters;
use teloxide::prelude::*;
use teloxide::types::{ChatAction, ThreadId};

use super::Target;
use super::call::call;

/// Telegram shows "typing…" for about 5 seconds; it is refreshed this often.
const TYPING_REFRESH: Duration = Duration::from_secs(4);

/// The "typing…" indicators of the chats being answered: one loop per chat
/// (and forum topic), however many of its messages are in progress. The loop
/// starts with the first [`Typing`] held for the chat and stops when the last
/// one is released. Cheap to clone; clones share the loops.
#[derive(Clone, Default)]
pub struct ChatTyping {
    loops: Arc<Mutex<HashMap<TypingKey, TypingLoop>>>,
}

/// A chat and its forum topic.
type TypingKey = (ChatId, Option<ThreadId>);

struct TypingLoop {
    holders: usize,
    task: tokio::task::JoinHandle<()>,
}

impl ChatTyping {
    /// Shows "typing…" at `target` until the returned guard is released
    /// (dropped or [`Typing::stop`]); joins the chat's loop when it runs.
    pub fn hold(&self, bot: &Bot, target: &Target) -> Typing {
        let key = (target.chat, target.thread);
        let mut loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
        match loops.get_mut(&key) {
            Some(running) => running.holders += 1,
            None => {
                loops.insert(key, TypingLoop { holders: 1, task: typing_loop(bot.clone(), *target) });
            }
        }
        Typing { loops: Some(self.clone()), key }
    }

    /// How many typing loops run now.
    pub fn running(&self) -> usize {
        self.loops.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn release(&self, key: TypingKey) {
        let mut loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = loops.get_mut(&key) {
            running.holders = running.holders.saturating_sub(1);
            if running.holders == 0
                && let Some(done) = loops.remove(&key)
            {
                done.task.abort();
            }
        }
    }
}

/// Sends "typing…" at `target` now and every [`TYPING_REFRESH`] until aborted.
fn typing_loop(bot: Bot, target: Target) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let mut payload = teloxide::payloads::SendChatAction::new(target.chat, ChatAction::Typing);
            if let Some(thread) = target.thread {
                payload = payload.message_thread_id(thread);
            }
            if let Err(e) = call(&bot, &payload).await {
                tracing::debug!(error = %e, "typing indicator not sent");
            }
            tokio::time::sleep(TYPING_REFRESH).await;
        }
    })
}

/// One message's hold on its chat's "typing…" loop; released when dropped.
pub struct Typing {
    loops: Option<ChatTyping>,
    key: TypingKey,
}

impl Typing {
    /// Releases the hold now (the answer or a status became visible).
    pub(crate) fn stop(&mut self) {
        if let Some(loops) = self.loops.take() {
            loops.release(self.key);
        }
    }
}

impl Drop for Typing {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use teloxide::types::MessageId;

    #[tokio::test]
    async fn one_typing_loop_per_chat_however_many_messages_hold_it() {
        let bot = Bot::new("1:x").set_api_url(reqwest::Url::parse("http://127.0.0.1:9/").expect("url"));
        let typing = ChatTyping::default();
        let chat = Target { chat: ChatId(5), thread: None, reply_to: None };
        let topic = Target { chat: ChatId(-7), thread: Some(ThreadId(MessageId(3))), reply_to: None };
        let first = typing.hold(&bot, &chat);
        let mut second = typing.hold(&bot, &chat);
        assert_eq!(typing.running(), 1, "two messages of one chat share one loop");
        let in_topic = typing.hold(&bot, &topic);
        assert_eq!(typing.running(), 2);
        second.stop();
        second.stop();
        assert_eq!(typing.running(), 2, "the chat's other message still waits");
        drop(first);
        assert_eq!(typing.running(), 1, "the last release stops the chat's loop");
        drop(in_topic);
        assert_eq!(typing.running(), 0);
        drop(second);
        let _again = typing.hold(&bot, &chat);
        assert_eq!(typing.running(), 1, "a new message starts it again");
    }
}
