//! RedisStore: the outbox of answers not yet delivered.

use std::time::Duration;

use async_trait::async_trait;

use super::{OUTBOX_CLAIM, RedisStore};
use crate::state::{OUTBOX_KEEP, OutboxEntry, OutboxStore, StateError, ttl_millis, unix_now_ms};

#[async_trait]
impl OutboxStore for RedisStore {
    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        let json = serde_json::to_string(entry)
            .map_err(|e| StateError::Corrupt(format!("outbox entry cannot be encoded: {e}")))?;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("SET")
            .arg(self.key("outbox", &entry.id))
            .arg(json)
            .arg("PX")
            .arg(ttl_millis(OUTBOX_KEEP))
            .ignore()
            .cmd("ZADD")
            .arg(self.outbox_index())
            .arg(entry.due_ms)
            .arg(&entry.id)
            .ignore();
        let mut conn = self.conn.clone();
        pipe.query_async::<()>(&mut conn).await.map_err(|e| self.failed(e))
    }

    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        let now_ms = unix_now_ms();
        let due_again = now_ms + ttl_millis(lease);
        let mut invocation = OUTBOX_CLAIM.prepare_invoke();
        invocation.key(self.outbox_index()).arg(now_ms).arg(due_again).arg(limit).arg(self.key("outbox", ""));
        let stored: Vec<String> = self.invoke(&invocation).await?;
        let mut claimed = stored
            .iter()
            .map(|json| {
                let mut entry: OutboxEntry =
                    serde_json::from_str(json).map_err(|e| self.corrupt("outbox entry", e))?;
                entry.due_ms = due_again;
                Ok(entry)
            })
            .collect::<Result<Vec<_>, StateError>>()?;
        claimed.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        Ok(claimed)
    }

    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("DEL")
            .arg(self.key("outbox", id))
            .cmd("ZREM")
            .arg(self.outbox_index())
            .arg(id)
            .ignore();
        let mut conn = self.conn.clone();
        let (deleted,): (i64,) = pipe.query_async(&mut conn).await.map_err(|e| self.failed(e))?;
        Ok(deleted > 0)
    }
}
