//! The offline planner driven as the router drives a model: shopper messages
//! in, tool calls out, fake tool results of the real shapes back in, and the
//! answers the shopper would read.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use mallbot::llm::OfflinePlanner;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ToolCall};
use serde_json::{Value, json};

/// A conversation with the planner, kept the way the router keeps it.
struct Chat {
    planner: OfflinePlanner,
    messages: Vec<ChatMessage>,
    tools: Vec<mallbot::Tool>,
}

/// What the planner answered: one tool call, or a text.
#[derive(Debug)]
enum Reply {
    Call(ToolCall),
    Text(String),
}

impl Reply {
    fn call(self, name: &str) -> Value {
        match self {
            Reply::Call(call) if call.name == name => serde_json::from_str(&call.arguments).unwrap(),
            other => panic!("expected a call of {name}, got {other:?}"),
        }
    }

    fn text(self) -> String {
        match self {
            Reply::Text(text) => text,
            other => panic!("expected a text answer, got {other:?}"),
        }
    }
}

impl Chat {
    fn new(is_group: bool) -> Self {
        let tools =
            handlers::all().iter().copied().filter(|t| t.scope.allows(is_group)).map(Into::into).collect();
        let system = ChatMessage::system("You are the shopping guide of the mall.");
        let planner = OfflinePlanner::learning(Arc::new(services::EmbeddedMall::in_memory()));
        Chat { planner, messages: vec![system], tools }
    }

    async fn say(&mut self, text: &str) -> Reply {
        self.messages.push(ChatMessage::user(text));
        self.next().await
    }

    /// Answers the pending call with the tool's data.
    async fn data(&mut self, data: Value) -> Reply {
        self.result(&data.to_string()).await
    }

    /// Answers the pending call with raw tool-message text.
    async fn result(&mut self, content: &str) -> Reply {
        let id = self.messages.last().and_then(|m| m.tool_calls.first()).map(|c| c.id.clone()).unwrap();
        self.messages.push(ChatMessage::tool(id, content));
        self.next().await
    }

    async fn next(&mut self) -> Reply {
        let request = ChatRequest { messages: &self.messages, tools: &self.tools, progress: None };
        let response = self.planner.complete(request).await.unwrap();
        self.messages.push(response.message.clone());
        match response.message.tool_calls.first() {
            Some(call) => {
                assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
                Reply::Call(call.clone())
            }
            None => {
                assert_eq!(response.finish_reason.as_deref(), Some("stop"));
                Reply::Text(response.message.text().to_owned())
            }
        }
    }
}

/// Three Nike running shoes, as `search_products` answers a Chinese shopper.
fn nike_search() -> Value {
    nike_search_on("3楼")
}

/// The same search with the floor as the shopper's language writes it.
fn nike_search_on(floor: &str) -> Value {
    let shoe = |id: &str, name: &str, price: f64, rating: f64| {
        json!({"product_id": id, "name": name, "price": price, "rating": rating, "sizes": ["40", "41", "42"],
               "store": "Nike 专卖店", "floor": floor})
    };
    json!({"total": 3, "products": [
        shoe("p-pegasus", "Nike Air Zoom Pegasus 40", 499.0, 4.8),
        shoe("p-revolution", "Nike Revolution 7", 399.0, 4.5),
        shoe("p-downshifter", "Nike Downshifter 13", 349.0, 4.3),
    ]})
}

fn pegasus_detail() -> Value {
    let sku =
        |size: &str, stock: u32| json!({"sku_id": format!("sku-peg-{size}"), "label": size, "stock": stock});
    json!({"product_id": "p-pegasus", "name": "Nike Air Zoom Pegasus 40", "brand": "Nike", "category": "跑鞋",
           "price_yuan": 499.0, "rating": 4.8, "description": "缓震回弹的日常训练跑鞋",
           "skus": [sku("40", 3), sku("41", 5), sku("42", 2), sku("43", 0)],
           "store": {"store_id": "s-nike", "name": "Nike 专卖店", "floor": 3, "unit": "L3-01"}})
}

