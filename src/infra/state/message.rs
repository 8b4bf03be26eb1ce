//! One message of a conversation in the OpenAI shape ([`ChatMessage`]): what
//! the model reads and writes, and what the history of the state store keeps.
//! It lives here, below the engine, so the state store can keep it; the
//! engine's model side re-exports it as `engine::llm::ChatMessage`.

use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A tool call the model asked for. `arguments` is the JSON text as the
/// model wrote it (an object sent by a lenient provider is re-serialized).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id; minted as `call_<n>` when the provider sent none.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
}

/// One message of a conversation, as OpenAI-compatible chat APIs take it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    /// The text, if any (an assistant turn with tool calls may have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The tool calls of an assistant turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a `tool` message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Reasoning text of thinking models (DeepSeek, Qwen, GLM): it must be
    /// sent back on tool-call turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// A picture the shopper sent with this message, as a `data:` URL, for a
    /// model that reads images (`llm.vision`). Never a Bot API file URL (it
    /// carries the bot token). The stored history keeps a placeholder instead
    /// (the router drops the picture before saving the turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) image: Option<String>,
}

impl ChatMessage {
    fn plain(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning_content: None,
            image: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }

    /// A shopper's message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    /// An assistant's text answer.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }

    /// An assistant turn that calls tools.
    pub fn assistant_calls(tool_calls: Vec<ToolCall>) -> Self {
        ChatMessage {
            role: Role::Assistant,
            content: None,
            tool_calls,
            tool_call_id: None,
            reasoning_content: None,
            image: None,
        }
    }

    /// A shopper's message with a picture (a `data:` URL).
    pub(crate) fn user_with_image(content: impl Into<String>, image: String) -> Self {
        ChatMessage { image: Some(image), ..Self::plain(Role::User, content) }
    }

    /// The result of a tool call.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::Tool,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: Some(tool_call_id.into()),
            reasoning_content: None,
            image: None,
        }
    }

    /// The text, or `""`.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}
