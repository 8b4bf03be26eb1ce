//! [`HistoryStore`] for the in-memory store ([`MemoryStore`]): conversation history.

use std::time::Duration;

use async_trait::async_trait;

use super::{Expiring, MemoryStore};
use crate::infra::state::message::ChatMessage;
use crate::infra::state::{HistoryStore, StateError, unix_now_ms};

#[async_trait]
impl HistoryStore for MemoryStore {
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let inner = self.inner();
        Ok(inner
            .history
            .get(conversation)
            .filter(|h| h.is_live(unix_now_ms()))
            .map(|h| h.value.clone())
            .unwrap_or_default())
    }

    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        self.inner().history.insert(conversation.to_string(), Expiring::new(messages, ttl));
        Ok(())
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        self.inner().history.remove(conversation);
        Ok(())
    }
}
