//! [`PendingAction`]: a risky tool call waiting for the shopper's button press,
//! holding everything needed to resume the same tool loop afterwards.
//!
//! While a confirmation waits, the assistant's call and the results of its
//! round wait here, and the conversation's history holds the question shown
//! to the shopper; the press appends the call and its result and the tool
//! loop continues. A pending action never holds a picture the shopper sent.

use handlers::{Lang, Level, Preview};
use serde::{Deserialize, Serialize};

use crate::engine::llm::{ChatMessage, ToolCall};
use crate::infra::state::StoredPending;

/// The saved state of a tool loop stopped at a confirm/critical call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingAction {
    /// `telegram` or `console`.
    pub(crate) platform: String,
    pub(crate) user_id: i64,
    pub(crate) chat_id: i64,
    pub(crate) is_group: bool,
    pub(crate) lang: Lang,
    /// The assistant turn whose calls are being answered, when the action
    /// stopped a chat's tool loop; `None` for a change asked for directly
    /// (the Mini App, an MCP client), which resumes no loop.
    pub(crate) assistant: Option<ChatMessage>,
    /// One entry per call of that turn, in call order: the tool message text,
    /// `None` for the call that waits.
    pub(crate) results: Vec<Option<String>>,
    /// The waiting call.
    pub(crate) call: ToolCall,
    /// Its arguments: only the fields the tool's schema declares, at most
    /// [`MAX_ARGUMENTS`] bytes as JSON.
    pub(crate) arguments: serde_json::Value,
    /// Its level (after config overrides).
    pub(crate) level: Level,
    /// What the shopper was shown.
    pub(crate) preview: Preview,
    /// The one-time code to type back (critical, with `safety.critical_code`).
    pub(crate) code: Option<String>,
    /// Model rounds already used by this turn.
    pub(crate) rounds_used: u32,
    /// The turn ran on the offline planner because the model was unreachable.
    pub(crate) basic_mode: bool,
    /// Once carried out or declined: what happened, in the shopper's words
    /// ("订单 O123…"), so a later press of the same button can say so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<String>,
    /// The W3C `traceparent` of the turn that asked, when traced: the turn
    /// the press resumes continues that trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<String>,
}

/// The most a pending action's arguments may weigh, as JSON.
pub(crate) const MAX_ARGUMENTS: usize = 4 * 1024;

/// The most a whole pending action may weigh, as stored (its tool loop's
/// messages included).
pub(crate) const MAX_PENDING: usize = 256 * 1024;

impl PendingAction {
    /// The conversation this action belongs to.
    pub(crate) fn conversation_key(&self) -> String {
        crate::engine::context::conversation_key(&self.platform, self.chat_id, self.user_id)
    }

    /// The idempotency key for the mall: derived from the token, so every
    /// press, retry or instance acting on this action sends the same key.
    pub(crate) fn idempotency_key(token: &str) -> services::IdempotencyKey {
        services::IdempotencyKey(format!("mallbot-pa-{token}"))
    }
}

/// A press that was validated and claimed: the caller now owns the action.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The stored record (token, owner, expiry).
    pub(crate) stored: StoredPending,
    /// The decoded loop state.
    pub(crate) action: PendingAction,
    /// Confirm (`true`) or Cancel (`false`).
    pub(crate) approve: bool,
}

/// A short random token for `callback_data` (Telegram allows 64 bytes).
pub(crate) fn new_token() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    (0..12).map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char).collect()
}

/// A six-digit one-time code.
pub(crate) fn new_code() -> String {
    format!("{:06}", rand::random_range(0..1_000_000u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_short_random_and_fit_callback_data() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 12);
        assert!(format!("c:{a}:y").len() <= 64);
        assert_eq!(new_code().len(), 6);
    }
}
