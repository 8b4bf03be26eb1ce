//! The seed purchase flow end to end against a scripted OpenAI-compatible
//! server over real HTTP on loopback: search → detail → the size question →
//! "42码" → add_to_cart (confirm) → "下单" → create_order (critical) → an order
//! PENDING_PAYMENT in the mall.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use handlers::{Lang, Level};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::{Config, Provider};
use mallbot::state::MemoryStore;
use mallbot::{ConfirmationPress, PressCheck, Reply};
use serde_json::{Value, json};
use services::{EmbeddedMall, MallApi, OrderStatus, PageRequest, Shopper};

const USER: i64 = 4242;

/// Plays the model: decides from the conversation, as a real model would.
fn respond(messages: &[Value]) -> Value {
    let last = messages.last().unwrap();
    let content = last["content"].as_str().unwrap_or("");
    let role = last["role"].as_str().unwrap();
    let call = |name: &str, args: Value| {
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": format!("call_{}", messages.len()), "type": "function",
            "function": {"name": name, "arguments": args.to_string()}}]})
    };
    let say = |text: String| json!({"role": "assistant", "content": text});
    let last_call = messages.iter().rev().find_map(|m| m["tool_calls"][0]["function"]["name"].as_str());
    let result_of = |tool: &str| -> Value {
        let id = messages
            .iter()
            .rev()
            .find(|m| m["tool_calls"][0]["function"]["name"] == tool)
            .map(|m| m["tool_calls"][0]["id"].clone())
            .unwrap();
        let text = messages.iter().find(|m| m["tool_call_id"] == id).unwrap()["content"].as_str().unwrap();
        serde_json::from_str(text).unwrap()
    };
    match (role, content) {
        ("user", "帮我买一双 Nike 跑鞋，500 以内的") => {
            call("search_products", json!({"keyword": "跑鞋", "brand": "Nike", "max_price": 500}))
        }
        ("tool", _) if last_call == Some("search_products") => {
            let hits = result_of("search_products");
            let first = hits["products"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["sizes"].as_array().is_some_and(|sizes| sizes.iter().any(|s| s == "42")));
            call("get_product_detail", json!({"product_id": first.unwrap()["product_id"]}))
        }
        ("tool", _) if last_call == Some("get_product_detail") => {
            let p = result_of("get_product_detail");
            let sizes: Vec<&str> = p["skus"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["stock"].as_u64() > Some(0))
                .filter_map(|s| s["label"].as_str())
                .collect();
            say(format!(
                "{}，¥{}。有这些尺码：{}，您要哪个尺码？",
                p["name"],
                p["price_yuan"],
                sizes.join("、")
            ))
        }
        ("user", "42码") => {
            let p = result_of("get_product_detail");
            call("add_to_cart", json!({"product_id": p["product_id"], "quantity": 1, "sku_id": "42"}))
        }
        ("tool", _) if last_call == Some("add_to_cart") => {
            let cart = result_of("add_to_cart");
            say(format!("已加入购物车，合计 ¥{}。要下单吗？", cart["total_yuan"]))
        }
        ("user", "下单") => call("view_cart", json!({})),
        ("tool", _) if last_call == Some("view_cart") => {
            call("create_order", json!({"cart_id": result_of("view_cart")["cart_id"]}))
        }
        ("tool", _) if last_call == Some("create_order") => {
            let order = result_of("create_order");
            say(format!(
                "下单成功！订单号 {}，状态 {}。",
                order["order"]["order_id"], order["order"]["status"]
            ))
        }
        other => panic!("unscripted turn: {other:?}"),
    }
}

#[derive(Clone, Default)]
struct Server {
    requests: Arc<Mutex<Vec<Value>>>,
}

async fn completions(State(server): State<Server>, Json(body): Json<Value>) -> Json<Value> {
    server.requests.lock().unwrap().push(body.clone());
    let message = respond(body["messages"].as_array().unwrap());
    let finish = if message["tool_calls"].is_null() { "stop" } else { "tool_calls" };
    Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    }))
}

async fn start_model() -> (String, Server) {
    let server = Server::default();
    let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), server)
}

async fn approve(app: &App, reply: &Reply, level: Level) -> Reply {
    let prompt = reply.confirmation.as_ref().expect("a confirmation");
    assert_eq!(prompt.level, level);
    let press =
        ConfirmationPress { token: prompt.token.clone(), user_id: USER, chat_id: USER, approve: true };
    match app.router.press(&press).await {
        PressCheck::Accepted { claim, .. } => app.router.finish(claim).await,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_seed_purchase_flow_over_http() {
    let (base_url, server) = start_model().await;
    let mut config = Config::default();
    config.llm.provider = Provider::Openai;
    config.llm.base_url = base_url;
    config.llm.model = "scripted-model".into();
    config.llm.api_key = "sk-test".into();
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let app = App::with_parts(config, mall.clone(), Arc::new(MemoryStore::new())).unwrap();
    let say = |text: &str| MessageContext::private("telegram", USER, text, Lang::Zh);

    let asked = app.router.dispatch(&say("帮我买一双 Nike 跑鞋，500 以内的")).await;
    assert!(asked.text.contains("您要哪个尺码"), "{}", asked.text);
    assert!(asked.text.contains("42"), "{}", asked.text);

    let confirm = app.router.dispatch(&say("42码")).await;
    assert!(confirm.text.contains("42"), "the confirmation names the size: {}", confirm.text);
    let added = approve(&app, &confirm, Level::Confirm).await;
    assert!(added.text.contains("已加入购物车"), "{}", added.text);

    let order_prompt = app.router.dispatch(&say("下单")).await;
    let summary = &order_prompt.confirmation.as_ref().unwrap().summary;
    assert!(summary.contains("42") && summary.contains('¥'), "the order shows size and total: {summary}");
    let placed = approve(&app, &order_prompt, Level::Critical).await;
    assert!(placed.text.contains("下单成功"), "{}", placed.text);

    let shopper = Shopper::new("telegram", USER);
    let orders = mall.list_orders(&shopper, PageRequest::default()).await.unwrap();
    assert_eq!(orders.total, 1);
    assert_eq!(orders.items[0].status, OrderStatus::PendingPayment);
    assert!(placed.text.contains(&orders.items[0].order_id), "{}", placed.text);
    assert!(mall.get_cart(&shopper).await.unwrap().items.is_empty(), "the cart was emptied");

    let requests = server.requests.lock().unwrap();
    // A model call per message and one after the search; each confirmed change
    // is answered in its tool's own words (llm.direct_answers).
    assert_eq!(requests.len(), 6, "the model calls of the flow");
    let private_tools = handlers::all().iter().filter(|t| t.scope.allows(false)).count();
    assert!(requests.iter().all(|r| r["tools"].as_array().unwrap().len() == private_tools));
    // Tool results went back as one tool message per call id, arguments as strings.
    let last = requests.last().unwrap()["messages"].as_array().unwrap();
    for m in last.iter().filter(|m| !m["tool_calls"].is_null()) {
        assert!(m["tool_calls"][0]["function"]["arguments"].is_string());
        let id = &m["tool_calls"][0]["id"];
        assert_eq!(last.iter().filter(|t| &t["tool_call_id"] == id).count(), 1);
    }
}
