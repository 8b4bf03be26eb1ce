//! One lane per chat: the updates of a chat are handled one at a time, in
//! order, each chat on a task of its own that ends when its queue is empty.
//!
//! teloxide's dispatcher keeps per-chat workers too, but now and then, while
//! it clears out idle workers, it waits for a worker that has just taken an
//! update — for a whole turn (seconds), and with it every update behind it.
//! The endpoints therefore only queue the update here and return at once;
//! the turns run in these lanes, and shutdown waits for them ([`Lanes::wait`]).
//!
//! A lane holds at most [`LANE_DEPTH`] updates waiting behind the one being
//! handled, and at most [`MAX_LANES`] chats have lanes at once: a flood from
//! one chat, or of new chats, is dropped at the door instead of held in memory.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use teloxide::types::ChatId;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Updates of one chat that may wait behind the one being handled.
pub(crate) const LANE_DEPTH: usize = 10;
/// Chats that may have updates in hand at once.
pub(crate) const MAX_LANES: usize = 4096;

/// What became of an update given to [`Lanes::run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queued {
    /// It will be handled in its turn.
    Yes,
    /// Its chat already has [`LANE_DEPTH`] updates waiting: dropped. `first`
    /// is true for the first drop since the lane opened (worth one notice).
    LaneFull { first: bool },
    /// [`MAX_LANES`] chats are busy and this one is new: dropped.
    Overloaded,
}

/// One chat's queue and whether it was already told it is full.
struct Lane {
    jobs: mpsc::Sender<Job>,
    told: bool,
}

/// The chats with updates in hand; cheap to clone.
#[derive(Clone)]
pub(crate) struct Lanes {
    open: Arc<Mutex<HashMap<ChatId, Lane>>>,
    running: TaskTracker,
    depth: usize,
    max_lanes: usize,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes::with_limits(LANE_DEPTH, MAX_LANES)
    }
}

impl Lanes {
    /// Lanes of at most `depth` waiting updates, at most `max_lanes` at once.
    pub(crate) fn with_limits(depth: usize, max_lanes: usize) -> Lanes {
        Lanes {
            open: Arc::default(),
            running: TaskTracker::new(),
            depth: depth.max(1),
            max_lanes: max_lanes.max(1),
        }
    }

    /// Handles `job` after the jobs of `chat` queued before it, or drops it
    /// when the chat's lane is full or too many chats are busy.
    pub(crate) fn run(&self, chat: ChatId, job: impl Future<Output = ()> + Send + 'static) -> Queued {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let job: Job = Box::pin(job);
        let busy = open.len();
        let job = match open.get_mut(&chat) {
            // The lane stays open while this lock is held (it leaves under it).
            Some(lane) => match lane.jobs.try_send(job) {
                Ok(()) => return Queued::Yes,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    let first = !lane.told;
                    lane.told = true;
                    return Queued::LaneFull { first };
                }
                Err(mpsc::error::TrySendError::Closed(job)) => job,
            },
            None if busy >= self.max_lanes => return Queued::Overloaded,
            None => job,
        };
        let (jobs, queue) = mpsc::channel(self.depth);
        // The receiver is alive until the task below ends, and the queue is empty.
        let _ = jobs.try_send(job);
        open.insert(chat, Lane { jobs, told: false });
        self.running.spawn(self.clone().drain(chat, queue));
        Queued::Yes
    }

    /// Runs a chat's jobs until none is left, then closes its lane.
    async fn drain(self, chat: ChatId, mut queue: mpsc::Receiver<Job>) {
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
    pub(crate) async fn wait(&self) {
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
    async fn a_full_lane_and_a_new_chat_over_the_cap_are_dropped_and_said_once() {
        let lanes = Lanes::with_limits(2, 2);
        let (release, held) = tokio::sync::oneshot::channel::<()>();
        assert_eq!(
            lanes.run(ChatId(1), async move {
                let _ = held.await;
            }),
            Queued::Yes
        );
        tokio::task::yield_now().await;
        let ran = Arc::new(Mutex::new(0));
        let mut outcomes = Vec::new();
        for _ in 0..5 {
            let ran = ran.clone();
            outcomes.push(lanes.run(ChatId(1), async move { *ran.lock().unwrap() += 1 }));
        }
        // The running job took its slot out of the queue: two wait, the rest are dropped.
        assert_eq!(
            outcomes,
            vec![
                Queued::Yes,
                Queued::Yes,
                Queued::LaneFull { first: true },
                Queued::LaneFull { first: false },
                Queued::LaneFull { first: false }
            ]
        );
        assert_eq!(lanes.run(ChatId(2), std::future::pending()), Queued::Yes);
        assert_eq!(
            lanes.run(ChatId(3), async {}),
            Queued::Overloaded,
            "two chats busy: a third waits outside"
        );
        release.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), async {
            while *ran.lock().unwrap() < 2 {
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap();
        assert_eq!(*ran.lock().unwrap(), 2);
    }

    #[tokio::test]
    async fn a_chats_updates_run_in_order_while_other_chats_run_beside_them() {
        let lanes = Lanes::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (release, held) = tokio::sync::oneshot::channel::<()>();
        let log = seen.clone();
        let _ = lanes.run(ChatId(1), async move {
            let _ = held.await;
            log.lock().unwrap().push("1a");
        });
        for (chat, name) in [(1, "1b"), (2, "2a"), (1, "1c")] {
            let log = seen.clone();
            assert_eq!(lanes.run(ChatId(chat), async move { log.lock().unwrap().push(name) }), Queued::Yes);
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
