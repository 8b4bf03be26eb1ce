//! [`ValueStore`] for the Redis store ([`RedisStore`]): short-lived values.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;

use super::RedisStore;
use crate::infra::state::{StateError, ValueStore, ttl_millis};

/// Reads and deletes a value in one step. KEYS: value. Returns the value or nil.
static TAKE_VALUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local value = redis.call('GET', KEYS[1])
        if value then redis.call('DEL', KEYS[1]) end
        return value
        ",
    )
});

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
