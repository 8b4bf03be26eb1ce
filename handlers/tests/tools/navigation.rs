//! navigate_to_store and navigate_to_area.

use handlers::navigation::{
    AreaCard, AreaStore, Directions, NavigateToAreaResult, NavigateToStoreResult, StoreNotFound,
};
use handlers::records::StoreRef;
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

fn directions(result: NavigateToStoreResult) -> Directions {
    match result {
        NavigateToStoreResult::Route(directions) => directions,
        other => panic!("no route: {other:?}"),
    }
}

fn uniqlo_ref() -> StoreRef {
    StoreRef {
        store_id: "s-uniqlo".into(),
        name: "优衣库".into(),
        floor: Some(-1),
        unit: Some("B105".into()),
    }
}

#[tokio::test]
async fn a_store_name_in_chinese_falls_back_to_the_store_search() {
    let ctx = ctx(mall_finding_uniqlo_by_name("优衣库"), Lang::Zh);
    let output = call(ctx, "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap();
    assert_eq!(
        directions(output.data),
        Directions {
            store: uniqlo_ref(),
            from: "main_entrance".into(),
            steps: vec!["进门右转".into(), "乘扶梯下到 B1".into(), "左手第三家".into()],
            distance_m: 120,
            eta_minutes: 2,
            highlight: true,
            on_map: Default::default(),
        }
    );
    assert_eq!(output.suggestions, ["优衣库有什么优惠"]);
}

#[tokio::test]
async fn an_english_name_works_too_and_highlight_is_passed_on() {
    let ctx = ctx(mall_finding_uniqlo_by_name("Uniqlo"), Lang::En);
    let output =
        call(ctx, "navigate_to_store", json!({"store_name": "Uniqlo", "highlight": false})).await.unwrap();
    let route = directions(output.data);
    assert_eq!((route.store.store_id.as_str(), route.highlight), ("s-uniqlo", false));
    assert_eq!(output.suggestions, ["Promotions at Uniqlo"]);
}

#[tokio::test]
async fn a_store_id_needs_no_search() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    mall.expect_route().returning(|id, _| Ok(route_to(id)));
    let output: handlers::ToolOutput<NavigateToStoreResult> =
        call(ctx(mall, Lang::En), "navigate_to_store", json!({"store_name": "s-nike"})).await.unwrap();
    assert_eq!(directions(output.data).store.name, "Nike", "named in the shopper's language");
}

/// A mall whose store search ranks loosely: whatever is asked, Apple first.
fn loose_mall() -> MockMallApi {
    let apple = Store { id: "s-apple".into(), name: "苹果".into(), name_en: "Apple".into(), ..nike() };
    let mut mall = MockMallApi::new();
    mall.expect_get_store().returning(|id| Err(ServiceError::not_found(format!("store {id}"))));
    mall.expect_search_stores().returning(move |_| Ok(page(vec![apple.clone(), uniqlo()])));
    // No brand of that name either.
    mall.expect_search_products().returning(|_| Ok(page(vec![])));
    mall
}

#[tokio::test]
async fn a_loose_search_never_sends_the_shopper_to_another_store() {
    let output = call(ctx(loose_mall(), Lang::Zh), "navigate_to_store", json!({"store_name": "Nike 店"}))
        .await
        .unwrap();
    let NavigateToStoreResult::NotFound(StoreNotFound { not_found, closest }) = output.data else {
        panic!("routed to another store: {:?}", output.data)
    };
    assert_eq!(not_found, "Nike 店");
    let names: Vec<_> = closest.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["苹果", "优衣库"]);
    assert_eq!(output.suggestions, ["带我去苹果", "带我去优衣库"], "the closest names as buttons");
}

#[tokio::test]
async fn get_store_info_refuses_a_loose_hit_too() {
    let args = json!({"store_id": "Nike 店", "info_type": "basic"});
    let err =
        call::<serde_json::Value>(ctx(loose_mall(), Lang::En), "get_store_info", args).await.unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("\"Nike 店\"") && text.contains("苹果 (Apple)"), "{text}");
}

