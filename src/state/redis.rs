//! The Redis [`StateStore`] (`redis://HOST:PORT[/DB][?prefix=NAME]`): state
//! shared by several bot instances, kept under keys that expire on their own
//! and start with a prefix (`mallbot:` unless the URL names another, so that
//! several deployments can share one Redis).
//!
//! Keys (after the prefix): `history:<conversation>` (JSON, expires after its
//! TTL); `pending:<token>` (hash: `json`, `status`, `expires_at`,
//! `claimed_until`; kept [`PENDING_KEEP_SECS`] past its expiry);
//! `pending_open` (sorted set of open tokens by expiry, for counting);
//! `pending_by:<chat>:<user>` (sorted set of that shopper's tokens by expiry);
//! `update:<id>`, `rate:<user>|<window ms>`, `lock:<key>`, `value:<key>`
//! (expiring strings);
//! `audit` (list, newest first, capped at 10 000); `outbox:<id>` (JSON,
//! expiring after [`OUTBOX_KEEP`]) with `outbox_due` (sorted set of ids by
//! the unix ms they are due). Purging only trims
//! `pending_open`: everything else expires through Redis's own TTLs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::Notify;

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};

use super::{
    AuditEntry, ClaimOutcome, OUTBOX_KEEP, OutboxEntry, PENDING_KEEP_SECS, PendingStatus, StateError,
    StateStore, StoredPending, lease_secs, ttl_millis, unix_now, unix_now_ms,
};
use crate::llm::ChatMessage;

/// The prefix of every key [`RedisStore::connect`] uses.
pub const DEFAULT_PREFIX: &str = "mallbot:";

/// How many audit entries are kept.
const AUDIT_CAP: isize = 10_000;
/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a command may wait for its answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Stores a pending action (hash `json`, `status`, `expires_at`, `claimed_until`)
/// and keeps the open-actions and per-user indexes in step.
/// KEYS: record, open index, user index. ARGV: token, json, status, expires_at,
/// claimed_until, keep_until, now.
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
        redis.call('EXPIREAT', KEYS[1], keep_until)
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
            redis.call('EXPIREAT', KEYS[3], keep_until)
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

/// Takes a lock that is free or already the owner's. KEYS: lock. ARGV: owner, ttl ms.
static TRY_LOCK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] then
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
        end
        if holder then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return 1
        ",
    )
});

/// Deletes a lock only if the owner holds it, and tells the instances
/// waiting for it. KEYS: lock. ARGV: owner, the release channel.
static UNLOCK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        if redis.call('GET', KEYS[1]) == ARGV[1] then
            redis.call('DEL', KEYS[1])
            redis.call('PUBLISH', ARGV[2], KEYS[1])
            return 1
        end
        return 0
        ",
    )
});

/// Reads and deletes a value in one step. KEYS: value. Returns the value or nil.
static TAKE_VALUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local value = redis.call('GET', KEYS[1])
        if value then redis.call('DEL', KEYS[1]) end
        return value
        ",
    )
});

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

/// The state in a Redis server, shared by every instance that uses the same prefix.
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    /// `redis://HOST:PORT/DB`, without credentials.
    place: String,
    prefix: String,
    /// Lock releases heard on the release channel, for [`StateStore::wait_unlock`].
    releases: Arc<Releases>,
}

/// Waiters for lock releases, woken by a subscription to the release channel
/// (`<prefix>released`, one message per released lock key).
#[derive(Default)]
struct Releases {
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// The subscription is up: waiting for a message is enough.
    listening: AtomicBool,
}

