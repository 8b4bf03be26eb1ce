//! The conversation as the offline planner reads it: the shopper's messages,
//! the tool calls with their outcomes, and the current turn (everything after
//! the latest shopper message).

use std::collections::HashMap;

use handlers::Lang;
use serde_json::Value;

use super::lexicon::Lexicon;
use crate::llm::{ChatMessage, Role};

/// How a tool call ended, as the router encodes it in the `tool` message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The tool's data.
    Data(Value),
    /// A text starting with `Error:`.
    Failed(String),
    /// The shopper declined the confirmation.
    Declined,
}

/// One tool call and, once it came back, its outcome.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallRecord {
    pub(crate) name: String,
    pub(crate) args: Value,
    pub(crate) outcome: Option<Outcome>,
}

impl CallRecord {
    /// The data, when the call succeeded.
    pub(crate) fn data(&self) -> Option<&Value> {
        match &self.outcome {
            Some(Outcome::Data(v)) => Some(v),
            _ => None,
        }
    }

    /// The data read as the tool's result type, when the call succeeded.
    pub(crate) fn result<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        self.data().and_then(super::compose::read)
    }
}

/// One step of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    User(String),
    Call(CallRecord),
    /// An assistant's text answer.
    Answer(String),
}

/// The conversation, oldest first, and the names of the mall it is about.
#[derive(Debug, Clone)]
pub(crate) struct Conversation<'a> {
    /// What the planner knows of the mall.
    pub(crate) lexicon: &'a Lexicon,
    events: Vec<Event>,
    /// Index of the latest shopper message in `events`.
    turn_start: Option<usize>,
    /// The reply language.
    pub(crate) lang: Lang,
}

impl<'a> Conversation<'a> {
    /// Reads the messages (the system prompt is skipped).
    pub(crate) fn from_messages(messages: &[ChatMessage], lexicon: &'a Lexicon) -> Self {
        let mut events = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for message in messages {
            match message.role {
                Role::User => events.push(Event::User(message.text().to_owned())),
                Role::Assistant => {
                    if !message.text().trim().is_empty() {
                        events.push(Event::Answer(message.text().to_owned()));
                    }
                    for call in &message.tool_calls {
                        by_id.insert(call.id.clone(), events.len());
                        let args = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
                        events.push(Event::Call(CallRecord { name: call.name.clone(), args, outcome: None }));
                    }
                }
                Role::Tool => attach_outcome(&mut events, &by_id, message),
                Role::System => {}
            }
        }
        let turn_start = events.iter().rposition(|e| matches!(e, Event::User(_)));
        let lang = reply_language(&events);
        for event in &mut events {
            if let Event::User(text) = event {
                // The turn's note (reply language, group chat) is not the shopper's words.
                if let Some(at) = text.rfind("\n\n[").filter(|_| text.ends_with(']')) {
                    text.truncate(at);
                }
                // Basic mode reads one script: Traditional Chinese is read as Simplified.
                if text.chars().any(handlers::texts::zh_hant::is_traditional_only) {
                    *text = handlers::texts::zh_hant::to_simplified(text);
                }
            }
        }
        Conversation { lexicon, events, turn_start, lang }
    }

    /// The latest shopper message.
    pub(crate) fn user_text(&self) -> &str {
        match self.turn_start.and_then(|i| self.events.get(i)) {
            Some(Event::User(text)) => text,
            _ => "",
        }
    }

    /// The calls of the current turn, oldest first.
    pub(crate) fn turn_calls(&self) -> impl DoubleEndedIterator<Item = &CallRecord> {
        let from = self.turn_start.map_or(0, |i| i + 1);
        self.events[from..].iter().filter_map(as_call)
    }

    /// The latest call of the current turn.
    pub(crate) fn last_turn_call(&self) -> Option<&CallRecord> {
        self.turn_calls().next_back()
    }

    /// The latest successful call of `tool` anywhere in the conversation.
    pub(crate) fn latest(&self, tool: &str) -> Option<&CallRecord> {
        self.events.iter().rev().filter_map(as_call).find(|c| c.name == tool && c.data().is_some())
    }

    /// The latest successful call of `tool` before the current turn.
    pub(crate) fn latest_before_turn(&self, tool: &str) -> Option<&CallRecord> {
        let until = self.turn_start.unwrap_or(self.events.len());
        self.events[..until].iter().rev().filter_map(as_call).find(|c| c.name == tool && c.data().is_some())
    }

    /// The shopper's earlier messages, newest first (the latest one excluded).
    pub(crate) fn earlier_user_texts(&self) -> impl Iterator<Item = &str> {
        let until = self.turn_start.unwrap_or(0);
        self.events[..until].iter().rev().filter_map(|e| match e {
            Event::User(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// The assistant's last text answer before the current turn, if it came
    /// after the shopper's previous message.
    pub(crate) fn previous_answer(&self) -> Option<&str> {
        let until = self.turn_start.unwrap_or(self.events.len());
        match self.events[..until].iter().rev().find(|e| !matches!(e, Event::Call(_)))? {
            Event::Answer(text) => Some(text),
            _ => None,
        }
    }
}

fn as_call(event: &Event) -> Option<&CallRecord> {
    match event {
        Event::Call(call) => Some(call),
        _ => None,
    }
}

/// Attaches a tool message to its call: by id, else to the oldest call still waiting.
fn attach_outcome(events: &mut [Event], by_id: &HashMap<String, usize>, message: &ChatMessage) {
    let index = message
        .tool_call_id
        .as_ref()
        .and_then(|id| by_id.get(id).copied())
        .or_else(|| events.iter().position(|e| matches!(e, Event::Call(c) if c.outcome.is_none())));
    if let Some(Event::Call(call)) = index.and_then(|i| events.get_mut(i)) {
        call.outcome = Some(read_outcome(message.text()));
    }
}

/// Reads the router's encoding of a tool result.
pub(crate) fn read_outcome(text: &str) -> Outcome {
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

/// The language of the latest shopper message that has one (the language its
/// note names, else the one it is written in); Chinese by default.
fn reply_language(events: &[Event]) -> Lang {
    events
        .iter()
        .rev()
        .filter_map(|e| match e {
            Event::User(text) => crate::router::prompt::noted_lang(text).or_else(|| Lang::detect(text)),
            _ => None,
        })
        .next()
        .unwrap_or(Lang::Zh)
}
