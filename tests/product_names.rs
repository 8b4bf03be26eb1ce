//! Products are named in the shopper's language everywhere: what the model
//! reads (search hits, the cart, the order), the confirmations, `/cart` and
//! `/orders`, and basic mode's answers. The demo mall names every product
//! in Chinese and English.
#![allow(clippy::unwrap_used)]

#[path = "support/seed_flow.rs"]
mod seed_flow;

use std::sync::Arc;

use handlers::Lang;
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::state::MemoryStore;
use seed_flow::{Bench, USER};
use serde_json::Value;
use services::{EmbeddedMall, MallApi, PageRequest, Shopper};

/// The names of the product the flow bought, from the mall: (Chinese, English).
async fn bought(mall: &Arc<dyn MallApi>) -> (String, String) {
    let orders = mall.list_orders(&Shopper::new("telegram", USER), PageRequest::default()).await.unwrap();
    let product = mall.get_product(&orders.items[0].items[0].product_id).await.unwrap();
    (product.brief.name.clone(), product.brief.name_en.clone().expect("an English name"))
}

/// The names in the tool results the model read, by tool.
fn names_read(bench: &Bench) -> Vec<(String, String)> {
    let last = bench.model.received().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap().clone();
    let mut names = Vec::new();
    for message in &messages {
        let Some(calls) = message["tool_calls"].as_array() else { continue };
        for call in calls {
            let result = messages.iter().find(|m| m["tool_call_id"] == call["id"]).unwrap();
            let data: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
            let tool = call["function"]["name"].as_str().unwrap().to_owned();
            let first = match tool.as_str() {
                "search_products" => data["products"][0]["name"].clone(),
                "add_to_cart" => data["items"][0]["name"].clone(),
                "create_order" => data["order"]["items"][0]["name"].clone(),
                _ => continue,
            };
            names.push((tool, first.as_str().unwrap().to_owned()));
        }
    }
    names
}

#[tokio::test]
async fn an_english_shopper_sees_english_product_names_everywhere() {
    let bench = Bench::start().await;
    let steps = bench.seed_flow(Lang::En).await;
    let (zh, en) = bought(&bench.mall).await;
    assert_ne!(zh, en);
    // What the model read: the hit it recommended, the cart, the order.
    let read = names_read(&bench);
    let tools: Vec<&str> = read.iter().map(|(tool, _)| tool.as_str()).collect();
    // The order's result answered in its own words (llm.direct_answers): the
    // model never needed to read it.
    assert_eq!(tools, ["search_products", "add_to_cart"]);
    for (tool, name) in &read {
        assert_eq!(name, &en, "{tool} names the product in English");
    }
    // What the shopper saw: the recommendation, both confirmations, the answers.
    let shown: Vec<&str> = steps.iter().map(|s| s.shown.as_str()).collect();
    assert!(shown[0].contains(&en), "the recommendation: {}", shown[0]);
    assert!(shown[1].starts_with("Add to cart: ") && shown[1].contains(&en), "{}", shown[1]);
    assert!(shown[3].starts_with("Place this order:") && shown[3].contains(&en), "{}", shown[3]);
    assert!(shown[4].starts_with("Order placed!"), "{}", shown[4]);
    for text in shown {
        assert!(!text.contains(&zh), "no Chinese product name: {text}");
    }
    // The orders list the shopper opens.
    let ctx = MessageContext::private("telegram", USER, "/orders", Lang::En);
    let orders = bench.app.router.show_orders(&ctx).await;
    assert!(orders.text.contains(&en) && !orders.text.contains(&zh), "{}", orders.text);
}

#[tokio::test]
async fn a_chinese_shopper_sees_chinese_product_names() {
    let bench = Bench::start().await;
    let steps = bench.seed_flow(Lang::Zh).await;
    let (zh, en) = bought(&bench.mall).await;
    for (tool, name) in names_read(&bench) {
        assert_eq!(name, zh, "{tool} names the product in Chinese");
    }
    assert!(steps[1].shown.starts_with("加入购物车：") && steps[1].shown.contains(&zh), "{}", steps[1].shown);
    assert!(steps[3].shown.contains(&zh) && !steps[3].shown.contains(&en), "{}", steps[3].shown);
    let ctx = MessageContext::private("telegram", USER, "我的订单", Lang::Zh);
    let orders = bench.app.router.show_orders(&ctx).await;
    assert!(orders.text.contains(&zh), "{}", orders.text);
}

#[tokio::test]
async fn basic_mode_names_products_in_english_for_english_shoppers() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let app = App::with_parts(Config::default(), mall.clone(), Arc::new(MemoryStore::new())).unwrap();
    let say = |text: &str| MessageContext::private("telegram", USER, text, Lang::En);
    let listed = app.router.dispatch(&say("show me Nike running shoes")).await;
    assert!(listed.text.starts_with("I found"), "{}", listed.text);
    let first_line = listed.text.lines().nth(1).unwrap();
    let name = first_line.trim_start_matches("1. ").split(" — ").next().unwrap();
    let found = mall
        .search_products(&services::ProductQuery { keyword: Some(name.to_owned()), ..Default::default() })
        .await
        .unwrap();
    let product = found.items.iter().find(|p| p.name_en.as_deref() == Some(name));
    assert!(product.is_some(), "the list names products by their English names: {}", listed.text);
    assert!(!listed.text.contains(&product.unwrap().name), "{}", listed.text);
}