impl Releases {
    fn waiter(&self, key: &str) -> Arc<Notify> {
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner).entry(key.to_owned()).or_default().clone()
    }

    fn released(&self, key: &str) {
        if let Some(notify) = self.waiters.lock().unwrap_or_else(PoisonError::into_inner).remove(key) {
            notify.notify_waiters();
        }
    }

    /// Listens on `channel` for as long as the store lives, reconnecting after a failure.
    fn listen(self: Arc<Self>, client: redis::Client, channel: String) {
        let weak = Arc::downgrade(&self);
        drop(self);
        tokio::spawn(async move {
            loop {
                match client.get_async_pubsub().await {
                    Ok(mut pubsub) => match pubsub.subscribe(&channel).await {
                        Ok(()) => {
                            let mut messages = pubsub.into_on_message();
                            let Some(releases) = weak.upgrade() else { return };
                            releases.listening.store(true, Ordering::SeqCst);
                            drop(releases);
                            while let Some(message) = messages.next().await {
                                let Some(releases) = weak.upgrade() else { return };
                                if let Ok(key) = message.get_payload::<String>() {
                                    releases.released(&key);
                                }
                            }
                            tracing::warn!("redis release subscription ended; reconnecting");
                        }
                        Err(e) => tracing::warn!(error = %e, "cannot subscribe to redis lock releases"),
                    },
                    Err(e) => tracing::warn!(error = %e, "cannot open the redis release subscription"),
                }
                let Some(releases) = weak.upgrade() else { return };
                releases.listening.store(false, Ordering::SeqCst);
                drop(releases);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("place", &self.place).field("prefix", &self.prefix).finish()
    }
}

impl RedisStore {
    /// Connects to the server `url` names, with keys under the URL's
    /// `prefix` parameter (`redis://HOST:PORT/DB?prefix=shop1`), else under
    /// [`DEFAULT_PREFIX`].
    pub async fn connect(url: &str) -> Result<RedisStore, StateError> {
        let (server, prefix) = split_prefix(url)?;
        Self::connect_with_prefix(&server, &prefix).await
    }

    /// Connects to the server `url` names, with every key under `prefix`
    /// (a `:` is added when missing). Fails within a few seconds when the
    /// server cannot be reached.
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<RedisStore, StateError> {
        let client = redis::Client::open(url).map_err(|e| {
            StateError::BadUrl(format!("`{}` is not a usable Redis URL: {e}", without_credentials(url)))
        })?;
        let subscriber = client.clone();
        let info = client.get_connection_info();
        let place = format!("redis://{}/{}", info.addr(), info.redis_settings().db());
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1);
        let conn =
            tokio::time::timeout(2 * CONNECT_TIMEOUT, ConnectionManager::new_with_config(client, config))
                .await
                .map_err(|_| {
                    StateError::Unavailable(format!(
                        "redis at {place}: no answer within {} s",
                        (2 * CONNECT_TIMEOUT).as_secs()
                    ))
                })?
                .map_err(|e| StateError::Unavailable(format!("redis at {place}: cannot connect: {e}")))?;
        let mut prefix = prefix.to_string();
        if !prefix.ends_with(':') {
            prefix.push(':');
        }
        let releases = Arc::new(Releases::default());
        releases.clone().listen(subscriber, format!("{prefix}released"));
        let store = RedisStore { conn, place, prefix, releases };
        store.health().await?;
        tracing::info!(place = %store.place, prefix = %store.prefix, "redis state store connected");
        Ok(store)
    }

    fn key(&self, kind: &str, id: impl std::fmt::Display) -> String {
        format!("{}{kind}:{id}", self.prefix)
    }

    fn release_channel(&self) -> String {
        format!("{}released", self.prefix)
    }

    fn outbox_index(&self) -> String {
        format!("{}outbox_due", self.prefix)
    }

    fn open_index(&self) -> String {
        format!("{}pending_open", self.prefix)
    }

    fn user_index(&self, chat_id: i64, user_id: i64) -> String {
        self.key("pending_by", format_args!("{chat_id}:{user_id}"))
    }

    fn failed(&self, e: RedisError) -> StateError {
        StateError::Unavailable(format!("redis at {}: {e}", self.place))
    }

    fn corrupt(&self, what: &str, e: impl std::fmt::Display) -> StateError {
        StateError::Corrupt(format!("redis at {}: {what}: {e}", self.place))
    }

    /// Runs one command.
    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StateError> {
        let mut conn = self.conn.clone();
        cmd.query_async(&mut conn).await.map_err(|e| self.failed(e))
    }

    /// Runs a script.
    async fn invoke<T: redis::FromRedisValue>(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<T, StateError> {
        let mut conn = self.conn.clone();
        invocation.invoke_async(&mut conn).await.map_err(|e| self.failed(e))
    }

    /// Reads a pending record back from its hash fields (`None` if it is gone).
    fn pending_from_fields(
        &self,
        fields: HashMap<String, String>,
    ) -> Result<Option<StoredPending>, StateError> {
        let Some(json) = fields.get("json") else { return Ok(None) };
        let mut pending: StoredPending =
            serde_json::from_str(json).map_err(|e| self.corrupt("pending action", e))?;
        let status = fields.get("status").map(String::as_str).unwrap_or_default();
        pending.status = PendingStatus::from_name(status)
            .ok_or_else(|| self.corrupt("pending action", format_args!("unknown status `{status}`")))?;
        let claimed_until = fields.get("claimed_until").map(String::as_str).unwrap_or("0");
        pending.claimed_until = claimed_until.parse().map_err(|e| self.corrupt("pending action", e))?;
        Ok(Some(pending))
    }
}

/// Splits the `prefix` parameter off a Redis URL: the URL the server is
/// reached at (its other parameters kept) and the key prefix
/// ([`DEFAULT_PREFIX`] when none is given).
pub fn split_prefix(url: &str) -> Result<(String, String), StateError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_owned(), DEFAULT_PREFIX.to_owned()));
    };
    let mut prefix = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("prefix", value)) => prefix = Some(value),
            _ => kept.push(pair),
        }
    }
    let server = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    let Some(prefix) = prefix else { return Ok((server, DEFAULT_PREFIX.to_owned())) };
    let valid = prefix.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    if prefix.is_empty() || !valid {
        return Err(StateError::BadUrl(format!(
            "`prefix={prefix}` in state.url: the key prefix must be letters, digits, `-`, `_`, `.` or `:` \
             (e.g. redis://127.0.0.1:6379/0?prefix=shop1)"
        )));
    }
    Ok((server, prefix.to_owned()))
}

