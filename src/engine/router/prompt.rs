//! What the model reads besides the conversation: one system prompt, the same
//! bytes for every request, conversation and language — so that providers can
//! cache the prefix (system prompt + tools) — and a short note on the turn
//! (reply language, group chat) carried by the shopper's latest message.

use handlers::Lang;

use crate::engine::llm::{ChatMessage, Role};

/// The system prompt of every model request.
pub(crate) const SYSTEM_PROMPT: &str = "You are the shopping guide of a shopping mall, chatting with a shopper. \
Answer in the language of the shopper's latest message (Chinese: Simplified Chinese) unless a note in \
brackets at its end names another. Use the tools for every fact about products, stores, routes, carts \
and orders; never invent products, prices, stock or store locations. Prices are in yuan (¥). When the \
shopper wants to buy something, search, show the best matches (name, price, rating, store and floor), ask \
for the size or colour when the product has several, then add it to the cart. Cart changes and orders are \
confirmed by the shopper with a button that the bot shows by itself: call the tool directly, do not ask \
for confirmation in text. The shopper's identity is known to the tools; never ask for it. If a tool \
returns an error, explain it briefly and suggest what to do. Keep answers short and friendly; no Markdown \
tables. When the note says it is a group chat, keep answers brief: carts and orders are only handled in a \
private chat.";

/// The note on a turn, when the conversation does not already say it: the
/// reply language when it is not the language the message is written in,
/// and a group chat.
pub(crate) fn turn_note(lang: Lang, is_group: bool, text: &str) -> Option<String> {
    let mut parts = Vec::new();
    // The system prompt answers Chinese in Simplified characters, so
    // Traditional Chinese is always said.
    let note = format!("reply in {}", lang.texts().model_language);
    if lang == Lang::ZhHant || Lang::detect(text) != Some(lang) {
        parts.push(note.as_str());
    }
    if is_group {
        parts.push("group chat");
    }
    (!parts.is_empty()).then(|| format!("[{}]", parts.join("; ")))
}

/// The reply language a turn's note names ("[reply in Traditional Chinese]"
/// at the end of `text`), if any.
pub(crate) fn noted_lang(text: &str) -> Option<Lang> {
    let note = &text[text.rfind("\n\n[")? + 2..];
    Lang::ALL.into_iter().find(|lang| note.contains(&format!("reply in {}", lang.texts().model_language)))
}

/// Adds `note` at the end of the shopper's latest message in `messages`;
/// returns where, for [`remove_note`].
pub(crate) fn add_note(messages: &mut [ChatMessage], note: &str) -> Option<(usize, usize)> {
    let index = messages.iter().rposition(|m| m.role == Role::User)?;
    let content = messages[index].content.get_or_insert_default();
    let len = content.len();
    content.reserve(note.len() + 2);
    content.push_str("\n\n");
    content.push_str(note);
    Some((index, len))
}

/// Takes off a note [`add_note`] added.
pub(crate) fn remove_note(messages: &mut [ChatMessage], added: Option<(usize, usize)>) {
    if let Some((index, len)) = added
        && let Some(content) = messages.get_mut(index).and_then(|m| m.content.as_mut())
    {
        content.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first request: the system prompt and `text`, noted.
    fn request_messages(text: &str, lang: Lang, is_group: bool) -> Vec<ChatMessage> {
        let mut messages = vec![ChatMessage::system(SYSTEM_PROMPT), ChatMessage::user(text)];
        if let Some(note) = turn_note(lang, is_group, text) {
            add_note(&mut messages, &note);
        }
        messages
    }

    #[test]
    fn the_prompt_is_the_same_for_every_language_and_chat_and_notes_say_the_rest() {
        let zh = request_messages("耐克店在哪", Lang::Zh, false);
        let en = request_messages("where is nike", Lang::En, true);
        assert_eq!(zh[0], en[0], "one system prompt, byte for byte");
        assert_eq!(zh[1].text(), "耐克店在哪", "nothing to add: the message says the language");
        assert_eq!(en[1].text(), "where is nike\n\n[group chat]");
        let chosen = request_messages("耐克店在哪", Lang::En, false);
        assert_eq!(chosen[1].text(), "耐克店在哪\n\n[reply in English]", "a /lang choice is said");
        assert!(!SYSTEM_PROMPT.contains("Telegram"), "the terminal chat is not Telegram");
        assert_eq!(noted_lang(chosen[1].text()), Some(Lang::En));
        assert_eq!(noted_lang(en[1].text()), None, "a group note names no language");
    }

    #[test]
    fn traditional_chinese_is_always_said_because_the_prompt_defaults_to_simplified() {
        let hant = request_messages("耐克店在哪裡", Lang::ZhHant, false);
        assert_eq!(hant[1].text(), "耐克店在哪裡\n\n[reply in Traditional Chinese]");
        assert_eq!(noted_lang(hant[1].text()), Some(Lang::ZhHant));
        let simplified = request_messages("耐克店在哪里", Lang::Zh, false);
        assert_eq!(simplified[1].text(), "耐克店在哪里", "Simplified needs no note");
    }

    #[test]
    fn a_message_that_says_no_language_is_noted_with_the_conversations() {
        for text in ["M", "42", "y", "👍", "FD4821", "Nike"] {
            assert_eq!(
                turn_note(Lang::Zh, false, text).as_deref(),
                Some("[reply in Simplified Chinese]"),
                "{text}"
            );
            assert_eq!(turn_note(Lang::En, false, text).as_deref(), Some("[reply in English]"), "{text}");
        }
        assert_eq!(turn_note(Lang::Zh, false, "好的"), None, "Chinese says Simplified by itself");
        assert_eq!(turn_note(Lang::En, false, "where is Nike"), None);
    }

    #[test]
    fn a_note_comes_off_the_message_it_went_on() {
        let mut messages = vec![
            ChatMessage::user("first"),
            ChatMessage::assistant("ok"),
            ChatMessage::user("耐克店在哪"),
            ChatMessage::tool("call_1", "{}"),
        ];
        let added = add_note(&mut messages, "[reply in English]");
        assert_eq!(messages[2].text(), "耐克店在哪\n\n[reply in English]", "the latest shopper message");
        assert_eq!(messages[0].text(), "first");
        remove_note(&mut messages, added);
        assert_eq!(messages[2].text(), "耐克店在哪");
    }
}
