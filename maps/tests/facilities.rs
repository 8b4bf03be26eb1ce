//! Facilities by kind: the demo mall has the facilities a mall has, and
//! "nearest" is nearest on foot — a restroom across a wall loses to one
//! further in a straight line but nearer by the corridors.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use maps::facility::{self, KINDS};
use maps::{IndoorMap, Place, RouteOptions, Router};
use serde_json::{Value, json};

fn demo() -> std::sync::Arc<Router> {
    maps::demo::router()
}

fn nearest(router: &Router, from: &str, kind: &str) -> maps::Route {
    let from = router.map().find_place(from).unwrap().clone();
    let kind = facility::kind(kind).unwrap();
    router.nearest(&from, |p| kind.matches(p), RouteOptions::default()).unwrap()
}

#[test]
fn the_demo_mall_has_every_kind_of_facility() {
    let router = demo();
    let kinds: Vec<&str> = facility::kinds_on(router.map()).iter().map(|k| k.key).collect();
    let all: Vec<&str> = KINDS.iter().map(|k| k.key).collect();
    assert_eq!(kinds, all);
    // A restroom and an accessible one on every floor.
    for kind in ["restroom", "restroom.wheelchair"] {
        let kind = facility::kind(kind).unwrap();
        let mut floors: Vec<i32> =
            facility::places_of(router.map(), kind).map(|p| router.map().levels[p.level].floor).collect();
        floors.sort();
        floors.dedup();
        assert_eq!(floors, vec![-1, 1, 2, 3, 4, 5], "{}", kind.key);
    }
}

#[test]
fn kinds_are_found_by_their_imdf_category_and_by_a_category_they_cover() {
    assert_eq!(facility::kind("atm").unwrap().key, "atm");
    assert_eq!(facility::kind(" ATM ").unwrap().key, "atm");
    assert_eq!(facility::kind("restroom.female").unwrap().key, "restroom");
    assert_eq!(facility::kind("guestservices").unwrap().key, "information");
    assert_eq!(facility::kind("defibrillator").unwrap().key, "firstaid");
    assert!(facility::kind("swimmingpool").is_none());
    // An accessible restroom is a restroom too; a plain one is not accessible.
    assert!(facility::kind("restroom").unwrap().covers("restroom.unisex.wheelchair"));
    assert!(!facility::kind("restroom.wheelchair").unwrap().covers("restroom"));
}

#[test]
fn the_nearest_facility_in_the_demo_mall_is_on_the_shoppers_floor_when_it_has_one() {
    let router = demo();
    let map = router.map();
    let route = nearest(&router, "main_entrance", "restroom");
    assert_eq!(route.floors(), vec![1], "a restroom on 1F, without changing floors");
    let route = nearest(&router, "s-uniqlo", "mothersroom");
    assert_eq!((route.to.name.zh.as_str(), route.floors()), ("母婴室", vec![2]));
    // The nursing room is on 2F and 4F only: from 3F the walk changes floor.
    let route = nearest(&router, "s-nike", "mothersroom");
    assert_eq!(route.floors().len(), 2, "{:?}", route.floors());
    let route = nearest(&router, "north_gate", "atm");
    assert_eq!(map.levels[route.to.level].floor, 1);
    // An ATM stands in a corridor: the walk ends at it, not in the corridor's middle.
    assert_eq!(route.legs.last().unwrap().points.last(), Some(&route.to.point));
    let route = nearest(&router, "metro_entrance", "atm");
    assert_eq!(route.floors(), vec![-1]);
    let route = nearest(&router, "main_entrance", "parking");
    assert_eq!(route.floors(), vec![1, -1]);
    assert!(route.to.name.en.starts_with("Car park entrance"));
    // The search stops at the first one reached, and that is the one a
    // route to each would call nearest.
    let kind = facility::kind("restroom").unwrap();
    let from = map.find_place("s-nike").unwrap().clone();
    let best = facility::places_of(map, kind)
        .map(|p| router.route_between(from.clone(), p.clone(), RouteOptions::default()).unwrap())
        .map(|r| r.distance_m)
        .min()
        .unwrap();
    assert_eq!(nearest(&router, "s-nike", "restroom").distance_m, best);
}

