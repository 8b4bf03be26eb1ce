//! Reading an incoming message, and the endpoint of a message past the door.
//!
//! Reading: what a message carries ([`content`]), whether it is addressed
//! to the bot (in groups only mentions, replies to the bot and
//! `/command@bot` are; a voice note only as a reply to the bot), the text
//! with the bot's mention stripped, and which command it is. The tree
//! (`tree.rs`) reads each message with [`read`] before the door: a message
//! not for the bot is passed over there, with nothing read from the state
//! store.
//!
//! The endpoint, [`on_message`], takes a message the door admitted: in the
//! service desk's group, staff's message goes to `desk.rs`; a shopper
//! talking to a person has it copied to their topic (`desk.rs`); otherwise a
//! text is a command (`commands.rs`) or a turn (`Handle::route`, `live.rs`),
//! a voice message or photo a turn on a file (`media.rs`), and anything
//! else is asked to be written.

use super::handle::{ANSWERED, Handle, IGNORED, Outcome};
use super::texts;
pub(crate) use crate::engine::commands::Command;
use crate::engine::context::MessageContext;
use crate::engine::router::Admitted;
use teloxide::RequestError;
use teloxide::types::{
    FileMeta, Me, Message, MessageEntityKind, MessageEntityRef, MessageKind, PhotoSize, UserId,
};

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
    pub(crate) file: &'a FileMeta,
    /// Its length in seconds, as Telegram reports it.
    pub(crate) seconds: u32,
    /// Its MIME type (`audio/ogg` for voice messages, `video/mp4` for video notes).
    pub(crate) mime: String,
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
    pub(crate) id: UserId,
    /// The bot's username, without `@`.
    pub(crate) username: String,
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
    pub(crate) addressed: bool,
    /// The text with the bot's mentions (and the `@bot` of a command) removed.
    pub(crate) text: String,
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

/// What the tree needs of a message before the door.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Nothing for the bot: a service message, or in a group one not
    /// addressed to it (or nothing it could read).
    Passed,
    /// For the bot, with its words: the text or caption with the bot's
    /// mention stripped (empty for what has none).
    ForTheBot { text: String },
}

/// Reads whether the message `msg` (in a group when `is_group`) is for the
/// bot `me`, and its words.
pub(crate) fn read(msg: &Message, me: &Me, is_group: bool) -> Reading {
    let bot = BotIdentity::from_me(me);
    let heard = |addressing: Addressing| {
        if is_group && !addressing.addressed {
            Reading::Passed
        } else {
            Reading::ForTheBot { text: addressing.text }
        }
    };
    match content(msg) {
        Content::Service => Reading::Passed,
        Content::Unreadable if is_group => Reading::Passed,
        Content::Unreadable => Reading::ForTheBot { text: String::new() },
        Content::Text { text, entities } => {
            heard(addressing(text, &entities, &bot, replies_to_bot(msg, &bot)))
        }
        // A voice note cannot @mention: in groups only a reply to the bot is heard.
        Content::Speech(_) => heard(Addressing { addressed: replies_to_bot(msg, &bot), text: String::new() }),
        Content::Photo { caption, .. } => {
            let reply_to_bot = replies_to_bot(msg, &bot);
            heard(match caption {
                Some((text, entities)) => addressing(text, &entities, &bot, reply_to_bot),
                None => Addressing { addressed: reply_to_bot, text: String::new() },
            })
        }
    }
}

// ------------------------------------------------------------ the endpoint

/// A message the door admitted, as the tree read it.
#[derive(Debug, Clone)]
pub(crate) struct Incoming {
    /// The message (boxed: a `Message` is kilobytes, and the lane keeps it
    /// until its turn comes).
    pub(crate) msg: Box<Message>,
    /// Its words for the bot ([`Reading::ForTheBot`]).
    pub(crate) text: String,
    /// From the service desk's group: staff writing to shoppers.
    pub(crate) staff: bool,
}

/// The endpoint of a message: staff's to the desk, a shopper's to the
/// person they talk to, else a command, a turn, a file's turn, or "please
/// write".
pub(crate) async fn on_message(
    handle: Handle,
    admitted: Admitted,
    incoming: Incoming,
) -> Result<Outcome, RequestError> {
    let Incoming { msg, text, staff } = incoming;
    if staff {
        return handle.staff_message(&msg).await;
    }
    // A shopper talking to a person: copied to their topic, the bot quiet.
    if !handle.is_group
        && let Some(outcome) = handle.to_desk(&msg).await?
    {
        return Ok(outcome);
    }
    match content(&msg) {
        Content::Service => Ok(IGNORED),
        Content::Unreadable if handle.is_group => Ok(IGNORED),
        Content::Unreadable => {
            handle.deliver_text(texts::please_write(handle.lang())).await.map(|_| ANSWERED)
        }
        Content::Text { .. } => {
            let ctx = handle.context(text, reply_text(&msg));
            handle.handle_text(admitted, ctx).await
        }
        Content::Speech(speech) => {
            let ctx = handle.context(String::new(), reply_text(&msg));
            handle.handle_speech(admitted, ctx, speech).await
        }
        Content::Photo { sizes, .. } => {
            let ctx = handle.context(text, reply_text(&msg));
            if handle.tg.app.reads_photos() {
                handle.handle_photo(admitted, ctx, sizes).await
            } else if ctx.text.is_empty() {
                // Without vision a photo is its caption, and this one has none.
                handle.say(handle.lang().texts().media.photo_unseen).await.map(|_| ANSWERED)
            } else {
                handle.handle_text(admitted, ctx).await
            }
        }
    }
}

impl Handle {
    /// A text addressed to the bot (typed, or a pressed suggestion), past
    /// the door: a command or a request for the router.
    pub(crate) async fn handle_text(
        &self,
        admitted: Admitted,
        mut ctx: MessageContext,
    ) -> Result<Outcome, RequestError> {
        let command = parse_command(&ctx.text, &BotIdentity::from_me(&self.me));
        if command.is_some() {
            ctx.lang = self.lang();
        }
        match command {
            Some(command) => self.handle_command(admitted, ctx, command).await,
            None if ctx.text.is_empty() => self.greet(ctx.lang).await,
            None => self.route(admitted, ctx).await,
        }
        .map(|_| ANSWERED)
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
