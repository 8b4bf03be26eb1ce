//! [`ChatFallback`]: small talk. With a model, a short chat without tools over
//! the recent history; offline (or when the model fails), friendly canned
//! replies in the shopper's language that point back to shopping.

use std::sync::Arc;

use handlers::Lang;

use crate::engine::llm::{ChatMessage, ChatModel, ChatRequest};
use crate::engine::reply::Reply;

/// Messages of history the model sees for small talk.
const CONTEXT_MESSAGES: usize = 8;

/// Answers messages that no mall tool fits.
#[derive(Clone)]
pub struct ChatFallback {
    model: Option<Arc<dyn ChatModel>>,
}

impl ChatFallback {
    /// Small talk with `model`, or canned replies when `None`.
    pub fn new(model: Option<Arc<dyn ChatModel>>) -> Self {
        ChatFallback { model }
    }

    /// A reply to `text`; `online` is false when the model is known to be down. A canned
    /// reply offers `examples` (requests made of the mall's own names) as buttons.
    pub(crate) async fn reply(
        &self,
        history: &[ChatMessage],
        text: &str,
        lang: Lang,
        online: bool,
        examples: Vec<String>,
    ) -> Reply {
        if let (Some(model), true) = (&self.model, online) {
            let start = history.len().saturating_sub(CONTEXT_MESSAGES);
            let mut messages = vec![ChatMessage::system(chat_prompt(lang))];
            messages.extend(history[start..].iter().cloned());
            if history.last().is_none_or(|m| m.text() != text) {
                messages.push(ChatMessage::user(text));
            }
            match model.complete(ChatRequest { messages: &messages, tools: &[], progress: None }).await {
                Ok(response) if !response.message.text().trim().is_empty() => {
                    return Reply::text(response.message.text().trim());
                }
                Ok(_) => tracing::warn!("model gave an empty small-talk answer; using a canned one"),
                Err(e) => tracing::warn!(error = %e, "small talk failed; using a canned answer"),
            }
        }
        canned(text, lang, examples)
    }
}

fn chat_prompt(lang: Lang) -> String {
    format!(
        "You are the friendly shopping guide of a shopping mall. This message is small talk: \
         answer briefly and warmly in {}, and when it fits, remind the shopper you can find products and \
         stores, give directions in the mall, and handle their cart and orders.",
        lang.texts().model_language
    )
}

/// Canned small talk: greetings, thanks, goodbyes, who-are-you, and a gentle
/// pointer back to shopping for everything else.
pub(crate) fn canned(text: &str, lang: Lang, examples: Vec<String>) -> Reply {
    // One script to compare (哈囉 is read as 哈啰), English words whole ("hi" is not in "which").
    let t = handlers::texts::zh_hant::to_simplified(text.trim()).to_lowercase();
    let words: Vec<&str> = t.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).collect();
    let has = |said: &[&str]| {
        said.iter().any(|w| match w.is_ascii() {
            true if !w.contains(' ') => words.contains(w),
            _ => t.contains(w),
        })
    };
    let talk = &lang.texts().small_talk;
    let answer = if has(&["谢谢", "多谢", "感谢", "thank", "thanks", "thx", "ty"]) {
        talk.thanks
    } else if has(&["再见", "拜拜", "bye", "goodbye", "see you"]) {
        talk.bye
    } else if has(&[
        "你是谁",
        "你叫什么",
        "who are you",
        "what are you",
        "what can you do",
        "你能做什么",
        "帮助",
        "help",
    ]) {
        talk.who
    } else if has(handlers::basic::HELLO) {
        talk.hello
    } else {
        talk.other
    };
    Reply { text: answer.to_owned(), suggestions: examples, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_replies_follow_the_language_and_the_mood() {
        let examples = vec!["霸王茶姬在哪".to_owned()];
        let r = canned("你好", Lang::Zh, examples.clone());
        assert!(r.text.contains("导购助手"), "{}", r.text);
        assert_eq!(r.suggestions, examples, "the mall's own examples as buttons");
        let r = canned("thanks!", Lang::En, Vec::new());
        assert!(r.text.starts_with("You're welcome"), "{}", r.text);
        let r = canned("what is the meaning of life", Lang::En, Vec::new());
        assert!(r.text.contains("shopping"), "{}", r.text);
        for hello in ["哈囉", "嗨", "哈囉你好", "早安", "你好呀", "安安", "哈喽", "Hi there", "good morning"]
        {
            let lang = if hello.is_ascii() { Lang::En } else { Lang::ZhHant };
            assert_eq!(canned(hello, lang, Vec::new()).text, lang.texts().small_talk.hello, "{hello}");
        }
        let r = canned("which way is it", Lang::En, Vec::new());
        assert_eq!(r.text, Lang::En.texts().small_talk.other, "\"hi\" is not in \"which\"");
    }
}
