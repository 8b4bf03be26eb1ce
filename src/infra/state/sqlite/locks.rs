//! [`LockStore`] for the SQLite store ([`SqliteStore`]): locks.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{LockStore, StateError, ttl_millis, unix_now_ms};

#[async_trait]
impl LockStore for SqliteStore {
    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        let (key, owner) = (key.to_string(), owner.to_string());
        let now_ms = unix_now_ms();
        let expires_ms = now_ms + ttl_millis(ttl);
        let changed = self
            .run(move |conn| {
                conn.exec(
                    "INSERT INTO locks (key, owner, expires_ms) VALUES (?1, ?2, ?3)
                     ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms
                     WHERE locks.owner = excluded.owner OR locks.expires_ms <= ?4",
                    params![key, owner, expires_ms, now_ms],
                )
            })
            .await?;
        Ok(changed == 1)
    }

    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        let (key, owner) = (key.to_string(), owner.to_string());
        self.run(move |conn| conn.exec("DELETE FROM locks WHERE key = ?1 AND owner = ?2", [key, owner]))
            .await
            .map(drop)
    }
}
