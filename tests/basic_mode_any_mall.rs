//! Basic mode (the offline planner) on a mall that is not the demo: it learns
//! the brands and stores of the mall it is connected to — here a catalog whose
//! brands the demo does not have, served by the reference mall server and read
//! over HTTP — and it never sends a shopper to a store they did not name when
//! the mall's search ranks loosely.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::Lang;
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::llm::OfflinePlanner;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest};
use mallbot::state::MemoryStore;
use serde_json::Value;
use services::{
    Catalog, EmbeddedMall, HttpMall, HttpMallConfig, MallApi, MockMallApi, Page, ServiceError, Store,
};

/// The demo catalog with its Nike renamed to a brand the demo never had:
/// Kestrel, 隼鹰 in Chinese.
fn other_catalog() -> Arc<Catalog> {
    let demo = include_str!("../services/data/demo-mall.json");
    let renamed = demo.replace("Nike", "Kestrel").replace("nike", "kestrel").replace("耐克", "隼鹰");
    assert!(!renamed.contains("耐克") && renamed.contains("隼鹰"));
    Arc::new(Catalog::from_json(&renamed).unwrap())
}

/// The reference mall server over that catalog on loopback, and a client of it.
async fn http_mall() -> Arc<dyn MallApi> {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::with_catalog(other_catalog(), None).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(services::server::serve(listener, mall, None, None, std::future::pending()));
    Arc::new(HttpMall::new(HttpMallConfig::new(url, "")).unwrap())
}

/// The planner's first move for one shopper message.
async fn first_call(planner: &OfflinePlanner, text: &str) -> (String, Value) {
    let messages = [ChatMessage::system("You are the shopping guide."), ChatMessage::user(text)];
    let tools: Vec<mallbot::Tool> = handlers::all().iter().copied().map(Into::into).collect();
    let response =
        planner.complete(ChatRequest { messages: &messages, tools: &tools, progress: None }).await.unwrap();
    let call = response.message.tool_calls.first().cloned().expect("a tool call");
    (call.name, serde_json::from_str(&call.arguments).unwrap())
}

#[tokio::test]
async fn basic_mode_learns_the_brands_of_a_mall_over_http() {
    let planner = OfflinePlanner::learning(http_mall().await);
    let (tool, args) = first_call(&planner, "帮我买一双隼鹰跑鞋，500 以内").await;
    assert_eq!(tool, "search_products");
    assert_eq!(args["brand"], "Kestrel", "the brand written in Chinese, as the mall spells it: {args}");
    assert_eq!(args["max_price"], 500);
    let (_, args) = first_call(&planner, "I want Kestrel running shoes").await;
    assert_eq!(args["brand"], "Kestrel", "{args}");

    let unlearned = OfflinePlanner::new();
    let (_, args) = first_call(&unlearned, "帮我买一双隼鹰跑鞋，500 以内").await;
    assert!(args.get("brand").is_none(), "without the mall the brand is unknown: {args}");
}

#[tokio::test]
async fn basic_mode_gives_directions_on_another_mall_over_http() {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let app = App::with_parts(config, http_mall().await, Arc::new(MemoryStore::new())).unwrap();
    let reply = app.router.dispatch(&MessageContext::private("console", 7, "隼鹰店在哪", Lang::Zh)).await;
    assert!(reply.text.starts_with("隼鹰在"), "{}", reply.text);
    assert!(reply.text.contains("\n1. "), "numbered steps: {}", reply.text);
}

fn store(id: &str, name: &str, name_en: &str) -> Store {
    Store {
        id: id.into(),
        name: name.into(),
        name_en: name_en.into(),
        category: "数码".into(),
        floor: 1,
        unit: "101".into(),
        area_id: "a-1".into(),
        open_hours: "10:00-22:00".into(),
        phone: "021-0000".into(),
        tags: vec![],
    }
}

