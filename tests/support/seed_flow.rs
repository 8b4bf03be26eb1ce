//! The seed purchase flow through the real bot and its OpenAI client, against
//! a scripted OpenAI-compatible model on loopback that counts tokens: what
//! the token-budget test checks and `examples/economy.rs` prints.
//!
//! The model plays the seed's design in six calls: search → recommend the
//! best hit with its sizes and ask which one (no detail round: a search hit
//! carries what a recommendation needs) → "42码" → `add_to_cart` (confirmed
//! by the shopper) → a short answer → "下单" → `create_order` with the cart id
//! from the cart it saw (confirmed) → the order number.
//!
//! Its `usage` is counted with cl100k (the tokenizer of the `tiktoken-rs`
//! crate, which ships its vocabulary: nothing is downloaded): input = the
//! compact JSON of the request's `tools` and of each of its `messages`, as
//! the bot sent them; output = the JSON of the answer message; cached = the
//! tokens at the start of that input (tools first, then the messages, the
//! order a provider builds its prompt in) that an earlier request began
//! with — what a provider's prefix cache could serve.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use handlers::{Lang, Level};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::{Config, Provider};
use mallbot::llm::Usage;
use mallbot::state::MemoryStore;
use mallbot::{ConfirmationPress, PressCheck, Reply};
use serde_json::{Value, json};
use services::{EmbeddedMall, MallApi};
use tiktoken_rs::CoreBPE;

/// The shopper of the flow.
pub const USER: i64 = 4242;

/// The cl100k tokenizer.
pub fn cl100k() -> &'static CoreBPE {
    tiktoken_rs::cl100k_base_singleton()
}

/// cl100k tokens of a text.
pub fn tokens(text: &str) -> usize {
    cl100k().encode_with_special_tokens(text).len()
}

/// What one request cost, as the model reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallFigures {
    pub input: usize,
    pub output: usize,
    pub cached: usize,
}

/// One request as the model received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// The body as sent, byte for byte.
    pub raw: Bytes,
    /// The body read as JSON.
    pub body: Value,
    pub figures: CallFigures,
}

#[derive(Clone, Default)]
struct Server {
    received: Arc<Mutex<Vec<Received>>>,
    /// The token sequence of each earlier request (for the prefix cache).
    prefixes: Arc<Mutex<Vec<Vec<u32>>>>,
}

/// The counting model on loopback.
pub struct CountingModel {
    /// `llm.base_url`.
    pub base_url: String,
    server: Server,
}

impl CountingModel {
    /// Starts the model on `127.0.0.1`.
    pub async fn start() -> CountingModel {
        let server = Server::default();
        let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        CountingModel { base_url: format!("http://{addr}/v1"), server }
    }

    /// Every request so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.server.received.lock().unwrap().clone()
    }
}

/// The prompt a provider builds from a request, as tokens: the tools, then
/// each message, each as the compact JSON the bot sent.
fn prompt_tokens(body: &Value) -> Vec<u32> {
    let mut text = body["tools"].to_string();
    for message in body["messages"].as_array().into_iter().flatten() {
        text.push_str(&message.to_string());
    }
    cl100k().encode_with_special_tokens(&text)
}

async fn completions(State(server): State<Server>, raw: Bytes) -> Json<Value> {
    let body: Value = serde_json::from_slice(&raw).unwrap();
    let prompt = prompt_tokens(&body);
    let cached = {
        let mut earlier = server.prefixes.lock().unwrap();
        let shared = earlier
            .iter()
            .map(|e| e.iter().zip(&prompt).take_while(|(a, b)| a == b).count())
            .max()
            .unwrap_or(0);
        earlier.push(prompt.clone());
        shared
    };
    let message = respond(body["messages"].as_array().unwrap());
    let figures = CallFigures { input: prompt.len(), output: tokens(&message.to_string()), cached };
    server.received.lock().unwrap().push(Received { raw, body: body.clone(), figures });
    let finish = if message["tool_calls"].is_null() { "stop" } else { "tool_calls" };
    Json(json!({
        "id": "chatcmpl-seed", "object": "chat.completion", "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": figures.input,
            "completion_tokens": figures.output,
            "total_tokens": figures.input + figures.output,
            "prompt_tokens_details": {"cached_tokens": figures.cached}
        }
    }))
}

