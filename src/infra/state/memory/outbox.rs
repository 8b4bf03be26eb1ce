//! [`OutboxStore`] for the in-memory store ([`MemoryStore`]): the outbox of answers not yet delivered.

use std::time::Duration;

use async_trait::async_trait;

use super::MemoryStore;
use crate::infra::state::{OutboxEntry, OutboxStore, StateError, ttl_millis, unix_now_ms};

#[async_trait]
impl OutboxStore for MemoryStore {
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
