//! One turn at a time per conversation, across instances: a lock in the
//! state store around each turn, so two bots sharing Redis keep a chat's
//! messages in order. A lock that cannot be had in time is logged and the
//! turn goes ahead: a message is never dropped for it. The lock is released
//! even when the turn panics.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::FunctionCallRouter;
use crate::state::StateStore;

/// How long a turn may hold its conversation's lock (a crashed holder's lock
/// frees itself after this).
const LOCK_TTL: Duration = Duration::from_secs(120);
/// How long a turn waits for the lock before going ahead anyway.
const LOCK_WAIT: Duration = Duration::from_secs(60);
/// Pause between attempts.
const RETRY_EVERY: Duration = Duration::from_millis(50);

/// Releases a held lock when dropped, whether the turn finished or panicked.
struct Held {
    state: Arc<dyn StateStore>,
    key: String,
    owner: String,
}

impl Held {
    /// Releases the lock now (the normal end of a turn).
    async fn release(mut self) {
        let key = std::mem::take(&mut self.key);
        if let Err(e) = self.state.unlock(&key, &self.owner).await {
            tracing::warn!(%key, error = %e, "could not release the conversation lock");
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.key.is_empty() {
            return;
        }
        let state = self.state.clone();
        let key = std::mem::take(&mut self.key);
        let owner = std::mem::take(&mut self.owner);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = state.unlock(&key, &owner).await {
                    tracing::warn!(%key, error = %e, "could not release the conversation lock");
                }
            });
        }
    }
}

impl FunctionCallRouter {
    /// Runs `turn` holding the lock of `conversation`.
    pub(super) async fn locked<T>(&self, conversation: &str, turn: impl Future<Output = T>) -> T {
        let key = format!("conversation:{conversation}");
        let owner = crate::pending::new_token();
        let started = Instant::now();
        let held = loop {
            match self.state.try_lock(&key, &owner, LOCK_TTL).await {
                Ok(true) => break Some(Held { state: self.state.clone(), key, owner }),
                Ok(false) if started.elapsed() < LOCK_WAIT => tokio::time::sleep(RETRY_EVERY).await,
                Ok(false) => {
                    tracing::warn!(%key, "conversation still locked after 60 s; going ahead");
                    break None;
                }
                Err(e) => {
                    tracing::warn!(%key, error = %e, "conversation lock unavailable; going ahead");
                    break None;
                }
            }
        };
        let result = turn.await;
        if let Some(held) = held {
            held.release().await;
        }
        result
    }
}
