//! [`LocalLocks`]: within this process, the turns of one conversation queue
//! on a first-come-first-served mutex, so that waiting costs nothing and a
//! chat's messages keep their order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The in-process queue of each busy conversation.
#[derive(Default)]
pub(super) struct LocalLocks {
    queues: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl LocalLocks {
    pub(super) fn queue(&self, conversation: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        queues.entry(conversation.to_owned()).or_default().clone()
    }

    /// Forgets a conversation's queue once nobody holds or waits for it.
    pub(super) fn forget_if_idle(&self, conversation: &str, queue: Arc<tokio::sync::Mutex<()>>) {
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
