//! The fault suite: the real `mallbot run` against loopback fakes this test
//! controls — the Bot API, an OpenAI-compatible model, the mall (a
//! `mallbot mall-server` child behind a proxy that injects faults) and a
//! Redis server of its own — with one fault injected per case. Each case
//! checks what the shopper sees (one whole answer, the true outcome), what
//! the mall holds (no order lost or doubled), and that the bot goes on
//! serving another chat.
//!
//! The Redis case starts `redis-server` on a free port; without it on PATH it
//! is skipped with a loud line, unless `CI=true`, where that fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis.rs"]
mod redis_store;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour, ModelFault};
use process::*;
use serde_json::{Value, json};
use services::{MallApi, OrderStatus, PageRequest};

const ALICE: Shopper = Shopper { id: 2001, name: "Alice" };
const BOB: Shopper = Shopper { id: 2002, name: "Bob" };
const CONFIRM: &str = "✅ 确认";
/// The apology the bot says when it cannot tell what happened.
const GENERIC_APOLOGY: &str = "刚才出了点问题";
/// What basic mode says when the mall does not answer.
const MALL_DOWN: &str = "商场系统暂时没有响应";
const MALL_KEY: &str = "mall-key-faults";
/// The staff key of the mall's staff endpoints, known to the mall and the bot.
const STAFF_KEY: &str = "staff-key-faults";
const ADMIN: Shopper = Shopper { id: 9001, name: "Operator" };
/// Longer than the mall's request timeout (2 s) and the tool timeout (3 s) the rig sets.
const SLOWER_THAN_TIMEOUTS: Duration = Duration::from_secs(6);

// ---------------------------------------------------------------- the mall behind a proxy

/// What the mall proxy does instead of passing one call on.
#[derive(Debug, Clone)]
enum MallFault {
    /// Answer this status with a JSON error body; the mall never sees the call.
    Status(u16),
    /// Pass the call on only after this long.
    Slow(Duration),
    /// Pass the call on, then close the connection without its answer.
    Lost,
}

/// A `mallbot mall-server` child and a proxy in front of it that injects
/// faults per path (`/api/products/search`, `/api/orders`…).
struct Mall {
    /// The proxy's URL (what the bot is given as `mall.base_url`).
    url: String,
    /// A client of the mall itself, for checking what it holds.
    direct: services::HttpMall,
    faults: Arc<Mutex<HashMap<String, VecDeque<MallFault>>>>,
    _server: Process,
    proxy: tokio::task::JoinHandle<()>,
}

impl Drop for Mall {
    fn drop(&mut self) {
        self.proxy.abort();
    }
}

impl Mall {
    async fn start(dir: &TempDir) -> Mall {
        let addr = free_addr();
        let env = [
            ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
            ("MALLBOT_MALL__API_KEY", MALL_KEY.into()),
            ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.into()),
        ];
        let server =
            Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
        wait_for_listener(addr, &server).await;
        let upstream = format!("http://{addr}");
        let faults: Arc<Mutex<HashMap<String, VecDeque<MallFault>>>> = Arc::default();
        let proxy_faults = Arc::clone(&faults);
        let client = reqwest::Client::new();
        let target = upstream.clone();
        let routes =
            axum::Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let faults = Arc::clone(&proxy_faults);
                let client = client.clone();
                let target = target.clone();
                async move {
                    let fault = faults.lock().unwrap().get_mut(uri.path()).and_then(VecDeque::pop_front);
                    match fault {
                        Some(MallFault::Status(status)) => {
                            let status = StatusCode::from_u16(status).unwrap();
                            let error = json!({"error": {"code": "internal", "message": "scripted failure"}});
                            return (status, axum::Json(error)).into_response();
                        }
                        Some(MallFault::Slow(wait)) => tokio::time::sleep(wait).await,
                        Some(MallFault::Lost) | None => {}
                    }
                    let answer = forward(&client, &target, method, &uri, &headers, body).await;
                    if matches!(fault, Some(MallFault::Lost)) {
                        std::panic::resume_unwind(Box::new("answer lost by the mall proxy"));
                    }
                    answer
                }
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let proxy = tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
        let direct =
            services::HttpMall::new(services::HttpMallConfig::new(upstream, MALL_KEY.to_owned())).unwrap();
        Mall { url, direct, faults, _server: server, proxy }
    }

    /// Makes the next call to `path` meet `fault`.
    fn fault_next(&self, path: &str, fault: MallFault) {
        self.faults.lock().unwrap().entry(path.to_owned()).or_default().push_back(fault);
    }

    /// Waits until every fault set for `path` has been met: the call it was
    /// set for has reached the mall (a `Slow` one is still hanging there).
    async fn wait_until_met(&self, path: &str) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while self.faults.lock().unwrap().get(path).is_some_and(|queued| !queued.is_empty()) {
            assert!(tokio::time::Instant::now() < deadline, "no call reached {path}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn orders_of(&self, shopper: Shopper) -> Vec<services::Order> {
        let who = services::Shopper::new("telegram", shopper.id);
        self.direct.list_orders(&who, PageRequest::default()).await.expect("orders").items
    }
}

