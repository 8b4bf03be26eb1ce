//! RedisStore: pending confirm/critical actions.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;

use super::{CLAIM_PENDING, PUT_PENDING, RedisStore, SET_STATUS};
use crate::state::{
    ClaimOutcome, PENDING_KEEP_SECS, PendingStatus, PendingStore, StateError, StoredPending, lease_secs,
    unix_now,
};

#[async_trait]
impl PendingStore for RedisStore {
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        let json = serde_json::to_string(pending)
            .map_err(|e| StateError::Corrupt(format!("pending action cannot be encoded: {e}")))?;
        let mut invocation = PUT_PENDING.prepare_invoke();
        invocation
            .key(self.key("pending", &pending.token))
            .key(self.open_index())
            .key(self.user_index(pending.chat_id, pending.user_id))
            .arg(&pending.token)
            .arg(json)
            .arg(pending.status.as_str())
            .arg(pending.expires_at)
            .arg(pending.claimed_until)
            .arg(pending.expires_at.saturating_add(PENDING_KEEP_SECS))
            .arg(unix_now());
        self.invoke::<i64>(&invocation).await.map(drop)
    }

    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        let fields: HashMap<String, String> =
            self.query(redis::cmd("HGETALL").arg(self.key("pending", token))).await?;
        let now = unix_now();
        Ok(self.pending_from_fields(fields)?.filter(|p| p.expires_at > now))
    }

    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        let now = unix_now();
        let mut invocation = CLAIM_PENDING.prepare_invoke();
        invocation
            .key(self.key("pending", token))
            .key(self.open_index())
            .arg(token)
            .arg(now)
            .arg(now + lease_secs(lease));
        let answer: Vec<String> = self.invoke(&invocation).await?;
        match answer.first().map(String::as_str) {
            Some("claimed") => {
                let json = answer.get(1).map(String::as_str).unwrap_or_default();
                let mut pending: StoredPending =
                    serde_json::from_str(json).map_err(|e| self.corrupt("pending action", e))?;
                pending.status = PendingStatus::Claimed;
                pending.claimed_until = now + lease_secs(lease);
                Ok(ClaimOutcome::Claimed(pending))
            }
            Some("in_progress") => Ok(ClaimOutcome::InProgress),
            Some("already_done") => Ok(ClaimOutcome::AlreadyDone),
            Some("expired") => Ok(ClaimOutcome::Expired),
            other => Err(self.corrupt("claim", format_args!("unexpected answer {other:?}"))),
        }
    }

    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        let mut invocation = SET_STATUS.prepare_invoke();
        invocation.key(self.key("pending", token)).key(self.open_index()).arg(token).arg(status.as_str());
        self.invoke::<i64>(&invocation).await.map(drop)
    }

    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        let now = unix_now();
        let tokens: Vec<String> = self
            .query(
                redis::cmd("ZREVRANGEBYSCORE")
                    .arg(self.user_index(chat_id, user_id))
                    .arg("+inf")
                    .arg(format!("({now}")),
            )
            .await?;
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for token in &tokens {
            pipe.cmd("HGETALL").arg(self.key("pending", token));
        }
        let mut conn = self.conn.clone();
        let records: Vec<HashMap<String, String>> =
            pipe.query_async(&mut conn).await.map_err(|e| self.failed(e))?;
        let mut found = Vec::new();
        for fields in records {
            found.extend(self.pending_from_fields(fields)?.filter(|p| {
                p.chat_id == chat_id && p.user_id == user_id && p.status == status && p.expires_at > now
            }));
        }
        Ok(found)
    }

    async fn count_pending(&self) -> Result<u64, StateError> {
        let now = unix_now();
        self.query(redis::cmd("ZCOUNT").arg(self.open_index()).arg(format!("({now}")).arg("+inf")).await
    }
}