/// The result the shopper's conversation got from the latest call of `tool`.
fn result_of(messages: &[Value], tool: &str) -> Option<Value> {
    let call = messages
        .iter()
        .rev()
        .find_map(|m| m["tool_calls"].as_array()?.iter().find(|c| c["function"]["name"] == tool).cloned())?;
    let result = messages.iter().find(|m| m["tool_call_id"] == call["id"])?;
    serde_json::from_str(result["content"].as_str()?).ok()
}

/// Plays the model: decides from the conversation, in the language of the
/// shopper's first message.
fn respond(messages: &[Value]) -> Value {
    let last = messages.last().unwrap();
    let english = messages
        .iter()
        .any(|m| m["role"] == "user" && m["content"].as_str().unwrap_or("").contains("Nike running"));
    let pick = |zh: String, en: String| if english { en } else { zh };
    let call = |name: &str, args: Value| {
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": format!("call_{}", messages.len()), "type": "function",
            "function": {"name": name, "arguments": args.to_string()}}]})
    };
    let say = |text: String| json!({"role": "assistant", "content": text});
    let last_call = messages.iter().rev().find_map(|m| m["tool_calls"][0]["function"]["name"].as_str());
    let text = last["content"].as_str().unwrap_or("");
    match (last["role"].as_str().unwrap(), last_call) {
        ("user", None) => call(
            "search_products",
            json!({"keyword": pick("跑鞋".into(), "running shoes".into()), "brand": "Nike", "max_price": 500}),
        ),
        ("tool", Some("search_products")) => {
            let hits = result_of(messages, "search_products").unwrap();
            let hit = hits["products"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["sizes"].as_array().is_some_and(|s| s.iter().any(|s| s == "42")))
                .expect("a hit in size 42");
            let sizes: Vec<&str> =
                hit["sizes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            let (name, price, rating, store, floor) = (
                hit["name"].as_str().unwrap(),
                &hit["price"],
                &hit["rating"],
                hit["store"].as_str().unwrap(),
                hit["floor"].as_str().unwrap_or(""),
            );
            say(pick(
                format!(
                    "推荐{name}，¥{price}，评分 {rating}，在{store}（{floor}）。有 {} 码，您要哪个尺码？",
                    sizes.join("、")
                ),
                format!(
                    "I recommend {name}: ¥{price}, rated {rating}, at {store} ({floor}). Sizes {}: which size would you like?",
                    sizes.join(", ")
                ),
            ))
        }
        ("user", Some("search_products")) if text.contains("42") => {
            let hits = result_of(messages, "search_products").unwrap();
            let hit = hits["products"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["sizes"].as_array().is_some_and(|s| s.iter().any(|s| s == "42")))
                .unwrap();
            call("add_to_cart", json!({"product_id": hit["product_id"], "quantity": 1, "sku_id": "42"}))
        }
        ("tool", Some("add_to_cart")) => {
            let cart = result_of(messages, "add_to_cart").unwrap();
            let total = &cart["total_yuan"];
            say(pick(
                format!("已加入购物车，合计 ¥{total}。要下单吗？"),
                format!("Added to your cart, total ¥{total}. Shall I place the order?"),
            ))
        }
        ("user", Some("add_to_cart")) => {
            let cart = result_of(messages, "add_to_cart").unwrap();
            call("create_order", json!({"cart_id": cart["cart_id"]}))
        }
        ("tool", Some("create_order")) => {
            let order = result_of(messages, "create_order").unwrap();
            let id = order["order"]["order_id"].as_str().unwrap().to_owned();
            say(pick(
                format!("下单成功！订单号 {id}，请到店取货。"),
                format!("Order placed! Order {id}, ready for pickup."),
            ))
        }
        other => panic!("unscripted turn: {other:?} after {text:?}"),
    }
}

