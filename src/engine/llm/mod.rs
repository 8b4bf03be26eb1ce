//! The model side of the tool loop: chat messages in the OpenAI shape, the
//! [`ChatModel`] trait, and its implementations — the OpenAI-compatible HTTP
//! client and the offline planner.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::engine::tools::Tool;

pub mod limit;
pub mod offline;
pub mod openai;

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
    /// ([`crate::engine::router::history::drop_images`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
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

/// Tokens a model call used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of `prompt_tokens`, how many the provider served from its prompt cache
    /// (`prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`).
    #[serde(default)]
    pub cached_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.prompt_tokens += rhs.prompt_tokens;
        self.completion_tokens += rhs.completion_tokens;
        self.cached_tokens += rhs.cached_tokens;
    }
}

/// One request to the model.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The conversation so far, system prompt first.
    pub messages: &'a [ChatMessage],
    /// The tools the model may call (empty: answer in text).
    pub tools: &'a [Tool],
    /// Where a streaming client reports the answer's text as it arrives
    /// ([`crate::engine::progress::TurnEvent::TextDelta`]), while no tool call has
    /// shown up in the round. `None`: nobody watches.
    pub progress: Option<&'a crate::engine::progress::Progress>,
}

/// The model's answer: text, tool calls, or both.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message (tool calls normalised, ids present).
    pub message: ChatMessage,
    /// `stop`, `tool_calls`, `length`… (`""` from some providers becomes `None`).
    pub finish_reason: Option<String>,
    /// Tokens used.
    pub usage: Usage,
}

/// Why the model could not answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// Network error, timeout, 429 or 5xx after all retries.
    #[error("model unavailable: {message}")]
    Unavailable { message: String },
    /// The provider refused the request (4xx other than 429); the raw body is kept.
    #[error("model request refused (HTTP {status}): {raw}")]
    Refused { status: u16, raw: String },
    /// The answer could not be read; the raw body is kept.
    #[error("invalid answer from the model: {message}; body: {raw}")]
    InvalidResponse { message: String, raw: String },
}

/// Something that plays the model's part in the tool loop.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Provider and model, for logs and `/health` (e.g. `openai/deepseek-chat`).
    fn describe(&self) -> String;
    /// One chat completion.
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError>;
    /// How many calls it lets run at once and how many wait, when it limits them.
    fn load(&self) -> Option<limit::LimitReport> {
        None
    }
}
