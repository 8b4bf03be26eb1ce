//! MemoryStore: the audit log.

use async_trait::async_trait;

use super::{AUDIT_CAP, MemoryStore};
use crate::state::{AuditEntry, AuditLog, StateError};

#[async_trait]
impl AuditLog for MemoryStore {
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        let mut inner = self.inner();
        inner.audit.push_front(entry.clone());
        inner.audit.truncate(AUDIT_CAP);
        Ok(())
    }

    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        Ok(self.inner().audit.iter().take(limit).cloned().collect())
    }
}
