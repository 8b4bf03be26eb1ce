//! The offline planner: a deterministic Chinese/English intent parser that
//! plays the model's part in the tool loop, so the bot works with no model.
//!
//! It is stateless: each call reads the whole conversation, parses the latest
//! shopper message into an [`Intent`], looks at the tool calls made since, and
//! either calls the next tool or answers from the results. With no idea what
//! the shopper wants it answers with empty text, and the router hands the turn
//! to the chat fallback.

mod compose;
mod conversation;
mod extract;
mod flow;
mod intent;
mod lexicon;
mod text;

#[cfg(test)]
mod tests;

use async_trait::async_trait;
use serde_json::Value;

use super::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ToolCall, Usage};
use conversation::Conversation;

pub use compose::{cart_text, orders_text};
pub use extract::{Pick, PriceBounds};
pub use intent::{CartTarget, InfoKind, Intent, ProductQuery, parse_intent};

/// More tool calls than this in one turn: answer from what is known.
const MAX_CALLS_PER_TURN: usize = 6;

/// What the planner does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call one tool with these arguments.
    Call { tool: &'static str, arguments: Value },
    /// Answer the shopper; empty text means "no idea, use the chat fallback".
    Answer(String),
}

/// The next step for a conversation, given the names of the tools offered.
pub fn plan(messages: &[ChatMessage], tools: &[&str]) -> Step {
    let conv = Conversation::from_messages(messages);
    let intent = flow::resolve_affirmation(parse_intent(conv.user_text()), &conv);
    tracing::debug!(?intent, calls_this_turn = conv.turn_calls().count(), "offline planner");
    if conv.turn_calls().count() >= MAX_CALLS_PER_TURN {
        return Step::Answer(flow::without_tool("", &intent, &conv));
    }
    match flow::next_step(&intent, &conv) {
        Step::Call { tool, .. } if !tools.contains(&tool) => {
            Step::Answer(flow::without_tool(tool, &intent, &conv))
        }
        step => step,
    }
}

/// The offline planner as a [`ChatModel`].
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflinePlanner;

impl OfflinePlanner {
    /// A planner.
    pub fn new() -> Self {
        OfflinePlanner
    }
}

#[async_trait]
impl ChatModel for OfflinePlanner {
    fn describe(&self) -> String {
        "offline".to_owned()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let names: Vec<&str> = request.tools.iter().map(|spec| spec.name).collect();
        let (message, finish_reason) = match plan(request.messages, &names) {
            Step::Call { tool, arguments } => {
                let id = format!("call_{}", previous_calls(request.messages) + 1);
                let call = ToolCall { id, name: tool.to_owned(), arguments: arguments.to_string() };
                (ChatMessage::assistant_calls(vec![call]), "tool_calls")
            }
            Step::Answer(text) => (ChatMessage::assistant(text), "stop"),
        };
        Ok(ChatResponse { message, finish_reason: Some(finish_reason.to_owned()), usage: Usage::default() })
    }
}

/// Tool calls already in the conversation, so new ids never repeat.
fn previous_calls(messages: &[ChatMessage]) -> usize {
    messages.iter().map(|m| m.tool_calls.len()).sum()
}
