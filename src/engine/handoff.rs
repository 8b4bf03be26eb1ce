//! Group hand-off links kept in the state store: a request made in a group
//! that must continue in the private chat travels in a
//! `t.me/<bot>?start=<payload>` link (made by the Telegram transport) whose
//! payload is a short random token;
//! the request text waits in the state store, so any instance sharing it can
//! continue the request and a restart does not lose it.

use std::sync::Arc;
use std::time::Duration;

use crate::infra::state::StateStore;

/// How long a hand-off link keeps its request.
pub(crate) const HANDOFF_TTL: Duration = Duration::from_secs(3600);

/// Prefix of every hand-off payload (a plain `/start` has none).
const PREFIX: &str = "h";

/// Requests waiting to be carried over to a private chat.
#[derive(Clone)]
pub(crate) struct HandoffLinks {
    state: Arc<dyn StateStore>,
    ttl: Duration,
}

impl HandoffLinks {
    /// Links kept in `state` for [`HANDOFF_TTL`].
    pub(crate) fn new(state: Arc<dyn StateStore>) -> Self {
        Self::with_ttl(state, HANDOFF_TTL)
    }

    /// Links kept in `state` for `ttl`.
    pub(crate) fn with_ttl(state: Arc<dyn StateStore>, ttl: Duration) -> Self {
        HandoffLinks { state, ttl }
    }

    /// Keeps `request` of `user_id` and returns the deep-link payload for it
    /// (at most 64 characters of `[A-Za-z0-9_-]`, as Telegram requires);
    /// `None` when the store cannot keep it (logged).
    pub(crate) async fn put(&self, user_id: i64, request: &str) -> Option<String> {
        let payload = format!("{PREFIX}{}", random_token(15));
        match self
            .state
            .put_value(&crate::infra::state::keys::handoff(user_id, &payload), request, self.ttl)
            .await
        {
            Ok(()) => Some(payload),
            Err(e) => {
                tracing::error!(error = %e, "could not keep a hand-off link; sending the plain link");
                None
            }
        }
    }

    /// The request behind `payload` if it belongs to `user_id` and has not
    /// expired; it is used up. Anyone else gets `None` and the link stays.
    pub(crate) async fn take(&self, payload: &str, user_id: i64) -> Option<String> {
        match self.state.take_value(&crate::infra::state::keys::handoff(user_id, payload)).await {
            Ok(request) => request,
            Err(e) => {
                tracing::error!(error = %e, "could not read a hand-off link");
                None
            }
        }
    }
}

/// `len` random characters of `[A-Za-z0-9]`.
fn random_token(len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..len).map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::state::MemoryStore;

    fn links() -> HandoffLinks {
        HandoffLinks::new(Arc::new(MemoryStore::new()))
    }

    #[tokio::test]
    async fn the_payload_is_a_valid_deep_link_parameter() {
        let payload = links().put(1, &"很长的请求".repeat(100)).await.expect("kept");
        assert!(payload.len() <= 64);
        assert!(payload.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    }

    #[tokio::test]
    async fn only_the_shopper_who_asked_gets_the_request_and_only_once() {
        let links = links();
        let payload = links.put(1, "把 Nike 跑鞋加入购物车").await.expect("kept");
        assert_eq!(links.take(&payload, 2).await, None);
        assert_eq!(links.take(&payload, 1).await.as_deref(), Some("把 Nike 跑鞋加入购物车"));
        assert_eq!(links.take(&payload, 1).await, None);
        assert_eq!(links.take("hunknown", 1).await, None);
    }

    #[tokio::test]
    async fn a_link_made_by_one_instance_is_continued_by_another_sharing_the_store() {
        let shared: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
        let payload = HandoffLinks::new(shared.clone()).put(7, "/cart").await.expect("kept");
        assert_eq!(HandoffLinks::new(shared).take(&payload, 7).await.as_deref(), Some("/cart"));
    }

    #[tokio::test]
    async fn an_expired_hand_off_is_gone() {
        let links = HandoffLinks::with_ttl(Arc::new(MemoryStore::new()), Duration::ZERO);
        let payload = links.put(1, "看看购物车").await.expect("kept");
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(links.take(&payload, 1).await, None);
    }
}
