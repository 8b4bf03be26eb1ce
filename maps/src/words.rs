//! [`MapWords`]: the words of directions and floor plans in one language,
//! as fixed text and small functions. The crate brings Chinese
//! ([`MapWords::CHINESE`]) and English ([`MapWords::ENGLISH`]); a bot's own
//! text table may bring more (a language is a value, not a variant).

use std::borrow::Cow;

use crate::Labels;
use crate::unit::UnitKind;

/// The words of directions and floor plans in one language.
#[derive(Debug)]
pub struct MapWords {
    /// The name of a place, level or section in this language (from the
    /// map's names; a language may convert them, as Traditional Chinese does
    /// from the Chinese names).
    pub name: fn(&Labels) -> Cow<'_, str>,
    /// The first step from an entrance: (its name).
    pub enter_by: fn(&str) -> String,
    /// The first step from another place: (its name).
    pub start_at: fn(&str) -> String,
    /// The only step when the shopper is there: (the place's name).
    pub already_at: fn(&str) -> String,
    /// East, west, north, south.
    pub compass: [&'static str; 4],
    /// A walk along a named walkway: (walkway, compass direction, metres).
    pub walk_along: fn(&str, &str, u32) -> String,
    /// A walk: (compass direction, metres).
    pub walk: fn(&str, u32) -> String,
    /// A ride: (escalator, lift or stairs; its name on the map; up; the level's sign).
    pub ride: fn(UnitKind, Option<&str>, bool, &str) -> String,
    /// The last step: (the place's names, its unit's name, on the left / right).
    pub arrive: fn(&Labels, Option<&str>, Option<bool>) -> String,
    /// Distance and time: (metres, minutes).
    pub summary: fn(u32, u32) -> String,
    /// A floor plan of a route: (level sign, level name, destination, "(1/2)" or "").
    pub route_title: fn(&str, &str, &str, &str) -> String,
    /// The note where a leg ends: (the next level's sign).
    pub next_level: fn(&str) -> String,
    /// The label of an escalator, lift, stairs or restroom on the plan.
    pub unit_label: fn(UnitKind) -> Option<&'static str>,
    /// The legend: route, start, destination, escalator, lift, stairs, restrooms.
    pub legend: [&'static str; 7],
    /// The north arrow's letter.
    pub north: &'static str,
}

impl MapWords {
    /// The name of a place, level or section in this language.
    pub fn name<'a>(&self, labels: &'a Labels) -> Cow<'a, str> {
        (self.name)(labels)
    }

    /// Simplified Chinese.
    pub const CHINESE: MapWords = MapWords {
        name: |labels| Cow::Borrowed(&labels.zh),
        enter_by: |from| format!("从{from}进入"),
        start_at: |from| format!("从{from}出发"),
        already_at: |to| format!("您已在{to}"),
        compass: ["东", "西", "北", "南"],
        walk_along: |walkway, dir, m| format!("沿{walkway}向{dir}走约 {m} 米"),
        walk: |dir, m| format!("向{dir}走约 {m} 米"),
        ride: |kind, name, up, label| {
            let what = name.unwrap_or(match kind {
                UnitKind::Escalator => "扶梯",
                UnitKind::Elevator => "电梯",
                _ => "楼梯",
            });
            let verb = if kind == UnitKind::Stairs { "走" } else { "乘" };
            let dir = if up { "上" } else { "下" };
            format!("{verb}{what}{dir}到 {label}")
        },
        arrive: |to, unit, side| {
            chinese_arrival(to, &to.zh, unit, side, ["到达", "门牌", "，在左手边", "，在右手边"])
        },
        summary: |m, min| format!("约 {m} 米，步行约 {min} 分钟"),
        route_title: |sign, level, to, count| format!("{sign} {level} · 前往 {to}{count}"),
        next_level: |sign| format!("到 {sign}"),
        unit_label: |kind| match kind {
            UnitKind::Escalator => Some("扶梯"),
            UnitKind::Elevator => Some("电梯"),
            UnitKind::Stairs => Some("楼梯"),
            UnitKind::Restroom => Some("洗手间"),
            _ => None,
        },
        legend: ["路线", "起点", "目的地", "扶梯", "电梯", "楼梯", "洗手间"],
        north: "北",
    };

    /// English.
    pub const ENGLISH: MapWords = MapWords {
        name: |labels| Cow::Borrowed(&labels.en),
        enter_by: |from| format!("Enter by the {from}"),
        start_at: |from| format!("Start at {from}"),
        already_at: |to| format!("You are already at {to}"),
        compass: ["east", "west", "north", "south"],
        walk_along: |walkway, dir, m| format!("Walk {dir} through the {walkway} for about {m} m"),
        walk: |dir, m| format!("Walk {dir} for about {m} m"),
        ride: |kind, name, up, label| {
            let what = name.unwrap_or(match kind {
                UnitKind::Escalator => "escalator",
                UnitKind::Elevator => "lift",
                _ => "stairs",
            });
            let dir = if up { "up" } else { "down" };
            match kind {
                UnitKind::Elevator => format!("Take the {what} to {label}"),
                _ => format!("Take the {what} {dir} to {label}"),
            }
        },
        arrive: |to, unit, side| {
            let name = &to.en;
            let unit = unit.filter(|u| u != name).map(|u| format!(" (unit {u})")).unwrap_or_default();
            let side =
                side.map(|left| if left { ", on your left" } else { ", on your right" }).unwrap_or_default();
            format!("Arrive at {name}{unit}{side}")
        },
        summary: |m, min| format!("About {m} m, a {min} min walk"),
        route_title: |sign, level, to, count| format!("{sign} {level} · to {to}{count}"),
        next_level: |sign| format!("to {sign}"),
        unit_label: |kind| match kind {
            UnitKind::Escalator => Some("Escalator"),
            UnitKind::Elevator => Some("Lift"),
            UnitKind::Stairs => Some("Stairs"),
            UnitKind::Restroom => Some("WC"),
            _ => None,
        },
        legend: ["Route", "Start", "Destination", "Escalator", "Lift", "Stairs", "Restrooms"],
        north: "N",
    };
}

/// The last step as Chinese writes it: the place's name (`name`), its English
/// name too when the sign may show only that, its unit, and which hand it is
/// on. `words` are "arrive at", "unit", "on the left", "on the right".
pub fn chinese_arrival(
    to: &Labels,
    name: &str,
    unit: Option<&str>,
    side: Option<bool>,
    words: [&str; 4],
) -> String {
    let mut notes: Vec<String> = Vec::new();
    if !to.en.is_empty() && to.en != to.zh && !to.zh.contains(&to.en) {
        notes.push(to.en.clone());
    }
    notes.extend(unit.filter(|u| *u != name).map(|u| format!("{} {u}", words[1])));
    let unit = if notes.is_empty() { String::new() } else { format!("（{}）", notes.join("，")) };
    let side = side.map(|left| if left { words[2] } else { words[3] }).unwrap_or_default();
    format!("{}{name}{unit}{side}", words[0])
}
