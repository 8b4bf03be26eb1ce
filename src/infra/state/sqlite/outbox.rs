//! [`OutboxStore`] for the SQLite store ([`SqliteStore`]): the outbox of answers not yet delivered.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{OutboxEntry, OutboxStore, StateError, ttl_millis, unix_now_ms};

/// Claims the due entries, oldest first: they are due again after the lease.
const OUTBOX_CLAIM_SQL: &str = "UPDATE outbox SET due_ms = ?2
    WHERE id IN (SELECT id FROM outbox WHERE due_ms <= ?1 ORDER BY created_ms, id LIMIT ?3)
    RETURNING id, chat_id, created_ms, due_ms, payload";

#[async_trait]
impl OutboxStore for SqliteStore {
    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        let e = entry.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO outbox (id, chat_id, created_ms, due_ms, payload) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![e.id, e.chat_id, e.created_ms, e.due_ms, e.payload],
            )
        })
        .await
        .map(drop)
    }

    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        let now_ms = unix_now_ms();
        let due_again = now_ms + ttl_millis(lease);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut claimed: Vec<OutboxEntry> = self
            .run(move |conn| {
                let mut stmt = conn.prepare_cached(OUTBOX_CLAIM_SQL)?;
                let rows = stmt.query_map(params![now_ms, due_again, limit], |row| {
                    Ok(OutboxEntry {
                        id: row.get(0)?,
                        chat_id: row.get(1)?,
                        created_ms: row.get(2)?,
                        due_ms: row.get(3)?,
                        payload: row.get(4)?,
                    })
                })?;
                rows.collect()
            })
            .await?;
        claimed.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        Ok(claimed)
    }

    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        let id = id.to_string();
        let removed = self.run(move |conn| conn.exec("DELETE FROM outbox WHERE id = ?1", [id])).await?;
        Ok(removed > 0)
    }
}
