//! The in-memory [`StateStore`]: maps behind one mutex, for tests and a single
//! short-lived process (everything is lost when it stops).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;

use super::{
    AuditEntry, ClaimOutcome, OutboxEntry, PENDING_KEEP_SECS, PendingStatus, StateError, StateStore,
    StoredPending, lease_secs, ttl_millis, unix_now, unix_now_ms,
};
use crate::llm::ChatMessage;

/// How many audit entries the memory store keeps.
const AUDIT_CAP: usize = 10_000;

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

/// Claims `pending` if it can be claimed at `now`, or says why not.
fn claim_in_place(pending: &mut StoredPending, now: i64, lease: Duration) -> ClaimOutcome {
    match pending.status {
        PendingStatus::Done => ClaimOutcome::AlreadyDone,
        PendingStatus::Claimed if pending.claimed_until >= now => ClaimOutcome::InProgress,
        _ if pending.expires_at <= now => ClaimOutcome::Expired,
        _ => {
            pending.status = PendingStatus::Claimed;
            pending.claimed_until = now + lease_secs(lease);
            ClaimOutcome::Claimed(pending.clone())
        }
    }
}

/// Removes the entries of `map` that `keep` rejects; returns how many went.
fn retain_count<K, V>(map: &mut HashMap<K, V>, keep: impl Fn(&V) -> bool) -> u64 {
    let before = map.len();
    map.retain(|_, v| keep(v));
    (before - map.len()) as u64
}

#[async_trait]
impl StateStore for MemoryStore {
    fn describe(&self) -> String {
        "memory".to_string()
    }

    async fn health(&self) -> Result<(), StateError> {
        Ok(())
    }

    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let inner = self.inner();
        Ok(inner
            .history
            .get(conversation)
            .filter(|h| h.is_live(unix_now_ms()))
            .map(|h| h.value.clone())
            .unwrap_or_default())
    }

    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        self.inner().history.insert(conversation.to_string(), Expiring::new(messages, ttl));
        Ok(())
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        self.inner().history.remove(conversation);
        Ok(())
    }

    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        let mut inner = self.inner();
        inner.next_seq += 1;
        let seq = inner.next_seq;
        inner.pending.insert(pending.token.clone(), (seq, pending.clone()));
        Ok(())
    }

    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        let now = unix_now();
        Ok(self.inner().pending.get(token).map(|(_, p)| p).filter(|p| p.expires_at > now).cloned())
    }

    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        let mut inner = self.inner();
        Ok(match inner.pending.get_mut(token) {
            Some((_, pending)) => claim_in_place(pending, unix_now(), lease),
            None => ClaimOutcome::Expired,
        })
    }

    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        if let Some((_, pending)) = self.inner().pending.get_mut(token) {
            pending.status = status;
        }
        Ok(())
    }

    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        let now = unix_now();
        let inner = self.inner();
        let mut found: Vec<&(u64, StoredPending)> = inner
            .pending
            .values()
            .filter(|(_, p)| {
                p.chat_id == chat_id && p.user_id == user_id && p.status == status && p.expires_at > now
            })
            .collect();
        found.sort_by_key(|(seq, p)| std::cmp::Reverse((p.expires_at, *seq)));
        Ok(found.into_iter().map(|(_, p)| p.clone()).collect())
    }

    async fn count_pending(&self) -> Result<u64, StateError> {
        let now = unix_now();
        let inner = self.inner();
        Ok(inner.pending.values().filter(|(_, p)| p.status.is_open() && p.expires_at > now).count() as u64)
    }

    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        if inner.updates.get(&update_id).is_some_and(|seen| seen.is_live(now_ms)) {
            return Ok(false);
        }
        inner.updates.insert(update_id, Expiring::new((), ttl));
        Ok(true)
    }

    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        let now_ms = unix_now_ms();
        let key = format!("{user}|{}", ttl_millis(window));
        let mut inner = self.inner();
        let counter = inner.rates.entry(key).or_insert_with(|| Expiring::new(0, window));
        if !counter.is_live(now_ms) {
            *counter = Expiring::new(0, window);
        }
        counter.value += 1;
        Ok(counter.value)
    }

    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        if inner.locks.get(key).is_some_and(|held| held.is_live(now_ms) && held.value != owner) {
            return Ok(false);
        }
        inner.locks.insert(key.to_string(), Expiring::new(owner.to_string(), ttl));
        Ok(true)
    }

    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        let mut inner = self.inner();
        if inner.locks.get(key).is_some_and(|held| held.value == owner) {
            inner.locks.remove(key);
        }
        Ok(())
    }

    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        self.inner().values.insert(key.to_string(), Expiring::new(value.to_string(), ttl));
        Ok(())
    }

    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let now_ms = unix_now_ms();
        Ok(self.inner().values.get(key).filter(|v| v.is_live(now_ms)).map(|v| v.value.clone()))
    }

    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let now_ms = unix_now_ms();
        Ok(self.inner().values.remove(key).filter(|v| v.is_live(now_ms)).map(|v| v.value))
    }

    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        let mut inner = self.inner();
        inner.audit.push_front(entry.clone());
        inner.audit.truncate(AUDIT_CAP);
        Ok(())
    }

    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        Ok(self.inner().audit.iter().take(limit).cloned().collect())
    }

    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        for (key, field, delta) in deltas {
            let entry =
                inner.counters.entry((*key).to_owned()).or_insert_with(|| Expiring::new(HashMap::new(), ttl));
            if !entry.is_live(now_ms) {
                entry.value.clear();
            }
            entry.expires_ms = unix_now_ms() + ttl_millis(ttl);
            *entry.value.entry((*field).to_owned()).or_default() += delta;
        }
        Ok(())
    }

    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError> {
        let now_ms = unix_now_ms();
        Ok(self
            .inner()
            .counters
            .get(key)
            .filter(|c| c.is_live(now_ms))
            .map(|c| c.value.clone())
            .unwrap_or_default())
    }

    async fn purge_expired(&self) -> Result<u64, StateError> {
        let now = unix_now();
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        let mut purged = retain_count(&mut inner.history, |h| h.is_live(now_ms));
        purged += retain_count(&mut inner.pending, |(_, p)| p.expires_at + PENDING_KEEP_SECS > now);
        purged += retain_count(&mut inner.updates, |u| u.is_live(now_ms));
        purged += retain_count(&mut inner.rates, |r| r.is_live(now_ms));
        purged += retain_count(&mut inner.locks, |l| l.is_live(now_ms));
        purged += retain_count(&mut inner.values, |v| v.is_live(now_ms));
        purged += retain_count(&mut inner.counters, |c| c.is_live(now_ms));
        Ok(purged)
    }

    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        self.inner().outbox.insert(entry.id.clone(), entry.clone());
        Ok(())
    }

    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        let mut due: Vec<&mut OutboxEntry> =
            inner.outbox.values_mut().filter(|e| e.due_ms <= now_ms).collect();
        due.sort_by_key(|e| (e.created_ms, e.id.clone()));
        Ok(due
            .into_iter()
            .take(limit)
            .map(|entry| {
                entry.due_ms = now_ms + ttl_millis(lease);
                entry.clone()
            })
            .collect())
    }

    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        Ok(self.inner().outbox.remove(id).is_some())
    }
}
