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

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::calendar::LocalTime;

/// The variable that sets the instant the process starts at.
pub const CLOCK_VAR: &str = "MALLBOT_CLOCK";

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

fn system_now() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The mall's time now, in Unix seconds.
pub fn now_unix() -> i64 {
    system_now().saturating_add(offset())
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
    fn anything_else_is_refused_with_an_example() {
        for bad in ["", "tomorrow", "2026-11-25", "2026-11-25 19:00"] {
            let error = parse_instant(bad).expect_err("not an instant");
            assert!(error.contains("2026-11-25T19:00:00+08:00") && error.contains(bad), "{error}");
        }
    }
}