/// One step of the flow as the shopper saw it, and what the model calls of
/// that step cost (the bot's own figures, from the usage it read).
#[derive(Debug, Clone)]
pub struct Step {
    /// What the shopper did: a message, or a button press.
    pub shopper: String,
    /// What the bot showed (the answer, or the confirmation).
    pub shown: String,
    pub usage: Usage,
}

/// The shopper's messages of the flow in `lang`.
pub fn messages(lang: Lang) -> [&'static str; 3] {
    match lang {
        Lang::Zh => ["帮我买一双 Nike 跑鞋，500 以内的", "42码", "下单"],
        Lang::ZhHant => ["幫我買一雙 Nike 跑鞋，500 以內的", "42碼", "下單"],
        Lang::En => ["Buy me Nike running shoes under 500 yuan", "size 42", "place the order"],
    }
}

/// The bot, its mall and the counting model behind it.
pub struct Bench {
    pub app: App,
    pub mall: Arc<dyn MallApi>,
    pub model: CountingModel,
}

impl Bench {
    /// The bot on the embedded mall with the OpenAI client pointed at a new
    /// counting model.
    pub async fn start() -> Bench {
        let model = CountingModel::start().await;
        let mut config = Config::default();
        config.llm.provider = Provider::Openai;
        config.llm.base_url = model.base_url.clone();
        config.llm.model = "scripted-model".into();
        config.llm.api_key = "sk-test".into();
        let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
        let app = App::with_parts(config, mall.clone(), Arc::new(MemoryStore::new())).unwrap();
        Bench { app, mall, model }
    }

    /// Runs the seed purchase flow in `lang`, pressing Confirm at both
    /// confirmations; the steps in order.
    pub async fn seed_flow(&self, lang: Lang) -> Vec<Step> {
        let [buy, size, order] = messages(lang);
        let ctx = |text: &str| MessageContext::private("telegram", USER, text, lang);
        let mut steps = Vec::new();
        let mut before = self.app.router.conversation_usage(&ctx("")).await;
        let mut record = |shopper: String, shown: String, now: Usage, steps: &mut Vec<Step>| {
            let usage = Usage {
                prompt_tokens: now.prompt_tokens - before.prompt_tokens,
                completion_tokens: now.completion_tokens - before.completion_tokens,
                cached_tokens: now.cached_tokens - before.cached_tokens,
            };
            before = now;
            steps.push(Step { shopper, shown, usage });
        };
        let asked = self.app.router.dispatch(&ctx(buy)).await;
        record(
            buy.into(),
            asked.text.clone(),
            self.app.router.conversation_usage(&ctx("")).await,
            &mut steps,
        );
        for (text, level) in [(size, Level::Confirm), (order, Level::Critical)] {
            let prompt = self.app.router.dispatch(&ctx(text)).await;
            let summary =
                prompt.confirmation.as_ref().map(|c| c.summary.clone()).unwrap_or(prompt.text.clone());
            record(text.into(), summary, self.app.router.conversation_usage(&ctx("")).await, &mut steps);
            let done = approve(&self.app, &prompt, level).await;
            let press = if lang == Lang::En { "(presses Confirm)" } else { "（按下确认）" }.to_owned();
            record(press, done.text, self.app.router.conversation_usage(&ctx("")).await, &mut steps);
        }
        steps
    }
}

async fn approve(app: &App, reply: &Reply, level: Level) -> Reply {
    let prompt = reply.confirmation.as_ref().unwrap_or_else(|| panic!("a confirmation: {reply:?}"));
    assert_eq!(prompt.level, level);
    let press =
        ConfirmationPress { token: prompt.token.clone(), user_id: USER, chat_id: USER, approve: true };
    match app.router.press(&press).await {
        PressCheck::Accepted { claim, .. } => app.router.finish(claim).await,
        other => panic!("{other:?}"),
    }
}
