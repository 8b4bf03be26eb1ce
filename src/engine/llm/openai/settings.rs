//! [`OpenAiSettings`]: how to reach an OpenAI-compatible provider.

use std::fmt;
use std::time::Duration;

/// How to reach an OpenAI-compatible provider.
#[derive(Clone)]
pub struct OpenAiSettings {
    /// The API root, up to and including the version segment, e.g.
    /// `https://api.deepseek.com/v1`, `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1`. `/chat/completions` is appended; nothing else is.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when not empty.
    pub api_key: crate::infra::secret::Secret,
    /// The model name, e.g. `deepseek-chat`.
    pub model: String,
    /// Budget for one attempt: the whole answer, or, when streaming, the
    /// headers and then each gap between chunks.
    pub request_timeout: Duration,
    /// Retries after the first attempt on timeouts, network errors, 408, 429 and 5xx.
    pub max_retries: u32,
    /// Ask for a streamed answer (server-sent events).
    pub stream: bool,
    /// Sampling temperature; the provider's default when `None`.
    pub temperature: Option<f32>,
    /// The most tokens of one answer (`max_tokens`); 0 = the provider's default.
    pub max_tokens: u32,
    /// A hard ceiling on calls at once; 0 = adapt to the provider only.
    pub max_concurrent: usize,
}

impl fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &if self.api_key.is_empty() { "" } else { "<redacted>" })
            .field("model", &self.model)
            .field("request_timeout", &self.request_timeout)
            .field("max_retries", &self.max_retries)
            .field("stream", &self.stream)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("max_concurrent", &self.max_concurrent)
            .finish()
    }
}
