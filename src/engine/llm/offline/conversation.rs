//! The conversation as the offline planner reads it from the chat messages:
//! the shopper's messages (with the language each is answered in), the tool
//! calls with their outcomes, and the assistant's answers.

use std::collections::HashMap;

use handlers::Lang;
use handlers::basic::{Dialogue, Event, Made, Outcome};
use serde_json::Value;

use crate::engine::llm::{ChatMessage, Role};

/// Reads the messages (the system prompt is skipped).
pub(crate) fn read(messages: &[ChatMessage]) -> Dialogue {
    let mut events = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for message in messages {
        match message.role {
            Role::User => events.push(shopper(message.text())),
            Role::Assistant => {
                if !message.text().trim().is_empty() {
                    events.push(Event::Answer(message.text().to_owned()));
                }
                for call in &message.tool_calls {
                    by_id.insert(call.id.clone(), events.len());
                    let args = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
                    events.push(Event::Call(Made { name: call.name.clone(), args, outcome: None }));
                }
            }
            Role::Tool => attach_outcome(&mut events, &by_id, message),
            Role::System => {}
        }
    }
    Dialogue::new(events)
}

/// A shopper's message: the language its note names, else the one it is
/// written in; the words without the note, in one script (Traditional
/// Chinese is read as Simplified).
fn shopper(text: &str) -> Event {
    let lang = crate::engine::router::prompt::noted_lang(text).or_else(|| Lang::detect(text));
    let mut words = text.to_owned();
    // The turn's note (reply language, group chat) is not the shopper's words.
    if let Some(at) = words.rfind("\n\n[").filter(|_| words.ends_with(']')) {
        words.truncate(at);
    }
    if words.chars().any(handlers::texts::zh_hant::is_traditional_only) {
        words = handlers::texts::zh_hant::to_simplified(&words);
    }
    Event::User { text: words, lang }
}

/// Attaches a tool message to its call: by id, else to the oldest call still waiting.
fn attach_outcome(events: &mut [Event], by_id: &HashMap<String, usize>, message: &ChatMessage) {
    let index = message
        .tool_call_id
        .as_ref()
        .and_then(|id| by_id.get(id).copied())
        .or_else(|| events.iter().position(|e| matches!(e, Event::Call(c) if c.outcome.is_none())));
    if let Some(Event::Call(call)) = index.and_then(|i| events.get_mut(i)) {
        call.outcome = Some(Outcome::read(message.text()));
    }
}
