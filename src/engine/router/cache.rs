//! Tool results worth reusing: a safe tool whose answer does not depend on the
//! shopper (search, product detail, store info, routes, areas — every safe
//! tool that is not private-only, since cart and order tools are) answers the
//! same arguments in the same language from memory for `bot.tool_cache_secs`.
//! Cart and order tools never are; a price or stock change shows within the TTL,
//! and at once when the mall's own data is read again (`mall.data`): a reload
//! empties the cache.
//! Calls with the same key made while the first is running wait for its
//! answer instead of asking the mall again: many shoppers asking the way to
//! the same store at once make one call, not a herd a small backend drowns in.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use handlers::{Lang, ToolError, ToolOutput};
use serde_json::Value;
use services::embedded::data_generation;
use tokio::sync::OnceCell;

/// Entries kept at most; expired ones go first, then the oldest.
const CAPACITY: usize = 2048;

/// One key's call: empty while it runs (callers of the same key wait for it
/// instead of making their own), then its result and when it came.
type Slot = Arc<OnceCell<(Instant, Result<ToolOutput, ToolError>)>>;

/// The cache of one router.
pub(super) struct ToolCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, Slot>>,
    /// The mall data's reload count the entries were made under.
    generation: AtomicU64,
}

/// Where a result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// This caller ran the tool.
    Ran,
    /// Another call's result: kept from before, or the one another turn was
    /// waiting for at the same time.
    Cache,
}

impl ToolCache {
    pub(super) fn new(ttl: Duration) -> Self {
        ToolCache { ttl, entries: Mutex::new(HashMap::new()), generation: AtomicU64::new(data_generation()) }
    }

    /// The key of a call: the tool, the language and the normalised arguments
    /// (keys sorted, strings trimmed with inner spaces folded, nulls dropped).
    pub(super) fn key(tool: &str, lang: Lang, args: &Value) -> String {
        format!("{}\u{1f}{}\u{1f}{}", tool, lang.as_str(), normalised(args))
    }

    /// The result for `key`: a fresh one kept from before; else the result
    /// of the same call already running for another turn (one call reaches
    /// the mall however many shoppers ask at once, and all of them hear its
    /// answer, a failure too); else `run`'s. Only a success is kept: the
    /// next caller after a failure tries again.
    pub(super) async fn get_or_run<F, Fut>(
        &self,
        key: String,
        run: F,
    ) -> (Result<ToolOutput, ToolError>, Source)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<ToolOutput, ToolError>>,
    {
        if self.ttl.is_zero() {
            return (run().await, Source::Ran);
        }
        let slot = self.slot(&key);
        let mut ran = false;
        let (_, result) = slot
            .get_or_init(|| {
                ran = true;
                async move { (Instant::now(), run().await) }
            })
            .await;
        if ran && result.is_err() {
            let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            if entries.get(&key).is_some_and(|kept| Arc::ptr_eq(kept, &slot)) {
                entries.remove(&key);
            }
        }
        (result.clone(), if ran { Source::Ran } else { Source::Cache })
    }

