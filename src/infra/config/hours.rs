//! The service desk's clock as the config writes it: opening hours
//! (`support.hours`, `HH:MM-HH:MM`) and the desk's offset from UTC
//! (`support.utc_offset`). Read here, below the engine, so the config's
//! validation and the desk (`engine/support.rs`) read them alike.

/// Opening hours within a day, in minutes after midnight; `open > close`
/// runs past midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hours {
    pub(crate) open: u32,
    pub(crate) close: u32,
}

impl Hours {
    /// Reads `HH:MM-HH:MM`; `None` for an empty text (always open).
    pub(crate) fn parse(text: &str) -> Result<Option<Hours>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        let bad = || format!("`{text}` is not opening hours like 09:00-22:00");
        let (open, close) = text.split_once(['-', '–']).ok_or_else(bad)?;
        let minute = |t: &str| -> Option<u32> {
            let (h, m) = t.trim().split_once(':')?;
            let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
            (h <= 24 && m < 60 && h * 60 + m <= 1440).then_some(h * 60 + m)
        };
        let (open, close) = (minute(open).ok_or_else(bad)?, minute(close).ok_or_else(bad)?);
        if open == close {
            return Err(format!("`{text}`: opening and closing at the same time"));
        }
        Ok(Some(Hours { open, close }))
    }

    /// Whether the desk is open at `minute` after midnight.
    pub(crate) fn is_open(&self, minute: u32) -> bool {
        if self.open < self.close {
            (self.open..self.close).contains(&minute)
        } else {
            minute >= self.open || minute < self.close
        }
    }
}

/// Reads a UTC offset `+08:00` (or `-05:30`, `+8`, `Z`) into minutes east of UTC.
pub(crate) fn parse_offset(text: &str) -> Result<i32, String> {
    let text = text.trim();
    if text.is_empty() || text.eq_ignore_ascii_case("z") || text.eq_ignore_ascii_case("utc") {
        return Ok(0);
    }
    let bad = || format!("`{text}` is not an offset from UTC like +08:00");
    let (sign, rest) = match text.as_bytes()[0] {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    let (h, m): (i32, i32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if h > 14 || !(0..60).contains(&m) {
        return Err(bad());
    }
    Ok(sign * (h * 60 + m))
}
