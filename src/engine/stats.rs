//! [`Stats`]: counters of what the bot did and its last errors with their
//! turn ids, shown by `/health`; [`TURN`], the id of the turn being answered.
//!
//! A turn's id is made by `FunctionCallRouter::answer` (a press:
//! `finish_live`), put in the turn's log span (`turn`), so every log line of
//! the turn carries it, and in `TURN`, so that `Stats::record_error`
//! files an error under it for `/health`.
//!
//! Tokens in, out and cached (`usage.prompt_tokens_details.cached_tokens`, or
//! DeepSeek's `prompt_cache_hit_tokens`) are counted here for `/health` and
//! `/metrics`, logged with each turn, and kept per conversation by the router
//! (`usage:CONV`).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::llm::Usage;

/// Counters shown by `/health`.
#[derive(Debug, Default)]
pub struct Stats {
    /// Shopper messages handled.
    pub messages_handled: AtomicU64,
    /// Errors: model failures, state store failures, failed deliveries.
    pub errors: AtomicU64,
    /// Model tokens in.
    pub(crate) tokens_in: AtomicU64,
    /// Model tokens out.
    pub(crate) tokens_out: AtomicU64,
    /// Of the tokens in, those the provider served from its prompt cache.
    pub(crate) tokens_cached: AtomicU64,
    /// Tool calls answered from the tool-result cache.
    pub tool_cache_hits: AtomicU64,
    /// The last few errors, `[turn a1b2c3] what`, newest last.
    last_errors: Mutex<VecDeque<String>>,
}

/// Errors `/health` lists.
const LAST_ERRORS: usize = 5;

tokio::task_local! {
    /// The short id of the turn this task answers; every log line of the
    /// turn carries it (the `turn` field of its span).
    pub(crate) static TURN: String;
}

/// A new short random turn id (six hex digits).
pub(crate) fn new_turn_id() -> String {
    format!("{:06x}", rand::random_range(0..0x100_0000u32))
}

/// A new id for an error told to a caller (eight hex digits): the caller
/// gets the id and a short message, the log gets the detail with the id.
pub(crate) fn new_error_id() -> String {
    format!("{:08x}", rand::random::<u32>())
}

/// The id of the turn this task answers, if any.
pub(crate) fn current_turn() -> Option<String> {
    TURN.try_with(Clone::clone).ok()
}

impl Stats {
    /// One more message.
    pub(crate) fn count_message(&self) {
        self.messages_handled.fetch_add(1, Ordering::Relaxed);
    }

    /// One more error.
    pub(crate) fn count_error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// One more error, remembered with the current turn's id for `/health`.
    pub(crate) fn record_error(&self, what: &str) {
        self.count_error();
        let turn = current_turn().unwrap_or_else(|| "-".to_owned());
        let mut last = self.last_errors.lock().unwrap_or_else(|e| e.into_inner());
        if last.len() == LAST_ERRORS {
            last.pop_front();
        }
        last.push_back(format!("[turn {turn}] {what}"));
    }

    /// The last few errors, oldest first.
    pub(crate) fn last_errors(&self) -> Vec<String> {
        self.last_errors.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }

    /// Adds a model call's tokens.
    pub(crate) fn add_usage(&self, usage: Usage) {
        self.tokens_in.fetch_add(usage.prompt_tokens, Ordering::Relaxed);
        self.tokens_out.fetch_add(usage.completion_tokens, Ordering::Relaxed);
        self.tokens_cached.fetch_add(usage.cached_tokens, Ordering::Relaxed);
        metrics::counter!(crate::infra::ops::MODEL_TOKENS, "kind" => "in").increment(usage.prompt_tokens);
        metrics::counter!(crate::infra::ops::MODEL_TOKENS, "kind" => "out")
            .increment(usage.completion_tokens);
        metrics::counter!(crate::infra::ops::MODEL_TOKENS, "kind" => "cached").increment(usage.cached_tokens);
    }
}
