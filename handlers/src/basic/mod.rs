//! Basic mode: how the tools are used when no model is: each tool declares,
//! in its own file, an [`OfflineHook`](crate::OfflineHook) — which messages
//! ask for it ([`Said`] in, a [`Step`] out), how its result is worded
//! ([`Reply`]) and what the answer offers to do next ([`Offer`]). This
//! module holds what is not about one tool: the message taken apart
//! ([`text`], [`extract`]), the mall's names ([`Lexicon`]), the
//! conversation ([`Dialogue`]) and the order in which hooks are asked
//! ([`recognise`]).

pub mod dialogue;
pub mod extract;
mod hooks;
pub mod lexicon;
pub mod text;

#[cfg(test)]
mod tests;

use std::cell::OnceCell;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Lang, Texts};
pub use dialogue::{Dialogue, Event, Made, Outcome};
pub use extract::{Pick, PriceBounds};
pub use hooks::{hooks, recognise, reply};
pub use lexicon::Lexicon;
use text::Scratch;

/// What follows a call's data: the next step, or `None` to answer with the
/// called tool's own [`Reply`].
pub type Then = fn(&Value, &Said) -> Option<Step>;

/// A tool call basic mode makes, and what follows its data.
#[derive(Debug, Clone)]
pub struct Call {
    /// The tool to call.
    pub tool: &'static str,
    /// Its arguments.
    pub arguments: Value,
    /// What follows the data; `None`: the tool's own reply answers.
    pub then: Option<Then>,
}

impl Call {
    /// A call answered by the tool's own reply.
    pub fn new(tool: &'static str, arguments: Value) -> Self {
        Call { tool, arguments, then: None }
    }

    /// A call whose data leads to `then`.
    pub fn then(tool: &'static str, arguments: Value, then: Then) -> Self {
        Call { tool, arguments, then: Some(then) }
    }
}

impl PartialEq for Call {
    fn eq(&self, other: &Self) -> bool {
        self.tool == other.tool
            && self.arguments == other.arguments
            && self.then.map(|f| f as usize) == other.then.map(|f| f as usize)
    }
}

/// What an answer offers to do next ("add it to your cart?", "place the
/// order now?"): the call a "yes" makes, in any language or script.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The call made on a yes.
    pub call: Call,
}

/// An answer to the shopper and what it offers, if anything.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// The text; empty means "nothing to say" (the chat fallback answers).
    pub text: String,
    /// What a "yes" to this answer does.
    pub offer: Option<Offer>,
}

impl Reply {
    /// An answer that offers nothing.
    pub fn text(text: impl Into<String>) -> Self {
        Reply { text: text.into(), offer: None }
    }

    /// An answer that offers `call` on a yes.
    pub fn offering(text: impl Into<String>, call: Call) -> Self {
        Reply { text: text.into(), offer: Some(Offer { call }) }
    }
}

/// What basic mode does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call a tool.
    Call(Call),
    /// Answer the shopper.
    Answer(Reply),
}

impl Step {
    /// Answer with a text that offers nothing.
    pub fn answer(text: impl Into<String>) -> Self {
        Step::Answer(Reply::text(text))
    }
}

/// What basic mode knows that is not about one tool, as a hook reads it:
/// the latest message (greetings struck out), the language, the mall's
/// names, the conversation so far and the offer open in it.
pub struct Said<'a> {
    /// The language to answer in.
    pub lang: Lang,
    /// The names of the mall.
    pub lexicon: &'a Lexicon,
    /// The conversation, with the current turn.
    pub dialogue: &'a Dialogue,
    message: Scratch,
    offer: OnceCell<Option<Offer>>,
    open_offer: &'a dyn Fn() -> Option<Offer>,
}

impl std::fmt::Debug for Said<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Said").field("lang", &self.lang).field("text", &self.text()).finish_non_exhaustive()
    }
}

