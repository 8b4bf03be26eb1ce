//! Durable state across restarts and several instances, with real processes:
//! `mallbot run` children talk to a fake Bot API on loopback (polling, or
//! webhooks the test posts to as Telegram would), keep their state in SQLite
//! or a shared Redis, and use the embedded mall or a `mallbot mall-server`
//! child. The tests check what the shopper saw, the orders in the mall and
//! the operators' log lines.
//!
//! Redis is expected at 127.0.0.1:6379; without it the Redis test is skipped
//! with a loud line, unless `CI=true`, where its absence fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis.rs"]
mod redis_store;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use fake_bot_api::*;
use process::*;
use redis_store::*;
use serde_json::{Value, json};
use services::{MallApi, OrderStatus, PageRequest};

const ALICE: Shopper = Shopper { id: 1001, name: "Alice" };
const BOB: Shopper = Shopper { id: 1002, name: "Bob" };
const GROUP: i64 = -100_777;
const CONFIRM: &str = "✅ 确认";

// ---------------------------------------------------------------- what the shopper saw

/// The last message the bot sent to `chat`, as it stands now (with its buttons).
fn last_sent(api: &FakeBotApi, chat: i64) -> Value {
    api.sent_to(chat).last().cloned().expect("a message to the chat")
}

fn confirm_data(message: &Value) -> String {
    button_data(message, CONFIRM).unwrap_or_else(|| panic!("no {CONFIRM} on {message}"))
}

/// Whether the bot asked `getUpdates` for something after update `id` (so,
/// as on Telegram, `id` is confirmed and will not be served again).
fn took(api: &FakeBotApi, id: i64) -> bool {
    api.calls("getUpdates").iter().any(|body| body["offset"].as_i64().is_some_and(|offset| offset > id))
}

/// The answers to the press with this callback query id.
fn answers_to(api: &FakeBotApi, query: &str) -> Vec<Value> {
    api.calls("answerCallbackQuery").into_iter().filter(|a| a["callback_query_id"] == query).collect()
}

async fn orders_in(mall: &dyn MallApi, shopper: Shopper) -> Vec<services::Order> {
    let who = services::Shopper::new("telegram", shopper.id);
    mall.list_orders(&who, PageRequest::default()).await.expect("orders").items
}

// ---------------------------------------------------------------- kill -9 and restart

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_survives_kill_9_and_the_order_is_placed_exactly_once() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("restart");
    let mut env = bot_env(&api);
    env.push(("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))));
    env.push(("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")));
    let chat = ALICE.id;

    let mut first = Process::spawn("bot (first run)", &["run"], &env, dir.path());
    api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋，500 以内的"));
    api.wait_for_texts(chat, 1).await;
    let size = api.push_update(private_text(ALICE, "42码"));
    let texts = api.wait_for_texts(chat, 2).await;
    assert!(texts[1].contains("42"), "the confirmation names the size: {}", texts[1]);
    let prompt = last_sent(&api, chat);
    let confirm = confirm_data(&prompt);
    api.wait_until("the bot took the size message", |api| took(api, size)).await;
    first.kill_9().await;

    let mut second = Process::spawn("bot (after kill -9)", &["run"], &env, dir.path());
    api.push_update(press(ALICE, &prompt, &confirm));
    let texts = api.wait_for_texts(chat, 3).await;
    assert!(texts[2].contains("已加入购物车"), "the press made before the restart works: {}", texts[2]);

    api.push_update(private_text(ALICE, "下单"));
    let texts = api.wait_for_texts(chat, 4).await;
    assert!(texts[3].contains("合计"), "the full order is shown: {}", texts[3]);
    let order_prompt = last_sent(&api, chat);
    api.push_update(press(ALICE, &order_prompt, &confirm_data(&order_prompt)));
    let texts = api.wait_for_texts(chat, 5).await;
    assert!(texts[4].contains("待支付"), "order placed: {}", texts[4]);

    second.terminate();
    assert_eq!(second.exit_status().await.code(), Some(0), "a stopped bot exits 0");
    assert_eq!(api.texts_to(chat).len(), 5, "nothing was answered twice: {:?}", api.texts_to(chat));
    let mall = services::EmbeddedMall::open(dir.file("mall.db")).expect("the mall file");
    let orders = orders_in(&mall, ALICE).await;
    assert_eq!(orders.len(), 1, "{orders:?}");
    assert_eq!(orders[0].status, OrderStatus::PendingPayment);
    assert!(texts[4].contains(&orders[0].order_id), "the order id is shown: {}", texts[4]);
}

