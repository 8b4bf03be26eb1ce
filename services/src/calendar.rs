//! Dates and times with a UTC offset, as the mall's events carry them:
//! RFC 3339 read and written, local days and weekdays, without a time crate.

/// A moment and the UTC offset it is told in (the mall's local time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    /// Seconds east of UTC (`+08:00` is 28 800).
    pub offset: i32,
}

impl LocalTime {
    /// `2026-11-28T14:00:00+08:00` (or `Z`, fractions of a second ignored).
    pub fn parse(text: &str) -> Option<LocalTime> {
        let text = text.trim();
        let (date, rest) = text.split_once(['T', 't', ' '])?;
        let mut ymd = date.splitn(3, '-');
        let year: i64 = ymd.next()?.parse().ok()?;
        let month: u32 = ymd.next()?.parse().ok()?;
        let day: u32 = ymd.next()?.parse().ok()?;
        let zone_at = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
        let (clock, zone) = rest.split_at(zone_at);
        let clock = clock.split('.').next()?;
        let mut hms = clock.splitn(3, ':');
        let hour: i64 = hms.next()?.parse().ok()?;
        let minute: i64 = hms.next()?.parse().ok()?;
        let second: i64 = hms.next().map_or(Some(0), |s| s.parse().ok())?;
        let offset = match zone {
            "" | "Z" | "z" => 0,
            _ => {
                let sign = if zone.starts_with('-') { -1 } else { 1 };
                let (h, m) = zone[1..].split_once(':').unwrap_or((&zone[1..], "0"));
                sign * (h.parse::<i32>().ok()? * 3600 + m.parse::<i32>().ok()? * 60)
            }
        };
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        let local = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
        Some(LocalTime { unix: local - i64::from(offset), offset })
    }

    /// The same moment told in `offset`.
    pub fn at(unix: i64, offset: i32) -> LocalTime {
        LocalTime { unix, offset }
    }

    fn local_seconds(self) -> i64 {
        self.unix + i64::from(self.offset)
    }

    /// The local day number (days since 1970-01-01).
    pub fn day(self) -> i64 {
        self.local_seconds().div_euclid(86_400)
    }

    /// The local date: (year, month, day).
    pub fn date(self) -> (i64, u32, u32) {
        civil_from_days(self.day())
    }

    /// The local weekday, Monday = 1 … Sunday = 7.
    pub fn weekday(self) -> u32 {
        weekday_of(self.day())
    }

    /// The local time of day: (hour, minute).
    pub fn clock(self) -> (u32, u32) {
        let secs = self.local_seconds().rem_euclid(86_400);
        ((secs / 3600) as u32, (secs % 3600 / 60) as u32)
    }

    /// The local midnight starting day `day`, in this offset.
    pub fn midnight(day: i64, offset: i32) -> LocalTime {
        LocalTime { unix: day * 86_400 - i64::from(offset), offset }
    }

    /// RFC 3339 with the offset: `2026-11-28T14:00:00+08:00`.
    pub fn rfc3339(self) -> String {
        let (year, month, day) = self.date();
        let secs = self.local_seconds().rem_euclid(86_400);
        let zone = if self.offset == 0 {
            "Z".to_owned()
        } else {
            let sign = if self.offset < 0 { '-' } else { '+' };
            let abs = self.offset.unsigned_abs();
            format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60)
        };
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{zone}",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        )
    }
}

/// The weekday of a day number, Monday = 1 … Sunday = 7 (1970-01-01 was a Thursday).
pub fn weekday_of(day: i64) -> u32 {
    ((day + 3).rem_euclid(7) + 1) as u32
}

/// The day number of a proleptic Gregorian date.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day number (days since 1970-01-01).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_rfc3339_with_offsets() {
        let t = LocalTime::parse("2026-11-28T14:30:00+08:00").expect("parses");
        assert_eq!(t.unix, LocalTime::parse("2026-11-28T06:30:00Z").expect("parses").unix);
        assert_eq!((t.date(), t.clock(), t.weekday()), ((2026, 11, 28), (14, 30), 6));
        assert_eq!(t.rfc3339(), "2026-11-28T14:30:00+08:00");
        assert_eq!(LocalTime::at(t.unix, 0).rfc3339(), "2026-11-28T06:30:00Z");
        assert_eq!(LocalTime::at(0, -5 * 3600).rfc3339(), "1969-12-31T19:00:00-05:00");
        assert_eq!(LocalTime::parse("2026-02-30T25:00:00Z"), None);
        assert_eq!(LocalTime::parse("tomorrow"), None);
    }

    #[test]
    fn days_round_trip_and_know_their_weekday() {
        for day in [-1000, 0, 19_000, 20_785] {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
        }
        assert_eq!(weekday_of(0), 4, "1970-01-01 was a Thursday");
        assert_eq!(LocalTime::midnight(20_785, 28_800).rfc3339(), "2026-11-28T00:00:00+08:00");
    }
}
