//! [`AdaptiveLimit`]: how many model calls may be in flight at once, found by
//! the provider's answers rather than fixed by us (AIMD, like TCP's
//! congestion window): the limit grows while the provider takes calls (a
//! success status: a streamed answer counts from its first byte) and the
//! limit is in use, is cut when the provider says it is overloaded (429,
//! 503), and all new calls pause while the provider asks us to wait
//! (`Retry-After`, or an `x-ratelimit-remaining-*: 0` with its
//! `x-ratelimit-reset-*`). `llm.max_concurrent` stays available as a hard
//! ceiling.
//!
//! A refusal also marks the **knee**: the limit that was refused. After the
//! cut the limit grows back as usual (about one per round trip) to just
//! below the knee, and past it only slowly for [`KNEE_MEMORY`]: one call per
//! [`PROBE_ROUNDS`] round trips. A provider that caps calls at once is so
//! knocked on about once every dozen round trips rather than every five,
//! and the limit spends most of the time at its cap rather than climbing
//! back to it.
//!
//! Waiting calls are served first come, first served, so no conversation
//! starves; a conversation's own messages are kept in order by the router's
//! conversation lock before they get here.
//!
//! The limit starts at 128 and doubles per round trip while every call is
//! taken and the limit is in use (slow start), then grows by about one per
//! round trip; a 429 or 503 halves it, once per round trip. The
//! OpenAI-compatible client takes a slot per HTTP attempt. `/health` and
//! `/metrics` show the limit, the calls in flight and the queue
//! (`LimitReport`). Figures under a provider's cap: `docs/performance.md`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// The limit a fresh bot starts with. Providers commonly take a hundred or
/// more calls at once (and local servers queue them); one that takes fewer
/// answers 429 and the limit halves within a round trip, while a small start
/// would hold a busy hour back for several round trips of slow start.
const INITIAL_LIMIT: f64 = 128.0;
/// The limit never grows past this without a ceiling (a safety bound).
const UNBOUNDED_CEILING: usize = 4096;
/// The longest pause honoured from one provider answer.
const MAX_PAUSE: Duration = Duration::from_secs(60);
/// After a refusal, the limit grows by one per this many round trips of a full limit.
pub(crate) const PROBE_ROUNDS: f64 = 8.0;
/// How long after the provider's last refusal growth stays that slow; after
/// that the limit grows by one per round trip again (a provider's cap may
/// have been raised).
pub(crate) const KNEE_MEMORY: Duration = Duration::from_secs(60);

/// A snapshot for `/health` and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitReport {
    /// Calls allowed at once right now.
    pub limit: usize,
    /// Calls in flight.
    pub in_flight: usize,
    /// Calls waiting for a slot.
    pub queued: usize,
    /// The hard ceiling (`llm.max_concurrent`), `None` when adaptive only.
    pub ceiling: Option<usize>,
}

struct State {
    limit: f64,
    in_flight: usize,
    queue: VecDeque<oneshot::Sender<()>>,
    /// No call starts before this (the provider asked us to wait).
    paused_until: Option<Instant>,
    /// Growing by one per success (doubling per round trip) until the first overload.
    slow_start: bool,
    /// Calls that started before this instant do not cut the limit again.
    last_cut: Option<Instant>,
    /// The limit the provider last refused, and when.
    knee: Option<(f64, Instant)>,
    /// A task is sleeping until the pause ends to start waiting calls.
    wake_scheduled: bool,
}

/// The adaptive concurrency limit of one model provider; cheap to clone.
#[derive(Clone)]
pub(crate) struct AdaptiveLimit {
    state: Arc<Mutex<State>>,
    ceiling: usize,
    configured_ceiling: Option<usize>,
}

impl std::fmt::Debug for AdaptiveLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdaptiveLimit").field("report", &self.report()).finish()
    }
}

/// A slot for one call; frees itself when dropped.
pub(crate) struct Permit {
    limit: AdaptiveLimit,
    started: Instant,
}

