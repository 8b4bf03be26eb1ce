//! [`Housekeeping`] for the SQLite store ([`SqliteStore`]): what the store is, whether it answers, and purging what expired.

use async_trait::async_trait;
use rusqlite::Connection;

use super::{Cached, SqliteStore};
use crate::infra::state::{Housekeeping, PENDING_KEEP_SECS, StateError, unix_now, unix_now_ms};

/// Deletes everything expired; returns how many rows went.
fn purge_blocking(conn: &mut Connection, now: i64, now_ms: i64) -> rusqlite::Result<u64> {
    let mut purged = conn.execute("DELETE FROM pending WHERE expires_at <= ?1", [now - PENDING_KEEP_SECS])?;
    for sql in [
        "DELETE FROM history WHERE expires_ms <= ?1",
        "DELETE FROM updates WHERE expires_ms <= ?1",
        "DELETE FROM rate_counters WHERE window_ends_ms <= ?1",
        "DELETE FROM locks WHERE expires_ms <= ?1",
        "DELETE FROM kv_values WHERE expires_ms <= ?1",
        "DELETE FROM counters WHERE key IN (SELECT key FROM counters WHERE field = '' AND expires_ms <= ?1)",
        "DELETE FROM counters WHERE expires_ms <= ?1
           AND key NOT IN (SELECT key FROM counters WHERE field = '')",
    ] {
        purged += conn.execute(sql, [now_ms])?;
    }
    Ok(purged as u64)
}

#[async_trait]
impl Housekeeping for SqliteStore {
    fn describe(&self) -> String {
        format!("sqlite:{}", self.path)
    }

    async fn health(&self) -> Result<(), StateError> {
        self.run(|conn| conn.row("SELECT 1", [], |row| row.get::<_, i64>(0))).await.map(drop)
    }

    async fn purge_expired(&self) -> Result<u64, StateError> {
        let purged = self.run(|conn| purge_blocking(conn, unix_now(), unix_now_ms())).await?;
        if purged > 0 {
            tracing::debug!(purged, path = %self.path, "expired state purged");
        }
        Ok(purged)
    }
}