#[test]
fn a_floor_is_a_place_to_start_from() {
    let router = demo();
    let start = router.map().floor_start(3).unwrap();
    assert_eq!(router.map().levels[start.level].floor, 3);
    assert!(start.name.en.starts_with("3F"), "{}", start.name.en);
    let kind = facility::kind("restroom").unwrap();
    let route = router.nearest(&start, |p| kind.matches(p), RouteOptions::default()).unwrap();
    assert_eq!(route.floors(), vec![3]);
    assert!(router.map().floor_start(9).is_none());
}

#[test]
fn a_kind_the_map_does_not_have_is_reached_nowhere() {
    let router = demo();
    let from = router.map().find_place("main_entrance").unwrap().clone();
    assert!(router.nearest(&from, |_| false, RouteOptions::default()).is_none());
}

// A small hand-made venue: a U of corridors around a closed block. The shop
// is at the top of the left arm; restroom X is across the block, 36 m away
// in a straight line but reached only round the U (about 150 m); restroom Y
// is further in a straight line (about 42 m) and 45 m down the left arm.

const LON0: f64 = 121.0;
const LAT0: f64 = 31.0;

fn ll(x: f64, y: f64) -> Value {
    let m_per_deg_lon = 111_320.0 * LAT0.to_radians().cos();
    json!([LON0 + x / m_per_deg_lon, LAT0 + y / 110_574.0])
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Value {
    json!({"type": "Polygon", "coordinates": [[ll(x0, y0), ll(x1, y0), ll(x1, y1), ll(x0, y1), ll(x0, y0)]]})
}

fn collection(features: Vec<Value>) -> String {
    json!({"type": "FeatureCollection", "features": features}).to_string()
}

fn unit(id: &str, category: &str, polygon: Value) -> Value {
    json!({"id": id, "type": "Feature", "feature_type": "unit", "geometry": polygon,
           "properties": {"category": category, "level_id": "L1", "name": {"en": id}}})
}

fn opening(id: &str, a: (f64, f64), b: (f64, f64)) -> Value {
    json!({"id": id, "type": "Feature", "feature_type": "opening",
           "geometry": {"type": "LineString", "coordinates": [ll(a.0, a.1), ll(b.0, b.1)]},
           "properties": {"category": "pedestrian", "level_id": "L1"}})
}

fn amenity(id: &str, unit: &str, at: (f64, f64)) -> Value {
    json!({"id": id, "type": "Feature", "feature_type": "amenity",
           "geometry": {"type": "Point", "coordinates": ll(at.0, at.1)},
           "properties": {"category": "restroom", "unit_ids": [unit], "name": {"en": id, "zh": id}}})
}

fn u_shaped_venue() -> IndoorMap {
    let mut files: HashMap<String, String> = HashMap::new();
    files.insert("manifest.json".into(), json!({"version": "1.0.0", "language": "en"}).to_string());
    files.insert(
        "venue.geojson".into(),
        collection(vec![json!({"id": "V", "type": "Feature", "feature_type": "venue",
            "geometry": rect(-10.0, -4.0, 50.0, 60.0),
            "properties": {"category": "shoppingcenter", "name": {"en": "U"}, "display_point": {"type": "Point", "coordinates": ll(20.0, 30.0)}}})]),
    );
    files.insert(
        "level.geojson".into(),
        collection(vec![json!({"id": "L1", "type": "Feature", "feature_type": "level",
            "geometry": rect(-10.0, -4.0, 50.0, 60.0),
            "properties": {"ordinal": 0, "name": {"en": "Ground"}, "short_name": {"en": "1F"}}})]),
    );
    files.insert(
        "unit.geojson".into(),
        collection(vec![
            unit("left arm", "walkway", rect(0.0, 0.0, 4.0, 60.0)),
            unit("base", "walkway", rect(0.0, -4.0, 40.0, 0.0)),
            unit("right arm", "walkway", rect(36.0, 0.0, 40.0, 60.0)),
            unit("block", "structure", rect(14.0, 0.0, 26.0, 60.0)),
            unit("shop", "room", rect(-10.0, 50.0, 0.0, 60.0)),
            unit("restroom X", "restroom", rect(26.0, 50.0, 36.0, 60.0)),
            unit("restroom Y", "restroom", rect(4.0, 10.0, 14.0, 20.0)),
        ]),
    );
    files.insert(
        "opening.geojson".into(),
        collection(vec![
            opening("left-base", (0.5, 0.0), (3.5, 0.0)),
            opening("right-base", (36.5, 0.0), (39.5, 0.0)),
            opening("shop door", (0.0, 53.0), (0.0, 57.0)),
            opening("X door", (36.0, 53.0), (36.0, 57.0)),
            opening("Y door", (4.0, 13.0), (4.0, 17.0)),
        ]),
    );
    files.insert(
        "anchor.geojson".into(),
        collection(vec![json!({"id": "A", "type": "Feature", "feature_type": "anchor",
            "geometry": {"type": "Point", "coordinates": ll(-5.0, 55.0)}, "properties": {"unit_id": "shop"}})]),
    );
    files.insert(
        "occupant.geojson".into(),
        collection(vec![json!({"id": "O", "type": "Feature", "feature_type": "occupant", "geometry": null,
            "properties": {"name": {"en": "Shop"}, "anchor_id": "A", "ref": "shop"}})]),
    );
    files.insert(
        "amenity.geojson".into(),
        collection(vec![
            amenity("restroom X", "restroom X", (31.0, 55.0)),
            amenity("restroom Y", "restroom Y", (9.0, 15.0)),
        ]),
    );
    IndoorMap::from_files(&files).unwrap()
}

#[test]
fn the_nearest_on_foot_wins_over_the_nearest_in_a_straight_line() {
    let router = Router::new(u_shaped_venue());
    let map = router.map();
    let shop = map.find_place("shop").unwrap().clone();
    let place = |name: &str| -> &Place { map.find_place(name).unwrap() };
    let (x, y) = (place("restroom X"), place("restroom Y"));
    assert!(
        shop.point.distance(x.point) < shop.point.distance(y.point),
        "X is the nearer in a straight line"
    );
    let kind = facility::kind("restroom").unwrap();
    let route = router.nearest(&shop, |p| kind.matches(p), RouteOptions::default()).unwrap();
    assert_eq!(route.to.name.en, "restroom Y", "Y is the nearer on foot");
    let to_x = router.route_between(shop.clone(), x.clone(), RouteOptions::default()).unwrap();
    assert!(
        route.distance_m < 60 && to_x.distance_m > 120,
        "{} m vs {} m",
        route.distance_m,
        to_x.distance_m
    );
}

#[test]
fn floor_plans_mark_the_facilities_with_badges_and_a_route_to_one_is_drawn() {
    let router = demo();
    let map = router.map();
    let level = |floor: i32| map.levels.iter().position(|l| l.floor == floor).unwrap();
    let svg = |floor: i32| {
        maps::render::level_svg(
            map,
            level(floor),
            &maps::render::Overlay::default(),
            &maps::MapWords::CHINESE,
        )
        .0
    };
    let badge = |text: &str| format!(">{text}</text>");
    let (b1, f1, f2) = (svg(-1), svg(1), svg(2));
    for mark in ["P", "ATM", "LK", "WC"] {
        assert!(b1.contains(&badge(mark)), "B1 has {mark}");
    }
    for mark in ["i", "+", "ATM", "USB", "WC"] {
        assert!(f1.contains(&badge(mark)), "1F has {mark}");
    }
    assert!(f2.contains(&badge("BB")) && !f1.contains(&badge("BB")), "the nursing room is on 2F, not 1F");
    // The nursing room's two amenities (nursing, baby changing) make one badge.
    assert_eq!(f2.matches(&badge("BB")).count(), 1);

    let route = nearest(&router, "main_entrance", "mothersroom");
    let pictures = maps::render::route_pictures(map, &route, &maps::MapWords::CHINESE).unwrap();
    assert_eq!(pictures.len(), 2);
    assert!(pictures[1].title.contains("前往 母婴室"), "{}", pictures[1].title);
    assert!(pictures.iter().all(|p| p.png.starts_with(b"\x89PNG")));
}
