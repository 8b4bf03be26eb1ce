//! [`UpdateLog`] for the SQLite store ([`SqliteStore`]): handled update ids.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{StateError, UpdateLog, ttl_millis, unix_now_ms};

#[async_trait]
impl UpdateLog for SqliteStore {
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let now_ms = unix_now_ms();
        let expires_ms = now_ms + ttl_millis(ttl);
        let changed = self
            .run(move |conn| {
                conn.exec(
                    "INSERT INTO updates (update_id, expires_ms) VALUES (?1, ?2)
                     ON CONFLICT (update_id) DO UPDATE SET expires_ms = excluded.expires_ms
                     WHERE updates.expires_ms <= ?3",
                    params![update_id, expires_ms, now_ms],
                )
            })
            .await?;
        Ok(changed == 1)
    }
}