/// The URL with any user name and password replaced by `***`.
fn without_credentials(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            format!("{}***{}", &url[..scheme_end + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

#[async_trait]
impl StateStore for RedisStore {
    fn describe(&self) -> String {
        format!("{} (keys under {})", self.place, self.prefix)
    }

    async fn health(&self) -> Result<(), StateError> {
        let answer: String = self.query(&redis::cmd("PING")).await?;
        if answer == "PONG" {
            Ok(())
        } else {
            Err(StateError::Unavailable(format!("redis at {}: PING answered `{answer}`", self.place)))
        }
    }

    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let stored: Option<String> =
            self.query(redis::cmd("GET").arg(self.key("history", conversation))).await?;
        match stored {
            Some(json) => serde_json::from_str(&json).map_err(|e| self.corrupt("history", e)),
            None => Ok(Vec::new()),
        }
    }

    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        let json = serde_json::to_string(&messages)
            .map_err(|e| StateError::Corrupt(format!("history cannot be encoded: {e}")))?;
        let key = self.key("history", conversation);
        self.query(redis::cmd("SET").arg(key).arg(json).arg("PX").arg(ttl_millis(ttl))).await
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        self.query(redis::cmd("DEL").arg(self.key("history", conversation))).await
    }

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

    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let set: Option<String> = self
            .query(
                redis::cmd("SET")
                    .arg(self.key("update", update_id))
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(ttl_millis(ttl)),
            )
            .await?;
        Ok(set.is_some())
    }

    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        let window_ms = ttl_millis(window);
        let key = self.key("rate", format_args!("{user}|{window_ms}"));
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("SET")
            .arg(&key)
            .arg(0)
            .arg("NX")
            .arg("PX")
            .arg(window_ms)
            .ignore()
            .cmd("INCR")
            .arg(&key);
        let mut conn = self.conn.clone();
        let (count,): (i64,) = pipe.query_async(&mut conn).await.map_err(|e| self.failed(e))?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        let mut invocation = TRY_LOCK.prepare_invoke();
        invocation.key(self.key("lock", key)).arg(owner).arg(ttl_millis(ttl));
        Ok(self.invoke::<i64>(&invocation).await? == 1)
    }

    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        let mut invocation = UNLOCK.prepare_invoke();
        invocation.key(self.key("lock", key)).arg(owner).arg(self.release_channel());
        self.invoke::<i64>(&invocation).await.map(drop)
    }

    async fn wait_unlock(&self, key: &str, max: Duration) {
        if !self.releases.listening.load(Ordering::SeqCst) {
            tokio::time::sleep(max.min(Duration::from_millis(200))).await;
            return;
        }
        let lock = self.key("lock", key);
        let notify = self.releases.waiter(&lock);
        let released = notify.notified();
        let mut released = std::pin::pin!(released);
        released.as_mut().enable();
        // Released between the caller's attempt and now: no message will come.
        let held: Result<bool, StateError> = self.query(redis::cmd("EXISTS").arg(&lock)).await;
        if matches!(held, Ok(false)) {
            return;
        }
        let _ = tokio::time::timeout(max, released).await;
    }

    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        self.query(redis::cmd("SET").arg(self.key("value", key)).arg(value).arg("PX").arg(ttl_millis(ttl)))
            .await
    }

    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        self.query(redis::cmd("GET").arg(self.key("value", key))).await
    }

    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let mut invocation = TAKE_VALUE.prepare_invoke();
        invocation.key(self.key("value", key));
        self.invoke(&invocation).await
    }

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

    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        let mut pipe = redis::pipe();
        pipe.atomic();
        let mut keys: Vec<String> = Vec::new();
        for (key, field, delta) in deltas {
            let key = self.key("count", key);
            pipe.cmd("HINCRBY").arg(&key).arg(*field).arg(*delta).ignore();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for key in keys {
            pipe.cmd("PEXPIRE").arg(key).arg(ttl_millis(ttl)).ignore();
        }
        let mut conn = self.conn.clone();
        pipe.query_async::<()>(&mut conn).await.map_err(|e| self.failed(e))
    }

    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError> {
        self.query(redis::cmd("HGETALL").arg(self.key("count", key))).await
    }

    async fn purge_expired(&self) -> Result<u64, StateError> {
        let now = unix_now();
        self.query(redis::cmd("ZREMRANGEBYSCORE").arg(self.open_index()).arg("-inf").arg(now)).await
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn split(url: &str) -> (String, String) {
        split_prefix(url).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    #[test]
    fn without_a_prefix_parameter_keys_go_under_the_default_prefix() {
        assert_eq!(split("redis://127.0.0.1:6379"), ("redis://127.0.0.1:6379".into(), "mallbot:".into()));
        assert_eq!(split("redis://h:6379/2?protocol=resp3").1, "mallbot:");
    }

    #[test]
    fn the_prefix_parameter_is_taken_off_the_server_url() {
        assert_eq!(
            split("redis://127.0.0.1:6379/0?prefix=shop1"),
            ("redis://127.0.0.1:6379/0".into(), "shop1".into())
        );
        assert_eq!(
            split("rediss://:pw@h:6380/1?protocol=resp3&prefix=shop:eu&foo=bar"),
            ("rediss://:pw@h:6380/1?protocol=resp3&foo=bar".into(), "shop:eu".into())
        );
    }

    #[test]
    fn an_empty_or_odd_prefix_is_refused_without_the_password() {
        for url in
            ["redis://:secret@h/0?prefix=", "redis://:secret@h/0?prefix=a%20b", "redis://:secret@h?prefix=x*"]
        {
            let Err(StateError::BadUrl(message)) = split_prefix(url) else { panic!("{url} accepted") };
            assert!(message.contains("prefix") && !message.contains("secret"), "{message}");
        }
    }
}
