//! Walking directions: the catalog's route from the main entrance to every
//! store, and routes from one store to another through the atrium escalators.

use crate::error::ServiceError;
use crate::models::Route;

use super::catalog::Catalog;
use super::data::{Position, Side, StoreData, Wing};

/// Metres of walking one escalator ride between adjacent floors is counted as.
const ESCALATOR_M_PER_FLOOR: u32 = 15;
/// Walking speed for the time estimate, metres per minute.
const WALK_M_PER_MIN: u32 = 50;

/// Directions to `to_store` from `from` (`main_entrance` when absent, or a store id).
impl Catalog {
    /// Directions to a store from `from`: `main_entrance` (the default) or another store's id.
    pub fn route(&self, to_store: &str, from: Option<&str>) -> Result<Route, ServiceError> {
        route(self, to_store, from)
    }
}

pub(crate) fn route(catalog: &Catalog, to_store: &str, from: Option<&str>) -> Result<Route, ServiceError> {
    let to = catalog
        .store_index_of(to_store)
        .map(|i| &catalog.stores[i as usize])
        .ok_or_else(|| ServiceError::not_found(format!("store {to_store} not found")))?;
    let from = from.map(str::trim).filter(|f| !f.is_empty()).unwrap_or(&catalog.mall.entrance);
    if from == catalog.mall.entrance {
        let Some(known) = &to.route else {
            return Ok(by_floor_and_unit(&catalog.mall.entrance_name, from, to));
        };
        return Ok(Route {
            to_store_id: to.store.id.clone(),
            from: from.to_owned(),
            floor: to.store.floor,
            steps: known.steps.clone(),
            distance_m: known.distance_m,
            eta_minutes: known.eta_minutes,
        });
    }
    let start = catalog.store_index_of(from).map(|i| &catalog.stores[i as usize]).ok_or_else(|| {
        ServiceError::invalid(
            "from",
            format!("unknown starting point `{from}`; use `{}` or a store id", catalog.mall.entrance),
        )
    })?;
    match (&start.position, &to.position) {
        (Some(a), Some(b)) => Ok(between_stores(start, a, to, b)),
        _ => Ok(by_floor_and_unit(&format!("{} ({})", start.store.name, start.store.name_en), from, to)),
    }
}

/// Directions of a mall without corridors on file (its indoor map gives the walk): the
/// floor to go to and the unit to look for.
fn by_floor_and_unit(start_name: &str, from: &str, to: &StoreData) -> Route {
    let level = floor_label(to.store.floor);
    let mut steps =
        vec![format!("从{start_name}出发，前往 {level} (Start from {start_name} and go to {level})")];
    let unit = if to.store.unit.is_empty() { String::new() } else { format!("，门牌 {}", to.store.unit) };
    let unit_en = if to.store.unit.is_empty() { String::new() } else { format!(", unit {}", to.store.unit) };
    steps.push(format!("{}在 {level}{unit} ({} is on {level}{unit_en})", to.store.name, to.store.name_en));
    Route {
        to_store_id: to.store.id.clone(),
        from: from.to_owned(),
        floor: to.store.floor,
        steps,
        distance_m: 0,
        eta_minutes: 0,
    }
}

/// Floors of escalator between two floors (there is no floor 0: B1 is next to 1F).
fn escalator_hops(a: i32, b: i32) -> u32 {
    let hops = a.abs_diff(b);
    if (a < 0) != (b < 0) { hops - 1 } else { hops }
}

fn floor_label(floor: i32) -> String {
    if floor < 0 { format!("B{}", -floor) } else { format!("{floor}F") }
}

fn wing_names(wing: Wing) -> (&'static str, &'static str) {
    match wing {
        Wing::East => ("东侧", "east"),
        Wing::West => ("西侧", "west"),
        Wing::North => ("北侧", "north"),
        Wing::South => ("南侧", "south"),
    }
}

fn side_names(side: Side) -> (&'static str, &'static str) {
    match side {
        Side::Left => ("左手边", "left"),
        Side::Right => ("右手边", "right"),
    }
}

fn arrival(to: &StoreData, position: &Position) -> String {
    let (side_zh, side_en) = side_names(position.side);
    format!(
        "{}在{side_zh}，门牌 {} ({} is on your {side_en}, unit {})",
        to.store.name, to.store.unit, to.store.name_en, to.store.unit
    )
}

/// From one store to another: back to the atrium, up or down, along the corridor;
/// or straight along the corridor when both are in the same wing of one floor.
fn between_stores(from: &StoreData, a: &Position, to: &StoreData, b: &Position) -> Route {
    let mut steps = Vec::new();
    let (distance, hops) = if from.store.id == to.store.id {
        steps.push(format!(
            "您已在{}（{}） (You are already at {})",
            to.store.name, to.store.unit, to.store.name_en
        ));
        (0, 0)
    } else if from.store.floor == to.store.floor && a.wing == b.wing {
        let metres = a.offset_m.abs_diff(b.offset_m);
        let (wing_zh, wing_en) = wing_names(b.wing);
        let (dir_zh, dir_en) = if b.offset_m >= a.offset_m { ("向前", "on") } else { ("往回", "back") };
        steps.push(format!(
            "从{}出来，沿{wing_zh}走廊{dir_zh}走约 {metres} 米 (Leave {} and walk {dir_en} along the {wing_en} corridor for about {metres} m)",
            from.store.name, from.store.name_en
        ));
        steps.push(arrival(to, b));
        (metres, 0)
    } else {
        let (wing_a_zh, wing_a_en) = wing_names(a.wing);
        let level_a = floor_label(from.store.floor);
        steps.push(format!(
            "从{}（{}）出来，沿{wing_a_zh}走廊走约 {} 米回到 {level_a} 中庭 (Leave {} and walk about {} m along the {wing_a_en} corridor back to the {level_a} atrium)",
            from.store.name, from.store.unit, a.offset_m, from.store.name_en, a.offset_m
        ));
        let hops = escalator_hops(from.store.floor, to.store.floor);
        if hops > 0 {
            let level_b = floor_label(to.store.floor);
            let (zh, en) = if to.store.floor > from.store.floor { ("上", "up") } else { ("下", "down") };
            steps.push(format!("乘中庭扶梯{zh}到 {level_b} (Take the atrium escalator {en} to {level_b})"));
        }
        let (wing_b_zh, wing_b_en) = wing_names(b.wing);
        steps.push(format!(
            "沿{wing_b_zh}走廊前行约 {} 米 (Follow the {wing_b_en} corridor for about {} m)",
            b.offset_m, b.offset_m
        ));
        steps.push(arrival(to, b));
        (a.offset_m + ESCALATOR_M_PER_FLOOR * hops + b.offset_m, hops)
    };
    Route {
        to_store_id: to.store.id.clone(),
        from: from.store.id.clone(),
        floor: to.store.floor,
        steps,
        distance_m: distance,
        eta_minutes: distance.div_ceil(WALK_M_PER_MIN) + hops,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basement_is_one_escalator_ride_from_the_ground_floor() {
        assert_eq!(escalator_hops(1, -1), 1);
        assert_eq!(escalator_hops(-1, 3), 3);
        assert_eq!(escalator_hops(2, 5), 3);
        assert_eq!(floor_label(-1), "B1");
        assert_eq!(floor_label(3), "3F");
    }
}
