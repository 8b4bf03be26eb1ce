//! A shopper's whole journey through the tools against the embedded demo
//! mall: search under a budget, look at a shoe, add it by its size label,
//! confirm the order the preview showed, change the price under a pending
//! order, cancel. Only what the tools themselves return is assumed.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::{Approval, Lang, Preview, ToolContext, ToolError, ToolOutput};
use serde_json::{Value, json};
use services::{EmbeddedMall, IdempotencyKey, Shopper};

fn shopper_ctx(mall: &Arc<EmbeddedMall>, lang: Lang) -> ToolContext {
    ToolContext::new(mall.clone(), Shopper::new("telegram", 4242), lang)
}

async fn call(ctx: &ToolContext, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
    handlers::find(tool).unwrap().invoke(ctx.clone(), args).await
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
async fn pick_a_shoe(ctx: &ToolContext) -> (Value, String) {
    let found =
        call(ctx, "search_products", json!({"keyword": "Nike 跑鞋", "max_price": 500})).await.unwrap();
    let products = found.data["products"].as_array().unwrap().clone();
    assert!(!products.is_empty(), "the demo mall sells Nike running shoes under 500 yuan");
    for product in &products {
        assert!(product["price_yuan"].as_f64().unwrap() <= 500.0, "{product}");
        assert!(product["floor"].is_i64() && product["unit"].is_string(), "{product}");
    }
    let first = &products[0];
    let detail = call(ctx, "get_product_detail", json!({"product_id": first["product_id"]})).await.unwrap();
    let size = detail.data["sizes"][0].as_str().expect("a size in stock").to_owned();
    (detail.data, size)
}

#[tokio::test]
async fn search_add_by_size_label_order_as_previewed_and_cancel() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let ctx = shopper_ctx(&mall, Lang::Zh);
    let (shoe, size) = pick_a_shoe(&ctx).await;
    let name = shoe["name"].as_str().unwrap();
    let store_name = shoe["store"]["name"].as_str().unwrap();
    let store_unit = shoe["store"]["unit"].as_str().unwrap();

    let add = json!({"product_id": shoe["product_id"], "quantity": 2, "sku_id": size});
    let shown = preview(&ctx, "add_to_cart", add.clone()).await.unwrap();
    assert!(shown.summary.contains(&format!("{name}（{size} 码）× 2")), "{}", shown.summary);
    let cart = call(&confirmed(&ctx, "add-1", shown), "add_to_cart", add).await.unwrap().data;
    assert_eq!(cart["items"][0]["sku_label"], size.as_str());
    assert_eq!(cart["items"][0]["quantity"], 2);

    let cart_id = cart["cart_id"].clone();
    let shown = preview(&ctx, "create_order", json!({"cart_id": cart_id})).await.unwrap();
    for part in [name, &format!("（{size} 码）× 2"), "合计：¥", &format!("取货：{store_name}"), store_unit]
    {
        assert!(shown.summary.contains(part), "{part} missing from {}", shown.summary);
    }
    let press = confirmed(&ctx, "order-1", shown.clone());
    let placed = call(&press, "create_order", json!({"cart_id": cart_id})).await.unwrap().data;
    let order = &placed["order"];
    assert_eq!(order["status"], "PENDING_PAYMENT");
    assert_eq!(order["pickup_store"]["name"], store_name, "the preview named the pickup store");
    let total_cents = shown.fingerprint["total_cents"].as_i64().unwrap();
    assert_eq!((order["total_yuan"].as_f64().unwrap() * 100.0).round() as i64, total_cents);

    let again = call(&press, "create_order", json!({"cart_id": cart_id})).await.unwrap().data;
    assert_eq!(again["order"]["order_id"], order["order_id"], "a second press makes no second order");
    let listed = call(&ctx, "list_orders", json!({})).await.unwrap().data;
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["orders"][0]["item_count"], 2);

    let order_id = json!({"order_id": order["order_id"]});
    let shown = preview(&ctx, "cancel_order", order_id.clone()).await.unwrap();
    assert!(shown.summary.starts_with(&format!("取消订单 {}：", order["order_id"].as_str().unwrap())));
    let cancelled =
        call(&confirmed(&ctx, "cancel-1", shown), "cancel_order", order_id.clone()).await.unwrap();
    assert_eq!(cancelled.data["order"]["status"], "CANCELLED");
    let err = preview(&ctx, "cancel_order", order_id).await.unwrap_err();
    assert!(matches!(err, ToolError::Refused { code: "ORDER_NOT_CANCELLABLE", .. }), "{err:?}");
}

#[tokio::test]
async fn a_price_change_after_the_preview_places_no_order() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let ctx = shopper_ctx(&mall, Lang::En);
    let (shoe, size) = pick_a_shoe(&ctx).await;
    let add = json!({"product_id": shoe["product_id"], "quantity": 1, "sku_id": size});
    let cart = call(&ctx, "add_to_cart", add).await.unwrap().data;
    let shown = preview(&ctx, "create_order", json!({"cart_id": cart["cart_id"]})).await.unwrap();
    assert!(shown.summary.starts_with("Place this order:\n1. "), "{}", shown.summary);
    assert!(shown.summary.contains(&format!("(size {size}) × 1")), "{}", shown.summary);

    mall.set_product_price(shoe["product_id"].as_str().unwrap(), 123_400).unwrap();
    let press = confirmed(&ctx, "order-2", shown);
    let err = call(&press, "create_order", json!({"cart_id": cart["cart_id"]})).await.unwrap_err();
    assert!(matches!(err, ToolError::Refused { code: "PRICE_CHANGED", .. }), "{err:?}");
    let orders = call(&ctx, "list_orders", json!({})).await.unwrap().data;
    assert_eq!(orders["total"], 0);
}

#[tokio::test]
async fn stores_are_found_by_either_name_and_areas_by_part_of_a_name() {
    let mall = Arc::new(EmbeddedMall::in_memory());
    let zh = shopper_ctx(&mall, Lang::Zh);
    let en = shopper_ctx(&mall, Lang::En);
    let by_zh = call(&zh, "navigate_to_store", json!({"store_name": "优衣库"})).await.unwrap();
    let by_en = call(&en, "navigate_to_store", json!({"store_name": "uniqlo"})).await.unwrap();
    assert_eq!(by_zh.data["store"], by_en.data["store"]);
    assert!(by_zh.display.unwrap().contains("\n1. "));
    let info =
        call(&en, "get_store_info", json!({"store_id": "Uniqlo", "info_type": "basic"})).await.unwrap();
    assert_eq!(info.data["store"]["store_id"], by_en.data["store"]["store_id"]);
    let area = call(&zh, "navigate_to_area", json!({"area_name": "美食"})).await.unwrap();
    assert!(!area.data["stores"].as_array().unwrap().is_empty(), "{}", area.data);
    let err = call(&zh, "navigate_to_store", json!({"store_name": "不存在的店"})).await.unwrap_err();
    assert!(matches!(err, ToolError::NotFound(_)), "{err:?}");
}