// ---------------------------------------------------------------- SIGTERM

/// An OpenAI-compatible model on loopback that takes `delay` to give `answer`.
struct SlowModel {
    base_url: String,
    requests: Arc<AtomicUsize>,
    server: tokio::task::JoinHandle<()>,
}

impl SlowModel {
    async fn start(answer: &'static str, delay: Duration) -> SlowModel {
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        let routes = axum::Router::new().fallback(move || {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                axum::Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 7},
                }))
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let server = tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
        SlowModel { base_url, requests, server }
    }

    /// Waits (bounded) until a turn is waiting for the model.
    async fn wait_for_request(&self) {
        let deadline = tokio::time::Instant::now() + BOUND;
        while self.requests.load(Ordering::SeqCst) == 0 {
            assert!(tokio::time::Instant::now() < deadline, "the model was never asked");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for SlowModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_the_answer_in_flight_arrive_then_the_bot_exits_0() {
    const ANSWER: &str = "商场每天 10:00–22:00 营业。";
    let api = FakeBotApi::start().await;
    let model = SlowModel::start(ANSWER, Duration::from_secs(2)).await;
    let dir = TempDir::new("sigterm");
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "slow-model".to_owned()),
        ("MALLBOT_LLM__API_KEY", "test-key".to_owned()),
    ]);
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("expired state purged").await;

    api.push_update(private_text(ALICE, "商场几点关门？"));
    model.wait_for_request().await;
    bot.terminate();

    let texts = api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains(ANSWER), "the answer being prepared still arrives: {}", texts[0]);
    assert_eq!(bot.exit_status().await.code(), Some(0), "exit code after SIGTERM");
    bot.wait_for_log("telegram transport stopped").await;
    let log = bot.log();
    for line in ["stop requested", "SIGTERM", "turns in flight finished", "telegram transport stopped"] {
        assert!(log.contains(line), "the log says {line:?}:\n{log}");
    }
}

// ---------------------------------------------------------------- two instances, one Redis

/// Deletes every key under `prefix` when dropped (also when the test fails).
struct RedisKeys(String);

impl Drop for RedisKeys {
    fn drop(&mut self) {
        let Ok(mut conn) = redis::Client::open(REDIS_URL).and_then(|c| c.get_connection()) else { return };
        let keys: Vec<String> =
            redis::cmd("KEYS").arg(format!("{}:*", self.0)).query(&mut conn).unwrap_or_default();
        if !keys.is_empty() {
            let _: redis::RedisResult<()> = redis::cmd("DEL").arg(keys).query(&mut conn);
        }
    }
}

const SECRET: &str = "hook-secret-7";

/// A bot instance in webhook mode and where Telegram posts to it.
struct Instance {
    process: Process,
    addr: SocketAddr,
    hook: String,
}

/// One bot deployed twice: instances A and B in webhook mode sharing a Redis
/// prefix of their own, a `mall-server` child as the mall, the fake Bot API.
struct Deployment {
    api: FakeBotApi,
    a: Instance,
    b: Instance,
    mall: services::HttpMall,
    client: reqwest::Client,
    next_update_id: AtomicI64,
    _mall_server: Process,
    _keys: RedisKeys,
    _dir: TempDir,
}

impl Deployment {
    async fn start() -> Deployment {
        let api = FakeBotApi::start().await;
        let dir = TempDir::new("two-instances");
        let prefix = format!("mallbot-test:{}", unique("instances"));
        let keys = RedisKeys(prefix.clone());
        let mall_addr = free_addr();
        let mall_url = format!("http://{mall_addr}");
        let mall_key = "mall-key-42".to_owned();
        let mall_env =
            [("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")), ("MALLBOT_MALL__API_KEY", mall_key.clone())];
        let listen = mall_addr.to_string();
        let mall_server =
            Process::spawn("mall-server", &["mall-server", "--listen", &listen], &mall_env, dir.path());
        wait_for_listener(mall_addr, &mall_server).await;

