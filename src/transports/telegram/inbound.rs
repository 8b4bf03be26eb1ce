//! An update as it comes in. Reading an incoming message: what it says, whether it is addressed to the
//! bot (in groups only mentions, replies to the bot and `/command@bot` are),
//! the text with the bot's mention stripped, and which command it is.
//!
//! [`Handle`]: one update as every step of its handling sees it — the bot,
//! who the bot is, the transport, where the answer goes (chat, forum topic,
//! the message answered), who sent it, and the language, worked out once.
//! It is built once per update (a message, a button press, a pre-checkout
//! query) and passed as one value through the update's handling: messages,
//! commands, presses, payments, the live message; its answers go out
//! through the outbox. The shopper's `/lang` choice is read from the state
//! store at most once per update, when a step first needs the language (a
//! group message not addressed to the bot needs none).

use super::outbox::Delivery;
use super::send::{self, ButtonContext, Target};
use super::{Transport, texts};
pub(crate) use crate::engine::commands::Command;
use crate::engine::context::{ChosenLang, MessageContext};
use crate::engine::reply::Reply;
use crate::engine::router::{Admitted, Knock, Way, Why};
use handlers::Lang;
use std::future::Future;
use std::sync::Arc;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{
    FileMeta, Me, Message, MessageEntityKind, MessageEntityRef, MessageId, MessageKind, PhotoSize, User,
    UserId,
};
use tokio::sync::OnceCell;

/// What a message carries, as far as the bot is concerned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Content<'a> {
    /// Text or a media caption, with its entities.
    Text { text: &'a str, entities: Vec<MessageEntityRef<'a>> },
    /// Speech to transcribe: a voice message, an audio file or a video note.
    Speech(Speech<'a>),
    /// A photo, with its caption and the caption's entities when it has one.
    Photo { sizes: &'a [PhotoSize], caption: Option<(&'a str, Vec<MessageEntityRef<'a>>)> },
    /// Something a shopper sent that has no text to read (sticker, document
    /// without caption, location, dice…).
    Unreadable,
    /// A service message (members joined, title changed, pinned…): never answered.
    Service,
}

/// A recording that carries speech.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Speech<'a> {
    /// The file to fetch.
    pub file: &'a FileMeta,
    /// Its length in seconds, as Telegram reports it.
    pub seconds: u32,
    /// Its MIME type (`audio/ogg` for voice messages, `video/mp4` for video notes).
    pub mime: String,
}

/// The content of `msg`.
pub(crate) fn content(msg: &Message) -> Content<'_> {
    let MessageKind::Common(common) = &msg.kind else {
        return if msg.dice().is_some() { Content::Unreadable } else { Content::Service };
    };
    if matches!(common.media_kind, teloxide::types::MediaKind::Migration(_)) {
        return Content::Service;
    }
    if let Some(speech) = speech(msg) {
        return Content::Speech(speech);
    }
    if let Some(sizes) = msg.photo() {
        let caption = msg
            .caption()
            .filter(|c| !c.trim().is_empty())
            .map(|c| (c, msg.parse_caption_entities().unwrap_or_default()));
        return Content::Photo { sizes, caption };
    }
    let parsed = match (msg.text(), msg.caption()) {
        (Some(text), _) => msg.parse_entities().map(|e| (text, e)),
        (None, Some(caption)) => msg.parse_caption_entities().map(|e| (caption, e)),
        (None, None) => None,
    };
    match parsed {
        Some((text, entities)) if !text.trim().is_empty() => Content::Text { text, entities },
        _ => Content::Unreadable,
    }
}

/// The speech a message carries: a voice message, an audio file or a video note.
fn speech(msg: &Message) -> Option<Speech<'_>> {
    let mime = |m: Option<String>, default: &str| m.unwrap_or_else(|| default.to_owned());
    if let Some(voice) = msg.voice() {
        return Some(Speech {
            file: &voice.file,
            seconds: voice.duration.seconds(),
            mime: mime(voice.mime_type.as_ref().map(ToString::to_string), "audio/ogg"),
        });
    }
    if let Some(audio) = msg.audio() {
        let default = audio.file_name.as_deref().unwrap_or("audio/mpeg");
        return Some(Speech {
            file: &audio.file,
            seconds: audio.duration.seconds(),
            mime: mime(audio.mime_type.as_ref().map(ToString::to_string), default),
        });
    }
    msg.video_note().map(|note| Speech {
        file: &note.file,
        seconds: note.duration.seconds(),
        mime: "video/mp4".to_owned(),
    })
}

