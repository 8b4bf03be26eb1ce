//! Time for orders and idempotency records: Unix seconds on the mall's
//! clock ([`crate::clock`]) and RFC 3339 timestamps in UTC.

use crate::calendar::civil_from_days;

/// Seconds since the Unix epoch, now, on the mall's clock.
pub(crate) fn unix_now() -> i64 {
    crate::clock::now_unix()
}

/// Unix seconds as RFC 3339 in UTC.
pub fn rfc3339(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}
