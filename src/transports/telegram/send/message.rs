//! An answer as Telegram gets it: [`Target`] (chat, topic, message
//! answered), [`Outgoing`] (what the outbox keeps), [`send_now`] (split
//! into parts, HTML with a plain-text resend, buttons on the last part,
//! optionally turning an existing status message into its first part, then
//! its pictures), and the edits and answers after a button press. Every
//! request goes through [`call`].

use serde::{Deserialize, Serialize};
use teloxide::payloads::{
    AnswerCallbackQuerySetters, EditMessageReplyMarkupSetters, EditMessageTextSetters, SendMessageSetters,
    SendPhotoSetters,
};
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardMarkup, MessageId, ParseMode, ReplyParameters};
use teloxide::{ApiError, RequestError};

use super::super::format::{MESSAGE_LIMIT, Part, escape_html, telegram_len};
use super::super::markdown::render_parts;
use super::Target;
use super::call::{SendFailure, call};
use super::keyboard::{ButtonContext, keyboard};
use crate::engine::reply::Reply;

/// One answer on its way: where it goes, its text (Markdown as the model
/// wrote it), its buttons, its picture, and the message it replaces. It is
/// what the outbox keeps until Telegram took it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outgoing {
    pub(crate) target: Target,
    pub(crate) text: String,
    /// The buttons, on the last part.
    pub(crate) markup: Option<InlineKeyboardMarkup>,
    /// A picture URL sent after the text (a failure is only logged).
    pub(crate) image: Option<String>,
    /// A message of the bot (a status message) to turn into the first part.
    pub(crate) replace: Option<MessageId>,
    /// How many parts an earlier attempt delivered already.
    #[serde(default)]
    pub(crate) parts_sent: usize,
    /// Floor plans sent after the text. Not kept in the outbox: an answer
    /// delivered late carries its steps in the text, without the pictures.
    #[serde(skip)]
    pub(crate) pictures: Vec<handlers::Picture>,
}

impl Outgoing {
    /// The answer `reply` at `target` with its buttons, replacing `replace` if given.
    pub(crate) fn new(
        target: &Target,
        reply: &Reply,
        buttons: &ButtonContext<'_>,
        replace: Option<MessageId>,
    ) -> Self {
        let text = if reply.text.trim().is_empty() {
            reply.confirmation.as_ref().map(|c| c.summary.clone()).unwrap_or_else(|| "…".to_owned())
        } else {
            reply.text.clone()
        };
        Outgoing {
            target: *target,
            text,
            markup: keyboard(reply, buttons),
            image: reply.image.clone(),
            replace,
            parts_sent: 0,
            pictures: reply.pictures.clone(),
        }
    }

    /// A text of the bot's own, without buttons.
    pub fn text(target: &Target, text: &str) -> Self {
        Outgoing {
            target: *target,
            text: text.to_owned(),
            markup: None,
            image: None,
            replace: None,
            parts_sent: 0,
            pictures: Vec::new(),
        }
    }
}

/// Why an answer was not (wholly) delivered.
#[derive(Debug, Clone)]
pub(crate) struct Undelivered {
    pub(crate) failure: SendFailure,
    /// The parts delivered before the failure (counting earlier attempts).
    pub(crate) parts_sent: usize,
}

/// Delivers `out` now: its parts in order (from `out.parts_sent` on), the
/// first replacing `out.replace` when given, the buttons on the last part,
/// then the picture. Returns the ids of the messages that carry it.
pub(crate) async fn send_now(bot: &Bot, out: &Outgoing) -> Result<Vec<MessageId>, Undelivered> {
    let parts = render_parts(&out.text, MESSAGE_LIMIT);
    let count = parts.len();
    let mut sent = Vec::with_capacity(count);
    for (i, part) in parts.iter().enumerate().skip(out.parts_sent) {
        let markup = (i + 1 == count).then(|| out.markup.clone()).flatten();
        let replace = out.replace.filter(|_| i == 0);
        match send_part(bot, &out.target, part, markup, replace, i == 0).await {
            Ok(id) => sent.push(id),
            Err(failure) => return Err(Undelivered { failure, parts_sent: i }),
        }
    }
    if let Some(image) = out.image.as_deref() {
        send_picture(bot, &out.target, image).await;
    }
    super::super::photos::send_pictures(bot, &out.target, &out.pictures).await;
    Ok(sent)
}

/// One part: an edit of `replace` (sent new when that message is gone), else
/// a new message; HTML, resent plain when Telegram cannot parse it.
async fn send_part(
    bot: &Bot,
    target: &Target,
    part: &Part,
    markup: Option<InlineKeyboardMarkup>,
    replace: Option<MessageId>,
    first: bool,
) -> Result<MessageId, SendFailure> {
    if let Some(id) = replace {
        match edit_part(bot, target.chat, id, part, markup.clone()).await {
            Ok(()) => return Ok(id),
            Err(SendFailure { error: RequestError::Api(error), .. }) if is_gone(&error) => {
                tracing::info!(chat = target.chat.0, error = %error, "the message to replace is gone; sending the answer as a new one");
            }
            Err(failure) => return Err(failure),
        }
    }
    let mut payload =
        teloxide::payloads::SendMessage::new(target.chat, part.html.clone()).parse_mode(ParseMode::Html);
    payload.link_preview_options = super::super::trust::preview_options(&part.html);
    if let Some(thread) = target.thread {
        payload = payload.message_thread_id(thread);
    }
    if let (true, Some(id)) = (first, target.reply_to) {
        payload = payload.reply_parameters(ReplyParameters::new(id).allow_sending_without_reply());
    }
    if let Some(markup) = markup {
        payload = payload.reply_markup(markup);
    }
    // Only the id is kept: a whole `Message` held across the second call
    // would be a kilobyte more in this future.
    let sent = call(bot, &payload).await.map(|message| message.id);
    match sent {
        Err(SendFailure { error: RequestError::Api(ApiError::CantParseEntities(why)), .. }) => {
            tracing::warn!(error = %why, "telegram could not parse the HTML; sending plain text");
            payload.parse_mode = None;
            payload.text = part.plain.clone();
            Ok(call(bot, &payload).await?.id)
        }
        other => other,
    }
}

