//! create_order, cancel_order, get_order_status, list_orders and the previews.

use handlers::orders::{ListOrdersResult, OrderSummary};
use handlers::records::{OrderResult, StoreRef, Yuan};
use handlers::{Lang, ToolError, ToolOutput};
use mockall::predicate::eq;
use serde_json::json;
use services::*;

use crate::fixtures::*;

/// The shopper's full cart, its first item's product and that product's store.
fn mall_for_order_preview(cart: Cart) -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_cart().withf(|s| s.as_str() == SHOPPER).returning(move |_| Ok(cart.clone()));
    mall.expect_get_product().with(eq("p-peg41")).returning(|_| Ok(pegasus()));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    mall
}

#[tokio::test]
async fn the_order_preview_shows_every_line_the_total_and_the_pickup_store() {
    let zh = preview(
        ctx(mall_for_order_preview(full_cart()), Lang::Zh),
        "create_order",
        json!({"cart_id": "c-42"}),
    )
    .await
    .unwrap();
    assert_eq!(
        zh.summary,
        "确认下单：\n1. Nike Pegasus 41 跑鞋（42 码）× 1，¥699\n2. 运动袜 × 2，¥39.98\n合计：¥738.98\n取货：耐克（2楼 201）"
    );
    assert_eq!(
        zh.fingerprint,
        json!({
            "cart_id": "c-42",
            "total_cents": 73898,
            "items": [["p-peg41", "k-peg-42", 1, 69900], ["p-socks", null, 2, 1999]],
        })
    );
    let en = preview(
        ctx(mall_for_order_preview(full_cart()), Lang::En),
        "create_order",
        json!({"cart_id": "c-42"}),
    )
    .await
    .unwrap();
    assert_eq!(
        en.summary,
        "Place this order:\n1. Nike Pegasus 41 Running Shoes (size 42) × 1, ¥699\n2. 运动袜 × 2, ¥39.98\n\
         Total: ¥738.98\nPickup: Nike (2F, unit 201)"
    );
    assert_eq!(en.fingerprint, zh.fingerprint);
}

#[tokio::test]
async fn an_empty_cart_or_another_cart_id_is_refused_in_the_preview() {
    let ctx_empty = ctx(mall_for_order_preview(cart(vec![])), Lang::Zh);
    let err = preview(ctx_empty, "create_order", json!({"cart_id": "c-42"})).await.unwrap_err();
    assert_eq!(refused_code(&err), Some("CART_EMPTY"));
    let err = preview(
        ctx(mall_for_order_preview(full_cart()), Lang::Zh),
        "create_order",
        json!({"cart_id": "cart_1"}),
    )
    .await
    .unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("cart_1") && text.contains("c-42"), "{text}");
}

#[tokio::test]
async fn a_confirmed_order_carries_the_key_and_the_total_the_shopper_saw() {
    let mut mall = MockMallApi::new();
    mall.expect_create_order()
        .withf(|s, order, key| {
            s.as_str() == SHOPPER
                && *order == CreateOrder { cart_id: "c-42".into(), expected_total_cents: Some(73898) }
                && *key == Some(IdempotencyKey("pa-order-1".into()))
        })
        .times(1)
        .returning(|_, _, _| Ok(order(OrderStatus::PendingPayment)));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let fingerprint = json!({"cart_id": "c-42", "total_cents": 73898, "items": []});
    let output: ToolOutput<OrderResult> =
        call(approved(mall, "pa-order-1", fingerprint), "create_order", json!({"cart_id": "c-42"}))
            .await
            .unwrap();
    let order = &output.data.order;
    assert_eq!(order.order_id, "o-1001");
    assert_eq!(order.status, OrderStatus::PendingPayment);
    assert_eq!(order.total_yuan, Yuan(73898));
    assert_eq!(order.created_at, "2025-05-01T10:30:00Z");
    assert_eq!(order.items[0].sku_label.as_deref(), Some("42"));
    assert_eq!(order.items.len(), 2);
    assert_eq!(order.pickup_store, StoreRef::new(&nike(), Lang::Zh));
}

