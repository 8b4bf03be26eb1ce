//! One turn at a time per conversation, in order, across instances.
//!
//! Two layers: within this process, turns of one conversation queue on a
//! first-come-first-served mutex ([`LocalLocks`](super::LocalLocks)) — waiting costs nothing and
//! a chat's messages keep their order; across instances, the turn at the head
//! takes a lock in the state store, renewed while the turn runs (so a long
//! turn keeps it) and released at the end, even when the turn panics. A store
//! lock held by another instance is waited for with
//! [`LockStore::wait_unlock`] (woken by the release where the backend can
//! tell, e.g. Redis); one that cannot be had in time is logged and the turn
//! goes ahead: a message is never dropped for it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::FunctionCallRouter;
use crate::infra::state::LockStore;

/// How long a turn waits for another instance's lock before going ahead anyway.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// Releases a held store lock when dropped, whether the turn finished or panicked.
struct Held {
    state: Arc<dyn LockStore>,
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
    /// Runs `turn` holding the lock of `conversation`. The turn comes boxed:
    /// a whole turn's future is kilobytes, and it would be copied into the
    /// lock's wait and into the renewal below.
    pub(super) async fn locked<T, F: Future<Output = T>>(&self, conversation: &str, turn: Pin<Box<F>>) -> T {
        let queue = self.locks.queue(conversation);
        let result = {
            let _turn_in_this_process = queue.lock().await;
            let key = crate::infra::state::keys::conversation_lock(conversation);
            match self.store_lock(key).await {
                Some(held) => {
                    let result = self.renewing(&held, turn).await;
                    held.release().await;
                    result
                }
                None => turn.await,
            }
        };
        self.locks.forget_if_idle(conversation, queue);
        result
    }

    /// Takes the conversation's lock in the state store, waiting while another
    /// instance holds it (at most [`LOCK_WAIT`]).
    async fn store_lock(&self, key: String) -> Option<Held> {
        let owner = crate::engine::pending::new_token();
        let ttl = self.settings.lock_ttl;
        let started = Instant::now();
        loop {
            match self.state.try_lock(&key, &owner, ttl).await {
                Ok(true) => {
                    return Some(Held { state: self.state.clone() as Arc<dyn LockStore>, key, owner });
                }
                Ok(false) if started.elapsed() < LOCK_WAIT => {
                    let left = LOCK_WAIT.saturating_sub(started.elapsed());
                    self.state.wait_unlock(&key, left.min(ttl)).await;
                }
                Ok(false) => {
                    tracing::warn!(%key, "conversation still locked after 60 s; going ahead");
                    return None;
                }
                Err(e) => {
                    tracing::warn!(%key, error = %e, "conversation lock unavailable; going ahead");
                    return None;
                }
            }
        }
    }

    /// Runs `turn`, renewing `held` every third of its TTL so that a turn
    /// longer than the TTL keeps its lock.
    async fn renewing<T, F: Future<Output = T>>(&self, held: &Held, mut turn: Pin<Box<F>>) -> T {
        let ttl = self.settings.lock_ttl;
        let every = ttl / 3;
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                result = &mut turn => return result,
                _ = ticks.tick() => match self.state.try_lock(&held.key, &held.owner, ttl).await {
                    Ok(true) => tracing::debug!(key = %held.key, "conversation lock renewed"),
                    Ok(false) => tracing::warn!(key = %held.key, "conversation lock lost to another turn"),
                    Err(e) => tracing::warn!(key = %held.key, error = %e, "could not renew the conversation lock"),
                },
            }
        }
    }
}
