//! One lane per chat: the updates of a chat are handled one at a time, in
//! order, each chat on a task of its own that ends when its queue is empty.
//!
//! teloxide's dispatcher keeps per-chat workers too, but now and then, while
//! it clears out idle workers, it waits for a worker that has just taken an
//! update — for a whole turn (seconds), and with it every update behind it.
//! The endpoints therefore only queue the update here and return at once;
//! the turns run in these lanes, and shutdown waits for them ([`Lanes::wait`]).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use teloxide::types::ChatId;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The chats with updates in hand; cheap to clone.
#[derive(Clone, Default)]
pub struct Lanes {
    open: Arc<Mutex<HashMap<ChatId, mpsc::UnboundedSender<Job>>>>,
    running: TaskTracker,
}

impl Lanes {
    /// Handles `job` after the jobs of `chat` queued before it.
    pub fn run(&self, chat: ChatId, job: impl Future<Output = ()> + Send + 'static) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let job: Job = Box::pin(job);
        let job = match open.get(&chat) {
            // The lane stays open while this lock is held (it leaves under it).
            Some(lane) => match lane.send(job) {
                Ok(()) => return,
                Err(mpsc::error::SendError(job)) => job,
            },
            None => job,
        };
        let (lane, queue) = mpsc::unbounded_channel();
        // The receiver is alive until the task below ends.
        let _ = lane.send(job);
        open.insert(chat, lane);
        self.running.spawn(self.clone().drain(chat, queue));
    }

    /// Runs a chat's jobs until none is left, then closes its lane.
    async fn drain(self, chat: ChatId, mut queue: mpsc::UnboundedReceiver<Job>) {
        loop {
            let job = match queue.try_recv() {
                Ok(job) => job,
                Err(_) => {
                    let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
                    // Nothing can be queued while the lock is held: empty now means done.
                    match queue.try_recv() {
                        Ok(job) => job,
                        Err(_) => {
                            open.remove(&chat);
                            return;
                        }
                    }
                }
            };
            job.await;
        }
    }

    /// How many chats have updates in hand.
    #[cfg(test)]
    fn busy(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Takes no new lanes and waits until every queued update was handled.
    pub async fn wait(&self) {
        self.running.close();
        self.running.wait().await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_chats_updates_run_in_order_while_other_chats_run_beside_them() {
        let lanes = Lanes::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (release, held) = tokio::sync::oneshot::channel::<()>();
        let log = seen.clone();
        lanes.run(ChatId(1), async move {
            let _ = held.await;
            log.lock().unwrap().push("1a");
        });
        for (chat, name) in [(1, "1b"), (2, "2a"), (1, "1c")] {
            let log = seen.clone();
            lanes.run(ChatId(chat), async move { log.lock().unwrap().push(name) });
        }
        // Chat 2 is not held up by chat 1's first update.
        tokio::time::timeout(Duration::from_secs(5), async {
            while !seen.lock().unwrap().contains(&"2a") {
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap();
        assert_eq!(lanes.busy(), 1, "chat 1 still has updates in hand");
        release.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), lanes.wait()).await.unwrap();
        assert_eq!(*seen.lock().unwrap(), vec!["2a", "1a", "1b", "1c"]);
        assert_eq!(lanes.busy(), 0, "lanes close when their queue is empty");
    }
}
