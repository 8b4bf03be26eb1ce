//! Directions and floor plans from the mall's indoor map, for the
//! navigation tools when the mall has one ([`ToolContext::map`]): the route
//! by walking distance (to a store, or to the nearest facility of a kind),
//! its steps and waypoints for the model, and one picture per floor for the
//! shopper.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use maps::{FacilityKind, IndoorMap, Place, PlaceKind, Route, RouteOptions, Router, directions, render};
use serde_json::{Value, json};
use services::{Area, Store};

use crate::basic::text::cn_number;
use crate::texts::zh_hant::to_simplified;
use crate::{Lang, Picture, ToolContext, ToolError};

/// Pictures kept for re-use, at most (the cache is emptied when full).
const PICTURE_CACHE_SIZE: usize = 128;

/// Drawn pictures by cache key: asking the same route twice draws it once.
static PICTURES: LazyLock<Mutex<HashMap<String, Vec<Picture>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A route on the map: what the model reads, what the shopper reads, the pictures.
#[derive(Debug)]
pub struct MapDirections {
    /// `from` (a place id), `from_name`, `steps`, `distance_m`, `eta_minutes`,
    /// `avoid_stairs`, `floors`, `waypoints`, `floor_plans_sent`.
    pub data: Value,
    /// The numbered steps with distance and time.
    pub display: String,
    pub pictures: Vec<Picture>,
}

/// The map's place for a catalog store, named as the directory names it:
/// by id (`ref`), else by unit number, else by name ([`IndoorMap::store_place`]).
pub fn store_place(map: &IndoorMap, store: &Store) -> Option<Place> {
    map.store_place(&tie(store))
}

/// A store of the directory as the map is searched for it.
pub fn tie(store: &Store) -> maps::StoreTie<'_> {
    maps::StoreTie { id: &store.id, unit: &store.unit, name: &store.name, name_en: &store.name_en }
}

/// Where routes start when the shopper names no place: the main entrance.
fn default_start(map: &IndoorMap) -> Option<&Place> {
    map.places
        .iter()
        .find(|p| p.id == "main_entrance")
        .or_else(|| map.entrances().next())
        .or_else(|| map.places.first())
}

/// Where a walk starts: `from` (an entrance, a store or another named
/// place of the map, or a floor: "3楼", "B1", "3rd floor"), the main
/// entrance when absent; an error naming the field when the map has no
/// such place.
pub fn start_place(map: &IndoorMap, from: Option<&str>) -> Result<Place, ToolError> {
    let Some(name) = from.map(str::trim).filter(|f| !f.is_empty()) else {
        return default_start(map)
            .cloned()
            .ok_or_else(|| ToolError::NotFound("the indoor map has no place to start from".into()));
    };
    if let Some(place) = floor_named(name).and_then(|floor| map.floor_start(floor)) {
        return Ok(place);
    }
    let facility = || {
        let kind = crate::facility_words::kind_named(name)?;
        map.places.iter().find(|p| kind.matches(p))
    };
    match map.find_place(name).or_else(|| map.find_place(&to_simplified(name))).or_else(facility) {
        Some(place) => Ok(place.clone()),
        None => {
            let entrances: Vec<String> =
                map.entrances().map(|e| format!("{} ({})", e.name.zh, e.name.en)).collect();
            Err(ToolError::InvalidArguments {
                field: Some("from".into()),
                message: format!(
                    "no place called \"{name}\" on the map; use an entrance ({}), a store name or a floor",
                    entrances.join(", ")
                ),
            })
        }
    }
}

/// The floor a text names ("3楼", "3F", "三楼", "B1", "负一楼", "floor 3",
/// "3rd floor"): the mall's floor number (1 = ground, -1 = B1).
pub fn floor_named(text: &str) -> Option<i32> {
    let t = to_simplified(text.trim()).to_lowercase().replace(' ', "");
    let basement = |rest: &str| -> Option<i32> {
        let n: i32 = rest.parse().ok().or_else(|| cn_number(rest).map(|n| n as i32))?;
        (n > 0).then_some(-n)
    };
    if let Some(rest) = t.strip_prefix('b') {
        return basement(rest.trim_end_matches(['f', '层', '楼']));
    }
    for prefix in ["负", "地下", "-"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return basement(rest.trim_end_matches(['f', '层', '楼']));
        }
    }
    let number = t
        .strip_suffix('楼')
        .or_else(|| t.strip_suffix('层'))
        .or_else(|| t.strip_suffix('f'))
        .or_else(|| t.strip_prefix("floor"))
        .or_else(|| t.strip_prefix("level"))
        .or_else(|| t.strip_suffix("floor"))?;
    let number = number.trim_start_matches('第').trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
    let n: i32 = number.parse().ok().or_else(|| cn_number(number).map(|n| n as i32))?;
    (1..=200).contains(&n).then_some(n)
}