/// Greetings and politeness, struck out before anything else.
#[rustfmt::skip]
const GREETINGS: &[&str] = &[
    "你好", "您好", "大家好", "嗨", "哈喽", "哈啰", "哈罗", "早安", "午安", "早上好", "下午好", "晚上好",
    "请问", "麻烦", "谢谢", "hello", "hi", "hey", "hiya", "good morning", "good afternoon", "good evening",
    "please", "thanks", "thank you",
];

/// Greetings, as a message is read (Traditional Chinese in Simplified
/// characters: 哈囉 is 哈啰), that small talk answers with a hello: those
/// struck out of any message, and those that greet only as the whole
/// message (安安, Taiwan's "hi").
#[rustfmt::skip]
pub const HELLO: &[&str] = &[
    "你好", "您好", "大家好", "嗨", "哈喽", "哈啰", "哈罗", "哈咯", "早安", "午安", "早上好", "中午好",
    "下午好", "晚上好", "安安", "hello", "hi", "hey", "hiya", "howdy", "good morning", "good afternoon",
    "good evening",
];

/// What ends a greeting and says nothing more (你好呀, 嗨～).
const PARTICLES: &str = "呀啊哦喔啦嘛哈耶吖～~";

/// A bare "yes" in Chinese (either script reads as Simplified) or English.
#[rustfmt::skip]
const YES: &[&str] = &[
    "好的", "好啊", "好", "可以", "行", "是的", "是", "对", "嗯", "要", "没问题", "确定", "yes", "yeah", "yep",
    "ok", "okay", "sure", "go ahead", "please do", "do it", "of course",
];

impl<'a> Said<'a> {
    /// The latest message of `dialogue`; `open_offer` tells what the
    /// assistant's previous answer offered, asked only when a hook or the
    /// planner wants it.
    pub fn new(
        dialogue: &'a Dialogue,
        lexicon: &'a Lexicon,
        open_offer: &'a dyn Fn() -> Option<Offer>,
    ) -> Self {
        let mut message = Scratch::new(dialogue.user_text());
        message.remove_all(GREETINGS);
        Said { lang: dialogue.lang(), lexicon, dialogue, message, offer: OnceCell::new(), open_offer }
    }

    /// The message as written (full-width forms folded).
    pub fn text(&self) -> &str {
        self.message.orig()
    }

    /// The message with greetings struck out, to take apart.
    pub fn scratch(&self) -> Scratch {
        self.message.clone()
    }

    /// Nothing but greetings (or nothing at all).
    pub fn is_empty(&self) -> bool {
        let rest = self.message.residual();
        let particles = |word: &str| word.chars().all(|c| PARTICLES.contains(c));
        rest.split(' ').all(|word| particles(word) || HELLO.contains(&word.to_lowercase().as_str()))
    }

    /// The message is a bare "yes" ("好的", "要", "yes please").
    pub fn is_yes(&self) -> bool {
        let mut rest = self.scratch();
        if !rest.remove_all(YES) {
            return false;
        }
        rest.remove_all(&["吧", "的", "呀", "啊", "please"]);
        rest.residual().is_empty()
    }

    /// What the assistant's previous answer offered, if it offered anything.
    pub fn offer(&self) -> Option<&Offer> {
        self.offer.get_or_init(|| (self.open_offer)()).as_ref()
    }

    /// Everything said in the shopper's language.
    pub fn texts(&self) -> &'static Texts {
        self.lang.texts()
    }
}

/// A tool's data read back as its type; `None` when it is not that shape.
pub fn read<T: DeserializeOwned>(data: &Value) -> Option<T> {
    match T::deserialize(data) {
        Ok(typed) => Some(typed),
        Err(error) => {
            tracing::debug!(%error, "basic mode: a tool result of an unexpected shape");
            None
        }
    }
}

