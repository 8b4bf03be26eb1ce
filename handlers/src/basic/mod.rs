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
pub mod lexicon;
pub mod text;

#[cfg(test)]
mod tests;

use std::cell::OnceCell;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::registry::{OfflineHook, ToolSpec};
use crate::{Lang, Texts};
pub use dialogue::{Dialogue, Event, Made, Outcome};
pub use extract::{Pick, PriceBounds};
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
    "你好", "您好", "嗨", "哈喽", "请问", "麻烦", "谢谢", "hello", "hi", "hey", "please", "thanks",
    "thank you",
];

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
        self.message.residual().is_empty()
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

/// The registered tools that declare a basic mode, in the order their hooks
/// are asked: by [`OfflineHook::priority`], lowest first, then by name.
pub fn hooks() -> &'static [(&'static ToolSpec, &'static OfflineHook)] {
    static ORDERED: OnceLock<Vec<(&'static ToolSpec, &'static OfflineHook)>> = OnceLock::new();
    ORDERED.get_or_init(|| {
        let mut hooks: Vec<_> =
            crate::all().iter().filter_map(|spec| spec.offline.map(|hook| (*spec, hook))).collect();
        hooks.sort_by_key(|(spec, hook)| (hook.priority, spec.name));
        hooks
    })
}

/// The first step the message asks for: the first hook (in [`hooks`]
/// order) that recognises it; `None` when none does.
pub fn recognise(said: &Said) -> Option<Step> {
    if said.is_empty() {
        return None;
    }
    hooks().iter().find_map(|(_, hook)| (hook.recognise)(said))
}

/// What basic mode answers to a call's data: the tool's [`OfflineHook::reply`]
/// when it has one, else its plain [`OfflineHook::answer`] (asked in the
/// language its table names, [`Texts::tool_lang`]); "done" when the data
/// cannot be read.
pub fn reply(made: &Made, data: &Value, said: &Said) -> Reply {
    let texts = said.texts();
    let hook = crate::find(&made.name).and_then(|spec| spec.offline);
    let reply = hook.and_then(|hook| match hook.reply {
        Some(reply) => reply(&Answering { said, args: &made.args, data }),
        None => (hook.answer)(texts.tool_lang, data).map(|text| Reply::text((texts.tool_text)(text))),
    });
    reply.unwrap_or_else(|| Reply::text(texts.answers.done))
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