/// Directions on the map to `store`, from `from` (see [`start_place`]).
/// `None` when there is no map or the store is not on it: the caller
/// answers without a map.
pub fn directions_to_store(
    ctx: &ToolContext,
    store: &Store,
    from: Option<&str>,
    avoid_stairs: bool,
) -> Option<Result<MapDirections, ToolError>> {
    let router = ctx.map.as_ref()?;
    let map = router.map();
    let to = store_place(map, store)?;
    let start = match start_place(map, from) {
        Ok(place) => place,
        Err(e) => return Some(Err(e)),
    };
    let options = RouteOptions { avoid_stairs };
    let route = match router.route_between(start, to, options) {
        Ok(route) => route,
        Err(e) => return Some(Err(ToolError::NotFound(e.to_string()))),
    };
    Some(Ok(describe(router, &route, avoid_stairs, ctx.lang, ctx.pictures)))
}

/// Directions to the nearest facility of `kind` by walking route from
/// `from` (see [`start_place`]), with the facility's `to_name` and
/// `to_floor` added to the data. `None` when there is no map or no such
/// facility can be walked to.
pub fn directions_to_nearest(
    ctx: &ToolContext,
    kind: &FacilityKind,
    from: Option<&str>,
) -> Option<Result<MapDirections, ToolError>> {
    let router = ctx.map.as_ref()?;
    let map = router.map();
    let start = match start_place(map, from) {
        Ok(place) => place,
        Err(e) => return Some(Err(e)),
    };
    let route = router.nearest(&start, |p| kind.matches(p), RouteOptions::default())?;
    let mut directions = describe(router, &route, false, ctx.lang, ctx.pictures);
    let l = &ctx.lang.texts().map;
    if let Value::Object(data) = &mut directions.data {
        data.insert("to_name".into(), json!(l.name(&route.to.name)));
        data.insert("to_floor".into(), json!(map.levels[route.to.level].floor));
    }
    Some(Ok(directions))
}

fn describe(
    router: &Arc<Router>,
    route: &Route,
    avoid_stairs: bool,
    lang: Lang,
    draw: bool,
) -> MapDirections {
    let map = router.map();
    let l = &lang.texts().map;
    let steps = directions::steps(map, route, l);
    let display = directions::text(map, route, l);
    let waypoints: Vec<Value> = route
        .legs
        .iter()
        .flat_map(|leg| {
            leg.points
                .iter()
                .map(move |p| json!({"floor": leg.floor, "x_m": round1(p.x), "y_m": round1(p.y)}))
        })
        .collect();
    let key = format!(
        "route|{}|{}|{}|{}|{}",
        map.name.en,
        route.from.id,
        route.to.id,
        if avoid_stairs { "step-free" } else { "any" },
        lang.as_str()
    );
    let pictures = if !draw {
        Vec::new()
    } else {
        pictures_for(&key, || {
            let drawn = render::route_pictures(map, route, l)?;
            let count = drawn.len();
            Ok(drawn
                .into_iter()
                .enumerate()
                .map(|(i, p)| Picture {
                    png: Arc::from(p.png),
                    // The steps go under the first picture; each other floor is named.
                    caption: if i == 0 { format!("{}\n{display}", p.title) } else { p.title },
                    cache_key: format!("{key}|{}/{count}", i + 1),
                })
                .collect())
        })
    };
    let data = json!({
        "from": route.from.id,
        "from_name": l.name(&route.from.name),
        "steps": steps,
        "distance_m": route.distance_m,
        "eta_minutes": route.eta_minutes,
        "avoid_stairs": avoid_stairs,
        "floors": route.floors(),
        "waypoints": waypoints,
        "floor_plans_sent": pictures.len(),
    });
    MapDirections { data, display, pictures }
}

/// A floor plan of `area` with it and its stores highlighted; `None` when
/// there is no map or the area is not on it.
pub fn area_picture(ctx: &ToolContext, area: &Area) -> Option<Picture> {
    let router = ctx.map.as_ref().filter(|_| ctx.pictures)?;
    let map = router.map();
    let section =
        map.sections.iter().position(|s| s.id == area.id).or_else(|| {
            map.sections.iter().position(|s| s.name.zh == area.name || s.name.en == area.name_en)
        })?;
    let units: Vec<usize> = area
        .store_ids
        .iter()
        .filter_map(|id| map.places.iter().find(|p| p.id == *id && p.kind == PlaceKind::Store))
        .filter_map(|p| p.unit)
        .collect();
    let key = format!("area|{}|{}|{}", map.name.en, area.id, ctx.lang.as_str());
    pictures_for(&key, || {
        let p = render::area_picture(map, section, &units, &ctx.lang.texts().map)?;
        Ok(vec![Picture { png: Arc::from(p.png), caption: p.title, cache_key: key.clone() }])
    })
    .into_iter()
    .next()
}

/// The cached pictures for `key`, else drawn now; a drawing failure is logged
/// and gives no pictures (the text answer still goes out).
fn pictures_for(key: &str, draw: impl FnOnce() -> Result<Vec<Picture>, render::RenderError>) -> Vec<Picture> {
    if let Some(hit) = PICTURES.lock().ok().and_then(|c| c.get(key).cloned()) {
        return hit;
    }
    match draw() {
        Ok(pictures) => {
            if let Ok(mut cache) = PICTURES.lock() {
                if cache.len() >= PICTURE_CACHE_SIZE {
                    cache.clear();
                }
                cache.insert(key.to_owned(), pictures.clone());
            }
            pictures
        }
        Err(e) => {
            tracing::warn!(error = %e, key, "could not draw the floor plan");
            Vec::new()
        }
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}
