//! SqliteStore: the audit log.

use async_trait::async_trait;
use rusqlite::params;

use super::{Cached, SqliteStore, audit_from_row};
use crate::state::{AuditEntry, AuditLog, StateError};

#[async_trait]
impl AuditLog for SqliteStore {
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        let e = entry.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT INTO audit (at, user_id, chat_id, tool, arguments, decision, result)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![e.at, e.user_id, e.chat_id, e.tool, e.arguments, e.decision, e.result],
            )
        })
        .await
        .map(drop)
    }

    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT at, user_id, chat_id, tool, arguments, decision, result
                 FROM audit ORDER BY id DESC LIMIT ?1",
            )?;
            let rows = stmt.query_map([limit], audit_from_row)?;
            rows.collect()
        })
        .await
    }
}
