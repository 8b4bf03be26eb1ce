//! [`StateStore`]: everything the bot remembers — conversation history, pending
//! confirmations, handled update ids, per-chat locks, rate-limit counters,
//! short-lived values (hand-off links) and the audit log — one trait per role
//! (`roles.rs`) and the umbrella [`StateStore`] of them all, with three
//! backends, each one file per role: in memory (tests), SQLite
//! (`sqlite://PATH`, the default) and Redis
//! (`redis://HOST:PORT[/DB][?prefix=NAME]`, for several instances).
//!
//! Everything an instance remembers is here, so instances sharing one Redis
//! behave as one bot: conversations, pending confirmations (a press may land
//! on any instance), hand-off links, `/lang` choices, rate counters, the
//! outbox, the per-conversation lock (a Redis release is published, so a
//! waiting instance wakes at once) and the update ids that drop Telegram's
//! re-deliveries in webhook mode. Long polling hands each update to one
//! instance; an update re-delivered after a crash is answered again rather
//! than lost (an order stays single thanks to the claim and the idempotency
//! key). Every key outside the typed calls is built in `keys.rs`;
//! `timed.rs` wraps whichever backend is open and times each operation.

mod backend;
pub(crate) mod keys;
pub(crate) mod memory;
pub(crate) mod message;
pub(crate) mod redis;
mod roles;
pub(crate) mod sqlite;
pub(crate) mod timed;
mod types;

pub use backend::open;
pub use memory::MemoryStore;
pub use roles::{
    AuditLog, CounterStore, HistoryStore, Housekeeping, LockStore, OutboxStore, PendingStore, StateStore,
    UpdateLog, ValueStore,
};
pub(crate) use types::OUTBOX_KEEP;
pub use types::{
    AuditEntry, ClaimOutcome, OutboxEntry, PENDING_KEEP_SECS, PendingStatus, StateError, StoredPending,
    unix_now, unix_now_ms,
};
pub(crate) use types::{lease_secs, ttl_millis};

/// Counts one more send of the outbox over every instance sharing the store
/// and returns how many were counted in the current `window`: the outbox's
/// shared pace, under its key of `keys.rs`.
pub(crate) async fn outbox_pace_hit(
    state: &dyn StateStore,
    window: std::time::Duration,
) -> Result<u32, StateError> {
    state.rate_hit(keys::OUTBOX_PACE, window).await
}