/// A mall whose store search answers Apple and Huawei whatever is asked.
fn loose_mall() -> MockMallApi {
    let mut mall = MockMallApi::new();
    let stores = vec![store("s-apple", "苹果", "Apple"), store("s-huawei", "华为", "Huawei")];
    mall.expect_search_stores().returning(move |_| Ok(Page { total: 2, items: stores.clone() }));
    mall.expect_get_store().returning(|id| Err(ServiceError::not_found(format!("store {id}"))));
    mall.expect_list_areas().returning(|| Ok(Page { items: vec![], total: 0 }));
    mall.expect_search_products().returning(|_| Ok(Page { items: vec![], total: 0 }));
    // Learning the mall's example requests looks for a store with an offer.
    mall.expect_store_promotions().returning(|_| Ok(Page { items: vec![], total: 0 }));
    mall.expect_route().never();
    mall.expect_mall_info().returning(|| Err(ServiceError::not_found("no information sections")));
    mall.expect_mall_events().returning(|_| Err(ServiceError::not_found("no events")));
    mall
}

#[tokio::test]
async fn basic_mode_never_sends_the_shopper_to_a_store_they_did_not_name() {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let app = App::with_parts(config, Arc::new(loose_mall()), Arc::new(MemoryStore::new())).unwrap();

    let reply = app.router.dispatch(&MessageContext::private("console", 8, "Nike 店在哪", Lang::Zh)).await;
    assert!(reply.text.starts_with("没有找到“Nike 店”这家店"), "{}", reply.text);
    assert!(reply.text.contains("苹果、华为"), "{}", reply.text);
    assert_eq!(reply.suggestions, ["带我去苹果", "带我去华为"], "the closest names as buttons");

    let reply = app
        .router
        .dispatch(&MessageContext::private("console", 9, "where is the Nike store?", Lang::En))
        .await;
    assert!(reply.text.starts_with("I couldn't find a store called \"Nike store\""), "{}", reply.text);
    assert_eq!(reply.suggestions, ["Take me to Apple", "Take me to Huawei"]);
}

/// The example mall of `examples/malls/riverside` copied to a fresh folder.
fn riverside_copy() -> std::path::PathBuf {
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/malls/riverside");
    let to = std::env::temp_dir().join(format!("mallbot-basic-riverside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    to
}

#[tokio::test]
async fn basic_mode_learns_a_brand_the_malls_files_add_once_they_are_read_again() {
    let dir = riverside_copy();
    let mall = EmbeddedMall::open_folder(&dir, None).unwrap();
    let planner = OfflinePlanner::learning(Arc::new(mall.clone()));
    let (tool, args) = first_call(&planner, "帮我买一双亚瑟士跑鞋").await;
    assert_eq!(tool, "search_products");
    assert_eq!(args["brand"], "ASICS", "the folder's brand by its Chinese name: {args}");
    let (_, args) = first_call(&planner, "我想买萨洛蒙的鞋").await;
    assert_ne!(args["brand"], "Salomon", "not in the mall yet: {args}");

    // The operator adds a store and its products; the mall reads the folder again.
    let append = |file: &str, line: &str| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}{line}\n")).unwrap();
    };
    append("brands.csv", "Salomon,萨洛蒙,");
    append("stores.csv", "s-salomon,萨洛蒙,Salomon,outdoor,1F,1F-15,a-sports,10:00-22:00,,越野跑,Salomon");
    append(
        "products.csv",
        "p-salomon-xt6,s-salomon,Salomon,hiking_shoes,萨洛蒙 XT-6 越野跑鞋,Salomon XT-6 trail shoes,,4.8,,1498,6",
    );
    mall.reload().unwrap();

    // The planner learns again in the background after the reload; its next turns know it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (tool, args) = first_call(&planner, "我想买萨洛蒙的鞋").await;
        if args["brand"] == "Salomon" {
            assert_eq!(tool, "search_products");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never learned: {args}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}
