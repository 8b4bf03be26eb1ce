//! [`HistoryStore`] for the SQLite store ([`SqliteStore`]): conversation history.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::OptionalExtension;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::message::ChatMessage;
use crate::infra::state::{HistoryStore, StateError, ttl_millis, unix_now_ms};

#[async_trait]
impl HistoryStore for SqliteStore {
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let conversation = conversation.to_string();
        let stored: Option<String> = self
            .run(move |conn| {
                conn.row(
                    "SELECT messages FROM history WHERE conversation = ?1 AND expires_ms > ?2",
                    params![conversation, unix_now_ms()],
                    |row| row.get(0),
                )
                .optional()
            })
            .await?;
        match stored {
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| StateError::Corrupt(format!("sqlite {}: history: {e}", self.path))),
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
        let conversation = conversation.to_string();
        let expires_ms = unix_now_ms() + ttl_millis(ttl);
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO history (conversation, messages, expires_ms) VALUES (?1, ?2, ?3)",
                params![conversation, json, expires_ms],
            )
        })
        .await
        .map(drop)
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        let conversation = conversation.to_string();
        self.run(move |conn| conn.exec("DELETE FROM history WHERE conversation = ?1", [conversation]))
            .await
            .map(drop)
    }
}