fn cart_with_pegasus(quantity: u32) -> Value {
    let total = 499.0 * f64::from(quantity);
    json!({"cart_id": "cart-7", "items": [{"item_id": "item-1", "product_id": "p-pegasus", "sku_id": "sku-peg-42",
           "name": "Nike Air Zoom Pegasus 40", "sku_label": "42", "quantity": quantity, "unit_price_yuan": 499.0,
           "line_total_yuan": total}], "total_yuan": total})
}

fn order(id: &str, status: &str) -> Value {
    json!({"order": {"order_id": id, "status": status, "items": cart_with_pegasus(1)["items"], "total_yuan": 499.0,
           "created_at": "2025-05-01T10:00:00+08:00",
           "pickup_store": {"store_id": "s-nike", "name": "Nike 专卖店", "floor": 3, "unit": "L3-01"}}})
}

#[tokio::test]
async fn seed_flow_from_chinese_request_to_order() {
    let mut chat = Chat::new(false);
    let args = chat.say("帮我买一双 Nike 跑鞋，500 以内的").await.call("search_products");
    assert_eq!(args["max_price"], json!(500));
    assert_eq!(args["brand"], json!("Nike"));
    assert!(args["keyword"].as_str().unwrap().contains("跑鞋"), "{args}");

    let args = chat.data(nike_search()).await.call("get_product_detail");
    assert_eq!(args, json!({"product_id": "p-pegasus"}));

    let answer = chat.data(pegasus_detail()).await.text();
    for expected in
        ["Nike Air Zoom Pegasus 40", "¥499", "4.8", "Nike 专卖店", "3楼", "有 40、41、42 码，您要哪个尺码？"]
    {
        assert!(answer.contains(expected), "missing {expected:?} in {answer}");
    }

    let args = chat.say("42码").await.call("add_to_cart");
    assert_eq!(args, json!({"product_id": "p-pegasus", "sku_id": "sku-peg-42", "quantity": 1}));
    let answer = chat.data(cart_with_pegasus(1)).await.text();
    assert_eq!(answer, "已加入购物车：Nike Air Zoom Pegasus 40（42） × 1，购物车合计 ¥499。要现在下单吗？");

    chat.say("下单").await.call("view_cart");
    let args = chat.data(cart_with_pegasus(1)).await.call("create_order");
    assert_eq!(args, json!({"cart_id": "cart-7"}));
    let answer = chat.data(order("o-1001", "PENDING_PAYMENT")).await.text();
    for expected in ["o-1001", "待支付", "¥499", "Nike 专卖店", "3楼 L3-01"] {
        assert!(answer.contains(expected), "missing {expected:?} in {answer}");
    }
}

