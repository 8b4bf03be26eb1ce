//! One door and one confirmation for every way in, through the real binary:
//! the Mini App (`mallbot webapp`, initData signed as Telegram signs it) and
//! MCP (`mallbot mcp` over stdio) are held to the same allow-lists, rate
//! limit, one-time-code rule, owner check and audit log as the chat; what
//! they store of a caller's arguments is only what the tool declares, and
//! bounded; their errors are the shopper's words and an id, never the mall's
//! route or connection error. Also: launch data from the future is refused,
//! and the page ignores `postMessage` events from other origins.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use mallbot::webapp::InitDataCheck;
use process::{Process, TempDir, free_addr, wait_for_listener};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

const TOKEN: &str = "123:DOOR";

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// `initData` of `user`, signed as Telegram signs it, dated `auth_date`.
fn init_data_at(user: i64, auth_date: u64) -> String {
    let user = json!({"id": user, "first_name": "Shopper", "language_code": "en"}).to_string();
    InitDataCheck::new(TOKEN, 3600).sign(&[
        ("auth_date", &auth_date.to_string()),
        ("user", &user),
        ("query_id", "AAq"),
    ])
}

fn init_data(user: i64) -> String {
    init_data_at(user, now() - 5)
}

/// `mallbot webapp` on the demo mall with its state in SQLite, and `extra` settings.
struct Web {
    addr: SocketAddr,
    process: Process,
    dir: TempDir,
    http: reqwest::Client,
}

