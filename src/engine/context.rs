//! [`MessageContext`]: one shopper message, as every transport hands it to the router.

use handlers::Lang;

/// What a transport knows of the shopper's `/lang` choice when it knocks
/// at the router's door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChosenLang {
    /// Not read yet: the door reads it from the state store.
    #[default]
    Unread,
    /// Read once for this update (`None`: no choice made); the door takes
    /// it from here instead of reading the state store again.
    Read(Option<Lang>),
}

/// One incoming message, independent of the transport it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageContext {
    /// `telegram` or `console`: the shopper id's namespace at the mall.
    pub platform: &'static str,
    /// The sender.
    pub user_id: i64,
    /// The sender's display name, if known.
    pub user_name: Option<String>,
    /// The chat the message came from (equal to `user_id` in private chats).
    pub chat_id: i64,
    /// Whether the chat is a group or supergroup.
    pub is_group: bool,
    /// Whether the message was addressed to the bot (mention, reply to the
    /// bot, or `/command@bot`). Always true in private chats.
    pub mentioned: bool,
    /// The text, with the bot's mention stripped.
    pub text: String,
    /// The text of the message this one replies to, if any.
    pub reply_to: Option<String>,
    /// The language to answer in.
    pub lang: Lang,
    /// A photo sent with the message, as a `data:` URL, when the model reads
    /// photos (`llm.vision`); `text` is then its caption or a default ask.
    pub image: Option<String>,
}

impl MessageContext {
    /// A private-chat message (the terminal chat and tests use this).
    pub fn private(
        platform: &'static str,
        user_id: i64,
        text: impl Into<String>,
        default_lang: Lang,
    ) -> Self {
        let text = text.into();
        let lang = Lang::detect_or(&text, default_lang);
        MessageContext {
            platform,
            user_id,
            user_name: None,
            chat_id: user_id,
            is_group: false,
            mentioned: true,
            text,
            reply_to: None,
            lang,
            image: None,
        }
    }

    /// The key of this conversation's memory: one per chat and user.
    pub fn conversation_key(&self) -> String {
        conversation_key(self.platform, self.chat_id, self.user_id)
    }
}

/// The key of a conversation's memory: `<platform>:<chat>:<user>`.
pub(crate) fn conversation_key(platform: &str, chat_id: i64, user_id: i64) -> String {
    format!("{platform}:{chat_id}:{user_id}")
}
