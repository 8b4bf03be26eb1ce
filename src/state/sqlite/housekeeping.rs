//! SqliteStore: what the store is, whether it answers, and purging what expired.

use async_trait::async_trait;

use super::{Cached, SqliteStore, purge_blocking};
use crate::state::{Housekeeping, StateError, unix_now, unix_now_ms};

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