impl AdaptiveLimit {
    /// A limit with a hard ceiling (`max_concurrent`), or adaptive only when 0.
    pub(crate) fn new(max_concurrent: usize) -> Self {
        let configured_ceiling = (max_concurrent > 0).then_some(max_concurrent);
        let ceiling = configured_ceiling.unwrap_or(UNBOUNDED_CEILING);
        AdaptiveLimit {
            state: Arc::new(Mutex::new(State {
                limit: INITIAL_LIMIT.min(ceiling as f64),
                in_flight: 0,
                queue: VecDeque::new(),
                paused_until: None,
                slow_start: true,
                last_cut: None,
                knee: None,
                wake_scheduled: false,
            })),
            ceiling,
            configured_ceiling,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for a slot, first come first served.
    pub(crate) async fn acquire(&self) -> Permit {
        let rx = {
            let mut state = self.lock();
            if state.queue.is_empty() && self.may_start(&mut state) {
                state.in_flight += 1;
                return Permit { limit: self.clone(), started: Instant::now() };
            }
            let (tx, rx) = oneshot::channel();
            state.queue.push_back(tx);
            self.schedule_wake(&mut state);
            rx
        };
        let mut waiter = Waiter { rx, granted: false, limit: self };
        if (&mut waiter.rx).await.is_err() {
            // The limit itself was dropped: nothing bounds us any more.
            self.lock().in_flight += 1;
        }
        waiter.granted = true;
        Permit { limit: self.clone(), started: Instant::now() }
    }

    /// Whether one more call may start now (clearing a pause that is over).
    fn may_start(&self, state: &mut State) -> bool {
        if let Some(until) = state.paused_until {
            if Instant::now() < until {
                return false;
            }
            state.paused_until = None;
        }
        (state.in_flight as f64) < state.limit.floor().max(1.0)
    }

    /// Starts waiting calls while there is room.
    fn pump(&self, state: &mut State) {
        while !state.queue.is_empty() && self.may_start(state) {
            if let Some(tx) = state.queue.pop_front()
                && tx.send(()).is_ok()
            {
                state.in_flight += 1;
            }
        }
        self.schedule_wake(state);
    }

    /// While paused with calls waiting, one task sleeps until the pause ends.
    fn schedule_wake(&self, state: &mut State) {
        let Some(until) = state.paused_until else { return };
        if state.wake_scheduled || state.queue.is_empty() {
            return;
        }
        state.wake_scheduled = true;
        let limit = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(until).await;
            let mut state = limit.lock();
            state.wake_scheduled = false;
            limit.pump(&mut state);
        });
    }

    fn release(&self) {
        let mut state = self.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        self.pump(&mut state);
    }

    /// A call succeeded: grow while the limit is in use.
    fn grow(&self, state: &mut State) {
        let busy = (state.in_flight + 1) as f64 >= state.limit / 2.0 || !state.queue.is_empty();
        if !busy {
            return;
        }
        // Past just below a knee refused lately, the limit only probes.
        let probing =
            state.knee.is_some_and(|(knee, at)| state.limit + 1.0 >= knee && at.elapsed() < KNEE_MEMORY);
        let step = if state.slow_start {
            1.0
        } else if probing {
            1.0 / (state.limit * PROBE_ROUNDS)
        } else {
            1.0 / state.limit
        };
        state.limit = (state.limit + step).min(self.ceiling as f64);
        self.pump(state);
    }

    /// The provider refused `call` as overloaded: halve the limit (once per
    /// round trip: calls that started before the last cut do not cut again),
    /// remember the refused limit as the knee, and pause new calls for
    /// `retry_after` when given.
    pub(crate) fn overloaded(&self, call: &Permit, retry_after: Option<Duration>) {
        let mut state = self.lock();
        state.slow_start = false;
        if state.last_cut.is_none_or(|cut| call.started >= cut) {
            let before = state.limit;
            state.limit = (state.limit / 2.0).max(1.0);
            state.last_cut = Some(Instant::now());
            state.knee = Some((before.floor(), Instant::now()));
            tracing::warn!(
                from = before.floor() as u64,
                to = state.limit.floor() as u64,
                "model provider overloaded; fewer calls at once"
            );
        }
        if let Some(wait) = retry_after {
            self.pause(&mut state, wait);
        }
    }

