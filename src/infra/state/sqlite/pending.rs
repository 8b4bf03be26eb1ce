//! [`PendingStore`] for the SQLite store ([`SqliteStore`]): pending confirm/critical actions.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::OptionalExtension;
use rusqlite::params;
use rusqlite::{Connection, Row};

use super::{Cached, SqliteStore};
use crate::infra::state::{
    ClaimOutcome, PendingStatus, PendingStore, StateError, StoredPending, lease_secs, unix_now,
};

/// Claims the action (atomically: [`SqliteStore::run`]), or says why it cannot be claimed.
fn claim_blocking(
    conn: &mut Connection,
    token: &str,
    now: i64,
    lease: i64,
) -> rusqlite::Result<ClaimOutcome> {
    let claimed = conn
        .prepare_cached(CLAIM_SQL)?
        .query_row(params![token, now + lease, now], pending_from_row)
        .optional()?;
    let outcome = match claimed {
        Some(pending) => ClaimOutcome::Claimed(pending),
        None => {
            let found = conn
                .prepare_cached("SELECT status, expires_at, claimed_until FROM pending WHERE token = ?1")?
                .query_row([token], |row| {
                    Ok((row.get::<_, PendingStatus>(0)?, row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
                })
                .optional()?;
            refusal(found, now)
        }
    };
    Ok(outcome)
}

/// Takes a claimable action (open, or claimed past its lease) that has not expired.
const CLAIM_SQL: &str = "UPDATE pending SET status = 'claimed', claimed_until = ?2
    WHERE token = ?1 AND expires_at > ?3
      AND (status IN ('waiting', 'awaiting_code') OR (status = 'claimed' AND claimed_until < ?3))
    RETURNING token, user_id, chat_id, tool, payload, expires_at, status, claimed_until";

fn pending_from_row(row: &Row<'_>) -> rusqlite::Result<StoredPending> {
    Ok(StoredPending {
        token: row.get(0)?,
        user_id: row.get(1)?,
        chat_id: row.get(2)?,
        tool: row.get(3)?,
        payload: row.get(4)?,
        expires_at: row.get(5)?,
        status: row.get(6)?,
        claimed_until: row.get(7)?,
    })
}

/// Why an action that could not be claimed at `now` was refused.
fn refusal(found: Option<(PendingStatus, i64, i64)>, now: i64) -> ClaimOutcome {
    match found {
        None => ClaimOutcome::Expired,
        Some((PendingStatus::Done, _, _)) => ClaimOutcome::AlreadyDone,
        Some((PendingStatus::Claimed, _, claimed_until)) if claimed_until >= now => ClaimOutcome::InProgress,
        Some((_, expires_at, _)) if expires_at <= now => ClaimOutcome::Expired,
        Some(_) => ClaimOutcome::InProgress,
    }
}

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
