//! Step-by-step directions from a [`Route`], in the shopper's language ([`MapWords`]): where
//! to start, which way to walk along which corridor and for how far, which
//! escalator or lift to take, and which hand the destination is on.

use crate::MapWords;
use crate::geo::Point;
use crate::imdf::{IndoorMap, PlaceKind};
use crate::route::{Move, Route};
use crate::unit::UnitKind;

/// Walks shorter than this (metres) are folded into the next step.
const SHORT_WALK_M: f64 = 3.0;

/// The steps of `route` in `lang`, numbered by the caller.
pub fn steps(map: &IndoorMap, route: &Route, words: &MapWords) -> Vec<String> {
    let mut steps = Vec::new();
    let from = words.name(&route.from.name);
    steps.push(match &route.from.kind {
        PlaceKind::Entrance => (words.enter_by)(&from),
        _ => (words.start_at)(&from),
    });
    if route.hops.is_empty() {
        steps.push((words.already_at)(&words.name(&route.to.name)));
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
                    steps.push(walk_step(map, unit, start, end, metres, words));
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
                steps.push(ride_step(map, kind, from_unit, to_unit, words));
            }
        }
    }
    steps.push(arrival(map, route, heading, words));
    steps
}

/// The whole directions as one text: numbered steps, then distance and time.
pub fn text(map: &IndoorMap, route: &Route, words: &MapWords) -> String {
    let mut lines: Vec<String> =
        steps(map, route, words).iter().enumerate().map(|(i, s)| format!("{}. {s}", i + 1)).collect();
    lines.push(summary(route, words));
    lines.join("\n")
}

/// "About 70 m, a 3 min walk" in `lang`.
pub fn summary(route: &Route, words: &MapWords) -> String {
    (words.summary)(route.distance_m, route.eta_minutes)
}

/// Metres rounded to the nearest 5 (at least 5).
fn about(metres: f64) -> u32 {
    ((metres / 5.0).round() as u32 * 5).max(5)
}

/// The compass direction of a walk from `a` to `b`.
fn compass(a: Point, b: Point, words: &MapWords) -> &'static str {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let [east, west, north, south] = words.compass;
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 { east } else { west }
    } else if dy >= 0.0 {
        north
    } else {
        south
    }
}

fn walk_step(map: &IndoorMap, unit: usize, a: Point, b: Point, metres: f64, words: &MapWords) -> String {
    let dir = compass(a, b, words);
    let m = about(metres);
    match map.units[unit].name.as_ref() {
        Some(name) => (words.walk_along)(&words.name(name), dir, m),
        None => (words.walk)(dir, m),
    }
}

fn ride_step(map: &IndoorMap, kind: UnitKind, from_unit: usize, to_unit: usize, words: &MapWords) -> String {
    let (a, b) = (&map.levels[map.units[from_unit].level], &map.levels[map.units[to_unit].level]);
    let up = b.ordinal > a.ordinal;
    let label = words.name(&b.short_name);
    let name = map.units[from_unit].name.as_ref().map(|n| words.name(n));
    (words.ride)(kind, name.as_deref(), up, &label)
}

fn arrival(map: &IndoorMap, route: &Route, heading: Option<(Point, Point)>, words: &MapWords) -> String {
    let to = &route.to;
    // A unit's name tells where a store is; a corridor's would only repeat the last step.
    let unit = to
        .unit
        .filter(|&u| map.units[u].kind != UnitKind::Walkway)
        .and_then(|u| map.units[u].name.as_ref())
        .map(|n| words.name(n));
    // Which hand the destination is on, walking the last corridor.
    let side = heading.and_then(|(a, b)| {
        let (hx, hy) = (b.x - a.x, b.y - a.y);
        let (vx, vy) = (to.point.x - b.x, to.point.y - b.y);
        let cross = hx * vy - hy * vx;
        let len = hx.hypot(hy) * vx.hypot(vy);
        (len > 0.0 && (cross / len).abs() > 0.5).then_some(cross > 0.0)
    });
    (words.arrive)(&to.name, unit.as_deref(), side)
}
