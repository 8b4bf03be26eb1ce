//! Delivering answers: a [`Reply`] as one or more HTML messages with its
//! buttons, resent plain when Telegram cannot parse it, retried after flood
//! control and network errors; the typing indicator; edits after a press.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handlers::Lang;
use teloxide::prelude::*;
use teloxide::requests::{HasPayload, Output};
use teloxide::types::{
    ChatAction, InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ParseMode, ReplyParameters, ThreadId,
};
use teloxide::{ApiError, RequestError};

use super::callback::ButtonData;
use super::format::{MESSAGE_LIMIT, escape_html, split_message, telegram_len};
use super::texts;
use crate::reply::Reply;

/// How many times a request is retried after `429 Too Many Requests`.
const FLOOD_RETRIES: u32 = 3;
/// The longest `retry_after` that is waited for; longer waits give up.
const MAX_FLOOD_WAIT: Duration = Duration::from_secs(60);
/// How many times a request is retried after a network error.
const NETWORK_RETRIES: u32 = 3;
/// The first wait after a network error; doubled on each retry.
const NETWORK_BACKOFF: Duration = Duration::from_millis(500);
/// Telegram shows "typing…" for about 5 seconds; it is refreshed this often.
const TYPING_REFRESH: Duration = Duration::from_secs(4);

/// Where an answer goes: the chat, the forum topic, and (in groups) the
/// message it answers.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Sends a request, waiting out `429` (`retry_after`, bounded) and retrying
/// network errors with backoff (bounded).
pub async fn retrying<R>(request: &R) -> Result<Output<R>, RequestError>
where
    R: Request<Err = RequestError>,
{
    let mut flood = 0;
    let mut network = 0;
    loop {
        match request.send_ref().await {
            Err(RequestError::RetryAfter(after))
                if flood < FLOOD_RETRIES && after.duration() <= MAX_FLOOD_WAIT =>
            {
                flood += 1;
                tracing::warn!(
                    retry_after = after.seconds(),
                    attempt = flood,
                    "telegram flood control; waiting"
                );
                tokio::time::sleep(after.duration()).await;
            }
            Err(RequestError::Network(e)) if network < NETWORK_RETRIES => {
                let wait = NETWORK_BACKOFF * 2u32.pow(network);
                network += 1;
                tracing::warn!(error = %e, attempt = network, wait_ms = wait.as_millis() as u64, "telegram unreachable; retrying");
                tokio::time::sleep(wait).await;
            }
            other => return other.inspect_err(crate::ops::telegram_error),
        }
    }
}

/// Sends `text` as HTML (escaped); if Telegram cannot parse it, sends the
/// same text plain. The first part of a split text replies to
/// `target.reply_to`; `markup` goes on the last part.
pub async fn send_text(
    bot: &Bot,
    target: &Target,
    text: &str,
    markup: Option<InlineKeyboardMarkup>,
) -> Result<Vec<Message>, RequestError> {
    let parts = split_message(text, MESSAGE_LIMIT);
    let count = parts.len();
    let mut sent = Vec::with_capacity(count);
    for (i, part) in parts.into_iter().enumerate() {
        let mut request = bot.send_message(target.chat, escape_html(&part)).parse_mode(ParseMode::Html);
        if let Some(thread) = target.thread {
            request = request.message_thread_id(thread);
        }
        if let (0, Some(id)) = (i, target.reply_to) {
            request = request.reply_parameters(ReplyParameters::new(id).allow_sending_without_reply());
        }
        if let (true, Some(markup)) = (i + 1 == count, &markup) {
            request = request.reply_markup(markup.clone());
        }
        let message = match retrying(&request).await {
            Err(RequestError::Api(ApiError::CantParseEntities(why))) => {
                tracing::warn!(error = %why, "telegram could not parse the HTML; sending plain text");
                let payload = request.payload_mut();
                payload.parse_mode = None;
                payload.text = part;
                retrying(&request).await?
            }
            other => other?,
        };
        sent.push(message);
    }
    Ok(sent)
}

/// What a reply's buttons need besides the reply itself.
pub struct ButtonContext<'a> {
    pub lang: Lang,
    /// The bot's username, for the private-chat link.
    pub bot_username: &'a str,
    /// The deep-link payload carrying a group request to the private chat.
    pub handoff_payload: Option<String>,
}

