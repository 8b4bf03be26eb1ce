//! [`AuditLog`] for the Redis store ([`RedisStore`]): the audit log.

use async_trait::async_trait;

use super::RedisStore;
use crate::infra::state::{AuditEntry, AuditLog, StateError};

/// How many audit entries are kept.
const AUDIT_CAP: isize = 10_000;

#[async_trait]
impl AuditLog for RedisStore {
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        let json = serde_json::to_string(entry)
            .map_err(|e| StateError::Corrupt(format!("audit entry cannot be encoded: {e}")))?;
        let key = format!("{}audit", self.prefix);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("LPUSH")
            .arg(&key)
            .arg(json)
            .ignore()
            .cmd("LTRIM")
            .arg(&key)
            .arg(0)
            .arg(AUDIT_CAP - 1)
            .ignore();
        let mut conn = self.conn.clone();
        pipe.query_async::<()>(&mut conn).await.map_err(|e| self.failed(e))
    }

    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let last = isize::try_from(limit).unwrap_or(isize::MAX) - 1;
        let stored: Vec<String> =
            self.query(redis::cmd("LRANGE").arg(format!("{}audit", self.prefix)).arg(0).arg(last)).await?;
        stored
            .iter()
            .map(|json| serde_json::from_str(json).map_err(|e| self.corrupt("audit entry", e)))
            .collect()
    }
}
