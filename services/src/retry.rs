//! [`RetryPolicy`]: how often and how patiently a client tries a call again —
//! one backoff rule (exponential, capped, jittered) shared by the mall client,
//! the model client and the Telegram sender.

use std::time::Duration;

/// How many times a failed call is tried again and how long to pause before
/// each retry.
///
/// The pause before retry `n` (0-based) is `base × 2ⁿ`, capped at
/// `max_delay`, of which a random share of up to `jitter` is left out, so
/// that many clients failing together do not retry in step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = never retry).
    pub max_retries: u32,
    /// The pause before the first retry, before jitter.
    pub base: Duration,
    /// The longest pause, before jitter.
    pub max_delay: Duration,
    /// The share of each pause that may be left out at random: 0.0 = none
    /// (always the full pause), 0.5 = between half and the full pause,
    /// 1.0 = anywhere between zero and the full pause.
    pub jitter: f64,
}

impl RetryPolicy {
    /// The full pause before retry `retry` (0-based), before jitter.
    pub fn ceiling(&self, retry: u32) -> Duration {
        self.base.saturating_mul(1u32 << retry.min(16)).min(self.max_delay)
    }

    /// The pause before retry `retry` (0-based): the ceiling less a random
    /// share of at most `jitter`.
    pub fn delay(&self, retry: u32) -> Duration {
        let full = self.ceiling(retry);
        let jitter = self.jitter.clamp(0.0, 1.0);
        if jitter == 0.0 {
            return full;
        }
        let left_out = rand::random_range(0.0..=jitter);
        full.mul_f64(1.0 - left_out)
    }

    /// Whether a call that has been retried `retries` times already may be
    /// retried once more.
    pub fn allows(&self, retries: u32) -> bool {
        retries < self.max_retries
    }

    /// The pause before retry `retry` (0-based) when the server named none,
    /// else the server's `retry_after`; `None` when the retries are used up.
    pub fn pause(&self, retry: u32, retry_after: Option<Duration>) -> Option<Duration> {
        self.allows(retry).then(|| retry_after.unwrap_or_else(|| self.delay(retry)))
    }

    /// The longest the retries of one call can pause in all, without any
    /// server-named waits.
    pub fn worst_case(&self) -> Duration {
        (0..self.max_retries).map(|retry| self.ceiling(retry)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(jitter: f64) -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
            jitter,
        }
    }

    #[test]
    fn the_pause_doubles_and_stays_capped() {
        let p = policy(0.0);
        let pauses: Vec<u128> = (0..7).map(|r| p.delay(r).as_millis()).collect();
        assert_eq!(pauses, [100, 200, 400, 800, 1600, 2000, 2000]);
        assert_eq!(p.delay(40), Duration::from_secs(2));
    }

    #[test]
    fn jitter_leaves_out_at_most_its_share() {
        for jitter in [0.5, 1.0] {
            let p = policy(jitter);
            for retry in 0..20 {
                let full = p.ceiling(retry);
                for _ in 0..20 {
                    let pause = p.delay(retry);
                    assert!(pause <= full && pause >= full.mul_f64(1.0 - jitter), "{retry}: {pause:?}");
                }
            }
        }
    }

    #[test]
    fn retries_stop_at_the_bound_and_the_servers_wait_wins() {
        let p = policy(0.0);
        assert_eq!(p.pause(0, None), Some(Duration::from_millis(100)));
        assert_eq!(p.pause(1, Some(Duration::from_secs(3))), Some(Duration::from_secs(3)));
        assert_eq!(p.pause(3, None), None);
        assert_eq!(RetryPolicy { max_retries: 0, ..p }.pause(0, None), None);
        assert_eq!(p.worst_case(), Duration::from_millis(700));
    }
}
