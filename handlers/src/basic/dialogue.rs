//! The conversation as basic mode reads it: the shopper's messages, the tool
//! calls with their outcomes, the answers, and the current turn (everything
//! after the latest shopper message).

use serde_json::Value;

use crate::Lang;

/// How a tool call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The tool's data.
    Data(Value),
    /// A text starting with `Error:`.
    Failed(String),
    /// The shopper declined the confirmation.
    Declined,
}

impl Outcome {
    /// Reads a tool message: `Error: …` is a failure, `{"status":
    /// "declined"}` a declined confirmation, anything else the tool's data.
    pub fn read(text: &str) -> Outcome {
        let text = text.trim();
        if text.get(..6).is_some_and(|head| head.eq_ignore_ascii_case("error:")) {
            return Outcome::Failed(text.to_owned());
        }
        match serde_json::from_str::<Value>(text) {
            Ok(v) if v.get("status").and_then(Value::as_str) == Some("declined") => Outcome::Declined,
            Ok(v) => Outcome::Data(v),
            Err(_) => Outcome::Data(Value::String(text.to_owned())),
        }
    }
}

/// One tool call made and, once it came back, its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Made {
    /// The tool's name.
    pub name: String,
    /// The arguments it was called with.
    pub args: Value,
    /// How it ended; `None` while it runs.
    pub outcome: Option<Outcome>,
}

impl Made {
    /// The data, when the call succeeded.
    pub fn data(&self) -> Option<&Value> {
        match &self.outcome {
            Some(Outcome::Data(v)) => Some(v),
            _ => None,
        }
    }

    /// The data read as the tool's result type, when the call succeeded.
    pub fn result<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        self.data().and_then(super::read)
    }
}

/// One step of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A shopper's message (in Simplified script when it was written in
    /// Traditional) and the language it is to be answered in, when it says.
    User { text: String, lang: Option<Lang> },
    /// A tool call.
    Call(Made),
    /// An assistant's text answer.
    Answer(String),
}

/// The conversation, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Dialogue {
    events: Vec<Event>,
    /// Index of the latest shopper message in `events`.
    turn_start: Option<usize>,
    /// The reply language.
    lang: Lang,
}

impl Dialogue {
    /// The conversation of these events; it is answered in the language of
    /// the latest shopper message that has one (Chinese by default).
    pub fn new(events: Vec<Event>) -> Self {
        let turn_start = events.iter().rposition(|e| matches!(e, Event::User { .. }));
        let lang = events
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::User { lang, .. } => *lang,
                _ => None,
            })
            .unwrap_or(Lang::Zh);
        Dialogue { events, turn_start, lang }
    }

    /// The language to answer in.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The same conversation answered in `lang`.
    pub fn in_lang(self, lang: Lang) -> Dialogue {
        Dialogue { lang, ..self }
    }

    /// The latest shopper message.
    pub fn user_text(&self) -> &str {
        match self.turn_start.and_then(|i| self.events.get(i)) {
            Some(Event::User { text, .. }) => text,
            _ => "",
        }
    }

    /// The calls of the current turn, oldest first.
    pub fn turn_calls(&self) -> impl DoubleEndedIterator<Item = &Made> {
        let from = self.turn_start.map_or(0, |i| i + 1);
        self.events[from..].iter().filter_map(as_call)
    }

    /// The latest call of the current turn.
    pub fn last_turn_call(&self) -> Option<&Made> {
        self.turn_calls().next_back()
    }

    /// The latest successful call of `tool` anywhere in the conversation.
    pub fn latest(&self, tool: &str) -> Option<&Made> {
        self.events.iter().rev().filter_map(as_call).find(|c| c.name == tool && c.data().is_some())
    }

    /// The latest successful call of `tool` before the current turn.
    pub fn latest_before_turn(&self, tool: &str) -> Option<&Made> {
        let until = self.turn_start.unwrap_or(self.events.len());
        self.events[..until].iter().rev().filter_map(as_call).find(|c| c.name == tool && c.data().is_some())
    }

    /// The latest successful call of any of `tools` before the current turn:
    /// which of them the conversation showed last.
    pub fn latest_before_turn_of(&self, tools: &[&str]) -> Option<&Made> {
        let until = self.turn_start.unwrap_or(self.events.len());
        self.events[..until]
            .iter()
            .rev()
            .filter_map(as_call)
            .find(|c| tools.contains(&c.name.as_str()) && c.data().is_some())
    }

    /// The latest call (of any tool, whatever its outcome) before the current turn.
    pub fn last_call_before_turn(&self) -> Option<&Made> {
        let until = self.turn_start.unwrap_or(self.events.len());
        self.events[..until].iter().rev().filter_map(as_call).next()
    }

    /// The shopper's message whose turn made the latest successful call of
    /// `tool` before the current turn.
    pub fn asked_before_turn(&self, tool: &str) -> Option<&str> {
        let until = self.turn_start.unwrap_or(self.events.len());
        let at = self.events[..until]
            .iter()
            .rposition(|e| matches!(e, Event::Call(c) if c.name == tool && c.data().is_some()))?;
        self.events[..at].iter().rev().find_map(|e| match e {
            Event::User { text, .. } => Some(text.as_str()),
            _ => None,
        })
    }

    /// The conversation as it stood when the assistant wrote its last text
    /// answer before the current turn (if that answer came after the
    /// shopper's previous message), and that answer.
    pub fn before_previous_answer(&self) -> Option<(Dialogue, &str)> {
        let until = self.turn_start.unwrap_or(self.events.len());
        let at = self.events[..until].iter().rposition(|e| !matches!(e, Event::Call(_)))?;
        match &self.events[at] {
            Event::Answer(text) => Some((Dialogue::new(self.events[..at].to_vec()), text)),
            _ => None,
        }
    }
}

fn as_call(event: &Event) -> Option<&Made> {
    match event {
        Event::Call(call) => Some(call),
        _ => None,
    }
}
