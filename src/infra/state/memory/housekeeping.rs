//! [`Housekeeping`] for the in-memory store ([`MemoryStore`]): what the store is, whether it answers, and purging what expired.

use std::collections::HashMap;

use async_trait::async_trait;

use super::MemoryStore;
use crate::infra::state::{Housekeeping, PENDING_KEEP_SECS, StateError, unix_now, unix_now_ms};

/// Removes the entries of `map` that `keep` rejects; returns how many went.
fn retain_count<K, V>(map: &mut HashMap<K, V>, keep: impl Fn(&V) -> bool) -> u64 {
    let before = map.len();
    map.retain(|_, v| keep(v));
    (before - map.len()) as u64
}

#[async_trait]
impl Housekeeping for MemoryStore {
    fn describe(&self) -> String {
        "memory".to_string()
    }

    async fn health(&self) -> Result<(), StateError> {
        Ok(())
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
}