#[tokio::test]
async fn an_order_without_approval_sends_no_key_and_no_expected_total() {
    let mut mall = MockMallApi::new();
    mall.expect_create_order()
        .withf(|_, order, key| order.expected_total_cents.is_none() && key.is_none())
        .returning(|_, _, _| Ok(order(OrderStatus::PendingPayment)));
    mall.expect_get_store().returning(|_| Ok(nike()));
    let output: ToolOutput<OrderResult> =
        call(ctx(mall, Lang::Zh), "create_order", json!({"cart_id": "c-42"})).await.unwrap();
    assert_eq!(output.data.order.order_id, "o-1001");
}

#[tokio::test]
async fn a_price_change_is_refused_with_its_code() {
    let mut mall = MockMallApi::new();
    mall.expect_create_order().returning(|_, _, _| {
        Err(ServiceError::PriceChanged { total_cents: 75898, message: "re-priced".into() })
    });
    let ctx = approved(mall, "pa-order-2", json!({"total_cents": 73898}));
    let err = call::<OrderResult>(ctx, "create_order", json!({"cart_id": "c-42"})).await.unwrap_err();
    assert_eq!(refused_code(&err), Some("PRICE_CHANGED"), "{err:?}");
}

fn mall_with_order(status: OrderStatus) -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_order()
        .withf(|s, id| s.as_str() == SHOPPER && id == "o-1001")
        .returning(move |_, _| Ok(order(status)));
    mall
}

#[tokio::test]
async fn the_cancel_preview_shows_the_orders_items_and_total() {
    let zh = preview(
        ctx(mall_with_order(OrderStatus::PendingPayment), Lang::Zh),
        "cancel_order",
        json!({"order_id": "o-1001"}),
    )
    .await
    .unwrap();
    assert_eq!(
        zh.summary,
        "取消订单 o-1001：\n1. Nike Pegasus 41 跑鞋（42 码）× 1，¥699\n2. 运动袜 × 2，¥39.98\n合计：¥738.98"
    );
    assert_eq!(
        zh.fingerprint,
        json!({"order_id": "o-1001", "status": "PENDING_PAYMENT", "total_cents": 73898})
    );
    let en = preview(
        ctx(mall_with_order(OrderStatus::PendingPayment), Lang::En),
        "cancel_order",
        json!({"order_id": "o-1001"}),
    )
    .await
    .unwrap();
    assert!(
        en.summary
            .starts_with("Cancel order o-1001:\n1. Nike Pegasus 41 Running Shoes (size 42) × 1, ¥699\n")
    );
    assert!(en.summary.ends_with("\nTotal: ¥738.98"), "{}", en.summary);
}

#[tokio::test]
async fn a_paid_order_can_be_cancelled_and_the_preview_says_the_mall_refunds_it() {
    let zh = preview(
        ctx(mall_with_order(OrderStatus::Paid), Lang::Zh),
        "cancel_order",
        json!({"order_id": "o-1001"}),
    )
    .await
    .unwrap();
    assert!(zh.summary.starts_with("取消订单 o-1001：\n1. Nike Pegasus 41 跑鞋"), "{}", zh.summary);
    assert!(zh.summary.ends_with("\n💰 此订单已付款 ¥738.98：取消后由商场办理退款。"), "{}", zh.summary);
    assert_eq!(zh.fingerprint["status"], "PAID", "a payment in between makes a new confirmation");
    let en = preview(
        ctx(mall_with_order(OrderStatus::Paid), Lang::En),
        "cancel_order",
        json!({"order_id": "o-1001"}),
    )
    .await
    .unwrap();
    assert!(en.summary.ends_with("cancelling asks the mall to refund it."), "{}", en.summary);
}

#[tokio::test]
async fn an_order_ready_for_pickup_cannot_be_cancelled_and_the_preview_says_so() {
    for status in [OrderStatus::Ready, OrderStatus::Completed, OrderStatus::Cancelled, OrderStatus::Expired] {
        let err =
            preview(ctx(mall_with_order(status), Lang::Zh), "cancel_order", json!({"order_id": "o-1001"}))
                .await
                .unwrap_err();
        assert_eq!(refused_code(&err), Some("ORDER_NOT_CANCELLABLE"), "{status:?}");
        assert!(err.to_string().contains(status.as_str()), "{err}");
    }
}