/// The bot as seen in messages: its user id and @username.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BotIdentity {
    /// The bot's user id.
    pub id: UserId,
    /// The bot's username, without `@`.
    pub username: String,
}

impl BotIdentity {
    /// The identity `getMe` reported.
    pub(crate) fn from_me(me: &Me) -> Self {
        BotIdentity { id: me.user.id, username: me.user.username.clone().unwrap_or_default() }
    }

    fn is_my_name(&self, name: &str) -> bool {
        !self.username.is_empty() && name.eq_ignore_ascii_case(&self.username)
    }
}

/// The text of a message after reading who it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Addressing {
    /// Whether the message mentions the bot, replies to it or is a `/command@bot`.
    pub addressed: bool,
    /// The text with the bot's mentions (and the `@bot` of a command) removed.
    pub text: String,
}

/// Reads whether `text` (with its `entities`) is addressed to `bot` and strips
/// the bot's mentions; `reply_to_bot` is whether the message replies to one of
/// the bot's messages.
pub(crate) fn addressing(
    text: &str,
    entities: &[MessageEntityRef<'_>],
    bot: &BotIdentity,
    reply_to_bot: bool,
) -> Addressing {
    let mut addressed = reply_to_bot;
    let mut cut: Vec<std::ops::Range<usize>> = Vec::new();
    for entity in entities {
        match entity.kind() {
            MessageEntityKind::Mention
                if entity.text().strip_prefix('@').is_some_and(|n| bot.is_my_name(n)) =>
            {
                addressed = true;
                cut.push(entity.range());
            }
            MessageEntityKind::TextMention { user } if user.id == bot.id => {
                addressed = true;
                cut.push(entity.range());
            }
            MessageEntityKind::BotCommand if entity.start() == 0 => {
                if let Some((_, name)) = entity.text().split_once('@')
                    && bot.is_my_name(name)
                {
                    addressed = true;
                    let at = entity.end() - name.len() - 1;
                    cut.push(at..entity.end());
                }
            }
            _ => {}
        }
    }
    Addressing { addressed, text: strip_ranges(text, cut) }
}

/// Removes the byte ranges from `text`, leaves one space where a removal
/// joined two spaces, and trims what a leading mention leaves (`@bot，…`).
fn strip_ranges(text: &str, mut ranges: Vec<std::ops::Range<usize>>) -> String {
    ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut out = text.to_owned();
    for range in ranges {
        if range.end > out.len() || !out.is_char_boundary(range.start) || !out.is_char_boundary(range.end) {
            continue;
        }
        out.replace_range(range.clone(), "");
        let before_space = out[..range.start].ends_with(' ');
        let after_space = out[range.start..].starts_with(' ');
        if before_space && after_space {
            out.remove(range.start);
        }
    }
    out.trim().trim_start_matches([',', '，', ':', '：', '、']).trim().to_owned()
}

/// Whether `msg` replies to one of the bot's own messages. In forum topics
/// every message "replies" to the topic's first message; that does not count.
pub(crate) fn replies_to_bot(msg: &Message, bot: &BotIdentity) -> bool {
    replied_message(msg).and_then(|r| r.from.as_ref()).is_some_and(|u| u.id == bot.id)
}

/// The message `msg` really replies to (not a forum topic's first message).
pub(crate) fn replied_message(msg: &Message) -> Option<&Message> {
    let replied = msg.reply_to_message()?;
    let topic_root = msg.is_topic_message
        && (replied.forum_topic_created().is_some() || msg.thread_id.is_some_and(|t| t.0 == replied.id));
    if topic_root { None } else { Some(replied) }
}

/// The text of the message `msg` replies to, if any.
pub(crate) fn reply_text(msg: &Message) -> Option<String> {
    let replied = replied_message(msg)?;
    replied.text().or(replied.caption()).map(str::to_owned)
}

/// Reads a command addressed to this bot (see [`Command::parse`]).
pub(crate) fn parse_command(text: &str, bot: &BotIdentity) -> Option<Command> {
    Command::parse(text, |name| bot.is_my_name(name))
}

// ------------------------------------------------------------ the handle

/// One update being handled. Clones share everything, the `/lang` choice
/// once read included.
#[derive(Clone)]
pub(crate) struct Handle {
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
    /// The language the conversation is in, read the same way.
    talking: Arc<OnceCell<Option<Lang>>>,
}

impl Handle {
    /// The handle of an update from `from` answered at `target`.
    pub(crate) fn new(
        bot: Bot,
        me: Me,
        tg: Arc<Transport>,
        from: User,
        target: Target,
        is_group: bool,
    ) -> Self {
        let (chosen, talking) = (Arc::new(OnceCell::new()), Arc::new(OnceCell::new()));
        Handle { bot, me, tg, target, from, is_group, chosen, talking }
    }

    /// The shopper's `/lang` choice: read from the state store the first
    /// time, then remembered for the rest of the update.
    pub(super) async fn chosen(&self) -> Option<Lang> {
        *self.chosen.get_or_init(|| self.tg.app.router.chosen_lang("telegram", self.from.id.0 as i64)).await
    }

    /// The language the conversation is in (the last its shopper clearly
    /// wrote in): read the first time, then remembered for the update.
    async fn talking(&self) -> Option<Lang> {
        let conversation =
            crate::engine::context::conversation_key("telegram", self.target.chat.0, self.user_id());
        *self
            .talking
            .get_or_init(|| async { self.tg.app.router.conversation_lang(&conversation).await })
            .await
    }

    /// The language of the update's answers: the `/lang` choice, else the
    /// conversation's, else the sender's Telegram language, else `bot.language`.
    pub(crate) async fn lang(&self) -> Lang {
        match self.chosen().await {
            Some(chosen) => chosen,
            None => match self.talking().await {
                Some(talking) => talking,
                None => self.tg.detected_lang(&self.from, None),
            },
        }
    }

    /// The language to answer the text `text` of this update in: the `/lang`
    /// choice, else the conversation's after `text` (which keeps it unless
    /// `text` is clearly in another language), else [`Handle::lang`]'s fallbacks.
    pub(crate) async fn lang_of_text(&self, text: &str) -> Lang {
        match self.chosen().await {
            Some(chosen) => chosen,
            None => match self.talking().await {
                Some(talking) => Lang::detect_or(text, talking),
                None => self.tg.detected_lang(&self.from, Some(text)),
            },
        }
    }

    /// The sender's id.
    pub(crate) fn user_id(&self) -> i64 {
        self.from.id.0 as i64
    }

    /// The shopper's message `text` as the router takes it, in the
    /// language of [`Handle::lang_of_text`].
    pub(crate) async fn context(&self, text: String, reply_to: Option<String>) -> MessageContext {
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
    pub(crate) async fn admit(
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

    /// A button press at the door (`Way::Press`: the allow-lists only); a press
    /// turned away is answered on the button with the door's words.
    pub(crate) async fn admit_press(&self, query: &CallbackQuery) -> Option<Admitted> {
        let knock = Knock {
            platform: "telegram",
            user_id: self.user_id(),
            chat_id: self.target.chat.0,
            lang: self.lang().await,
            chosen: ChosenLang::Read(self.chosen().await),
            said: handlers::Said::Nothing,
            way: Way::Press,
        };
        match self.tg.app.router.admit(knock).await {
            Ok(admitted) => Some(admitted),
            Err(turned) => {
                send::answer_press(&self.bot, query, Some(turned.message()), true).await;
                None
            }
        }
    }

    /// Asks the router about an admitted message, showing its progress
    /// meanwhile (typing, a status message, the answer as it streams), and
    /// delivers its answer in place of the progress.
    pub(crate) async fn route(&self, admitted: Admitted, ctx: MessageContext) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let router = self.tg.app.router.clone();
        self.run_live(lang, move |progress| async move { router.answer(&admitted, &ctx, &progress).await })
            .await
    }

    /// Runs router work in its own task with the typing indicator on; a
    /// panic becomes a logged error and an apology.
    pub(crate) async fn run_guarded<F>(&self, work: F) -> Reply
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
    pub(crate) async fn deliver(
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
                let (state, keep) = (self.tg.app.state.as_ref(), self.tg.app.router.report_keep());
                if let Err(e) =
                    crate::engine::report::keep_rated(state, self.target.chat.0, last.0, rated, keep).await
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
        if let Err(e) =
            send::send_text(&self.bot, &self.target, texts::apology(self.lang().await), None).await
        {
            tracing::warn!(error = %e, "could not send the apology either");
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    const BOT_ID: u64 = 4242;

    fn bot() -> BotIdentity {
        BotIdentity { id: UserId(BOT_ID), username: "MallGuideBot".into() }
    }

    fn group_message(text: &str, entities: serde_json::Value) -> Message {
        serde_json::from_value(json!({
            "message_id": 7, "date": 1_700_000_000,
            "chat": {"id": -100, "type": "supergroup", "title": "Mall fans"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "text": text, "entities": entities
        }))
        .unwrap()
    }

    fn read(msg: &Message) -> Addressing {
        let Content::Text { text, entities } = content(msg) else { panic!("not text") };
        addressing(text, &entities, &bot(), replies_to_bot(msg, &bot()))
    }

    #[test]
    fn a_plain_group_message_is_not_addressed() {
        let got = read(&group_message("帮我找跑鞋", json!([])));
        assert_eq!(got, Addressing { addressed: false, text: "帮我找跑鞋".into() });
    }

    #[test]
    fn a_mention_of_the_bot_is_addressed_and_stripped() {
        // "@MallGuideBot" is 13 UTF-16 units at offset 0.
        let msg = group_message(
            "@MallGuideBot 帮我找跑鞋",
            json!([{"type": "mention", "offset": 0, "length": 13}]),
        );
        assert_eq!(read(&msg), Addressing { addressed: true, text: "帮我找跑鞋".into() });
    }

    #[test]
    fn a_mention_in_the_middle_after_chinese_text_uses_utf16_offsets() {
        // "请问 " is 3 UTF-16 units, the mention follows.
        let msg = group_message(
            "请问 @mallguidebot Nike 在几楼？",
            json!([{"type": "mention", "offset": 3, "length": 13}]),
        );
        assert_eq!(read(&msg), Addressing { addressed: true, text: "请问 Nike 在几楼？".into() });
    }

    #[test]
    fn a_mention_followed_by_a_comma_leaves_no_leading_comma() {
        let msg = group_message(
            "@MallGuideBot，Nike 在几楼",
            json!([{"type": "mention", "offset": 0, "length": 13}]),
        );
        assert_eq!(read(&msg).text, "Nike 在几楼");
    }

    #[test]
    fn a_mention_of_another_bot_is_not_addressed_and_kept() {
        let msg = group_message("@OtherBot 你好", json!([{"type": "mention", "offset": 0, "length": 9}]));
        assert_eq!(read(&msg), Addressing { addressed: false, text: "@OtherBot 你好".into() });
    }

    #[test]
    fn a_text_mention_of_the_bot_is_addressed() {
        let msg = group_message(
            "商场导购 哪里有咖啡",
            json!([{"type": "text_mention", "offset": 0, "length": 4,
                    "user": {"id": BOT_ID, "is_bot": true, "first_name": "商场导购"}}]),
        );
        assert_eq!(read(&msg), Addressing { addressed: true, text: "哪里有咖啡".into() });
    }

    #[test]
    fn a_command_for_this_bot_is_addressed_and_its_suffix_removed() {
        let msg =
            group_message("/help@MallGuideBot", json!([{"type": "bot_command", "offset": 0, "length": 18}]));
        let got = read(&msg);
        assert_eq!(got, Addressing { addressed: true, text: "/help".into() });
        assert_eq!(parse_command(&got.text, &bot()), Some(Command::Help));
    }

    #[test]
    fn a_bare_command_or_one_for_another_bot_is_not_addressed_in_a_group() {
        let bare = group_message("/help", json!([{"type": "bot_command", "offset": 0, "length": 5}]));
        assert!(!read(&bare).addressed);
        let other =
            group_message("/help@OtherBot", json!([{"type": "bot_command", "offset": 0, "length": 14}]));
        assert!(!read(&other).addressed);
    }

    #[test]
    fn a_reply_to_the_bot_is_addressed() {
        let mut value = serde_json::to_value(group_message("要 42 码", json!([]))).unwrap();
        value["reply_to_message"] = json!({
            "message_id": 6, "date": 1_700_000_000,
            "chat": {"id": -100, "type": "supergroup", "title": "Mall fans"},
            "from": {"id": BOT_ID, "is_bot": true, "first_name": "Guide", "username": "MallGuideBot"},
            "text": "要什么尺码？"
        });
        let msg: Message = serde_json::from_value(value).unwrap();
        assert_eq!(read(&msg), Addressing { addressed: true, text: "要 42 码".into() });
        assert_eq!(reply_text(&msg).as_deref(), Some("要什么尺码？"));
    }

    #[test]
    fn the_first_message_of_a_forum_topic_is_not_a_reply() {
        let mut value = serde_json::to_value(group_message("你好", json!([]))).unwrap();
        value["message_thread_id"] = json!(5);
        value["is_topic_message"] = json!(true);
        value["reply_to_message"] = json!({
            "message_id": 5, "date": 1_700_000_000, "message_thread_id": 5,
            "chat": {"id": -100, "type": "supergroup", "title": "Mall fans", "is_forum": true},
            "from": {"id": BOT_ID, "is_bot": true, "first_name": "Guide", "username": "MallGuideBot"},
            "forum_topic_created": {"name": "Shoes", "icon_color": 7322096}
        });
        let msg: Message = serde_json::from_value(value).unwrap();
        assert!(!read(&msg).addressed);
        assert_eq!(reply_text(&msg), None);
    }

    #[test]
    fn a_photo_keeps_its_caption_voice_is_speech_and_a_sticker_is_unreadable() {
        let photo: Message = serde_json::from_value(json!({
            "message_id": 8, "date": 1_700_000_000,
            "chat": {"id": 1, "type": "private", "first_name": "Li"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "photo": [{"file_id": "a", "file_unique_id": "b", "width": 1, "height": 1}],
            "caption": "有这双鞋吗"
        }))
        .unwrap();
        let Content::Photo { sizes, caption: Some((caption, _)) } = content(&photo) else {
            panic!("a photo")
        };
        assert_eq!((sizes.len(), caption), (1, "有这双鞋吗"));

        let voice: Message = serde_json::from_value(json!({
            "message_id": 11, "date": 1_700_000_000,
            "chat": {"id": 1, "type": "private", "first_name": "Li"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "voice": {"file_id": "v", "file_unique_id": "vu", "duration": 4, "mime_type": "audio/ogg", "file_size": 9000}
        }))
        .unwrap();
        let Content::Speech(speech) = content(&voice) else { panic!("speech") };
        assert_eq!((speech.file.id.0.as_str(), speech.seconds, speech.mime.as_str()), ("v", 4, "audio/ogg"));

        let note: Message = serde_json::from_value(json!({
            "message_id": 12, "date": 1_700_000_000,
            "chat": {"id": 1, "type": "private", "first_name": "Li"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "video_note": {"file_id": "n", "file_unique_id": "nu", "length": 240, "duration": 9}
        }))
        .unwrap();
        assert!(matches!(content(&note), Content::Speech(Speech { seconds: 9, .. })));

        let sticker: Message = serde_json::from_value(json!({
            "message_id": 9, "date": 1_700_000_000,
            "chat": {"id": 1, "type": "private", "first_name": "Li"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "sticker": {"file_id": "a", "file_unique_id": "b", "type": "regular", "width": 512,
                        "height": 512, "is_animated": false, "is_video": false}
        }))
        .unwrap();
        assert_eq!(content(&sticker), Content::Unreadable);
    }

    #[test]
    fn a_member_joining_is_a_service_message() {
        let joined: Message = serde_json::from_value(json!({
            "message_id": 10, "date": 1_700_000_000,
            "chat": {"id": -100, "type": "supergroup", "title": "Mall fans"},
            "from": {"id": 1, "is_bot": false, "first_name": "Li"},
            "new_chat_members": [{"id": 2, "is_bot": false, "first_name": "Wang"}]
        }))
        .unwrap();
        assert_eq!(content(&joined), Content::Service);
    }

    #[test]
    fn parses_commands_with_arguments() {
        let b = bot();
        assert_eq!(parse_command("/start", &b), Some(Command::Start(None)));
        assert_eq!(parse_command("/start h_ab12", &b), Some(Command::Start(Some("h_ab12".into()))));
        assert_eq!(parse_command("/lang en", &b), Some(Command::Lang(Some("en".into()))));
        assert_eq!(parse_command("/LANG", &b), Some(Command::Lang(None)));
        assert_eq!(parse_command("/health@mallguidebot", &b), Some(Command::Health));
        assert_eq!(parse_command("/cart@OtherBot", &b), Some(Command::Unknown));
        assert_eq!(parse_command("/frobnicate", &b), Some(Command::Unknown));
        assert_eq!(parse_command("帮我买鞋", &b), None);
        assert_eq!(parse_command("/ 500", &b), None);
        assert_eq!(parse_command("1/2 价", &b), None);
    }
}
