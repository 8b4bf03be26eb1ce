//! RedisStore: short-lived values.

use std::time::Duration;

use async_trait::async_trait;

use super::{RedisStore, TAKE_VALUE};
use crate::state::{StateError, ValueStore, ttl_millis};

#[async_trait]
impl ValueStore for RedisStore {
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        self.query(redis::cmd("SET").arg(self.key("value", key)).arg(value).arg("PX").arg(ttl_millis(ttl)))
            .await
    }

    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        self.query(redis::cmd("GET").arg(self.key("value", key))).await
    }

    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let mut invocation = TAKE_VALUE.prepare_invoke();
        invocation.key(self.key("value", key));
        self.invoke(&invocation).await
    }
}