#[tokio::test]
async fn a_confirmed_cancel_carries_the_key_and_returns_the_cancelled_order() {
    let mut mall = MockMallApi::new();
    mall.expect_cancel_order()
        .withf(|s, id, key| {
            s.as_str() == SHOPPER && id == "o-1001" && *key == Some(IdempotencyKey("pa-cancel".into()))
        })
        .times(1)
        .returning(|_, _, _| Ok(order(OrderStatus::Cancelled)));
    mall.expect_get_store().returning(|_| Ok(nike()));
    let ctx = approved(mall, "pa-cancel", json!({"order_id": "o-1001"}));
    let output: ToolOutput<OrderResult> =
        call(ctx, "cancel_order", json!({"order_id": " o-1001 "})).await.unwrap();
    assert_eq!(output.data.order.status, OrderStatus::Cancelled);
}

#[tokio::test]
async fn a_cancelled_paid_order_tells_the_model_the_refund_as_the_mall_answered_it() {
    let mut mall = MockMallApi::new();
    mall.expect_cancel_order().times(1).returning(|_, _, _| {
        let mut cancelled = order(OrderStatus::Cancelled);
        cancelled.refund =
            Some(services::Refund { status: services::RefundStatus::Pending, amount_cents: 73898 });
        Ok(cancelled)
    });
    mall.expect_get_store().returning(|_| Ok(nike()));
    let ctx = approved(mall, "pa-cancel-paid", json!({"order_id": "o-1001"}));
    let output: ToolOutput<OrderResult> =
        call(ctx, "cancel_order", json!({"order_id": "o-1001"})).await.unwrap();
    let seen = serde_json::to_value(&output.data).unwrap();
    assert_eq!(seen["order"]["refund"], json!({"status": "PENDING", "amount_yuan": 738.98}), "{seen}");
}

#[tokio::test]
async fn order_status_survives_a_failed_store_lookup() {
    let mut mall = mall_with_order(OrderStatus::Paid);
    mall.expect_get_store().returning(|_| Err(unavailable()));
    let output: ToolOutput<OrderResult> =
        call(ctx(mall, Lang::Zh), "get_order_status", json!({"order_id": "o-1001"})).await.unwrap();
    assert_eq!(output.data.order.status, OrderStatus::Paid);
    assert_eq!(output.data.order.pickup_store, StoreRef::unknown("s-nike", None));
}

#[tokio::test]
async fn another_shoppers_order_is_not_found() {
    let mut mall = MockMallApi::new();
    mall.expect_get_order().returning(|_, id| Err(ServiceError::not_found(format!("order {id}"))));
    let err = call::<OrderResult>(ctx(mall, Lang::Zh), "get_order_status", json!({"order_id": "o-9"}))
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::NotFound("order o-9".into()));
}

#[tokio::test]
async fn list_orders_shows_the_ten_newest_with_item_counts() {
    let mut mall = MockMallApi::new();
    mall.expect_list_orders()
        .withf(|s, page| s.as_str() == SHOPPER && page.limit == Some(10))
        .returning(|_, _| Ok(Page { items: vec![order(OrderStatus::Paid)], total: 14 }));
    let output: ToolOutput<ListOrdersResult> =
        call(ctx(mall, Lang::Zh), "list_orders", json!({})).await.unwrap();
    let newest = OrderSummary {
        order_id: "o-1001".into(),
        status: OrderStatus::Paid,
        total_yuan: Yuan(73898),
        created_at: "2025-05-01T10:30:00Z".into(),
        item_count: 3,
        items: vec!["Nike Pegasus 41 跑鞋（42 码）× 1".into(), "运动袜 × 2".into()],
    };
    assert_eq!(output.data, ListOrdersResult { total: 14, orders: vec![newest] });
}
