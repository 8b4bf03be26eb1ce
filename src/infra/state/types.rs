//! The records the state store keeps and hands back, its error, and the
//! clock and duration helpers its backends share.

use std::time::Duration;

use serde::{Deserialize, Serialize};

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

/// Answer of [`PendingStore::claim_pending`](super::PendingStore::claim_pending).
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
pub(crate) const OUTBOX_KEEP: Duration = Duration::from_secs(24 * 3600);

/// Seconds since the Unix epoch on the mall's clock (`services::clock`:
/// the system clock unless `MALLBOT_CLOCK` set it, moved on by a test).
pub fn unix_now() -> i64 {
    services::clock::now_unix()
}

/// Milliseconds since the Unix epoch on the mall's clock (expiry of history,
/// update ids, locks and counters).
pub fn unix_now_ms() -> i64 {
    services::clock::now_unix_ms()
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
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PendingStatus::Waiting => "waiting",
            PendingStatus::AwaitingCode => "awaiting_code",
            PendingStatus::Claimed => "claimed",
            PendingStatus::Done => "done",
        }
    }

    /// The status with that stored name.
    pub(crate) fn from_name(name: &str) -> Option<PendingStatus> {
        match name {
            "waiting" => Some(PendingStatus::Waiting),
            "awaiting_code" => Some(PendingStatus::AwaitingCode),
            "claimed" => Some(PendingStatus::Claimed),
            "done" => Some(PendingStatus::Done),
            _ => None,
        }
    }

    /// Whether the action waits for a press or a code.
    pub(crate) fn is_open(self) -> bool {
        matches!(self, PendingStatus::Waiting | PendingStatus::AwaitingCode)
    }
}
