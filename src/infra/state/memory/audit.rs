//! [`AuditLog`] for the in-memory store ([`MemoryStore`]): the audit log.

use async_trait::async_trait;

use super::MemoryStore;
use crate::infra::state::{AuditEntry, AuditLog, StateError};

/// How many audit entries the memory store keeps.
const AUDIT_CAP: usize = 10_000;

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
