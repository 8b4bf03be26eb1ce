//! [`UpdateLog`] for the Redis store ([`RedisStore`]): handled update ids.

use std::time::Duration;

use async_trait::async_trait;

use super::RedisStore;
use crate::infra::state::{StateError, UpdateLog, ttl_millis};

#[async_trait]
impl UpdateLog for RedisStore {
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let set: Option<String> = self
            .query(
                redis::cmd("SET")
                    .arg(self.key("update", update_id))
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(ttl_millis(ttl)),
            )
            .await?;
        Ok(set.is_some())
    }
}