    /// The slot of `key`: the one there while it runs or holds a fresh
    /// success, else a new one.
    fn slot(&self, key: &str) -> Slot {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let generation = data_generation();
        if self.generation.swap(generation, Ordering::AcqRel) != generation {
            // The mall's data was read again: nothing kept from before holds.
            entries.clear();
        }
        let live = |slot: &Slot| match slot.get() {
            None => true,
            Some((at, result)) => result.is_ok() && at.elapsed() < self.ttl,
        };
        if let Some(slot) = entries.get(key).filter(|slot| live(slot)) {
            return slot.clone();
        }
        if entries.len() >= CAPACITY {
            entries.retain(|_, slot| live(slot));
            if entries.len() >= CAPACITY
                && let Some(oldest) = entries
                    .iter()
                    .filter_map(|(key, slot)| slot.get().map(|(at, _)| (key, *at)))
                    .min_by_key(|(_, at)| *at)
                    .map(|(key, _)| key.clone())
            {
                entries.remove(&oldest);
            }
        }
        let slot = Slot::default();
        entries.insert(key.to_owned(), slot.clone());
        slot
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::future::{join, join_all};
    use serde_json::json;
    use tokio::sync::Semaphore;

    use super::*;

    /// A tool call that counts its runs, answers "route <n>" with `n` the
    /// run, and fails while `failing` runs are left.
    struct Tool {
        runs: AtomicUsize,
        failing: usize,
        gate: Semaphore,
    }

    impl Tool {
        fn new(failing: usize, open: bool) -> Tool {
            Tool { runs: AtomicUsize::new(0), failing, gate: Semaphore::new(usize::from(open)) }
        }

        async fn run(&self) -> Result<ToolOutput, ToolError> {
            let n = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
            drop(self.gate.acquire().await);
            if n <= self.failing {
                return Err(ToolError::Upstream("mall down".into()));
            }
            Ok(ToolOutput::new(json!(format!("route {n}"))))
        }
    }

    fn data(result: &Result<ToolOutput, ToolError>) -> Value {
        result.as_ref().map(|output| output.data.clone()).unwrap_or(Value::Null)
    }

    #[tokio::test]
    async fn calls_made_at_once_share_the_first_one() {
        let cache = ToolCache::new(Duration::from_secs(30));
        let tool = Tool::new(0, false);
        let callers = (0..8).map(|_| cache.get_or_run("nike".into(), || tool.run()));
        // The first caller runs and waits at the gate, the others wait for it;
        // then the gate opens.
        let (results, ()) = join(join_all(callers), async { tool.gate.add_permits(1) }).await;
        assert_eq!(tool.runs.load(Ordering::SeqCst), 1, "one call reached the mall");
        assert!(results.iter().all(|(result, _)| data(result) == json!("route 1")), "{results:?}");
        let ran = results.iter().filter(|(_, source)| *source == Source::Ran).count();
        assert_eq!(ran, 1);
        let (later, source) = cache.get_or_run("nike".into(), || tool.run()).await;
        assert_eq!((data(&later), source), (json!("route 1"), Source::Cache));
        assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_failed_call_is_shared_with_those_waiting_but_not_kept() {
        let cache = ToolCache::new(Duration::from_secs(30));
        let tool = Tool::new(1, false);
        let callers = (0..4).map(|_| cache.get_or_run("nike".into(), || tool.run()));
        let (results, ()) = join(join_all(callers), async { tool.gate.add_permits(1) }).await;
        assert_eq!(tool.runs.load(Ordering::SeqCst), 1, "those waiting did not call the mall one by one");
        assert!(
            results.iter().all(|(result, _)| matches!(result, Err(ToolError::Upstream(_)))),
            "{results:?}"
        );
        let (next, source) = cache.get_or_run("nike".into(), || tool.run()).await;
        assert_eq!((data(&next), source), (json!("route 2"), Source::Ran), "the next caller tries again");
    }

    #[tokio::test]
    async fn a_stale_result_and_a_cache_turned_off_run_the_call_again() {
        let cache = ToolCache::new(Duration::from_millis(1));
        let tool = Tool::new(0, true);
        assert_eq!(data(&cache.get_or_run("nike".into(), || tool.run()).await.0), json!("route 1"));
        std::thread::sleep(Duration::from_millis(5));
        let (again, source) = cache.get_or_run("nike".into(), || tool.run()).await;
        assert_eq!((data(&again), source), (json!("route 2"), Source::Ran));

        let off = ToolCache::new(Duration::ZERO);
        for _ in 0..2 {
            assert_eq!(off.get_or_run("nike".into(), || tool.run()).await.1, Source::Ran);
        }
        assert_eq!(tool.runs.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn equal_requests_written_differently_share_a_key() {
        assert_eq!(
            normalised(&json!({"keyword": "  Nike   跑鞋 ", "max_price": 500, "brand": null})),
            normalised(&json!({"max_price": 500, "keyword": "Nike 跑鞋"}))
        );
        assert_ne!(normalised(&json!({"keyword": "Nike"})), normalised(&json!({"keyword": "Adidas"})));
    }
}