async fn forward(
    client: &reqwest::Client,
    target: &str,
    method: Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> Response {
    let url = format!("{target}{}", uri.path_and_query().map(|p| p.as_str()).unwrap_or("/"));
    let mut request = client.request(method, url).body(body);
    for (name, value) in headers {
        if name != "host" && name != "content-length" {
            request = request.header(name, value);
        }
    }
    let Ok(answer) = request.send().await else { return StatusCode::BAD_GATEWAY.into_response() };
    let status = answer.status();
    let content_type = answer.headers().get("content-type").cloned();
    let bytes = answer.bytes().await.unwrap_or_default();
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response.headers_mut().insert("content-type", content_type);
    }
    response
}

// ---------------------------------------------------------------- the rig

/// Where the bot's mall is.
enum MallSetup {
    /// The embedded mall (a file in the test's directory).
    Embedded,
    /// A `mall-server` child behind the fault proxy.
    Proxied,
    /// An address nothing listens on.
    Refused,
}

/// One bot under test with its fakes.
struct Rig {
    api: FakeBotApi,
    model: Option<FakeModel>,
    mall: Option<Mall>,
    env: Vec<(&'static str, String)>,
    bot: Process,
    dir: TempDir,
}

impl Rig {
    /// The bot with the scripted model (`model`, when given; otherwise basic
    /// mode), the mall as `mall` says, SQLite state, and `extra` settings.
    async fn start(
        case: &str,
        model: Option<ModelBehaviour>,
        mall: MallSetup,
        extra: &[(&'static str, &str)],
    ) -> Rig {
        let api = FakeBotApi::start().await;
        let dir = TempDir::new(case);
        let mut env = bot_env(&api);
        env.extend([
            ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
            ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
            ("MALLBOT_LLM__REQUEST_TIMEOUT_SECS", "3".to_owned()),
            ("MALLBOT_LLM__TOOL_TIMEOUT_SECS", "3".to_owned()),
            ("MALLBOT_LLM__MAX_RETRIES", "1".to_owned()),
            ("MALLBOT_MALL__REQUEST_TIMEOUT_SECS", "2".to_owned()),
            ("MALLBOT_MALL__MAX_RETRIES", "0".to_owned()),
        ]);
        let model = match model {
            Some(behaviour) => {
                let model = FakeModel::start(behaviour).await;
                env.extend([
                    ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
                    ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
                    ("MALLBOT_LLM__MODEL", "fake".to_owned()),
                    ("MALLBOT_LLM__API_KEY", "fake-key".to_owned()),
                ]);
                Some(model)
            }
            None => None,
        };
        let mall = match mall {
            MallSetup::Embedded => {
                env.push(("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")));
                None
            }
            MallSetup::Proxied => {
                let mall = Mall::start(&dir).await;
                env.extend([
                    ("MALLBOT_MALL__BACKEND", "http".to_owned()),
                    ("MALLBOT_MALL__BASE_URL", mall.url.clone()),
                    ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
                ]);
                Some(mall)
            }
            MallSetup::Refused => {
                env.extend([
                    ("MALLBOT_MALL__BACKEND", "http".to_owned()),
                    ("MALLBOT_MALL__BASE_URL", format!("http://{}", free_addr())),
                    ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
                ]);
                None
            }
        };
        env.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
        let bot = Process::spawn("bot", &["run"], &env, dir.path());
        api.wait_until("the bot polls for updates or sets its webhook", |api| {
            !api.calls("getUpdates").is_empty() || !api.calls("setWebhook").is_empty()
        })
        .await;
        Rig { api, model, mall, env, bot, dir }
    }

    fn model(&self) -> &FakeModel {
        self.model.as_ref().expect("a model")
    }

    fn mall(&self) -> &Mall {
        self.mall.as_ref().expect("a proxied mall")
    }

    /// Kills the bot with SIGKILL and starts it again with the same settings.
    async fn kill_9_and_restart(&mut self) {
        self.bot.kill_9().await;
        self.bot = Process::spawn("bot (after kill -9)", &["run"], &self.env, self.dir.path());
    }

    /// Bob asks something in his own chat and gets an answer: the bot goes
    /// on serving others.
    async fn serves_another_chat(&self) {
        let before = self.answers(BOB.id).len();
        self.api.push_update(private_text(BOB, "/help"));
        let texts = self.wait_for_answers(BOB.id, before + 1).await;
        assert!(!texts[before].contains(GENERIC_APOLOGY), "Bob is served: {}", texts[before]);
    }

    /// The messages the bot sent to `chat` as they stand now (after edits).
    fn shown_to(&self, chat: i64) -> Vec<String> {
        self.api.sent_to(chat).iter().map(|m| m["text"].as_str().unwrap_or_default().to_owned()).collect()
    }

    /// The answers `chat` reads now: its messages after edits, without a
    /// status message still in progress ("🔍 正在搜索…", turned into the
    /// answer when the turn ends).
    fn answers(&self, chat: i64) -> Vec<String> {
        answers_in(&self.api, chat)
    }

    /// Waits until `chat` reads `count` answers; returns them.
    async fn wait_for_answers(&self, chat: i64, count: usize) -> Vec<String> {
        self.api
            .wait_until(&format!("{count} answers in chat {chat}"), |api| {
                answers_in(api, chat).len() >= count
            })
            .await;
        self.answers(chat)
    }
}

/// A status line of a turn still running: one line ending in "…".
fn is_status(text: &str) -> bool {
    !text.contains('\n') && text.trim_end().ends_with('…')
}

fn answers_in(api: &FakeBotApi, chat: i64) -> Vec<String> {
    api.sent_to(chat)
        .iter()
        .map(|m| m["text"].as_str().unwrap_or_default().to_owned())
        .filter(|t| !is_status(t))
        .collect()
}

/// Checks that `chat` holds exactly one answer to the message tagged `tag`
/// and that it is whole: the model's whole answer, or a basic-mode answer,
/// never a cut one or the generic apology.
fn one_whole_answer(rig: &Rig, chat: i64, tag: &str) {
    let shown = rig.shown_to(chat);
    let texts = rig.answers(chat);
    assert_eq!(texts.len(), 1, "one answer was sent: {shown:?}");
    for text in &shown {
        assert!(!text.contains(GENERIC_APOLOGY), "not the generic apology: {text}");
        if text.contains(tag) {
            assert!(text.contains(&fake_model::end_of(tag)), "the answer is whole: {text}");
        }
    }
    assert!(shown.iter().any(|t| about_nike(t)), "the answer is about the question: {shown:?}");
}

/// Whether `text` speaks of Nike (the model's answer says "Nike", basic mode "耐克").
fn about_nike(text: &str) -> bool {
    text.contains("Nike") || text.contains("耐克")
}

// ---------------------------------------------------------------- the model stumbles

/// Alice asks once, the model's first call meets `fault`; she gets one whole answer.
async fn model_fault_case(case: &str, fault: ModelFault, stream: bool) {
    let stream = if stream { "true" } else { "false" };
    let rig = Rig::start(
        case,
        Some(ModelBehaviour::default()),
        MallSetup::Embedded,
        &[("MALLBOT_LLM__STREAM", stream)],
    )
    .await;
    rig.model().fault_next(fault);
    let tag = fake_model::tag(ALICE.id, 0);
    rig.api.push_update(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")));
    rig.wait_for_answers(ALICE.id, 1).await;
    rig.serves_another_chat().await;
    one_whole_answer(&rig, ALICE.id, &tag);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_429_still_gives_one_whole_answer() {
    model_fault_case("model-429", ModelFault::RateLimited { retry_after_secs: 1 }, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_500_still_gives_one_whole_answer() {
    model_fault_case("model-500", ModelFault::Status(500), false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_html_page_still_gives_one_whole_answer() {
    model_fault_case("model-html", ModelFault::Html, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_garbage_json_still_gives_one_whole_answer() {
    model_fault_case("model-garbage", ModelFault::Garbage, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_hanging_past_the_timeout_still_gives_one_whole_answer() {
    model_fault_case("model-hang", ModelFault::Hang, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_stream_cut_mid_answer_still_gives_one_whole_answer() {
    // The tool round streams whole; the answer's stream is cut halfway.
    let rig = Rig::start(
        "model-cut",
        Some(ModelBehaviour::default()),
        MallSetup::Embedded,
        &[("MALLBOT_LLM__STREAM", "true")],
    )
    .await;
    let tag = fake_model::tag(ALICE.id, 0);
    rig.api.push_update(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")));
    rig.model().wait_for_calls(1).await;
    rig.model().fault_next(ModelFault::CutStream);
    rig.wait_for_answers(ALICE.id, 1).await;
    rig.serves_another_chat().await;
    one_whole_answer(&rig, ALICE.id, &tag);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_plain_answer_cut_mid_body_still_gives_one_whole_answer() {
    model_fault_case("model-cut-plain", ModelFault::CutStream, false).await;
}

// ---------------------------------------------------------------- the mall stumbles

/// Alice asks basic mode for shoes while the mall's search meets `fault`
/// (or the mall is not there); she is told clearly.
async fn mall_search_fault_case(case: &str, setup: MallSetup, fault: Option<MallFault>) {
    let rig = Rig::start(case, None, setup, &[]).await;
    if fault.is_some() {
        // Basic mode first learns the mall's names (brands, stores, areas);
        // the fault is meant for the shopper's search, not for that.
        rig.api.push_update(private_text(BOB, "你好"));
        rig.wait_for_answers(BOB.id, 1).await;
    }
    if let Some(fault) = fault {
        rig.mall().fault_next("/api/products/search", fault);
    }
    rig.api.push_update(private_text(ALICE, "有没有 500 元以内的 Nike 跑鞋？"));
    let texts = rig.wait_for_answers(ALICE.id, 1).await;
    assert!(texts[0].contains(MALL_DOWN), "the shopper is told the mall is not answering: {}", texts[0]);
    if rig.mall.is_some() {
        // The mall is back: the next question is answered from it.
        rig.api.push_update(private_text(ALICE, "有没有 500 元以内的 Nike 跑鞋？"));
        let texts = rig.wait_for_answers(ALICE.id, 2).await;
        assert!(about_nike(&texts[1]) && !texts[1].contains(MALL_DOWN), "answered again: {}", texts[1]);
    }
    rig.serves_another_chat().await;
    assert_eq!(rig.answers(ALICE.id).len(), if rig.mall.is_some() { 2 } else { 1 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mall_500_is_told_clearly() {
    mall_search_fault_case("mall-500", MallSetup::Proxied, Some(MallFault::Status(500))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mall_slower_than_its_timeout_is_told_clearly() {
    mall_search_fault_case("mall-slow", MallSetup::Proxied, Some(MallFault::Slow(SLOWER_THAN_TIMEOUTS)))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mall_refusing_connections_is_told_clearly() {
    mall_search_fault_case("mall-refused", MallSetup::Refused, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_path_tool_past_its_timeout_is_told_to_the_model_and_the_shopper_gets_an_answer() {
    let rig = Rig::start("tool-timeout", Some(ModelBehaviour::default()), MallSetup::Proxied, &[]).await;
    rig.mall().fault_next("/api/products/search", MallFault::Slow(SLOWER_THAN_TIMEOUTS));
    let tag = fake_model::tag(ALICE.id, 0);
    rig.api.push_update(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")));
    rig.wait_for_answers(ALICE.id, 1).await;
    let bodies = rig.model().bodies();
    let tool_result = bodies
        .iter()
        .flat_map(|b| b["messages"].as_array().cloned().unwrap_or_default())
        .find(|m| m["role"] == "tool")
        .expect("the model got the tool's result");
    let content = tool_result["content"].to_string();
    assert!(!content.contains("\"items\""), "the model is not handed products: {content}");
    assert!(
        content.to_lowercase().contains("error")
            || content.contains("timeout")
            || content.contains("timed out"),
        "the model is told the tool failed: {content}"
    );
    rig.serves_another_chat().await;
    one_whole_answer(&rig, ALICE.id, &tag);
}

// ---------------------------------------------------------------- orders: no order lost or doubled

/// Alice puts Nike running shoes in size 42 in her cart and asks to order;
/// returns the order confirmation prompt once the bot has confirmed (taken
/// for good) every update so far.
async fn up_to_the_order_prompt(rig: &Rig) -> Value {
    let chat = ALICE.id;
    rig.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋，500 以内的"));
    rig.wait_for_answers(chat, 1).await;
    rig.api.push_update(private_text(ALICE, "42码"));
    rig.wait_for_answers(chat, 2).await;
    let prompt = rig.api.sent_to(chat).last().cloned().unwrap();
    rig.api.push_update(press(ALICE, &prompt, &confirm_data(&prompt)));
    let texts = rig.wait_for_answers(chat, 3).await;
    assert!(texts[2].contains("已加入购物车"), "{}", texts[2]);
    let last = rig.api.push_update(private_text(ALICE, "下单"));
    let texts = rig.wait_for_answers(chat, 4).await;
    assert!(texts[3].contains("合计"), "the full order is shown: {}", texts[3]);
    rig.api
        .wait_until("the bot confirmed the last update", |api| {
            api.calls("getUpdates").iter().any(|b| b["offset"].as_i64().is_some_and(|offset| offset > last))
        })
        .await;
    rig.api.sent_to(chat).last().cloned().unwrap()
}

fn confirm_data(message: &Value) -> String {
    button_data(message, CONFIRM).unwrap_or_else(|| panic!("no {CONFIRM} on {message}"))
}

/// Every text the shopper can read in `chat`: the messages as they stand
/// and the notes shown on button presses.
fn everything_shown(rig: &Rig, chat: i64) -> Vec<String> {
    let mut all = rig.shown_to(chat);
    all.extend(
        rig.api.calls("answerCallbackQuery").iter().filter_map(|a| a["text"].as_str().map(str::to_owned)),
    );
    all
}

/// The order was placed once and the shopper was told so, with its id.
async fn one_order_told(rig: &Rig) {
    let mall = rig.mall();
    let orders = mall.orders_of(ALICE).await;
    assert_eq!(orders.len(), 1, "exactly one order: {orders:?}");
    assert_eq!(orders[0].status, OrderStatus::PendingPayment);
    let id = &orders[0].order_id;
    let shown = everything_shown(rig, ALICE.id);
    assert!(shown.iter().any(|t| t.contains(id.as_str())), "the shopper is told order {id}: {shown:?}");
    assert!(!shown.iter().any(|t| t.contains(GENERIC_APOLOGY)), "never told to try again: {shown:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_between_the_order_confirmation_and_its_press_places_one_order() {
    let mut rig = Rig::start("kill-9-order", None, MallSetup::Proxied, &[]).await;
    let prompt = up_to_the_order_prompt(&rig).await;
    rig.kill_9_and_restart().await;
    rig.api.push_update(press(ALICE, &prompt, &confirm_data(&prompt)));
    let texts = rig.wait_for_answers(ALICE.id, 5).await;
    assert!(texts[4].contains("待支付"), "order placed: {}", texts[4]);
    rig.serves_another_chat().await;
    one_order_told(&rig).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_create_order_answer_places_one_order_and_tells_it() {
    let rig = Rig::start("order-lost", None, MallSetup::Proxied, &[("MALLBOT_MALL__MAX_RETRIES", "2")]).await;
    let prompt = up_to_the_order_prompt(&rig).await;
    rig.mall().fault_next("/api/orders", MallFault::Lost);
    rig.api.push_update(press(ALICE, &prompt, &confirm_data(&prompt)));
    rig.wait_for_answers(ALICE.id, 5).await;
    rig.serves_another_chat().await;
    one_order_told(&rig).await;
}

// ---------------------------------------------------------------- Redis restarted

/// A `redis-server` of this test's own on a free port, with an append-only
/// file so that a restart keeps what was written.
struct OwnRedis {
    port: u16,
    dir: TempDir,
    process: Option<Process>,
}

impl OwnRedis {
    /// Starts it, or says why not: `None` when `redis-server` is not on PATH
    /// (a loud SKIPPED line; under `CI=true` a failure).
    async fn start(test: &str) -> Option<OwnRedis> {
        let found = std::process::Command::new("redis-server").arg("--version").output().is_ok();
        if !found {
            redis_store::skip_or_fail("redis-server not on PATH", test);
            return None;
        }
        let port = free_addr().port();
        let mut redis = OwnRedis { port, dir: TempDir::new("redis"), process: None };
        redis.run().await;
        Some(redis)
    }

    async fn run(&mut self) {
        let port = self.port.to_string();
        let dir = self.dir.path().to_str().unwrap().to_owned();
        let args = [
            "--port",
            &port,
            "--bind",
            "127.0.0.1",
            "--dir",
            &dir,
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
        ];
        let process = Process::spawn_program("redis-server", "redis-server", &args, self.dir.path());
        let addr: SocketAddr = format!("127.0.0.1:{}", self.port).parse().unwrap();
        wait_for_listener(addr, &process).await;
        self.process = Some(process);
    }

    /// Stops it with SIGKILL and starts it again on the same port and files.
    async fn restart(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.kill_9().await;
            let _ = process.exit_status().await;
        }
        self.run().await;
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0?prefix=faults", self.port)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_under_a_pending_order_confirmation_places_one_order() {
    let Some(mut redis) = OwnRedis::start("redis_restarted_under_a_pending_order_confirmation").await else {
        return;
    };
    let rig =
        Rig::start("redis-restart", None, MallSetup::Proxied, &[("MALLBOT_STATE__URL", &redis.url())]).await;
    let prompt = up_to_the_order_prompt(&rig).await;
    redis.restart().await;
    rig.api.push_update(press(ALICE, &prompt, &confirm_data(&prompt)));
    let texts = rig.wait_for_answers(ALICE.id, 5).await;
    assert!(texts[4].contains("待支付"), "order placed: {}", texts[4]);
    rig.serves_another_chat().await;
    one_order_told(&rig).await;
}

// ---------------------------------------------------------------- Telegram stumbles

/// Alice asks; the first `method` call of the answer meets `fault`. She gets
/// the answer (a lost response may repeat it once: the Bot API has no
/// idempotency key), never the apology.
async fn telegram_send_fault_case(case: &str, fault: Fault, extra: &[(&'static str, &str)]) {
    let rig = Rig::start(case, Some(ModelBehaviour::default()), MallSetup::Embedded, extra).await;
    let lost = matches!(fault, Fault::LoseResponse);
    rig.api.fault_next("sendMessage", fault);
    let tag = fake_model::tag(ALICE.id, 0);
    rig.api.push_update(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")));
    rig.api
        .wait_until("the answer arrives", |api| {
            answers_in(api, ALICE.id).iter().any(|t| t.contains(&fake_model::end_of(&tag)))
        })
        .await;
    rig.serves_another_chat().await;
    let texts = rig.answers(ALICE.id);
    assert!(!texts.iter().any(|t| t.contains(GENERIC_APOLOGY)), "never the apology: {texts:?}");
    let answers = texts.iter().filter(|t| t.contains(&fake_model::end_of(&tag))).count();
    let most = if lost { 2 } else { 1 };
    assert!((1..=most).contains(&answers), "the answer arrives {answers} times: {texts:?}");
    assert_eq!(texts.len(), answers, "nothing else is said: {texts:?}");
}

fn flood(seconds: u64) -> Fault {
    Fault::Json(
        429,
        json!({"ok": false, "error_code": 429, "description": format!("Too Many Requests: retry after {seconds}"),
               "parameters": {"retry_after": seconds}}),
    )
}

fn internal_error() -> Fault {
    Fault::Json(500, json!({"ok": false, "error_code": 500, "description": "Internal Server Error"}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_429_on_send_message_is_waited_out() {
    telegram_send_fault_case("tg-send-429", flood(1), &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_send_message_is_resent() {
    telegram_send_fault_case("tg-send-500", internal_error(), &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_502_html_on_send_message_is_resent() {
    telegram_send_fault_case("tg-send-502", Fault::bad_gateway_html(), &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_dropped_connection_on_send_message_is_resent() {
    telegram_send_fault_case("tg-send-drop", Fault::Drop, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_lost_response_on_send_message_still_delivers_the_answer() {
    telegram_send_fault_case("tg-send-lost", Fault::LoseResponse, &[]).await;
}

/// Alice asks while `getUpdates` meets `fault`; her message is answered once.
async fn telegram_get_updates_fault_case(case: &str, fault: Fault) {
    let rig = Rig::start(case, None, MallSetup::Embedded, &[]).await;
    rig.api.fault_next("getUpdates", fault);
    rig.api.push_update(private_text(ALICE, "商场几点关门？"));
    rig.wait_for_answers(ALICE.id, 1).await;
    rig.serves_another_chat().await;
    let texts = rig.answers(ALICE.id);
    assert_eq!(texts.len(), 1, "answered once: {texts:?}");
    assert!(!texts[0].contains(GENERIC_APOLOGY), "{}", texts[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_429_on_get_updates_is_waited_out() {
    telegram_get_updates_fault_case("tg-updates-429", flood(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_get_updates_is_retried() {
    telegram_get_updates_fault_case("tg-updates-500", internal_error()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_502_html_on_get_updates_is_retried() {
    telegram_get_updates_fault_case("tg-updates-502", Fault::bad_gateway_html()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_dropped_connection_on_get_updates_is_retried() {
    telegram_get_updates_fault_case("tg-updates-drop", Fault::Drop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_lost_response_on_get_updates_serves_the_update_again_and_answers_once() {
    telegram_get_updates_fault_case("tg-updates-lost", Fault::LoseResponse).await;
}

/// Alice confirms her order while `method` meets `fault` on the press; the
/// order is placed once and she is told so.
async fn telegram_press_fault_case(case: &str, method: &str, fault: Fault) {
    let rig = Rig::start(case, None, MallSetup::Proxied, &[]).await;
    let prompt = up_to_the_order_prompt(&rig).await;
    rig.api.fault_next(method, fault);
    let pressed = press(ALICE, &prompt, &confirm_data(&prompt));
    let query = query_id(&pressed);
    rig.api.push_update(pressed);
    rig.api
        .wait_until("the press is answered", |api| {
            api.calls("answerCallbackQuery").iter().any(|a| a["callback_query_id"] == query)
                || answers_in(api, ALICE.id).len() >= 5
        })
        .await;
    rig.api
        .wait_until("the outcome is told", |api| {
            answers_in(api, ALICE.id)
                .iter()
                .skip(4)
                .any(|t| t.contains("待支付") || t.contains(GENERIC_APOLOGY))
        })
        .await;
    rig.serves_another_chat().await;
    one_order_told(&rig).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_502_on_the_order_result_still_tells_the_order() {
    telegram_press_fault_case("tg-order-502", "sendMessage", Fault::bad_gateway_html()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_the_order_result_still_tells_the_order() {
    telegram_press_fault_case("tg-order-500", "sendMessage", internal_error()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_edit_message_text_of_the_pressed_prompt_still_places_one_order() {
    telegram_press_fault_case("tg-edit-500", "editMessageText", internal_error()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_502_html_on_edit_message_text_still_places_one_order() {
    telegram_press_fault_case("tg-edit-502", "editMessageText", Fault::bad_gateway_html()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_429_on_edit_message_text_still_places_one_order() {
    telegram_press_fault_case("tg-edit-429", "editMessageText", flood(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_answer_callback_query_still_places_one_order() {
    telegram_press_fault_case("tg-answer-500", "answerCallbackQuery", internal_error()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_dropped_connection_on_answer_callback_query_still_places_one_order() {
    telegram_press_fault_case("tg-answer-drop", "answerCallbackQuery", Fault::Drop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_lost_response_on_answer_callback_query_still_places_one_order() {
    telegram_press_fault_case("tg-answer-lost", "answerCallbackQuery", Fault::LoseResponse).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_while_telegram_refuses_the_answer_delivers_it_after_restart() {
    let mut rig =
        Rig::start("kill-9-outbox", Some(ModelBehaviour::default()), MallSetup::Embedded, &[]).await;
    for _ in 0..3 {
        rig.api.fault_next("sendMessage", Fault::bad_gateway_html());
    }
    let tag = fake_model::tag(ALICE.id, 0);
    rig.api.push_update(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")));
    rig.api
        .wait_until("the bot tried to send the answer", |api| {
            api.attempts("sendMessage")
                .iter()
                .any(|r| r.body["text"].as_str().is_some_and(|t| t.contains(&tag)))
        })
        .await;
    rig.kill_9_and_restart().await;
    rig.api
        .wait_until("the answer arrives after the restart", |api| {
            answers_in(api, ALICE.id).iter().any(|t| t.contains(&fake_model::end_of(&tag)))
        })
        .await;
    rig.serves_another_chat().await;
    let texts = rig.answers(ALICE.id);
    assert_eq!(texts.len(), 1, "one answer: {texts:?}");
}

// ---------------------------------------------------------------- the webhook path

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_502_on_send_message_is_resent() {
    let listen = free_addr();
    let listen_text = listen.to_string();
    let rig = Rig::start(
        "webhook-502",
        Some(ModelBehaviour::default()),
        MallSetup::Embedded,
        &[
            ("MALLBOT_TELEGRAM__MODE", "webhook"),
            ("MALLBOT_TELEGRAM__WEBHOOK_URL", "https://bot.example.test/tg-hook"),
            ("MALLBOT_TELEGRAM__WEBHOOK_SECRET", "hook-secret"),
            ("MALLBOT_TELEGRAM__WEBHOOK_LISTEN", &listen_text),
        ],
    )
    .await;
    wait_for_listener(listen, &rig.bot).await;
    rig.api.fault_next("sendMessage", Fault::bad_gateway_html());
    let tag = fake_model::tag(ALICE.id, 0);
    let update = numbered(private_text(ALICE, &format!("有没有 500 元以内的 Nike 跑鞋？ {tag}")), 7001);
    let client = reqwest::Client::new();
    let status = client
        .post(format!("http://{listen}/tg-hook"))
        .header("X-Telegram-Bot-Api-Secret-Token", "hook-secret")
        .json(&update)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
    rig.api
        .wait_until("the answer arrives", |api| {
            answers_in(api, ALICE.id).iter().any(|t| t.contains(&fake_model::end_of(&tag)))
        })
        .await;
    let texts = rig.answers(ALICE.id);
    assert_eq!(texts.len(), 1, "one answer: {texts:?}");
}

// ---------------------------------------------------------------- no secret in the log

/// A token of the real shape (a 35-character secret half) and one of
/// another length: teloxide's own hiding knows only the first.
const TOKENS: [&str; 2] =
    ["7000000002:AAHleakcheck_0123456789abcdefghijklm", "7000000003:AAHother-shape-secret-9876543210"];

/// What the captured output must not hold: the token, its secret half and
/// the mall's key.
fn assert_no_secret(what: &str, output: &str, token: &str) {
    let (_, half) = token.split_once(':').unwrap();
    for secret in [token, half, MALL_KEY] {
        assert!(!output.contains(secret), "{what} shows {secret:?}:\n{output}");
    }
}

/// `mallbot run` and `mallbot check` with the Bot API unreachable, then
/// answering 500s, then dropping connections, at `level` in `format`: the
/// failures are logged, the token never.
async fn no_token_in_output(case: &str, token: &str, level: &str, format: &str) {
    let dir = TempDir::new(case);
    let secrets = [
        ("MALLBOT_TELEGRAM__TOKEN", token.to_owned()),
        ("MALLBOT_LOG__FORMAT", format.to_owned()),
        ("RUST_LOG", level.to_owned()),
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
    ];

    // The Bot API unreachable: `run` gives up at start, `check` reports it.
    let nowhere = format!("http://{}/", free_addr());
    let mut env = secrets.to_vec();
    env.push(("MALLBOT_TELEGRAM__API_URL", nowhere.clone()));
    let mut bot = Process::spawn("bot (Bot API unreachable)", &["run"], &env, dir.path());
    assert!(!bot.exit_status().await.success(), "run fails without the Bot API");
    let log = bot.log();
    assert!(log.contains("telegram did not take the request"), "the retries are logged:\n{log}");
    assert!(log.contains("cannot reach the Telegram Bot API"), "the reason is told:\n{log}");
    assert_no_secret("run, Bot API unreachable", &log, token);

    let check = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .arg("check")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(dir.path())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    let output = format!("{stdout}{}", String::from_utf8_lossy(&check.stderr));
    assert!(!check.status.success(), "check fails without the Bot API:\n{output}");
    assert!(stdout.contains("❌ telegram: cannot reach the Telegram Bot API"), "check names it:\n{output}");
    assert_no_secret("check, Bot API unreachable", &output, token);

    // The Bot API answering 500s and dropping connections, at start and on the answer.
    let api = FakeBotApi::start().await;
    for fault in [Fault::internal_error(), Fault::Drop] {
        api.fault_next("getMe", fault.clone());
        api.fault_next("sendMessage", fault.clone());
        api.fault_next("sendMessage", fault);
    }
    let mut env = secrets.to_vec();
    env.push(("MALLBOT_TELEGRAM__API_URL", api.url.to_string()));
    let mut bot = Process::spawn("bot (Bot API failing)", &["run"], &env, dir.path());
    api.push_update(private_text(ALICE, "/help"));
    api.wait_until("the answer gets through", |api| !api.texts_to(ALICE.id).is_empty()).await;
    assert!(api.failed_calls("sendMessage") >= 4, "the faults were met");
    bot.terminate();
    bot.exit_status().await;
    let log = bot.log();
    assert!(log.contains("telegram did not take the request"), "the failures are logged:\n{log}");
    assert_no_secret("run, Bot API failing", &log, token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_log_at_debug_in_text() {
    no_token_in_output("no-token-debug-text", TOKENS[0], "debug", "text").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_log_at_trace_in_json() {
    no_token_in_output("no-token-trace-json", TOKENS[1], "trace", "json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_log_at_trace_in_text() {
    no_token_in_output("no-token-trace-text", TOKENS[0], "trace", "text").await;
}

// ---------------------------------------------------------------- payments: never recorded twice or lost

/// The bot's settings for paying in Telegram, staff calls and a quick event feed.
const PAYING: &[(&str, &str)] = &[
    ("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:faults"),
    ("MALLBOT_EVENTS__POLL_SECS", "1"),
    ("MALLBOT_TELEGRAM__ADMINS", "9001"),
    ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY),
];

/// Alice orders through the chat and gets the invoice; returns (order id, payload, total).
async fn up_to_the_invoice(rig: &Rig) -> (String, String, i64) {
    let prompt = up_to_the_order_prompt(rig).await;
    rig.api.push_update(press(ALICE, &prompt, &confirm_data(&prompt)));
    rig.api.wait_until("the invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = rig.api.calls("sendInvoice").remove(0);
    let orders = rig.mall().orders_of(ALICE).await;
    assert_eq!(orders.len(), 1, "{orders:?}");
    let prices: i64 =
        invoice["prices"].as_array().unwrap().iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    assert_eq!(prices, orders[0].total_cents, "the invoice's total is the mall's: {invoice}");
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    (orders[0].order_id.clone(), payload, orders[0].total_cents)
}

/// Alice pays: the pre-checkout is answered ok, then the payment arrives.
async fn pay(rig: &Rig, payload: &str, total: i64, charge: &str) {
    rig.api.push_update(pre_checkout(ALICE, payload, total, "CNY"));
    rig.api.wait_until("the pre-checkout answer", |api| !checkout_answers(api).is_empty()).await;
    let (_, ok, message) = checkout_answers(&rig.api).remove(0);
    assert!(ok, "the genuine order is taken at pre-checkout: {message}");
    rig.api.push_update(successful_payment(ALICE, payload, total, "CNY", charge));
}

/// The order holds exactly one payment, `charge`, and Alice read the receipt exactly once.
async fn paid_once_and_told(rig: &Rig, order_id: &str, charge: &str) {
    rig.api
        .wait_until("the receipt", |api| answers_in(api, ALICE.id).iter().any(|t| t.contains("支付成功")))
        .await;
    let orders = rig.mall().orders_of(ALICE).await;
    assert_eq!(orders.len(), 1, "one order: {orders:?}");
    assert_eq!(orders[0].order_id, order_id);
    assert_eq!(orders[0].status, OrderStatus::Paid);
    let payment = orders[0].payment.clone().expect("one payment recorded");
    assert_eq!(payment.charge_id, charge);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let receipts: Vec<String> =
        rig.answers(ALICE.id).into_iter().filter(|t| t.contains("支付成功")).collect();
    assert_eq!(receipts.len(), 1, "told once: {receipts:?}");
    assert!(receipts[0].contains(order_id), "{}", receipts[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_in_chat_ends_in_a_paid_order_and_a_ready_for_pickup_message() {
    let rig = Rig::start("pay-end-to-end", None, MallSetup::Proxied, PAYING).await;
    let (order_id, payload, total) = up_to_the_invoice(&rig).await;
    pay(&rig, &payload, total, "tg-e2e-1").await;
    paid_once_and_told(&rig, &order_id, "tg-e2e-1").await;

    rig.api.push_update(private_text(ADMIN, &format!("/ready {order_id}")));
    rig.wait_for_answers(ADMIN.id, 1).await;
    rig.api
        .wait_until("the ready message", |api| answers_in(api, ALICE.id).iter().any(|t| t.contains("已备好")))
        .await;
    let ready: Vec<String> = rig.answers(ALICE.id).into_iter().filter(|t| t.contains("已备好")).collect();
    assert!(
        ready[0].contains(&order_id) && (ready[0].contains("Nike") || ready[0].contains("耐克")),
        "{}",
        ready[0]
    );
    assert_eq!(rig.mall().orders_of(ALICE).await[0].status, OrderStatus::Ready);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let paid_events = rig.answers(ALICE.id).iter().filter(|t| t.contains("已支付。")).count();
    assert_eq!(paid_events, 0, "the payment made here is not told again by the event feed");
    assert_eq!(rig.answers(ALICE.id).iter().filter(|t| t.contains("已备好")).count(), 1, "ready told once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_500_on_the_receipt_still_tells_the_payment_once() {
    let rig = Rig::start("pay-receipt-500", None, MallSetup::Proxied, PAYING).await;
    let (order_id, payload, total) = up_to_the_invoice(&rig).await;
    // More failures than one call's retries: the receipt waits in the outbox.
    for _ in 0..6 {
        rig.api.fault_next("sendMessage", internal_error());
    }
    pay(&rig, &payload, total, "tg-receipt-1").await;
    paid_once_and_told(&rig, &order_id, "tg-receipt-1").await;
    rig.serves_another_chat().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mall_500_on_the_payment_record_is_recorded_later_once() {
    let rig = Rig::start("pay-mall-500", None, MallSetup::Proxied, PAYING).await;
    let (order_id, payload, total) = up_to_the_invoice(&rig).await;
    let path = format!("/api/orders/{order_id}/payments");
    rig.mall().fault_next(&path, MallFault::Status(500));
    pay(&rig, &payload, total, "tg-mall-500").await;
    rig.api
        .wait_until("the payment is acknowledged", |api| {
            answers_in(api, ALICE.id).iter().any(|t| t.contains("已收到您的付款"))
        })
        .await;
    paid_once_and_told(&rig, &order_id, "tg-mall-500").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mall_slower_than_the_payment_timeout_is_recorded_once() {
    let rig = Rig::start("pay-mall-slow", None, MallSetup::Proxied, PAYING).await;
    let (order_id, payload, total) = up_to_the_invoice(&rig).await;
    let path = format!("/api/orders/{order_id}/payments");
    rig.mall().fault_next(&path, MallFault::Slow(SLOWER_THAN_TIMEOUTS));
    pay(&rig, &payload, total, "tg-mall-slow").await;
    paid_once_and_told(&rig, &order_id, "tg-mall-slow").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_between_the_payment_and_its_record_records_it_after_the_restart() {
    let mut rig = Rig::start("pay-kill-9", None, MallSetup::Proxied, PAYING).await;
    let (order_id, payload, total) = up_to_the_invoice(&rig).await;
    let path = format!("/api/orders/{order_id}/payments");
    // The record hangs at the mall; the bot dies meanwhile.
    rig.mall().fault_next(&path, MallFault::Slow(Duration::from_secs(30)));
    pay(&rig, &payload, total, "tg-kill-9").await;
    // Kept in the state store before the mall is asked.
    let state = format!("sqlite://{}", rig.dir.file("state.db"));
    wait_for_kept_payment(&state, "tg-kill-9").await;
    // Killed while the mall holds the record call, not before it was made
    // (then the restarted bot's first call would meet the 30 s instead).
    rig.mall().wait_until_met(&path).await;
    rig.kill_9_and_restart().await;
    paid_once_and_told(&rig, &order_id, "tg-kill-9").await;
}

/// Waits until the bot kept the payment `charge` in its state store.
async fn wait_for_kept_payment(url: &str, charge: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(state) = mallbot::state::open(url).await
            && let Ok(Some(_)) = state.get_value(&format!("pay:rec:{charge}")).await
        {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "the payment {charge} was never kept");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
