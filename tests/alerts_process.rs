//! Stock and price alerts through the real binary: `mallbot run` children on
//! the fake Bot API, the mall a `mallbot mall-server` child over HTTP whose
//! staff endpoints change stock and price, as an operator would. The tests
//! check what the shopper saw.
//!
//! Redis is expected at 127.0.0.1:6379 for the two-instance test; without it
//! that test is skipped with a loud line, unless `CI=true`, where its absence
//! fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis.rs"]
mod redis_store;

use std::time::Duration;

use fake_bot_api::*;
use process::*;
use redis_store::*;
use services::{HttpMall, HttpMallConfig, MallApi, Product, ProductQuery};

const ALICE: Shopper = Shopper { id: 7001, name: "Alice" };
const CONFIRM: &str = "✅ 确认";
const MALL_KEY: &str = "mall-key-alerts";
const STAFF_KEY: &str = "staff-key-alerts";

/// A `mall-server` child with a staff key, and the staff's client of it.
struct Mall {
    url: String,
    staff: HttpMall,
    _server: Process,
}

impl Mall {
    async fn start(dir: &TempDir) -> Mall {
        let addr = free_addr();
        let env = [
            ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
            ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
            ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.to_owned()),
        ];
        let server =
            Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
        wait_for_listener(addr, &server).await;
        let url = format!("http://{addr}");
        let staff = HttpMall::new(HttpMallConfig::new(url.clone(), MALL_KEY.to_owned()))
            .unwrap()
            .with_staff_key(STAFF_KEY)
            .unwrap();
        Mall { url, staff, _server: server }
    }

    /// The Nike running shoe the chat shows first.
    async fn nike_shoe(&self) -> Product {
        let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
        let hit =
            self.staff.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
        self.staff.get_product(&hit.id).await.unwrap()
    }

    async fn stock(&self, product: &Product, size: &str, stock: u32) {
        let sku = product.skus.iter().find(|s| s.label == size).unwrap().sku_id.clone();
        self.staff.set_stock(&product.brief.id, Some(sku), stock).await.unwrap();
    }
}

/// The variables of a bot on the fake Bot API and the HTTP mall, reading the feed every second.
fn bot_env_with(api: &FakeBotApi, mall: &Mall, state_url: String) -> Vec<(&'static str, String)> {
    let mut env = bot_env(api);
    env.extend([
        ("MALLBOT_STATE__URL", state_url),
        ("MALLBOT_MALL__BACKEND", "http".to_owned()),
        ("MALLBOT_MALL__BASE_URL", mall.url.clone()),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
        ("MALLBOT_EVENTS__POLL_SECS", "1".to_owned()),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
    ]);
    env
}

fn press_last(api: &FakeBotApi, chat: i64, user: Shopper, label: &str) {
    let message = api.sent_to(chat).last().cloned().unwrap();
    let data = button_data(&message, label).unwrap_or_else(|| panic!("no {label:?} on {message}"));
    api.push_update(press(user, &message, &data));
}

/// Alice asks for the Nike shoe and sets an alert with `ask`; the texts she read.
async fn set_alert(api: &FakeBotApi, ask: &str, before: usize) -> Vec<String> {
    let chat = ALICE.id;
    api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋"));
    api.wait_for_texts(chat, before + 1).await;
    api.push_update(private_text(ALICE, ask));
    api.wait_for_texts(chat, before + 2).await;
    press_last(api, chat, ALICE, CONFIRM);
    api.wait_for_texts(chat, before + 3).await
}

