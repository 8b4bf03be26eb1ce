//! [`StateStore`]: everything the bot remembers — conversation history, pending
//! confirmations, handled update ids, per-chat locks, rate-limit counters,
//! short-lived values (hand-off links) and the audit log — behind one interface
//! with three backends: in memory (tests), SQLite (`sqlite://PATH`, the
//! default) and Redis (`redis://HOST:PORT[/DB][?prefix=NAME]`, for several
//! instances).

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::llm::ChatMessage;

pub mod memory;
pub mod redis;
pub mod sqlite;
pub mod timed;

pub use memory::MemoryStore;

/// Why the state store failed.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The store could not be reached or refused the operation.
    #[error("state store unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back.
    #[error("corrupt state: {0}")]
    Corrupt(String),
    /// `state.url` is not a supported URL.
    #[error("state.url: {0}")]
    BadUrl(String),
}

/// Where a pending action stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingStatus {
    /// Waiting for a button press.
    Waiting,
    /// Approved, waiting for the typed one-time code.
    AwaitingCode,
    /// Claimed by a press being executed (until `claimed_until`).
    Claimed,
    /// Executed or declined.
    Done,
}

/// A pending confirm/critical action as stored. `payload` is opaque JSON (the
/// router's saved loop state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredPending {
    /// The short random token on the button.
    pub token: String,
    /// The shopper who asked: the only one who may confirm.
    pub user_id: i64,
    /// The chat it was asked in.
    pub chat_id: i64,
    /// The tool that waits.
    pub tool: String,
    /// The router's loop state, JSON.
    pub payload: String,
    /// Unix seconds after which a press is answered "expired".
    pub expires_at: i64,
    /// Where it stands.
    pub status: PendingStatus,
    /// For `Claimed`: unix seconds until which the claim holds (a claim whose
    /// holder died may be taken again after it; the mall's idempotency key
    /// keeps the action from running twice).
    pub claimed_until: i64,
}

/// Answer of [`StateStore::claim_pending`].
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimOutcome {
    /// The caller now owns the action (status set to `Claimed`).
    Claimed(StoredPending),
    /// Another press holds a live claim on it right now.
    InProgress,
    /// It was executed or declined already.
    AlreadyDone,
    /// It expired (or never existed).
    Expired,
}

/// One executed confirm/critical action: who, where, what, when, with what result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Unix seconds.
    pub at: i64,
    pub user_id: i64,
    pub chat_id: i64,
    pub tool: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// `approved`, `declined`, or the error kind.
    pub decision: String,
    /// A short result (order id, error).
    pub result: String,
}

/// Everything the bot remembers, shared by all its instances when the
/// backend is shared.
#[async_trait]
pub trait StateStore: Send + Sync {
    /// The backend and where it is, for logs and `/health` (no passwords).
    fn describe(&self) -> String;
    /// Checks the store answers.
    async fn health(&self) -> Result<(), StateError>;

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

    /// Records an incoming update id; `true` the first time, `false` for a
    /// re-delivery within `ttl`.
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError>;
    /// Counts one more message from `user` and returns how many it sent in
    /// the current `window`.
    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError>;
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

    /// Keeps `value` under `key` for `ttl`, replacing any earlier value.
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError>;
    /// The value under `key`, if it is set and has not expired.
    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError>;
    /// The value under `key`, removed in the same step: of several callers
    /// asking at once, exactly one gets it.
    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError>;

    /// Adds each `(key, field, delta)` to a counter (created at 0), in one
    /// step; every key touched lives `ttl` from now. Counters are shared by
    /// the instances sharing the store (daily usage, per-conversation tokens).
    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError>;
    /// The counters of `key` (empty when none, or expired).
    async fn counts(&self, key: &str) -> Result<std::collections::HashMap<String, i64>, StateError>;

    /// Appends to the audit log.
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError>;
    /// The newest audit entries, newest first.
    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError>;

    /// Deletes expired pending actions, update ids, locks, counters, values and
    /// history; returns how many records went.
    async fn purge_expired(&self) -> Result<u64, StateError>;

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

/// An answer waiting in the outbox: written before it is sent, removed once
/// Telegram took it. `payload` is opaque JSON (the transport's message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// Unique id of the entry.
    pub id: String,
    /// The chat it goes to (for logs).
    pub chat_id: i64,
    /// Unix milliseconds when the answer was made.
    pub created_ms: i64,
    /// Unix milliseconds from which it may be (re)sent by whoever claims it.
    pub due_ms: i64,
    /// What to send, JSON.
    pub payload: String,
}

/// How long an outbox entry is kept at most, whatever the transport's window:
/// a bound so that an abandoned entry does not stay forever.
pub const OUTBOX_KEEP: Duration = Duration::from_secs(24 * 3600);

/// Opens the store `state.url` names: `memory://`, `sqlite://PATH`,
/// `redis://HOST:PORT[/DB][?prefix=NAME]` (keys under `NAME:`, by default
/// [`redis::DEFAULT_PREFIX`], so that several deployments can share one Redis).
pub async fn open(url: &str) -> Result<std::sync::Arc<dyn StateStore>, StateError> {
    if url == "memory://" || url == "memory" {
        Ok(std::sync::Arc::new(MemoryStore::new()))
    } else if let Some(path) = url.strip_prefix("sqlite://") {
        Ok(std::sync::Arc::new(sqlite::SqliteStore::open(path).await?))
    } else if url.starts_with("redis://") || url.starts_with("rediss://") {
        Ok(std::sync::Arc::new(redis::RedisStore::connect(url).await?))
    } else {
        Err(StateError::BadUrl(format!(
            "`{url}` is not supported; use sqlite://PATH, redis://HOST:PORT or memory://"
        )))
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Milliseconds since the Unix epoch (expiry of history, update ids, locks and counters).
pub fn unix_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// How long a pending action is kept past its expiry, so that a late press is
/// still answered "already done" rather than "expired".
pub const PENDING_KEEP_SECS: i64 = 3600;

/// A claim lease in whole seconds, rounded up (a lease never ends early).
pub(crate) fn lease_secs(lease: Duration) -> i64 {
    let whole = lease.as_secs() + u64::from(lease.subsec_nanos() > 0);
    i64::try_from(whole).unwrap_or(i64::MAX / 2)
}

/// A TTL in whole milliseconds, at least 1.
pub(crate) fn ttl_millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX / 2).max(1)
}

impl PendingStatus {
    /// The name the backends store (`waiting`, `awaiting_code`, `claimed`, `done`).
    pub fn as_str(self) -> &'static str {
        match self {
            PendingStatus::Waiting => "waiting",
            PendingStatus::AwaitingCode => "awaiting_code",
            PendingStatus::Claimed => "claimed",
            PendingStatus::Done => "done",
        }
    }

    /// The status with that stored name.
    pub fn from_name(name: &str) -> Option<PendingStatus> {
        match name {
            "waiting" => Some(PendingStatus::Waiting),
            "awaiting_code" => Some(PendingStatus::AwaitingCode),
            "claimed" => Some(PendingStatus::Claimed),
            "done" => Some(PendingStatus::Done),
            _ => None,
        }
    }

    /// Whether the action waits for a press or a code.
    pub fn is_open(self) -> bool {
        matches!(self, PendingStatus::Waiting | PendingStatus::AwaitingCode)
    }
}
