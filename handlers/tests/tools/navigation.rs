//! navigate_to_store and navigate_to_area.

use handlers::{Lang, ToolError};
use mockall::predicate::eq;
use serde_json::json;
use services::*;

use crate::fixtures::*;

fn route_to(store_id: &str) -> Route {
    Route {
        to_store_id: store_id.into(),
        from: "main_entrance".into(),
        floor: -1,
        steps: vec!["进门右转".into(), "乘扶梯下到 B1".into(), "左手第三家".into()],
        distance_m: 120,
        eta_minutes: 2,
    }
}

/// A mall where "优衣库" is no store id but the store search finds it.
fn mall_finding_uniqlo_by_name(name: &'static str) -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_store()
        .with(eq(name))
        .returning(|id| Err(ServiceError::not_found(format!("store {id}"))));
    mall.expect_search_stores()
        .withf(move |q| q.keyword.as_deref() == Some(name))
        .returning(|_| Ok(page(vec![uniqlo()])));
    mall.expect_route().with(eq("s-uniqlo"), eq(None)).returning(|id, _| Ok(route_to(id)));
    mall
}

#[tokio::test]
async fn a_store_name_in_chinese_falls_back_to_the_store_search() {
    let ctx = ctx(mall_finding_uniqlo_by_name("优衣库"), Lang::Zh);
    let output = call(ctx, "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap();
    assert_eq!(
        output.data,
        json!({
            "store": {"store_id": "s-uniqlo", "name": "优衣库", "name_en": "Uniqlo", "floor": -1, "unit": "B105"},
            "from": "main_entrance",
            "steps": ["进门右转", "乘扶梯下到 B1", "左手第三家"],
            "distance_m": 120,
            "eta_minutes": 2,
        })
    );
    assert_eq!(
        output.display.as_deref(),
        Some(
            "📍 优衣库（B105）\n从正门出发：\n1. 进门右转\n2. 乘扶梯下到 B1\n3. 左手第三家\n约 120 米，步行约 2 分钟"
        )
    );
    assert_eq!(output.suggestions, ["优衣库有什么优惠"]);
}

#[tokio::test]
async fn an_english_name_works_too_and_the_directions_are_in_english() {
    let ctx = ctx(mall_finding_uniqlo_by_name("Uniqlo"), Lang::En);
    let output =
        call(ctx, "navigate_to_store", json!({"store_name": "Uniqlo", "highlight": false})).await.unwrap();
    assert_eq!(output.data["store"]["store_id"], "s-uniqlo");
    let display = output.display.unwrap();
    assert!(display.starts_with("From the main entrance:\n1. 进门右转"), "{display}");
    assert!(display.ends_with("About 120 m, a 2 min walk"), "{display}");
    assert!(!display.contains('📍'), "highlight false: no pin line: {display}");
}

#[tokio::test]
async fn a_store_id_needs_no_search() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    mall.expect_route().returning(|id, _| Ok(route_to(id)));
    let output =
        call(ctx(mall, Lang::En), "navigate_to_store", json!({"store_name": "s-nike"})).await.unwrap();
    assert_eq!(output.data["store"]["name_en"], "Nike");
    assert!(output.display.unwrap().starts_with("📍 Nike (2F, unit 201)\n"));
}

#[tokio::test]
async fn an_unknown_store_is_not_found_with_a_hint() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().returning(|_| Err(ServiceError::not_found("no such store")));
    mall.expect_search_stores().returning(|_| Ok(page(vec![])));
    let err =
        call(ctx(mall, Lang::Zh), "navigate_to_store", json!({"store_name": "Apple"})).await.unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("\"Apple\"") && text.contains("search_stores"), "{text}");
}

#[tokio::test]
async fn a_mall_outage_is_upstream_and_is_not_taken_for_an_unknown_store() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().returning(|_| Err(unavailable()));
    let err =
        call(ctx(mall, Lang::Zh), "navigate_to_store", json!({"store_name": "s-nike"})).await.unwrap_err();
    assert!(matches!(err, ToolError::Upstream(_)), "{err:?}");
    assert!(!err.model_message().contains("mall.internal"), "no internal detail for the model");
}

fn areas() -> Page<Area> {
    page(vec![
        Area {
            id: "a-sports".into(),
            name: "运动区".into(),
            name_en: "Sports Zone".into(),
            floor: 2,
            description: "运动品牌集中区".into(),
            store_ids: vec!["s-nike".into()],
        },
        Area {
            id: "a-fashion".into(),
            name: "潮流服饰".into(),
            name_en: "Fashion Street".into(),
            floor: -1,
            description: "快时尚".into(),
            store_ids: vec!["s-uniqlo".into(), "s-nike".into()],
        },
    ])
}

#[tokio::test]
async fn an_area_is_found_by_part_of_its_english_name_with_its_stores() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    mall.expect_get_store().with(eq("s-uniqlo")).returning(|_| Ok(uniqlo()));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let output =
        call(ctx(mall, Lang::En), "navigate_to_area", json!({"area_name": "fashion"})).await.unwrap();
    assert_eq!(
        output.data,
        json!({
            "area": {"area_id": "a-fashion", "name": "潮流服饰", "name_en": "Fashion Street", "floor": -1,
                     "description": "快时尚"},
            "stores": [
                {"store_id": "s-uniqlo", "name": "优衣库", "category": "服装", "unit": "B105"},
                {"store_id": "s-nike", "name": "耐克", "category": "运动", "unit": "201"},
            ],
        })
    );
    assert_eq!(output.display.as_deref(), Some("📍 Fashion Street · B1"));
}

#[tokio::test]
async fn a_store_that_cannot_be_looked_up_is_left_out_of_the_area() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    mall.expect_get_store()
        .with(eq("s-uniqlo"))
        .returning(|_| Err(ServiceError::not_found("store s-uniqlo")));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let output =
        call(ctx(mall, Lang::Zh), "navigate_to_area", json!({"area_name": "潮流服饰"})).await.unwrap();
    assert_eq!(
        output.data["stores"],
        json!([{"store_id": "s-nike", "name": "耐克", "category": "运动", "unit": "201"}])
    );
    assert_eq!(output.display.as_deref(), Some("📍 潮流服饰 · B1"));
}

#[tokio::test]
async fn show_stores_false_looks_up_no_store() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    let args = json!({"area_name": "运动区", "show_stores": false});
    let output = call(ctx(mall, Lang::Zh), "navigate_to_area", args).await.unwrap();
    assert_eq!(output.data["area"]["area_id"], "a-sports");
    assert!(output.data.get("stores").is_none(), "{}", output.data);
}

#[tokio::test]
async fn an_unknown_area_lists_the_areas_there_are() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    let err =
        call(ctx(mall, Lang::Zh), "navigate_to_area", json!({"area_name": "电影院"})).await.unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("运动区 (Sports Zone)") && text.contains("潮流服饰 (Fashion Street)"), "{text}");
}