/// The inline keyboard of a reply: Confirm / Cancel, the suggestions, the
/// private-chat link. `None` when there is nothing to press.
pub fn keyboard(reply: &Reply, buttons: &ButtonContext<'_>) -> Option<InlineKeyboardMarkup> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    if let Some(prompt) = &reply.confirmation {
        let (yes, no) = texts::confirm_labels(buttons.lang);
        let data = |approve| ButtonData::Confirmation { token: prompt.token.clone(), approve }.encode();
        rows.push(vec![
            InlineKeyboardButton::callback(yes, data(true)),
            InlineKeyboardButton::callback(no, data(false)),
        ]);
    }
    rows.extend(suggestion_rows(&reply.suggestions));
    if reply.open_private.is_some()
        && let Some(url) = private_chat_url(buttons.bot_username, buttons.handoff_payload.as_deref())
    {
        rows.push(vec![InlineKeyboardButton::url(texts::open_private_label(buttons.lang), url)]);
    }
    (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows))
}

/// Suggestion buttons: two to a row when both are short, else one. The
/// button's label is the suggestion; its data is its index.
fn suggestion_rows(suggestions: &[String]) -> Vec<Vec<InlineKeyboardButton>> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    for (i, suggestion) in suggestions.iter().enumerate() {
        let button = InlineKeyboardButton::callback(suggestion.clone(), ButtonData::Suggestion(i).encode());
        let short = suggestion.chars().count() <= 12;
        match rows.last_mut() {
            Some(row) if short && row.len() == 1 && row_is_short(row) => row.push(button),
            _ => rows.push(vec![button]),
        }
    }
    rows
}

fn row_is_short(row: &[InlineKeyboardButton]) -> bool {
    row.iter().all(|b| b.text.chars().count() <= 12)
}

/// `https://t.me/<bot>?start=<payload>` (or without payload).
fn private_chat_url(bot_username: &str, payload: Option<&str>) -> Option<reqwest::Url> {
    let url = match payload {
        Some(payload) => format!("https://t.me/{bot_username}?start={payload}"),
        None => format!("https://t.me/{bot_username}"),
    };
    reqwest::Url::parse(&url).ok()
}

/// The suggestion a button press stands for: the label of the button with
/// that data on the pressed message.
pub fn pressed_suggestion(message: &Message, index: usize) -> Option<String> {
    let data = ButtonData::Suggestion(index).encode();
    message.reply_markup()?.inline_keyboard.iter().flatten().find_map(|button| match &button.kind {
        teloxide::types::InlineKeyboardButtonKind::CallbackData(d) if *d == data => Some(button.text.clone()),
        _ => None,
    })
}

/// Sends a whole reply: its text (split if long) with its buttons, then its
/// picture if any (a picture that cannot be sent is only logged).
pub async fn send_reply(
    bot: &Bot,
    target: &Target,
    reply: &Reply,
    buttons: &ButtonContext<'_>,
) -> Result<(), RequestError> {
    let text = if reply.text.trim().is_empty() {
        reply.confirmation.as_ref().map(|c| c.summary.clone()).unwrap_or_else(|| "…".to_owned())
    } else {
        reply.text.clone()
    };
    send_text(bot, target, &text, keyboard(reply, buttons)).await?;
    if let Some(image) = reply.image.as_deref() {
        send_picture(bot, target, image).await;
    }
    Ok(())
}

pub(super) async fn send_picture(bot: &Bot, target: &Target, image: &str) {
    let Ok(url) = reqwest::Url::parse(image) else {
        tracing::debug!(image, "picture is not a URL; not sent");
        return;
    };
    let mut request = bot.send_photo(target.chat, teloxide::types::InputFile::url(url));
    if let Some(thread) = target.thread {
        request = request.message_thread_id(thread);
    }
    if let Err(e) = retrying(&request).await {
        tracing::warn!(error = %e, image, "could not send the picture");
    }
}

