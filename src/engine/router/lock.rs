//! One turn at a time per conversation, in order, across instances.
//!
//! Two layers: within this process, turns of one conversation queue on a
//! first-come-first-served mutex ([`LocalLocks`]) — waiting costs nothing and
//! a chat's messages keep their order; across instances, the turn at the head
//! takes a lock in the state store, renewed while the turn runs (so a long
//! turn keeps it) and released at the end, even when the turn panics. A store
//! lock held by another instance is waited for with
//! [`LockStore::wait_unlock`] (woken by the release where the backend can
//! tell, e.g. Redis); one that cannot be had in time is logged and the turn
//! goes ahead: a message is never dropped for it.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::infra::state::{LockStore, StateStore};

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

/// The conversations' locks: this process's queues, then the state store's lock.
pub(super) struct Locks {
    state: Arc<dyn StateStore>,
    /// How long a turn holds its conversation's lock before renewing it (a
    /// crashed instance's lock frees itself after this).
    ttl: Duration,
    local: LocalLocks,
}

impl Locks {
    pub(super) fn new(state: Arc<dyn StateStore>, ttl: Duration) -> Self {
        Locks { state, ttl, local: LocalLocks::default() }
    }

    /// Runs `turn` holding the lock of `conversation`. The turn comes boxed:
    /// a whole turn's future is kilobytes, and it would be copied into the
    /// lock's wait and into the renewal below.
    pub(super) async fn locked<T, F: Future<Output = T>>(&self, conversation: &str, turn: Pin<Box<F>>) -> T {
        let queue = self.local.queue(conversation);
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
        self.local.forget_if_idle(conversation, queue);
        result
    }

    /// Takes the conversation's lock in the state store, waiting while another
    /// instance holds it (at most [`LOCK_WAIT`]).
    async fn store_lock(&self, key: String) -> Option<Held> {
        let owner = crate::engine::pending::new_token();
        let ttl = self.ttl;
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
        let ttl = self.ttl;
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

// ------------------------------------------------- this process's queues

/// The in-process queue of each busy conversation.
#[derive(Default)]
struct LocalLocks {
    queues: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl LocalLocks {
    fn queue(&self, conversation: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        queues.entry(conversation.to_owned()).or_default().clone()
    }

    /// Forgets a conversation's queue once nobody holds or waits for it.
    fn forget_if_idle(&self, conversation: &str, queue: Arc<tokio::sync::Mutex<()>>) {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        // Ours and the map's: nobody else holds or waits.
        if Arc::strong_count(&queue) == 2 {
            queues.remove(conversation);
        }
    }

    /// Conversations with a turn running or waiting in this process.
    #[cfg(test)]
    fn busy(&self) -> usize {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_conversation_queue_is_forgotten_when_idle() {
        let locks = LocalLocks::default();
        let queue = locks.queue("telegram:1:1");
        let again = locks.queue("telegram:1:1");
        assert!(Arc::ptr_eq(&queue, &again), "one queue per conversation");
        locks.forget_if_idle("telegram:1:1", again);
        assert_eq!(locks.busy(), 1, "still held by another turn");
        locks.forget_if_idle("telegram:1:1", queue);
        assert_eq!(locks.busy(), 0);
    }
}
