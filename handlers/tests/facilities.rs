//! `find_facility` on the demo mall's map: the nearest of a kind on foot,
//! from where the shopper is, with its floor plans; a kind the mall does not
//! have answered with the kinds it has; basic mode's worded answer.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::Arc;

use handlers::{Lang, ToolContext, ToolError, ToolOutput};
use serde_json::{Value, json};
use services::{EmbeddedMall, Shopper};

fn ctx(lang: Lang, map: Arc<maps::Router>) -> ToolContext {
    ToolContext::new(Arc::new(EmbeddedMall::in_memory()), Shopper::new("telegram", 4344), lang)
        .with_map(Some(map))
}

async fn call(ctx: &ToolContext, args: Value) -> Result<ToolOutput, ToolError> {
    handlers::find("find_facility").unwrap().invoke(ctx.clone(), args).await
}

fn worded(lang: Lang, data: &Value) -> String {
    (handlers::find("find_facility").unwrap().offline.unwrap().answer)(lang, data).unwrap()
}

#[tokio::test]
async fn the_nearest_restroom_from_the_main_entrance_with_its_floor_plan() {
    let out = call(&ctx(Lang::Zh, maps::demo::router()), json!({"kind": "洗手间"})).await.unwrap();
    let data = &out.data;
    assert_eq!(data["kind"], "restroom");
    assert_eq!(data["floor"], 1);
    assert_eq!(data["from"], "main_entrance");
    assert_eq!(data["floor_plans_sent"], 1);
    assert_eq!(out.pictures.len(), 1);
    assert!(out.pictures[0].png.starts_with(b"\x89PNG"));
    assert!(out.pictures[0].caption.starts_with("1F "), "{}", out.pictures[0].caption);
    let text = worded(Lang::Zh, data);
    assert!(text.starts_with("最近的洗手间在 1楼，从正门（南门）步行约"), "{text}");
    assert!(text.contains("\n1. 从正门（南门）进入"), "{text}");
    // In English and Traditional Chinese, with a start named by the shopper.
    let out = call(&ctx(Lang::En, maps::demo::router()), json!({"kind": "atm", "from": "the north gate"}))
        .await
        .unwrap();
    let text = worded(Lang::En, &out.data);
    assert!(text.starts_with("Nearest: ATM on 1F, about"), "{text}");
    assert!(text.contains("from North gate"), "{text}");
    let out = call(&ctx(Lang::ZhHant, maps::demo::router()), json!({"kind": "哺乳室", "from": "優衣庫"}))
        .await
        .unwrap();
    let text = worded(Lang::ZhHant, &out.data);
    assert!(text.starts_with("最近的母嬰室在 2樓，從優衣庫步行約"), "{text}");
    assert!(!out.pictures.is_empty());
}

#[tokio::test]
async fn a_floor_or_a_store_is_a_start_and_an_unknown_start_is_named() {
    let out =
        call(&ctx(Lang::En, maps::demo::router()), json!({"kind": "restroom", "from": "3F"})).await.unwrap();
    assert_eq!(out.data["floor"], 3);
    assert_eq!(out.data["floors"], json!([3]));
    let out =
        call(&ctx(Lang::Zh, maps::demo::router()), json!({"kind": "母婴室", "from": "Nike"})).await.unwrap();
    assert_eq!(out.data["floors"].as_array().unwrap().len(), 2, "3F has no nursing room: {}", out.data);
    let err = call(&ctx(Lang::Zh, maps::demo::router()), json!({"kind": "restroom", "from": "火星"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments { field: Some(ref f), .. } if f == "from"), "{err}");
    let err = call(&ctx(Lang::Zh, maps::demo::router()), json!({"kind": "swimming pool"})).await.unwrap_err();
    assert!(err.to_string().contains("restroom"), "names the kinds there are: {err}");
}

/// The demo archive without its smoking area.
fn mall_without_smoking() -> Arc<maps::Router> {
    let mut files: HashMap<String, String> =
        maps::demo::FILES.iter().map(|(n, t)| ((*n).to_owned(), (*t).to_owned())).collect();
    let mut amenities: Value = serde_json::from_str(&files["amenity.geojson"]).unwrap();
    amenities["features"].as_array_mut().unwrap().retain(|f| f["properties"]["category"] != "smokingarea");
    files.insert("amenity.geojson".into(), amenities.to_string());
    Arc::new(maps::Router::new(maps::IndoorMap::from_files(&files).unwrap()))
}

#[tokio::test]
async fn a_kind_the_mall_does_not_have_is_answered_with_the_kinds_it_has() {
    let map = mall_without_smoking();
    for (lang, asked, expected) in [
        (Lang::Zh, "吸烟区", "抱歉，商场地图上没有吸烟区。这里有：洗手间、无障碍洗手间"),
        (Lang::ZhHant, "吸菸區", "抱歉，商場地圖上沒有吸菸區。這裡有：洗手間、無障礙洗手間"),
        (
            Lang::En,
            "smoking area",
            "Sorry, the mall's map has no smoking area. It has: restroom, accessible restroom",
        ),
    ] {
        let out = call(&ctx(lang, Arc::clone(&map)), json!({"kind": asked})).await.unwrap();
        assert!(out.pictures.is_empty());
        let text = worded(lang, &out.data);
        assert!(text.starts_with(expected), "{text}");
        assert!(!text.contains("吸烟区、") && !text.contains("smoking area,"), "{text}");
        assert!(!out.suggestions.is_empty(), "offers kinds it has");
    }
}
