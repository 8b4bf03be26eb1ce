//! The mall's clock: what "now" is for everything read by the calendar —
//! the events of "this weekend", offers still valid, orders' times and the
//! unpaid orders' expiry.
//!
//! It is the system clock, unless the variable [`CLOCK_VAR`]
//! (`MALLBOT_CLOCK`) names an instant in RFC 3339
//! (`2026-11-25T19:00:00+08:00`): then the process starts at that instant and
//! its clock runs on from there, second for second. Tests set it so that an
//! answer about "this weekend" does not depend on the day they run; an
//! operator can set it to try the bot on a given day. It is read once, at
//! the first look at the clock; the bot's configuration check refuses a
//! value that is not such an instant ([`parse_instant`]).
//!
//! The same clock tells when things expire — a confirmation's buttons, a
//! claim's lease, a conversation the bot remembers —, so a test moves it on
//! ([`advance`]) instead of waiting for the real one.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::calendar::LocalTime;

/// The variable that sets the instant the process starts at.
pub const CLOCK_VAR: &str = "MALLBOT_CLOCK";

/// Milliseconds [`advance`] has moved the clock on.
static ADVANCED_MS: AtomicI64 = AtomicI64::new(0);

/// Moves this process's clock on by `by`, as if that much time had passed:
/// what was due to expire in that time has. For tests of expiry; the clock
/// never goes back.
pub fn advance(by: Duration) {
    let millis = i64::try_from(by.as_millis()).unwrap_or(i64::MAX / 4);
    ADVANCED_MS.fetch_add(millis, Ordering::SeqCst);
}

/// Seconds added to the system clock: 0 unless [`CLOCK_VAR`] is set.
fn offset() -> i64 {
    static OFFSET: OnceLock<i64> = OnceLock::new();
    *OFFSET.get_or_init(|| {
        std::env::var(CLOCK_VAR)
            .ok()
            .and_then(|v| parse_instant(&v).ok())
            .map_or(0, |start| start - system_now())
    })
}

/// The system clock in Unix milliseconds.
fn system_now_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 4),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX / 4),
    }
}

fn system_now() -> i64 {
    system_now_ms().div_euclid(1000)
}

/// The mall's time now, in Unix milliseconds.
pub fn now_unix_ms() -> i64 {
    system_now_ms()
        .saturating_add(offset().saturating_mul(1000))
        .saturating_add(ADVANCED_MS.load(Ordering::SeqCst))
}

/// The mall's time now, in Unix seconds.
pub fn now_unix() -> i64 {
    now_unix_ms().div_euclid(1000)
}

/// A value of [`CLOCK_VAR`] in Unix seconds, or what is wrong with it.
pub fn parse_instant(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let time = text.get(10..).unwrap_or_default();
    let zoned = time.ends_with(['Z', 'z']) || time.contains(['+', '-']);
    zoned.then(|| LocalTime::parse(text)).flatten().map(|t| t.unix).ok_or_else(|| {
        format!(
            "expected an instant in RFC 3339 with its offset, e.g. 2026-11-25T19:00:00+08:00, got `{text}`"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_with_its_offset_is_read() {
        assert_eq!(parse_instant("2026-11-25T19:00:00+08:00"), Ok(1_795_604_400));
        assert_eq!(parse_instant(" 2026-11-25T11:00:00Z "), Ok(1_795_604_400));
    }

    #[test]
    fn advancing_moves_seconds_and_milliseconds_on_together() {
        let (before, before_ms) = (now_unix(), now_unix_ms());
        advance(Duration::from_secs(3600));
        assert!(now_unix() >= before + 3600 && now_unix_ms() >= before_ms + 3_600_000);
        assert_eq!(now_unix(), now_unix_ms().div_euclid(1000));
    }

    #[test]
    fn anything_else_is_refused_with_an_example() {
        for bad in ["", "tomorrow", "2026-11-25", "2026-11-25 19:00"] {
            let error = parse_instant(bad).expect_err("not an instant");
            assert!(error.contains("2026-11-25T19:00:00+08:00") && error.contains(bad), "{error}");
        }
    }
}
