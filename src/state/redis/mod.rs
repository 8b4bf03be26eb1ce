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
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};
use tokio::sync::Notify;

use super::{Housekeeping, PendingStatus, StateError, StoredPending};

mod audit;
mod counters;
mod history;
mod housekeeping;
mod locks;
mod outbox;
mod pending;
mod updates;
mod values;

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
