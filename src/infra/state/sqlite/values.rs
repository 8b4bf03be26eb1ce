//! [`ValueStore`] for the SQLite store ([`SqliteStore`]): short-lived values.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::OptionalExtension;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{StateError, ValueStore, ttl_millis, unix_now_ms};

#[async_trait]
impl ValueStore for SqliteStore {
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        let (key, value) = (key.to_string(), value.to_string());
        let expires_ms = unix_now_ms() + ttl_millis(ttl);
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO kv_values (key, value, expires_ms) VALUES (?1, ?2, ?3)",
                params![key, value, expires_ms],
            )
        })
        .await
        .map(drop)
    }

    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let key = key.to_string();
        self.run(move |conn| {
            conn.row(
                "SELECT value FROM kv_values WHERE key = ?1 AND expires_ms > ?2",
                params![key, unix_now_ms()],
                |row| row.get(0),
            )
            .optional()
        })
        .await
    }

    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let key = key.to_string();
        let taken: Option<(String, i64)> = self
            .run(move |conn| {
                conn.row("DELETE FROM kv_values WHERE key = ?1 RETURNING value, expires_ms", [key], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()
            })
            .await?;
        let now_ms = unix_now_ms();
        Ok(taken.filter(|(_, expires_ms)| *expires_ms > now_ms).map(|(value, _)| value))
    }
}
