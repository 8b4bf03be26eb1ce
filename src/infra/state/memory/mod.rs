//! The in-memory [`StateStore`](super::StateStore): maps behind one mutex, for tests and a single
//! short-lived process (everything is lost when it stops).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{AuditEntry, OutboxEntry, StoredPending, ttl_millis, unix_now_ms};
use crate::infra::state::message::ChatMessage;

mod audit;
mod counters;
mod history;
mod housekeeping;
mod locks;
mod outbox;
mod pending;
mod updates;
mod values;

/// Everything in one process's memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

/// A value and when it expires (unix milliseconds).
#[derive(Debug)]
struct Expiring<T> {
    value: T,
    expires_ms: i64,
}

impl<T> Expiring<T> {
    fn new(value: T, ttl: Duration) -> Self {
        Expiring { value, expires_ms: unix_now_ms() + ttl_millis(ttl) }
    }

    fn is_live(&self, now_ms: i64) -> bool {
        self.expires_ms > now_ms
    }
}

#[derive(Debug, Default)]
struct Inner {
    history: HashMap<String, Expiring<Vec<ChatMessage>>>,
    /// Pending actions with the order they were stored in (for "newest first").
    pending: HashMap<String, (u64, StoredPending)>,
    next_seq: u64,
    updates: HashMap<i64, Expiring<()>>,
    rates: HashMap<String, Expiring<u32>>,
    locks: HashMap<String, Expiring<String>>,
    values: HashMap<String, Expiring<String>>,
    counters: HashMap<String, Expiring<HashMap<String, i64>>>,
    /// Newest first.
    audit: VecDeque<AuditEntry>,
    outbox: HashMap<String, OutboxEntry>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