    /// Reads `x-ratelimit-remaining-requests` / `-tokens`: at zero, new calls
    /// pause until the matching `x-ratelimit-reset-*`.
    pub(crate) fn observe_headers(&self, headers: &HeaderMap) {
        let mut wait: Option<Duration> = None;
        for kind in ["requests", "tokens"] {
            let remaining = header_text(headers, &format!("x-ratelimit-remaining-{kind}"))
                .and_then(|v| v.trim().parse::<f64>().ok());
            if remaining.is_some_and(|r| r <= 0.0)
                && let Some(reset) =
                    header_text(headers, &format!("x-ratelimit-reset-{kind}")).and_then(|v| parse_reset(&v))
            {
                wait = Some(wait.map_or(reset, |w| w.max(reset)));
            }
        }
        if let Some(wait) = wait {
            let mut state = self.lock();
            self.pause(&mut state, wait);
        }
    }

    fn pause(&self, state: &mut State, wait: Duration) {
        let until = Instant::now() + wait.min(MAX_PAUSE);
        if state.paused_until.is_none_or(|current| current < until) {
            tracing::info!(wait_ms = wait.min(MAX_PAUSE).as_millis() as u64, "model provider asked to wait");
            state.paused_until = Some(until);
        }
        self.schedule_wake(state);
    }

    /// The current figures.
    pub(crate) fn report(&self) -> LimitReport {
        let state = self.lock();
        LimitReport {
            limit: state.limit.floor().max(1.0) as usize,
            in_flight: state.in_flight,
            queued: state.queue.len(),
            ceiling: self.configured_ceiling,
        }
    }
}

impl Permit {
    /// The call succeeded: the limit may grow.
    pub(crate) fn succeeded(&self) {
        let mut state = self.limit.lock();
        self.limit.grow(&mut state);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limit.release();
    }
}

