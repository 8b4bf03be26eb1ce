//! Finding one's way: walking directions to a store, and what is in an area.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use services::{Area, Route, Store};

use crate::general::{find_store, floor_label, store_for_display, store_name, store_place};
use crate::{Lang, ToolContext, ToolError, ToolOutput, ToolResult, indoor, tool_function};

/// Arguments of `navigate_to_store`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateToStoreArgs {
    /// The store's id, or its name in Chinese or English (e.g. "优衣库", "Uniqlo").
    pub store_name: String,
    /// Mark the store's floor and unit at the top of the directions (default true).
    pub highlight: Option<bool>,
    /// Where the shopper is: an entrance ("north gate", "北门"), a store or
    /// another named place (default: the main entrance).
    pub from: Option<String>,
    /// Lifts only, no stairs or escalators (prams, wheelchairs).
    pub avoid_stairs: Option<bool>,
}

/// Walking directions to a store: steps, distance and time, and a floor plan
/// per floor with the route drawn (sent to the shopper). Use when the shopper
/// asks where a store is or how to get there.
#[tool_function(level = "safe", scope = "both")]
pub async fn navigate_to_store(ctx: &ToolContext, args: NavigateToStoreArgs) -> ToolResult {
    let store = find_store(ctx, "store_name", &args.store_name).await?;
    let name = store_name(ctx.lang, &store);
    let suggestion = match ctx.lang {
        Lang::Zh => format!("{name}有什么优惠"),
        Lang::En => format!("Promotions at {name}"),
    };
    let avoid_stairs = args.avoid_stairs.unwrap_or(false);
    if let Some(on_map) = indoor::directions_to_store(ctx, &store, args.from.as_deref(), avoid_stairs) {
        let on_map = on_map?;
        let mut data = on_map.data;
        data["store"] = json!({"store_id": store.id, "name": store.name, "name_en": store.name_en, "floor": store.floor, "unit": store.unit});
        let display = match args.highlight {
            Some(false) => on_map.display,
            _ => format!("📍 {}\n{}", store_place(ctx.lang, &store), on_map.display),
        };
        return Ok(ToolOutput::data(data)
            .with_display(display)
            .with_pictures(on_map.pictures)
            .with_suggestions([suggestion]));
    }
    let route = ctx.mall.route(&store.id, None).await?;
    let data = json!({
        "store": {
            "store_id": store.id,
            "name": store.name,
            "name_en": store.name_en,
            "floor": store.floor,
            "unit": store.unit,
        },
        "from": route.from,
        "steps": route.steps,
        "distance_m": route.distance_m,
        "eta_minutes": route.eta_minutes,
    });
    let display = directions_text(ctx.lang, &store, &route, args.highlight.unwrap_or(true));
    Ok(ToolOutput::data(data).with_display(display).with_suggestions([suggestion]))
}

/// The directions as the shopper reads them: the store's place, the
/// numbered steps, the distance and time.
fn directions_text(lang: Lang, store: &Store, route: &Route, highlight: bool) -> String {
    let mut lines = Vec::new();
    if highlight {
        lines.push(format!("📍 {}", store_place(lang, store)));
    }
    let from = match (lang, route.from.as_str()) {
        (Lang::Zh, "main_entrance") => "正门",
        (Lang::En, "main_entrance") => "the main entrance",
        (_, other) => other,
    };
    lines.push(match lang {
        Lang::Zh => format!("从{from}出发："),
        Lang::En => format!("From {from}:"),
    });
    lines.extend(route.steps.iter().enumerate().map(|(i, step)| format!("{}. {step}", i + 1)));
    lines.push(match lang {
        Lang::Zh => format!("约 {} 米，步行约 {} 分钟", route.distance_m, route.eta_minutes),
        Lang::En => format!("About {} m, a {} min walk", route.distance_m, route.eta_minutes),
    });
    lines.join("\n")
}

/// Arguments of `navigate_to_area`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateToAreaArgs {
    /// The area's id or name in Chinese or English (e.g. "美食广场", "food court").
    pub area_name: String,
    /// List the stores in the area (default true).
    pub show_stores: Option<bool>,
}

/// An area of the mall (food court, sports zone…): its floor, what it is,
/// and the stores in it. Use when the shopper asks about a part of the mall
/// rather than one store.
#[tool_function(level = "safe", scope = "both")]
pub async fn navigate_to_area(ctx: &ToolContext, args: NavigateToAreaArgs) -> ToolResult {
    let areas = ctx.mall.list_areas().await?.items;
    let known: Vec<String> = areas.iter().map(|a| format!("{} ({})", a.name, a.name_en)).collect();
    let area = find_area(&args.area_name, areas).ok_or_else(|| {
        ToolError::NotFound(format!(
            "no area called \"{}\"; the areas are: {}",
            args.area_name.trim(),
            known.join(", ")
        ))
    })?;
    let mut data = json!({
        "area": {
            "area_id": area.id,
            "name": area.name,
            "name_en": area.name_en,
            "floor": area.floor,
            "description": area.description,
        }
    });
    if args.show_stores != Some(false) {
        let stores =
            futures::future::join_all(area.store_ids.iter().map(|id| store_for_display(ctx, id))).await;
        data["stores"] = stores
            .iter()
            .flatten()
            .map(|s| json!({"store_id": s.id, "name": s.name, "category": s.category, "unit": s.unit}))
            .collect();
    }
    let name = match ctx.lang {
        Lang::Zh => &area.name,
        Lang::En => &area.name_en,
    };
    let display = format!("📍 {name} · {}", floor_label(area.floor));
    let picture = indoor::area_picture(ctx, &area);
    if picture.is_some() {
        data["floor_plan_sent"] = json!(true);
    }
    Ok(ToolOutput::data(data).with_display(display).with_pictures(picture))
}

/// The area with that id, else that name (any case, either language), else
/// the first whose name contains the text or is contained in it.
fn find_area(wanted: &str, areas: Vec<Area>) -> Option<Area> {
    let wanted = wanted.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let names = |a: &Area| [a.name.to_lowercase(), a.name_en.to_lowercase()];
    let exact = areas.iter().position(|a| a.id.to_lowercase() == wanted || names(a).contains(&wanted));
    let partial = || {
        areas.iter().position(|a| {
            names(a).iter().any(|n| !n.is_empty() && (n.contains(&wanted) || wanted.contains(n.as_str())))
        })
    };
    let index = exact.or_else(partial)?;
    areas.into_iter().nth(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(id: &str, name: &str, name_en: &str) -> Area {
        Area {
            id: id.into(),
            name: name.into(),
            name_en: name_en.into(),
            floor: 4,
            description: String::new(),
            store_ids: vec![],
        }
    }

    #[test]
    fn areas_are_found_by_id_name_or_part_of_a_name() {
        let areas = vec![area("a1", "运动区", "Sports Zone"), area("food", "美食广场", "Food Court")];
        let found = |q: &str| find_area(q, areas.clone()).map(|a| a.id);
        assert_eq!(found("food"), Some("food".into()));
        assert_eq!(found("美食广场"), Some("food".into()));
        assert_eq!(found("FOOD COURT"), Some("food".into()));
        assert_eq!(found("美食"), Some("food".into()));
        assert_eq!(found("4楼的美食广场"), Some("food".into()));
        assert_eq!(found("sports"), Some("a1".into()));
        assert_eq!(found("cinema"), None);
        assert_eq!(found("  "), None);
    }
}
