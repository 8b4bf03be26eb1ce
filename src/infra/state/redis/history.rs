//! [`HistoryStore`] for the Redis store ([`RedisStore`]): conversation history.

use std::time::Duration;

use async_trait::async_trait;

use super::RedisStore;
use crate::infra::state::message::ChatMessage;
use crate::infra::state::{HistoryStore, StateError, ttl_millis};

#[async_trait]
impl HistoryStore for RedisStore {
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let stored: Option<String> =
            self.query(redis::cmd("GET").arg(self.key("history", conversation))).await?;
        match stored {
            Some(json) => serde_json::from_str(&json).map_err(|e| self.corrupt("history", e)),
            None => Ok(Vec::new()),
        }
    }

    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        let json = serde_json::to_string(&messages)
            .map_err(|e| StateError::Corrupt(format!("history cannot be encoded: {e}")))?;
        let key = self.key("history", conversation);
        self.query(redis::cmd("SET").arg(key).arg(json).arg("PX").arg(ttl_millis(ttl))).await
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        self.query(redis::cmd("DEL").arg(self.key("history", conversation))).await
    }
}
