//! Tool results worth reusing: a safe tool whose answer does not depend on the
//! shopper (search, product detail, store info, routes, areas — every safe
//! tool that is not private-only, since cart and order tools are) answers the
//! same arguments in the same language from memory for `bot.tool_cache_secs`.
//! Cart and order tools never are; a price or stock change shows within the TTL.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use handlers::{Lang, ToolOutput};
use serde_json::Value;

/// Entries kept at most; expired ones go first, then the oldest.
const CAPACITY: usize = 2048;

/// The cache of one router.
pub(super) struct ToolCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, (Instant, ToolOutput)>>,
}

impl ToolCache {
    pub(super) fn new(ttl: Duration) -> Self {
        ToolCache { ttl, entries: Mutex::new(HashMap::new()) }
    }

    /// The key of a call: the tool, the language and the normalised arguments
    /// (keys sorted, strings trimmed with inner spaces folded, nulls dropped).
    pub(super) fn key(tool: &str, lang: Lang, args: &Value) -> String {
        format!("{}\u{1f}{}\u{1f}{}", tool, lang.as_str(), normalised(args))
    }

    /// A fresh result for `key`, if there is one.
    pub(super) fn get(&self, key: &str) -> Option<ToolOutput> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(key).filter(|(at, _)| at.elapsed() < self.ttl).map(|(_, out)| out.clone())
    }

    /// Keeps a result.
    pub(super) fn put(&self, key: String, output: &ToolOutput) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= CAPACITY {
            entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
            if entries.len() >= CAPACITY
                && let Some(oldest) = entries.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone())
            {
                entries.remove(&oldest);
            }
        }
        entries.insert(key, (Instant::now(), output.clone()));
    }
}

/// `args` in one canonical text: object keys sorted, nulls dropped, strings
/// trimmed with runs of white space folded to one space.
fn normalised(args: &Value) -> String {
    fn canonical(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().filter(|(_, v)| !v.is_null()).collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
            Value::String(s) => Value::String(s.split_whitespace().collect::<Vec<_>>().join(" ")),
            other => other.clone(),
        }
    }
    canonical(args).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_requests_written_differently_share_a_key() {
        assert_eq!(
            normalised(&json!({"keyword": "  Nike   跑鞋 ", "max_price": 500, "brand": null})),
            normalised(&json!({"max_price": 500, "keyword": "Nike 跑鞋"}))
        );
        assert_ne!(normalised(&json!({"keyword": "Nike"})), normalised(&json!({"keyword": "Adidas"})));
    }
}
