//! What the state store does, one trait per role: each backend implements
//! every role in a file of its own, and [`StateStore`] is all of them at once.
//! A caller that needs one role may take just that trait.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;

use super::{AuditEntry, ClaimOutcome, OutboxEntry, PendingStatus, StateError, StoredPending};
use crate::infra::state::message::ChatMessage;

/// What the store is, whether it answers, and its clean-up.
#[async_trait]
pub trait Housekeeping: Send + Sync {
    /// The backend and where it is, for logs and `/health` (no passwords).
    fn describe(&self) -> String;
    /// Checks the store answers.
    async fn health(&self) -> Result<(), StateError>;
    /// Deletes expired pending actions, update ids, locks, counters, values and
    /// history; returns how many records went.
    async fn purge_expired(&self) -> Result<u64, StateError>;
}

/// Conversation history.
#[async_trait]
pub trait HistoryStore: Send + Sync {
    /// The conversation's history, oldest first (empty if none).
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError>;
    /// Replaces the conversation's history; it expires after `ttl` of silence.
    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError>;
    /// Forgets the conversation.
    async fn clear_history(&self, conversation: &str) -> Result<(), StateError>;
}

/// Pending confirm/critical actions.
#[async_trait]
pub trait PendingStore: Send + Sync {
    /// Stores (or replaces) a pending action.
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError>;
    /// The pending action with that token, if it exists and has not expired.
    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError>;
    /// Atomically claims the action for execution: `Waiting`/`AwaitingCode`
    /// (or `Claimed` past `claimed_until`) → `Claimed` for `lease`.
    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError>;
    /// Sets the status of the action (e.g. `Done`, or `AwaitingCode`, or back to
    /// `Waiting` after a failed attempt).
    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError>;
    /// Actions of this user in this chat in the given status, newest first.
    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError>;
    /// How many actions wait for a press or a code (not expired).
    async fn count_pending(&self) -> Result<u64, StateError>;
}

/// The update ids already handled (a re-delivered update is dropped).
#[async_trait]
pub trait UpdateLog: Send + Sync {
    /// Records an incoming update id; `true` the first time, `false` for a
    /// re-delivery within `ttl`.
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError>;
}

/// Rate-limit hits and shared counters.
#[async_trait]
pub trait CounterStore: Send + Sync {
    /// Counts one more message from `user` and returns how many it sent in
    /// the current `window`.
    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError>;
    /// Adds each `(key, field, delta)` to a counter (created at 0), in one
    /// step; every key touched lives `ttl` from now. Counters are shared by
    /// the instances sharing the store (daily usage, per-conversation tokens).
    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError>;
    /// The counters of `key` (empty when none, or expired).
    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError>;
}

/// Locks with an owner and a time to live.
#[async_trait]
pub trait LockStore: Send + Sync {
    /// Takes the lock `key` for `owner` for at most `ttl`; `false` if held by another.
    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError>;
    /// Releases the lock if `owner` holds it.
    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError>;
    /// Waits, at most `max`, for the lock `key` to be released by its holder.
    /// Backends that hear of releases (Redis) return as soon as it is; the
    /// others return after a short pause, and the caller tries again.
    async fn wait_unlock(&self, _key: &str, max: Duration) {
        tokio::time::sleep(max.min(Duration::from_millis(200))).await;
    }
}

/// Short-lived values (hand-off links, `/lang`, the Mini App's waiting actions).
#[async_trait]
pub trait ValueStore: Send + Sync {
    /// Keeps `value` under `key` for `ttl`, replacing any earlier value.
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError>;
    /// The value under `key`, if it is set and has not expired.
    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError>;
    /// The value under `key`, removed in the same step: of several callers
    /// asking at once, exactly one gets it.
    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError>;
}

/// The audit log of executed confirm/critical actions.
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// Appends to the audit log.
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError>;
    /// The newest audit entries, newest first.
    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError>;
}

/// Answers kept until the transport delivered them.
#[async_trait]
pub trait OutboxStore: Send + Sync {
    /// Keeps an answer to send (or replaces the entry with the same id): it
    /// becomes due for delivery at `entry.due_ms`.
    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError>;
    /// Claims up to `limit` entries due now, oldest first: each is due again
    /// only after `lease`, so that of several callers (instances) exactly one
    /// gets it until then.
    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError>;
    /// Forgets an entry (delivered, refused for good, or too old); `true` if it was there.
    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError>;
}

/// Everything the bot remembers, shared by all its instances when the
/// backend is shared: every role at once. Implemented for whatever
/// implements them all.
pub trait StateStore:
    Housekeeping
    + HistoryStore
    + PendingStore
    + UpdateLog
    + CounterStore
    + LockStore
    + ValueStore
    + AuditLog
    + OutboxStore
{
}

impl<T> StateStore for T where
    T: Housekeeping
        + HistoryStore
        + PendingStore
        + UpdateLog
        + CounterStore
        + LockStore
        + ValueStore
        + AuditLog
        + OutboxStore
        + ?Sized
{
}
