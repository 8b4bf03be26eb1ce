//! [`PendingStore`] for the in-memory store ([`MemoryStore`]): pending confirm/critical actions.

use std::time::Duration;

use async_trait::async_trait;

use super::MemoryStore;
use crate::infra::state::{
    ClaimOutcome, PendingStatus, PendingStore, StateError, StoredPending, lease_secs, unix_now,
};

/// Claims `pending` if it can be claimed at `now`, or says why not.
fn claim_in_place(pending: &mut StoredPending, now: i64, lease: Duration) -> ClaimOutcome {
    match pending.status {
        PendingStatus::Done => ClaimOutcome::AlreadyDone,
        PendingStatus::Claimed if pending.claimed_until >= now => ClaimOutcome::InProgress,
        _ if pending.expires_at <= now => ClaimOutcome::Expired,
        _ => {
            pending.status = PendingStatus::Claimed;
            pending.claimed_until = now + lease_secs(lease);
            ClaimOutcome::Claimed(pending.clone())
        }
    }
}

#[async_trait]
impl PendingStore for MemoryStore {
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        let mut inner = self.inner();
        inner.next_seq += 1;
        let seq = inner.next_seq;
        inner.pending.insert(pending.token.clone(), (seq, pending.clone()));
        Ok(())
    }

    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        let now = unix_now();
        Ok(self.inner().pending.get(token).map(|(_, p)| p).filter(|p| p.expires_at > now).cloned())
    }

    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        let mut inner = self.inner();
        Ok(match inner.pending.get_mut(token) {
            Some((_, pending)) => claim_in_place(pending, unix_now(), lease),
            None => ClaimOutcome::Expired,
        })
    }

    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        if let Some((_, pending)) = self.inner().pending.get_mut(token) {
            pending.status = status;
        }
        Ok(())
    }

    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        let now = unix_now();
        let inner = self.inner();
        let mut found: Vec<&(u64, StoredPending)> = inner
            .pending
            .values()
            .filter(|(_, p)| {
                p.chat_id == chat_id && p.user_id == user_id && p.status == status && p.expires_at > now
            })
            .collect();
        found.sort_by_key(|(seq, p)| std::cmp::Reverse((p.expires_at, *seq)));
        Ok(found.into_iter().map(|(_, p)| p.clone()).collect())
    }

    async fn count_pending(&self) -> Result<u64, StateError> {
        let now = unix_now();
        let inner = self.inner();
        Ok(inner.pending.values().filter(|(_, p)| p.status.is_open() && p.expires_at > now).count() as u64)
    }
}
