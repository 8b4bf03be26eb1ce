//! [`StateStore`]: everything the bot remembers — conversation history, pending
//! confirmations, handled update ids, per-chat locks, rate-limit counters,
//! short-lived values (hand-off links) and the audit log — one trait per role
//! (`roles.rs`) and the umbrella [`StateStore`] of them all, with three
//! backends, each one file per role: in memory (tests), SQLite
//! (`sqlite://PATH`, the default) and Redis
//! (`redis://HOST:PORT[/DB][?prefix=NAME]`, for several instances).

mod backend;
pub(crate) mod keys;
pub mod memory;
pub mod redis;
mod roles;
pub mod sqlite;
pub mod timed;
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
