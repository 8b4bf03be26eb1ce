//! add_to_cart, remove_from_cart, clear_cart, view_cart and their previews.

use handlers::records::{CartResult, ItemLine, Yuan};
use handlers::{Lang, ToolError, ToolOutput};
use mockall::predicate::eq;
use serde_json::json;
use services::*;

use crate::fixtures::*;

fn mall_with_pegasus() -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_product().with(eq("p-peg41")).returning(|_| Ok(pegasus()));
    mall
}

#[tokio::test]
async fn a_size_label_becomes_the_sku_id_and_the_approval_key_reaches_the_mall() {
    let mut mall = mall_with_pegasus();
    mall.expect_add_cart_item()
        .withf(|shopper, item, key| {
            shopper.as_str() == SHOPPER
                && *item
                    == AddCartItem {
                        product_id: "p-peg41".into(),
                        sku_id: Some("k-peg-42".into()),
                        quantity: 1,
                    }
                && *key == Some(IdempotencyKey("pa-7f3c".into()))
        })
        .times(1)
        .returning(|_, _, _| Ok(cart(vec![pegasus_line("i-1", "42", 1)])));
    let ctx = approved(mall, "pa-7f3c", json!({}));
    let args = json!({"product_id": "p-peg41", "quantity": 1, "sku_id": "42"});
    let output: ToolOutput<CartResult> = call(ctx, "add_to_cart", args).await.unwrap();
    let line = ItemLine {
        item_id: "i-1".into(),
        product_id: "p-peg41".into(),
        sku_id: Some("k-peg-42".into()),
        name: "Nike Pegasus 41 跑鞋".into(),
        sku_label: Some("42".into()),
        quantity: 1,
        unit_price_yuan: Yuan(69900),
        line_total_yuan: Yuan(69900),
    };
    assert_eq!(
        output.data,
        CartResult { cart_id: "c-42".into(), items: vec![line], total_yuan: Yuan(69900) }
    );
    assert_eq!(output.suggestions, ["查看购物车", "下单"]);
}

#[tokio::test]
async fn the_preview_says_item_size_quantity_and_price_in_the_shoppers_language() {
    let args = json!({"product_id": "p-peg41", "quantity": 2, "sku_id": "41码"});
    let zh = preview(ctx(mall_with_pegasus(), Lang::Zh), "add_to_cart", args.clone()).await.unwrap();
    assert_eq!(zh.summary, "加入购物车：Nike Pegasus 41 跑鞋（41 码）× 2，¥1398");
    assert_eq!(
        zh.fingerprint,
        json!({"product_id": "p-peg41", "sku_id": "k-peg-41", "quantity": 2, "unit_price_cents": 69900})
    );
    let en = preview(ctx(mall_with_pegasus(), Lang::En), "add_to_cart", args).await.unwrap();
    assert_eq!(en.summary, "Add to cart: Nike Pegasus 41 Running Shoes (size 41) × 2, ¥1398");
}

#[tokio::test]
async fn a_product_without_sizes_needs_no_sku() {
    let mut mall = MockMallApi::new();
    mall.expect_get_product().returning(|_| Ok(socks()));
    let args = json!({"product_id": "p-socks", "quantity": 3});
    let preview = preview(ctx(mall, Lang::En), "add_to_cart", args).await.unwrap();
    assert_eq!(preview.summary, "Add to cart: 运动袜 × 3, ¥59.97");
    assert_eq!(preview.fingerprint["sku_id"], json!(null));
}

#[tokio::test]
async fn quantities_outside_1_to_99_are_refused_before_the_mall_is_asked() {
    for quantity in [0, 100] {
        let args = json!({"product_id": "p-peg41", "quantity": quantity, "sku_id": "42"});
        let err =
            call_json(ctx(MockMallApi::new(), Lang::Zh), "add_to_cart", args.clone()).await.unwrap_err();
        assert_eq!(invalid_field(&err), Some("quantity"), "{quantity}: {err:?}");
        let err = preview(ctx(MockMallApi::new(), Lang::Zh), "add_to_cart", args).await.unwrap_err();
        assert_eq!(invalid_field(&err), Some("quantity"), "{quantity}: {err:?}");
    }
    let args = json!({"product_id": "p-peg41", "quantity": -1});
    let err = call_json(ctx(MockMallApi::new(), Lang::Zh), "add_to_cart", args).await.unwrap_err();
    assert_eq!(invalid_field(&err), Some("quantity"));
}