        let mut env = bot_env(&api);
        env.extend([
            ("MALLBOT_TELEGRAM__MODE", "webhook".to_owned()),
            ("MALLBOT_TELEGRAM__WEBHOOK_URL", "https://bot.example.test/tg-hook".to_owned()),
            ("MALLBOT_TELEGRAM__WEBHOOK_SECRET", SECRET.to_owned()),
            ("MALLBOT_STATE__URL", format!("{REDIS_URL}/0?prefix={prefix}")),
            ("MALLBOT_MALL__BACKEND", "http".to_owned()),
            ("MALLBOT_MALL__BASE_URL", mall_url.clone()),
            ("MALLBOT_MALL__API_KEY", mall_key.clone()),
        ]);
        let a = Self::instance("instance A", &env, dir.path());
        let b = Self::instance("instance B", &env, dir.path());
        wait_for_listener(a.addr, &a.process).await;
        wait_for_listener(b.addr, &b.process).await;
        api.wait_until("both instances registered the webhook", |api| api.calls("setWebhook").len() >= 2)
            .await;
        let mall = services::HttpMall::new(services::HttpMallConfig::new(mall_url, mall_key)).expect("mall");
        Deployment {
            api,
            a,
            b,
            mall,
            client: reqwest::Client::new(),
            next_update_id: AtomicI64::new(100),
            _mall_server: mall_server,
            _keys: keys,
            _dir: dir,
        }
    }

    fn instance(name: &str, env: &[(&str, String)], dir: &Path) -> Instance {
        let addr = free_addr();
        let mut env = env.to_vec();
        env.push(("MALLBOT_TELEGRAM__WEBHOOK_LISTEN", addr.to_string()));
        let process = Process::spawn(name, &["run"], &env, dir);
        Instance { process, addr, hook: format!("http://{addr}/tg-hook") }
    }

    /// `update` with the next update id, as Telegram numbers them.
    fn update(&self, update: Value) -> Value {
        numbered(update, self.next_update_id.fetch_add(1, Ordering::SeqCst))
    }

    /// Posts `update` to `instance` with `secret`, as Telegram does; returns the status.
    async fn post_with(&self, instance: &Instance, secret: &str, update: &Value) -> u16 {
        let request = self.client.post(&instance.hook).header("X-Telegram-Bot-Api-Secret-Token", secret);
        request.json(update).send().await.expect("the webhook answers").status().as_u16()
    }

    /// Posts `update` to `instance` with the right secret and checks it was accepted.
    async fn post(&self, instance: &Instance, update: &Value) {
        assert_eq!(self.post_with(instance, SECRET, update).await, 200, "Telegram always gets 200");
    }

    /// `text` from `shopper` in the private chat, posted to `instance`.
    async fn say(&self, instance: &Instance, shopper: Shopper, text: &str) {
        self.post(instance, &self.update(private_text(shopper, text))).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_webhook_instances_sharing_redis_place_one_order_and_share_buttons_and_links() {
    if !redis_available("the two-instance webhook test").await {
        return;
    }
    let mut bot = Deployment::start().await;
    a_call_without_the_secret_is_refused(&bot).await;
    let order_prompt = a_cart_confirmation_made_on_a_is_pressed_on_b(&bot).await;
    a_press_delivered_to_both_instances_places_one_order(&bot, &order_prompt).await;
    a_suggestion_button_made_on_a_works_on_b(&bot).await;
    a_group_hand_off_link_made_on_a_is_continued_on_b(&bot).await;
    sigterm_stops_a_while_b_goes_on(&mut bot).await;
}

async fn a_call_without_the_secret_is_refused(bot: &Deployment) {
    // Were it taken, its answer would show up among Alice's messages below.
    let forged = bot.update(private_text(ALICE, "/help"));
    assert_eq!(bot.post_with(&bot.a, "wrong-secret", &forged).await, 401);
    assert_eq!(bot.post_with(&bot.b, "", &forged).await, 401);
}

/// Alice's cart confirmation made on A, pressed on B; then her order
/// confirmation made on A, which is returned.
async fn a_cart_confirmation_made_on_a_is_pressed_on_b(bot: &Deployment) -> Value {
    let (api, chat) = (&bot.api, ALICE.id);
    bot.say(&bot.a, ALICE, "帮我买一双 Nike 跑鞋，500 以内的").await;
    api.wait_for_texts(chat, 1).await;
    bot.say(&bot.a, ALICE, "42码").await;
    api.wait_for_texts(chat, 2).await;
    let prompt = last_sent(api, chat);
    bot.post(&bot.b, &bot.update(press(ALICE, &prompt, &confirm_data(&prompt)))).await;
    let texts = api.wait_for_texts(chat, 3).await;
    assert!(texts[2].contains("已加入购物车"), "pressed on the other instance: {}", texts[2]);

    bot.say(&bot.a, ALICE, "下单").await;
    let texts = api.wait_for_texts(chat, 4).await;
    assert!(texts[3].contains("合计"), "the full order is shown: {}", texts[3]);
    last_sent(api, chat)
}

/// Telegram delivers the order press to A and B at once; then Alice presses
/// again (another update, to B).
async fn a_press_delivered_to_both_instances_places_one_order(bot: &Deployment, order_prompt: &Value) {
    let (api, chat) = (&bot.api, ALICE.id);
    let data = confirm_data(order_prompt);
    let pressed = bot.update(press(ALICE, order_prompt, &data));
    tokio::join!(bot.post(&bot.a, &pressed), bot.post(&bot.b, &pressed));
    let texts = api.wait_for_texts(chat, 5).await;
    assert!(texts[4].contains("待支付"), "order placed: {}", texts[4]);

    let again = bot.update(press(ALICE, order_prompt, &data));
    bot.post(&bot.b, &again).await;
    api.wait_until("the second press is answered", |api| !answers_to(api, &query_id(&again)).is_empty())
        .await;
    let answer = &answers_to(api, &query_id(&again))[0];
    let said = answer["text"].as_str().unwrap_or_default();
    let order_id = said
        .strip_prefix("已经处理过了：订单 ")
        .unwrap_or_else(|| panic!("already done, with the order: {answer}"));
    assert!(texts[4].contains(order_id), "the order it names is the one placed: {said} / {}", texts[4]);

    assert_eq!(answers_to(api, &query_id(&pressed)).len(), 1, "the press delivered twice is handled once");
    let dropped_by = |i: &Instance| i.process.log().contains("update delivered again; dropped");
    let deadline = tokio::time::Instant::now() + BOUND;
    while !(dropped_by(&bot.a) || dropped_by(&bot.b)) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let dropped = [&bot.a, &bot.b].map(dropped_by);
    assert_eq!(dropped.iter().filter(|d| **d).count(), 1, "one instance dropped it: {dropped:?}");
    let texts = api.texts_to(chat);
    assert_eq!(texts.iter().filter(|t| t.contains("待支付")).count(), 1, "one order message: {texts:?}");
    assert_eq!(texts.len(), 5, "nothing else was said to the shopper: {texts:?}");
    let orders = orders_in(&bot.mall, ALICE).await;
    assert_eq!(orders.len(), 1, "{orders:?}");
    assert_eq!(orders[0].status, OrderStatus::PendingPayment);
    assert!(texts[4].contains(&orders[0].order_id), "{}", texts[4]);
}

async fn a_suggestion_button_made_on_a_works_on_b(bot: &Deployment) {
    bot.say(&bot.a, BOB, "/start").await;
    bot.api.wait_for_texts(BOB.id, 1).await;
    let greeting = last_sent(&bot.api, BOB.id);
    let example = button_data(&greeting, "屈臣氏在哪").expect("example buttons");
    bot.post(&bot.b, &bot.update(press(BOB, &greeting, &example))).await;
    let texts = bot.api.wait_for_texts(BOB.id, 2).await;
    assert!(texts[1].contains("屈臣氏"), "the example, answered by B: {}", texts[1]);
}

async fn a_group_hand_off_link_made_on_a_is_continued_on_b(bot: &Deployment) {
    bot.post(&bot.a, &bot.update(group_mention(GROUP, BOB, "看看我的购物车"))).await;
    bot.api.wait_for_texts(GROUP, 1).await;
    let (_, link) = buttons(&last_sent(&bot.api, GROUP))
        .into_iter()
        .find(|(_, url)| url.starts_with("https://t.me/"))
        .expect("a private-chat link");
    let payload = link.rsplit('=').next().unwrap().to_owned();
    bot.say(&bot.b, BOB, &format!("/start {payload}")).await;
    let texts = bot.api.wait_for_texts(BOB.id, 3).await;
    assert!(texts[2].contains("购物车"), "the carried-over request, answered by B: {}", texts[2]);
    assert!(!texts[2].contains("商场导购助手"), "not the greeting: {}", texts[2]);
}

async fn sigterm_stops_a_while_b_goes_on(bot: &mut Deployment) {
    bot.a.process.terminate();
    assert_eq!(bot.a.process.exit_status().await.code(), Some(0), "exit code after SIGTERM");
    bot.a.process.wait_for_log("webhook listener closed").await;
    assert!(tokio::net::TcpStream::connect(bot.a.addr).await.is_err(), "A no longer accepts connections");
    bot.say(&bot.b, BOB, "/help").await;
    bot.api.wait_for_texts(BOB.id, 4).await;
}
