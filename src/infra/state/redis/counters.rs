//! [`CounterStore`] for the Redis store ([`RedisStore`]): rate-limit hits and shared counters.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;

use super::RedisStore;
use crate::infra::state::{CounterStore, StateError, ttl_millis};

#[async_trait]
impl CounterStore for RedisStore {
    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        let window_ms = ttl_millis(window);
        let key = self.key("rate", format_args!("{user}|{window_ms}"));
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("SET")
            .arg(&key)
            .arg(0)
            .arg("NX")
            .arg("PX")
            .arg(window_ms)
            .ignore()
            .cmd("INCR")
            .arg(&key);
        let mut conn = self.conn.clone();
        let (count,): (i64,) = pipe.query_async(&mut conn).await.map_err(|e| self.failed(e))?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        let mut pipe = redis::pipe();
        pipe.atomic();
        let mut keys: Vec<String> = Vec::new();
        for (key, field, delta) in deltas {
            let key = self.key("count", key);
            pipe.cmd("HINCRBY").arg(&key).arg(*field).arg(*delta).ignore();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for key in keys {
            pipe.cmd("PEXPIRE").arg(key).arg(ttl_millis(ttl)).ignore();
        }
        let mut conn = self.conn.clone();
        pipe.query_async::<()>(&mut conn).await.map_err(|e| self.failed(e))
    }

    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError> {
        self.query(redis::cmd("HGETALL").arg(self.key("count", key))).await
    }
}
