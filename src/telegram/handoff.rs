//! Group hand-offs: a request made in a group that must continue in the
//! private chat travels in a `t.me/<bot>?start=<payload>` link. The payload is
//! a short random token; the request text stays on the server.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a hand-off link keeps its request.
pub const HANDOFF_TTL: Duration = Duration::from_secs(3600);

/// At most this many hand-offs are kept; the oldest go first.
const MAX_ENTRIES: usize = 10_000;

/// Prefix of every hand-off payload (a plain `/start` has none).
const PREFIX: &str = "h";

#[derive(Debug)]
struct Entry {
    user_id: i64,
    request: String,
    created: Instant,
}

/// Requests waiting to be carried over to a private chat.
#[derive(Debug)]
pub struct Handoffs {
    entries: Mutex<HashMap<String, Entry>>,
    ttl: Duration,
}

impl Default for Handoffs {
    fn default() -> Self {
        Handoffs::new(HANDOFF_TTL)
    }
}

impl Handoffs {
    /// An empty store whose entries live for `ttl`.
    pub fn new(ttl: Duration) -> Self {
        Handoffs { entries: Mutex::new(HashMap::new()), ttl }
    }

    /// Keeps `request` of `user_id` and returns the deep-link payload for it
    /// (at most 64 characters of `[A-Za-z0-9_-]`, as Telegram requires).
    pub fn put(&self, user_id: i64, request: &str) -> String {
        let payload = format!("{PREFIX}{}", random_token(15));
        let Ok(mut entries) = self.entries.lock() else { return payload };
        let ttl = self.ttl;
        entries.retain(|_, e| e.created.elapsed() < ttl);
        if entries.len() >= MAX_ENTRIES
            && let Some(oldest) = entries.iter().min_by_key(|(_, e)| e.created).map(|(k, _)| k.clone())
        {
            entries.remove(&oldest);
        }
        let entry = Entry { user_id, request: request.to_owned(), created: Instant::now() };
        entries.insert(payload.clone(), entry);
        payload
    }

    /// The request behind `payload` if it belongs to `user_id` and has not
    /// expired; it is used up. Anyone else gets `None` and the entry stays.
    pub fn take(&self, payload: &str, user_id: i64) -> Option<String> {
        let mut entries = self.entries.lock().ok()?;
        let entry = entries.get(payload)?;
        if entry.created.elapsed() >= self.ttl {
            entries.remove(payload);
            return None;
        }
        if entry.user_id != user_id {
            return None;
        }
        entries.remove(payload).map(|e| e.request)
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

    #[test]
    fn the_payload_is_a_valid_deep_link_parameter() {
        let store = Handoffs::default();
        let payload = store.put(1, &"很长的请求".repeat(100));
        assert!(payload.len() <= 64);
        assert!(payload.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    }

    #[test]
    fn only_the_shopper_who_asked_gets_the_request_and_only_once() {
        let store = Handoffs::default();
        let payload = store.put(1, "把 Nike 跑鞋加入购物车");
        assert_eq!(store.take(&payload, 2), None);
        assert_eq!(store.take(&payload, 1).as_deref(), Some("把 Nike 跑鞋加入购物车"));
        assert_eq!(store.take(&payload, 1), None);
        assert_eq!(store.take("hunknown", 1), None);
    }

    #[test]
    fn an_expired_hand_off_is_gone() {
        let store = Handoffs::new(Duration::ZERO);
        let payload = store.put(1, "看看购物车");
        assert_eq!(store.take(&payload, 1), None);
    }
}