#[tokio::test]
async fn an_unknown_store_is_not_found_with_a_hint() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().returning(|_| Err(ServiceError::not_found("no such store")));
    mall.expect_search_stores().returning(|_| Ok(page(vec![])));
    mall.expect_search_products().returning(|_| Ok(page(vec![])));
    let err = call::<NavigateToStoreResult>(
        ctx(mall, Lang::Zh),
        "navigate_to_store",
        json!({"store_name": "Apple"}),
    )
    .await
    .unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("\"Apple\"") && text.contains("search_stores"), "{text}");
}

#[tokio::test]
async fn a_mall_outage_is_upstream_and_is_not_taken_for_an_unknown_store() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().returning(|_| Err(unavailable()));
    let err = call::<NavigateToStoreResult>(
        ctx(mall, Lang::Zh),
        "navigate_to_store",
        json!({"store_name": "s-nike"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::Upstream(_)), "{err:?}");
    assert!(!err.model_message().contains("mall.internal"), "no internal detail for the model");
}

fn area_store(id: &str, name: &str, name_en: &str, category: &str, unit: &str) -> AreaStore {
    AreaStore {
        store_id: id.into(),
        name: name.into(),
        name_en: name_en.into(),
        category: category.into(),
        unit: unit.into(),
    }
}

fn nike_in_area() -> AreaStore {
    area_store("s-nike", "耐克", "Nike", "运动", "201")
}

fn areas() -> Page<Area> {
    page(vec![
        Area {
            id: "a-sports".into(),
            name: "运动区".into(),
            name_en: "Sports Zone".into(),
            floor: 2,
            description: "运动品牌集中区".into(),
            description_en: String::new(),
            store_ids: vec!["s-nike".into()],
        },
        Area {
            id: "a-fashion".into(),
            name: "潮流服饰".into(),
            name_en: "Fashion Street".into(),
            floor: -1,
            description: "快时尚".into(),
            description_en: "Fast fashion".into(),
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
    let output: handlers::ToolOutput<NavigateToAreaResult> =
        call(ctx(mall, Lang::En), "navigate_to_area", json!({"area_name": "fashion"})).await.unwrap();
    let area = AreaCard {
        area_id: "a-fashion".into(),
        name: "潮流服饰".into(),
        name_en: "Fashion Street".into(),
        floor: -1,
        description: "Fast fashion".into(),
    };
    let stores = vec![area_store("s-uniqlo", "优衣库", "Uniqlo", "服装", "B105"), nike_in_area()];
    assert_eq!(output.data, NavigateToAreaResult { area, stores: Some(stores), floor_plan_sent: false });
}

#[tokio::test]
async fn a_store_that_cannot_be_looked_up_is_left_out_of_the_area() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    mall.expect_get_store()
        .with(eq("s-uniqlo"))
        .returning(|_| Err(ServiceError::not_found("store s-uniqlo")));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let output: handlers::ToolOutput<NavigateToAreaResult> =
        call(ctx(mall, Lang::Zh), "navigate_to_area", json!({"area_name": "潮流服饰"})).await.unwrap();
    assert_eq!(output.data.stores, Some(vec![nike_in_area()]));
}

#[tokio::test]
async fn show_stores_false_looks_up_no_store() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    let args = json!({"area_name": "运动区", "show_stores": false});
    let output = call_json(ctx(mall, Lang::Zh), "navigate_to_area", args).await.unwrap();
    let result: NavigateToAreaResult = output.read().unwrap();
    assert_eq!((result.area.area_id.as_str(), result.stores), ("a-sports", None));
    assert!(!output.data.as_object().unwrap().contains_key("stores"), "no empty list for the model");
}

#[tokio::test]
async fn an_unknown_area_lists_the_areas_there_are() {
    let mut mall = MockMallApi::new();
    mall.expect_list_areas().returning(|| Ok(areas()));
    let err =
        call::<NavigateToAreaResult>(ctx(mall, Lang::Zh), "navigate_to_area", json!({"area_name": "电影院"}))
            .await
            .unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("运动区 (Sports Zone)") && text.contains("潮流服饰 (Fashion Street)"), "{text}");
}
