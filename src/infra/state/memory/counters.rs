//! [`CounterStore`] for the in-memory store ([`MemoryStore`]): rate-limit hits and shared counters.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;

use super::{Expiring, MemoryStore};
use crate::infra::state::{CounterStore, StateError, ttl_millis, unix_now_ms};

#[async_trait]
impl CounterStore for MemoryStore {
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
}
