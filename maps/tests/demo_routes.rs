//! Routing on the demo mall's compiled-in IMDF archive: every store can be
//! reached from every entrance, floors are changed by escalator or lift,
//! `avoid_stairs` keeps to the lifts, and the steps read right in both languages.
#![allow(clippy::unwrap_used)]

use maps::{MapWords, PlaceKind, RouteOptions, UnitKind, demo, directions};
use services::Catalog;

const STEP_FREE: RouteOptions = RouteOptions { avoid_stairs: true };

#[test]
fn every_catalog_store_and_area_is_on_the_map_on_its_floor() {
    let router = demo::router();
    let map = router.map();
    let catalog = Catalog::demo();
    for store in catalog.stores() {
        let place = map.find_place(&store.id).unwrap_or_else(|| panic!("{} is not on the map", store.id));
        assert_eq!(place.kind, PlaceKind::Store);
        assert_eq!(place.name.zh, store.name);
        assert_eq!(place.name.en, store.name_en);
        assert_eq!(map.levels[place.level].floor, store.floor, "{}", store.id);
        let unit = &map.units[place.unit.unwrap()];
        assert_eq!(unit.name.as_ref().unwrap().zh, store.unit, "{}", store.id);
    }
    for area in catalog.areas() {
        let section = map.find_section(&area.id).unwrap_or_else(|| panic!("{} is not on the map", area.id));
        assert_eq!(map.levels[section.level].floor, area.floor);
    }
    assert_eq!(map.levels.len(), catalog.floors().len());
    // Every floor has its restrooms, escalators, lift and stairs.
    for level in 0..map.levels.len() {
        for kind in [UnitKind::Restroom, UnitKind::Escalator, UnitKind::Elevator, UnitKind::Stairs] {
            assert!(
                map.units.iter().any(|u| u.level == level && u.kind == kind),
                "{kind:?} on level {level}"
            );
        }
    }
}

#[test]
fn every_store_is_reachable_from_every_entrance_with_and_without_stairs() {
    let router = demo::router();
    let map = router.map();
    let entrances: Vec<_> = map.entrances().cloned().collect();
    assert_eq!(
        entrances.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["main_entrance", "north_gate", "metro_entrance"]
    );
    for entrance in &entrances {
        for store in Catalog::demo().stores() {
            let to = map.find_place(&store.id).unwrap().clone();
            for options in [RouteOptions::default(), STEP_FREE] {
                let route = router.route_between(entrance.clone(), to.clone(), options).unwrap();
                assert_eq!(route.legs.last().unwrap().floor, store.floor);
                assert_eq!(route.legs.first().unwrap().floor, map.levels[entrance.level].floor);
                assert!(
                    route.distance_m > 0 && route.distance_m < 400,
                    "{} → {}: {} m",
                    entrance.id,
                    store.id,
                    route.distance_m
                );
            }
        }
    }
}

#[test]
fn a_cross_floor_route_rides_the_escalator_and_a_step_free_one_the_lift() {
    let router = demo::router();
    let route = router.route("main_entrance", "s-uniqlo", RouteOptions::default()).unwrap();
    assert_eq!(route.floors(), [1, 2]);
    assert_eq!(route.rides(), [UnitKind::Escalator]);

    let step_free = router.route("main_entrance", "s-uniqlo", STEP_FREE).unwrap();
    assert_eq!(step_free.floors(), [1, 2]);
    assert_eq!(step_free.rides(), [UnitKind::Elevator]);
    let steps = directions::steps(router.map(), &step_free, &MapWords::ENGLISH);
    assert!(steps.iter().any(|s| s == "Take the Atrium lift to 2F"), "{steps:?}");
    assert!(steps.iter().all(|s| !s.contains("escalator") && !s.contains("stairs")), "{steps:?}");

    // From the basement to the top floor, never a stair or an escalator.
    let long = router.route("metro_entrance", "s-haidilao", STEP_FREE).unwrap();
    assert_eq!(long.floors(), [-1, 5]);
    assert!(long.rides().iter().all(|k| *k == UnitKind::Elevator));
}

