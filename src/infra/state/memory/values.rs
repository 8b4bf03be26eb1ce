//! [`ValueStore`] for the in-memory store ([`MemoryStore`]): short-lived values.

use std::time::Duration;

use async_trait::async_trait;

use super::{Expiring, MemoryStore};
use crate::infra::state::{StateError, ValueStore, unix_now_ms};

#[async_trait]
impl ValueStore for MemoryStore {
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
}
