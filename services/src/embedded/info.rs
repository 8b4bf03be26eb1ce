//! The demo mall as an institution (`services/data/demo-mall-info.json`): its
//! information sections, its weekly programme of events (each occurrence
//! dated in the mall's UTC offset) and the offers across the mall.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::calendar::LocalTime;
use crate::error::ServiceError;
use crate::models::{EventQuery, InfoSection, MallEvent, MallPromotion, Page};

const INFO_JSON: &str = include_str!("../../data/demo-mall-info.json");

/// How far ahead events are listed when the query names no end.
const DEFAULT_SPAN_DAYS: i64 = 14;
/// The longest window one query may span.
const MAX_SPAN_DAYS: i64 = 62;

/// The whole file.
#[derive(Debug, Deserialize)]
pub(crate) struct InfoData {
    /// The mall's local offset, `+08:00`.
    utc_offset: String,
    pub sections: Vec<InfoSection>,
    events: Vec<EventTemplate>,
    pub promotions: Vec<MallPromotion>,
}

/// An event held every week on some weekdays.
#[derive(Debug, Deserialize)]
struct EventTemplate {
    id: String,
    title: String,
    title_en: String,
    description: String,
    description_en: String,
    /// Monday = 1 … Sunday = 7.
    weekdays: Vec<u32>,
    /// `HH:MM`, local.
    start: String,
    end: String,
    place: String,
    place_en: String,
    #[serde(default)]
    store_id: Option<String>,
    #[serde(default)]
    area_id: Option<String>,
    #[serde(default)]
    floor: Option<i32>,
}

/// The demo mall's information, parsed once per process.
pub(crate) fn demo() -> &'static InfoData {
    static DATA: OnceLock<InfoData> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(INFO_JSON).expect("demo-mall-info.json is valid"))
}

fn minutes(hhmm: &str) -> i64 {
    let (h, m) = hhmm.split_once(':').unwrap_or((hhmm, "0"));
    h.trim().parse::<i64>().unwrap_or(0) * 60 + m.trim().parse::<i64>().unwrap_or(0)
}

fn time_param(field: &str, value: Option<&str>) -> Result<Option<LocalTime>, ServiceError> {
    value
        .map(|text| {
            LocalTime::parse(text).ok_or_else(|| ServiceError::InvalidArgument {
                field: Some(field.to_owned()),
                message: format!("{field} must be an RFC 3339 time, not {text:?}"),
            })
        })
        .transpose()
}

impl InfoData {
    fn offset(&self) -> i32 {
        LocalTime::parse(&format!("2000-01-01T00:00:00{}", self.utc_offset)).map_or(0, |t| t.offset)
    }

    /// The occurrences that end after `from` (default `now`) and start before
    /// `to` (default 14 days later), soonest first.
    pub fn events(&self, query: &EventQuery, now: i64) -> Result<Page<MallEvent>, ServiceError> {
        let offset = self.offset();
        let from = time_param("from", query.from.as_deref())?.map_or(now, |t| t.unix);
        let to = time_param("to", query.to.as_deref())?.map_or(from + DEFAULT_SPAN_DAYS * 86_400, |t| t.unix);
        if to < from {
            return Err(ServiceError::InvalidArgument {
                field: Some("to".to_owned()),
                message: "to must not be before from".to_owned(),
            });
        }
        let to = to.min(from + MAX_SPAN_DAYS * 86_400);
        let mut items = Vec::new();
        let first_day = LocalTime::at(from, offset).day() - 1;
        let last_day = LocalTime::at(to, offset).day();
        for day in first_day..=last_day {
            let midnight = LocalTime::midnight(day, offset);
            for event in &self.events {
                if !event.weekdays.contains(&midnight.weekday()) {
                    continue;
                }
                let starts = midnight.unix + minutes(&event.start) * 60;
                let ends = midnight.unix + minutes(&event.end) * 60;
                if ends <= from || starts >= to {
                    continue;
                }
                items.push(MallEvent {
                    id: format!(
                        "{}-{}",
                        event.id,
                        LocalTime::at(starts, offset).rfc3339().get(..10).unwrap_or("")
                    ),
                    title: event.title.clone(),
                    title_en: event.title_en.clone(),
                    description: event.description.clone(),
                    description_en: event.description_en.clone(),
                    starts_at: LocalTime::at(starts, offset).rfc3339(),
                    ends_at: LocalTime::at(ends, offset).rfc3339(),
                    place: event.place.clone(),
                    place_en: event.place_en.clone(),
                    store_id: event.store_id.clone(),
                    area_id: event.area_id.clone(),
                    floor: event.floor,
                });
            }
        }
        items.sort_by(|a, b| a.starts_at.cmp(&b.starts_at).then_with(|| a.id.cmp(&b.id)));
        Ok(Page { total: items.len() as u64, items })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weekend_window_lists_the_weekend_programme_in_local_time() {
        let saturday = LocalTime::parse("2026-11-28T00:00:00+08:00").expect("parses");
        let query = EventQuery {
            from: Some(saturday.rfc3339()),
            to: Some(LocalTime::at(saturday.unix + 2 * 86_400, saturday.offset).rfc3339()),
        };
        let page = demo().events(&query, 0).expect("lists");
        let titles: Vec<&str> = page.items.iter().map(|e| e.title_en.as_str()).collect();
        assert!(titles.contains(&"Weekend family craft workshop"), "{titles:?}");
        assert!(titles.contains(&"LEGO build challenge"), "{titles:?}");
        assert!(!titles.contains(&"Friday live music in the atrium"), "{titles:?}");
        let craft = page.items.iter().find(|e| e.id.starts_with("e-kids-craft")).expect("listed");
        assert_eq!(craft.starts_at, "2026-11-28T14:00:00+08:00");
        assert!(page.items.windows(2).all(|w| w[0].starts_at <= w[1].starts_at));
    }

    #[test]
    fn an_unreadable_or_backwards_window_is_refused_by_name() {
        let bad = EventQuery { from: Some("saturday".into()), to: None };
        assert!(
            matches!(demo().events(&bad, 0), Err(ServiceError::InvalidArgument { field: Some(f), .. }) if f == "from")
        );
        let backwards =
            EventQuery { from: Some("2026-11-28T00:00:00Z".into()), to: Some("2026-11-27T00:00:00Z".into()) };
        assert!(
            matches!(demo().events(&backwards, 0), Err(ServiceError::InvalidArgument { field: Some(f), .. }) if f == "to")
        );
    }
}