#[test]
fn the_steps_to_uniqlo_from_the_main_entrance_read_like_the_mall_signs() {
    let router = demo::router();
    let route = router.route("main_entrance", "s-uniqlo", RouteOptions::default()).unwrap();
    assert_eq!(
        directions::steps(router.map(), &route, &MapWords::CHINESE),
        [
            "从正门（南门）进入",
            "沿南侧走廊向北走约 20 米",
            "沿中庭向北走约 5 米",
            "乘中庭扶梯上到 2F",
            "沿中庭向东走约 10 米",
            "沿东侧走廊向东走约 15 米",
            "到达优衣库（Uniqlo，门牌 2F-01），在左手边",
        ]
    );
    let en = directions::text(router.map(), &route, &MapWords::ENGLISH);
    assert!(en.starts_with("1. Enter by the Main entrance (south)\n"), "{en}");
    assert!(en.contains("Take the Atrium escalators up to 2F"), "{en}");
    assert!(en.contains("Arrive at Uniqlo (unit 2F-01), on your left"), "{en}");
    assert!(en.ends_with(&format!("About {} m, a {} min walk", route.distance_m, route.eta_minutes)), "{en}");
}

#[test]
fn routes_start_from_a_named_place_in_either_language() {
    let router = demo::router();
    // From a store on the same floor: along the corridor, no ride.
    let route = router.route("Starbucks", "雅诗兰黛", RouteOptions::default()).unwrap();
    assert_eq!(route.from.id, "s-starbucks");
    assert_eq!(route.to.id, "s-estee-lauder");
    assert!(route.rides().is_empty());
    let steps = directions::steps(router.map(), &route, &MapWords::CHINESE);
    assert_eq!(steps.first().unwrap(), "从星巴克出发");
    // From the north gate, by name.
    let route = router.route("北门", "Nike", RouteOptions::default()).unwrap();
    assert_eq!(route.from.id, "north_gate");
    assert_eq!(route.floors(), [1, 3]);
    // Going down: the step says so.
    let route = router.route("s-nike", "s-kfc", RouteOptions::default()).unwrap();
    assert_eq!(route.floors(), [3, -1]);
    let steps = directions::steps(router.map(), &route, &MapWords::ENGLISH);
    assert!(steps.contains(&"Take the Atrium escalators down to B1".to_owned()), "{steps:?}");
    // Unknown places are named in the error.
    let err = router.route("the moon", "s-nike", RouteOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "no place called \"the moon\" on the map");
}

#[test]
fn a_store_is_placed_by_its_ref_else_its_unit_number_and_named_as_the_directory_names_it() {
    let router = demo::router();
    let map = router.map();
    let tie = |id, unit, name, name_en| maps::StoreTie { id, unit, name, name_en };
    // By the occupant's ref, under the directory's (new) name.
    let renamed = map.store_place(&tie("s-uniqlo", "", "优衣库旗舰店", "UNIQLO Flagship")).unwrap();
    assert_eq!((renamed.name.zh.as_str(), renamed.name.en.as_str()), ("优衣库旗舰店", "UNIQLO Flagship"));
    assert_eq!(Some(renamed.unit), map.find_place("s-uniqlo").map(|p| p.unit));
    // A new tenant by its unit number alone, written as operators write it.
    for unit in ["B1-06", "b1 06", "B106"] {
        let place = map.store_place(&tie("s-new", unit, "新店", "New Store")).unwrap();
        let u = &map.units[place.unit.unwrap()];
        assert_eq!(u.name.as_ref().unwrap().zh, "B1-06", "{unit}");
        assert_eq!(map.levels[place.level].floor, -1);
        assert_eq!(place.name.zh, "新店");
        // Routed to, and arrived at under its directory name.
        let start = map.find_place("main_entrance").unwrap().clone();
        let route = router.route_between(start, place, RouteOptions::default()).unwrap();
        let steps = directions::steps(map, &route, &MapWords::CHINESE);
        assert!(steps.last().unwrap().contains("到达新店（New Store，门牌 B1-06）"), "{steps:?}");
    }
    // A unit the map does not have, and a corridor's name, place nothing.
    assert!(map.store_place(&tie("s-new", "9F-99", "新店", "New Store")).is_none());
    assert!(map.store_place(&tie("s-new", "", "新店", "New Store")).is_none());
}