#[tokio::test]
async fn an_unknown_size_or_a_missing_one_names_the_sizes_there_are() {
    let args = json!({"product_id": "p-peg41", "quantity": 1, "sku_id": "45"});
    let err = call_json(ctx(mall_with_pegasus(), Lang::Zh), "add_to_cart", args).await.unwrap_err();
    assert_eq!(invalid_field(&err), Some("sku_id"));
    assert!(err.to_string().contains("41, 42, 43"), "{err}");
    let args = json!({"product_id": "p-peg41", "quantity": 1});
    let err = preview(ctx(mall_with_pegasus(), Lang::Zh), "add_to_cart", args).await.unwrap_err();
    assert_eq!(invalid_field(&err), Some("sku_id"));
    assert!(err.to_string().contains("several sizes (41, 42, 43)"), "{err}");
}

#[tokio::test]
async fn stock_is_checked_in_the_preview_and_the_mall_refusal_keeps_its_code() {
    let sold_out = json!({"product_id": "p-peg41", "quantity": 1, "sku_id": "43"});
    let err = preview(ctx(mall_with_pegasus(), Lang::Zh), "add_to_cart", sold_out).await.unwrap_err();
    assert_eq!(refused_code(&err), Some("OUT_OF_STOCK"), "{err:?}");
    let too_many = json!({"product_id": "p-peg41", "quantity": 2, "sku_id": "42"});
    let err = preview(ctx(mall_with_pegasus(), Lang::Zh), "add_to_cart", too_many).await.unwrap_err();
    assert!(err.to_string().contains("only 1 of Nike Pegasus 41 跑鞋 (42) left"), "{err}");

    let mut mall = mall_with_pegasus();
    mall.expect_add_cart_item()
        .returning(|_, _, _| Err(ServiceError::OutOfStock { message: "sold out a second ago".into() }));
    let args = json!({"product_id": "p-peg41", "quantity": 1, "sku_id": "42"});
    let err = call_json(ctx(mall, Lang::Zh), "add_to_cart", args).await.unwrap_err();
    assert_eq!(refused_code(&err), Some("OUT_OF_STOCK"), "{err:?}");
}

#[tokio::test]
async fn an_unknown_product_is_not_found_in_preview_and_call() {
    let mall = || {
        let mut mall = MockMallApi::new();
        mall.expect_get_product().returning(|id| Err(ServiceError::not_found(format!("product {id}"))));
        ctx(mall, Lang::Zh)
    };
    let args = json!({"product_id": "p-nope", "quantity": 1});
    let expected = ToolError::NotFound("product p-nope".into());
    assert_eq!(preview(mall(), "add_to_cart", args.clone()).await.unwrap_err(), expected);
    assert_eq!(call_json(mall(), "add_to_cart", args).await.unwrap_err(), expected);
}

fn mall_with_cart(cart: Cart) -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_cart().withf(|s| s.as_str() == SHOPPER).returning(move |_| Ok(cart.clone()));
    mall
}

fn two_sizes_cart() -> Cart {
    cart(vec![pegasus_line("i-1", "41", 1), pegasus_line("i-2", "42", 1), socks_line(2)])
}

#[tokio::test]
async fn remove_by_product_and_size_label_removes_that_line() {
    let mut mall = mall_with_cart(two_sizes_cart());
    mall.expect_remove_cart_item()
        .withf(|s, item_id, key| s.as_str() == SHOPPER && item_id == "i-2" && key.is_none())
        .times(1)
        .returning(|_, _, _| Ok(cart(vec![pegasus_line("i-1", "41", 1), socks_line(2)])));
    let args = json!({"product_id": "p-peg41", "sku_id": "42"});
    let output: ToolOutput<CartResult> = call(ctx(mall, Lang::Zh), "remove_from_cart", args).await.unwrap();
    let left: Vec<&str> = output.data.items.iter().map(|i| i.item_id.as_str()).collect();
    assert_eq!(left, ["i-1", "i-socks"]);
    assert_eq!(output.data.total_yuan, Yuan(73898));
}