/// A call waiting in the queue; if it is dropped after being granted a slot
/// but before taking it, the slot is given back.
struct Waiter<'a> {
    rx: oneshot::Receiver<()>,
    granted: bool,
    limit: &'a AdaptiveLimit,
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        if self.granted {
            return;
        }
        self.rx.close();
        if self.rx.try_recv().is_ok() {
            self.limit.release();
        }
    }
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// A reset time as providers send it: seconds (`"1.5"`), or a duration such
/// as `"20ms"`, `"6s"`, `"1m30s"`, `"2h"`.
fn parse_reset(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let mut total = 0.0f64;
    let mut number = String::new();
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let value: f64 = number.parse().ok()?;
        number.clear();
        let unit = match c {
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        total += value * unit;
        any = true;
    }
    (any && number.is_empty() && total.is_finite()).then(|| Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reset_times_in_every_shape_providers_send() {
        assert_eq!(parse_reset("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_reset("20ms"), Some(Duration::from_millis(20)));
        assert_eq!(parse_reset("6s"), Some(Duration::from_secs(6)));
        assert_eq!(parse_reset("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_reset("6m0s"), Some(Duration::from_secs(360)));
        assert_eq!(parse_reset("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_reset("soon"), None);
        assert_eq!(parse_reset("5"), Some(Duration::from_secs(5)));
    }

    #[tokio::test]
    async fn a_ceiling_holds_and_waiters_go_first_come_first_served() {
        let limit = AdaptiveLimit::new(2);
        let a = limit.acquire().await;
        let _b = limit.acquire().await;
        assert_eq!(limit.report().in_flight, 2);
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for i in 0..3 {
            let (shared, order) = (limit.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let permit = shared.acquire().await;
                order.lock().unwrap().push(i);
                tokio::task::yield_now().await;
                drop(permit);
            }));
            // Let each waiter queue before the next one.
            while limit.report().queued < i + 1 {
                tokio::task::yield_now().await;
            }
        }
        assert_eq!(limit.report().queued, 3);
        drop(a);
        for task in waiting {
            task.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2]);
        assert_eq!(limit.report(), LimitReport { limit: 2, in_flight: 1, queued: 0, ceiling: Some(2) });
    }

    /// `rounds` round trips of a full limit of calls, all taken.
    async fn full_rounds(limit: &AdaptiveLimit, rounds: usize) {
        for _ in 0..rounds {
            let size = limit.report().limit;
            let permits: Vec<Permit> = futures::future::join_all((0..size).map(|_| limit.acquire())).await;
            for p in &permits {
                p.succeeded();
            }
        }
    }

    #[tokio::test]
    async fn the_limit_grows_while_in_use_and_halves_on_overload() {
        let limit = AdaptiveLimit::new(0);
        let start = INITIAL_LIMIT as usize;
        assert_eq!(limit.report().limit, start);
        // A full limit of calls at once all succeed: slow start doubles the limit.
        full_rounds(&limit, 1).await;
        assert_eq!(limit.report().limit, start * 2);
        // An overload halves it, once for calls that started before the cut.
        let first = limit.acquire().await;
        let second = limit.acquire().await;
        limit.overloaded(&first, None);
        limit.overloaded(&second, None);
        assert_eq!(limit.report().limit, start);
        drop((first, second));
        // Below the knee (256), growth is about one per round trip.
        full_rounds(&limit, 2).await;
        assert!((start + 1..=start + 2).contains(&limit.report().limit), "{:?}", limit.report());
    }

    /// Full round trips until the limit reaches `target`; how many it took (at most `bound`).
    async fn rounds_to(limit: &AdaptiveLimit, target: usize, bound: usize) -> usize {
        for rounds in 0..=bound {
            if limit.report().limit >= target {
                return rounds;
            }
            full_rounds(limit, 1).await;
        }
        panic!("the limit never reached {target}: {:?}", limit.report());
    }

    #[tokio::test]
    async fn past_just_below_the_knee_the_limit_only_probes() {
        let limit = AdaptiveLimit::new(0);
        // Refusals in four round trips: 128 → 64 → 32 → 16 → 8.
        for expected in [64, 32, 16, 8] {
            let call = limit.acquire().await;
            limit.overloaded(&call, None);
            assert_eq!(limit.report().limit, expected);
        }
        // Below the knee (16) it grows about one per round trip: 9 is
        // refused (a provider that takes 8), back to 4 with the knee at 9.
        assert!(rounds_to(&limit, 9, 3).await <= 3);
        let call = limit.acquire().await;
        limit.overloaded(&call, None);
        drop(call);
        assert_eq!(limit.report().limit, 4);
        // Back to just below the knee about as fast as before: 4 → 8 in a few round trips.
        assert!(rounds_to(&limit, 8, 6).await <= 6);
        // From 8 the limit only probes: still 8 after PROBE_ROUNDS - 1 round trips, then 9.
        full_rounds(&limit, PROBE_ROUNDS as usize - 1).await;
        assert_eq!(limit.report().limit, 8, "{:?}", limit.report());
        assert!(rounds_to(&limit, 9, 3).await <= 3);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_pauses_new_calls_then_lets_them_through() {
        let limit = AdaptiveLimit::new(0);
        let first = limit.acquire().await;
        limit.overloaded(&first, Some(Duration::from_secs(2)));
        drop(first);
        let started = Instant::now();
        let _next = limit.acquire().await;
        assert!(started.elapsed() >= Duration::from_secs(2), "waited out the pause");
    }

    #[tokio::test(start_paused = true)]
    async fn an_exhausted_rate_limit_header_pauses_until_its_reset() {
        let limit = AdaptiveLimit::new(0);
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining-requests", "0".parse().unwrap());
        headers.insert("x-ratelimit-reset-requests", "1s".parse().unwrap());
        limit.observe_headers(&headers);
        let started = Instant::now();
        let _p = limit.acquire().await;
        assert!(started.elapsed() >= Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_cancelled_waiter_gives_its_slot_back() {
        let limit = AdaptiveLimit::new(1);
        let held = limit.acquire().await;
        let waiter = tokio::spawn({
            let limit = limit.clone();
            async move {
                let _p = limit.acquire().await;
            }
        });
        while limit.report().queued == 0 {
            tokio::task::yield_now().await;
        }
        waiter.abort();
        let _ = waiter.await;
        drop(held);
        let _again = limit.acquire().await;
        assert_eq!(limit.report().in_flight, 1);
    }
}
