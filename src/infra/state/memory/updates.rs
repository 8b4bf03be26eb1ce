//! [`UpdateLog`] for the in-memory store ([`MemoryStore`]): handled update ids.

use std::time::Duration;

use async_trait::async_trait;

use super::{Expiring, MemoryStore};
use crate::infra::state::{StateError, UpdateLog, unix_now_ms};

#[async_trait]
impl UpdateLog for MemoryStore {
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let now_ms = unix_now_ms();
        let mut inner = self.inner();
        if inner.updates.get(&update_id).is_some_and(|seen| seen.is_live(now_ms)) {
            return Ok(false);
        }
        inner.updates.insert(update_id, Expiring::new((), ttl));
        Ok(true)
    }
}