/// Waits `secs` and checks `chat` got no more than `count` messages.
async fn still(api: &FakeBotApi, chat: i64, count: usize, secs: u64, why: &str) {
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let texts = api.texts_to(chat);
    assert_eq!(texts.len(), count, "{why}: {texts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_changes_wake_each_alert_once_with_its_figures_and_another_size_wakes_none() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("alerts-process");
    let mall = Mall::start(&dir).await;
    let shoe = mall.nike_shoe().await;
    mall.stock(&shoe, "42", 0).await;
    mall.stock(&shoe, "43", 0).await;
    let env = bot_env_with(&api, &mall, format!("sqlite://{}", dir.file("state.db")));
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    let chat = ALICE.id;

    let texts = set_alert(&api, "42码到货了告诉我", 0).await;
    assert!(texts[2].contains("42码") && texts[2].contains("到货时我会告诉您"), "{}", texts[2]);
    mall.stock(&shoe, "43", 5).await;
    still(&api, chat, 3, 7, "size 43 wakes no size-42 alert").await;
    mall.stock(&shoe, "42", 2).await;
    let texts = api.wait_for_texts(chat, 4).await;
    let price = format!("¥{}", services::format_yuan(shoe.brief.price_cents));
    assert!(
        texts[3].contains("到货啦") && texts[3].contains("42码") && texts[3].contains(&price),
        "{}",
        texts[3]
    );
    // Gone and back within seconds: the alert ended, nothing more.
    mall.stock(&shoe, "42", 0).await;
    mall.stock(&shoe, "42", 1).await;

    let texts = set_alert(&api, "降到 400 以下告诉我", 4).await;
    assert!(texts[6].contains("¥400"), "{}", texts[6]);
    mall.staff.set_price(&shoe.brief.id, None, 39_900).await.unwrap();
    let texts = api.wait_for_texts(chat, 8).await;
    let old = format!("¥{}", services::format_yuan(shoe.brief.price_cents));
    assert!(texts[7].contains("降价啦") && texts[7].contains(&format!("{old} → ¥399")), "{}", texts[7]);
    mall.staff.set_price(&shoe.brief.id, None, 39_800).await.unwrap();
    still(&api, chat, 8, 7, "each alert told once").await;
    drop(bot);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_woken_before_kill_9_is_delivered_once_by_the_next_run() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("alerts-kill");
    let mall = Mall::start(&dir).await;
    let shoe = mall.nike_shoe().await;
    mall.stock(&shoe, "44", 0).await;
    let env = bot_env_with(&api, &mall, format!("sqlite://{}", dir.file("state.db")));
    let mut first = Process::spawn("bot (first run)", &["run"], &env, dir.path());
    let chat = ALICE.id;
    set_alert(&api, "44码到货了告诉我", 0).await;

    // Telegram refuses every send: the woken alert stays in the outbox.
    for _ in 0..500 {
        api.fail_next_with("sendMessage", Fault::bad_gateway_html());
    }
    mall.stock(&shoe, "44", 3).await;
    first.wait_for_log("alert told").await;
    api.wait_until("a send of the alert was tried", |api| api.failed_calls("sendMessage") >= 1).await;
    first.kill_9().await;
    api.recover("sendMessage");
    assert_eq!(api.texts_to(chat).len(), 3, "not delivered before the kill");

    let second = Process::spawn("bot (after kill -9)", &["run"], &env, dir.path());
    let texts = api.wait_for_texts(chat, 4).await;
    assert!(texts[3].contains("到货啦") && texts[3].contains("44码"), "{}", texts[3]);
    still(&api, chat, 4, 7, "delivered once").await;
    drop(second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_redis_deliver_an_alert_once() {
    if !redis_available("the two-instance alert test").await {
        return;
    }
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("alerts-redis");
    let mall = Mall::start(&dir).await;
    let shoe = mall.nike_shoe().await;
    mall.stock(&shoe, "45", 0).await;
    let prefix = format!("mallbot-test:{}", unique("alerts"));
    let env = bot_env_with(&api, &mall, format!("{REDIS_URL}/0?prefix={prefix}"));
    let a = Process::spawn("instance A", &["run"], &env, dir.path());
    let chat = ALICE.id;
    set_alert(&api, "45码到货了告诉我", 0).await;
    // B joins once the chat is over (two pollers of one token would both be
    // served its updates; Telegram refuses the second): both read the feed
    // and flush the outbox from now on.
    let b = Process::spawn("instance B", &["run"], &env, dir.path());
    b.wait_for_log("connected to telegram").await;
    mall.stock(&shoe, "45", 2).await;
    let texts = api.wait_for_texts(chat, 4).await;
    assert!(texts[3].contains("到货啦") && texts[3].contains("45码"), "{}", texts[3]);
    still(&api, chat, 4, 8, "one of the two instances told it, once").await;
    let told = [&a, &b].iter().filter(|p| p.log().contains("alert told")).count();
    assert_eq!(told, 1, "one instance woke it");
    drop((a, b));
}
