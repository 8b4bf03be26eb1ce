//! [`OutboxStore`] for the Redis store ([`RedisStore`]): the outbox of answers not yet delivered.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;

use super::RedisStore;
use crate::infra::state::{OUTBOX_KEEP, OutboxEntry, OutboxStore, StateError, ttl_millis, unix_now_ms};

/// Claims the due outbox entries: each is due again after the lease, so
/// that one instance delivers it. KEYS: due index. ARGV: now ms, due-again
/// ms, limit, record key prefix. Returns the records' JSON.
static OUTBOX_CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
        local claimed = {}
        for _, id in ipairs(due) do
            local json = redis.call('GET', ARGV[4] .. id)
            if json then
                redis.call('ZADD', KEYS[1], ARGV[2], id)
                table.insert(claimed, json)
            else
                redis.call('ZREM', KEYS[1], id)
            end
        end
        return claimed
        ",
    )
});

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
