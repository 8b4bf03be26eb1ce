//! [`PendingStore`] for the Redis store ([`RedisStore`]): pending confirm/critical actions.

use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;

use super::RedisStore;
use crate::infra::state::{
    ClaimOutcome, PENDING_KEEP_SECS, PendingStatus, PendingStore, StateError, StoredPending, lease_secs,
    unix_now,
};

/// Stores a pending action (hash `json`, `status`, `expires_at`, `claimed_until`)
/// and keeps the open-actions and per-user indexes in step.
/// KEYS: record, open index, user index. ARGV: token, json, status, expires_at,
/// claimed_until, keep_until, now.
/// Times are the mall's clock (`services::clock`, which `MALLBOT_CLOCK` sets);
/// Redis's TTLs run on the server's own, so a record is kept for `keep_until -
/// now` seconds, never until an instant of one clock read on the other.
static PUT_PENDING: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        redis.call('DEL', KEYS[1])
        local keep_until, now = tonumber(ARGV[6]), tonumber(ARGV[7])
        if keep_until <= now then
            redis.call('ZREM', KEYS[2], ARGV[1])
            return 0
        end
        redis.call('HSET', KEYS[1], 'json', ARGV[2], 'status', ARGV[3],
                   'expires_at', ARGV[4], 'claimed_until', ARGV[5])
        redis.call('EXPIRE', KEYS[1], keep_until - now)
        if ARGV[3] == 'waiting' or ARGV[3] == 'awaiting_code' then
            redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
        else
            redis.call('ZREM', KEYS[2], ARGV[1])
        end
        redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
        -- tokens whose records are gone (expired longer ago than the keep period)
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - (keep_until - tonumber(ARGV[4])))
        local ttl = redis.call('TTL', KEYS[3])
        if ttl < 0 or now + ttl < keep_until then
            redis.call('EXPIRE', KEYS[3], keep_until - now)
        end
        return 1
        ",
    )
});

/// Claims a pending action, or says why not: `claimed` + json, `in_progress`,
/// `already_done` or `expired`.
/// KEYS: record, open index. ARGV: token, now, claimed_until.
static CLAIM_PENDING: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local f = redis.call('HMGET', KEYS[1], 'status', 'expires_at', 'claimed_until')
        local status = f[1]
        if not status then return {'expired'} end
        local now = tonumber(ARGV[2])
        if status == 'done' then return {'already_done'} end
        if status == 'claimed' and tonumber(f[3]) >= now then return {'in_progress'} end
        if tonumber(f[2]) <= now then return {'expired'} end
        redis.call('HSET', KEYS[1], 'status', 'claimed', 'claimed_until', ARGV[3])
        redis.call('ZREM', KEYS[2], ARGV[1])
        return {'claimed', redis.call('HGET', KEYS[1], 'json')}
        ",
    )
});

/// Sets the status of an existing pending action and its place in the open index.
/// KEYS: record, open index. ARGV: token, status.
static SET_STATUS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local expires_at = redis.call('HGET', KEYS[1], 'expires_at')
        if not expires_at then return 0 end
        redis.call('HSET', KEYS[1], 'status', ARGV[2])
        if ARGV[2] == 'waiting' or ARGV[2] == 'awaiting_code' then
            redis.call('ZADD', KEYS[2], expires_at, ARGV[1])
        else
            redis.call('ZREM', KEYS[2], ARGV[1])
        end
        return 1
        ",
    )
});

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
