//! A shopper's whole journey through the tools against the embedded demo
//! mall: search under a budget, look at a shoe, add it by its size label,
//! confirm the order the preview showed, change the price under a pending
//! order, cancel. Only what the tools themselves return is assumed.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::info::{ProductDetail, StoreInfoResult};
use handlers::navigation::{NavigateToAreaResult, NavigateToStoreResult};
use handlers::orders::ListOrdersResult;
use handlers::records::{CartResult, OrderResult};
use handlers::search::SearchProductsResult;
use handlers::{Approval, Lang, Preview, ToolContext, ToolError};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use services::{EmbeddedMall, IdempotencyKey, OrderStatus, Shopper};

fn shopper_ctx(mall: &Arc<EmbeddedMall>, lang: Lang) -> ToolContext {
    ToolContext::new(mall.clone(), Shopper::new("telegram", 4242), lang)
}

/// Runs a tool through the registry and reads its result as its type.
async fn call<T: DeserializeOwned>(ctx: &ToolContext, tool: &str, args: Value) -> Result<T, ToolError> {
    let output = handlers::find(tool).unwrap().invoke(ctx.clone(), args).await?;
    Ok(output.read::<T>().unwrap())
}

async fn preview(ctx: &ToolContext, tool: &str, args: Value) -> Result<Preview, ToolError> {
    (handlers::find(tool).unwrap().preview.unwrap())(ctx.clone(), args).await
}

/// The context of the press on Confirm for `preview`.
fn confirmed(ctx: &ToolContext, key: &str, preview: Preview) -> ToolContext {
    let mut ctx = ctx.clone();
    ctx.approval = Some(Approval { idempotency_key: IdempotencyKey(key.to_owned()), preview });
    ctx
}

/// Searches Nike running shoes under 500 yuan and returns the first with a size in stock.
async fn pick_a_shoe(ctx: &ToolContext) -> (ProductDetail, String) {
    let found: SearchProductsResult =
        call(ctx, "search_products", json!({"keyword": "Nike 跑鞋", "max_price": 500})).await.unwrap();
    assert!(!found.products.is_empty(), "the demo mall sells Nike running shoes under 500 yuan");
    for product in &found.products {
        assert!(product.price.cents() <= 50_000, "{product:?}");
        assert!(!product.floor.is_empty() && !product.store.is_empty(), "{product:?}");
    }
    let first = &found.products[0];
    let detail: ProductDetail =
        call(ctx, "get_product_detail", json!({"product_id": first.product_id})).await.unwrap();
    let size = detail.skus.iter().find(|s| s.stock > 0).expect("a size in stock").label.clone();
    (detail, size)
}

#[tokio::test]
async fn search_add_by_size_label_order_as_previewed_and_cancel() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let ctx = shopper_ctx(&mall, Lang::Zh);
    let (shoe, size) = pick_a_shoe(&ctx).await;
    let name = shoe.name.as_str();
    let store_name = shoe.store.name.clone();
    let store_unit = shoe.store.unit.clone().unwrap();

    let add = json!({"product_id": shoe.product_id, "quantity": 2, "sku_id": size});
    let shown = preview(&ctx, "add_to_cart", add.clone()).await.unwrap();
    assert!(shown.summary.contains(&format!("{name}（{size} 码）× 2")), "{}", shown.summary);
    let cart: CartResult = call(&confirmed(&ctx, "add-1", shown), "add_to_cart", add).await.unwrap();
    assert_eq!(cart.items[0].sku_label.as_deref(), Some(size.as_str()));
    assert_eq!(cart.items[0].quantity, 2);

    let cart_id = cart.cart_id.clone();
    let shown = preview(&ctx, "create_order", json!({"cart_id": cart_id})).await.unwrap();
    for part in [name, &format!("（{size} 码）× 2"), "合计：¥", &format!("取货：{store_name}"), &store_unit]
    {
        assert!(shown.summary.contains(part), "{part} missing from {}", shown.summary);
    }
    let press = confirmed(&ctx, "order-1", shown.clone());
    let placed: OrderResult = call(&press, "create_order", json!({"cart_id": cart_id})).await.unwrap();
    let order = &placed.order;
    assert_eq!(order.status, OrderStatus::PendingPayment);
    assert_eq!(order.pickup_store.name, store_name, "the preview named the pickup store");
    let total_cents = shown.fingerprint["total_cents"].as_i64().unwrap();
    assert_eq!(order.total_yuan.cents(), total_cents);

    let again: OrderResult = call(&press, "create_order", json!({"cart_id": cart_id})).await.unwrap();
    assert_eq!(again.order.order_id, order.order_id, "a second press makes no second order");
    let listed: ListOrdersResult = call(&ctx, "list_orders", json!({})).await.unwrap();
    assert_eq!(listed.total, 1);
    assert_eq!(listed.orders[0].item_count, 2);

    let order_id = json!({"order_id": order.order_id});
    let shown = preview(&ctx, "cancel_order", order_id.clone()).await.unwrap();
    assert!(shown.summary.starts_with(&format!("取消订单 {}：", order.order_id)));
    let cancelled: OrderResult =
        call(&confirmed(&ctx, "cancel-1", shown), "cancel_order", order_id.clone()).await.unwrap();
    assert_eq!(cancelled.order.status, OrderStatus::Cancelled);
    let err = preview(&ctx, "cancel_order", order_id).await.unwrap_err();
    assert!(matches!(err, ToolError::Refused { code: "ORDER_NOT_CANCELLABLE", .. }), "{err:?}");
}

