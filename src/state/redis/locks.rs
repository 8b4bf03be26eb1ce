//! RedisStore: locks.

use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;

use super::{RedisStore, TRY_LOCK, UNLOCK};
use crate::state::{LockStore, StateError, ttl_millis};

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
