//! Walking routes on an [`IndoorMap`]: a graph of the points shoppers pass
//! (openings, unit centres) joined by straight walks inside units and by
//! escalator, lift and stair rides between floors; the shortest route by
//! walking distance between two places.
//!
//! Nodes sit at openings and unit centres, and at places standing at their
//! own point inside a unit (an ATM along a corridor); walks inside a unit are
//! straight and never go through a shop; rides come from `relationship`
//! features, a lift's wait charged once a ride.
//! [`RouteOptions::avoid_stairs`] keeps to lifts. [`Router::nearest`] finds
//! the nearest of the places a test picks by one search from the start,
//! stopped at the first reached. A [`Route`] has one leg of points per floor,
//! its hops, distance and time.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::geo::Point;
use crate::imdf::{IndoorMap, Place};
use crate::unit::UnitKind;

/// Metres of walking one escalator ride between adjacent floors counts as.
const ESCALATOR_M_PER_FLOOR: f64 = 15.0;
/// Metres of walking one flight of stairs counts as.
const STAIRS_M_PER_FLOOR: f64 = 20.0;
/// Metres one lift ride counts as per floor, once in the lift.
const ELEVATOR_M_PER_FLOOR: f64 = 5.0;
/// Metres of walking that waiting for a lift is worth (charged once a ride).
const ELEVATOR_WAIT_M: f64 = 40.0;
/// Walking speed for the time estimate, metres per minute.
const WALK_M_PER_MIN: f64 = 50.0;

/// Why no route was found.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RouteError {
    /// No place has that id or name.
    #[error("no place called \"{0}\" on the map")]
    UnknownPlace(String),
    /// The map has no way between the two places.
    #[error("no walkable way from {from} to {to}")]
    Unreachable { from: String, to: String },
}

/// How the shopper can move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RouteOptions {
    /// Lifts only between floors: no stairs and no escalators (prams, wheelchairs).
    pub avoid_stairs: bool,
}

/// What a step along an edge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Walking inside a unit.
    Walk { unit: usize },
    /// Riding or climbing between floors.
    Ride { kind: UnitKind, from_unit: usize, to_unit: usize },
}

#[derive(Debug, Clone, Copy)]
struct Edge {
    to: usize,
    cost: f64,
    metres: f64,
    how: Move,
}

#[derive(Debug, Clone, Copy)]
enum Node {
    Opening,
    Centre(usize),
    /// A place standing at its own point inside a unit (an ATM along a
    /// corridor): an end of a walk, never walked through.
    Spot,
}

/// The walkable graph of one map, ready to route on.
#[derive(Debug, Clone)]
pub struct Router {
    map: IndoorMap,
    nodes: Vec<(Node, usize, Point)>,
    edges: Vec<Vec<Edge>>,
    /// The node of each place of the map standing at its own point, by index into `map.places`.
    spots: std::collections::HashMap<usize, usize>,
}

/// One stretch of a route on one floor.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Leg {
    /// Index into the map's levels.
    pub level: usize,
    /// The floor number (1 = ground, -1 = B1).
    pub floor: i32,
    /// The points walked through, in order, in metres.
    pub points: Vec<Point>,
}

/// One edge of the route, for the step-by-step directions.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    pub from: Point,
    pub to: Point,
    pub metres: f64,
    pub how: Move,
}

/// A route between two places.
#[derive(Debug, Clone)]
pub struct Route {
    pub from: Place,
    pub to: Place,
    /// One per floor walked on, in order.
    pub legs: Vec<Leg>,
    pub hops: Vec<Hop>,
    /// Walking distance, counting rides as the catalog does.
    pub distance_m: u32,
    pub eta_minutes: u32,
}

impl Route {
    /// The floors the route passes over, in order.
    pub fn floors(&self) -> Vec<i32> {
        self.legs.iter().map(|l| l.floor).collect()
    }

    /// The kinds of vertical connection used, in order.
    pub fn rides(&self) -> Vec<UnitKind> {
        let mut out: Vec<UnitKind> = Vec::new();
        let mut last_was_ride = false;
        for hop in &self.hops {
            match hop.how {
                Move::Ride { kind, .. } => {
                    if !last_was_ride {
                        out.push(kind);
                    }
                    last_was_ride = true;
                }
                Move::Walk { .. } => last_was_ride = false,
            }
        }
        out
    }
}