#[tokio::test]
async fn an_order_with_a_coupon_shows_subtotal_discount_and_total_before_and_after_confirming_in_each_language()
 {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let ctx = shopper_ctx(&mall, Lang::En);
    let (shoe, size) = pick_a_shoe(&ctx).await;
    let add = json!({"product_id": shoe.product_id, "quantity": 1, "sku_id": size});
    let cart: CartResult = call(&ctx, "add_to_cart", add).await.unwrap();
    let subtotal = cart.total_yuan.cents();
    assert!(subtotal >= 10_000, "the shoe costs ¥100 or more: {subtotal}");
    let _: Value = call(&ctx, "claim_coupon", json!({"coupon": "cp-lucky-5"})).await.unwrap();
    let (sub, total) = (handlers::format::money(subtotal), handlers::format::money(subtotal - 2000));
    let args = json!({"cart_id": cart.cart_id, "coupon_id": "best"});
    let expected = [
        (
            Lang::Zh,
            vec![format!("小计 {sub}"), "🎟 优惠券「限量5张 满100减20」-¥20".into(), format!("实付 {total}")],
        ),
        (
            Lang::ZhHant,
            vec![format!("小計 {sub}"), "🎟 優惠券「限量5張 滿100減20」-¥20".into(), format!("實付 {total}")],
        ),
        (
            Lang::En,
            vec![
                format!("Subtotal {sub}"),
                "🎟 Coupon \"Only 5: ¥20 off ¥100\" -¥20".into(),
                format!("Total to pay {total}"),
            ],
        ),
    ];
    for (lang, parts) in expected {
        let shown = preview(&shopper_ctx(&mall, lang), "create_order", args.clone()).await.unwrap();
        for part in parts {
            assert!(shown.summary.contains(&part), "{lang:?}: {part} missing from {}", shown.summary);
        }
        assert_eq!(shown.fingerprint["discount_cents"], 2000);
    }
    let shown = preview(&ctx, "create_order", args.clone()).await.unwrap();
    let placed: OrderResult =
        call(&confirmed(&ctx, "coupon-order-1", shown), "create_order", args).await.unwrap();
    assert_eq!(placed.order.total_yuan.cents(), subtotal - 2000);
    let said = handlers::orders::order_created(&placed, Lang::En);
    for part in [format!("Subtotal {sub}"), "-¥20".into(), format!("Total to pay {total}")] {
        assert!(said.contains(&part), "the placed order says {part}: {said}");
    }
}

#[tokio::test]
async fn a_price_change_after_the_preview_places_no_order() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let ctx = shopper_ctx(&mall, Lang::En);
    let (shoe, size) = pick_a_shoe(&ctx).await;
    let add = json!({"product_id": shoe.product_id, "quantity": 1, "sku_id": size});
    let cart: CartResult = call(&ctx, "add_to_cart", add).await.unwrap();
    let shown = preview(&ctx, "create_order", json!({"cart_id": cart.cart_id})).await.unwrap();
    assert!(shown.summary.starts_with("Place this order:\n1. "), "{}", shown.summary);
    assert!(shown.summary.contains(&format!("(size {size}) × 1")), "{}", shown.summary);

    mall.set_product_price(&shoe.product_id, 123_400).unwrap();
    let press = confirmed(&ctx, "order-2", shown);
    let err =
        call::<OrderResult>(&press, "create_order", json!({"cart_id": cart.cart_id})).await.unwrap_err();
    assert!(matches!(err, ToolError::Refused { code: "PRICE_CHANGED", .. }), "{err:?}");
    let orders: ListOrdersResult = call(&ctx, "list_orders", json!({})).await.unwrap();
    assert_eq!(orders.total, 0);
}

#[tokio::test]
async fn stores_are_found_by_either_name_and_areas_by_part_of_a_name() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let zh = shopper_ctx(&mall, Lang::Zh);
    let en = shopper_ctx(&mall, Lang::En);
    let route = |result: NavigateToStoreResult| match result {
        NavigateToStoreResult::Route(directions) => directions,
        other => panic!("no route: {other:?}"),
    };
    let by_zh = route(call(&zh, "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap());
    let by_en = route(call(&en, "navigate_to_store", json!({"store_name": "uniqlo"})).await.unwrap());
    assert_eq!(by_zh.store.store_id, by_en.store.store_id);
    assert_eq!(
        (by_zh.store.name.as_str(), by_en.store.name.as_str()),
        ("优衣库", "Uniqlo"),
        "each in its language"
    );
    assert!(!by_zh.steps.is_empty());
    let by_question = route(call(&zh, "navigate_to_store", json!({"store_name": "优衣库店"})).await.unwrap());
    assert_eq!(by_question.store, by_zh.store, "the question's words are struck out");
    let info: StoreInfoResult =
        call(&en, "get_store_info", json!({"store_id": "Uniqlo", "info_type": "basic"})).await.unwrap();
    let StoreInfoResult::Basic { store } = info else { panic!("{info:?}") };
    assert_eq!(store.store_id, by_en.store.store_id);
    let area: NavigateToAreaResult =
        call(&zh, "navigate_to_area", json!({"area_name": "美食"})).await.unwrap();
    assert!(!area.stores.unwrap_or_default().is_empty());
    let err = call::<NavigateToStoreResult>(&zh, "navigate_to_store", json!({"store_name": "不存在的店"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound(_)), "{err:?}");
}