#[tokio::test]
async fn remove_preview_names_the_line_and_ambiguity_is_refused() {
    let args = json!({"item_id": "i-socks"});
    let zh = preview(ctx(mall_with_cart(two_sizes_cart()), Lang::Zh), "remove_from_cart", args.clone()).await;
    assert_eq!(zh.unwrap().summary, "从购物车移除：运动袜 × 2，¥39.98");
    let en =
        preview(ctx(mall_with_cart(two_sizes_cart()), Lang::En), "remove_from_cart", args).await.unwrap();
    assert_eq!(en.summary, "Remove from cart: 运动袜 × 2, ¥39.98");
    assert_eq!(
        en.fingerprint,
        json!({"item_id": "i-socks", "product_id": "p-socks", "sku_id": null, "quantity": 2})
    );

    let both_sizes = json!({"product_id": "p-peg41"});
    let err = preview(ctx(mall_with_cart(two_sizes_cart()), Lang::Zh), "remove_from_cart", both_sizes).await;
    let err = err.unwrap_err();
    assert_eq!(invalid_field(&err), Some("sku_id"));
    assert!(err.to_string().contains("several sizes (41, 42)"), "{err}");
}

#[tokio::test]
async fn remove_without_item_or_product_or_with_a_stranger_item_fails_clearly() {
    let err = call_json(ctx(mall_with_cart(two_sizes_cart()), Lang::Zh), "remove_from_cart", json!({})).await;
    assert!(matches!(err, Err(ToolError::InvalidArguments { .. })), "{err:?}");
    let args = json!({"item_id": "i-999"});
    let err = call_json(ctx(mall_with_cart(two_sizes_cart()), Lang::Zh), "remove_from_cart", args)
        .await
        .unwrap_err();
    let ToolError::NotFound(text) = &err else { panic!("{err:?}") };
    assert!(text.contains("i-999") && text.contains("view_cart"), "{text}");
}

#[tokio::test]
async fn clear_cart_preview_lists_everything_and_the_call_carries_the_key() {
    let zh = preview(ctx(mall_with_cart(full_cart()), Lang::Zh), "clear_cart", json!({})).await.unwrap();
    assert_eq!(
        zh.summary,
        "清空购物车：\n1. Nike Pegasus 41 跑鞋（42 码）× 1，¥699\n2. 运动袜 × 2，¥39.98\n合计：¥738.98"
    );
    assert_eq!(zh.fingerprint, json!({"cart_id": "c-42", "total_cents": 73898, "item_count": 2}));

    let mut mall = MockMallApi::new();
    mall.expect_clear_cart()
        .withf(|s, key| s.as_str() == SHOPPER && *key == Some(IdempotencyKey("pa-clear".into())))
        .times(1)
        .returning(|_, _| Ok(cart(vec![])));
    let output: ToolOutput<CartResult> =
        call(approved(mall, "pa-clear", zh.fingerprint), "clear_cart", json!(null)).await.unwrap();
    assert_eq!(output.data, CartResult { cart_id: "c-42".into(), items: vec![], total_yuan: Yuan(0) });
}

#[tokio::test]
async fn clearing_an_empty_cart_has_nothing_to_confirm() {
    let err =
        preview(ctx(mall_with_cart(cart(vec![])), Lang::En), "clear_cart", json!({})).await.unwrap_err();
    assert_eq!(refused_code(&err), Some("CART_EMPTY"));
}

#[tokio::test]
async fn view_cart_shows_lines_in_yuan_and_offers_to_order() {
    let output: ToolOutput<CartResult> =
        call(ctx(mall_with_cart(full_cart()), Lang::En), "view_cart", json!({})).await.unwrap();
    assert_eq!(output.data.cart_id, "c-42");
    assert_eq!(
        output.data.items[1],
        ItemLine {
            item_id: "i-socks".into(),
            product_id: "p-socks".into(),
            sku_id: None,
            name: "运动袜".into(),
            sku_label: None,
            quantity: 2,
            unit_price_yuan: Yuan(1999),
            line_total_yuan: Yuan(3998),
        }
    );
    assert_eq!(output.data.total_yuan, Yuan(73898));
    assert_eq!(output.suggestions, ["Place the order"]);
}

#[tokio::test]
async fn a_mall_outage_while_viewing_the_cart_is_upstream() {
    let mut mall = MockMallApi::new();
    mall.expect_get_cart().returning(|_| Err(unavailable()));
    let err = call_json(ctx(mall, Lang::Zh), "view_cart", json!({})).await.unwrap_err();
    assert!(matches!(err, ToolError::Upstream(_)), "{err:?}");
}