#[derive(PartialEq)]
struct Queued(f64, usize);
impl Eq for Queued {}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(self.1.cmp(&other.1))
    }
}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Router {
    /// Builds the walkable graph of `map`.
    pub fn new(map: IndoorMap) -> Router {
        let mut nodes = Vec::new();
        for o in map.openings.iter() {
            nodes.push((Node::Opening, o.level, o.middle()));
        }
        let centre_base = nodes.len();
        for (i, u) in map.units.iter().enumerate() {
            nodes.push((Node::Centre(i), u.level, u.display_point));
        }
        let mut edges = vec![Vec::new(); nodes.len()];
        let add = |edges: &mut Vec<Vec<Edge>>, a: usize, b: usize, cost: f64, metres: f64, how: Move| {
            edges[a].push(Edge { to: b, cost, metres, how });
            edges[b].push(Edge { to: a, cost, metres, how: reverse(how) });
        };
        // Inside each unit: straight walks between its openings and its centre.
        let mut portals: Vec<Vec<usize>> = vec![Vec::new(); map.units.len()];
        for (i, o) in map.openings.iter().enumerate() {
            for &u in &o.units {
                portals[u].push(i);
            }
        }
        for (u, unit) in map.units.iter().enumerate() {
            if unit.kind == UnitKind::Closed {
                continue;
            }
            let centre = centre_base + u;
            let wait = if unit.kind == UnitKind::Elevator { ELEVATOR_WAIT_M / 2.0 } else { 0.0 };
            let doors = &portals[u];
            for (k, &a) in doors.iter().enumerate() {
                let pa = nodes[a].2;
                let d = pa.distance(unit.display_point);
                add(&mut edges, a, centre, d + wait, d, Move::Walk { unit: u });
                // Shops are ended in, not walked through.
                if matches!(unit.kind, UnitKind::Walkway) {
                    for &b in &doors[k + 1..] {
                        let d = pa.distance(nodes[b].2);
                        add(&mut edges, a, b, d, d, Move::Walk { unit: u });
                    }
                }
            }
        }
        // Places standing at their own point inside a unit: straight walks
        // to the unit's doors and centre.
        let mut spots = std::collections::HashMap::new();
        for (i, place) in map.places.iter().enumerate() {
            let Some(u) = place.unit else { continue };
            let unit = &map.units[u];
            if place.opening.is_some() || place.point.distance(unit.display_point) < 0.5 {
                continue;
            }
            let node = nodes.len();
            nodes.push((Node::Spot, unit.level, place.point));
            edges.push(Vec::new());
            let d = place.point.distance(unit.display_point);
            add(&mut edges, node, centre_base + u, d, d, Move::Walk { unit: u });
            for &door in &portals[u] {
                let d = place.point.distance(nodes[door].2);
                add(&mut edges, node, door, d, d, Move::Walk { unit: u });
            }
            spots.insert(i, node);
        }
        // Between floors.
        for c in &map.connections {
            let (a, b) = (&map.units[c.from_unit], &map.units[c.to_unit]);
            let floors = f64::from(map.levels[a.level].ordinal.abs_diff(map.levels[b.level].ordinal));
            let per_floor = match c.kind {
                UnitKind::Escalator => ESCALATOR_M_PER_FLOOR,
                UnitKind::Elevator => ELEVATOR_M_PER_FLOOR,
                _ => STAIRS_M_PER_FLOOR,
            };
            let how = Move::Ride { kind: c.kind, from_unit: c.from_unit, to_unit: c.to_unit };
            let m = per_floor * floors;
            let (na, nb) = (centre_base + c.from_unit, centre_base + c.to_unit);
            add(&mut edges, na, nb, m, if c.kind == UnitKind::Elevator { 0.0 } else { m }, how);
        }
        Router { map, nodes, edges, spots }
    }

    /// The map routed on.
    pub fn map(&self) -> &IndoorMap {
        &self.map
    }

    fn node_of(&self, place: &Place) -> usize {
        let spot = || {
            let index = self.map.places.iter().position(|p| p.id == place.id && p.point == place.point)?;
            self.spots.get(&index).copied()
        };
        match (place.opening, place.unit) {
            (Some(o), _) => o,
            (None, Some(u)) => spot().unwrap_or(self.map.openings.len() + u),
            (None, None) => 0,
        }
    }

    /// The shortest route between two places, found by id or name.
    pub fn route(&self, from: &str, to: &str, options: RouteOptions) -> Result<Route, RouteError> {
        let find = |q: &str| {
            self.map.find_place(q).cloned().ok_or_else(|| RouteError::UnknownPlace(q.trim().to_owned()))
        };
        let (from, to) = (find(from)?, find(to)?);
        self.route_between(from, to, options)
    }

    /// The shortest route between two places of this map.
    pub fn route_between(&self, from: Place, to: Place, options: RouteOptions) -> Result<Route, RouteError> {
        let (source, target) = (self.node_of(&from), self.node_of(&to));
        match self.search(source, &[target], options) {
            Some((_, back)) => Ok(self.route_from_search(from, to, target, &back)),
            None => Err(RouteError::Unreachable { from: from.id.clone(), to: to.id.clone() }),
        }
    }

    /// The route on foot from `from` to the nearest of the places `wanted`
    /// picks — nearest by walking (rides counted as [`Router::route`]
    /// counts them), not in a straight line — found by one search from
    /// `from` that stops at the first place reached; `None` when no such
    /// place can be walked to.
    pub fn nearest(
        &self,
        from: &Place,
        wanted: impl Fn(&Place) -> bool,
        options: RouteOptions,
    ) -> Option<Route> {
        let targets: Vec<(usize, usize)> = self
            .map
            .places
            .iter()
            .enumerate()
            .filter(|(_, p)| wanted(p))
            .map(|(i, p)| (self.spots.get(&i).copied().unwrap_or_else(|| self.node_of(p)), i))
            .collect();
        if targets.is_empty() {
            return None;
        }
        let nodes: Vec<usize> = targets.iter().map(|(n, _)| *n).collect();
        let (reached, back) = self.search(self.node_of(from), &nodes, options)?;
        let (_, place) = targets.iter().find(|(n, _)| *n == reached)?;
        Some(self.route_from_search(from.clone(), self.map.places[*place].clone(), reached, &back))
    }

    /// Dijkstra from `source` until the first of `targets` is settled: that
    /// target and the way back to the source from every node reached.
    #[allow(clippy::type_complexity)]
    fn search(
        &self,
        source: usize,
        targets: &[usize],
        options: RouteOptions,
    ) -> Option<(usize, Vec<Option<(usize, Edge)>>)> {
        let n = self.nodes.len();
        let mut best = vec![f64::INFINITY; n];
        let mut back: Vec<Option<(usize, Edge)>> = vec![None; n];
        let mut queue = BinaryHeap::new();
        best[source] = 0.0;
        queue.push(Queued(0.0, source));
        while let Some(Queued(cost, node)) = queue.pop() {
            if cost > best[node] {
                continue;
            }
            if targets.contains(&node) {
                return Some((node, back));
            }
            // No walking through shops: a shop's centre is only ever a start or an end.
            if node != source && self.is_dead_end(node) {
                continue;
            }
            for edge in &self.edges[node] {
                if options.avoid_stairs
                    && matches!(edge.how, Move::Ride { kind: UnitKind::Escalator | UnitKind::Stairs, .. })
                {
                    continue;
                }
                let next = cost + edge.cost;
                if next < best[edge.to] {
                    best[edge.to] = next;
                    back[edge.to] = Some((node, *edge));
                    queue.push(Queued(next, edge.to));
                }
            }
        }
        None
    }

    /// The route a search found from `from` to `to` (at node `target`).
    fn route_from_search(
        &self,
        from: Place,
        to: Place,
        target: usize,
        back: &[Option<(usize, Edge)>],
    ) -> Route {
        let mut hops = Vec::new();
        let mut at = target;
        while let Some((prev, edge)) = back[at] {
            hops.push(Hop {
                from: self.nodes[prev].2,
                to: self.nodes[at].2,
                metres: edge.metres,
                how: edge.how,
            });
            at = prev;
        }
        hops.reverse();
        let mut legs: Vec<Leg> = Vec::new();
        let mut level = from.level;
        let push_point = |legs: &mut Vec<Leg>, level: usize, p: Point| match legs.last_mut() {
            Some(leg) if leg.level == level => {
                if leg.points.last() != Some(&p) {
                    leg.points.push(p);
                }
            }
            _ => legs.push(Leg { level, floor: self.map.levels[level].floor, points: vec![p] }),
        };
        push_point(&mut legs, level, from.point);
        for (i, hop) in hops.iter().enumerate() {
            let riding_on = matches!(hops.get(i + 1).map(|h| h.how), Some(Move::Ride { .. }));
            match hop.how {
                Move::Walk { unit } => {
                    level = self.map.units[unit].level;
                    push_point(&mut legs, level, hop.from);
                    push_point(&mut legs, level, hop.to);
                }
                // Floors passed through in a lift are not walked on.
                Move::Ride { .. } if riding_on => {}
                Move::Ride { to_unit, .. } => {
                    level = self.map.units[to_unit].level;
                    push_point(&mut legs, level, hop.to);
                }
            }
        }
        let metres: f64 = hops.iter().map(|h| h.metres).sum();
        let rides = hops
            .windows(2)
            .filter(|w| matches!(w[0].how, Move::Ride { .. }) && !matches!(w[1].how, Move::Ride { .. }))
            .count() as u32;
        let distance_m = metres.round() as u32;
        let eta_minutes = ((metres / WALK_M_PER_MIN).ceil() as u32 + rides).max(1);
        Route { from, to, legs, hops, distance_m, eta_minutes }
    }

    fn is_dead_end(&self, node: usize) -> bool {
        match self.nodes[node].0 {
            Node::Centre(u) => matches!(self.map.units[u].kind, UnitKind::Room | UnitKind::Restroom),
            Node::Spot => true,
            Node::Opening => false,
        }
    }
}

fn reverse(how: Move) -> Move {
    match how {
        Move::Ride { kind, from_unit, to_unit } => {
            Move::Ride { kind, from_unit: to_unit, to_unit: from_unit }
        }
        walk => walk,
    }
}
