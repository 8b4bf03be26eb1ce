//! Step-by-step directions from a [`Route`], in Chinese or English: where
//! to start, which way to walk along which corridor and for how far, which
//! escalator or lift to take, and which hand the destination is on.

use crate::Lang;
use crate::geo::Point;
use crate::imdf::{IndoorMap, PlaceKind, UnitKind};
use crate::route::{Move, Route};

/// Walks shorter than this (metres) are folded into the next step.
const SHORT_WALK_M: f64 = 3.0;

/// The steps of `route` in `lang`, numbered by the caller.
pub fn steps(map: &IndoorMap, route: &Route, lang: Lang) -> Vec<String> {
    let mut steps = Vec::new();
    let from = route.from.name.pick(lang);
    steps.push(match (&route.from.kind, lang) {
        (PlaceKind::Entrance, Lang::Zh) => format!("从{from}进入"),
        (PlaceKind::Entrance, Lang::En) => format!("Enter by the {from}"),
        (_, Lang::Zh) => format!("从{from}出发"),
        (_, Lang::En) => format!("Start at {from}"),
    });
    if route.hops.is_empty() {
        steps.push(match lang {
            Lang::Zh => format!("您已在{}", route.to.name.zh),
            Lang::En => format!("You are already at {}", route.to.name.en),
        });
        return steps;
    }
    // Runs of walking through one walkway, and runs of rides.
    let mut heading: Option<(Point, Point)> = None;
    let mut i = 0;
    let hops = &route.hops;
    while i < hops.len() {
        match hops[i].how {
            Move::Walk { unit } if map.units[unit].kind == UnitKind::Walkway => {
                let start = hops[i].from;
                let mut metres = 0.0;
                let mut end = start;
                while i < hops.len() && hops[i].how == (Move::Walk { unit }) {
                    metres += hops[i].metres;
                    end = hops[i].to;
                    i += 1;
                }
                if metres >= SHORT_WALK_M {
                    heading = Some((start, end));
                    steps.push(walk_step(map, unit, start, end, metres, lang));
                }
            }
            Move::Walk { .. } => i += 1,
            Move::Ride { kind, from_unit, .. } => {
                let mut to_unit = from_unit;
                while i < hops.len() {
                    match hops[i].how {
                        Move::Ride { to_unit: t, .. } => to_unit = t,
                        Move::Walk { .. } => break,
                    }
                    i += 1;
                }
                steps.push(ride_step(map, kind, from_unit, to_unit, lang));
            }
        }
    }
    steps.push(arrival(map, route, heading, lang));
    steps
}

/// The whole directions as one text: numbered steps, then distance and time.
pub fn text(map: &IndoorMap, route: &Route, lang: Lang) -> String {
    let mut lines: Vec<String> =
        steps(map, route, lang).iter().enumerate().map(|(i, s)| format!("{}. {s}", i + 1)).collect();
    lines.push(summary(route, lang));
    lines.join("\n")
}

/// "About 70 m, a 3 min walk" in `lang`.
pub fn summary(route: &Route, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("约 {} 米，步行约 {} 分钟", route.distance_m, route.eta_minutes),
        Lang::En => format!("About {} m, a {} min walk", route.distance_m, route.eta_minutes),
    }
}

/// Metres rounded to the nearest 5 (at least 5).
fn about(metres: f64) -> u32 {
    ((metres / 5.0).round() as u32 * 5).max(5)
}

/// The compass direction of a walk from `a` to `b`.
fn compass(a: Point, b: Point, lang: Lang) -> &'static str {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (zh, en) = if dx.abs() >= dy.abs() {
        if dx >= 0.0 { ("东", "east") } else { ("西", "west") }
    } else if dy >= 0.0 {
        ("北", "north")
    } else {
        ("南", "south")
    };
    match lang {
        Lang::Zh => zh,
        Lang::En => en,
    }
}

fn walk_step(map: &IndoorMap, unit: usize, a: Point, b: Point, metres: f64, lang: Lang) -> String {
    let dir = compass(a, b, lang);
    let m = about(metres);
    match (map.units[unit].name.as_ref(), lang) {
        (Some(name), Lang::Zh) => format!("沿{}向{dir}走约 {m} 米", name.zh),
        (Some(name), Lang::En) => format!("Walk {dir} through the {} for about {m} m", name.en),
        (None, Lang::Zh) => format!("向{dir}走约 {m} 米"),
        (None, Lang::En) => format!("Walk {dir} for about {m} m"),
    }
}

fn ride_step(map: &IndoorMap, kind: UnitKind, from_unit: usize, to_unit: usize, lang: Lang) -> String {
    let (a, b) = (&map.levels[map.units[from_unit].level], &map.levels[map.units[to_unit].level]);
    let up = b.ordinal > a.ordinal;
    let label = b.short_name.pick(lang);
    let name = map.units[from_unit].name.as_ref().map(|n| n.pick(lang).to_owned());
    match lang {
        Lang::Zh => {
            let what = name.unwrap_or_else(|| {
                match kind {
                    UnitKind::Escalator => "扶梯",
                    UnitKind::Elevator => "电梯",
                    _ => "楼梯",
                }
                .to_owned()
            });
            let verb = if kind == UnitKind::Stairs { "走" } else { "乘" };
            let dir = if up { "上" } else { "下" };
            format!("{verb}{what}{dir}到 {label}")
        }
        Lang::En => {
            let what = name.unwrap_or_else(|| {
                match kind {
                    UnitKind::Escalator => "escalator",
                    UnitKind::Elevator => "lift",
                    _ => "stairs",
                }
                .to_owned()
            });
            let dir = if up { "up" } else { "down" };
            match kind {
                UnitKind::Stairs => format!("Take the {what} {dir} to {label}"),
                UnitKind::Elevator => format!("Take the {what} to {label}"),
                _ => format!("Take the {what} {dir} to {label}"),
            }
        }
    }
}

fn arrival(map: &IndoorMap, route: &Route, heading: Option<(Point, Point)>, lang: Lang) -> String {
    let to = &route.to;
    let unit = to.unit.and_then(|u| map.units[u].name.as_ref()).map(|n| n.pick(lang).to_owned());
    // Which hand the destination is on, walking the last corridor.
    let side = heading.and_then(|(a, b)| {
        let (hx, hy) = (b.x - a.x, b.y - a.y);
        let (vx, vy) = (to.point.x - b.x, to.point.y - b.y);
        let cross = hx * vy - hy * vx;
        let len = hx.hypot(hy) * vx.hypot(vy);
        (len > 0.0 && (cross / len).abs() > 0.5).then_some(cross > 0.0)
    });
    let name = to.name.pick(lang);
    match lang {
        Lang::Zh => {
            // The sign may be in English only: name the store both ways.
            let mut notes: Vec<String> = Vec::new();
            if !to.name.en.is_empty() && to.name.en != to.name.zh && !to.name.zh.contains(&to.name.en) {
                notes.push(to.name.en.clone());
            }
            notes.extend(unit.filter(|u| u != name).map(|u| format!("门牌 {u}")));
            let unit = if notes.is_empty() { String::new() } else { format!("（{}）", notes.join("，")) };
            let side = side.map(|left| if left { "，在左手边" } else { "，在右手边" }).unwrap_or_default();
            format!("到达{name}{unit}{side}")
        }
        Lang::En => {
            let unit = unit.filter(|u| u != name).map(|u| format!(" (unit {u})")).unwrap_or_default();
            let side =
                side.map(|left| if left { ", on your left" } else { ", on your right" }).unwrap_or_default();
            format!("Arrive at {name}{unit}{side}")
        }
    }
}