/// Replaces a message's buttons with a line under its text (`outcome`), so
/// the shopper sees what the press did. Failures are logged: the press goes on.
pub async fn close_buttons(bot: &Bot, message: &Message, outcome: &str) {
    let original = message.text().or(message.caption()).unwrap_or_default();
    let mut text = if original.is_empty() { outcome.to_owned() } else { format!("{original}\n\n{outcome}") };
    if telegram_len(&text) > MESSAGE_LIMIT {
        text = outcome.to_owned();
    }
    let request = bot
        .edit_message_text(message.chat.id, message.id, escape_html(&text))
        .parse_mode(ParseMode::Html)
        .reply_markup(InlineKeyboardMarkup::default());
    match retrying(&request).await {
        Ok(_) | Err(RequestError::Api(ApiError::MessageNotModified)) => {}
        Err(e) => {
            tracing::warn!(error = %e, "could not edit the pressed message; removing its buttons only");
            let request = bot.edit_message_reply_markup(message.chat.id, message.id);
            if let Err(e) = retrying(&request.reply_markup(InlineKeyboardMarkup::default())).await {
                tracing::warn!(error = %e, "could not remove the buttons");
            }
        }
    }
}

/// Answers a button press: a toast, an alert (`show_alert`), or nothing.
/// Failures (a press too old to answer) are logged.
pub async fn answer_press(bot: &Bot, query: &CallbackQuery, text: Option<&str>, show_alert: bool) {
    let mut request = bot.answer_callback_query(query.id.clone());
    if let Some(text) = text {
        request = request.text(text).show_alert(show_alert);
    }
    if let Err(e) = retrying(&request).await {
        tracing::warn!(error = %e, "could not answer the button press");
    }
}

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
            let mut request = bot.send_chat_action(target.chat, ChatAction::Typing);
            if let Some(thread) = target.thread {
                request = request.message_thread_id(thread);
            }
            if let Err(e) = request.await {
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
    pub fn stop(&mut self) {
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
    use crate::reply::ConfirmationPrompt;
    use handlers::Level;
    use teloxide::types::InlineKeyboardButtonKind;

    fn data_of(button: &InlineKeyboardButton) -> String {
        match &button.kind {
            InlineKeyboardButtonKind::CallbackData(d) => d.clone(),
            InlineKeyboardButtonKind::Url(u) => u.to_string(),
            other => format!("{other:?}"),
        }
    }

    fn labels_and_data(markup: &InlineKeyboardMarkup) -> Vec<Vec<(String, String)>> {
        markup
            .inline_keyboard
            .iter()
            .map(|row| row.iter().map(|b| (b.text.clone(), data_of(b))).collect())
            .collect()
    }

    #[test]
    fn a_confirmation_gets_confirm_and_cancel_in_the_shoppers_language() {
        let reply = Reply {
            text: "请确认：\nNike 跑鞋 42 码 ×1".into(),
            confirmation: Some(ConfirmationPrompt {
                token: "tok123".into(),
                level: Level::Confirm,
                summary: "Nike 跑鞋 42 码 ×1".into(),
                needs_code: false,
            }),
            ..Default::default()
        };
        let buttons = ButtonContext { lang: Lang::Zh, bot_username: "MallGuideBot", handoff_payload: None };
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![("✅ 确认".into(), "c:tok123:y".into()), ("✖️ 取消".into(), "c:tok123:n".into())]]
        );
    }

    #[test]
    fn suggestions_carry_their_index_and_long_ones_get_a_row_each() {
        let long = "帮我看看这双鞋有没有 43 码和 44 码的库存".to_owned();
        let reply = Reply {
            suggestions: vec!["41码".into(), "42码".into(), long.clone(), "43码".into()],
            ..Reply::text("要什么尺码？")
        };
        let buttons = ButtonContext { lang: Lang::Zh, bot_username: "b", handoff_payload: None };
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![
                vec![("41码".into(), "s:0".into()), ("42码".into(), "s:1".into())],
                vec![(long, "s:2".into())],
                vec![("43码".into(), "s:3".into())],
            ]
        );
    }

    #[test]
    fn a_group_hand_off_is_a_link_to_the_private_chat_with_the_payload() {
        let reply = Reply { open_private: Some("看看购物车".into()), ..Reply::text("请私聊") };
        let buttons = ButtonContext {
            lang: Lang::En,
            bot_username: "MallGuideBot",
            handoff_payload: Some("hAbc123".into()),
        };
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![(
                "💬 Continue in private chat".into(),
                "https://t.me/MallGuideBot?start=hAbc123".into()
            )]]
        );
    }

    #[test]
    fn a_plain_reply_has_no_keyboard() {
        let buttons = ButtonContext { lang: Lang::Zh, bot_username: "b", handoff_payload: None };
        assert_eq!(keyboard(&Reply::text("你好"), &buttons), None);
    }

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