impl Web {
    async fn start(case: &str, extra: &[(&'static str, &str)]) -> Web {
        let dir = TempDir::new(case);
        let addr = free_addr();
        let mut env = vec![
            ("MALLBOT_TELEGRAM__TOKEN", TOKEN.to_owned()),
            ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
            ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
            ("MALLBOT_BOT__LANGUAGE", "en".to_owned()),
        ];
        env.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
        let process = Process::spawn(case, &["webapp", "--listen", &addr.to_string()], &env, dir.path());
        wait_for_listener(addr, &process).await;
        Web { addr, process, dir, http: reqwest::Client::new() }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}/webapp/api/{path}", self.addr)
    }

    async fn get(&self, path: &str, user: Option<i64>) -> (u16, Value) {
        let mut request = self.http.get(self.url(path));
        if let Some(user) = user {
            request = request.header("Authorization", format!("tma {}", init_data(user)));
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    async fn post_as(&self, path: &str, init_data: &str, body: &Value) -> (u16, Value) {
        let response = self
            .http
            .post(self.url(path))
            .header("Authorization", format!("tma {init_data}"))
            .json(body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, user: i64, body: Value) -> (u16, Value) {
        self.post_as(path, &init_data(user), &body).await
    }

    /// Asks to add one of the demo mall's Nike shoes: (status, answer).
    async fn ask_add(&self, user: i64, extra: Value) -> (u16, Value) {
        let (product, sku) = a_nike_shoe().await;
        let mut args = json!({"product_id": product, "sku_id": sku, "quantity": 1});
        if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
            args.extend(extra.clone());
        }
        self.post("actions", user, json!({"tool": "add_to_cart", "args": args})).await
    }

    /// The state database's audit rows: (user, tool, arguments, decision).
    fn audit(&self) -> Vec<(i64, String, String, String)> {
        let db = rusqlite::Connection::open(self.dir.file("state.db")).unwrap();
        let mut rows =
            db.prepare("SELECT user_id, tool, arguments, decision FROM audit ORDER BY id").unwrap();
        rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// Whether `needle` is anywhere in the state database's files (its
    /// pages and write-ahead log), whatever table would hold it.
    fn state_holds(&self, needle: &str) -> bool {
        ["state.db", "state.db-wal"]
            .iter()
            .filter_map(|f| std::fs::read(self.dir.file(f)).ok())
            .any(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
    }

    /// The state database's size on disk, with its write-ahead log.
    fn state_bytes(&self) -> u64 {
        ["state.db", "state.db-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.file(f)).ok())
            .map(|m| m.len())
            .sum()
    }
}

/// A Nike running shoe with a size in stock, from the demo mall.
async fn a_nike_shoe() -> (String, String) {
    use services::MallApi;
    let mall = services::EmbeddedMall::in_memory();
    let query = services::ProductQuery { keyword: Some("Nike 跑鞋".into()), ..Default::default() };
    let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
    let product = mall.get_product(&hit.id).await.unwrap();
    let sku = product.skus.iter().find(|s| s.stock > 0).unwrap();
    (hit.id, sku.sku_id.clone())
}

fn token_of(asked: &Value) -> String {
    asked["confirm"]["token"].as_str().unwrap_or_else(|| panic!("no confirmation: {asked}")).to_owned()
}

// ---------------------------------------------------------------------------------------------
// The Mini App

#[tokio::test]
async fn the_mini_app_keeps_to_the_allow_list() {
    let web = Web::start("door-allow", &[("MALLBOT_BOT__ALLOWED_USERS", "1")]).await;
    let (status, body) = web.ask_add(2, json!({})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["error"], "Sorry, this shopping guide is only open to invited shoppers for now.",
        "the shopper's words: {body}"
    );
    let (status, _) = web.get("cart", Some(2)).await;
    assert_eq!(status, 403, "nor may they read a cart");
    let (status, _) = web.post("actions/whatever", 2, json!({})).await;
    assert_eq!(status, 403, "nor confirm anything");
    let (status, asked) = web.ask_add(1, json!({})).await;
    assert_eq!(status, 200, "the listed user is served: {asked}");
    assert!(web.audit().is_empty());
}

#[tokio::test]
async fn the_mini_app_keeps_to_the_rate_limit_and_stores_only_declared_bounded_arguments() {
    let web = Web::start("door-rate", &[("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "2")]).await;
    let empty = web.state_bytes();

    // An unknown field is never kept: not with the pending action, not in the audit row.
    let padding = format!("padding-{}", "x".repeat(6000));
    let (status, asked) = web.ask_add(2, json!({ "padding": padding })).await;
    assert_eq!(status, 200, "{asked}");
    assert!(!web.state_holds("padding-xxxx"), "the unknown field was stored");
    let (status, done) = web.post(&format!("actions/{}", token_of(&asked)), 2, json!({})).await;
    assert_eq!(status, 200, "{done}");
    let audit = web.audit();
    assert_eq!(audit.len(), 1);
    assert!(!audit[0].2.contains("padding"), "{audit:?}");

    // A body over the 16 KiB limit: refused in the shopper's words before anything is kept.
    let long = format!("long-{}", "x".repeat(64_000));
    let (status, body) = web.ask_add(3, json!({ "padding": long })).await;
    assert_eq!(status, 413, "{body}");
    assert!(body["error"].as_str().unwrap().contains("too long"), "{body}");
    assert!(!web.state_holds("long-xxxx"), "nothing of it kept");
    // 2 MB: the server stops reading at the limit, so the client sees the 413 or, when it is
    // still writing, the connection closed under it; either way nothing of it is kept.
    let huge = format!("huge-{}", "x".repeat(2_000_000));
    let (product, sku) = a_nike_shoe().await;
    let sent = web
        .http
        .post(web.url("actions"))
        .header("Authorization", format!("tma {}", init_data(3)))
        .json(&json!({"tool": "add_to_cart", "args": {"product_id": product, "sku_id": sku, "quantity": 1, "padding": huge}}))
        .send()
        .await;
    match sent {
        Ok(response) => assert_eq!(response.status().as_u16(), 413),
        Err(e) => assert!(e.is_request(), "refused by closing the connection: {e}"),
    }
    assert!(!web.state_holds("huge-xxxx"), "nothing of it kept");

    // Two changes a minute, then refused in the shopper's words (another
    // shopper: the door comes before the body is read, so the refused
    // bodies above were shopper 3's changes of this minute).
    assert_eq!(web.ask_add(5, json!({})).await.0, 200);
    assert_eq!(web.ask_add(5, json!({})).await.0, 200);
    let (status, body) = web.ask_add(5, json!({})).await;
    assert_eq!(status, 429, "the third change in a minute: {body}");
    assert!(body["error"].as_str().unwrap().contains("a little fast"), "{body}");
    let (status, _) = web.ask_add(5, json!({})).await;
    assert_eq!(status, 429, "and the fourth");
    // The confirmation of a change already asked is not a new one.
    let (_, asked) = web.ask_add(4, json!({})).await;
    let (status, _) = web.post(&format!("actions/{}", token_of(&asked)), 4, json!({})).await;
    assert_eq!(status, 200);
    assert!(web.state_bytes() < empty + 200_000, "the state stays small: {} bytes", web.state_bytes());
}

#[tokio::test]
async fn a_mini_app_order_needing_the_code_is_left_to_the_chat_and_what_runs_is_audited() {
    let web = Web::start("door-code", &[("MALLBOT_SAFETY__CRITICAL_CODE", "true")]).await;
    let (_, asked) = web.ask_add(2, json!({})).await;
    let (status, done) = web.post(&format!("actions/{}", token_of(&asked)), 2, json!({})).await;
    assert_eq!(status, 200, "{done}");
    let audit = web.audit();
    assert_eq!(audit.len(), 1, "the confirmed change left its audit row: {audit:?}");
    assert_eq!((audit[0].0, audit[0].1.as_str(), audit[0].3.as_str()), (2, "add_to_cart", "approved"));

    let (_, cart) = web.get("cart", Some(2)).await;
    let cart_id = cart["cart_id"].as_str().unwrap();
    let (status, body) =
        web.post("actions", 2, json!({"tool": "create_order", "args": {"cart_id": cart_id}})).await;
    assert_eq!(status, 403, "{body}");
    let said = body["error"].as_str().unwrap();
    assert!(said.contains("one-time code") && said.contains("in the chat"), "says where to order: {said}");
    let (_, orders) = web.get("orders", Some(2)).await;
    assert_eq!(orders["orders"].as_array().unwrap().len(), 0, "nothing ordered: {orders}");
    assert_eq!(web.audit().len(), 1, "and nothing else run");
}

#[tokio::test]
async fn someone_elses_press_leaves_the_confirmation_to_its_owner() {
    let web = Web::start("door-owner", &[]).await;
    let (_, asked) = web.ask_add(2, json!({})).await;
    let token = token_of(&asked);
    let (status, body) = web.post(&format!("actions/{token}"), 3, json!({})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "This is not your action.");
    let (status, done) = web.post(&format!("actions/{token}"), 2, json!({})).await;
    assert_eq!(status, 200, "the owner's confirmation still works: {done}");
    assert_eq!(done["done"]["items"].as_array().unwrap().len(), 1, "{done}");
    let (status, _) = web.post(&format!("actions/{token}"), 2, json!({})).await;
    assert_eq!(status, 410, "once");
    assert_eq!(web.get("cart", Some(3)).await.1["items"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn with_the_mall_down_a_caller_gets_words_and_an_id_and_the_log_gets_the_detail() {
    let closed = free_addr();
    let base = format!("http://{closed}");
    let web = Web::start(
        "door-down",
        &[("MALLBOT_MALL__BACKEND", "http"), ("MALLBOT_MALL__BASE_URL", &base), ("RUST_LOG", "info")],
    )
    .await;
    let response = web.http.get(web.url("stores/s001")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 503);
    let text = response.text().await.unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["error"], "The mall's system is unavailable; please try again later.", "{text}");
    let id = body["id"].as_str().unwrap_or_else(|| panic!("an error id: {text}"));
    for inside in [closed.to_string().as_str(), "/api/", "retr", "connect", "error sending"] {
        assert!(!text.to_lowercase().contains(inside), "`{inside}` reached the caller: {text}");
    }
    web.process.wait_for_log(id).await;
    let logged = web.process.log();
    let line = logged.lines().find(|l| l.contains(id)).unwrap();
    assert!(line.contains("/api/stores"), "the detail is in the log under the id: {line}");
}

#[tokio::test]
async fn launch_data_from_the_future_is_refused_within_the_clock_skew_taken() {
    let web = Web::start("door-future", &[]).await;
    let me = |init_data: String| {
        let web = &web;
        async move {
            let response = web
                .http
                .get(web.url("me"))
                .header("Authorization", format!("tma {init_data}"))
                .send()
                .await
                .unwrap();
            response.status().as_u16()
        }
    };
    assert_eq!(me(init_data_at(2, now() + 600)).await, 401, "ten minutes ahead");
    assert_eq!(me(init_data_at(2, now() + 30)).await, 200, "a clock 30 s fast");
    assert_eq!(me(init_data_at(2, now() - 1800)).await, 200, "half an hour old");
    assert_eq!(me(init_data_at(2, now() - 7200)).await, 401, "two hours old: over the default hour");
}

/// The page's script in node with a stand-in for the browser: a message
/// event from another origin changes nothing; the same event from the
/// Telegram web client that framed the page applies its theme.
#[test]
fn the_page_takes_events_only_from_the_telegram_client_that_framed_it() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/src/transports/webapp/assets/app.js");
    let harness = r##"
const fs = require("fs");
const set = [];
const any = () => new Proxy(function () {}, {
  get: (t, k) => (k === "then" ? undefined : k === Symbol.toPrimitive ? () => "" : any()),
  apply: () => any(),
  construct: () => any(),
});
const listeners = {};
const parent = { postMessage() {} };
const documentElement = { style: { setProperty: (k, v) => set.push([k, v]) } };
global.window = new Proxy({ parent, addEventListener: (type, fn) => { listeners[type] = fn; } }, {
  get: (t, k) => (k in t ? t[k] : (k in global && k !== "window" ? global[k] : undefined)),
  set: (t, k, v) => { t[k] = v; return true; },
});
global.document = new Proxy({ documentElement }, { get: (t, k) => (k in t ? t[k] : any()) });
global.location = { hash: "", search: "", href: "http://localhost/webapp/" };
global.localStorage = any();
global.fetch = () => new Promise(() => {});
global.navigator = any();
global.matchMedia = any();
global.setTimeout = () => 0;
global.requestAnimationFrame = () => 0;
try { eval(fs.readFileSync(process.argv[1], "utf8")); } catch (e) { console.error(e); }
const theme = JSON.stringify({ eventType: "theme_changed", eventData: { theme_params: { bg_color: "#ff0000" } } });
listeners.message({ origin: "https://evil.example", source: parent, data: theme });
listeners.message({ origin: "https://web.telegram.org", source: {}, data: theme });
const before = set.length;
listeners.message({ origin: "https://web.telegram.org", source: parent, data: theme });
console.log(JSON.stringify({ before, after: set.length }));
"##;
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(harness)
        .arg(script)
        .output()
        .expect("node runs the page's script (Debian's `nodejs`)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let seen: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(seen["before"], 0, "a message from another origin or window was taken: {seen}");
    assert_eq!(seen["after"], 1, "the Telegram client's own event is taken: {seen}");
}

// ---------------------------------------------------------------------------------------------
// MCP

/// A client that accepts every confirmation, noting what it was asked.
#[derive(Clone, Default)]
struct Accepting {
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for Accepting {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "door-test", "version": "1"},
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(format!("{request:?}"));
        Ok(serde_json::from_value(json!({"action": ElicitationAction::Accept, "content": {}})).unwrap())
    }
}

async fn mcp(
    dir: &TempDir,
    client: Accepting,
    extra: &[(&str, &str)],
) -> RunningService<RoleClient, Accepting> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command
        .arg("mcp")
        .current_dir(dir.path())
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db"))
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db")))
        .env("MALLBOT_BOT__LANGUAGE", "en")
        .env("MALLBOT_MCP__USER_ID", "7")
        .envs(extra.iter().copied())
        .env("RUST_LOG", "warn");
    client.serve(TokioChildProcess::new(command).unwrap()).await.unwrap()
}

async fn call(client: &RunningService<RoleClient, Accepting>, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    client.peer().call_tool(params).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn mcp_calls_keep_to_the_allow_list_and_the_rate_limit() {
    let dir = TempDir::new("door-mcp-allow");
    let client = mcp(&dir, Accepting::default(), &[("MALLBOT_BOT__ALLOWED_USERS", "1")]).await;
    let refused = call(&client, "search_products", json!({"keyword": "running shoes"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "Sorry, this shopping guide is only open to invited shoppers for now.");
    client.cancel().await.unwrap();

    let dir = TempDir::new("door-mcp-rate");
    let client = mcp(&dir, Accepting::default(), &[("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "2")]).await;
    for _ in 0..2 {
        let found = call(&client, "search_products", json!({"keyword": "running shoes"})).await;
        assert_ne!(found.is_error, Some(true), "{}", text(&found));
    }
    let third = call(&client, "search_products", json!({"keyword": "running shoes"})).await;
    assert_eq!(third.is_error, Some(true), "the third call in a minute: {}", text(&third));
    assert!(text(&third).contains("a little fast"), "{}", text(&third));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_mcp_order_needing_the_code_is_refused_without_asking_and_what_runs_is_audited() {
    let dir = TempDir::new("door-mcp-code");
    let person = Accepting::default();
    let client = mcp(&dir, person.clone(), &[("MALLBOT_SAFETY__CRITICAL_CODE", "true")]).await;
    let (product, sku) = a_nike_shoe().await;
    let added = call(
        &client,
        "add_to_cart",
        json!({"product_id": product, "sku_id": sku, "quantity": 1, "padding": "x".repeat(5000)}),
    )
    .await;
    assert_ne!(added.is_error, Some(true), "{}", text(&added));
    let cart = call(&client, "view_cart", json!({})).await;
    let cart_id = cart.structured_content.as_ref().unwrap()["cart_id"].as_str().unwrap().to_owned();
    let asked_before = person.asked.lock().unwrap().len();
    let order = call(&client, "create_order", json!({"cart_id": cart_id})).await;
    assert_eq!(order.is_error, Some(true));
    assert!(
        text(&order).contains("one-time code") && text(&order).contains("in the chat"),
        "{}",
        text(&order)
    );
    assert_eq!(person.asked.lock().unwrap().len(), asked_before, "not asked: it could not be done here");
    let orders = call(&client, "list_orders", json!({})).await;
    assert_eq!(orders.structured_content.as_ref().unwrap()["orders"].as_array().unwrap().len(), 0);
    client.cancel().await.unwrap();

    let db = rusqlite::Connection::open(dir.file("state.db")).unwrap();
    let rows: Vec<(i64, String, String, String)> = db
        .prepare("SELECT user_id, tool, arguments, decision FROM audit ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0].0, rows[0].1.as_str(), rows[0].3.as_str()), (7, "add_to_cart", "approved"));
    assert!(!rows[0].2.contains("padding"), "only the declared arguments: {}", rows[0].2);
}

#[tokio::test]
async fn with_the_mall_down_an_mcp_caller_gets_words_and_an_id_only() {
    let dir = TempDir::new("door-mcp-down");
    let closed = free_addr();
    let base = format!("http://{closed}");
    let extra = [("MALLBOT_MALL__BACKEND", "http"), ("MALLBOT_MALL__BASE_URL", base.as_str())];
    let client = mcp(&dir, Accepting::default(), &extra).await;
    let failed = call(&client, "search_products", json!({"keyword": "running shoes"})).await;
    assert_eq!(failed.is_error, Some(true));
    let said = text(&failed);
    assert!(said.starts_with("Something went wrong on our side") && said.contains("(error "), "{said}");
    for inside in [closed.to_string().as_str(), "/api/", "attempt", "connect"] {
        assert!(!said.to_lowercase().contains(inside), "`{inside}` reached the caller: {said}");
    }
    client.cancel().await.unwrap();
}