/// How basic mode (the offline planner, used when there is no model) uses a
/// tool that declares it with `#[tool_function(offline = HOOK)]`: which
/// messages ask for it, how its result is told to the shopper, and what that
/// answer offers next. Write one in the tool's file; the planner needs no
/// change.
///
/// Hooks are asked in order of [`OfflineHook::priority`], lowest first (ties
/// by tool name), and the first that recognises a message wins. The
/// built-in tools use 10–80: orders 10–13, the cart 20–23, facilities
/// 25, store information 30, places 40–42, picking a listed product 60, product
/// search 80. A new tool that should be asked before them takes a lower
/// number (the default, [`OfflineHook::DEFAULT_PRIORITY`], is asked first).
#[derive(Debug)]
pub struct OfflineHook {
    /// When this hook is asked, relative to the others: lower first.
    pub priority: u8,
    /// The first step when a message asks for this tool — usually a call of
    /// it, or of a tool whose data it needs first (with a
    /// [`Then`](crate::basic::Then) that goes on), or an answer when it
    /// cannot be called yet; `None` when the message does not ask for it.
    pub recognise: fn(&Said) -> Option<Step>,
    /// The answer from the tool's JSON result in `lang`, for any caller (the
    /// MCP server, basic mode); a tool that writes only Chinese and English
    /// answers [`Lang::Zh`] for Traditional too, and basic mode asks in
    /// [`crate::Texts::tool_lang`] and converts (see
    /// [`crate::Texts::tool_text`]); `None` when the result cannot be read.
    pub answer: fn(Lang, &Value) -> Option<String>,
    /// Basic mode's answer, written with the message and the call's
    /// arguments, with what it offers next; when `None`, basic mode uses
    /// [`OfflineHook::answer`] and offers nothing.
    pub reply: Option<fn(&Answering) -> Option<Reply>>,
    /// Basic mode's explanation of a failure of this tool (`Error: …`),
    /// when the tool has a better one than the general words.
    pub failed: Option<fn(&Said, &str) -> Option<String>>,
    /// The tool's worded result can stand as the whole answer with a model
    /// too (directions, a store's card, the cart, an order): when the
    /// shopper's message asked for this and nothing else, the turn ends
    /// with these words instead of a second model round (`llm.direct_answers`).
    pub direct: bool,
}

impl OfflineHook {
    /// The priority of a hook that does not set one: asked before the
    /// built-in tools.
    pub const DEFAULT_PRIORITY: u8 = 0;

    /// A hook that recognises messages with `recognise` and answers with
    /// `answer`, at [`OfflineHook::DEFAULT_PRIORITY`].
    pub const fn new(
        recognise: fn(&Said) -> Option<Step>,
        answer: fn(Lang, &Value) -> Option<String>,
    ) -> Self {
        OfflineHook {
            priority: Self::DEFAULT_PRIORITY,
            recognise,
            answer,
            reply: None,
            failed: None,
            direct: false,
        }
    }

    /// The same hook, its answer able to stand alone ([`OfflineHook::direct`]).
    pub const fn direct(self) -> Self {
        OfflineHook { direct: true, ..self }
    }

    /// The same hook asked at `priority`.
    pub const fn priority(self, priority: u8) -> Self {
        OfflineHook { priority, ..self }
    }

    /// The same hook answering basic mode with `reply`.
    pub const fn reply(self, reply: fn(&Answering) -> Option<Reply>) -> Self {
        OfflineHook { reply: Some(reply), ..self }
    }

    /// The same hook explaining its failures with `failed`.
    pub const fn failed(self, failed: fn(&Said, &str) -> Option<String>) -> Self {
        OfflineHook { failed: Some(failed), ..self }
    }
}

/// What a tool's reply is written from: the message and conversation, the
/// arguments of the call and its data.
#[derive(Debug)]
pub struct Answering<'a> {
    /// The message of the turn.
    pub said: &'a Said<'a>,
    /// The arguments the tool was called with.
    pub args: &'a Value,
    /// The tool's data.
    pub data: &'a Value,
}

impl Answering<'_> {
    /// The language to answer in.
    pub fn lang(&self) -> Lang {
        self.said.lang
    }
}

/// A rating with one decimal.
pub fn rating(value: f64) -> String {
    format!("{value:.1}")
}

/// The date part of an RFC 3339 time.
pub fn date(time: &str) -> String {
    time.chars().take(10).collect()
}

/// Cuts a long text at `max` characters.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}
