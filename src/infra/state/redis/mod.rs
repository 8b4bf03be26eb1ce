//! The Redis [`StateStore`](super::StateStore) (`redis://HOST:PORT[/DB][?prefix=NAME]`): state
//! shared by several bot instances, kept under keys that expire on their own
//! and start with a prefix (`mallbot:` unless the URL names another, so that
//! several deployments can share one Redis).
//!
//! Keys (after the prefix): `history:<conversation>` (JSON, expires after its
//! TTL); `pending:<token>` (hash: `json`, `status`, `expires_at`,
//! `claimed_until`; kept [`PENDING_KEEP_SECS`](super::PENDING_KEEP_SECS) past its expiry);
//! `pending_open` (sorted set of open tokens by expiry, for counting);
//! `pending_by:<chat>:<user>` (sorted set of that shopper's tokens by expiry);
//! `update:<id>`, `rate:<user>|<window ms>`, `lock:<key>`, `value:<key>`
//! (expiring strings);
//! `audit` (list, newest first, capped at 10 000); `outbox:<id>` (JSON,
//! expiring after [`OUTBOX_KEEP`](super::OUTBOX_KEEP)) with `outbox_due` (sorted set of ids by
//! the unix ms they are due). Purging only trims
//! `pending_open`: everything else expires through Redis's own TTLs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use redis::RedisError;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
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
pub(crate) const DEFAULT_PREFIX: &str = "mallbot:";

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a command may wait for its answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

/// The state in a Redis server, shared by every instance that uses the same prefix.
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    /// `redis://HOST:PORT/DB`, without credentials.
    place: String,
    prefix: String,
    /// Lock releases heard on the release channel, for [`LockStore::wait_unlock`](super::LockStore::wait_unlock).
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
pub(crate) fn split_prefix(url: &str) -> Result<(String, String), StateError> {
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
