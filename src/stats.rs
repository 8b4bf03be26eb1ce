//! [`Stats`]: counters of what the bot did, shown by `/health`.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::llm::Usage;

/// Counters shown by `/health`.
#[derive(Debug, Default)]
pub struct Stats {
    /// Shopper messages handled.
    pub messages_handled: AtomicU64,
    /// Errors: model failures, state store failures, failed deliveries.
    pub errors: AtomicU64,
    /// Model tokens in.
    pub tokens_in: AtomicU64,
    /// Model tokens out.
    pub tokens_out: AtomicU64,
    /// Of the tokens in, those the provider served from its prompt cache.
    pub tokens_cached: AtomicU64,
    /// Tool calls answered from the tool-result cache.
    pub tool_cache_hits: AtomicU64,
}

impl Stats {
    /// One more message.
    pub fn count_message(&self) {
        self.messages_handled.fetch_add(1, Ordering::Relaxed);
    }

    /// One more error.
    pub fn count_error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds a model call's tokens.
    pub fn add_usage(&self, usage: Usage) {
        self.tokens_in.fetch_add(usage.prompt_tokens, Ordering::Relaxed);
        self.tokens_out.fetch_add(usage.completion_tokens, Ordering::Relaxed);
        self.tokens_cached.fetch_add(usage.cached_tokens, Ordering::Relaxed);
    }
}
