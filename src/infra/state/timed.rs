//! [`TimedStore`]: a [`StateStore`] that records how long every operation of
//! the store it wraps takes (`mallbot_state_op_seconds{op}`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::{
    AuditEntry, AuditLog, ClaimOutcome, CounterStore, HistoryStore, Housekeeping, LockStore, OutboxEntry,
    OutboxStore, PendingStatus, PendingStore, StateError, StateStore, StoredPending, UpdateLog, ValueStore,
};
use crate::infra::state::message::ChatMessage;

/// Times each call of the wrapped store.
pub(crate) struct TimedStore(pub Arc<dyn StateStore>);

/// Runs `call`, recording its duration under `op`.
async fn timed<T>(op: &'static str, call: impl Future<Output = T>) -> T {
    let started = Instant::now();
    let out = call.await;
    metrics::histogram!(crate::infra::ops::STATE_SECONDS, "op" => op).record(started.elapsed().as_secs_f64());
    out
}

#[async_trait]
impl Housekeeping for TimedStore {
    fn describe(&self) -> String {
        self.0.describe()
    }
    async fn health(&self) -> Result<(), StateError> {
        timed("health", self.0.health()).await
    }
    async fn purge_expired(&self) -> Result<u64, StateError> {
        timed("purge_expired", self.0.purge_expired()).await
    }
}

#[async_trait]
impl HistoryStore for TimedStore {
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        timed("load_history", self.0.load_history(conversation)).await
    }
    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        timed("save_history", self.0.save_history(conversation, messages, ttl)).await
    }
    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        timed("clear_history", self.0.clear_history(conversation)).await
    }
}

#[async_trait]
impl PendingStore for TimedStore {
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        timed("put_pending", self.0.put_pending(pending)).await
    }
    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        timed("get_pending", self.0.get_pending(token)).await
    }
    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        timed("claim_pending", self.0.claim_pending(token, lease)).await
    }
    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        timed("set_pending_status", self.0.set_pending_status(token, status)).await
    }
    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        timed("pending_for", self.0.pending_for(chat_id, user_id, status)).await
    }
    async fn count_pending(&self) -> Result<u64, StateError> {
        timed("count_pending", self.0.count_pending()).await
    }
}

#[async_trait]
impl UpdateLog for TimedStore {
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        timed("first_delivery", self.0.first_delivery(update_id, ttl)).await
    }
}

#[async_trait]
impl CounterStore for TimedStore {
    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        timed("rate_hit", self.0.rate_hit(user, window)).await
    }
    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        timed("add_counts", self.0.add_counts(deltas, ttl)).await
    }
    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError> {
        timed("counts", self.0.counts(key)).await
    }
}

#[async_trait]
impl LockStore for TimedStore {
    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        timed("try_lock", self.0.try_lock(key, owner, ttl)).await
    }
    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        timed("unlock", self.0.unlock(key, owner)).await
    }
    async fn wait_unlock(&self, key: &str, max: Duration) {
        self.0.wait_unlock(key, max).await
    }
}

#[async_trait]
impl ValueStore for TimedStore {
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        timed("put_value", self.0.put_value(key, value, ttl)).await
    }
    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        timed("get_value", self.0.get_value(key)).await
    }
    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        timed("take_value", self.0.take_value(key)).await
    }
}

#[async_trait]
impl AuditLog for TimedStore {
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        timed("audit", self.0.audit(entry)).await
    }
    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        timed("recent_audit", self.0.recent_audit(limit)).await
    }
}

#[async_trait]
impl OutboxStore for TimedStore {
    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        timed("outbox_put", self.0.outbox_put(entry)).await
    }
    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        timed("outbox_claim", self.0.outbox_claim(lease, limit)).await
    }
    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        timed("outbox_remove", self.0.outbox_remove(id)).await
    }
}