/// Edits message `id` into `part` (with `markup`, or no buttons). "Not
/// modified" counts as done.
async fn edit_part(
    bot: &Bot,
    chat: ChatId,
    id: MessageId,
    part: &Part,
    markup: Option<InlineKeyboardMarkup>,
) -> Result<(), SendFailure> {
    let mut payload = teloxide::payloads::EditMessageText::new(chat, id, part.html.clone())
        .parse_mode(ParseMode::Html)
        .reply_markup(markup.unwrap_or_default());
    payload.link_preview_options = super::super::trust::preview_options(&part.html);
    let edited = call(bot, &payload).await.map(drop);
    let result = match edited {
        Err(SendFailure { error: RequestError::Api(ApiError::CantParseEntities(why)), .. }) => {
            tracing::warn!(error = %why, "telegram could not parse the HTML; editing in plain text");
            payload.parse_mode = None;
            payload.text = part.plain.clone();
            call(bot, &payload).await.map(drop)
        }
        other => other,
    };
    match result {
        Ok(_) | Err(SendFailure { error: RequestError::Api(ApiError::MessageNotModified), .. }) => Ok(()),
        Err(failure) => Err(failure),
    }
}

/// Whether an edit failed because the message cannot be edited any more.
fn is_gone(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::MessageToEditNotFound | ApiError::MessageCantBeEdited | ApiError::MessageIdInvalid
    )
}

/// Sends `text` (Markdown) at `target` now, with `markup` on the last part,
/// without the outbox. Returns the ids of the messages sent.
pub async fn send_text(
    bot: &Bot,
    target: &Target,
    text: &str,
    markup: Option<InlineKeyboardMarkup>,
) -> Result<Vec<MessageId>, RequestError> {
    let out = Outgoing { markup, ..Outgoing::text(target, text) };
    send_now(bot, &out).await.map_err(|u| u.failure.error)
}

pub(crate) async fn send_picture(bot: &Bot, target: &Target, image: &str) {
    let Ok(url) = reqwest::Url::parse(image) else {
        tracing::debug!(image, "picture is not a URL; not sent");
        return;
    };
    if !super::super::trust::image_allowed(&url) {
        tracing::info!(image, "picture not from the mall's image hosts (http/https); not sent");
        return;
    };
    let mut payload = teloxide::payloads::SendPhoto::new(target.chat, teloxide::types::InputFile::url(url));
    if let Some(thread) = target.thread {
        payload = payload.message_thread_id(thread);
    }
    if let Err(e) = call(bot, &payload).await {
        tracing::warn!(error = %e, image, "could not send the picture");
    }
}

/// Replaces a message's buttons with a line under its text (`outcome`), so
/// the shopper sees what the press did. Failures are logged: the press goes on.
pub(crate) async fn close_buttons(bot: &Bot, message: &Message, outcome: &str) {
    let original = message.text().or(message.caption()).unwrap_or_default();
    let mut text = if original.is_empty() { outcome.to_owned() } else { format!("{original}\n\n{outcome}") };
    if telegram_len(&text) > MESSAGE_LIMIT {
        text = outcome.to_owned();
    }
    let payload = teloxide::payloads::EditMessageText::new(message.chat.id, message.id, escape_html(&text))
        .parse_mode(ParseMode::Html)
        .reply_markup(InlineKeyboardMarkup::default());
    match call(bot, &payload).await {
        Ok(_) | Err(SendFailure { error: RequestError::Api(ApiError::MessageNotModified), .. }) => {}
        Err(e) => {
            tracing::warn!(error = %e, "could not edit the pressed message; removing its buttons only");
            let payload = teloxide::payloads::EditMessageReplyMarkup::new(message.chat.id, message.id)
                .reply_markup(InlineKeyboardMarkup::default());
            if let Err(e) = call(bot, &payload).await {
                tracing::warn!(error = %e, "could not remove the buttons");
            }
        }
    }
}

/// Answers a button press: a toast, an alert (`show_alert`), or nothing.
/// Failures (a press too old to answer) are logged.
pub(crate) async fn answer_press(bot: &Bot, query: &CallbackQuery, text: Option<&str>, show_alert: bool) {
    let mut payload = teloxide::payloads::AnswerCallbackQuery::new(query.id.clone());
    if let Some(text) = text {
        payload = payload.text(text).show_alert(show_alert);
    }
    if let Err(e) = call(bot, &payload).await {
        tracing::warn!(error = %e, "could not answer the button press");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handlers::Lang;
    use teloxide::types::ThreadId;

    #[test]
    fn an_outgoing_answer_survives_the_outbox_round_trip() {
        let target = Target {
            chat: ChatId(-100_555),
            thread: Some(ThreadId(MessageId(77))),
            reply_to: Some(MessageId(12)),
        };
        let reply = Reply { suggestions: vec!["42码".into()], ..Reply::text("**要哪个尺码？**") };
        let buttons = ButtonContext::private(Lang::Zh, "b");
        let out = Outgoing { parts_sent: 1, ..Outgoing::new(&target, &reply, &buttons, Some(MessageId(99))) };
        let json = serde_json::to_string(&out).expect("encoded");
        let back: Outgoing = serde_json::from_str(&json).expect("decoded");
        assert_eq!(back, out);
    }
}
