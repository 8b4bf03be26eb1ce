//! [`LockStore`] for the Redis store ([`RedisStore`]): locks.

use std::sync::LazyLock;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;

use super::RedisStore;
use crate::infra::state::{LockStore, StateError, ttl_millis};

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

#[async_trait]
impl LockStore for RedisStore {
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
}
