//! [`AuditLog`] for the SQLite store ([`SqliteStore`]): the audit log.

use async_trait::async_trait;
use rusqlite::Row;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{AuditEntry, AuditLog, StateError};

fn audit_from_row(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        at: row.get(0)?,
        user_id: row.get(1)?,
        chat_id: row.get(2)?,
        tool: row.get(3)?,
        arguments: row.get(4)?,
        decision: row.get(5)?,
        result: row.get(6)?,
    })
}

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
