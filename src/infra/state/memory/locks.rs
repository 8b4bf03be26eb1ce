//! [`LockStore`] for the in-memory store ([`MemoryStore`]): locks.

use std::time::Duration;

use async_trait::async_trait;

use super::{Expiring, MemoryStore};
use crate::infra::state::{LockStore, StateError, unix_now_ms};

#[async_trait]
impl LockStore for MemoryStore {
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
}
