//! The navigation tools with the demo mall's indoor map: the model gets the
//! route's steps and waypoints (never picture bytes), the shopper gets one
//! floor plan per floor; named starting points, step-free routes, areas.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::{Lang, ToolContext, ToolError, ToolOutput};
use serde_json::{Value, json};
use services::{EmbeddedMall, Shopper};

fn ctx(lang: Lang) -> ToolContext {
    ToolContext::new(Arc::new(EmbeddedMall::in_memory()), Shopper::new("telegram", 4343), lang)
        .with_map(Some(maps::demo::router()))
}

async fn call(ctx: &ToolContext, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
    handlers::find(tool).unwrap().invoke(ctx.clone(), args).await
}

#[tokio::test]
async fn the_model_reads_steps_and_waypoints_and_the_shopper_gets_a_plan_per_floor() {
    let out = call(&ctx(Lang::En), "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap();
    let data = &out.data;
    assert_eq!(data["store"]["store_id"], "s-uniqlo");
    assert_eq!(data["from"], "main_entrance");
    assert_eq!(data["floors"], json!([1, 2]));
    let steps: Vec<&str> = data["steps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert_eq!(steps.first(), Some(&"Enter by the Main entrance (south)"));
    assert!(steps.contains(&"Take the Atrium escalators up to 2F"), "{steps:?}");
    assert_eq!(steps.last(), Some(&"Arrive at Uniqlo (unit 2F-01), on your left"));
    let waypoints = data["waypoints"].as_array().unwrap();
    assert!(waypoints.len() >= 4, "{waypoints:?}");
    assert_eq!(waypoints[0], json!({"floor": 1, "x_m": 0.0, "y_m": -30.0}), "the main entrance");
    assert_eq!(waypoints.last().unwrap()["floor"], 2);
    assert!(
        data["distance_m"].as_u64().unwrap() > 50 && data["eta_minutes"].as_u64().unwrap() >= 2,
        "{data}"
    );
    assert_eq!(data["floor_plans_sent"], 2);
    // The steps, numbered, go under the first floor plan.
    let caption = &out.pictures[0].caption;
    assert!(caption.contains("\n1. Enter by the Main entrance (south)\n"), "{caption}");
    assert!(
        caption.ends_with(&format!("About {} m, a {} min walk", data["distance_m"], data["eta_minutes"])),
        "{caption}"
    );

    // Two pictures (1F, 2F) for the shopper; the model's text holds none of them.
    assert_eq!(out.pictures.len(), 2);
    assert!(out.pictures.iter().all(|p| p.png.starts_with(b"\x89PNG")));
    assert!(out.pictures[0].caption.contains("Take the Atrium escalators up to 2F"));
    assert_ne!(out.pictures[0].cache_key, out.pictures[1].cache_key);
    let for_model = data.to_string();
    assert!(for_model.len() < 4_000, "{} bytes", for_model.len());
    assert!(!for_model.contains("PNG") && !for_model.contains("png"), "{for_model}");
    let serialised = serde_json::to_string(&out).unwrap();
    assert!(!serialised.contains("pictures") && !serialised.contains("PNG"), "{serialised}");
}

#[tokio::test]
async fn routes_start_where_the_shopper_is_and_can_avoid_stairs() {
    let out = call(&ctx(Lang::Zh), "navigate_to_store", json!({"store_name": "Nike", "from": "北门"}))
        .await
        .unwrap();
    assert_eq!(out.data["from"], "north_gate");
    assert_eq!(out.data["from_name"], "北门");
    assert_eq!(out.data["steps"][0], "从北门进入");

    let out = call(
        &ctx(Lang::Zh),
        "navigate_to_store",
        json!({"store_name": "Nike", "from": "Starbucks", "avoid_stairs": true}),
    )
    .await
    .unwrap();
    assert_eq!(out.data["from"], "s-starbucks");
    let steps = out.data["steps"].to_string();
    assert!(steps.contains("乘中庭电梯上到 3F"), "{steps}");
    assert!(!steps.contains("扶梯") && !steps.contains("楼梯"), "{steps}");
    // The cache key tells the step-free route's pictures from the others.
    assert!(out.pictures[0].cache_key.contains("step-free"), "{}", out.pictures[0].cache_key);

    let err = call(&ctx(Lang::Zh), "navigate_to_store", json!({"store_name": "Nike", "from": "the moon"}))
        .await
        .unwrap_err();
    match err {
        ToolError::InvalidArguments { field, message } => {
            assert_eq!(field.as_deref(), Some("from"));
            assert!(message.contains("north gate") || message.contains("North gate"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn without_a_map_the_directions_are_the_malls_text() {
    let ctx = ToolContext::new(Arc::new(EmbeddedMall::in_memory()), Shopper::new("telegram", 4344), Lang::Zh);
    let out = call(&ctx, "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap();
    assert!(out.pictures.is_empty());
    assert!(out.data.get("waypoints").is_none());
    assert_eq!(out.data["steps"][1], "乘中庭扶梯上到 2F (Take the atrium escalator up to 2F)");
}

#[tokio::test]
async fn an_area_comes_with_its_floor_plan() {
    let out = call(&ctx(Lang::En), "navigate_to_area", json!({"area_name": "food court"})).await.unwrap();
    assert_eq!(out.data["area"]["area_id"], "a-food-court");
    assert_eq!(out.data["floor_plan_sent"], true);
    assert_eq!(out.pictures.len(), 1);
    assert_eq!(out.pictures[0].caption, "5F Home & food court · Food Court");
}