#[tokio::test]
async fn yes_after_the_order_offer_places_the_order() {
    let mut chat = Chat::new(false);
    chat.say("帮我买一双 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.call("get_product_detail");
    chat.data(pegasus_detail()).await.text();
    chat.say("42码").await.call("add_to_cart");
    assert!(chat.data(cart_with_pegasus(1)).await.text().ends_with("要现在下单吗？"));
    chat.say("好的").await.call("view_cart");
    let args = chat.data(cart_with_pegasus(1)).await.call("create_order");
    assert_eq!(args, json!({"cart_id": "cart-7"}));

    let mut chat = Chat::new(false);
    assert_eq!(chat.say("好的").await.text(), "", "a yes to nothing is small talk");
}

#[tokio::test]
async fn english_buy_flow_answers_in_english() {
    let mut chat = Chat::new(false);
    let args = chat.say("I want to buy Nike running shoes under 500").await.call("search_products");
    assert_eq!(args["max_price"], json!(500));
    assert_eq!(args["keyword"], json!("Nike running shoes"));
    chat.data(nike_search()).await.call("get_product_detail");
    let answer = chat.data(pegasus_detail()).await.text();
    assert!(answer.contains("Sizes in stock: 40, 41, 42. Which size would you like?"), "{answer}");
    assert!(answer.contains("at Nike 专卖店 (3F, unit L3-01)"), "{answer}");

    let args = chat.say("size 42, 2 pairs").await.call("add_to_cart");
    assert_eq!(args, json!({"product_id": "p-pegasus", "sku_id": "sku-peg-42", "quantity": 2}));
    let answer = chat.data(cart_with_pegasus(2)).await.text();
    assert_eq!(
        answer,
        "Added to your cart: Nike Air Zoom Pegasus 40 (42) × 2. Cart total: ¥998. Shall I place the order now?"
    );

    chat.say("checkout").await.call("view_cart");
    chat.data(cart_with_pegasus(2)).await.call("create_order");
    let answer = chat.data(order("o-1002", "PENDING_PAYMENT")).await.text();
    assert!(answer.starts_with("Order placed! Order o-1002 — status: pending payment"), "{answer}");
}

#[tokio::test]
async fn a_bare_size_keeps_the_quantity_said_when_buying() {
    let mut chat = Chat::new(false);
    chat.say("帮我买两双 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.call("get_product_detail");
    chat.data(pegasus_detail()).await.text();
    let args = chat.say("41").await.call("add_to_cart");
    assert_eq!(args, json!({"product_id": "p-pegasus", "sku_id": "sku-peg-41", "quantity": 2}));
}

#[tokio::test]
async fn plain_search_lists_then_an_ordinal_opens_a_product() {
    let mut chat = Chat::new(false);
    let args = chat.say("show me running shoes").await.call("search_products");
    assert_eq!(args, json!({"keyword": "running shoes"}));
    let answer = chat.data(nike_search_on("3F")).await.text();
    assert!(answer.starts_with("I found 3 products:"), "{answer}");
    assert!(answer.contains("2. Nike Revolution 7 — ¥399, rated 4.5, Nike 专卖店 (3F)"), "{answer}");

    let args = chat.say("the second one").await.call("get_product_detail");
    assert_eq!(args, json!({"product_id": "p-revolution"}));
    let answer = chat.say("第五个").await.text();
    assert_eq!(answer, "上次只列出了 3 件商品，请选 1 到 3 之间的序号。");
}

#[tokio::test]
async fn cheaper_refines_the_previous_search() {
    let mut chat = Chat::new(false);
    chat.say("有什么 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.text();
    let args = chat.say("便宜点的").await.call("search_products");
    assert_eq!(args, json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 498}));
    let args = chat.say("300 以下的呢").await.call("search_products");
    assert_eq!(args, json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 300}));
    let answer = chat.data(json!({"total": 0, "products": []})).await.text();
    assert!(answer.contains("没有找到 ¥300 以内的“Nike 跑鞋”"), "{answer}");
    assert!(answer.contains("放宽"), "{answer}");
}

