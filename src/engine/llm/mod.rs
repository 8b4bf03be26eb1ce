//! The model side of the tool loop: chat messages in the OpenAI shape, the
//! [`ChatModel`] trait, and its implementations — the OpenAI-compatible HTTP
//! client and the offline planner.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::engine::tools::Tool;
pub use crate::infra::state::message::{ChatMessage, Role, ToolCall};

pub(crate) mod limit;
pub(crate) mod offline;
pub(crate) mod openai;

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
