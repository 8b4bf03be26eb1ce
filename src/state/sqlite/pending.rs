//! SqliteStore: pending confirm/critical actions.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::OptionalExtension;
use rusqlite::params;

use super::{Cached, SqliteStore, claim_blocking, pending_from_row};
use crate::state::{
    ClaimOutcome, PendingStatus, PendingStore, StateError, StoredPending, lease_secs, unix_now,
};

#[async_trait]
impl PendingStore for SqliteStore {
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        let p = pending.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO pending
                 (token, user_id, chat_id, tool, payload, expires_at, status, claimed_until)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    p.token,
                    p.user_id,
                    p.chat_id,
                    p.tool,
                    p.payload,
                    p.expires_at,
                    p.status,
                    p.claimed_until
                ],
            )
        })
        .await
        .map(drop)
    }

    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        let token = token.to_string();
        self.run(move |conn| {
            conn.row(
                "SELECT token, user_id, chat_id, tool, payload, expires_at, status, claimed_until
                 FROM pending WHERE token = ?1 AND expires_at > ?2",
                params![token, unix_now()],
                pending_from_row,
            )
            .optional()
        })
        .await
    }

    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        let token = token.to_string();
        let lease = lease_secs(lease);
        self.run(move |conn| claim_blocking(conn, &token, unix_now(), lease)).await
    }

    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        let token = token.to_string();
        self.run(move |conn| {
            conn.exec("UPDATE pending SET status = ?2 WHERE token = ?1", params![token, status])
        })
        .await
        .map(drop)
    }

    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT token, user_id, chat_id, tool, payload, expires_at, status, claimed_until FROM pending
                 WHERE chat_id = ?1 AND user_id = ?2 AND status = ?3 AND expires_at > ?4
                 ORDER BY expires_at DESC, rowid DESC",
            )?;
            let rows = stmt.query_map(params![chat_id, user_id, status, unix_now()], pending_from_row)?;
            rows.collect()
        })
        .await
    }

    async fn count_pending(&self) -> Result<u64, StateError> {
        let count: i64 = self
            .run(|conn| {
                conn.row(
                    "SELECT COUNT(*) FROM pending
                     WHERE status IN ('waiting', 'awaiting_code') AND expires_at > ?1",
                    [unix_now()],
                    |row| row.get(0),
                )
            })
            .await?;
        Ok(count.max(0) as u64)
    }
}