#[tokio::test]
async fn a_size_out_of_stock_lists_the_sizes_in_stock() {
    let mut chat = Chat::new(false);
    chat.say("有什么 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.text();
    chat.say("第一个").await.call("get_product_detail");
    chat.data(pegasus_detail()).await.text();
    let answer = chat.say("43码").await.text();
    assert_eq!(answer, "抱歉，43 码没有货了。目前有货的尺码：40、41、42，您要哪个？");
}

#[tokio::test]
async fn a_declined_confirmation_changes_nothing() {
    let mut chat = Chat::new(false);
    chat.say("帮我买一双 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.call("get_product_detail");
    chat.data(pegasus_detail()).await.text();
    chat.say("42码").await.call("add_to_cart");
    let declined = json!({"status": "declined", "message": "The shopper declined; nothing was done."});
    assert_eq!(chat.data(declined.clone()).await.text(), "好的，已取消，没有做任何更改。");

    let mut chat = Chat::new(false);
    chat.say("empty my cart").await.call("clear_cart");
    assert_eq!(chat.data(declined).await.text(), "OK, cancelled — nothing was changed.");
}

#[tokio::test]
async fn errors_from_tools_become_short_explanations() {
    let mut chat = Chat::new(false);
    chat.say("帮我买一双 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.call("get_product_detail");
    chat.data(pegasus_detail()).await.text();
    chat.say("42码三双").await.call("add_to_cart");
    let answer = chat.result("Error: the mall refused (OUT_OF_STOCK): only 2 left of size 42.").await.text();
    assert_eq!(answer, "抱歉，库存不足，没能加入购物车。目前有货的尺码：40、41、42，换一个试试？");

    let mut chat = Chat::new(false);
    let args = chat.say("where is Foobar Outlet?").await.call("navigate_to_store");
    assert_eq!(args, json!({"store_name": "Foobar Outlet"}));
    let answer = chat.result("Error: not found: no store named 'Foobar Outlet'.").await.text();
    assert!(answer.starts_with("I couldn't find that store."), "{answer}");
}

#[tokio::test]
async fn cancel_my_last_order_cancels_the_newest_one_that_can_be_and_tells_the_refund() {
    let mut chat = Chat::new(false);
    chat.say("cancel my last order").await.call("list_orders");
    let orders = json!({"total": 4, "orders": [
        {"order_id": "o-4", "status": "READY", "total_yuan": 99.0, "created_at": "2025-05-04T10:00:00Z", "item_count": 1},
        {"order_id": "o-2", "status": "PENDING_PAYMENT", "total_yuan": 499.0, "created_at": "2025-05-02T10:00:00Z", "item_count": 1},
        {"order_id": "o-1", "status": "PENDING_PAYMENT", "total_yuan": 59.0, "created_at": "2025-05-01T10:00:00Z", "item_count": 2},
    ]});
    let args = chat.data(orders).await.call("cancel_order");
    assert_eq!(args, json!({"order_id": "o-2"}), "an order ready for pickup is passed over");
    let answer = chat.data(order("o-2", "CANCELLED")).await.text();
    assert_eq!(answer, "Order o-2 (¥499) has been cancelled.");

    // A paid order is cancelled too; the answer tells the refund as the mall gave it.
    let mut chat = Chat::new(false);
    chat.say("取消订单").await.call("list_orders");
    let paid = json!({"total": 1, "orders": [{"order_id": "o-3", "status": "PAID", "total_yuan": 499.0,
                      "created_at": "2025-05-03T10:00:00Z", "item_count": 1}]});
    assert_eq!(chat.data(paid).await.call("cancel_order"), json!({"order_id": "o-3"}));
    let mut cancelled = order("o-3", "CANCELLED");
    cancelled["order"]["refund"] = json!({"status": "PENDING", "amount_yuan": 499.0});
    assert_eq!(
        chat.data(cancelled).await.text(),
        "订单 o-3 已取消（¥499），商品已退回库存。已付的 ¥499 将退回：商场正在办理退款，完成后会通知您。"
    );

    let mut chat = Chat::new(false);
    chat.say("取消订单").await.call("list_orders");
    let done = json!({"total": 1, "orders": [{"order_id": "o-4", "status": "COMPLETED", "total_yuan": 99.0,
                      "created_at": "2025-05-03T10:00:00Z", "item_count": 1}]});
    assert!(chat.data(done).await.text().starts_with("您没有可以取消的订单"));
}

#[tokio::test]
async fn order_status_without_an_id_looks_up_the_latest_order() {
    let mut chat = Chat::new(false);
    chat.say("我的订单到哪了").await.call("list_orders");
    let orders = json!({"total": 1, "orders": [{"order_id": "o-9", "status": "PAID", "total_yuan": 499.0,
                        "created_at": "2025-05-03T10:00:00Z", "item_count": 1}]});
    assert_eq!(chat.data(orders).await.call("get_order_status"), json!({"order_id": "o-9"}));
    let answer = chat.data(order("o-9", "PAID")).await.text();
    assert_eq!(
        answer,
        "订单 o-9：已支付，合计 ¥499，下单日期 2025-05-01。取货门店：Nike 专卖店（3楼 L3-01）。"
    );
}

#[tokio::test]
async fn checkout_with_an_empty_cart_says_so() {
    let mut chat = Chat::new(false);
    chat.say("结账").await.call("view_cart");
    let answer = chat.data(json!({"cart_id": "cart-7", "items": [], "total_yuan": 0})).await.text();
    assert_eq!(answer, "购物车是空的，先挑几件商品吧。");
}

#[tokio::test]
async fn remove_the_first_item_reads_the_cart_first() {
    let mut chat = Chat::new(false);
    chat.say("删掉第一件").await.call("view_cart");
    let args = chat.data(cart_with_pegasus(1)).await.call("remove_from_cart");
    assert_eq!(args, json!({"item_id": "item-1"}));
    let answer = chat.data(json!({"cart_id": "cart-7", "items": [], "total_yuan": 0})).await.text();
    assert_eq!(answer, "已删除，购物车现在是空的。");
}

#[tokio::test]
async fn directions_and_store_information() {
    let mut chat = Chat::new(true);
    let args = chat.say("优衣库怎么走").await.call("navigate_to_store");
    assert_eq!(args, json!({"store_name": "优衣库"}));
    let route = json!({"store": {"store_id": "s-uniqlo", "name": "优衣库", "name_en": "Uniqlo", "floor": 2, "unit": "L2-08"},
                       "from": "main_entrance", "steps": ["从正门进入后直走", "乘扶梯到 2 楼", "右转即到"],
                       "distance_m": 120, "eta_minutes": 2});
    let answer = chat.data(route).await.text();
    assert!(answer.starts_with("优衣库在2楼 L2-08。从正门出发约 120 米，步行约 2 分钟："), "{answer}");
    assert!(answer.contains("2. 乘扶梯到 2 楼"), "{answer}");

    let args = chat.say("any deals at Uniqlo").await.call("get_store_info");
    assert_eq!(args, json!({"store_id": "Uniqlo", "info_type": "promotions"}));
    let deals = json!({"info_type": "promotions", "store": {"store_id": "s-uniqlo", "name": "优衣库", "name_en": "Uniqlo"},
                       "promotions": [{"title": "Summer sale", "description": "20% off T-shirts", "valid_until": "2025-08-31T23:59:59+08:00"}]});
    let answer = chat.data(deals).await.text();
    assert_eq!(answer, "Current deals at Uniqlo:\n1. Summer sale: 20% off T-shirts (until 2025-08-31)");

    let args = chat.say("美食广场有哪些店").await.call("navigate_to_area");
    assert_eq!(args, json!({"area_name": "美食广场", "show_stores": true}));
}

#[tokio::test]
async fn cart_in_a_group_chat_points_to_the_private_chat() {
    let mut chat = Chat::new(true);
    let answer = chat.say("看看购物车").await.text();
    assert_eq!(answer, "购物车和订单只能在私聊中使用，请私聊我继续。");
}

#[tokio::test]
async fn small_talk_is_left_to_the_chat_fallback() {
    let mut chat = Chat::new(false);
    for text in ["你好", "tell me a joke"] {
        assert_eq!(chat.say(text).await.text(), "");
    }
    assert_eq!(OfflinePlanner::new().describe(), "offline");
}

#[tokio::test]
async fn call_ids_are_unique_across_the_conversation() {
    let mut chat = Chat::new(false);
    chat.say("帮我买一双 Nike 跑鞋").await.call("search_products");
    chat.data(nike_search()).await.call("get_product_detail");
    let ids: Vec<String> =
        chat.messages.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.clone())).collect();
    assert_eq!(ids, ["call_1", "call_2"]);
}
