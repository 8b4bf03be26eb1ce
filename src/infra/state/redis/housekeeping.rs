//! [`Housekeeping`] for the Redis store ([`RedisStore`]): what the store is, whether it answers, and purging what expired.

use async_trait::async_trait;

use super::RedisStore;
use crate::infra::state::{Housekeeping, StateError, unix_now};

#[async_trait]
impl Housekeeping for RedisStore {
    fn describe(&self) -> String {
        format!("{} (keys under {})", self.place, self.prefix)
    }

    async fn health(&self) -> Result<(), StateError> {
        let answer: String = self.query(&redis::cmd("PING")).await?;
        if answer == "PONG" {
            Ok(())
        } else {
            Err(StateError::Unavailable(format!("redis at {}: PING answered `{answer}`", self.place)))
        }
    }

    async fn purge_expired(&self) -> Result<u64, StateError> {
        let now = unix_now();
        self.query(redis::cmd("ZREMRANGEBYSCORE").arg(self.open_index()).arg("-inf").arg(now)).await
    }
}
